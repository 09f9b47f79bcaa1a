//! The user's own `ignoreDifferences` rules, read from an Application
//! (`spec.ignoreDifferences`) or from `argocd-cm`
//! (`resource.customizations.ignoreDifferences.<group_kind>`, `.all`, and the
//! legacy `resource.customizations` map), applied as Argo CD applies them:
//! JSON pointers, jq path expressions (run by the jaq engine as
//! `del(<expr>)`) and trusted field managers. [`apply_user_settings`] also
//! reads argocd-cm's `resource.compareoptions`.

use crate::compare::{CompareOptions, IgnoreStatus};
use crate::identity::ResourceKey;
use crate::input::{parse_side, Document, InputError, Side};
use crate::path::Seg;
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
    Ok(rules_from_documents(&docs))
}

/// Apply a user's pasted Argo CD settings: Application and/or argocd-cm
/// ConfigMap YAML (multi-document). Their ignoreDifferences rules are
/// appended to `compare.ignore_rules` (as [`parse_rules`] reads them), and an
/// argocd-cm's `resource.compareoptions` sets `ignoreResourceStatusField`
/// (read as Argo CD reads it: absent means `all`, see
/// [`IgnoreStatus::from_setting`]) and turns `ignoreAggregatedRoles` on when
/// it is true. `ignoreDifferencesOnResourceUpdates` only throttles refreshes
/// in Argo CD, so it changes nothing here. Blank text applies nothing.
/// Errors name the document, line and column in `text` (side `git`), also
/// for a YAML error inside the `resource.compareoptions` string.
pub fn apply_user_settings(text: &str, compare: &mut CompareOptions) -> Result<(), InputError> {
    let blank = text.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#') || t == "---" || t == "..."
    });
    if blank {
        return Ok(());
    }
    let docs = parse_side(text, Side::Git).map_err(|mut e| {
        e.message = format!("Argo CD settings: {}", e.message);
        e
    })?;
    let mut status = None;
    let mut aggregated = false;
    for d in &docs {
        if d.object.get("kind").and_then(Value::as_str) != Some("ConfigMap") {
            continue;
        }
        let Some(value) = d
            .object
            .pointer("/data")
            .and_then(|data| data.get(COMPARE_OPTIONS))
        else {
            continue;
        };
        let (s, a) = read_compare_options(text, d, value)?;
        status = Some(s);
        aggregated |= a;
    }
    compare.ignore_rules.extend(rules_from_documents(&docs));
    if let Some(s) = status {
        compare.ignore_resource_status_field = s;
    }
    if aggregated {
        compare.ignore_aggregated_roles = true;
    }
    Ok(())
}

const COMPARE_OPTIONS: &str = "resource.compareoptions";

/// YAML 1.1 plain scalars that Argo CD's YAML reader (sigs.k8s.io/yaml)
/// takes as booleans; serde_yaml (YAML 1.2) reads them as strings.
fn yaml11_bool(s: &str) -> Option<bool> {
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            Some(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            Some(false)
        }
        _ => None,
    }
}

