//! The user's own `ignoreDifferences` rules, read from an Application
//! (`spec.ignoreDifferences`) or from `argocd-cm`
//! (`resource.customizations.ignoreDifferences.<group_kind>`, `.all`, and the
//! legacy `resource.customizations` map), applied as Argo CD applies them:
//! JSON pointers, jq path expressions (run by the jaq engine as
//! `del(<expr>)`) and trusted field managers.

use crate::identity::ResourceKey;
use crate::input::{parse_side, InputError, Side};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct IgnoreRule {
    /// Where the rule came from, for explanations.
    pub source: String,
    pub group: String,
    pub kind: String,
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub json_pointers: Vec<String>,
    pub jq_path_expressions: Vec<String>,
    pub managed_fields_managers: Vec<String>,
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn rule_body(source: String, group: &str, kind: &str, body: &Value) -> IgnoreRule {
    IgnoreRule {
        source,
        group: group.to_string(),
        kind: kind.to_string(),
        name: body.get("name").and_then(Value::as_str).map(str::to_string),
        namespace: body
            .get("namespace")
            .and_then(Value::as_str)
            .map(str::to_string),
        json_pointers: strings(&body["jsonPointers"]),
        jq_path_expressions: strings(&body["jqPathExpressions"]),
        managed_fields_managers: strings(&body["managedFieldsManagers"]),
    }
}

/// `group_Kind` (or `Kind` for the core group, `all` for every kind).
fn split_group_kind(key: &str) -> (String, String) {
    if key == "all" {
        return ("*".into(), "*".into());
    }
    match key.rsplit_once('_') {
        Some((g, k)) => (g.to_string(), k.to_string()),
        None => (String::new(), key.to_string()),
    }
}

/// Read every ignore rule from pasted Application and/or argocd-cm YAML.
pub fn parse_rules(text: &str) -> Result<Vec<IgnoreRule>, InputError> {
    let docs = parse_side(text, Side::Git).map_err(|mut e| {
        e.message = format!("ignoreDifferences input: {}", e.message);
        e
    })?;
    let mut rules = Vec::new();
    for d in docs {
        let obj = &d.object;
        let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
        let name = obj
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        if kind == "Application" {
            if let Some(items) = obj
                .pointer("/spec/ignoreDifferences")
                .and_then(Value::as_array)
            {
                for (i, item) in items.iter().enumerate() {
                    let g = item.get("group").and_then(Value::as_str).unwrap_or("");
                    let k = item.get("kind").and_then(Value::as_str).unwrap_or("");
                    rules.push(rule_body(
                        format!("Application {name} spec.ignoreDifferences[{i}]"),
                        g,
                        k,
                        item,
                    ));
                }
            }
        } else if kind == "ConfigMap" {
            let Some(data) = obj.get("data").and_then(Value::as_object) else {
                continue;
            };
            for (key, val) in data {
                let Some(text) = val.as_str() else { continue };
                if let Some(gk) = key.strip_prefix("resource.customizations.ignoreDifferences.") {
                    let body: Value = serde_yaml::from_str(text).unwrap_or(Value::Null);
                    let (g, k) = split_group_kind(gk);
                    rules.push(rule_body(format!("argocd-cm {key}"), &g, &k, &body));
                } else if key == "resource.customizations" {
                    let legacy: Value = serde_yaml::from_str(text).unwrap_or(Value::Null);
                    for (gk, entry) in legacy.as_object().into_iter().flatten() {
                        let Some(inner) = entry.get("ignoreDifferences").and_then(Value::as_str)
                        else {
                            continue;
                        };
                        let body: Value = serde_yaml::from_str(inner).unwrap_or(Value::Null);
                        let (g, k) = match gk.split_once('/') {
                            Some((g, k)) => (g.to_string(), k.to_string()),
                            None => (String::new(), gk.to_string()),
                        };
                        rules.push(rule_body(
                            format!("argocd-cm resource.customizations {gk}"),
                            &g,
                            &k,
                            &body,
                        ));
                    }
                }
            }
        }
    }
    Ok(rules)
}

impl IgnoreRule {
    pub fn applies_to(&self, key: &ResourceKey) -> bool {
        crate::rules::glob(&self.group, &key.group)
            && crate::rules::glob(&self.kind, &key.kind)
            && self
                .name
                .as_ref()
                .map_or(true, |n| n.is_empty() || *n == key.name)
            && self
                .namespace
                .as_ref()
                .map_or(true, |n| n.is_empty() || *n == key.namespace)
    }

    /// Remove what the rule ignores from an object. Failing pointers and jq
    /// expressions are skipped silently, as Argo CD does.
    pub fn apply(&self, obj: &mut Value) {
        for p in &self.json_pointers {
            remove_pointer(obj, p);
        }
        for expr in &self.jq_path_expressions {
            if let Some(out) = jq_delete(obj, expr) {
                *obj = out;
            }
        }
    }
}

fn remove_pointer(obj: &mut Value, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let last = crate::path::unescape_pointer_token(last);
    let target = if parent.is_empty() {
        Some(obj)
    } else {
        obj.pointer_mut(parent)
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

/// Run `del(<expr>)` with jaq; None when the expression does not compile or
/// does not yield exactly one value.
pub fn jq_delete(obj: &Value, expr: &str) -> Option<Value> {
    use jaq_core::load::{Arena, File, Loader};
    use jaq_core::{data, unwrap_valr, Compiler, Ctx, Vars};
    let code = format!("del({expr})");
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs());
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let modules = loader
        .load(
            &arena,
            File {
                code: code.as_str(),
                path: (),
            },
        )
        .ok()?;
    let filter = Compiler::default().with_funs(funs).compile(modules).ok()?;
    let input_text = serde_json::to_string(obj).ok()?;
    let input = jaq_json::read::parse_single(input_text.as_bytes()).ok()?;
    let ctx = Ctx::<data::JustLut<jaq_json::Val>>::new(&filter.lut, Vars::new([]));
    let mut out = filter.id.run((ctx, input)).map(unwrap_valr);
    let first = out.next()?.ok()?;
    if out.next().is_some() {
        return None;
    }
    serde_json::from_str(&first.to_string()).ok()
}

/// A check that an expression compiles, for error messages on input.
pub fn jq_compiles(expr: &str) -> bool {
    jq_delete(&Value::Object(Default::default()), expr).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_both_forms() {
        let text = r#"
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  ignoreDifferences:
  - group: apps
    kind: Deployment
    name: cart
    jsonPointers: [/spec/replicas]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm}
data:
  resource.customizations.ignoreDifferences.admissionregistration.k8s.io_MutatingWebhookConfiguration: |
    jqPathExpressions:
    - '.webhooks[]?.clientConfig.caBundle'
  resource.customizations.ignoreDifferences.Service: |
    jsonPointers: [/spec/clusterIP]
  resource.customizations.ignoreDifferences.all: |
    managedFieldsManagers: [kube-controller-manager]
"#;
        let rules = parse_rules(text).unwrap();
        assert_eq!(rules.len(), 4);
        let by_kind = |k: &str| rules.iter().find(|r| r.kind == k).unwrap();
        assert_eq!(by_kind("Deployment").group, "apps");
        assert_eq!(
            by_kind("MutatingWebhookConfiguration").group,
            "admissionregistration.k8s.io"
        );
        assert_eq!(by_kind("Service").group, "");
        assert_eq!(by_kind("*").group, "*");
        let key = ResourceKey {
            group: "apps".into(),
            kind: "Deployment".into(),
            namespace: "n".into(),
            name: "cart".into(),
        };
        assert!(by_kind("Deployment").applies_to(&key));
        assert!(!by_kind("MutatingWebhookConfiguration").applies_to(&key));
        assert!(by_kind("*").applies_to(&key));
    }

    #[test]
    fn jq_deletes_selected_items_and_pointers_remove_keys() {
        let obj = json!({"webhooks":[{"name":"a","clientConfig":{"caBundle":"x"}},{"name":"b","clientConfig":{"caBundle":"y"}}]});
        let out = jq_delete(
            &obj,
            r#".webhooks[] | select(.name == "a") | .clientConfig.caBundle"#,
        )
        .unwrap();
        assert_eq!(
            out,
            json!({"webhooks":[{"name":"a","clientConfig":{}},{"name":"b","clientConfig":{"caBundle":"y"}}]})
        );
        assert!(jq_delete(&obj, ".webhooks[").is_none());
        let mut o = json!({"metadata":{"labels":{"node-role.kubernetes.io/worker":""}}});
        remove_pointer(&mut o, "/metadata/labels/node-role.kubernetes.io~1worker");
        assert_eq!(o, json!({"metadata":{"labels":{}}}));
    }
}
