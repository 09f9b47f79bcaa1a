//! Events and logs as evidence: for each mechanism, real-shaped `kubectl get
//! events` output (table, `-o yaml`, `events.k8s.io/v1`, describe) or logs
//! (logrus text, JSON, klog, free text) beside Git and live, asserting the
//! cause they prove, the line they quote and the loop they count.

use crate::common;

use drift_doctor::evidence::{self, Observed};
use drift_doctor::{analyze_with, Cause, Confidence, Difference, Evidence, Options, Report};
use std::path::Path;

fn dir(case: &str) -> String {
    format!("tests/fixtures/events/{case}")
}

/// The texts of the fixture's files `pick` chooses, by name.
fn texts(case: &str, pick: impl Fn(&str) -> bool) -> Vec<String> {
    let d = common::root().join(dir(case));
    let mut names: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| pick(n))
        .collect();
    names.sort();
    names
        .iter()
        .map(|n| common::read(Path::new(&dir(case)).join(n)))
        .collect()
}

fn is_events(n: &str) -> bool {
    n.starts_with("events") || n.starts_with("describe")
}

fn is_logs(n: &str) -> bool {
    n.ends_with(".log")
}

fn observed(case: &str) -> Observed {
    let events = texts(case, is_events);
    let logs = texts(case, is_logs);
    let e: Vec<&str> = events.iter().map(String::as_str).collect();
    let l: Vec<&str> = logs.iter().map(String::as_str).collect();
    evidence::read(&e, &l).unwrap_or_else(|e| panic!("{case}: {e}"))
}

fn analyse(case: &str, with_observed: bool) -> Report {
    analyse_with(case, with_observed, &Options::default())
}

fn analyse_with(case: &str, with_observed: bool, opts: &Options) -> Report {
    let obs = observed(case);
    let report = analyze_with(
        &common::read(format!("{}/git.yaml", dir(case))),
        &common::read(format!("{}/live.yaml", dir(case))),
        opts,
        Evidence {
            observed: with_observed.then_some(&obs),
            ..Evidence::default()
        },
    )
    .unwrap();
    common::assert_valid(&report);
    common::assert_invariants(&report);
    report
}

fn diff<'r>(report: &'r Report, id: &str, pointer: &str) -> &'r Difference {
    report
        .resources
        .iter()
        .find(|r| r.id == id)
        .and_then(|r| r.differences.iter().find(|d| d.pointer == pointer))
        .unwrap_or_else(|| panic!("no {id} {pointer}"))
}

fn proving(d: &Difference) -> &drift_doctor::Observation {
    d.observed
        .iter()
        .find(|o| o.proves)
        .unwrap_or_else(|| panic!("nothing proves {}: {:?}", d.pointer, d.observed))
}

#[test]
fn an_hpa_rescale_in_a_table_proves_the_autoscaler_and_the_loop_is_counted() {
    let id = "apps/Deployment/checkout/orders";
    let before = analyse("autoscaler-1", false);
    assert_eq!(diff(&before, id, "/spec/replicas").cause, Cause::Drift);
    let report = analyse("autoscaler-1", true);
    let d = diff(&report, id, "/spec/replicas");
    assert_eq!((d.cause, d.rule.as_str()), (Cause::Autoscaler, "AS002"));
    // No HPA in the paste: the link is the new size equal to the live count.
    assert_eq!(d.confidence, Confidence::Medium);
    let p = proving(d);
    assert_eq!(p.code, "EV001");
    assert!(
        p.quote
            .contains("New size: 6; reason: cpu resource utilization"),
        "{}",
        p.quote
    );
    assert_eq!(p.count, Some(4));
    assert_eq!(p.time.as_deref(), Some("31s ago"));
    assert!(
        d.observed.iter().any(|o| o.code == "EV003"),
        "{:?}",
        d.observed
    );
    assert!(
        d.evidence.contains("set spec.replicas to 6"),
        "{}",
        d.evidence
    );
    // An autoscaler's fixes now, not drift's.
    let fixes = &report.resources.iter().find(|r| r.id == id).unwrap().fixes;
    assert!(fixes
        .iter()
        .any(|f| f.kind == drift_doctor::FixKind::Ignore));
    let l = report
        .observed
        .as_ref()
        .and_then(|o| o.sync_loop.as_ref())
        .expect("a loop");
    assert_eq!(l.syncs, 4);
    assert_eq!(l.revision, "6f1e0c2a9b7d4e3f8a1b2c3d4e5f60718293a4b5");
    // 12m to 58s ago: 662 seconds over three gaps.
    assert_eq!(
        (l.window_seconds, l.interval_seconds),
        (Some(662), Some(220))
    );
    assert_eq!(l.other_writes, 4);
    assert!(
        l.message.contains("sets spec.replicas to 2 as Git says"),
        "{}",
        l.message
    );
    assert!(l.message.contains("to 6 again"), "{}", l.message);
    assert_eq!(l.fields, vec![format!("{id} /spec/replicas")]);
}

