//! Safe fixes: what the sync that applies a fix does on the way, one case per
//! effect, the plan's order for an autoscaled workload, and a property over
//! generated objects: no recommended step passes through a state where a
//! field Git does not manage takes its default.

use crate::common;

use drift_doctor::identity::ResourceKey;
use drift_doctor::sync_effects::of_git_change;
use drift_doctor::{analyze, FixKind, Options, SyncEffectKind};
use proptest::prelude::*;
use serde_json::{json, Value};

fn key(group: &str, kind: &str, ns: &str, name: &str) -> ResourceKey {
    ResourceKey {
        group: group.into(),
        kind: kind.into(),
        namespace: ns.into(),
        name: name.into(),
    }
}

/// A live object whose last-applied annotation holds `applied`.
fn live_with(applied: &Value, mut live: Value) -> Value {
    live["metadata"]["annotations"] = json!({
        "kubectl.kubernetes.io/last-applied-configuration": applied.to_string()
    });
    live
}

fn kinds(effects: &[drift_doctor::SyncEffect]) -> Vec<SyncEffectKind> {
    effects.iter().map(|e| e.kind).collect()
}

#[test]
fn a_dropped_field_the_annotation_holds_is_deleted_and_takes_its_default() {
    let k = key("apps", "Deployment", "shop", "cart");
    let git = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "cart", "namespace": "shop"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "cart"}}}});
    let mut new_git = git.clone();
    new_git["spec"].as_object_mut().unwrap().remove("replicas");
    let live = live_with(
        &git,
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "cart", "namespace": "shop"},
        "spec": {"replicas": 7, "selector": {"matchLabels": {"app": "cart"}}}}),
    );
    let effects = of_git_change(&k, &new_git, &live, "argocd-controller");
    assert_eq!(
        kinds(&effects),
        [SyncEffectKind::CapacityDrop],
        "{effects:?}"
    );
    assert!(
        effects[0].message.contains("from 7 to 1 replica"),
        "{}",
        effects[0].message
    );

    // Not in the annotation: the three-way patch leaves the field alone.
    let mut applied = git.clone();
    applied["spec"].as_object_mut().unwrap().remove("replicas");
    let live = live_with(&applied, live.clone());
    assert!(of_git_change(&k, &new_git, &live, "argocd-controller").is_empty());
}

#[test]
fn another_defaulted_field_is_reset_and_a_pod_template_change_rolls_the_pods() {
    let k = key("apps", "Deployment", "shop", "api");
    let git = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "api"}}, "template": {"metadata": {"labels": {"app": "api"}},
        "spec": {"terminationGracePeriodSeconds": 120, "containers": [{"name": "api", "image": "api:1"}]}}}});
    let mut new_git = git.clone();
    new_git["spec"]["template"]["spec"]
        .as_object_mut()
        .unwrap()
        .remove("terminationGracePeriodSeconds");
    let live = live_with(&git, {
        let mut l = git.clone();
        l["metadata"] = json!({"name": "api", "namespace": "shop"});
        l
    });
    let effects = of_git_change(&k, &new_git, &live, "argocd-controller");
    assert_eq!(
        kinds(&effects),
        [SyncEffectKind::ResetToDefault, SyncEffectKind::PodsRestart],
        "{effects:?}"
    );
    assert!(
        effects[0].message.contains("default 30"),
        "{}",
        effects[0].message
    );
}

#[test]
fn a_dropped_data_key_is_deleted_and_a_changed_immutable_field_fails_the_sync() {
    let k = key("", "ConfigMap", "shop", "flags");
    let git = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "flags", "namespace": "shop"},
        "data": {"beta": "on", "theme": "dark"}});
    let mut new_git = git.clone();
    new_git["data"].as_object_mut().unwrap().remove("beta");
    let live = live_with(&git, git.clone());
    let effects = of_git_change(&k, &new_git, &live, "argocd-controller");
    assert_eq!(
        kinds(&effects),
        [SyncEffectKind::DataDeleted],
        "{effects:?}"
    );
    assert!(effects[0].kind.harms());

    let k = key("apps", "Deployment", "shop", "web");
    let live = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}}});
    let new_git = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "web", "tier": "front"}}}});
    let effects = of_git_change(&k, &new_git, &live, "argocd-controller");
    assert_eq!(kinds(&effects), [SyncEffectKind::SyncFails], "{effects:?}");
    assert!(!SyncEffectKind::PodsRestart.harms());
}

