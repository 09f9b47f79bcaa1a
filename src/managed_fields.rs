//! Who last wrote a field, read from the live object's `metadata.managedFields`
//! (FieldsV1: `f:<field>`, `k:<merge key JSON>`, `v:<value>`, `i:<index>`).

#![warn(missing_docs)]

use crate::path::Pointer;
use crate::path::Seg;
use serde_json::Value;

/// One `managedFields` entry's record of the field it wrote: who, how and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldWriter {
    /// The field manager (`kubectl-edit`, `argocd-controller`, `flagger`).
    pub manager: String,
    /// `Update` or `Apply`, when the entry says.
    pub operation: Option<String>,
    /// The subresource written through (`scale`, `status`), when any.
    pub subresource: Option<String>,
    /// The entry's time, as written.
    pub time: Option<String>,
    /// Whether the entry holds the path itself (or a subtree owned as a
    /// leaf above it), not only an ancestor of it.
    pub exact: bool,
    /// The fields of `spec` the entry holds, by name: a writer that holds
    /// only `replicas` there scales the object and does nothing else to it.
    pub spec_fields: Vec<String>,
    /// Whether everything the entry holds of `spec` is the `resources` of
    /// pod-template containers: a writer that sizes them and does nothing
    /// else to the workload.
    pub resources_only: bool,
}

/// The manager whose FieldsV1 set holds this path (or the closest ancestor
/// owned as a leaf). When several do, the deepest match wins; ties go to the
/// most recent entry.
pub fn owner_of(live: &Value, path: &[Seg]) -> Option<String> {
    writer_of(live, path).map(|w| w.manager)
}

/// The entry that last wrote this path, as [`owner_of`] picks it, with its
/// operation, subresource and time.
pub fn writer_of(live: &Value, path: &[Seg]) -> Option<FieldWriter> {
    let entries = live.at("/metadata/managedFields")?.as_array()?;
    let mut best: Option<(usize, &Value)> = None;
    for entry in entries {
        if entry.get("manager").and_then(Value::as_str).is_none() {
            continue;
        }
        let Some(fields) = entry.get("fieldsV1") else {
            continue;
        };
        let depth = match_depth(fields, path);
        if depth == 0 {
            continue;
        }
        if best.as_ref().is_none_or(|(d, _)| depth >= *d) {
            best = Some((depth, entry));
        }
    }
    let (depth, entry) = best?;
    // The keys and items of a map or list are owned one by one: a writer of
    // the whole is one that owns it atomically (an empty set at the path).
    // A list item's writer is the entry that made it (its set holds `.`).
    let value = live.at(&crate::path::pointer(path));
    let non_empty = |v: &Value| match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    };
    if value.is_some_and(non_empty) && depth == path.len() {
        let set = entry
            .get("fieldsV1")
            .and_then(|f| set_at(f, path))
            .and_then(Value::as_object);
        let item = matches!(path.last(), Some(Seg::Item { .. }));
        let owns = set.is_some_and(|m| m.keys().all(|k| k == ".") || (item && m.contains_key(".")));
        if !owns {
            return None;
        }
    }
    FieldWriter::of(entry, depth == path.len())
}

impl FieldWriter {
    /// The writer one `managedFields` entry records; `exact` when it owns
    /// the field itself rather than a parent of it.
    pub(crate) fn of(entry: &Value, exact: bool) -> Option<FieldWriter> {
        let text = |k: &str| entry.get(k).and_then(Value::as_str).map(str::to_string);
        let spec_fields = entry
            .at("/fieldsV1/f:spec")
            .and_then(Value::as_object)
            .map(|m| {
                m.keys()
                    .filter_map(|k| k.strip_prefix("f:"))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        Some(FieldWriter {
            manager: text("manager")?,
            operation: text("operation"),
            subresource: text("subresource"),
            time: text("time"),
            exact,
            spec_fields,
            resources_only: entry
                .at("/fieldsV1/f:spec")
                .is_some_and(holds_container_resources_only),
        })
    }
}

/// Whether a `f:spec` field set holds container resources and nothing
/// else: `f:template` › `f:spec` › `f:containers` or `f:initContainers` ›
/// items › `f:resources`, each level holding only that (and its `.`).
fn holds_container_resources_only(spec: &Value) -> bool {
    let only = |set: &Value, allowed: &dyn Fn(&str) -> bool| {
        set.as_object()
            .is_some_and(|m| m.keys().any(|k| k != ".") && m.keys().all(|k| k == "." || allowed(k)))
    };
    let step = |set: &Value, key: &str| set.get(key).cloned().unwrap_or(Value::Null);
    if !only(spec, &|k| k == "f:template") {
        return false;
    }
    let template = step(spec, "f:template");
    if !only(&template, &|k| k == "f:spec") {
        return false;
    }
    let pod = step(&template, "f:spec");
    if !only(&pod, &|k| k == "f:containers" || k == "f:initContainers") {
        return false;
    }
    pod.as_object().into_iter().flatten().all(|(k, list)| {
        k == "."
            || (only(list, &|k| k.starts_with("k:"))
                && list.as_object().is_some_and(|items| {
                    items.iter().all(|(item_key, item)| {
                        item_key == "." || only(item, &|k| k == "f:resources")
                    })
                }))
    })
}

/// Every entry whose field set holds the list item with this merge key
/// (`k:{"port":83,...}`) in the list at `list_path`.
pub fn writers_of_item(
    live: &Value,
    list_path: &[Seg],
    key_field: &str,
    key_value: &Value,
) -> Vec<FieldWriter> {
    let Some(entries) = live.at("/metadata/managedFields").and_then(Value::as_array) else {
        return Vec::new();
    };
    let item = Seg::Item {
        index: None,
        key: Some((key_field.to_string(), key_value.clone())),
    };
    let mut path = list_path.to_vec();
    path.push(item);
    entries
        .iter()
        .filter(|e| {
            e.get("fieldsV1")
                .is_some_and(|f| match_depth(f, &path) == path.len())
        })
        .filter_map(|e| FieldWriter::of(e, true))
        .collect()
}

/// The field set at `path` (its node in FieldsV1), when it reaches there.
fn set_at<'v>(fields: &'v Value, path: &[Seg]) -> Option<&'v Value> {
    path.iter()
        .try_fold(fields, |node, seg| child_set(node.as_object()?, seg))
}