#[test]
fn yaml_events_confirm_the_hpa_in_the_input_and_a_write_right_after_a_sync_is_stated() {
    let report = analyse("autoscaler-2", true);
    let d = diff(&report, "apps/Deployment/finance/ledger", "/spec/replicas");
    assert_eq!(d.cause, Cause::Autoscaler);
    assert_eq!(d.confidence, Confidence::High);
    let p = proving(d);
    assert_eq!((p.code.as_str(), p.count), ("EV001", Some(3)));
    assert_eq!(p.time.as_deref(), Some("2026-03-04T10:06:04Z"));
    assert!(
        d.evidence.contains(
            "`kube-controller-manager` wrote it 4s after the last of Argo CD's 3 recorded syncs"
        ),
        "{}",
        d.evidence
    );
    let l = report
        .observed
        .as_ref()
        .and_then(|o| o.sync_loop.as_ref())
        .expect("a loop");
    assert_eq!(
        (l.syncs, l.window_seconds, l.interval_seconds),
        (3, Some(359), Some(179))
    );
    assert_eq!(l.application, "argocd/finance");
    // Argo CD's own apply line is quoted too.
    assert!(
        d.observed.iter().any(|o| o.code == "EV009"),
        "{:?}",
        d.observed
    );
}

#[test]
fn describes_reference_links_the_hpa_to_its_workload() {
    let report = analyse("autoscaler-3", true);
    let d = diff(
        &report,
        "apps/Deployment/billing/payments",
        "/spec/replicas",
    );
    assert_eq!(
        (d.cause, d.confidence),
        (Cause::Autoscaler, Confidence::High)
    );
    let p = proving(d);
    assert_eq!(p.count, Some(5));
    assert_eq!(p.object, "HorizontalPodAutoscaler billing/payments-scaler");
    assert!(
        p.quote.starts_with("Normal  SuccessfulRescale"),
        "{}",
        p.quote
    );
}

#[test]
fn flaggers_scaling_down_in_events_k8s_io_v1_proves_a_controller() {
    let report = analyse("progressive-1", true);
    let d = diff(&report, "apps/Deployment/prod/podinfo", "/spec/replicas");
    assert_eq!(
        (d.cause, d.rule.as_str()),
        (Cause::ControllerRewrite, "CR018")
    );
    let p = proving(d);
    assert_eq!((p.code.as_str(), p.count), ("EV004", Some(3)));
    assert!(
        d.evidence
            .contains("Flagger scaled Deployment prod/podinfo down"),
        "{}",
        d.evidence
    );
}

#[test]
fn reloaders_log_confirms_its_stamp() {
    // A key added live is not counted by the three-way diff: shown with the hidden ones.
    let mut opts = Options::default();
    opts.compare.include_hidden = true;
    let report = analyse_with("reloader-1", true, &opts);
    let d = diff(
        &report,
        "apps/Deployment/billing/invoices",
        "/spec/template/metadata/annotations",
    );
    assert_eq!((d.cause, d.confidence), (Cause::Reloader, Confidence::High));
    let p = proving(d);
    assert_eq!(p.code, "EV006");
    assert!(
        p.quote.contains("Updated 'invoices' of type 'Deployment'"),
        "{}",
        p.quote
    );
}

#[test]
fn cert_managers_issuing_events_prove_who_writes_the_secret_without_quoting_it() {
    let report = analyse("cert-manager-1", true);
    let d = diff(&report, "/Secret/web/portal-tls", "/data/tls.crt");
    assert_eq!(d.cause, Cause::ControllerRewrite);
    let p = proving(d);
    assert_eq!(p.code, "EV007");
    assert_eq!(p.object, "Certificate web/portal-cert");
    let json = serde_json::to_string(&report).unwrap();
    assert!(!json.contains("cGxhY2Vob2xkZXI"), "a Secret value leaked");
    assert!(!d.evidence.contains("TFMw"), "{}", d.evidence);
}

