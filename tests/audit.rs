//! The audit of the user's own ignore rules: each rule of
//! tests/fixtures/audit/rules.yaml carries one known mistake, and the audit
//! must name it, count what the rule hides, and offer a corrected rule only
//! when comparing again shows it hides nothing unsafe.

use crate::common;

use drift_doctor::settings::apply_user_settings;
use drift_doctor::{analyze, AuditKind, CompareOptions, Options, Report, RuleAudit};

const DIR: &str = "tests/fixtures/audit";

fn report() -> Report {
    let mut compare = CompareOptions::default();
    apply_user_settings(&common::read(format!("{DIR}/rules.yaml")), &mut compare).unwrap();
    let opts = Options {
        compare,
        ..Default::default()
    };
    let report = analyze(
        &common::read(format!("{DIR}/git.yaml")),
        &common::read(format!("{DIR}/live.yaml")),
        &opts,
    )
    .unwrap();
    common::assert_valid(&report);
    common::assert_invariants(&report);
    report
}

fn rule(report: &Report, i: usize) -> &RuleAudit {
    let name = format!("spec.ignoreDifferences[{i}]");
    report
        .audit
        .iter()
        .find(|a| a.rule.ends_with(&name))
        .unwrap_or_else(|| panic!("no audit of {name}: {:#?}", report.audit))
}

fn kinds(a: &RuleAudit) -> Vec<AuditKind> {
    a.findings.iter().map(|f| f.kind).collect()
}

/// Read a corrected rule back as settings and report what it hides.
fn hides_after_correction(corrected: &str) -> Report {
    let mut compare = CompareOptions::default();
    apply_user_settings(corrected, &mut compare).expect("a corrected rule reads as settings");
    analyze(
        &common::read(format!("{DIR}/git.yaml")),
        &common::read(format!("{DIR}/live.yaml")),
        &Options {
            compare: CompareOptions {
                include_hidden: true,
                ..compare
            },
            ..Default::default()
        },
    )
    .unwrap()
}

fn hidden_by_user_rule(report: &Report) -> Vec<String> {
    report
        .resources
        .iter()
        .flat_map(|r| r.differences.iter().map(move |d| (r, d)))
        .filter(|(_, d)| {
            matches!(
                d.hidden_reason,
                Some(drift_doctor::HiddenReason::UserRule { .. })
            )
        })
        .map(|(r, d)| format!("{} {}", r.id, d.pointer))
        .collect()
}

#[test]
fn every_rule_is_audited_in_order() {
    let r = report();
    assert_eq!(r.audit.len(), 10);
    for (i, a) in r.audit.iter().enumerate() {
        assert!(a.rule.ends_with(&format!("[{i}]")), "{}", a.rule);
    }
}

#[test]
fn a_version_in_the_group_matches_nothing_and_is_corrected() {
    let r = report();
    let a = rule(&r, 0);
    assert_eq!(kinds(a), [AuditKind::MatchesNothing]);
    assert_eq!(a.hides, 0);
    assert!(a.findings[0].message.contains("`apps/v1`"));
    let corrected = a.corrected.as_deref().expect("a corrected rule");
    assert!(corrected.contains("group: apps\n"), "{corrected}");
    assert_eq!(
        hidden_by_user_rule(&hides_after_correction(corrected)),
        ["apps/Deployment/shop/web /spec/replicas"]
    );
}

#[test]
fn a_kind_in_the_wrong_case_matches_nothing_and_is_corrected() {
    let r = report();
    let a = rule(&r, 1);
    assert_eq!(kinds(a), [AuditKind::MatchesNothing]);
    assert!(a.findings[0].message.contains("`Deployment`"));
    let corrected = a.corrected.as_deref().expect("a corrected rule");
    assert!(corrected.contains("kind: Deployment"), "{corrected}");
}

#[test]
fn an_unescaped_slash_is_named_and_escaped() {
    let r = report();
    let a = rule(&r, 2);
    assert_eq!(kinds(a), [AuditKind::MatchesNothing]);
    assert!(a.findings[0].message.contains("`~1`"));
    let corrected = a.corrected.as_deref().expect("a corrected rule");
    assert!(
        corrected
            .contains("/spec/template/metadata/annotations/kubectl.kubernetes.io~1restartedAt"),
        "{corrected}"
    );
}

#[test]
fn a_rule_hiding_drift_is_too_broad_and_never_corrected_into_hiding_it() {
    let r = report();
    let a = rule(&r, 3);
    assert_eq!(kinds(a), [AuditKind::TooBroad]);
    assert_eq!(a.hides, 1);
    assert!(a.findings[0].message.contains("data.LOG_LEVEL"));
    assert!(a.findings[0].message.contains("drift"));
    assert_eq!(a.corrected, None, "nothing safe is left to ignore");
}

#[test]
fn a_name_no_object_has_is_named_with_the_objects_there_are() {
    let r = report();
    let a = rule(&r, 4);
    assert_eq!(kinds(a), [AuditKind::MatchesNothing]);
    assert!(a.findings[0].message.contains("`web-canary`"));
    assert!(a.findings[0].message.contains("apps/Deployment/shop/web"));
}

#[test]
fn a_rule_on_status_is_redundant_with_argo_cds_own_setting() {
    let r = report();
    let a = rule(&r, 5);
    assert_eq!(kinds(a), [AuditKind::Redundant]);
    assert!(a.findings[0]
        .message
        .contains("ignoreResourceStatusField: all"));
}

#[test]
fn an_index_moved_by_a_sidecar_is_explained() {
    let r = report();
    let a = rule(&r, 6);
    assert_eq!(kinds(a), [AuditKind::TooBroad]);
    let m = &a.findings[0].message;
    assert!(m.contains("`istio-proxy` live"), "{m}");
    assert!(m.contains("select the item by name"), "{m}");
}

#[test]
fn two_rules_hiding_the_same_field_are_each_redundant() {
    let r = report();
    for i in [7, 8] {
        let a = rule(&r, i);
        assert_eq!(a.hides, 1);
        assert_eq!(kinds(a), [AuditKind::Redundant], "rule {i}");
    }
}

#[test]
fn no_settings_no_audit() {
    let report = analyze(
        &common::read(format!("{DIR}/git.yaml")),
        &common::read(format!("{DIR}/live.yaml")),
        &Options::default(),
    )
    .unwrap();
    assert!(report.audit.is_empty());
}

#[test]
fn a_jq_expression_failing_on_every_object_matches_nothing() {
    let r = report();
    let a = rule(&r, 9);
    assert_eq!(kinds(a), [AuditKind::MatchesNothing]);
    assert_eq!(a.hides, 0);
    assert!(
        a.findings[0].message.contains("fails on every object"),
        "{}",
        a.findings[0].message
    );
}
