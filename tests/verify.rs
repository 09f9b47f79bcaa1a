//! Proven fixes: every fix says what comparing again with it applied
//! showed, the recommended ones resolve with nothing else hidden, and the
//! plan's Application fragment, read back as settings, leaves only what the
//! plan says is left.

use crate::common;

use drift_doctor::rules::catalog;
use drift_doctor::settings::apply_user_settings;
use drift_doctor::{analyze, Cause, CompareOptions, FixKind, Options, Report, Verified};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeSet;

struct Fixture {
    name: String,
    git: String,
    live: String,
    opts: Options,
}

fn fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    for scenario in common::Scenario::all() {
        let mut opts = scenario.analysis_options();
        opts.compare.include_hidden = false;
        out.push(Fixture {
            name: format!("scenario {}", scenario.name),
            opts,
            git: scenario.git,
            live: scenario.live,
        });
    }
    for rule in catalog().rules.iter().filter(|r| r.retired.is_none()) {
        // Examples read from diff output have no two sides to compare again.
        for (i, ex) in rule
            .examples
            .iter()
            .enumerate()
            .filter(|(_, ex)| ex.diff.is_none())
        {
            out.push(Fixture {
                name: format!("{} example {i}", rule.code),
                git: ex.git.clone(),
                live: ex.live.clone(),
                opts: Options {
                    namespace: ex.namespace.clone(),
                    compare: ex.compare_options(CompareOptions::default()).unwrap(),
                },
            });
        }
    }
    out
}

fn visible(report: &Report) -> BTreeSet<(String, String)> {
    report
        .resources
        .iter()
        .flat_map(|r| {
            r.differences
                .iter()
                .filter(|d| d.visible)
                .map(move |d| (r.id.clone(), d.pointer.clone()))
        })
        .collect()
}

#[test]
fn recommended_fixes_resolve_and_hide_nothing_else() {
    let mut recommended = 0;
    for fx in fixtures() {
        let report = analyze(&fx.git, &fx.live, &fx.opts).unwrap();
        common::assert_valid(&report);
        for r in &report.resources {
            for f in r.fixes.iter().filter(|f| f.recommended) {
                recommended += 1;
                assert_eq!(f.verified, Verified::Resolves, "{}: {}", fx.name, f.title);
                assert!(
                    f.collateral.iter().all(|c| c.form != "application"),
                    "{}: {}",
                    fx.name,
                    f.title
                );
                assert!(f.warning.is_none(), "{}: {}", fx.name, f.title);
                assert_ne!(f.cause, Cause::Drift, "{}: {}", fx.name, f.title);
            }
            // Every fix says how it was checked.
            for f in &r.fixes {
                assert!(
                    !f.verification.is_empty(),
                    "{}: {} unchecked",
                    fx.name,
                    f.title
                );
            }
        }
    }
    assert!(recommended > 50, "only {recommended} recommended fixes");
}

/// What the plan's Application fragment leaves, read back as settings: the
/// drift, the unresolved fields, and the fields of the plan's Git and render
/// steps (changes to Git cannot be read back as settings).
#[test]
fn the_plans_application_fragment_leaves_only_what_the_plan_says() {
    let mut plans = 0;
    for fx in fixtures() {
        let report = analyze(&fx.git, &fx.live, &fx.opts).unwrap();
        if report.plan.is_none() {
            assert_eq!(report.summary.out_of_sync, 0, "{}: no plan", fx.name);
            continue;
        }
        plans += 1;
        if let Err(e) = plan_holds(&fx.git, &fx.live, &fx.opts) {
            panic!("{}: {e}", fx.name);
        }
    }
    assert!(plans > 50, "only {plans} plans");
}

fn scenario(name: &str) -> Report {
    let dir = format!("tests/fixtures/scenarios/{name}");
    analyze(
        &common::read(format!("{dir}/git.yaml")),
        &common::read(format!("{dir}/live.yaml")),
        &Options::default(),
    )
    .unwrap()
}

#[test]
fn an_empty_map_in_git_is_fixed_in_git_not_by_ignoring_the_stamp() {
    let report = scenario("remarshal-empty-template-annotations");
    let fixes: Vec<_> = report.resources.iter().flat_map(|r| &r.fixes).collect();
    let git = fixes
        .iter()
        .find(|f| f.kind == FixKind::Git)
        .expect("a Git fix");
    assert_eq!(git.verified, Verified::Resolves, "{}", git.verification);
    assert!(git.recommended);
    let plan = report.plan.as_ref().unwrap();
    assert_eq!(plan.verified, Verified::Resolves);
    assert!(plan.application.is_empty(), "{}", plan.application);
}