/// The autoscaler migration: the plan takes the replica count out of the
/// apply first (the ignore rule with RespectIgnoreDifferences=true) and
/// removes it from Git only after; the Git removal alone is never recommended.
#[test]
fn the_autoscaler_plan_keeps_the_live_replica_count_throughout() {
    for scenario in ["autoscaler-hpa-replicas", "mixed-app"] {
        let dir = format!("tests/fixtures/scenarios/{scenario}");
        let report = analyze(
            &common::read(format!("{dir}/git.yaml")),
            &common::read(format!("{dir}/live.yaml")),
            &Options {
                namespace: Some("shop".into()),
                ..Options::default()
            },
        )
        .unwrap();
        common::assert_valid(&report);
        let r = report
            .resources
            .iter()
            .find(|r| {
                r.differences
                    .iter()
                    .any(|d| d.pointer == "/spec/replicas" && d.visible)
            })
            .unwrap_or_else(|| panic!("{scenario}: an autoscaled workload"));
        let drop = r
            .fixes
            .iter()
            .find(|f| f.kind == FixKind::Git && f.pointers.contains(&"/spec/replicas".to_string()))
            .expect("the Git removal");
        assert!(!drop.recommended, "{scenario}: {drop:?}");
        assert!(
            drop.sync_effects
                .iter()
                .any(|e| e.kind == SyncEffectKind::CapacityDrop),
            "{scenario}: {:?}",
            drop.sync_effects
        );
        let ignore = r
            .fixes
            .iter()
            .find(|f| f.kind == FixKind::Ignore && f.recommended)
            .expect("the ignore rule is recommended");
        assert!(ignore.snippet.contains("RespectIgnoreDifferences=true"));
        let plan = report.plan.as_ref().unwrap();
        assert!(plan.application.contains("/spec/replicas"), "{scenario}");
        assert!(plan.git.iter().all(|s| s.resource != r.id), "{scenario}");
        let later = plan
            .later
            .iter()
            .find(|s| s.resource == r.id)
            .expect("the removal comes later");
        assert!(later
            .snippet
            .contains("Only once the ignore rule above is in place"));
    }
}

fn deployment(
    replicas_git: Option<u64>,
    replicas_live: u64,
    applied_holds: bool,
    hpa: bool,
) -> (String, String) {
    let mut spec = json!({"selector": {"matchLabels": {"app": "svc"}},
        "template": {"metadata": {"labels": {"app": "svc"}}, "spec": {"containers": [{"name": "svc", "image": "svc:1"}]}}});
    if let Some(n) = replicas_git {
        spec["replicas"] = json!(n);
    }
    let git = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "svc", "namespace": "gen"}, "spec": spec});
    let mut applied = git.clone();
    if applied_holds {
        applied["spec"]["replicas"] = json!(replicas_git.unwrap_or(2));
    } else {
        applied["spec"].as_object_mut().unwrap().remove("replicas");
    }
    let mut live = live_with(&applied, git.clone());
    live["metadata"]["name"] = json!("svc");
    live["spec"]["replicas"] = json!(replicas_live);
    let mut git_docs = vec![git.to_string()];
    if hpa {
        git_docs.push(
            json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": "svc", "namespace": "gen"},
                "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "svc"}, "minReplicas": 2, "maxReplicas": 9}})
                .to_string(),
        );
    }
    (git_docs.join("\n---\n"), live.to_string())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn no_recommended_step_resets_a_field_to_its_default(
        git_replicas in proptest::option::of(1u64..5),
        live_replicas in 1u64..12,
        applied_holds in any::<bool>(),
        hpa in any::<bool>(),
    ) {
        let (git, live) = deployment(git_replicas, live_replicas, applied_holds, hpa);
        let report = analyze(&git, &live, &Options::default()).unwrap();
        for r in &report.resources {
            for f in r.fixes.iter().filter(|f| f.recommended) {
                prop_assert!(
                    f.sync_effects.iter().all(|e| !e.kind.harms()),
                    "{}: a recommended fix harms on the way: {:?}", r.id, f.sync_effects
                );
            }
        }
        // Step by step: each recommended Git change, synced on its own over
        // the live object, never deletes a field the API server then defaults.
        let live_obj: Value = serde_json::from_str(&live).unwrap();
        for r in &report.resources {
            for f in r.fixes.iter().filter(|f| f.recommended && f.kind == FixKind::Git) {
                let k = key(&r.group, &r.kind, &r.namespace, &r.name);
                let git_obj: Value = serde_json::from_str(git.split("\n---\n").next().unwrap()).unwrap();
                let mut new_git = git_obj.clone();
                for p in &f.pointers {
                    let segs = drift_doctor::path::parse_pointer(p);
                    drift_doctor::path::set(&mut new_git, &segs, None);
                }
                let effects = of_git_change(&k, &new_git, &live_obj, "argocd-controller");
                prop_assert!(effects.iter().all(|e| !e.kind.harms()), "{effects:?}");
            }
        }
    }
}

