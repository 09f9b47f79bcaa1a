//! Value canonicalisation of known types, the way Argo CD's `remarshal` and `knownTypeFields`
//! do it: quantities, integral IntOrString numbers, Go durations.

use super::duration::{format_go_duration, parse_go_duration};
use super::quantity::canonical_quantity;
use super::schema::{root_node, schema, walk_typed, Node, TypeDef, TypeShape};
use serde_json::{Number, Value};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Canonicalise, in place, every Quantity leaf of a built-in kind (strings or numbers) to
/// `canonical_quantity` (unparsable values are kept), and integral IntOrString numbers such as
/// 80.0 to 80 (IntOrString keeps its JSON type: "80" stays a string).
/// Objects of kinds without a schema are left untouched.
pub fn normalize_known_types(group: &str, kind: &str, obj: &mut Value) {
    if let Some(node) = root_node(group, kind) {
        walk_normalizing(node, obj, false);
    }
}

/// Same canonicalisation starting at a given type, for Argo CD's knownTypeFields on custom
/// resources. Type names as Argo CD writes them: "core/v1/PodSpec", "apps/v1/DeploymentSpec",
/// "core/v1/ResourceList", "core/Quantity", "meta/v1/Duration" (Go-style canonical durations:
/// "90s" -> "1m30s"). Returns false if the type name is unknown.
pub fn normalize_as_type(argo_type: &str, value: &mut Value) -> bool {
    match argo_type {
        "core/Quantity" | "core/v1/Quantity" | "resource/Quantity" => {
            canonicalize_quantity_in_place(value);
            return true;
        }
        "meta/v1/Duration" => {
            if let Some(d) = value.as_str().and_then(parse_go_duration) {
                *value = Value::String(format_go_duration(d));
            }
            return true;
        }
        "core/v1/ResourceList" => {
            if let Value::Object(m) = value {
                for v in m.values_mut() {
                    canonicalize_quantity_in_place(v);
                }
            }
            return true;
        }
        _ => {}
    }
    let Some(s) = schema() else { return false };
    let Some(full) = argo_type_name(argo_type) else {
        return false;
    };
    let Some(&idx) = s.by_name.get(full.as_str()) else {
        return false;
    };
    if let Some(node) = s.type_nodes.get(idx as usize) {
        // The typed round trip also drops the type's `omitempty` zero values.
        walk_normalizing(node, value, true);
    }
    true
}

/// "core/v1/PodSpec" -> "io.k8s.api.core.v1.PodSpec" (and meta / apiextensions equivalents).
fn argo_type_name(argo_type: &str) -> Option<String> {
    let mut parts = argo_type.split('/');
    let (group, version, kind) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || group.is_empty() || version.is_empty() || kind.is_empty() {
        return None;
    }
    let prefix = match group {
        "meta" => "io.k8s.apimachinery.pkg.apis.meta".to_string(),
        "apiextensions" => "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions".to_string(),
        "apiregistration" => "io.k8s.kube-aggregator.pkg.apis.apiregistration".to_string(),
        g => format!("io.k8s.api.{g}"),
    };
    Some(format!("{prefix}.{version}.{kind}"))
}

/// Quantities and IntOrString values canonicalised along the schema from `node`.
/// One walk down `v` that canonicalises its quantities and int-or-strings
/// and, with `drop_zero`, drops every typed object's `omitempty` zero values
/// ([`drop_zero_along`]'s work): the two are independent (neither changes a
/// value the other reads), and each walk looks up every field in the schema.
fn walk_normalizing(node: &Node, v: &mut Value, drop_zero: bool) {
    let table = drop_zero.then(omitempty_table);
    walk_typed(node, v, 0, &mut |t, v| match t.shape {
        TypeShape::Quantity => {
            canonicalize_quantity_in_place(v);
            false
        }
        TypeShape::IntOrString => {
            normalize_int_or_string(v);
            false
        }
        TypeShape::Object => {
            if let Some(table) = table {
                drop_zero_fields(table, t, v);
            }
            true
        }
    });
}

