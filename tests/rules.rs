//! The knowledge base: every rule's own examples classify to that rule,
//! the data is well formed, and the generated catalogue is up to date.

use crate::common;

use drift_doctor::compare::IgnoreStatus;
use drift_doctor::rules::{catalog, docs, predicates};
use drift_doctor::{analyze, CompareOptions, Options, Strategy};

/// Every rule's examples classify to that rule; their evidence sentences and
/// fix titles are snapshotted (`rule_examples`), and none of them, nor any
/// fix's snippet, keeps an unfilled `{variable}`.
#[test]
fn every_rule_example_classifies_to_its_rule() {
    let catalog = catalog();
    let mut failures = Vec::new();
    let mut sentences = String::new();
    for rule in catalog.rules.iter().filter(|r| r.retired.is_none()) {
        for (i, ex) in rule.examples.iter().enumerate() {
            let compare = ex.compare_options(CompareOptions {
                include_hidden: true,
                ..Default::default()
            });
            let compare = match compare {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{} example {i}: settings error: {e}", rule.code));
                    continue;
                }
            };
            let opts = Options {
                namespace: ex.namespace.clone(),
                compare,
            };
            let evidence = drift_doctor::Evidence {
                git_again: ex.git_again.as_deref(),
                ..Default::default()
            };
            let analysed = match &ex.diff {
                Some(text) => drift_doctor::analyze_diff_with(text, &opts, evidence),
                None => drift_doctor::analyze_with(&ex.git, &ex.live, &opts, evidence),
            };
            let report = match analysed {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{} example {i}: input error: {e}", rule.code));
                    continue;
                }
            };
            common::assert_valid(&report);
            common::assert_invariants(&report);
            let found = report
                .resources
                .iter()
                .filter(|r| r.id == ex.id)
                .flat_map(|r| &r.differences)
                .find(|d| d.pointer == ex.pointer);
            match found {
                Some(d) if d.rule == rule.code => {
                    sentences.push_str(&format!("{} example {i}: {}\n", rule.code, d.evidence));
                    let fixes = report
                        .resources
                        .iter()
                        .filter(|r| r.id == ex.id)
                        .flat_map(|r| &r.fixes)
                        .filter(|f| f.pointers.is_empty() || f.pointers.contains(&d.pointer));
                    for f in fixes {
                        sentences.push_str(&format!("  fix: {}\n", f.title));
                        for text in [&d.evidence, &f.title, &f.snippet] {
                            if let Some(var) = unfilled_variable(text) {
                                failures.push(format!(
                                    "{} example {i}: `{var}` is left unfilled in {text:?}",
                                    rule.code
                                ));
                            }
                        }
                    }
                    if let Some(var) = unfilled_variable(&d.evidence) {
                        failures.push(format!(
                            "{} example {i}: `{var}` is left unfilled in {:?}",
                            rule.code, d.evidence
                        ));
                    }
                }
                Some(d) => failures.push(format!(
                    "{} example {i}: {} {} went to {} ({})",
                    rule.code, ex.id, ex.pointer, d.rule, d.evidence
                )),
                None => failures.push(format!(
                    "{} example {i}: no difference at {} {}",
                    rule.code, ex.id, ex.pointer
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    insta::assert_snapshot!("rule_examples", sentences);
}

/// A `{name}` template variable nobody filled (JSON objects and YAML's `{}`
/// do not count: a variable is a lowercase word between braces).
fn unfilled_variable(text: &str) -> Option<&str> {
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        let after = &rest[start + 1..];
        let end = after.find('}')?;
        let word = &after[..end];
        if !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            return Some(word);
        }
        rest = after;
    }
    None
}

#[test]
fn an_unfilled_variable_is_found_and_json_is_not_taken_for_one() {
    assert_eq!(
        unfilled_variable("written by {writer} at noon"),
        Some("writer")
    );
    assert_eq!(
        unfilled_variable(r#"{"name":"web"} and annotations: {}"#),
        None
    );
}

#[test]
fn example_settings_are_applied() {
    // CR024's example needs its argocd-cm: with Argo CD's default,
    // ignoreResourceStatusField: all, the status it shows is not counted.
    let rule = catalog().get("CR024").expect("CR024");
    let ex = &rule.examples[0];
    assert!(
        ex.settings.is_some(),
        "CR024's example carries its settings"
    );
    let visible = |compare: CompareOptions| {
        let opts = Options {
            namespace: ex.namespace.clone(),
            compare: CompareOptions {
                include_hidden: true,
                ..compare
            },
        };
        let report = analyze(&ex.git, &ex.live, &opts).unwrap();
        report
            .resources
            .iter()
            .filter(|r| r.id == ex.id)
            .flat_map(|r| &r.differences)
            .find(|d| d.pointer == ex.pointer)
            .map(|d| d.visible)
    };
    let with = ex.compare_options(CompareOptions::default()).unwrap();
    assert_eq!(with.ignore_resource_status_field, IgnoreStatus::None);
    assert_eq!(visible(with), Some(true));
    assert_eq!(visible(CompareOptions::default()), Some(false));
}

/// With ignoreResourceStatusField none or crd, status Git declares is
/// counted; it is the cluster's, so it is never explained as drift.
#[test]
fn status_compared_by_user_settings_is_never_drift() {
    let git = common::read("tests/fixtures/settings/status-git.yaml");
    let live = common::read("tests/fixtures/settings/status-live.yaml");
    let mut counted_by_mode = Vec::new();
    for mode in [IgnoreStatus::None, IgnoreStatus::Crd, IgnoreStatus::All] {
        let opts = Options {
            compare: CompareOptions {
                ignore_resource_status_field: mode,
                include_hidden: true,
                ..Default::default()
            },
            ..Default::default()
        };
        let report = analyze(&git, &live, &opts).unwrap();
        common::assert_invariants(&report);
        let mut counted = 0;
        for r in &report.resources {
            for d in r
                .differences
                .iter()
                .filter(|d| d.pointer.starts_with("/status"))
            {
                assert_eq!(
                    (d.rule.as_str(), d.cause),
                    ("CR024", drift_doctor::Cause::ControllerRewrite),
                    "{} {} {} ({})",
                    mode.id(),
                    r.id,
                    d.pointer,
                    d.evidence
                );
                if !d.visible {
                    continue;
                }
                counted += 1;
                assert!(
                    d.evidence.contains("ignoreResourceStatusField"),
                    "{}",
                    d.evidence
                );
                let ignore = r
                    .fixes
                    .iter()
                    .find(|f| f.kind == drift_doctor::FixKind::Ignore)
                    .unwrap_or_else(|| panic!("{} {}: no ignore fix", r.id, d.pointer));
                assert!(ignore.snippet.contains("- /status\n"), "{}", ignore.snippet);
                assert!(r.fixes.iter().any(|f| f.kind == drift_doctor::FixKind::Git
                    && f.snippet.contains("ignoreResourceStatusField: all")));
            }
        }
        counted_by_mode.push(counted);
    }
    // none counts the CRD's and the Widget's declared status, crd only the
    // Widget's, all nothing.
    let [none, crd, all] = counted_by_mode[..] else {
        unreachable!()
    };
    assert!(none > crd && crd > 0 && all == 0, "{counted_by_mode:?}");
}

#[test]
fn every_active_rule_except_the_fallback_has_an_example() {
    let catalog = catalog();
    let missing: Vec<&str> = catalog
        .rules
        .iter()
        .filter(|r| r.retired.is_none() && r.code != "DR000" && r.examples.is_empty())
        .map(|r| r.code.as_str())
        .collect();
    assert!(missing.is_empty(), "rules without an example: {missing:?}");
}

/// A rule matches a mechanism, not the names of its first example: every
/// rule has a second example whose resource has another name or namespace.
#[test]
fn every_active_rule_has_a_second_example_with_other_names() {
    let catalog = catalog();
    let mut short = Vec::new();
    for r in catalog
        .rules
        .iter()
        .filter(|r| r.retired.is_none() && r.code != "DR000")
    {
        let names: std::collections::BTreeSet<String> = r
            .examples
            .iter()
            .map(|ex| {
                // group/Kind/namespace/name: what a rule could wrongly key on
                let mut parts = ex.id.rsplitn(3, '/');
                let name = parts.next().unwrap_or_default();
                let ns = parts.next().unwrap_or_default();
                format!("{ns}/{name}")
            })
            .collect();
        if r.examples.len() < 2 || names.len() < 2 {
            short.push(r.code.as_str());
        }
    }
    assert!(
        short.is_empty(),
        "rules without a second example under other names: {short:?}"
    );
}

#[test]
fn codes_are_unique_and_prefixed_by_cause() {
    let catalog = catalog();
    let mut seen = std::collections::BTreeSet::new();
    for r in &catalog.rules {
        assert!(seen.insert(r.code.clone()), "duplicate code {}", r.code);
        let prefix = r.cause.code_prefix();
        assert!(
            r.code.starts_with(prefix),
            "{} has cause {} but not the prefix {prefix}",
            r.code,
            r.cause.id()
        );
        if r.cause == drift_doctor::Cause::Drift {
            assert!(
                r.fix.ignore.is_none(),
                "{}: drift rules never carry an ignore fix",
                r.code
            );
        }
        for section in [
            &r.docs.meaning,
            &r.docs.who,
            &r.docs.why_loops,
            &r.docs.git_fix,
            &r.docs.ignore,
            &r.docs.risk,
        ] {
            assert!(
                section.trim().len() > 10,
                "{}: every docs section needs real text",
                r.code
            );
        }
    }
}

#[test]
fn every_named_predicate_is_used_by_some_rule() {
    let catalog = catalog();
    for (name, _) in predicates::PREDICATES {
        let used = catalog.rules.iter().any(|r| {
            r.matcher
                .when
                .iter()
                .chain(&r.matcher.unless)
                .any(|p| p == name)
        });
        assert!(used, "predicate `{name}` is not used by any rule");
    }
}

#[test]
fn the_generated_catalogue_is_up_to_date() {
    let generated = docs::catalogue_markdown(catalog());
    let committed =
        std::fs::read_to_string(common::root().join("docs/rules.md")).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/rules.md is stale: run `cargo run -- rules --markdown > docs/rules.md`"
    );
}

// ---------------------------------------------------------------------------
// Drift safety: no ignore fix is ever offered for real drift or for a
// security-relevant field, in any fixture this repository holds.
// ---------------------------------------------------------------------------

/// One Git/live input pair with the options it is analysed with.
struct Fixture {
    name: String,
    git: String,
    live: String,
    opts: Options,
}

/// Every scenario under each strategy (its own release and options), with
/// the differences Argo CD hides.
fn scenario_fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    for scenario in common::Scenario::all() {
        for strategy in [
            Strategy::Legacy,
            Strategy::ServerSideApply,
            Strategy::ServerSideDiff,
        ] {
            let mut opts = scenario.options_with(strategy);
            opts.compare.include_hidden = true;
            out.push(Fixture {
                name: format!("scenario {} ({})", scenario.name, strategy.id()),
                git: scenario.git.clone(),
                live: scenario.live.clone(),
                opts,
            });
        }
    }
    out
}