/// A webhook's per-pod rewrite (a probe pointed at its agent) gets no Git
/// fix that copies it into Git; a value that is fixed policy data does.
#[test]
fn a_webhooks_probe_rewrite_is_not_copied_into_git() {
    let run = |live_probe: Value, live_image: &str| {
        let git = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.27",
                "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}}}]}}}});
        let mut live = live_with(&git, git.clone());
        live["metadata"]["managedFields"] = json!([{"manager": "argocd-controller", "operation": "Update", "apiVersion": "apps/v1",
            "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {
                "f:image": {}, "f:readinessProbe": {"f:httpGet": {"f:path": {}, "f:port": {}}}}}}}}}}]);
        live["spec"]["template"]["spec"]["containers"][0]["readinessProbe"] = live_probe;
        live["spec"]["template"]["spec"]["containers"][0]["image"] = json!(live_image);
        analyze(&git.to_string(), &live.to_string(), &Options::default()).unwrap()
    };
    let report = run(
        json!({"httpGet": {"path": "/app-health/web/readyz", "port": 15020}}),
        "nginx:1.27",
    );
    let r = &report.resources[0];
    let probe = "/spec/template/spec/containers/0/readinessProbe/httpGet/path";
    let d = r
        .differences
        .iter()
        .find(|d| d.pointer == probe)
        .expect("the probe");
    assert_eq!(d.rule, "WH023", "{}", d.evidence);
    assert!(
        !r.fixes
            .iter()
            .any(|f| f.kind == FixKind::Git && f.pointers.contains(&probe.to_string())),
        "{:?}",
        r.fixes
    );
    assert!(r
        .fixes
        .iter()
        .any(|f| f.kind == FixKind::Ignore && f.pointers.contains(&probe.to_string())));

    let report = run(
        json!({"httpGet": {"path": "/ready", "port": 8080}}),
        "mirror.example.com/library/nginx:1.27",
    );
    let r = &report.resources[0];
    assert!(
        r.fixes.iter().any(|f| f.kind == FixKind::Git
            && f.pointers
                .contains(&"/spec/template/spec/containers/0/image".to_string())),
        "{:?}",
        r.fixes
    );
}

