//! The evidence users already have: an Application with its status (its
//! settings, Argo CD's verdicts, its sync errors, a sync loop) and a second
//! render of the same commit. Each fixture under tests/fixtures/application
//! and tests/fixtures/second_render is a real-shaped case.

use crate::common;

use drift_doctor::application::Application;
use drift_doctor::{analyze_with, Cause, CompareOptions, Evidence, Options, Report, Status};
use drift_doctor::{ArgocdStatus, Strategy, SyncError};

/// The scenario's file, or the common one when it has none.
fn side(scenario: &str, name: &str) -> String {
    let own = format!("tests/fixtures/application/{scenario}/{name}");
    if common::root().join(&own).exists() {
        common::read(own)
    } else {
        common::read(format!("tests/fixtures/application/common/{name}"))
    }
}

/// Analyse a scenario with its Application, as `--application` does.
fn run(scenario: &str) -> (Report, Options) {
    let app = Application::parse(&side(scenario, "application.yaml"))
        .unwrap_or_else(|e| panic!("{scenario}: {e}"));
    let mut opts = Options {
        namespace: None,
        compare: CompareOptions::default(),
    };
    app.apply_to(&mut opts.namespace, &mut opts.compare, false, false)
        .unwrap_or_else(|e| panic!("{scenario}: {e}"));
    let evidence = Evidence {
        application: Some(&app),
        git_again: None,
        observed: None,
    };
    let report = analyze_with(
        &side(scenario, "git.yaml"),
        &side(scenario, "live.yaml"),
        &opts,
        evidence,
    )
    .unwrap_or_else(|e| panic!("{scenario}: {e}"));
    common::assert_valid(&report);
    common::assert_invariants(&report);
    (report, opts)
}

fn status(report: &Report) -> &ArgocdStatus {
    report
        .argocd_status
        .as_ref()
        .expect("an Application gives argocd_status")
}

/// The one sync error of this code.
fn error<'r>(report: &'r Report, code: &str) -> &'r SyncError {
    let found: Vec<&SyncError> = status(report)
        .sync_errors
        .iter()
        .filter(|e| e.code == code)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one {code} expected: {:#?}",
        status(report).sync_errors
    );
    found[0]
}

#[test]
fn a_healthy_synced_app_has_nothing_to_say() {
    let (report, opts) = run("healthy-synced");
    let s = status(&report);
    assert_eq!(s.name, "shop");
    assert_eq!(s.sync_status.as_deref(), Some("Synced"));
    assert!(s.sync_errors.is_empty(), "{:#?}", s.sync_errors);
    assert!(s.verdicts.is_empty(), "{:#?}", s.verdicts);
    assert!(
        s.sync_loop.is_none(),
        "three syncs of three revisions over days"
    );
    assert_eq!(opts.namespace.as_deref(), Some("shop"));
    assert!(report.resources.iter().all(|r| r.status == Status::Synced));
}

#[test]
fn a_job_template_change_is_an_immutable_field_failure() {
    let (report, _) = run("job-immutable");
    let e = error(&report, "SE001");
    assert_eq!(e.cause, Some(Cause::SyncOrdering));
    assert_eq!(e.resource.as_deref(), Some("batch/Job/billing/db-migrate"));
    assert!(e.fix.contains("BeforeHookCreation"), "{}", e.fix);
    assert!(e.fix.contains("Replace=true"), "{}", e.fix);
    assert!(
        e.risk.as_deref().is_some_and(|r| r.contains("runs again")),
        "{e:?}"
    );
    assert!(
        e.evidence
            .contains("retried the operation 5 times, waiting 5s"),
        "{}",
        e.evidence
    );
    // The operation's message repeats the resource's: one error, not two.
    assert_eq!(status(&report).sync_errors.len(), 1);
}

