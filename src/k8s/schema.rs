//! The schema table of built-in kinds and a cursor that walks it.
//!
//! Facts from the Kubernetes OpenAPI definitions (PyPI `kubernetes-validate==1.37.0`), turned
//! into `schema_data.json` by `scripts/gen_k8s_schema.py`; the data is parsed once, lazily.

use serde_json::Value;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The generated schema table (see `scripts/gen_k8s_schema.py` for the format).
static SCHEMA_JSON: &str = include_str!("schema_data.json");

pub(super) const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";
pub(super) const INT_OR_STRING: &str = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";

/// How a list field merges under strategic merge patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListStrategy {
    /// Replaced whole (no merge key, or x-kubernetes-list-type atomic).
    Atomic,
    /// Items matched by these merge key(s) (patch merge key first; list-map-keys when they are the key set).
    MergeByKey(&'static [&'static str]),
    /// A list of scalars merged as a set (patch strategy merge without key, or list-type set).
    Set,
}

#[derive(Debug)]
pub(super) enum Node {
    /// A value the schema table does not describe further.
    Scalar,
    /// An object (or Quantity / IntOrString leaf) of `Schema::types[i]`.
    Type(u32),
    List {
        strategy: ListStrategy,
        item: Box<Node>,
    },
    Map(Box<Node>),
}

/// What a named type is to the walks: an object of fields, or one of the
/// two leaf types the typed round trip writes anew. Known once, when the
/// schema is read, so a walk never compares type names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TypeShape {
    Object,
    Quantity,
    IntOrString,
}

#[derive(Debug)]
pub(super) struct TypeDef {
    pub(super) name: &'static str,
    pub(super) shape: TypeShape,
    /// Its place in [`Schema::types`], for tables kept per type.
    pub(super) index: u32,
    /// Sorted by field name.
    fields: Vec<(&'static str, Node)>,
}

impl TypeDef {
    pub(super) fn field(&self, name: &str) -> Option<&Node> {
        // Field names mostly differ in their first byte: compared there
        // first, a step of the search seldom calls `memcmp`. The order is
        // the names' own (byte order), which the fields are sorted in.
        let first = name.as_bytes().first();
        self.fields
            .binary_search_by(|(n, _)| match n.as_bytes().first().cmp(&first) {
                std::cmp::Ordering::Equal => (*n).cmp(name),
                unequal => unequal,
            })
            .ok()
            .map(|i| &self.fields[i].1)
    }
}

#[derive(Debug)]
pub(super) struct Schema {
    #[allow(dead_code)]
    source: &'static str,
    /// kind -> [(group, type index)]
    kinds: HashMap<&'static str, Vec<(&'static str, u32)>>,
    pub(super) types: Vec<TypeDef>,
    /// `Node::Type(i)` for every type, so a cursor can point at a type root.
    pub(super) type_nodes: Vec<Node>,
    pub(super) by_name: HashMap<&'static str, u32>,
}

pub(super) fn schema() -> Option<&'static Schema> {
    static SCHEMA: OnceLock<Option<Schema>> = OnceLock::new();
    SCHEMA.get_or_init(|| parse_schema(SCHEMA_JSON)).as_ref()
}

/// Strings of the schema live as long as the program: they are leaked once, interned.
struct Interner(HashMap<String, &'static str>);

impl Interner {
    fn get(&mut self, s: &str) -> &'static str {
        if let Some(v) = self.0.get(s) {
            return v;
        }
        let leaked: &'static str = Box::leak(s.to_owned().into_boxed_str());
        self.0.insert(s.to_owned(), leaked);
        leaked
    }
}