/// Server-side apply removes only what Argo CD's manager owns through
/// `Apply`: a field it owns that way and Git drops is deleted and defaulted;
/// one it wrote with `Update` (client-side apply) stays.
#[test]
fn server_side_apply_deletes_only_what_its_manager_applied() {
    let k = key("apps", "Deployment", "shop", "cart");
    let new_git = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "cart", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "cart"}}}});
    let live = |operation: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "cart", "namespace": "shop", "managedFields": [
                {"manager": "argocd-controller", "operation": operation, "apiVersion": "apps/v1", "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:spec": {"f:replicas": {}, "f:selector": {}}}}]},
            "spec": {"replicas": 5, "selector": {"matchLabels": {"app": "cart"}}}})
    };
    let applied = of_git_change(&k, &new_git, &live("Apply"), "argocd-controller");
    assert_eq!(
        kinds(&applied),
        [SyncEffectKind::CapacityDrop],
        "{applied:?}"
    );
    assert!(of_git_change(&k, &new_git, &live("Update"), "argocd-controller").is_empty());
    // Another manager's Apply is not Argo CD's.
    assert!(of_git_change(&k, &new_git, &live("Apply"), "someone-else").is_empty());
}

// ---------------------------------------------------------------------------
// Ignore fixes: what the syncs after the rule do.
// ---------------------------------------------------------------------------

use drift_doctor::path::parse_pointer;
use drift_doctor::sync_effects::of_ignore_fix;
use drift_doctor::ArgoCdRelease;

#[test]
fn an_ignore_rule_without_respect_still_applies_gits_replicas_on_every_sync() {
    let k = key("apps", "Deployment", "shop", "search");
    let git = json!({"spec": {"replicas": 2}});
    let live = json!({"spec": {"replicas": 9}});
    let ignored = [parse_pointer("/spec/replicas")];
    let effects = of_ignore_fix(
        &k,
        &git,
        &live,
        &ignored,
        false,
        ArgoCdRelease::default(),
        None,
    );
    assert_eq!(
        kinds(&effects),
        [SyncEffectKind::CapacityDrop],
        "{effects:?}"
    );
    assert!(
        effects[0].message.contains("from 9 replicas"),
        "{}",
        effects[0].message
    );
    // With RespectIgnoreDifferences the live count is what the sync sends.
    let effects = of_ignore_fix(
        &k,
        &git,
        &live,
        &ignored,
        true,
        ArgoCdRelease::default(),
        None,
    );
    assert!(effects.is_empty(), "{effects:?}");
    // Git above live: nothing is lost on the way.
    let more = json!({"spec": {"replicas": 12}});
    assert!(of_ignore_fix(
        &k,
        &more,
        &live,
        &ignored,
        false,
        ArgoCdRelease::default(),
        None
    )
    .is_empty());
}

#[test]
fn respecting_ignored_keys_of_a_string_data_secret_deletes_its_data() {
    let k = key("", "Secret", "auth", "session-keys");
    let git = json!({"stringData": {"signing": "abc", "mode": "strict"}});
    let live = json!({"data": {"signing": "eHl6", "mode": "c3RyaWN0"}});
    let one_key = [parse_pointer("/data/signing")];
    let effects = of_ignore_fix(
        &k,
        &git,
        &live,
        &one_key,
        true,
        ArgoCdRelease::default(),
        None,
    );
    assert_eq!(
        kinds(&effects),
        [SyncEffectKind::DataDeleted],
        "{effects:?}"
    );
    assert!(effects[0].message.contains("#29644"));
    // Written with data, or ignored whole, the keys survive.
    let with_data = json!({"data": {"signing": "YWJj", "mode": "c3RyaWN0"}});
    assert!(of_ignore_fix(
        &k,
        &with_data,
        &live,
        &one_key,
        true,
        ArgoCdRelease::default(),
        None
    )
    .is_empty());
    let whole = [parse_pointer("/data")];
    assert!(of_ignore_fix(
        &k,
        &git,
        &live,
        &whole,
        true,
        ArgoCdRelease::default(),
        None
    )
    .is_empty());
}