#[test]
fn a_custom_resource_before_its_crd_needs_an_earlier_wave_and_skip_dry_run() {
    let (report, _) = run("cr-before-crd");
    let e = error(&report, "SE005");
    assert_eq!(e.cause, Some(Cause::SyncOrdering));
    assert_eq!(
        e.resource.as_deref(),
        Some("monitoring.coreos.com/ServiceMonitor/shop/web")
    );
    assert!(e.fix.contains("SkipDryRunOnMissingResource=true"));
    assert!(e.snippet.contains("sync-wave"));
    let tasks = error(&report, "SE011");
    assert!(tasks.resource.is_none());
    assert!(
        tasks.source.starts_with("operationState.message"),
        "the condition repeats the operation's message: {:#?}",
        status(&report).sync_errors
    );
}

#[test]
fn a_webhook_denial_is_a_failing_sync_not_a_mutation() {
    let (report, _) = run("webhook-denied");
    let e = error(&report, "SE007");
    assert_eq!(e.cause, Some(Cause::SyncOrdering));
    assert_eq!(e.resource.as_deref(), Some("apps/Deployment/shop/web"));
    assert!(e.evidence.contains("validate.kyverno.svc-fail"));
    assert!(e.fix.contains("policy"));
    assert!(
        !e.message.contains('\n'),
        "the message is shown on one line"
    );
    assert_eq!(status(&report).sync_errors.len(), 1);
}

#[test]
fn a_server_side_apply_conflict_names_the_other_manager() {
    let (report, opts) = run("ssa-conflict");
    let e = error(&report, "SE009");
    // A kubectl field manager is a person: the conflict is over a hand edit.
    assert_eq!(e.cause, Some(Cause::Drift));
    assert_eq!(e.resource.as_deref(), Some("apps/Deployment/shop/web"));
    assert!(e.evidence.contains("kubectl-client-side-apply"));
    assert!(e.fix.contains("--force-conflicts"));
    // The Application's settings were used as if given separately.
    assert_eq!(opts.compare.strategy, Strategy::ServerSideApply);
    assert_eq!(opts.compare.ignore_rules.len(), 1);
    let settings = &status(&report).settings;
    assert!(settings.iter().any(|s| s.contains("server-side-apply")));
    assert!(settings
        .iter()
        .any(|s| s.contains("RespectIgnoreDifferences=true")));
    let web = report
        .resources
        .iter()
        .find(|r| r.id == "apps/Deployment/shop/web")
        .unwrap();
    assert!(web.differences.iter().any(|d| d.pointer
        == "/spec/template/spec/containers/0/env/0/value"
        && d.cause == Cause::Drift));
}

#[test]
fn a_failed_presync_hook_is_named_with_its_delete_policy() {
    let (report, _) = run("presync-hook-failed");
    let e = error(&report, "SE012");
    assert_eq!(e.cause, Some(Cause::SyncOrdering));
    assert_eq!(
        e.resource.as_deref(),
        Some("batch/Job/billing/billing-db-migrate")
    );
    assert!(e.evidence.contains("PreSync"));
    assert!(e.snippet.contains("hook-delete-policy: BeforeHookCreation"));
    // The hook Argo CD lists is not compared, so no verdict is set against it.
    assert!(status(&report)
        .verdicts
        .iter()
        .all(|v| !v.id.contains("billing-db-migrate")));
}

#[test]
fn twenty_syncs_of_one_revision_in_ten_minutes_are_a_loop_driven_by_self_heal() {
    let (report, _) = run("selfheal-loop");
    let l = status(&report)
        .sync_loop
        .as_ref()
        .expect("a loop in the history");
    assert_eq!(l.syncs, 20);
    assert_eq!(l.window_seconds, 570);
    assert!(l.auto_sync && l.self_heal);
    assert_eq!(l.revision, "3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d");
    assert!(l.message.contains("20 times in 9m30s"), "{}", l.message);
    assert!(l.message.contains("every 30s"), "{}", l.message);
    assert!(l.message.contains("selfHeal"), "{}", l.message);
    assert!(
        l.message.contains("likely more"),
        "the history is at its limit"
    );
}

