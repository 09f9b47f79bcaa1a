//! The user's own `ignoreDifferences` rules, read from an Application
//! (`spec.ignoreDifferences`) or from `argocd-cm`
//! (`resource.customizations.ignoreDifferences.<group_kind>`, `.all`, and the
//! legacy `resource.customizations` map), applied as Argo CD applies them:
//! JSON pointers, jq path expressions (run by the jaq engine as
//! `del(<expr>)` within bounds, see [`jq`]) and trusted field managers.
//! [`crate::settings`] reads them, with argocd-cm's `resource.compareoptions`
//! and `ignore.normalizer.jq.timeout`.

#![warn(missing_docs)]

#[cfg(feature = "jq-engine")]
pub mod jaq;
pub mod jq;
pub mod jq_module;

pub use jq::JqRuntime;

use crate::identity::ResourceKey;
use crate::path::Pointer;
use crate::path::Seg;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Default)]
/// One `ignoreDifferences` rule of the user's settings (an Application's or argocd-cm's), as Argo CD reads it.
pub struct IgnoreRule {
    /// Where the rule came from, for explanations.
    pub source: String,
    /// The API group it selects (`*` globs); empty for the core group.
    pub group: String,
    /// The kind it selects (`*` globs).
    pub kind: String,
    /// The object's name, when the rule selects one object.
    pub name: Option<String>,
    /// The object's namespace, when the rule selects one.
    pub namespace: Option<String>,
    /// `jsonPointers`: RFC 6901 pointers to remove before comparing.
    pub json_pointers: Vec<String>,
    /// `jqPathExpressions`: jq paths to delete before comparing.
    pub jq_path_expressions: Vec<String>,
    /// `managedFieldsManagers`: field managers whose live fields are trusted.
    pub managed_fields_managers: Vec<String>,
    /// Runs the jq expressions: shared by the rules of one analysis.
    pub jq: JqRuntime,
}

impl IgnoreRule {
    /// Whether the rule selects this object (group and kind by glob, name and namespace when given).
    pub fn applies_to(&self, key: &ResourceKey) -> bool {
        crate::path::glob(&self.group, &key.group)
            && crate::path::glob(&self.kind, &key.kind)
            && self
                .name
                .as_ref()
                .is_none_or(|n| n.is_empty() || *n == key.name)
            && self
                .namespace
                .as_ref()
                .is_none_or(|n| n.is_empty() || *n == key.namespace)
    }

    /// Remove what the rule ignores from an object. A pointer that names
    /// nothing and a jq expression that fails on this object are skipped, as
    /// Argo CD does; an expression stopped by its budget is skipped from then
    /// on, with a warning in [`JqRuntime::warnings`].
    pub fn apply(&self, obj: &mut Value) {
        for p in &self.json_pointers {
            remove_pointer(obj, p);
        }
        for expr in &self.jq_path_expressions {
            if let Some(out) = self.jq.delete(&self.source, expr, obj) {
                *obj = out;
            }
        }
    }
}

/// The annotation with an object's own ignored JSON pointers (argo-cd PR
/// #29616): comma-separated RFC 6901 pointers, merged with the
/// Application's rules for that object.
pub const RESOURCE_IGNORE_ANNOTATION: &str = "argocd.argoproj.io/ignore-differences-json-pointers";

/// The rule an object's own [`RESOURCE_IGNORE_ANNOTATION`] makes, read from
/// the Git object, else the live one; None when neither carries a pointer.
/// Entries that are not pointers (not starting with `/`) are left out.
pub fn resource_rule(key: &ResourceKey, git: &Value, live: &Value) -> Option<IgnoreRule> {
    let text = [git, live].into_iter().find_map(|o| {
        o.at("/metadata/annotations")
            .and_then(|a| a.get(RESOURCE_IGNORE_ANNOTATION))
            .and_then(Value::as_str)
    })?;
    let mut json_pointers: Vec<String> = Vec::new();
    for p in text.split(',').map(str::trim) {
        if p.starts_with('/') && !json_pointers.iter().any(|q| q == p) {
            json_pointers.push(p.to_string());
        }
    }
    if json_pointers.is_empty() {
        return None;
    }
    Some(IgnoreRule {
        source: format!("the object's {RESOURCE_IGNORE_ANNOTATION} annotation"),
        group: key.group.clone(),
        kind: key.kind.clone(),
        name: Some(key.name.clone()),
        namespace: Some(key.namespace.clone()),
        json_pointers,
        ..IgnoreRule::default()
    })
}