fn example_fixtures() -> Vec<Fixture> {
    let catalog = catalog();
    let mut out = Vec::new();
    for rule in catalog.rules.iter().filter(|r| r.retired.is_none()) {
        // Examples read from diff output have no two sides to compare.
        for (i, ex) in rule
            .examples
            .iter()
            .enumerate()
            .filter(|(_, ex)| ex.diff.is_none())
        {
            for strategy in [
                Strategy::Legacy,
                Strategy::ServerSideApply,
                Strategy::ServerSideDiff,
            ] {
                let name = format!("{} example {i} ({})", rule.code, strategy.id());
                let compare = ex
                    .compare_options(CompareOptions {
                        strategy,
                        include_hidden: true,
                        ..Default::default()
                    })
                    .unwrap_or_else(|e| panic!("{name}: settings error: {e}"));
                out.push(Fixture {
                    name,
                    git: ex.git.clone(),
                    live: ex.live.clone(),
                    opts: Options {
                        namespace: ex.namespace.clone(),
                        compare,
                    },
                });
            }
        }
    }
    out
}

/// The status fixtures of tests/settings.rs under the settings that make
/// Argo CD compare `status`.
fn settings_fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    for mode in [IgnoreStatus::Crd, IgnoreStatus::None] {
        for strategy in [
            Strategy::Legacy,
            Strategy::ServerSideApply,
            Strategy::ServerSideDiff,
        ] {
            out.push(Fixture {
                name: format!(
                    "settings status (ignoreResourceStatusField: {}, {})",
                    mode.id(),
                    strategy.id()
                ),
                git: common::read("tests/fixtures/settings/status-git.yaml"),
                live: common::read("tests/fixtures/settings/status-live.yaml"),
                opts: Options {
                    compare: CompareOptions {
                        strategy,
                        ignore_resource_status_field: mode,
                        include_hidden: true,
                        ..Default::default()
                    },
                    ..Default::default()
                },
            });
        }
    }
    out
}