#[test]
fn every_disagreement_with_argo_cds_verdict_is_listed() {
    let (report, _) = run("verdict-disagrees");
    let v = &status(&report).verdicts;
    let ids: Vec<&str> = v.iter().map(|v| v.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "/ConfigMap/shop/web-settings",
            "/Secret/shop/legacy-credentials",
            "apps/Deployment/shop/web",
            "apps/Deployment/shop/worker",
        ],
        "{v:#?}"
    );
    assert_eq!(v[0].argocd.as_deref(), Some("OutOfSync"));
    assert_eq!(v[0].drift_doctor, Some(Status::Synced));
    assert!(v[0]
        .message
        .starts_with("Argo CD says OutOfSync; from the pasted objects this is Synced: paste the live object as Argo CD reads it"));
    assert!(v[0]
        .message
        .contains("check the Argo CD release compared with"));
    assert!(v[1].requires_pruning && v[1].drift_doctor.is_none());
    assert_eq!(v[2].argocd.as_deref(), Some("Synced"));
    assert_eq!(v[2].drift_doctor, Some(Status::OutOfSync));
    assert!(v[3].message.contains("not among the pasted objects"));
}

#[test]
fn explicit_flags_win_over_the_application() {
    let app = Application::parse(&side("ssa-conflict", "application.yaml")).unwrap();
    let mut namespace = Some("given".to_string());
    let mut compare = CompareOptions::default();
    app.apply_to(&mut namespace, &mut compare, true, true)
        .unwrap();
    assert_eq!(namespace.as_deref(), Some("given"));
    assert_eq!(compare.strategy, Strategy::Legacy);
    assert_eq!(
        compare.ignore_rules.len(),
        1,
        "ignoreDifferences always apply"
    );
}

#[test]
fn a_text_without_an_application_is_refused_with_what_to_give() {
    let e =
        Application::parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n").unwrap_err();
    assert!(e.message.contains("argocd app get"), "{e}");
    let e = Application::parse("kind: Application\nmetadata: [broken\n").unwrap_err();
    assert!(e.line > 0, "{e}");
}

#[test]
fn the_sections_render_above_the_resources_as_inert_text() {
    for scenario in ["job-immutable", "verdict-disagrees", "selfheal-loop"] {
        let (report, _) = run(scenario);
        let text = drift_doctor::render::text::render(&report, false, false);
        let md = drift_doctor::render::markdown::render(&report, None);
        let first_card = |s: &str, marker: &str| s.find(marker).unwrap_or(usize::MAX);
        let at = text.find("Argo CD's own status").expect("text section");
        assert!(at < first_card(&text, "\nOutOfSync "), "{scenario}: {text}");
        let at = md
            .find("### Argo CD's own status")
            .expect("markdown section");
        assert!(
            at < first_card(&md, "\n### `"),
            "{scenario}: the section comes before the resource cards"
        );
    }
    // A message is user text: nothing in it becomes markup.
    let mut report = run("webhook-denied").0;
    if let Some(s) = report.argocd_status.as_mut() {
        s.sync_errors[0].message = "<img src=x onerror=alert(1)> [link](http://evil)".into();
        s.sync_errors[0].title = "*bold* <b>".into();
    }
    let md = drift_doctor::render::markdown::render(&report, None);
    // The message is quoted in a code span, which Markdown shows as written.
    assert!(
        md.contains("`<img src=x onerror=alert(1)> [link](http://evil)`"),
        "{md}"
    );
    assert_eq!(md.matches("<img").count(), 1, "{md}");
    assert!(!md.contains("<b>"), "{md}");
    let text = drift_doctor::render::text::render(&report, false, false);
    assert!(
        text.contains("<img src=x"),
        "text output shows it as written"
    );
}

