//! Argo CD's normaliser tests (tests/corpus/gitops-engine/normalizer-cases.json,
//! from argo-cd, Apache-2.0, The Argo Authors): known-type canonicalisation,
//! ignoreDifferences pointers and jq, and trusted field managers.

use crate::common;

use drift_doctor::compare::{compare, CompareOptions};
use drift_doctor::identity::{key_of, ScopeTable};
use drift_doctor::{ignore::IgnoreRule, settings::parse_rules};
use serde_json::{json, Value};

const CORPUS: &str = "tests/corpus/gitops-engine";

fn load(rel: &str) -> Value {
    let text = common::read(format!("{CORPUS}/{rel}"));
    drift_doctor::input::parse_side(&text, drift_doctor::Side::Live)
        .unwrap()
        .remove(0)
        .object
}

/// Read `a.b[0].c` from an object.
fn get<'a>(obj: &'a Value, path: &str) -> Option<&'a Value> {
    let mut cur = obj;
    for part in path.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((n, rest)) => (n, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        cur = cur.get(name)?;
        if let Some(i) = index {
            cur = cur.get(i)?;
        }
    }
    Some(cur)
}

/// Apply a knownTypeFields entry: walk the dotted field (lists are walked
/// item by item) and canonicalise what is found as the Argo CD type.
fn apply_known_type(obj: &mut Value, field: &[&str], ty: &str) {
    match field.split_first() {
        None => match obj {
            Value::Array(items) if ty.ends_with("Container") => {
                for i in items {
                    drift_doctor::k8s::normalize_as_type(ty, i);
                }
            }
            other => {
                drift_doctor::k8s::normalize_as_type(ty, other);
            }
        },
        Some((first, rest)) => match obj {
            Value::Object(m) => {
                if let Some(child) = m.get_mut(*first) {
                    apply_known_type(child, rest, ty);
                }
            }
            Value::Array(items) => {
                for i in items {
                    apply_known_type(i, field, ty);
                }
            }
            _ => {}
        },
    }
}

fn app_rules(entries: &Value) -> Vec<IgnoreRule> {
    let app = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": {"name": "corpus"}, "spec": {"ignoreDifferences": entries}});
    parse_rules(&app.to_string()).unwrap()
}

fn cm_rules(map: &Value) -> Vec<IgnoreRule> {
    let mut data = serde_json::Map::new();
    for (gk, body) in map.as_object().unwrap() {
        let key = if gk == "*/*" {
            "all".to_string()
        } else {
            gk.replace('/', "_")
        };
        data.insert(
            format!("resource.customizations.ignoreDifferences.{key}"),
            json!(serde_yaml::to_string(body).unwrap()),
        );
    }
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "argocd-cm"}, "data": data});
    parse_rules(&cm.to_string()).unwrap()
}

#[test]
fn argo_cd_normaliser_cases() {
    let cases: Vec<Value> =
        serde_json::from_str(&common::read(format!("{CORPUS}/normalizer-cases.json"))).unwrap();
    let mut checked = 0;
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let rules = &case["rules"];
        let expect = case["expect"].as_object().unwrap();
        if let Some(object) = case["inputs"]["object"].as_str() {
            let mut obj = load(object);
            let original = obj.clone();
            if let Some(kt) = rules.get("resource.customizations.knownTypeFields") {
                for (_, fields) in kt.as_object().unwrap() {
                    for f in fields.as_array().unwrap() {
                        let path: Vec<&str> = f["field"].as_str().unwrap().split('.').collect();
                        apply_known_type(&mut obj, &path, f["type"].as_str().unwrap());
                    }
                }
            }
            let ignore: Vec<IgnoreRule> = match (
                rules.get("ignoreDifferences"),
                rules.get("resource.customizations.ignoreDifferences"),
            ) {
                (Some(app), _) => app_rules(app),
                (_, Some(cm)) => cm_rules(cm),
                _ => Vec::new(),
            };
            let key = key_of(&obj, &ScopeTable::default(), None);
            for r in ignore.iter().filter(|r| r.applies_to(&key)) {
                r.apply(&mut obj);
            }
            for (path, want) in expect {
                match want.as_str() {
                    Some("absent") => {
                        assert!(get(&obj, path).is_none(), "{id}: {path} should be gone")
                    }
                    Some("present") => {
                        assert!(get(&obj, path).is_some(), "{id}: {path} should stay")
                    }
                    Some(w) if path == "object" && w.starts_with("unchanged") => {
                        assert_eq!(obj, original, "{id}")
                    }
                    _ => assert_eq!(get(&obj, path), Some(want), "{id}: {path}"),
                }
            }
        } else {
            // Pairs: the trusted managers' fields never count as differences.
            let live = load(case["inputs"]["live"].as_str().unwrap());
            let desired = load(case["inputs"]["desired"].as_str().unwrap());
            let entries = match rules.get("ignoreDifferences") {
                Some(e) => e.clone(),
                None => {
                    json!([{"group": "*", "kind": "*", "managedFieldsManagers": rules["managedFieldsManagers"]}])
                }
            };
            let opts = CompareOptions {
                include_hidden: true,
                ignore_rules: app_rules(&entries),
                ..Default::default()
            };
            let key = key_of(&desired, &ScopeTable::default(), None);
            let result = compare(&key, &desired, &live, &opts);
            let visible: Vec<String> = result
                .visible
                .iter()
                .map(|d| drift_doctor::path::pointer(&d.path))
                .collect();
            for (path, want) in expect {
                let Some(field) = path
                    .strip_prefix("desired.")
                    .or_else(|| path.strip_prefix("live."))
                else {
                    continue;
                };
                let pointer = format!("/{}", field.replace('.', "/").replace("[0]", "/0"));
                let hidden = want
                    .as_str()
                    .is_some_and(|w| w == "absent" || w.starts_with("empty"));
                if hidden {
                    assert!(
                        !visible.iter().any(|v| v == &pointer),
                        "{id}: {pointer} should not count: {visible:?}"
                    );
                } else if want.is_number() && path.starts_with("live.") {
                    let desired_value = expect.get(&path.replacen("live.", "desired.", 1));
                    if desired_value.is_some_and(|d| d != want) {
                        assert!(
                            visible.iter().any(|v| v == &pointer),
                            "{id}: {pointer} should count: {visible:?}"
                        );
                    }
                }
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 19);
}