#[test]
fn an_admission_denial_is_quoted_and_argocds_line_classified() {
    let report = analyse("admission-1", true);
    let d = diff(
        &report,
        "apps/Deployment/platform/api",
        "/spec/template/spec/containers/0/image",
    );
    let o = d
        .observed
        .iter()
        .find(|o| o.code == "EV008")
        .expect("the denial");
    assert_eq!(o.count, Some(7));
    assert!(o.quote.contains("denied the request"));
    assert!(!o.proves, "a denial explains the sync, not the writer");
    let errors = &report.observed.as_ref().unwrap().argocd_errors;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].code, "SE007");
    assert_eq!(errors[0].source, "logs 1, line 1");
}

#[test]
fn an_operators_line_naming_the_field_proves_a_controller() {
    let report = analyse("operator-1", true);
    let d = diff(
        &report,
        "databases.example.io/RedisFailover/cache/sessions",
        "/spec/sentinel/replicas",
    );
    assert_eq!(d.cause, Cause::ControllerRewrite);
    let p = proving(d);
    assert_eq!(p.code, "EV013");
    // The line that names the object but not the field is not quoted.
    assert_eq!(d.observed.len(), 1, "{:?}", d.observed);
}

#[test]
fn argocds_own_errors_are_classified_above_the_resources() {
    let report = analyse("argocd-errors-1", true);
    let o = report.observed.as_ref().unwrap();
    let codes: Vec<&str> = o.argocd_errors.iter().map(|e| e.code.as_str()).collect();
    assert_eq!(
        codes,
        ["SE020", "SE005", "SE017", "SE019"],
        "{:?}",
        o.argocd_errors
    );
    assert_eq!(o.argocd_errors[2].source, "logs 2, line 1");
    assert!(
        o.argocd_errors[2]
            .evidence
            .contains("`helm template` and it failed"),
        "{:?}",
        o.argocd_errors[2]
    );
    let json = serde_json::to_string(&report).unwrap();
    for secret in ["gh_p4ssw0rd_9Xq", "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ"] {
        assert!(!json.contains(secret), "{secret} leaked");
    }
}

#[test]
fn malformed_tables_and_logs_are_skipped_with_their_line_or_refused() {
    let obs = observed("malformed-1");
    assert_eq!((obs.events, obs.log_lines), (1, 1));
    assert!(
        obs.warnings
            .iter()
            .any(|w| w.starts_with("events 1, line 3: skipped")),
        "{:?}",
        obs.warnings
    );
    assert!(
        obs.warnings
            .iter()
            .any(|w| w.starts_with("logs 1, line 1: skipped")),
        "{:?}",
        obs.warnings
    );
    let report = analyse("malformed-1", true);
    assert!(report
        .warnings
        .iter()
        .any(|w| w.starts_with("events 1, line 3")));
    // Text of no known shape is an error naming its input and line.
    let e = evidence::read(&["just some words\n"], &[]).unwrap_err();
    assert_eq!(e.to_string().split(':').next(), Some("events 1, line 1"));
    // A YAML list cut in the middle.
    let e = evidence::read(&["apiVersion: v1\nitems:\n- reason: [\n"], &[]).unwrap_err();
    assert!(e.line > 0, "{e}");
    // Nothing of a logs input readable.
    assert!(evidence::read(&[], &["{\"msg\": \"cut\n"]).is_err());
}