fn parse_schema(text: &str) -> Option<Schema> {
    let doc: Value = serde_json::from_str(text).ok()?;
    let mut strs = Interner(HashMap::new());
    let source = strs.get(doc.get("source")?.as_str()?);
    let raw_types = doc.get("types")?.as_array()?;
    let ntypes = raw_types.len();
    let mut types = Vec::with_capacity(ntypes);
    let mut by_name = HashMap::with_capacity(ntypes);
    for (i, t) in raw_types.iter().enumerate() {
        let t = t.as_array()?;
        let name = strs.get(t.first()?.as_str()?);
        let mut fields = Vec::new();
        if let Some(obj) = t.get(1).and_then(Value::as_object) {
            for (fname, fnode) in obj {
                fields.push((strs.get(fname), parse_node(fnode, ntypes, &mut strs)?));
            }
        }
        crate::sorting::sort_by(&mut fields, |a, b| a.0.cmp(b.0));
        by_name.insert(name, i as u32);
        let shape = match name {
            QUANTITY => TypeShape::Quantity,
            INT_OR_STRING => TypeShape::IntOrString,
            _ => TypeShape::Object,
        };
        types.push(TypeDef {
            name,
            shape,
            index: i as u32,
            fields,
        });
    }
    let mut kinds: HashMap<&'static str, Vec<(&'static str, u32)>> = HashMap::new();
    for k in doc.get("kinds")?.as_array()? {
        let k = k.as_array()?;
        let group = strs.get(k.first()?.as_str()?);
        let kind = strs.get(k.get(1)?.as_str()?);
        let idx = k.get(2)?.as_u64()?;
        if idx as usize >= ntypes {
            return None;
        }
        kinds.entry(kind).or_default().push((group, idx as u32));
    }
    let type_nodes = (0..ntypes as u32).map(Node::Type).collect();
    Some(Schema {
        source,
        kinds,
        types,
        type_nodes,
        by_name,
    })
}

fn parse_node(v: &Value, ntypes: usize, strs: &mut Interner) -> Option<Node> {
    match v {
        Value::Number(n) => {
            let i = n.as_u64()?;
            if i as usize >= ntypes {
                return None;
            }
            Some(Node::Type(i as u32))
        }
        Value::String(s) if s == "s" => Some(Node::Scalar),
        Value::Array(a) => {
            let tag = a.first()?.as_str()?;
            let item = Box::new(parse_node(a.get(1)?, ntypes, strs)?);
            match tag {
                "a" => Some(Node::List {
                    strategy: ListStrategy::Atomic,
                    item,
                }),
                "s" => Some(Node::List {
                    strategy: ListStrategy::Set,
                    item,
                }),
                "k" => {
                    let mut keys = Vec::new();
                    for k in &a[2..] {
                        keys.push(strs.get(k.as_str()?));
                    }
                    let strategy = if keys.is_empty() {
                        ListStrategy::Atomic
                    } else {
                        ListStrategy::MergeByKey(Box::leak(keys.into_boxed_slice()))
                    };
                    Some(Node::List { strategy, item })
                }
                "m" => Some(Node::Map(item)),
                _ => None,
            }
        }
        _ => None,
    }
}

pub(super) fn type_def(i: u32) -> Option<&'static TypeDef> {
    schema()?.types.get(i as usize)
}

/// Walk `v` down the schema from `node`: `at_type` sees each value of a named type before
/// its fields, and says whether to go on into them. Lists and maps pass on to their items;
/// nothing deeper than `MAX_DEPTH` is visited.
pub(super) fn walk_typed(
    node: &Node,
    v: &mut Value,
    depth: usize,
    at_type: &mut dyn FnMut(&TypeDef, &mut Value) -> bool,
) {
    if depth > super::MAX_DEPTH {
        return;
    }
    match node {
        Node::Scalar => {}
        Node::Type(i) => {
            let Some(t) = type_def(*i) else { return };
            if !at_type(t, v) {
                return;
            }
            if let Value::Object(m) = v {
                for (k, child) in m.iter_mut() {
                    if let Some(f) = t.field(k) {
                        walk_typed(f, child, depth + 1, at_type);
                    }
                }
            }
        }
        Node::List { item, .. } => {
            if let Value::Array(a) = v {
                for x in a {
                    walk_typed(item, x, depth + 1, at_type);
                }
            }
        }
        Node::Map(item) => {
            if let Value::Object(m) = v {
                for x in m.values_mut() {
                    walk_typed(item, x, depth + 1, at_type);
                }
            }
        }
    }
}

/// The group serving `kind` today, for a group that may carry a version (`apps/v1`) or be
/// spelt `core` (versions never matter).
fn canonical_group<'a>(group: &'a str, kind: &str) -> &'a str {
    match group.split('/').next().unwrap_or(group) {
        "core" => "",
        group => super::current_group(group, kind),
    }
}

pub(super) fn root_node(group: &str, kind: &str) -> Option<&'static Node> {
    let s = schema()?;
    let group = canonical_group(group, kind);
    let (_, idx) = s.kinds.get(kind)?.iter().find(|(g, _)| *g == group)?;
    s.type_nodes.get(*idx as usize)
}

/// A position inside a built-in kind's schema. Cheap to copy.
#[derive(Debug, Clone, Copy)]
pub struct Cursor {
    node: &'static Node,
}