#[test]
fn sync_order_changes_are_unverifiable_and_listed_in_the_plan() {
    let report = scenario("crd-and-cr-same-sync");
    let sync: Vec<_> = report
        .resources
        .iter()
        .flat_map(|r| &r.fixes)
        .filter(|f| f.kind == FixKind::SyncOrder)
        .collect();
    assert!(!sync.is_empty());
    for f in &sync {
        assert_eq!(f.verified, Verified::Unverifiable);
        assert!(!f.recommended);
    }
    let plan = report.plan.as_ref().unwrap();
    assert!(!plan.sync_order.is_empty());
    assert!(
        plan.verification.contains("sync-order"),
        "{}",
        plan.verification
    );
}

#[test]
fn a_git_drop_where_git_has_no_such_field_is_partial() {
    let dir = "tests/fixtures/verify/replicas-only-in-last-applied";
    let report = analyze(
        &common::read(format!("{dir}/git.yaml")),
        &common::read(format!("{dir}/live.yaml")),
        &Options::default(),
    )
    .unwrap();
    common::assert_valid(&report);
    let fixes: Vec<_> = report.resources.iter().flat_map(|r| &r.fixes).collect();
    let drop = fixes
        .iter()
        .find(|f| f.kind == FixKind::Git && f.pointers.iter().any(|p| p == "/spec/replicas"))
        .unwrap_or_else(|| panic!("a Git fix on replicas: {fixes:#?}"));
    assert_eq!(drop.verified, Verified::Partial);
    assert!(
        drop.verification.contains("last-applied"),
        "{}",
        drop.verification
    );
    assert!(!drop.recommended);
}

#[test]
fn an_argocd_cm_rule_on_a_secret_names_every_other_secret_it_covers() {
    let report = scenario("drift-next-to-mutations");
    let tls = report
        .resources
        .iter()
        .find(|r| r.kind == "Secret" && r.fixes.iter().any(|f| f.kind == FixKind::Ignore))
        .expect("an ignored Secret field");
    let f = tls
        .fixes
        .iter()
        .find(|f| f.kind == FixKind::Ignore)
        .unwrap();
    let secrets = report
        .resources
        .iter()
        .filter(|r| r.kind == "Secret")
        .count();
    assert_eq!(f.instance_wide, secrets - 1, "{f:#?}");
    assert!(f
        .collateral
        .iter()
        .filter(|c| c.form == "argocd-cm")
        .all(|c| c.resource.contains("/Secret/") && c.resource != tls.id));
}

/// The plan's promises for one input: recommended fixes resolve with nothing
/// else hidden, and the plan's Application fragment read back as settings
/// leaves only the drift, the unresolved fields and those of Git steps, with
/// every drift still shown. An error message when one does not hold.
fn plan_holds(git: &str, live: &str, opts: &Options) -> Result<(), String> {
    let report = analyze(git, live, opts).map_err(|e| e.to_string())?;
    for r in &report.resources {
        for f in r.fixes.iter().filter(|f| f.recommended) {
            if f.verified != Verified::Resolves || f.cause == Cause::Drift || f.warning.is_some() {
                return Err(format!("{}: recommended {f:?}", r.id));
            }
        }
    }
    let Some(plan) = &report.plan else {
        return Ok(());
    };
    let mut compare = opts.compare.clone();
    if !plan.application.is_empty() {
        apply_user_settings(&plan.application, &mut compare).map_err(|e| e.to_string())?;
    }
    let after = analyze(
        git,
        live,
        &Options {
            compare,
            ..opts.clone()
        },
    )
    .map_err(|e| e.to_string())?;
    let left = visible(&after);
    let mut allowed: BTreeSet<(String, String)> = plan
        .drift
        .iter()
        .chain(&plan.unresolved)
        .map(|f| (f.resource.clone(), f.pointer.clone()))
        .collect();
    for r in &report.resources {
        for f in r
            .fixes
            .iter()
            .filter(|f| f.recommended && f.kind != FixKind::Ignore)
        {
            allowed.extend(f.pointers.iter().map(|p| (r.id.clone(), p.clone())));
        }
    }
    if let Some(extra) = left.difference(&allowed).next() {
        return Err(format!("still differing after the plan: {extra:?}"));
    }
    if let Some(d) = plan
        .drift
        .iter()
        .find(|d| !left.contains(&(d.resource.clone(), d.pointer.clone())))
    {
        return Err(format!(
            "the plan hides drift at {} {}",
            d.resource, d.pointer
        ));
    }
    Ok(())
}