/// One argocd-cm's `resource.compareoptions`: the status mode and whether
/// `ignoreAggregatedRoles` is true. Argo CD starts from its defaults
/// (`util/settings` `GetDefaultDiffOptions`: status `all`, aggregated roles
/// off) and reads the YAML over them.
fn read_compare_options(
    text: &str,
    doc: &Document,
    value: &Value,
) -> Result<(IgnoreStatus, bool), InputError> {
    let inner = match value {
        Value::Null => return Ok((IgnoreStatus::All, false)),
        Value::String(s) => s.as_str(),
        _ => {
            return Err(settings_error(
                text,
                doc,
                None,
                "`resource.compareoptions` must be a YAML string (a `|` block) holding ignoreResourceStatusField and ignoreAggregatedRoles".into(),
            ))
        }
    };
    let parsed: Value = if inner.trim().is_empty() {
        Value::Null
    } else {
        match serde_yaml::from_str::<Value>(inner) {
            Ok(v) => v,
            Err(e) => {
                let at = e.location().map(|l| (l.line(), l.column()));
                // The position is reported in `text`, not inside the option.
                let message = regex_lite::Regex::new(r" at line \d+ column \d+")
                    .map(|re| re.replace_all(&e.to_string(), "").into_owned())
                    .unwrap_or_else(|_| e.to_string());
                return Err(settings_error(
                    text,
                    doc,
                    at,
                    format!("invalid YAML in `resource.compareoptions`: {message}"),
                ));
            }
        }
    };
    let options = match &parsed {
        Value::Null => return Ok((IgnoreStatus::All, false)),
        Value::Object(m) => m,
        other => {
            return Err(settings_error(
                text,
                doc,
                Some((1, 1)),
                format!(
                    "`resource.compareoptions` must be a mapping (ignoreResourceStatusField: all|crd|none, ignoreAggregatedRoles: true|false), not {}",
                    crate::rules::value_text(other)
                ),
            ))
        }
    };
    let status = match options.get("ignoreResourceStatusField") {
        None | Some(Value::Null) => IgnoreStatus::All,
        Some(Value::String(s)) => IgnoreStatus::from_setting(s),
        Some(Value::Bool(b)) => IgnoreStatus::from_setting(&b.to_string()),
        Some(Value::Number(n)) => IgnoreStatus::from_setting(&n.to_string()),
        Some(_) => {
            return Err(settings_error(
                text,
                doc,
                inner_key_position(inner, "ignoreResourceStatusField"),
                "ignoreResourceStatusField must be all, crd or none".into(),
            ))
        }
    };
    let aggregated = match options.get("ignoreAggregatedRoles") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) if yaml11_bool(s).is_some() => yaml11_bool(s) == Some(true),
        Some(_) => return Err(settings_error(
            text,
            doc,
            inner_key_position(inner, "ignoreAggregatedRoles"),
            "ignoreAggregatedRoles must be true or false (Argo CD cannot read other values either)"
                .into(),
        )),
    };
    Ok((status, aggregated))
}

/// Line and column (1-based) of `key:` inside the compare options text.
fn inner_key_position(inner: &str, key: &str) -> Option<(usize, usize)> {
    inner.lines().enumerate().find_map(|(i, l)| {
        let t = l.trim_start();
        let rest = t.strip_prefix(key)?;
        rest.trim_start()
            .starts_with(':')
            .then(|| (i + 1, l.len() - t.len() + 1))
    })
}

/// An error in an argocd-cm's `resource.compareoptions`, placed in `text`:
/// at `inner` (line and column inside the option's value) when the value is
/// a block scalar under its key, else at the key itself.
fn settings_error(
    text: &str,
    doc: &Document,
    inner: Option<(usize, usize)>,
    message: String,
) -> InputError {
    let lines: Vec<&str> = text.split('\n').collect();
    let key_at = (doc.line.max(1) - 1..lines.len()).find_map(|i| {
        let l = lines[i].trim_end_matches('\r');
        let at = l.find(COMPARE_OPTIONS)?;
        let rest = &l[at + COMPARE_OPTIONS.len()..];
        let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
        let rest = rest.trim_start().strip_prefix(':')?;
        let quoted = at > 0 && matches!(l.as_bytes()[at - 1], b'"' | b'\'');
        Some((i, at - usize::from(quoted), rest.trim().to_string()))
    });
    let (line, column) = match key_at {
        Some((i, indent, after)) => {
            let block = after.starts_with('|') || after.starts_with('>');
            match inner {
                Some((l, c)) if block && l > 0 => {
                    // The block's content starts on the next line, indented
                    // by the block's indentation (that of its first non-blank line).
                    let content_indent = lines[i + 1..]
                        .iter()
                        .map(|x| x.trim_end_matches('\r'))
                        .find(|x| !x.trim().is_empty())
                        .map_or(indent + 2, |x| x.len() - x.trim_start().len());
                    (i + 1 + l, c + content_indent)
                }
                _ => (i + 1, indent + 1),
            }
        }
        None => (doc.line, 1),
    };
    InputError {
        side: Side::Git,
        document: doc.document,
        line,
        column,
        message: format!("Argo CD settings: {message}"),
    }
}

/// The ignoreDifferences rules of parsed Application and argocd-cm documents.
fn rules_from_documents(docs: &[Document]) -> Vec<IgnoreRule> {
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
    rules
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