/// The Helm chart rendered twice, with one field also edited by hand live.
fn two_renders(again: bool) -> Report {
    let dir = "tests/fixtures/second_render/helm-generated";
    let opts = Options {
        namespace: Some("shop".into()),
        compare: CompareOptions::default(),
    };
    let again_text = common::read(format!("{dir}/git-again.yaml"));
    let evidence = Evidence {
        application: None,
        git_again: again.then_some(again_text.as_str()),
        observed: None,
    };
    let report = analyze_with(
        &common::read(format!("{dir}/git.yaml")),
        &common::read(format!("{dir}/live.yaml")),
        &opts,
        evidence,
    )
    .unwrap();
    common::assert_valid(&report);
    common::assert_invariants(&report);
    report
}

fn difference<'r>(report: &'r Report, id: &str, pointer: &str) -> &'r drift_doctor::Difference {
    report
        .resources
        .iter()
        .find(|r| r.id == id)
        .and_then(|r| r.differences.iter().find(|d| d.pointer == pointer))
        .unwrap_or_else(|| panic!("no difference {id} {pointer}"))
}

#[test]
fn fields_two_renders_disagree_on_are_a_nondeterministic_render() {
    let report = two_renders(true);
    let cases = [
        ("/Secret/shop/shop-db", "/data/password", "randAlphaNum"),
        ("/Secret/shop/shop-webhook-tls", "/data/ca.crt", "genCA"),
        (
            "/Secret/shop/shop-webhook-tls",
            "/data/tls.key",
            "genPrivateKey",
        ),
        (
            "apps/Deployment/shop/shop-api",
            "/spec/template/metadata/annotations/rollme",
            "`now`",
        ),
    ];
    for (id, pointer, function) in cases {
        let d = difference(&report, id, pointer);
        assert_eq!(d.cause, Cause::NondeterministicRender, "{id} {pointer}");
        assert_eq!(d.rule, "NR009", "{id} {pointer}");
        assert_eq!(d.confidence, drift_doctor::Confidence::High);
        assert!(d.evidence.contains(function), "{}", d.evidence);
    }
    // Both renders' values named, unless they belong to a Secret.
    let rollme = difference(
        &report,
        "apps/Deployment/shop/shop-api",
        "/spec/template/metadata/annotations/rollme",
    );
    assert!(rollme.evidence.contains("2026-12-01T10:00:07Z"));
    assert!(rollme.evidence.contains("2026-12-01T10:04:51Z"));
    let password = difference(&report, "/Secret/shop/shop-db", "/data/password");
    for plain in [
        "WnE4UmsyTG1XOXhUYTRWYg==",
        "Zq8Rk2LmW9xTa4Vb",
        "Hn3Yp7QeC5uJs1Kd",
    ] {
        assert!(!password.evidence.contains(plain), "{}", password.evidence);
        assert!(
            !serde_json::to_string(&report).unwrap().contains(plain),
            "{plain} leaked"
        );
    }
    assert!(password.evidence.contains("values file"));
    let ca = difference(&report, "/Secret/shop/shop-webhook-tls", "/data/ca.crt");
    assert!(ca.evidence.contains("cert-manager"));
    // Equal in both renders but different live: the hand edit stays drift.
    let env = difference(
        &report,
        "apps/Deployment/shop/shop-api",
        "/spec/template/spec/containers/0/env/0/value",
    );
    assert_eq!(env.cause, Cause::Drift);
    // The field both renders agree on in the same Secret is no difference at all.
    assert!(report
        .resources
        .iter()
        .flat_map(|r| &r.differences)
        .all(|d| d.pointer != "/data/username"));
}

#[test]
fn without_a_second_render_no_field_gets_its_rule() {
    let report = two_renders(false);
    assert!(report
        .resources
        .iter()
        .flat_map(|r| &r.differences)
        .all(|d| d.rule != "NR009"));
}