/// A Deployment as Git renders it, and the same object live after any mix
/// of what happens to objects in a cluster: an autoscaler, a rollout
/// restart, an injected sidecar, a hand-edited image or environment value.
fn git_and_live() -> impl Strategy<Value = (String, String)> {
    (
        "[a-z][a-z0-9-]{0,10}",
        1u32..5,
        "[a-z]{1,8}:[0-9]\\.[0-9]",
        proptest::collection::btree_map("[A-Z][A-Z_]{0,5}", "[a-z0-9]{1,5}", 0..3),
        proptest::collection::vec(any::<bool>(), 5),
    )
        .prop_map(|(name, replicas, image, env, change)| {
            let env: Vec<Value> = env.iter().map(|(k, v)| json!({"name": k, "value": v})).collect();
            let mut container = json!({"name": "app", "image": image});
            if !env.is_empty() {
                container["env"] = Value::Array(env);
            }
            let git = json!({
                "apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": name, "namespace": "ns"},
                "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                         "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}}}
            });
            let mut live = git.clone();
            live["metadata"]["annotations"] = json!({
                "kubectl.kubernetes.io/last-applied-configuration": serde_json::to_string(&git).unwrap()
            });
            let mut docs = vec![git.clone()];
            let mut live_docs = Vec::new();
            if change[0] {
                live["spec"]["replicas"] = json!(replicas + 3);
                let hpa = json!({
                    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                    "metadata": {"name": name, "namespace": "ns"},
                    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                             "minReplicas": 1, "maxReplicas": 10}
                });
                docs.push(hpa.clone());
                live_docs.push(hpa);
            }
            if change[1] {
                live["spec"]["template"]["metadata"]["annotations"] =
                    json!({"kubectl.kubernetes.io/restartedAt": "2026-11-30T10:00:00Z"});
            }
            if change[2] {
                let containers = live["spec"]["template"]["spec"]["containers"].as_array_mut().unwrap();
                containers.push(json!({"name": "istio-proxy", "image": "docker.io/istio/proxyv2:1.22.3"}));
                live["spec"]["template"]["metadata"]["labels"]["security.istio.io/tlsMode"] = json!("istio");
            }
            if change[3] {
                live["spec"]["template"]["spec"]["containers"][0]["image"] = json!(format!("{image}-hotfix"));
            }
            if change[4] {
                if let Some(Value::Array(env)) = live["spec"]["template"]["spec"]["containers"][0].get_mut("env") {
                    env[0]["value"] = json!("edited");
                }
            }
            live_docs.insert(0, live);
            let text = |docs: &[Value]| {
                docs.iter()
                    .map(|d| serde_yaml::to_string(d).unwrap())
                    .collect::<Vec<_>>()
                    .join("---\n")
            };
            (text(&docs), text(&live_docs))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_plan_holds_for_generated_objects((git, live) in git_and_live()) {
        let outcome = plan_holds(&git, &live, &Options::default());
        prop_assert!(outcome.is_ok(), "{:?}\n--- git\n{git}\n--- live\n{live}", outcome);
    }
}

/// An argocd-cm rule covers the same field of every object of its kind: each
/// object's rule counts the others it covers and what it hides in them (its
/// own fields not among them), and lists only the first few.
#[test]
fn an_argocd_cm_rule_counts_what_it_hides_in_every_other_object_of_its_kind() {
    let dir = "tests/fixtures/scenarios/autoscaler-hpa-replicas";
    let copies = 14;
    let many = |side: &str| {
        let text = common::read(format!("{dir}/{side}.yaml"));
        (0..copies)
            .map(|i| text.replace("cart", &format!("cart{i}")))
            .collect::<Vec<_>>()
            .join("\n---\n")
    };
    let report = analyze(&many("git"), &many("live"), &Options::default()).unwrap();
    common::assert_valid(&report);
    let scaled: Vec<_> = report
        .resources
        .iter()
        .filter(|r| r.kind == "Deployment")
        .collect();
    assert_eq!(scaled.len(), copies);
    for r in scaled {
        let f = r
            .fixes
            .iter()
            .find(|f| f.kind == FixKind::Ignore && f.pointers.iter().any(|p| p == "/spec/replicas"))
            .unwrap_or_else(|| panic!("{}: an ignore fix on replicas: {:#?}", r.id, r.fixes));
        assert_eq!(f.instance_wide, copies - 1, "{}", r.id);
        assert_eq!(f.instance_wide_hidden, copies - 1, "{}", r.id);
        let listed: Vec<_> = f
            .collateral
            .iter()
            .filter(|c| c.form == "argocd-cm")
            .collect();
        assert_eq!(listed.len(), 10, "{}", r.id);
        assert!(
            listed
                .iter()
                .all(|c| c.resource != r.id && c.pointer == "/spec/replicas"),
            "{}: {listed:#?}",
            r.id
        );
    }
}

