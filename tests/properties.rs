//! Properties of the comparison that must hold for any input.

use crate::common;

use drift_doctor::compare::{compare, CompareOptions, Strategy as DiffStrategy};
use drift_doctor::identity::{key_of, ScopeTable};
use proptest::prelude::*;
use serde_json::{json, Value};

const STRATEGIES: [DiffStrategy; 3] = [
    DiffStrategy::Legacy,
    DiffStrategy::ServerSideApply,
    DiffStrategy::ServerSideDiff,
];

fn deployment() -> impl Strategy<Value = Value> {
    (
        "[a-z][a-z0-9-]{0,12}",
        proptest::option::of(0u32..20),
        "[a-z]{1,8}(:[0-9]\\.[0-9]{1,2})?",
        proptest::collection::vec(("[A-Z][A-Z_]{0,6}", "[a-z0-9]{0,6}"), 0..4),
        proptest::collection::vec(1024u32..9000, 0..3),
        proptest::option::of(("[1-9][0-9]{0,2}m", "[1-9][0-9]{0,2}Mi")),
    )
        .prop_map(|(name, replicas, image, env, ports, resources)| {
            let mut env_seen = std::collections::BTreeSet::new();
            let env: Vec<Value> =
                env.into_iter().filter(|(k, _)| env_seen.insert(k.clone())).map(|(k, v)| json!({"name": k, "value": v})).collect();
            let mut port_seen = std::collections::BTreeSet::new();
            let ports: Vec<Value> = ports.into_iter().filter(|p| port_seen.insert(*p)).map(|p| json!({"containerPort": p})).collect();
            let mut container = json!({"name": "app", "image": image});
            if !env.is_empty() {
                container["env"] = Value::Array(env);
            }
            if !ports.is_empty() {
                container["ports"] = Value::Array(ports);
            }
            if let Some((cpu, mem)) = resources {
                container["resources"] = json!({"requests": {"cpu": cpu, "memory": mem}});
            }
            let mut d = json!({
                "apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": name, "namespace": "ns"},
                "spec": {"selector": {"matchLabels": {"app": name}},
                         "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}}}
            });
            if let Some(r) = replicas {
                d["spec"]["replicas"] = json!(r);
            }
            d
        })
}

fn visible(git: &Value, live: &Value, strategy: DiffStrategy) -> usize {
    let key = key_of(git, &ScopeTable::default(), None);
    let opts = CompareOptions {
        strategy,
        ..Default::default()
    };
    compare(&key, git, live, &opts).visible.len()
}

proptest! {
    #[test]
    fn an_object_compared_with_itself_is_synced(d in deployment()) {
        for s in STRATEGIES {
            prop_assert_eq!(visible(&d, &d, s), 0, "{:?}", s);
        }
    }

    #[test]
    fn server_defaults_added_live_never_change_the_verdict(d in deployment()) {
        let mut live = d.clone();
        drift_doctor::k8s::apply_defaults("apps", "Deployment", &mut live);
        for s in STRATEGIES {
            prop_assert_eq!(visible(&d, &live, s), 0, "{:?}: defaults made a difference", s);
        }
    }

    #[test]
    fn a_changed_image_is_always_seen(d in deployment(), tag in "[0-9]\\.[0-9]\\.[0-9]-x") {
        let mut live = d.clone();
        let image = format!("{}:{tag}", d["spec"]["template"]["spec"]["containers"][0]["image"].as_str().unwrap().split(':').next().unwrap());
        live["spec"]["template"]["spec"]["containers"][0]["image"] = json!(image);
        for s in STRATEGIES {
            prop_assert!(visible(&d, &live, s) > 0, "{:?}", s);
        }
    }
}

#[test]
fn every_desired_object_of_the_corpus_and_scenarios_is_synced_with_itself() {
    let mut objects = Vec::new();
    for entry in std::fs::read_dir(common::root().join("tests/corpus/gitops-engine"))
        .unwrap()
        .flatten()
    {
        let p = entry.path();
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if (ext == "yaml" || ext == "json") && name.contains("config") {
            let text = std::fs::read_to_string(&p).unwrap();
            if let Ok(docs) = drift_doctor::input::parse_side(&text, drift_doctor::Side::Live) {
                objects.extend(docs.into_iter().map(|d| d.object));
            }
        }
    }
    for entry in std::fs::read_dir(common::root().join("tests/fixtures/scenarios"))
        .unwrap()
        .flatten()
    {
        let text = std::fs::read_to_string(entry.path().join("git.yaml")).unwrap();
        objects.extend(
            drift_doctor::input::parse_side(&text, drift_doctor::Side::Git)
                .unwrap()
                .into_iter()
                .map(|d| d.object),
        );
    }
    assert!(objects.len() > 40);
    for o in &objects {
        for s in STRATEGIES {
            assert_eq!(
                visible(o, o, s),
                0,
                "{} under {:?}",
                o["metadata"]["name"],
                s
            );
        }
    }
}