#[test]
fn respecting_an_ignored_budget_field_clobbers_its_selector_before_3_5() {
    let k = key("policy", "PodDisruptionBudget", "shop", "cart");
    let git = json!({"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "cart"}}}});
    let live = json!({"spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "cart"}}}});
    let ignored = [parse_pointer("/spec/minAvailable")];
    for (release, affected) in [
        ("3.4", true),
        ("3.4.4", true),
        ("3.4.5", false),
        ("3.3.13", false),
        ("2.14", true),
        ("3.5", false),
        ("3.6", false),
    ] {
        let effects = of_ignore_fix(
            &k,
            &git,
            &live,
            &ignored,
            true,
            ArgoCdRelease::parse(release).unwrap(),
            None,
        );
        assert_eq!(!effects.is_empty(), affected, "{release}: {effects:?}");
    }
}

#[test]
fn an_ignore_fix_whose_sync_deletes_data_is_not_recommended() {
    // Git renders a new random signing key on every render (stringData);
    // the cluster holds what the last sync applied.
    let git = r#"
apiVersion: v1
kind: Secret
metadata: {name: session-keys, namespace: auth}
stringData: {signing: Zk4pQ2vR8sLx0TbW}
"#;
    let applied = r#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"session-keys","namespace":"auth"},"stringData":{"signing":"Hq7LmV3cNw9ZpE1s"}}"#;
    let live = format!(
        r#"
apiVersion: v1
kind: Secret
metadata:
  name: session-keys
  namespace: auth
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{applied}'
data: {{signing: SHE3TG1WM2NOdzlacEUxcw==}}
"#
    );
    let report = analyze(git, &live, &Options::default()).unwrap();
    common::assert_valid(&report);
    let r = &report.resources[0];
    let ignore = r
        .fixes
        .iter()
        .find(|f| f.kind == FixKind::Ignore)
        .unwrap_or_else(|| panic!("an ignore fix: {:#?}", r.fixes));
    assert_eq!(ignore.pointers, ["/data/signing"], "{ignore:#?}");
    assert!(
        ignore
            .sync_effects
            .iter()
            .any(|e| e.kind == SyncEffectKind::DataDeleted),
        "{ignore:#?}"
    );
    assert!(!ignore.recommended, "{ignore:#?}");
    assert!(ignore
        .warning
        .as_deref()
        .is_some_and(|w| w.contains("#29644")));
}

/// A custom resource whose ignored field sits inside a list: under
/// RespectIgnoreDifferences=true Argo CD's JSON merge patch copies the
/// whole list from live (argo-cd `controller/sync.go`; schema-driven merges
/// only in 3.2.0, PR #24197, and from 3.6, PR #28220).
fn pipeline_steps(second_image: &str, timeout: u32) -> serde_json::Value {
    json!({"apiVersion": "ci.example.org/v1", "kind": "Pipeline",
    "metadata": {"name": "nightly", "namespace": "builds"},
    "spec": {"steps": [
        {"name": "fetch", "image": "git:2", "timeout": timeout},
        {"name": "build", "image": second_image, "timeout": 600}
    ]}})
}

fn keyed_steps_crd(keyed: bool) -> drift_doctor::context::CrdDefinition {
    let mut steps = json!({"type": "array", "items": {"type": "object"}});
    if keyed {
        steps["x-kubernetes-list-map-keys"] = json!(["name"]);
        steps["x-kubernetes-list-type"] = json!("map");
    }
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "pipelines.ci.example.org"},
        "spec": {"group": "ci.example.org", "names": {"kind": "Pipeline"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"steps": steps}}}}}}]}});
    drift_doctor::context::CrdDefinition::from_object(&crd).unwrap()
}