/// Through the whole pipeline, over every scenario and rule example: the
/// sync effects the fixes carry include every harm a sync can do, a fix
/// whose sync harms is never recommended, and the plan never lists it as a
/// step of its own: it comes only after the ignore rule that keeps the live
/// values (`later`), saying so, or not at all.
#[test]
fn harmful_syncs_show_on_their_fixes_and_the_plan_orders_around_them() {
    use drift_doctor::SyncEffectKind;
    let mut seen = BTreeSet::new();
    for fx in fixtures() {
        let report = analyze(&fx.git, &fx.live, &fx.opts).unwrap();
        for r in &report.resources {
            for f in &r.fixes {
                for e in &f.sync_effects {
                    seen.insert(format!("{:?}", e.kind));
                    assert!(!e.message.is_empty(), "{}: {}", fx.name, f.title);
                }
                let harms = f.sync_effects.iter().any(|e| e.kind.harms());
                if !harms {
                    continue;
                }
                assert!(
                    !f.recommended,
                    "{}: {} harms yet is recommended",
                    fx.name, f.title
                );
                assert!(
                    f.warning
                        .as_deref()
                        .is_some_and(|w| w.starts_with("Not safe to apply alone")),
                    "{}: {} harms with no warning",
                    fx.name,
                    f.title
                );
                if let Some(plan) = &report.plan {
                    let as_step = plan
                        .git
                        .iter()
                        .chain(&plan.render)
                        .any(|s| s.resource == r.id && s.title == f.title);
                    assert!(!as_step, "{}: the plan applies {} alone", fx.name, f.title);
                    for s in plan
                        .later
                        .iter()
                        .filter(|s| s.resource == r.id && s.title == f.title)
                    {
                        assert!(
                            s.snippet
                                .contains("Only once the ignore rule above is in place"),
                            "{}: {}",
                            fx.name,
                            s.snippet
                        );
                    }
                }
            }
        }
    }
    // The fixtures' fixes reach these effects; tests/sync_effects.rs
    // builds the others (reset to a default, deleted data, a failed sync).
    for kind in [
        SyncEffectKind::CapacityDrop,
        SyncEffectKind::FieldDeleted,
        SyncEffectKind::PodsRestart,
    ] {
        assert!(
            seen.contains(&format!("{kind:?}")),
            "no fixture's fix shows {kind:?}; seen {seen:?}"
        );
    }
}

/// A live object Git lacks requires pruning: its card's fix and the plan's
/// line for it name the same fix (prune it, or add it back to Git), and
/// the plan does not say a plain sync ends it.
#[test]
fn a_live_only_objects_card_and_the_plan_name_one_fix() {
    let cm = |name: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: shop\n  labels:\n    app.kubernetes.io/instance: shop\ndata:\n  k: v\n")
    };
    let git = cm("kept");
    let live = format!("{}---\n{}", cm("kept"), cm("leftover"));
    let report = analyze(&git, &live, &Options::default()).unwrap();
    let resource = report
        .resources
        .iter()
        .find(|r| r.id.ends_with("/leftover"))
        .expect("the live-only object is reported");
    assert_eq!(resource.presence, drift_doctor::Presence::LiveOnly);
    let card_fix = resource
        .fixes
        .iter()
        .find(|f| f.cause == Cause::Drift)
        .expect("the card offers a fix");
    assert!(card_fix.snippet.contains("Prune"), "{}", card_fix.snippet);
    let plan = report.plan.expect("a plan");
    let line = plan
        .drift
        .iter()
        .find(|f| f.resource == resource.id)
        .expect("the plan lists it");
    assert_eq!(line.note, card_fix.snippet);
    assert!(
        plan.verification.contains("a sync with pruning"),
        "{}",
        plan.verification
    );
    // The plan's outcome, as its badge and headings say it, names pruning
    // too; drift on an object Git has still reads as a plain sync.
    assert!(line.needs_pruning);
    assert_eq!(plan.outcome(), "drift left: a sync with pruning ends it");
    let edited = live.replace("k: v\n---", "k: edited\n---");
    let both = analyze(&git, &edited, &Options::default()).unwrap();
    let plan = both.plan.expect("a plan");
    assert!(plan.drift.iter().any(|f| !f.needs_pruning), "{plan:?}");
    assert_eq!(plan.outcome(), "drift left: a sync with pruning ends it");
    let only_edited = analyze(
        &git,
        &cm("kept").replace("k: v", "k: edited"),
        &Options::default(),
    )
    .unwrap()
    .plan
    .expect("a plan");
    assert_eq!(only_edited.outcome(), "drift left: a sync ends it");
}