/// The schema root of a built-in kind; None for custom resources / unknown kinds.
/// `group` is the API group without version ("" for core), e.g. ("apps","Deployment").
/// Also accepts legacy groups that map to the same kinds: "extensions" Deployment/DaemonSet/
/// ReplicaSet/Ingress/NetworkPolicy ("apps" v1beta1/v1beta2 are the same group anyway).
pub fn root(group: &str, kind: &str) -> Option<Cursor> {
    root_node(group, kind).map(|node| Cursor { node })
}

fn non_scalar(node: &'static Node) -> Option<Cursor> {
    match node {
        Node::Scalar => None,
        _ => Some(Cursor { node }),
    }
}

impl Cursor {
    /// Descend into a named field of an object type (or the value type of a map type when the field is a map key).
    pub fn field(self, name: &str) -> Option<Cursor> {
        match self.node {
            Node::Type(i) => non_scalar(type_def(*i)?.field(name)?),
            Node::Map(v) => non_scalar(v),
            _ => None,
        }
    }

    /// Descend into the items of a list (or the values of a map / additionalProperties).
    pub fn item(self) -> Option<Cursor> {
        match self.node {
            Node::List { item, .. } => non_scalar(item),
            Node::Map(v) => non_scalar(v),
            _ => None,
        }
    }

    /// The strategy of the list at this position (Atomic if this is not a known list).
    pub fn list_strategy(self) -> ListStrategy {
        match self.node {
            Node::List { strategy, .. } => *strategy,
            _ => ListStrategy::Atomic,
        }
    }

    /// Whether this position holds a known list.
    pub fn is_list(self) -> bool {
        matches!(self.node, Node::List { .. })
    }

    /// additionalProperties-style map (labels, resources.limits, ...).
    pub fn is_map(self) -> bool {
        matches!(self.node, Node::Map(_))
    }

    /// io.k8s.apimachinery.pkg.api.resource.Quantity
    pub fn is_quantity(self) -> bool {
        self.shape() == Some(TypeShape::Quantity)
    }

    /// io.k8s.apimachinery.pkg.util.intstr.IntOrString
    pub fn is_int_or_string(self) -> bool {
        self.shape() == Some(TypeShape::IntOrString)
    }

    fn shape(self) -> Option<TypeShape> {
        match self.node {
            Node::Type(i) => type_def(*i).map(|t| t.shape),
            _ => None,
        }
    }