#[test]
fn respecting_a_field_inside_a_custom_resource_list_copies_the_list_whole() {
    let k = key("ci.example.org", "Pipeline", "builds", "nightly");
    // A controller raised the first step's timeout; Git only differs there.
    let live = pipeline_steps("builder:1", 900);
    let git = pipeline_steps("builder:1", 300);
    let ignored = [parse_pointer("/spec/steps/0/timeout")];
    let on = |release: &str, git: &serde_json::Value| {
        of_ignore_fix(
            &k,
            git,
            &live,
            &ignored,
            true,
            ArgoCdRelease::parse(release).unwrap(),
            None,
        )
    };
    let effects = on("3.4", &git);
    assert_eq!(
        kinds(&effects),
        [SyncEffectKind::ListCopiedWhole],
        "{effects:?}"
    );
    assert_eq!(effects[0].pointer, "/spec/steps");
    assert!(
        effects[0].message.contains("spec.steps"),
        "{}",
        effects[0].message
    );
    assert!(!SyncEffectKind::ListCopiedWhole.harms());
    // Git also moves the second step to a new image: that change is held back.
    let moved = pipeline_steps("builder:2", 300);
    let effects = on("3.4", &moved);
    assert_eq!(
        kinds(&effects),
        [SyncEffectKind::GitChangesHeld],
        "{effects:?}"
    );
    assert!(SyncEffectKind::GitChangesHeld.harms());
    assert!(effects[0].message.contains("never reach the cluster"));
    // 3.2.0 merged keyed lists; 3.2.1 reverted it; the bare 3.2 line cannot tell.
    assert!(on("3.2.0", &moved)
        .iter()
        .all(|e| e.kind == SyncEffectKind::ListCopiedWhole));
    assert_eq!(
        kinds(&on("3.2.1", &moved)),
        [SyncEffectKind::GitChangesHeld]
    );
    assert!(on("3.2", &moved)[0].message.contains("after 3.2.0"));
    // Without RespectIgnoreDifferences nothing is copied from live.
    assert!(of_ignore_fix(
        &k,
        &moved,
        &live,
        &ignored,
        false,
        ArgoCdRelease::parse("3.4").unwrap(),
        None
    )
    .is_empty());
    // A built-in kind is patched strategically: no whole-list copy.
    let deploy = key("apps", "Deployment", "builds", "nightly");
    assert!(of_ignore_fix(
        &deploy,
        &moved,
        &live,
        &ignored,
        true,
        ArgoCdRelease::parse("3.4").unwrap(),
        None
    )
    .is_empty());
}

#[test]
fn from_3_6_a_list_its_crd_keys_is_merged_item_by_item() {
    let k = key("ci.example.org", "Pipeline", "builds", "nightly");
    let live = pipeline_steps("builder:1", 900);
    let moved = pipeline_steps("builder:2", 300);
    let ignored = [parse_pointer("/spec/steps/0/timeout")];
    let keyed = keyed_steps_crd(true);
    let plain = keyed_steps_crd(false);
    let with = |release: &str, crd: Option<&drift_doctor::context::CrdDefinition>| {
        of_ignore_fix(
            &k,
            &moved,
            &live,
            &ignored,
            true,
            ArgoCdRelease::parse(release).unwrap(),
            crd.and_then(|c| c.version("v1")),
        )
    };
    assert!(with("3.6", Some(&keyed)).is_empty());
    assert!(with("3.2.0", Some(&keyed)).is_empty());
    // Before 3.6 (but 3.2.0) the schema is not read: the list is copied whole.
    assert_eq!(
        kinds(&with("3.5", Some(&keyed))),
        [SyncEffectKind::GitChangesHeld]
    );
    // A list the schema does not key is replaced whole by the strategic merge too.
    assert_eq!(
        kinds(&with("3.6", Some(&plain))),
        [SyncEffectKind::GitChangesHeld]
    );
    // Without the CRD in the input the outcome is stated with its condition.
    let unknown = with("3.6", None);
    assert_eq!(kinds(&unknown), [SyncEffectKind::ListCopiedWhole]);
    assert!(
        unknown[0]
            .message
            .starts_with("Unless the CRD keys the list"),
        "{}",
        unknown[0].message
    );
}