fn corpus_fixtures() -> Vec<Fixture> {
    let dir = "tests/corpus/gitops-engine";
    let cases: serde_json::Value =
        serde_json::from_str(&common::read(format!("{dir}/cases.json"))).unwrap();
    let mut out = Vec::new();
    for case in cases.as_array().unwrap() {
        let (Some(config), Some(live)) = (case["config"].as_str(), case["live"].as_str()) else {
            continue;
        };
        out.push(Fixture {
            name: format!("corpus {}", case["id"].as_str().unwrap_or("?")),
            git: common::read(format!("{dir}/{config}")),
            live: common::read(format!("{dir}/{live}")),
            opts: Options {
                namespace: Some("default".into()),
                compare: CompareOptions {
                    include_hidden: true,
                    ..Default::default()
                },
            },
        });
    }
    out
}

/// The jsonPointers and jq expressions an ignore snippet names.
fn ignored_paths(snippet: &str) -> (Vec<String>, Vec<String>) {
    let (mut pointers, mut jqs) = (Vec::new(), Vec::new());
    for line in snippet.lines().map(str::trim) {
        if let Some(p) = line.strip_prefix("- /") {
            pointers.push(format!("/{p}"));
        } else if let Some(q) = line.strip_prefix("- '").and_then(|q| q.strip_suffix('\'')) {
            jqs.push(q.replace("''", "'"));
        }
    }
    (pointers, jqs)
}

