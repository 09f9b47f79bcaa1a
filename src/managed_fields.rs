//! Who last wrote a field, read from the live object's `metadata.managedFields`
//! (FieldsV1: `f:<field>`, `k:<merge key JSON>`, `v:<value>`, `i:<index>`).

use crate::path::Seg;
use serde_json::Value;

/// The manager whose FieldsV1 set holds this path (or the closest ancestor
/// owned as a leaf). When several do, the deepest match wins; ties go to the
/// most recent entry.
pub fn owner_of(live: &Value, path: &[Seg]) -> Option<String> {
    let entries = live.pointer("/metadata/managedFields")?.as_array()?;
    let mut best: Option<(usize, String)> = None;
    for entry in entries {
        let Some(manager) = entry.get("manager").and_then(Value::as_str) else { continue };
        let Some(fields) = entry.get("fieldsV1") else { continue };
        let depth = match_depth(fields, path);
        if depth == 0 {
            continue;
        }
        if best.as_ref().map_or(true, |(d, _)| depth >= *d) {
            best = Some((depth, manager.to_string()));
        }
    }
    best.filter(|(d, _)| *d == path.len() || *d > 0).map(|(_, m)| m)
}

/// How many leading segments of `path` this field set covers (full length
/// when the exact field, or a subtree of it, is owned).
fn match_depth(fields: &Value, path: &[Seg]) -> usize {
    let mut node = fields;
    for (i, seg) in path.iter().enumerate() {
        let Some(map) = node.as_object() else { return i };
        let next = match seg {
            Seg::Key(k) => map.get(&format!("f:{k}")),
            Seg::Item { key: Some((name, value)), index } => map
                .iter()
                .find(|(k, _)| {
                    k.strip_prefix("k:")
                        .and_then(|j| serde_json::from_str::<Value>(j).ok())
                        .is_some_and(|kv| kv.get(name) == Some(value))
                })
                .map(|(_, v)| v)
                .or_else(|| index.and_then(|i| map.get(&format!("i:{i}")))),
            Seg::Item { index: Some(i), key: None } => map.get(&format!("i:{i}")),
            Seg::Item { index: None, key: None } => None,
        };
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
        assert_eq!(owner_of(&live, &[Seg::key("spec"), Seg::key("replicas")]).as_deref(), Some("kube-controller-manager"));
        let restart = [Seg::key("spec"), Seg::key("template"), Seg::key("metadata"), Seg::key("annotations"), Seg::key("kubectl.kubernetes.io/restartedAt")];
        assert_eq!(owner_of(&live, &restart).as_deref(), Some("kubectl-rollout"));
        let proxy = [Seg::key("spec"), Seg::key("containers"), Seg::Item { index: Some(1), key: Some(("name".into(), json!("istio-proxy"))) }];
        assert_eq!(owner_of(&live, &proxy).as_deref(), Some("istio"));
        assert_eq!(owner_of(&live, &[Seg::key("data")]), None);
    }
}
