//! Value canonicalisation of known types, the way Argo CD's `remarshal` and `knownTypeFields`
//! do it: quantities, integral IntOrString numbers, Go durations.

use super::duration::{format_go_duration, parse_go_duration};
use super::quantity::canonical_quantity;
use super::schema::{root_node, schema, walk_typed, Node, INT_OR_STRING, QUANTITY};
use serde_json::{Map, Number, Value};

/// Canonicalise, in place, every Quantity leaf of a built-in kind (strings or numbers) to
/// `canonical_quantity` (unparsable values are kept), and integral IntOrString numbers such as
/// 80.0 to 80 (IntOrString keeps its JSON type: "80" stays a string).
/// Objects of kinds without a schema are left untouched.
pub fn normalize_known_types(group: &str, kind: &str, obj: &mut Value) {
    if let Some(node) = root_node(group, kind) {
        normalize_node(node, obj);
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
        normalize_node(node, value);
    }
    // The typed round trip also drops zero values the API never stores.
    drop_omitted_zero_values(value);
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
fn normalize_node(node: &Node, v: &mut Value) {
    walk_typed(node, v, 0, &mut |t, v| {
        if t.name == QUANTITY {
            canonicalize_quantity_in_place(v);
            false
        } else if t.name == INT_OR_STRING {
            normalize_int_or_string(v);
            false
        } else {
            true
        }
    });
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

/// Plain (non-pointer) `omitempty` fields of the pod API that the API server
/// never stores at their zero value; Argo CD's typed round trip drops them
/// too, so `readOnly: false` in Git equals its absence live. Pointer fields
/// (`privileged`, `allowPrivilegeEscalation`, `automountServiceAccountToken`)
/// keep `false`: there it means something.
const ZERO_BOOL_FIELDS: &[&str] = &[
    "readOnly",
    "stdin",
    "stdinOnce",
    "tty",
    "hostNetwork",
    "hostPID",
    "hostIPC",
];

/// Drop, in place, the `omitempty` zero values the API server never stores (see `ZERO_BOOL_FIELDS`; an
/// `env` entry's empty `value`; a binding subject's empty `apiGroup` or `namespace`; an empty
/// `metadata.labels` or `metadata.annotations`), as Argo CD's typed round trip does.
pub fn drop_omitted_zero_values(v: &mut Value) {
    drop_zero(v, 0);
}

fn drop_zero(v: &mut Value, depth: usize) {
    if depth > crate::limits::MAX_WALK_DEPTH {
        return;
    }
    match v {
        Value::Object(m) => {
            m.retain(|k, x| !(x == &Value::Bool(false) && ZERO_BOOL_FIELDS.contains(&k.as_str())));
            // ObjectMeta's `labels` and `annotations` are `omitempty` maps:
            // an empty one does not survive the typed round trip.
            if let Some(Value::Object(meta)) = m.get_mut("metadata") {
                meta.retain(|k, x| {
                    !(matches!(k.as_str(), "labels" | "annotations")
                        && x.as_object().is_some_and(Map::is_empty))
                });
            }
            // rbac/v1 Subject's `apiGroup` and `namespace` are plain
            // `omitempty` strings (k8s.io/api rbac/v1 types.go): `""` in
            // Git (a ServiceAccount subject's apiGroup) is not stored.
            if let Some(Value::Array(subjects)) = m.get_mut("subjects") {
                for s in subjects.iter_mut() {
                    if let Value::Object(sm) = s {
                        sm.retain(|k, x| {
                            !(matches!(k.as_str(), "apiGroup" | "namespace")
                                && x == &Value::String(String::new()))
                        });
                    }
                }
            }
            if let Some(Value::Array(env)) = m.get_mut("env") {
                for e in env.iter_mut() {
                    if let Value::Object(em) = e {
                        if em.get("value") == Some(&Value::String(String::new())) {
                            em.remove("value");
                        }
                    }
                }
            }
            for x in m.values_mut() {
                drop_zero(x, depth + 1);
            }
        }
        Value::Array(a) => {
            for x in a {
                drop_zero(x, depth + 1);
            }
        }
        _ => {}
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
        drop_omitted_zero_values(&mut b);
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
}
