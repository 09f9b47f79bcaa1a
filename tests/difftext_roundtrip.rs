//! Round trip: for each scenario, print the diff text `argocd app diff`
//! would print (normal and unified, live on the left, desired on the right)
//! and check the diff-text analysis finds the same differences, with the same
//! causes wherever the two-sided verdict did not depend on other objects in
//! the input (an HPA, a cert-manager annotation) that diff text cannot show.

mod common;

use drift_doctor::difftext::{render_argocd_diff, RenderResource};
use drift_doctor::input::{parse_side, Side};
use drift_doctor::{analyze, analyze_diff, Change, Options, Presence};
use serde_json::Value;

fn set_pointer(obj: &mut Value, pointer: &str, value: Option<&Value>) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let last = drift_doctor::path::unescape_pointer_token(last);
    let Some(target) = (if parent.is_empty() {
        Some(&mut *obj)
    } else {
        obj.pointer_mut(parent)
    }) else {
        return;
    };
    match (target, value) {
        (Value::Object(m), Some(v)) => {
            m.insert(last, v.clone());
        }
        (Value::Object(m), None) => {
            m.remove(&last);
        }
        (Value::Array(a), Some(v)) => match last.parse::<usize>() {
            Ok(i) if i < a.len() => a[i] = v.clone(),
            _ => a.push(v.clone()),
        },
        (Value::Array(a), None) => {
            if let Ok(i) = last.parse::<usize>() {
                if i < a.len() {
                    a.remove(i);
                }
            }
        }
        _ => {}
    }
}

fn clean(obj: &Value) -> Value {
    let mut v = obj.clone();
    if let Some(m) = v.as_object_mut() {
        m.remove("status");
    }
    if let Some(Value::Object(meta)) = v.get_mut("metadata") {
        meta.remove("managedFields");
    }
    v
}

fn matches(pattern: &str, pointer: &str) -> bool {
    let p: Vec<&str> = pattern.split('/').collect();
    let q: Vec<&str> = pointer.split('/').collect();
    p.len() == q.len() && p.iter().zip(&q).all(|(a, b)| *a == "*" || a == b)
}

#[test]
fn diff_text_finds_what_the_two_sided_analysis_finds() {
    let catalog = drift_doctor::rules::catalog().expect("catalogue");
    for name in [
        "autoscaler-hpa-replicas",
        "real-drift",
        "restart-annotation",
        "webhook-cabundle-cainjector",
        "helm-random-secret",
        "mixed-app",
    ] {
        let dir = format!("tests/fixtures/scenarios/{name}");
        let git = common::read(format!("{dir}/git.yaml"));
        let live = common::read(format!("{dir}/live.yaml"));
        let report = analyze(&git, &live, &Options::default()).unwrap();
        let live_docs = parse_side(&live, Side::Live).unwrap();
        let mut objects: Vec<(String, String, String, String, Value, Value)> = Vec::new();
        for r in report
            .resources
            .iter()
            .filter(|r| r.presence == Presence::Both && r.status == drift_doctor::Status::OutOfSync)
        {
            let live_obj = live_docs
                .iter()
                .map(|d| &d.object)
                .find(|o| {
                    o.pointer("/metadata/name").and_then(Value::as_str) == Some(&r.name)
                        && o["kind"] == r.kind.as_str()
                })
                .expect("live object");
            let live_clean = clean(live_obj);
            let mut target = live_clean.clone();
            for d in r.differences.iter().filter(|d| d.visible) {
                let v = if d.change == Change::Added {
                    None
                } else {
                    Some(&d.git)
                };
                set_pointer(&mut target, &d.pointer, v);
            }
            objects.push((
                r.group.clone(),
                r.kind.clone(),
                r.namespace.clone(),
                r.name.clone(),
                live_clean,
                target,
            ));
        }
        let resources: Vec<RenderResource> = objects
            .iter()
            .map(|(g, k, ns, n, l, t)| RenderResource {
                group: g,
                kind: k,
                namespace: ns,
                name: n,
                live: Some(l),
                target: Some(t),
            })
            .collect();
        for unified in [None, Some(3)] {
            let text = render_argocd_diff(&resources, unified);
            let from_text = analyze_diff(&text, &Options::default())
                .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
            for r in report
                .resources
                .iter()
                .filter(|r| r.presence == Presence::Both)
            {
                for d in r.differences.iter().filter(|d| d.visible) {
                    let found = from_text
                        .resources
                        .iter()
                        .filter(|t| t.id == r.id)
                        .flat_map(|t| &t.differences)
                        .find(|t| matches(&t.pointer, &d.pointer) || t.pointer == d.pointer);
                    let Some(t) = found else {
                        panic!("{name} ({unified:?}): {} {} not found in the diff text analysis\n{text}", r.id, d.pointer)
                    };
                    let used_context = catalog
                        .get(&d.rule)
                        .is_some_and(|rule| !rule.matcher.when.is_empty());
                    if !used_context {
                        assert_eq!(
                            t.cause, d.cause,
                            "{name} ({unified:?}): {} {}: {} vs {}",
                            r.id, d.pointer, t.rule, d.rule
                        );
                    }
                }
            }
        }
    }
}