/// Every scenario's report as people read it, so any change to the wording
/// or layout of the Application's sections shows in review.
#[test]
fn reports_match_their_snapshots() {
    let scenarios = [
        "healthy-synced",
        "job-immutable",
        "cr-before-crd",
        "webhook-denied",
        "ssa-conflict",
        "presync-hook-failed",
        "selfheal-loop",
        "verdict-disagrees",
    ];
    for name in scenarios {
        let (report, _) = run(name);
        insta::with_settings!({snapshot_suffix => name, prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!("application-text", drift_doctor::render::text::render(&report, false, false));
            insta::assert_snapshot!("application-markdown", drift_doctor::render::markdown::render(&report, None));
        });
    }
    let report = two_renders(true);
    insta::with_settings!({snapshot_suffix => "helm-generated", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("second-render-text", drift_doctor::render::text::render(&report, false, false));
    });
}

/// An Application's fields may hold anything: odd shapes are read as absent,
/// never a panic, and the report still validates.
#[test]
fn odd_shapes_in_the_status_are_read_as_absent() {
    let texts = [
        "kind: Application\n",
        "kind: Application\nspec: 7\nstatus: [1, 2]\n",
        "kind: Application\nmetadata: {name: [x]}\nspec: {syncPolicy: {automated: true, syncOptions: [1, null, ServerSideApply]}, destination: {namespace: 3}}\n",
        "kind: Application\nstatus: {resources: [7, {kind: 1}, {kind: X, name: y, status: {}}], history: [{revision: 1, deployedAt: 2}, {revisions: [], deployedAt: \"9999-99-99T99:99:99Z\"}, {revision: a, deployedAt: \"2026-01-01T00:00:00+99:99\"}], operationState: {phase: Failed, message: [], retryCount: -1, syncResult: {resources: [null, {status: SyncFailed, message: 3, hookType: PreSync, hookPhase: [Failed]}]}}, conditions: [{type: SyncError}, {type: ComparisonError, message: \"\\u0007\\u001b[31m\"}]}\n",
        "{\"kind\": \"List\", \"items\": [{\"kind\": \"Application\", \"status\": {\"operationState\": {\"phase\": \"Error\", \"message\": \"Secret \\\"x\\\" is invalid: data[k]: Invalid value: \\\"hunter2hunter2\\\"\"}}}]}",
    ];
    for text in texts {
        let app = Application::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let mut opts = Options::default();
        app.apply_to(&mut opts.namespace, &mut opts.compare, false, false)
            .ok();
        let evidence = Evidence {
            application: Some(&app),
            git_again: None,
            observed: None,
        };
        let report = analyze_with(
            &side("healthy-synced", "git.yaml"),
            &side("healthy-synced", "live.yaml"),
            &opts,
            evidence,
        )
        .unwrap();
        common::assert_valid(&report);
        let json = serde_json::to_string(&report).unwrap();
        assert!(
            !json.contains("hunter2"),
            "a Secret's value in a message: {json}"
        );
        let text = drift_doctor::render::text::render(&report, false, false);
        assert!(!text.contains('\u{1b}'), "terminal escapes are made inert");
    }
}

#[test]
fn the_generated_sync_error_catalogue_is_up_to_date() {
    let generated = drift_doctor::application::sync_errors::catalogue_markdown();
    assert!(
        common::read("docs/sync-errors.md") == generated,
        "docs/sync-errors.md is stale: run `cargo run -- rules --sync-errors --markdown > docs/sync-errors.md`"
    );
}

#[test]
fn pasted_diff_text_gets_the_applications_sections_too() {
    let app = Application::parse(&side("verdict-disagrees", "application.yaml")).unwrap();
    let opts = Options::default();
    let evidence = Evidence {
        application: Some(&app),
        git_again: None,
        observed: None,
    };
    let report = drift_doctor::analyze_diff_with(
        &common::read("tests/fixtures/difftext/argo_unified_u3.txt"),
        &opts,
        evidence,
    )
    .unwrap();
    common::assert_valid(&report);
    let status = report.argocd_status.expect("argocd_status");
    assert!(!status.verdicts.is_empty());
}