/// What Argo CD's typed round trip does to a built-in kind's object, in
/// one walk: [`normalize_known_types`], then, with `drop_zero`,
/// [`drop_omitted_zero_values`].
pub fn normalize_typed(group: &str, kind: &str, obj: &mut Value, drop_zero: bool) {
    if let Some(node) = root_node(group, kind) {
        walk_normalizing(node, obj, drop_zero);
    }
}

fn canonicalize_quantity_in_place(v: &mut Value) {
    if let Some(s) = canonical_quantity(v) {
        *v = Value::String(s);
    }
}

fn normalize_int_or_string(v: &mut Value) {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    let float = match v {
        Value::Number(n) if n.is_f64() => n.as_f64(),
        _ => None,
    };
    if let Some(f) = float.filter(|f| f.fract() == 0.0 && (-EXACT..=EXACT).contains(f)) {
        *v = Value::Number(Number::from(f as i64));
    }
}

/// The generated omitempty table (see `scripts/gen_omitempty.py` for the format).
static OMITEMPTY_JSON: &str = include_str!("omitempty_data.json");

/// The Go zero value of an `omitempty` field, as JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Zero {
    String,
    Bool,
    Number,
    Map,
    Slice,
    /// `[]byte`: base64 in JSON, so `""` (or `[]`) is empty.
    Bytes,
}

impl Zero {
    fn parse(s: &str) -> Option<Zero> {
        Some(match s {
            "string" => Zero::String,
            "bool" => Zero::Bool,
            "number" => Zero::Number,
            "map" => Zero::Map,
            "slice" => Zero::Slice,
            "bytes" => Zero::Bytes,
            _ => return None,
        })
    }

    /// A value of another JSON type would fail Argo CD's typed decode, which
    /// then keeps the object as it is: only the zero itself goes.
    fn is_zero(self, v: &Value) -> bool {
        match (self, v) {
            (Zero::String | Zero::Bytes, Value::String(s)) => s.is_empty(),
            (Zero::Bool, Value::Bool(b)) => !b,
            (Zero::Number, Value::Number(n)) => n.as_f64() == Some(0.0),
            (Zero::Map, Value::Object(m)) => m.is_empty(),
            (Zero::Slice | Zero::Bytes, Value::Array(a)) => a.is_empty(),
            _ => false,
        }
    }
}

/// Schema type name -> its non-pointer `omitempty` fields and their zero.
type OmitTable = HashMap<String, Vec<(String, Zero)>>;

/// [`OmitTable`]'s entries by the schema's type index (`TypeDef::index`):
/// the walks look one up at every typed object, by index rather than by
/// hashing its name. Each type's fields are sorted by name.
type OmitByType = Vec<Vec<(String, Zero)>>;

fn omitempty_table() -> &'static OmitByType {
    static TABLE: OnceLock<OmitByType> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut by_name = parse_omitempty(OMITEMPTY_JSON).unwrap_or_default();
        schema()
            .map(|s| {
                s.types
                    .iter()
                    .map(|t| {
                        let mut fields = by_name.remove(t.name).unwrap_or_default();
                        crate::sorting::sort_by(&mut fields, |a, b| a.0.cmp(&b.0));
                        fields
                    })
                    .collect()
            })
            .unwrap_or_default()
    })
}

fn parse_omitempty(text: &str) -> Option<OmitTable> {
    let doc: Value = serde_json::from_str(text).ok()?;
    let mut table = OmitTable::new();
    for (name, kinds) in doc.get("types")?.as_object()? {
        let mut fields = Vec::new();
        for (kind, names) in kinds.as_object()? {
            let zero = Zero::parse(kind)?;
            for f in names.as_array()? {
                fields.push((f.as_str()?.to_string(), zero));
            }
        }
        table.insert(name.clone(), fields);
    }
    Some(table)
}