/// The field set of one path segment below a set: `f:<field>`, the item
/// `k:<merge key JSON>` (or, failing that, `i:<index>`), or `i:<index>`.
fn child_set<'v>(map: &'v serde_json::Map<String, Value>, seg: &Seg) -> Option<&'v Value> {
    match seg {
        Seg::Key(k) => map.get(&format!("f:{k}")),
        Seg::Item {
            key: Some((name, value)),
            index,
        } => map
            .iter()
            .find(|(k, _)| {
                k.strip_prefix("k:")
                    .and_then(|j| serde_json::from_str::<Value>(j).ok())
                    .is_some_and(|kv| kv.get(name) == Some(value))
            })
            .map(|(_, v)| v)
            .or_else(|| index.and_then(|i| map.get(&format!("i:{i}")))),
        Seg::Item {
            index: Some(i),
            key: None,
        } => map.get(&format!("i:{i}")),
        Seg::Item {
            index: None,
            key: None,
        } => None,
    }
}

/// How many leading segments of `path` this field set covers (full length
/// when the exact field, or a subtree of it, is owned).
fn match_depth(fields: &Value, path: &[Seg]) -> usize {
    let mut node = fields;
    for (i, seg) in path.iter().enumerate() {
        let Some(map) = node.as_object() else {
            return i;
        };
        let next = child_set(map, seg);
        match next {
            Some(n) => node = n,
            None => {
                // An empty set is a field owned as a leaf: its subtree is owned too.
                return if i > 0 && map.is_empty() { i } else { 0 };
            }
        }
    }
    path.len()
}

/// The fields a manager owns, as an object skeleton (leaves are `true`, keyed
/// list items carry their key fields). Server-side apply removes what this
/// skeleton has and the new configuration lacks.
pub fn owned_skeleton(live: &Value, manager: &str) -> Option<Value> {
    skeleton_of(live, manager, |_| true)
}

/// The fields a manager owns through server-side apply (`operation:
/// Apply`): the only ones a later apply of that manager removes when its
/// configuration lacks them (fields it wrote with `Update`, as client-side
/// apply does, stay).
pub fn applied_skeleton(live: &Value, manager: &str) -> Option<Value> {
    skeleton_of(live, manager, |e| {
        e.get("operation").and_then(Value::as_str) == Some("Apply")
    })
}

/// Whether `manager` wrote this field, or a field under it, with `Update`
/// (as client-side apply does) rather than `Apply`.
pub fn updated_by(live: &Value, manager: &str, path: &[Seg]) -> bool {
    let Some(mut at) = skeleton_of(live, manager, |e| {
        e.get("operation").and_then(Value::as_str) == Some("Update")
    }) else {
        return false;
    };
    for seg in path {
        match seg {
            Seg::Key(k) => match at.get(k) {
                Some(next) => at = next.clone(),
                None => return false,
            },
            // List items are not walked: the list being written is enough.
            Seg::Item { .. } => return true,
        }
    }
    true
}

fn skeleton_of(live: &Value, manager: &str, keep: impl Fn(&Value) -> bool) -> Option<Value> {
    let entries = live.at("/metadata/managedFields")?.as_array()?;
    let mut out: Option<Value> = None;
    for e in entries
        .iter()
        .filter(|e| e.get("manager").and_then(Value::as_str) == Some(manager) && keep(e))
    {
        if let Some(fields) = e.get("fieldsV1") {
            let sk = skeleton(fields, 0);
            out = Some(match out {
                None => sk,
                Some(prev) => merge_skeletons(prev, sk),
            });
        }
    }
    out
}