    /// The schema type at this position, e.g. "io.k8s.api.core.v1.Container";
    /// "" for lists, maps and plain scalars.
    pub fn type_name(self) -> &'static str {
        match self.node {
            Node::Type(i) => type_def(*i).map(|t| t.name).unwrap_or(""),
            _ => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(group: &str, kind: &str, p: &[&str]) -> Cursor {
        let mut c = root(group, kind).unwrap_or_else(|| panic!("no root for {group}/{kind}"));
        for seg in p {
            c = if *seg == "[]" {
                c.item()
                    .unwrap_or_else(|| panic!("no item at {seg} in {p:?}"))
            } else {
                c.field(seg)
                    .unwrap_or_else(|| panic!("no field {seg} in {p:?}"))
            };
        }
        c
    }

    #[test]
    fn schema_parses_and_names_its_source() {
        let s = schema().expect("embedded schema parses");
        assert!(s.source.contains("kubernetes-validate==1.37.0"));
        assert!(s.types.len() > 400);
        assert!(s.kinds.len() > 60);
    }

    #[test]
    fn roots_of_builtin_kinds() {
        assert_eq!(
            root("apps", "Deployment").unwrap().type_name(),
            "io.k8s.api.apps.v1.Deployment"
        );
        assert_eq!(
            root("extensions", "Deployment").unwrap().type_name(),
            "io.k8s.api.apps.v1.Deployment"
        );
        assert_eq!(
            root("extensions", "Ingress").unwrap().type_name(),
            "io.k8s.api.networking.v1.Ingress"
        );
        assert_eq!(
            root("", "Service").unwrap().type_name(),
            "io.k8s.api.core.v1.Service"
        );
        assert_eq!(
            root("autoscaling", "HorizontalPodAutoscaler")
                .unwrap()
                .type_name(),
            "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"
        );
        assert_eq!(
            root("apiextensions.k8s.io", "CustomResourceDefinition")
                .unwrap()
                .type_name(),
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"
        );
        assert!(root("argoproj.io", "Rollout").is_none());
        assert!(root("apps", "Service").is_none());
        assert!(root("", "DeploymentList").is_none());
        assert!(root("", "").is_none());
    }

    #[test]
    fn merge_keys() {
        let containers = path(
            "apps",
            "Deployment",
            &["spec", "template", "spec", "containers"],
        );
        assert!(containers.is_list());
        assert_eq!(
            containers.list_strategy(),
            ListStrategy::MergeByKey(&["name"])
        );
        let c = containers.item().unwrap();
        assert_eq!(c.type_name(), "io.k8s.api.core.v1.Container");
        match c.field("ports").unwrap().list_strategy() {
            ListStrategy::MergeByKey(k) => assert_eq!(k[0], "containerPort"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            c.field("env").unwrap().list_strategy(),
            ListStrategy::MergeByKey(&["name"])
        );
        assert_eq!(
            c.field("args").unwrap().list_strategy(),
            ListStrategy::Atomic
        );
        let pod = path("apps", "Deployment", &["spec", "template", "spec"]);
        assert_eq!(
            pod.field("volumes").unwrap().list_strategy(),
            ListStrategy::MergeByKey(&["name"])
        );
        assert_eq!(
            pod.field("tolerations").unwrap().list_strategy(),
            ListStrategy::Atomic
        );
        assert_eq!(
            pod.field("imagePullSecrets").unwrap().list_strategy(),
            ListStrategy::MergeByKey(&["name"])
        );
        match path("", "Service", &["spec", "ports"]).list_strategy() {
            ListStrategy::MergeByKey(k) => assert_eq!(k[0], "port"),
            other => panic!("{other:?}"),
        }
        for kind in [
            "MutatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
        ] {
            let w = path("admissionregistration.k8s.io", kind, &["webhooks"]);
            assert_eq!(w.list_strategy(), ListStrategy::MergeByKey(&["name"]));
        }
        assert_eq!(
            path("rbac.authorization.k8s.io", "ClusterRole", &["rules"]).list_strategy(),
            ListStrategy::Atomic
        );
        assert_eq!(
            path("", "Pod", &["metadata", "finalizers"]).list_strategy(),
            ListStrategy::Set
        );
        // not a list
        assert_eq!(
            path("", "Pod", &["spec"]).list_strategy(),
            ListStrategy::Atomic
        );
        assert!(!path("", "Pod", &["spec"]).is_list());
        // every pod template
        for (g, k, p) in [
            ("apps", "StatefulSet", &["spec", "template", "spec"][..]),
            ("apps", "DaemonSet", &["spec", "template", "spec"][..]),
            ("apps", "ReplicaSet", &["spec", "template", "spec"][..]),
            (
                "",
                "ReplicationController",
                &["spec", "template", "spec"][..],
            ),
            ("batch", "Job", &["spec", "template", "spec"][..]),
            (
                "batch",
                "CronJob",
                &["spec", "jobTemplate", "spec", "template", "spec"][..],
            ),
            ("", "PodTemplate", &["template", "spec"][..]),
        ] {
            assert_eq!(
                path(g, k, p).type_name(),
                "io.k8s.api.core.v1.PodSpec",
                "{k}"
            );
        }
    }

    #[test]
    fn maps_quantities_int_or_string() {
        let res = path(
            "apps",
            "Deployment",
            &["spec", "template", "spec", "containers", "[]", "resources"],
        );
        let limits = res.field("limits").unwrap();
        assert!(limits.is_map());
        assert!(limits.item().unwrap().is_quantity());
        assert!(limits.field("cpu").unwrap().is_quantity());
        assert!(path("", "Pod", &["metadata", "labels"]).is_map());
        assert!(path("", "Pod", &["metadata", "labels"]).item().is_none());
        assert!(path("", "Service", &["spec", "ports", "[]", "targetPort"]).is_int_or_string());
        assert!(path(
            "apps",
            "Deployment",
            &["spec", "strategy", "rollingUpdate", "maxSurge"]
        )
        .is_int_or_string());
        assert!(path(
            "",
            "PersistentVolumeClaim",
            &["spec", "resources", "requests", "storage"]
        )
        .is_quantity());
        let c = path("", "Pod", &["spec"]);
        assert!(c.field("nodeName").is_none());
        assert!(c.field("nope").is_none());
        assert!(!c.is_map());
        assert!(!c.is_quantity());
        assert_eq!(path("", "Pod", &["spec", "containers"]).type_name(), "");
    }
}