/// The first of `rules` that removes the field at `path`, judged on an object
/// holding only that field (with `value`) and, for list items, their merge
/// key: what pasted diff output shows of an object. `managedFieldsManagers`
/// cannot be judged there (diff output has no `managedFields`).
pub fn rule_hiding<'r>(
    rules: &[&'r IgnoreRule],
    path: &[Seg],
    value: &Value,
) -> Option<&'r IgnoreRule> {
    if path.is_empty() {
        return None;
    }
    let probe = skeleton(path, value);
    rules.iter().copied().find(|rule| {
        let mut obj = probe.clone();
        rule.apply(&mut obj);
        !reaches(&obj, path)
    })
}

/// An object with `value` at `path` and nothing else (list items before an
/// index are empty objects; an unknown index is the first item).
fn skeleton(path: &[Seg], value: &Value) -> Value {
    let Some((first, rest)) = path.split_first() else {
        return value.clone();
    };
    let inner = skeleton(rest, value);
    match first {
        Seg::Key(k) => {
            let mut m = serde_json::Map::new();
            m.insert(k.clone(), inner);
            Value::Object(m)
        }
        Seg::Item { index, key } => {
            let mut item = inner;
            if let (Some((k, v)), Value::Object(m)) = (key, &mut item) {
                m.entry(k.clone()).or_insert_with(|| v.clone());
            }
            let i = index.unwrap_or(0);
            let mut items = vec![Value::Object(Default::default()); i];
            items.push(item);
            Value::Array(items)
        }
    }
}

fn reaches(obj: &Value, path: &[Seg]) -> bool {
    let mut cur = obj;
    for seg in path {
        let next = match (seg, cur) {
            (Seg::Key(k), Value::Object(m)) => m.get(k),
            (Seg::Item { index, .. }, Value::Array(a)) => a.get(index.unwrap_or(0)),
            _ => None,
        };
        match next {
            Some(v) => cur = v,
            None => return false,
        }
    }
    true
}

fn remove_pointer(obj: &mut Value, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let last = crate::path::unescape_pointer_token(last);
    let target = if parent.is_empty() {
        Some(obj)
    } else {
        obj.at_mut(parent)
    };
    match target {
        Some(Value::Object(m)) => {
            m.remove(&last);
        }
        Some(Value::Array(a)) => {
            if let Ok(i) = last.parse::<usize>() {
                if i < a.len() {
                    a.remove(i);
                }
            }
        }
        _ => {}
    }
}

#[cfg(all(test, feature = "jq-engine"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn jq_deletes_selected_items_and_pointers_remove_keys() {
        let obj = json!({"webhooks":[{"name":"a","clientConfig":{"caBundle":"x"}},{"name":"b","clientConfig":{"caBundle":"y"}}]});
        let jq = JqRuntime::default();
        let out = jq
            .delete(
                "test",
                r#".webhooks[] | select(.name == "a") | .clientConfig.caBundle"#,
                &obj,
            )
            .unwrap();
        assert_eq!(
            out,
            json!({"webhooks":[{"name":"a","clientConfig":{}},{"name":"b","clientConfig":{"caBundle":"y"}}]})
        );
        assert!(jq.delete("test", ".webhooks[", &obj).is_none());
        let mut o = json!({"metadata":{"labels":{"node-role.kubernetes.io/worker":""}}});
        remove_pointer(&mut o, "/metadata/labels/node-role.kubernetes.io~1worker");
        assert_eq!(o, json!({"metadata":{"labels":{}}}));
    }
}