fn covers_pointer(ignored: &str, pointer: &str) -> bool {
    pointer == ignored || pointer.starts_with(&format!("{ignored}/")) || ignored.is_empty()
}

fn covers_jq(ignored: &str, jq: &str) -> bool {
    jq == ignored
        || jq
            .strip_prefix(ignored)
            .is_some_and(|rest| rest.starts_with(['.', '[', ' ', '|']))
}

#[test]
fn no_ignore_fix_covers_drift_or_a_security_relevant_field() {
    let fixtures: Vec<Fixture> = scenario_fixtures()
        .into_iter()
        .chain(example_fixtures())
        .chain(settings_fixtures())
        .chain(corpus_fixtures())
        .collect();
    assert!(
        fixtures.len() > 300,
        "expected scenarios, rule examples and the corpus, got {}",
        fixtures.len()
    );
    let mut failures = Vec::new();
    let mut drift_findings = 0;
    for fx in &fixtures {
        let report = match analyze(&fx.git, &fx.live, &fx.opts) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{}: input error: {e}", fx.name));
                continue;
            }
        };
        common::assert_invariants(&report);
        for r in &report.resources {
            let key = drift_doctor::identity::ResourceKey {
                group: r.group.clone(),
                kind: r.kind.clone(),
                namespace: r.namespace.clone(),
                name: r.name.clone(),
            };
            let ignores: Vec<&drift_doctor::Fix> = r
                .fixes
                .iter()
                .filter(|f| f.kind == drift_doctor::FixKind::Ignore)
                .collect();
            for f in &ignores {
                if f.cause == drift_doctor::Cause::Drift {
                    failures.push(format!(
                        "{}: {} has an ignore fix with cause drift",
                        fx.name, r.id
                    ));
                }
                for p in &f.pointers {
                    if drift_doctor::fixes::is_sensitive(&key, p) {
                        failures.push(format!(
                            "{}: {} ignore fix covers security-relevant {p}",
                            fx.name, r.id
                        ));
                    }
                }
            }
            for d in &r.differences {
                if d.cause != drift_doctor::Cause::Drift {
                    continue;
                }
                drift_findings += 1;
                let jq = drift_doctor::path::jq_with(&d.segs, true);
                for f in &ignores {
                    let (pointers, jqs) = ignored_paths(&f.snippet);
                    let hit = f.pointers.contains(&d.pointer)
                        || pointers.iter().any(|p| covers_pointer(p, &d.pointer))
                        || jqs.iter().any(|q| covers_jq(q, &jq));
                    if hit {
                        failures.push(format!(
                            "{}: {} drift at {} ({}) is covered by the ignore fix `{}`",
                            fx.name, r.id, d.pointer, d.rule, f.title
                        ));
                    }
                }
            }
        }
    }
    assert!(
        drift_findings > 50,
        "the fixtures should hold real drift to check, found {drift_findings}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Genuine drift that sits next to a rule's evidence must stay drift: each
/// case is a near miss of a non-drift rule.
#[test]
fn near_misses_of_specific_rules_stay_drift() {
    struct Case {
        what: &'static str,
        git: String,
        live: String,
        id: &'static str,
        pointer: &'static str,
    }
    let deployment = |annotations: &str, container: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: shop{annotations}}}\nspec:\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n      containers:\n      - {container}\n"
        )
    };
    let cases = vec![
        Case {
            what: "a random-looking password rotated by hand in a Secret no chart renders",
            git: "apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: shop}\ndata: {password: dUg4cVp0NFdyMnhMOXBLbQ==}\n".into(),
            live: "apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: shop}\ndata: {password: UTNuVjd5Qm0xVGs1WmNSYQ==}\n".into(),
            id: "/Secret/shop/db",
            pointer: "/data/password",
        },
        Case {
            what: "a date moved back by hand in a Helm ConfigMap",
            git: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: window, namespace: shop, labels: {helm.sh/chart: shop-1.0.0}}\ndata: {maintenance: \"2026-12-05T02:00:00Z\"}\n".into(),
            live: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: window, namespace: shop, labels: {helm.sh/chart: shop-1.0.0}}\ndata: {maintenance: \"2026-12-12T02:00:00Z\"}\n".into(),
            id: "/ConfigMap/shop/window",
            pointer: "/data/maintenance",
        },
        Case {
            what: "replicas scaled with kubectl while no autoscaler exists",
            git: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: \"shop/web:2.0.0\"}]}\n".into(),
            live: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  managedFields:\n  - {manager: kubectl, operation: Update, subresource: scale, apiVersion: apps/v1, fieldsType: FieldsV1, fieldsV1: {f:spec: {f:replicas: {}}}}\nspec:\n  replicas: 0\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: \"shop/web:2.0.0\"}]}\n".into(),
            id: "apps/Deployment/shop/web",
            pointer: "/spec/replicas",
        },
        Case {
            what: "an image changed by hand next to an injected Istio sidecar",
            git: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: \"shop/web:2.0.0\"}]}\n".into(),
            live: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}, annotations: {sidecar.istio.io/status: '{}'}}\n    spec: {containers: [{name: web, image: \"shop/web:2.0.1-debug\"}, {name: istio-proxy, image: \"istio/proxyv2:1.22.1\"}]}\n".into(),
            id: "apps/Deployment/shop/web",
            pointer: "/spec/template/spec/containers/0/image",
        },
        Case {
            what: "a resource limit changed by hand on an Autopilot cluster (not Autopilot's value)",
            git: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: \"shop/web:2.0.0\", resources: {limits: {memory: 512Mi}}}]}\n".into(),
            live: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop, annotations: {autopilot.gke.io/resource-adjustment: '{\"output\":{\"containers\":[{\"limits\":{\"memory\":\"512Mi\"},\"name\":\"web\"}]}}'}}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: \"shop/web:2.0.0\", resources: {limits: {memory: 3Gi}}}]}\n".into(),
            id: "apps/Deployment/shop/web",
            pointer: "/spec/template/spec/containers/0/resources/limits/memory",
        },
        Case {
            what: "a field Kyverno did not patch on an object Kyverno mutated",
            git: deployment("", "{name: web, image: \"shop/web:2.0.0\", env: [{name: MODE, value: safe}]}"),
            live: deployment(
                    ", annotations: {policies.kyverno.io/last-applied-patches: 'add-labels.add-team.kyverno.io: added /metadata/labels/team'}",
                    "{name: web, image: \"shop/web:2.0.0\", env: [{name: MODE, value: unsafe}]}",
                ),
            id: "apps/Deployment/shop/web",
            pointer: "/spec/template/spec/containers/0/env/0/value",
        },
        Case {
            what: "Istio's webhook weakened from Fail to Ignore",
            git: "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: istiod-default-validator, labels: {app: istiod}}\nwebhooks:\n- {name: validation.istio.io, clientConfig: {service: {name: istiod, namespace: istio-system}}, failurePolicy: Fail, admissionReviewVersions: [v1], sideEffects: None}\n".into(),
            live: "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: istiod-default-validator, labels: {app: istiod}}\nwebhooks:\n- {name: validation.istio.io, clientConfig: {service: {name: istiod, namespace: istio-system}}, failurePolicy: Ignore, admissionReviewVersions: [v1], sideEffects: None}\n".into(),
            id: "admissionregistration.k8s.io/ValidatingWebhookConfiguration//istiod-default-validator",
            pointer: "/webhooks/0/failurePolicy",
        },
        Case {
            what: "HPA metrics changed, not merely reordered",
            git: "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 5\n  metrics:\n  - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}}\n  - {type: Resource, resource: {name: memory, target: {type: Utilization, averageUtilization: 80}}}\n".into(),
            live: "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 5\n  metrics:\n  - {type: Resource, resource: {name: memory, target: {type: Utilization, averageUtilization: 95}}}\n  - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}}\n".into(),
            id: "autoscaling/HorizontalPodAutoscaler/shop/web",
            pointer: "/spec/metrics/0/resource/name",
        },
        Case {
            what: "a pull secret added by hand to a ServiceAccount",
            git: "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: web, namespace: shop}\nimagePullSecrets: [{name: registry}]\n".into(),
            live: "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: web, namespace: shop}\nimagePullSecrets: [{name: registry}, {name: personal-registry}]\n".into(),
            id: "/ServiceAccount/shop/web",
            pointer: "/imagePullSecrets/1",
        },
        Case {
            what: "an env var that looks like an injector's but without the injector",
            git: deployment("", "{name: web, image: \"shop/web:2.0.0\", env: [{name: MODE, value: safe}]}"),
            live: deployment("", "{name: web, image: \"shop/web:2.0.0\", env: [{name: MODE, value: safe}, {name: AWS_REGION, value: us-east-1}]}"),
            id: "apps/Deployment/shop/web",
            pointer: "/spec/template/spec/containers/0/env/1",
        },
        Case {
            what: "a privileged flag set by a policy engine is still never ignored",
            git: deployment("", "{name: web, image: \"shop/web:2.0.0\", securityContext: {privileged: false}}"),
            live: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  managedFields:\n  - {manager: kubectl-patch, operation: Update, apiVersion: apps/v1, fieldsType: FieldsV1, fieldsV1: {f:spec: {f:template: {f:spec: {f:containers: {'k:{\"name\":\"web\"}': {f:securityContext: {f:privileged: {}}}}}}}}}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: web, image: \"shop/web:2.0.0\", securityContext: {privileged: true}}\n".into(),
            id: "apps/Deployment/shop/web",
            pointer: "/spec/template/spec/containers/0/securityContext/privileged",
        },
        Case {
            what: "a daily schedule moved by hand on a Helm CronJob that is not Linkerd's heartbeat",
            git: "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: heartbeat-report, namespace: shop, labels: {helm.sh/chart: reports-1.2.0}}\nspec:\n  schedule: \"30 02 * * *\"\n  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: report, image: \"shop/report:1.2.0\"}]}}}}\n".into(),
            live: "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: heartbeat-report, namespace: shop, labels: {helm.sh/chart: reports-1.2.0}}\nspec:\n  schedule: \"45 03 * * *\"\n  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: report, image: \"shop/report:1.2.0\"}]}}}}\n".into(),
            id: "batch/CronJob/shop/heartbeat-report",
            pointer: "/spec/schedule",
        },
        Case {
            what: "a pod-template annotation changed by hand in a Helm-rendered Deployment",
            git: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop, labels: {helm.sh/chart: web-2.0.0}}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}, annotations: {team: payments}}\n    spec: {containers: [{name: web, image: \"shop/web:2.0.0\"}]}\n".into(),
            live: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop, labels: {helm.sh/chart: web-2.0.0}}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}, annotations: {team: checkout}}\n    spec: {containers: [{name: web, image: \"shop/web:2.0.0\"}]}\n".into(),
            id: "apps/Deployment/shop/web",
            pointer: "/spec/template/metadata/annotations/team",
        },
        Case {
            what: "a live-only ConfigMap whose suffix holds characters Kustomize's hash never has (a, e, 1, 3)",
            git: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep, namespace: shop}\ndata: {a: b}\n".into(),
            live: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep, namespace: shop}\ndata: {a: b}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: session-abcdef1234, namespace: shop, labels: {app.kubernetes.io/instance: shop}}\ndata: {a: b}\n".into(),
            id: "/ConfigMap/shop/session-abcdef1234",
            pointer: "",
        },
    ];
    let mut failures = Vec::new();
    for c in &cases {
        let opts = Options {
            compare: CompareOptions {
                include_hidden: true,
                ..Default::default()
            },
            ..Default::default()
        };
        let report = analyze(&c.git, &c.live, &opts).unwrap_or_else(|e| panic!("{}: {e}", c.what));
        common::assert_invariants(&report);
        let res = report.resources.iter().find(|r| r.id == c.id);
        let d = res.and_then(|r| r.differences.iter().find(|d| d.pointer == c.pointer));
        match d {
            Some(d) if d.cause == drift_doctor::Cause::Drift => {
                let covered = res.unwrap().fixes.iter().any(|f| {
                    f.kind == drift_doctor::FixKind::Ignore && f.pointers.contains(&d.pointer)
                });
                if covered {
                    failures.push(format!("{}: an ignore fix covers {}", c.what, c.pointer));
                }
            }
            Some(d) => failures.push(format!(
                "{}: {} went to {} ({})",
                c.what, c.pointer, d.rule, d.evidence
            )),
            None => failures.push(format!(
                "{}: no difference at {} {}",
                c.what, c.id, c.pointer
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