/// Drop, in place, the `omitempty` zero values of a built-in kind, as Argo CD's typed round trip
/// does: every object of a schema type loses its non-pointer `omitempty` fields (generated from
/// the Go types of k8s.io/api and k8s.io/apimachinery) that hold the Go zero value, so
/// `readOnly: false` or a subject's `apiGroup: ""` in Git equals its absence live. Pointer
/// fields keep their zero (`privileged: false` means something). Kinds without a schema are
/// left untouched.
pub fn drop_omitted_zero_values(group: &str, kind: &str, v: &mut Value) {
    if let Some(node) = root_node(group, kind) {
        drop_zero_along(node, v);
    }
}

fn drop_zero_along(node: &Node, v: &mut Value) {
    let table = omitempty_table();
    walk_typed(node, v, 0, &mut |t, v| {
        drop_zero_fields(table, t, v);
        true
    });
}

/// Drop the `omitempty` zero values of `v`, an object of type `t`.
fn drop_zero_fields(table: &OmitByType, t: &TypeDef, v: &mut Value) {
    let (Some(fields), Value::Object(m)) = (table.get(t.index as usize), v) else {
        return;
    };
    if fields.is_empty() {
        return;
    }
    // An object sets a few of its type's many `omitempty` fields: each of
    // its keys is looked up in the sorted table, and the map is rewritten
    // only when one holds its zero.
    let is_dropped = |name: &str, x: &Value| {
        fields
            .binary_search_by(|(field, _)| field.as_str().cmp(name))
            .is_ok_and(|i| fields[i].1.is_zero(x))
    };
    if m.iter().any(|(name, x)| is_dropped(name, x)) {
        m.retain(|name, x| !is_dropped(name, x));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn normalize_known_and_as_type() {
        let mut d = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "spec": {
                "replicas": 2,
                "strategy": {"rollingUpdate": {"maxSurge": 1.0, "maxUnavailable": "25%"}},
                "template": {"spec": {"containers": [{
                    "name": "a", "image": "x",
                    "resources": {"limits": {"cpu": 0.5, "memory": "1024Mi"}, "requests": {"cpu": "bogus"}},
                    "ports": [{"containerPort": 80.0}],
                    "livenessProbe": {"httpGet": {"port": 8080.0, "path": "/"}}
                }]}}
            }
        });
        normalize_known_types("apps", "Deployment", &mut d);
        let c = &d["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(c["resources"]["limits"]["cpu"], json!("500m"));
        assert_eq!(c["resources"]["limits"]["memory"], json!("1Gi"));
        assert_eq!(c["resources"]["requests"]["cpu"], json!("bogus"));
        assert_eq!(c["livenessProbe"]["httpGet"]["port"], json!(8080));
        assert!(c["livenessProbe"]["httpGet"]["port"].is_i64());
        assert_eq!(d["spec"]["strategy"]["rollingUpdate"]["maxSurge"], json!(1));
        assert_eq!(
            d["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"],
            json!("25%")
        );
        // plain int fields are not IntOrString: left alone
        assert!(c["ports"][0]["containerPort"].is_f64());

        let mut svc = json!({"spec": {"ports": [{"port": 80, "targetPort": "80"}]}});
        normalize_known_types("", "Service", &mut svc);
        assert_eq!(svc["spec"]["ports"][0]["targetPort"], json!("80"));

        let mut cr = json!({"spec": {"cpu": 0.5}});
        let before = cr.clone();
        normalize_known_types("example.com", "Thing", &mut cr);
        assert_eq!(cr, before);

        let mut pod_spec =
            json!({"containers": [{"name": "a", "resources": {"requests": {"memory": "2048Mi"}}}]});
        assert!(normalize_as_type("core/v1/PodSpec", &mut pod_spec));
        assert_eq!(
            pod_spec["containers"][0]["resources"]["requests"]["memory"],
            json!("2Gi")
        );
        let mut q = json!("0.1");
        assert!(normalize_as_type("core/Quantity", &mut q));
        assert_eq!(q, json!("100m"));
        let mut rl = json!({"cpu": "1000m"});
        assert!(normalize_as_type("core/v1/ResourceList", &mut rl));
        assert_eq!(rl, json!({"cpu": "1"}));
        let mut rr = json!({"limits": {"cpu": "1000m"}});
        assert!(normalize_as_type("core/v1/ResourceRequirements", &mut rr));
        assert_eq!(rr, json!({"limits": {"cpu": "1"}}));
        let mut x = json!({"a": 1});
        assert!(normalize_as_type("apps/v1/DeploymentSpec", &mut x));
        assert!(normalize_as_type("meta/v1/ObjectMeta", &mut x));
        assert!(!normalize_as_type("core/v1/NoSuchType", &mut x));
        assert!(!normalize_as_type("nonsense", &mut x));
        assert!(!normalize_as_type("", &mut x));
        assert_eq!(x, json!({"a": 1}));
    }

    #[test]
    fn a_binding_subjects_empty_api_group_is_not_stored() {
        let mut b = json!({"subjects": [
            {"kind": "ServiceAccount", "name": "web", "namespace": "shop", "apiGroup": ""},
            {"kind": "Group", "name": "devs", "apiGroup": "rbac.authorization.k8s.io", "namespace": ""}
        ], "roleRef": {"apiGroup": "", "kind": "Role", "name": "reader"}});
        drop_omitted_zero_values("rbac.authorization.k8s.io", "RoleBinding", &mut b);
        assert_eq!(
            b["subjects"],
            json!([
                {"kind": "ServiceAccount", "name": "web", "namespace": "shop"},
                {"kind": "Group", "name": "devs", "apiGroup": "rbac.authorization.k8s.io"}
            ])
        );
        // RoleRef's apiGroup is not omitempty: kept.
        assert_eq!(b["roleRef"]["apiGroup"], json!(""));
    }

    #[test]
    fn the_generated_table_parses_and_covers_the_pod_api() {
        let t = parse_omitempty(OMITEMPTY_JSON).unwrap();
        assert!(t.len() > 300, "{}", t.len());
        let container = &t["io.k8s.api.core.v1.Container"];
        // The walks' table holds the same entry at the type's index.
        let index = schema().unwrap().by_name["io.k8s.api.core.v1.Container"];
        let mut sorted = container.clone();
        crate::sorting::sort_by(&mut sorted, |a, b| a.0.cmp(&b.0));
        assert_eq!(omitempty_table()[index as usize], sorted);
        assert!(container.contains(&("workingDir".to_string(), Zero::String)));
        assert!(container.contains(&("tty".to_string(), Zero::Bool)));
        // `name` has no omitempty; `securityContext` is a pointer.
        assert!(!container
            .iter()
            .any(|(f, _)| f == "name" || f == "securityContext"));
        assert!(t["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]
            .contains(&("labels".to_string(), Zero::Map)));
        assert!(parse_omitempty("{\"types\": {\"T\": {\"complex\": [\"x\"]}}}").is_none());
    }

    #[test]
    fn zero_values_drop_per_type_and_pointers_keep_theirs() {
        let mut d = json!({"spec": {"template": {"spec": {
            "hostNetwork": false, "hostPID": true, "nodeSelector": {},
            "containers": [{
                "name": "", "image": "x", "workingDir": "", "tty": false, "args": [],
                "securityContext": {"privileged": false, "allowPrivilegeEscalation": false},
                "env": [{"name": "A", "value": ""}],
                "ports": [{"containerPort": 80, "hostPort": 0, "name": ""}]
            }],
            "automountServiceAccountToken": false
        }}}});
        drop_omitted_zero_values("apps", "Deployment", &mut d);
        assert_eq!(
            d["spec"]["template"]["spec"],
            json!({
                "hostPID": true,
                "containers": [{
                    "name": "", "image": "x",
                    "securityContext": {"privileged": false, "allowPrivilegeEscalation": false},
                    "env": [{"name": "A"}],
                    "ports": [{"containerPort": 80}]
                }],
                "automountServiceAccountToken": false
            })
        );

        let mut svc = json!({"spec": {"type": "", "ports": [{"name": "", "port": 80, "nodePort": 0}],
            "publishNotReadyAddresses": false}});
        drop_omitted_zero_values("", "Service", &mut svc);
        assert_eq!(svc, json!({"spec": {"ports": [{"port": 80}]}}));

        let mut ing = json!({"spec": {"rules": [{"host": "", "http": {"paths": []}}]}});
        drop_omitted_zero_values("networking.k8s.io", "Ingress", &mut ing);
        // HTTPIngressRuleValue's `paths` has no omitempty.
        assert_eq!(ing, json!({"spec": {"rules": [{"http": {"paths": []}}]}}));

        // A value of another JSON type is not the zero: kept.
        let mut odd = json!({"spec": {"template": {"spec": {"hostNetwork": "", "hostIPC": 0}}}});
        let before = odd.clone();
        drop_omitted_zero_values("apps", "Deployment", &mut odd);
        assert_eq!(odd, before);

        let mut cr = json!({"spec": {"hostNetwork": false}});
        drop_omitted_zero_values("example.com", "Thing", &mut cr);
        assert_eq!(cr, json!({"spec": {"hostNetwork": false}}));
    }

    #[test]
    fn one_walk_does_what_the_two_do_one_after_the_other() {
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {
            "replicas": 0, "paused": false,
            "strategy": {"rollingUpdate": {"maxSurge": 1.0, "maxUnavailable": "25%"}},
            "template": {"spec": {"hostNetwork": false, "containers": [{
                "name": "a", "image": "x", "workingDir": "", "tty": false,
                "resources": {"limits": {"cpu": 0.5, "memory": "1024Mi"}, "requests": {}},
                "ports": [{"containerPort": 80.0, "hostPort": 0, "name": ""}],
                "livenessProbe": {"httpGet": {"port": 8080.0, "path": ""}}
            }]}}
        }});
        for drop_zero in [false, true] {
            let mut two = d.clone();
            normalize_known_types("apps", "Deployment", &mut two);
            if drop_zero {
                drop_omitted_zero_values("apps", "Deployment", &mut two);
            }
            let mut one = d.clone();
            normalize_typed("apps", "Deployment", &mut one, drop_zero);
            assert_eq!(one, two, "drop_zero: {drop_zero}");
            assert_ne!(one, d);
        }
    }

    #[test]
    fn each_type_lists_a_field_once_and_in_order() {
        // `drop_zero_fields` finds a key by binary search.
        let table = omitempty_table();
        assert!(table.iter().filter(|fields| !fields.is_empty()).count() > 100);
        for fields in table {
            assert!(fields.windows(2).all(|w| w[0].0 < w[1].0), "{fields:?}");
        }
    }

    #[test]
    fn only_the_zero_of_an_omitempty_field_goes_among_many_keys() {
        // A container with many of its fields set: the zeros of `omitempty`
        // fields go; non-zero values and pointer fields' zeros
        // (`privileged`, `procMount`) stay.
        let mut d = json!({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{
            "name": "a", "image": "x", "workingDir": "", "tty": false, "stdin": true,
            "terminationMessagePath": "", "imagePullPolicy": "Always",
            "securityContext": {"privileged": false, "procMount": ""},
            "args": [], "command": ["run"], "env": []
        }]}});
        drop_omitted_zero_values("", "Pod", &mut d);
        assert_eq!(
            d["spec"]["containers"][0],
            json!({"name": "a", "image": "x", "stdin": true, "imagePullPolicy": "Always",
                   "securityContext": {"privileged": false, "procMount": ""}, "command": ["run"]})
        );
    }
}