fn skeleton(fields: &Value, depth: usize) -> Value {
    let Some(map) = fields.as_object() else {
        return Value::Bool(true);
    };
    if depth > crate::limits::MAX_WALK_DEPTH || map.keys().all(|k| k == ".") {
        return Value::Bool(true);
    }
    let is_list = map
        .keys()
        .any(|k| k.starts_with("k:") || k.starts_with("v:") || k.starts_with("i:"));
    if is_list {
        let mut items = Vec::new();
        for (k, child) in map {
            if let Some(j) = k.strip_prefix("k:") {
                let mut item = serde_json::from_str::<Value>(j).unwrap_or(Value::Null);
                if let (Value::Object(im), Value::Object(cm)) =
                    (&mut item, skeleton(child, depth + 1))
                {
                    for (ck, cv) in cm {
                        im.entry(ck).or_insert(cv);
                    }
                }
                items.push(item);
            } else if let Some(v) = k.strip_prefix("v:") {
                items.push(serde_json::from_str::<Value>(v).unwrap_or(Value::Null));
            }
        }
        return Value::Array(items);
    }
    let mut obj = serde_json::Map::new();
    for (k, child) in map {
        if let Some(name) = k.strip_prefix("f:") {
            obj.insert(name.to_string(), skeleton(child, depth + 1));
        }
    }
    Value::Object(obj)
}

fn merge_skeletons(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut x), Value::Object(y)) => {
            for (k, v) in y {
                let merged = match x.remove(&k) {
                    Some(prev) => merge_skeletons(prev, v),
                    None => v,
                };
                x.insert(k, merged);
            }
            Value::Object(x)
        }
        (Value::Array(mut x), Value::Array(y)) => {
            x.extend(y);
            Value::Array(x)
        }
        (_, b) => b,
    }
}

/// Every manager whose field set holds this exact path (fields can be co-owned).
pub fn owners_of(live: &Value, path: &[Seg]) -> Vec<String> {
    let Some(entries) = live.at("/metadata/managedFields").and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries {
        let (Some(manager), Some(fields)) = (
            entry.get("manager").and_then(Value::as_str),
            entry.get("fieldsV1"),
        ) else {
            continue;
        };
        if match_depth(fields, path) > 0 && !out.iter().any(|m| m == manager) {
            out.push(manager.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_the_manager_of_a_field() {
        let live = json!({"metadata":{"managedFields":[
            {"manager":"argocd-controller","fieldsV1":{"f:spec":{"f:template":{}}}},
            {"manager":"kube-controller-manager","fieldsV1":{"f:spec":{"f:replicas":{}}}},
            {"manager":"kubectl-rollout","fieldsV1":{"f:spec":{"f:template":{"f:metadata":{"f:annotations":{"f:kubectl.kubernetes.io/restartedAt":{}}}}}}},
            {"manager":"istio","fieldsV1":{"f:spec":{"f:containers":{"k:{\"name\":\"istio-proxy\"}":{".":{},"f:image":{}}}}}}
        ]}});
        assert_eq!(
            owner_of(&live, &[Seg::key("spec"), Seg::key("replicas")]).as_deref(),
            Some("kube-controller-manager")
        );
        let restart = [
            Seg::key("spec"),
            Seg::key("template"),
            Seg::key("metadata"),
            Seg::key("annotations"),
            Seg::key("kubectl.kubernetes.io/restartedAt"),
        ];
        assert_eq!(
            owner_of(&live, &restart).as_deref(),
            Some("kubectl-rollout")
        );
        let proxy = [
            Seg::key("spec"),
            Seg::key("containers"),
            Seg::Item {
                index: Some(1),
                key: Some(("name".into(), json!("istio-proxy"))),
            },
        ];
        assert_eq!(owner_of(&live, &proxy).as_deref(), Some("istio"));
        assert_eq!(owner_of(&live, &[Seg::key("data")]), None);
    }

    #[test]
    fn an_entry_of_container_resources_alone_is_told_from_one_that_writes_more() {
        let writer = |spec: serde_json::Value| {
            FieldWriter::of(
                &json!({"manager": "sizer", "fieldsV1": {"f:spec": spec}}),
                true,
            )
            .unwrap()
            .resources_only
        };
        let resources = json!({"f:resources": {"f:requests": {"f:cpu": {}}}});
        assert!(writer(json!({"f:template": {"f:spec": {"f:containers": {
            "k:{\"name\":\"app\"}": resources.clone()
        }}}})));
        assert!(writer(
            json!({"f:template": {"f:spec": {"f:initContainers": {
                "k:{\"name\":\"init\"}": resources
            }}}})
        ));
        // The image too: a program that owns more of the workload.
        assert!(!writer(json!({"f:template": {"f:spec": {"f:containers": {
            "k:{\"name\":\"app\"}": {"f:image": {}, "f:resources": {"f:limits": {}}}
        }}}})));
        assert!(!writer(json!({"f:replicas": {}})));
        assert!(!writer(
            json!({"f:template": {"f:spec": {"f:containers": {}}}})
        ));
    }
}