/// The whole pipeline: a program rewrites a field inside a custom
/// resource's list; its ignore fix with RespectIgnoreDifferences=true says
/// the list is copied whole, on a release that copies it, and not from 3.6
/// when the CRD in the input keys the list.
#[test]
fn an_ignore_fix_inside_a_custom_resource_list_states_the_whole_list_copy() {
    let git = r#"
apiVersion: queue.example.net/v2
kind: Topology
metadata: {name: orders, namespace: mq}
spec:
  routes:
  - {name: inbound, weight: 50}
  - {name: retry, weight: 10}
"#;
    let live = r#"
apiVersion: queue.example.net/v2
kind: Topology
metadata:
  name: orders
  namespace: mq
  managedFields:
  - manager: argocd-controller
    operation: Update
    apiVersion: queue.example.net/v2
    time: "2026-11-30T06:00:00Z"
    fieldsType: FieldsV1
    fieldsV1: {f:spec: {f:routes: {}}}
  - manager: route-balancer
    operation: Update
    apiVersion: queue.example.net/v2
    time: "2026-11-30T06:05:00Z"
    fieldsType: FieldsV1
    fieldsV1: {f:spec: {f:routes: {}}}
spec:
  routes:
  - {name: inbound, weight: 70}
  - {name: retry, weight: 10}
"#;
    let crd = r#"
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: topologies.queue.example.net}
spec:
  group: queue.example.net
  names: {kind: Topology, plural: topologies}
  scope: Namespaced
  versions:
  - name: v2
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              routes:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items: {type: object}
"#;
    let ignore_fix_effects = |git: &str, live: &str, release: &str| {
        let mut opts = Options::default();
        opts.compare.release = ArgoCdRelease::parse(release).unwrap();
        let report = analyze(git, live, &opts).unwrap();
        common::assert_valid(&report);
        let r = report
            .resources
            .iter()
            .find(|r| r.id.contains("Topology"))
            .unwrap();
        let fix = r
            .fixes
            .iter()
            .find(|f| f.kind == FixKind::Ignore)
            .unwrap_or_else(|| panic!("an ignore fix: {:#?}", r.fixes));
        assert!(fix.ignore.as_ref().is_some_and(|i| i.respect), "{fix:#?}");
        kinds(&fix.sync_effects)
    };
    assert_eq!(
        ignore_fix_effects(git, live, "3.4"),
        [SyncEffectKind::ListCopiedWhole]
    );
    let with_crd = |side: &str| format!("{side}{crd}");
    assert!(ignore_fix_effects(&with_crd(git), &with_crd(live), "3.6").is_empty());
    assert_eq!(
        ignore_fix_effects(&with_crd(git), &with_crd(live), "3.5"),
        [SyncEffectKind::ListCopiedWhole]
    );
}

/// Before 3.3.12, 3.4.4 and 3.5.0 RespectIgnoreDifferences copied the live
/// status into the applied object (argo-cd PR #28201): on a kind without a
/// status subresource applied server-side, Argo CD then owns the status.
#[test]
fn respecting_an_ignored_field_of_an_application_applied_server_side_froze_its_status() {
    let k = key("argoproj.io", "Application", "argocd", "payments");
    let git = json!({"spec": {"source": {"targetRevision": "main"}}});
    let live = json!({
        "metadata": {"managedFields": [{"manager": "argocd-controller", "operation": "Apply",
            "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:source": {"f:targetRevision": {}}}}}]},
        "spec": {"source": {"targetRevision": "release-7"}},
        "status": {"operationState": {"phase": "Running"}}
    });
    let ignored = [parse_pointer("/spec/source/targetRevision")];
    let on = |release: &str, live: &serde_json::Value| {
        kinds(&of_ignore_fix(
            &k,
            &git,
            live,
            &ignored,
            true,
            ArgoCdRelease::parse(release).unwrap(),
            None,
        ))
    };
    assert_eq!(on("3.4.3", &live), [SyncEffectKind::StatusFrozen]);
    assert_eq!(on("3.4", &live), [SyncEffectKind::StatusFrozen]);
    assert!(on("3.4.4", &live).is_empty());
    assert!(on("3.3.12", &live).is_empty());
    assert!(SyncEffectKind::StatusFrozen.harms());
    // Applied client-side, Argo CD's manager takes no status of its own.
    let mut client_side = live.clone();
    client_side["metadata"]["managedFields"][0]["operation"] = json!("Update");
    assert!(on("3.4.3", &client_side).is_empty());
    // A built-in kind's status has its own subresource.
    let deploy = key("apps", "Deployment", "argocd", "payments");
    assert!(of_ignore_fix(
        &deploy,
        &git,
        &live,
        &ignored,
        true,
        ArgoCdRelease::parse("3.4.3").unwrap(),
        None
    )
    .is_empty());
}