#[test]
fn a_link_carries_events_and_logs_with_their_credentials_masked() {
    use drift_doctor::share::{decode_fragment, encode_fragment, ShareState};
    let events = "LAST SEEN   TYPE     REASON   OBJECT          MESSAGE\n5m          Warning  Failed   pod/fetcher-1   Failed to pull: GET https://deploy:Sup3rS3cret@registry.example.com/v2/: Authorization: Bearer tok_live_8f7e6d5c4b3a\n";
    let logs = "time=\"2026-01-01T00:00:00Z\" level=error msg=\"git fetch https://bot:hunter2hunter2@git.example.com/a.git failed\" application=argocd/a\n";
    let mut state = ShareState {
        mode: "sides".into(),
        git: common::read("tests/fixtures/events/autoscaler-1/git.yaml"),
        live: common::read("tests/fixtures/events/autoscaler-1/live.yaml"),
        ..Default::default()
    };
    state.set_observed(&[events.to_string()], &[logs.to_string()]);
    let (fragment, masked) = encode_fragment(&state);
    assert!(masked >= 2);
    let back = decode_fragment(&fragment).unwrap();
    let (e, l) = back.observed_texts();
    let all = format!("{fragment}{e:?}{l:?}");
    for secret in ["Sup3rS3cret", "tok_live_8f7e6d5c4b3a", "hunter2hunter2"] {
        assert!(!all.contains(secret), "{secret} in the link");
    }
    // The receiver's report is the sender's, and neither shows a credential.
    let read = |e: &[String], l: &[String]| {
        let e: Vec<&str> = e.iter().map(String::as_str).collect();
        let l: Vec<&str> = l.iter().map(String::as_str).collect();
        evidence::read(&e, &l).unwrap()
    };
    let sender = read(&[events.to_string()], &[logs.to_string()]);
    let receiver = read(&e, &l);
    assert_eq!(sender, receiver);
    let report = |obs: &Observed| {
        analyze_with(
            &state.git,
            &state.live,
            &Options::default(),
            Evidence {
                observed: Some(obs),
                ..Evidence::default()
            },
        )
        .unwrap()
    };
    let (a, b) = (report(&sender), report(&receiver));
    assert_eq!(a, b);
    let json = serde_json::to_string(&a).unwrap();
    for secret in ["Sup3rS3cret", "tok_live_8f7e6d5c4b3a", "hunter2hunter2"] {
        assert!(!json.contains(secret), "{secret} in the report");
        assert!(!format!("{sender:?}").contains(secret), "{secret} read");
    }
}

#[test]
fn every_pattern_names_a_rule_of_its_cause() {
    let catalog = drift_doctor::rules::catalog();
    for p in evidence::patterns::patterns().unwrap() {
        if let Some(code) = &p.rule {
            let rule = catalog
                .get(code)
                .unwrap_or_else(|| panic!("{}: no rule {code}", p.code));
            assert_eq!(Some(rule.cause), p.cause, "{}: {code}", p.code);
        }
    }
}

/// The Markdown a ticket gets carries what the events and logs showed: the
/// lines quoted as code beside the field they prove, the loop, and Argo
/// CD's own errors, with no credential from the lines.
#[test]
fn the_markdown_quotes_the_events_and_logs_and_masks_their_credentials() {
    let report = analyse("autoscaler-1", true);
    let md = drift_doctor::render::markdown::render(&report, None);
    assert!(md.contains("### Events and logs"), "{md}");
    let proof = md
        .lines()
        .find(|l| l.contains("Seen, and it proves it: EV001"))
        .unwrap_or_else(|| panic!("{md}"));
    // The event's line, quoted as code: whatever it says stays text.
    assert!(
        proof.contains(": `") && proof.ends_with('`') && proof.contains("New size: 6; reason: cpu"),
        "{proof}"
    );
    assert!(!md.contains("(s)"), "{md}");
    let report = analyse("argocd-errors-1", true);
    let md = drift_doctor::render::markdown::render(&report, None);
    for code in ["SE020", "SE005", "SE017", "SE019"] {
        assert!(md.contains(&format!("- **{code}**")), "{code}: {md}");
    }
    for secret in ["gh_p4ssw0rd_9Xq", "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ"] {
        assert!(!md.contains(secret), "{secret} leaked");
    }
}

/// Events prove the writer of a field read from pasted diff output too: the
/// HPA's rescale beside `argocd app diff`'s replicas hunk.
#[test]
fn events_beside_pasted_diff_output_prove_the_autoscaler() {
    let pasted = "===== apps/Deployment checkout/orders ======\n--- /tmp/argocd-diff1/orders-live.yaml\n+++ /tmp/argocd-diff1/orders\n@@ -5,7 +5,7 @@\n   namespace: checkout\n spec:\n   progressDeadlineSeconds: 600\n-  replicas: 6\n+  replicas: 2\n   revisionHistoryLimit: 10\n   selector:\n     matchLabels:\n";
    let without = drift_doctor::analyze_diff(pasted, &Options::default()).unwrap();
    let id = "apps/Deployment/checkout/orders";
    assert_eq!(diff(&without, id, "/spec/replicas").cause, Cause::Drift);
    let obs = observed("autoscaler-1");
    let report = drift_doctor::analyze_diff_with(
        pasted,
        &Options::default(),
        Evidence {
            observed: Some(&obs),
            ..Evidence::default()
        },
    )
    .unwrap();
    common::assert_valid(&report);
    let d = diff(&report, id, "/spec/replicas");
    assert_eq!(d.cause, Cause::Autoscaler, "{}", d.evidence);
    assert_eq!(proving(d).code, "EV001");
    assert!(report.observed.as_ref().unwrap().sync_loop.is_some());
}
