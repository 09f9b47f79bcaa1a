//! Evidence states only what the input shows. For each rule family (one
//! cause prefix each) a statement is checked both ways on a small Git/live
//! pair under tests/fixtures/evidence: the sentence appears when the input
//! shows the fact and does not when it does not.

mod common;

use drift_doctor::{analyze, CompareOptions, Difference, Options, Report};

fn run(case: &str) -> Report {
    let dir = format!("tests/fixtures/evidence/{case}");
    let opts = Options {
        compare: CompareOptions {
            include_hidden: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let report = analyze(
        &common::read(format!("{dir}/git.yaml")),
        &common::read(format!("{dir}/live.yaml")),
        &opts,
    )
    .unwrap_or_else(|e| panic!("{case}: {e}"));
    common::assert_valid(&report);
    common::assert_invariants(&report);
    report
}

fn diff<'a>(report: &'a Report, case: &str, id: &str, pointer: &str) -> &'a Difference {
    report
        .resources
        .iter()
        .filter(|r| r.id == id)
        .flat_map(|r| &r.differences)
        .find(|d| d.pointer == pointer)
        .unwrap_or_else(|| {
            let all: Vec<String> = report
                .resources
                .iter()
                .flat_map(|r| {
                    r.differences
                        .iter()
                        .map(move |d| format!("{} {}", r.id, d.pointer))
                })
                .collect();
            panic!("{case}: no difference at {id} {pointer}; have {all:?}")
        })
}

/// The evidence of one difference, with the rule that gave it.
fn evidence(case: &str, id: &str, pointer: &str) -> (String, String) {
    let report = run(case);
    let d = diff(&report, case, id, pointer);
    (d.rule.clone(), d.evidence.clone())
}

// DR: "Git changed since the last sync" only when Git differs from the
// last-applied configuration.

const LIMITS: &str = "/ConfigMap/billing/limits";

#[test]
fn drift_git_changed_only_when_last_applied_differs() {
    let (rule, ev) = evidence("dr-git-changed", LIMITS, "/data/maxItems");
    assert_eq!(rule, "DR006", "{ev}");
    assert!(ev.contains("so Git changed after that sync"), "{ev}");

    // Git equal to last-applied: Git did not change; Argo CD's own apply was rewritten.
    let (rule, ev) = evidence("dr-git-unchanged", LIMITS, "/data/maxItems");
    assert_eq!(rule, "WH023", "{ev}");
    assert!(!ev.contains("Git changed"), "{ev}");
    assert!(ev.contains("Git has not changed since that sync"), "{ev}");
    assert!(ev.contains("mutating admission webhook"), "{ev}");

    // No last-applied configuration: the input cannot tell.
    let (rule, ev) = evidence("dr-no-last-applied", LIMITS, "/data/maxItems");
    assert_eq!(rule, "DR006", "{ev}");
    assert!(!ev.contains("so Git changed"), "{ev}");
    assert!(ev.contains("does not show whether Git changed"), "{ev}");
}

// DR: a drifted value is called a change in the cluster, or a change of Git,
// only as the last-applied configuration shows.

#[test]
fn drift_origin_follows_the_last_applied_configuration() {
    let id = "apps/Deployment/billing/ledger";
    let p = "/spec/template/spec/containers/0/image";
    let (rule, ev) = evidence("dr-image-edited-live", id, p);
    assert_eq!(rule, "DR008", "{ev}");
    assert!(
        ev.contains("the cluster was changed after the last sync"),
        "{ev}"
    );
    assert!(!ev.contains("Git changed"), "{ev}");

    let (rule, ev) = evidence("dr-image-git-moved", id, p);
    assert_eq!(rule, "DR008", "{ev}");
    assert!(ev.contains("Git changed after that sync"), "{ev}");
    assert!(!ev.contains("cluster was changed"), "{ev}");

    let (rule, ev) = evidence("dr-image-no-history", id, p);
    assert_eq!(rule, "DR008", "{ev}");
    assert!(ev.contains("does not show whether"), "{ev}");
    assert!(
        !ev.contains("so Git changed") && !ev.contains("so the cluster was changed"),
        "{ev}"
    );
}

// DR: an object only live is called this app's only when its tracking says so.

#[test]
fn extra_object_is_the_apps_only_when_its_tracking_says_so() {
    let id = "/ConfigMap/billing/legacy-limits";
    let (rule, ev) = evidence("dr-extra-tracked", id, "");
    assert_eq!(rule, "DR003", "{ev}");
    assert!(ev.contains("names the app `billing`"), "{ev}");
    assert!(ev.contains("Argo CD marks it as requiring pruning"), "{ev}");
    let (rule, ev) = evidence("dr-extra-untracked", id, "");
    assert_eq!(rule, "DR003", "{ev}");
    assert!(!ev.contains("tracked by this app"), "{ev}");
    assert!(
        ev.contains("does not show that this app manages it"),
        "{ev}"
    );
}

// DR: the "do not force a sync" warning names only values a person changed.

#[test]
fn force_sync_warning_names_only_values_a_person_changed() {
    let report = run("dr-force-person");
    let warning: Vec<&String> = report
        .emergency
        .iter()
        .filter(|s| s.contains("Do not force"))
        .collect();
    assert_eq!(warning.len(), 1, "{:?}", report.emergency);
    let w = warning[0];
    // kubectl-edit's value only: not the one Argo CD wrote, not the object only in Git.
    assert!(w.contains("over 1 live value someone"), "{w}");
    assert!(w.contains("/ConfigMap/billing/flags"), "{w}");
    assert!(!w.contains("limits"), "{w}");
    assert!(!w.contains("new-settings"), "{w}");

    // Only values Argo CD wrote and an object only in Git; and a value the
    // last sync applied that Git has changed since: a sync overwrites no edit.
    for case in ["dr-force-none", "dr-image-git-moved"] {
        let report = run(case);
        assert!(
            report.emergency.iter().all(|s| !s.contains("Do not force")),
            "{case}: {:?}",
            report.emergency
        );
    }
    // The cluster changed after a sync of Git's value: a person's edit.
    let report = run("dr-image-edited-live");
    assert!(
        report.emergency.iter().any(|s| s.contains("Do not force")),
        "{:?}",
        report.emergency
    );
}

// SD/WH/CR: a value re-encoded inside a custom resource is attributed with
// managedFields, never to the API server, which keeps custom-resource strings
// as written: a webhook inside Argo CD's apply (or, unrecorded, a webhook or
// controller), or the program that wrote it.

const CERT: &str = "cert-manager.io/Certificate/edge/api-tls";

#[test]
fn reencoded_custom_resource_value_is_attributed_by_managed_fields() {
    let (rule, ev) = evidence("sd-reencoded-webhook", CERT, "/spec/duration");
    assert_eq!(rule, "WH024", "{ev}");
    assert!(
        ev.contains("`argocd-controller`") && ev.contains("mutating admission webhook rewrote"),
        "{ev}"
    );
    assert!(!ev.contains("API server stores the quantities"), "{ev}");

    let (rule, ev) = evidence("sd-reencoded-controller", CERT, "/spec/duration");
    assert_eq!(rule, "CR026", "{ev}");
    assert!(
        ev.contains("`certificate-normaliser`") && ev.contains("re-encodes the field"),
        "{ev}"
    );
    assert!(!ev.contains("webhook rewrote"), "{ev}");
    assert!(!ev.contains("API server stores the quantities"), "{ev}");

    let (rule, ev) = evidence("sd-reencoded-unknown", CERT, "/spec/duration");
    assert_eq!(rule, "WH024", "{ev}");
    assert!(ev.contains("managedFields do not say which"), "{ev}");
    assert!(!ev.contains("webhook rewrote"), "{ev}");
    assert!(!ev.contains("API server stores the quantities"), "{ev}");
}

// WH: cert-manager's CA injector is named only when the object carries its annotation.

#[test]
fn ca_injector_named_only_with_its_annotation() {
    let id = "admissionregistration.k8s.io/ValidatingWebhookConfiguration//guard";
    let p = "/webhooks/0/clientConfig/caBundle";
    let (rule, ev) = evidence("wh-ca-injected", id, p);
    assert_eq!(rule, "WH001", "{ev}");
    assert!(
        ev.contains("cert-manager.io/inject-ca-from: guard/guard-serving"),
        "{ev}"
    );
    let (rule, ev) = evidence("wh-ca-not-annotated", id, p);
    assert_ne!(rule, "WH001", "{ev}");
    assert!(!ev.contains("cert-manager"), "{ev}");
}

// AS: an autoscaler is named only when the input holds one (or its field manager).

#[test]
fn autoscaler_named_only_when_in_the_input() {
    let id = "apps/Deployment/billing/ledger";
    let (rule, ev) = evidence("as-hpa-in-input", id, "/spec/replicas");
    assert_eq!(rule, "AS001", "{ev}");
    assert!(ev.contains("ledger-scaler"), "{ev}");
    let (rule, ev) = evidence("as-no-autoscaler", id, "/spec/replicas");
    assert!(!rule.starts_with("AS"), "{rule}: {ev}");
    assert!(
        !ev.contains("HorizontalPodAutoscaler") && !ev.contains("scaler"),
        "{ev}"
    );
}

// RL: an opt-in annotation is named only when the workload carries one.

#[test]
fn reloader_opt_in_named_only_when_present() {
    let id = "apps/StatefulSet/billing/ledger";
    let p = "/spec/template/metadata/annotations/reloader.stakater.com~1last-reloaded-from";
    let (rule, ev) = evidence("rl-opted-in", id, p);
    assert_eq!(rule, "RL002", "{ev}");
    assert!(ev.contains("secret.reloader.stakater.com/reload"), "{ev}");
    let (rule, ev) = evidence("rl-no-opt-in", id, p);
    assert_eq!(rule, "RL003", "{ev}");
    assert!(!ev.contains("opts in"), "{ev}");
    assert!(
        ev.contains("without a per-workload opt-in annotation"),
        "{ev}"
    );
}

// NR: Helm is named only when the object carries Helm's labels.

#[test]
fn helm_named_only_when_the_object_says_so() {
    let id = "apps/Deployment/billing/ledger";
    let p = "/spec/template/metadata/annotations/checksum~1config";
    let (rule, ev) = evidence("nr-helm-checksum", id, p);
    assert_eq!(rule, "NR006", "{ev}");
    assert!(ev.contains("a Helm chart computes"), "{ev}");
    let (rule, ev) = evidence("nr-checksum-no-helm", id, p);
    assert!(!rule.starts_with("NR"), "{rule}: {ev}");
    assert!(!ev.contains("Helm"), "{ev}");
}

// CR: the aggregation controller is named only for a role with an aggregationRule.

#[test]
fn aggregation_controller_named_only_for_aggregated_roles() {
    let id = "rbac.authorization.k8s.io/ClusterRole//auditor";
    let (rule, ev) = evidence("cr-aggregated", id, "/rules/0/verbs/2");
    assert_eq!(rule, "CR001", "{ev}");
    assert!(ev.contains("rbac.example.org/aggregate-to-auditor"), "{ev}");
    let (rule, ev) = evidence("cr-not-aggregated", id, "/rules/0/verbs/2");
    assert_eq!(rule, "DR012", "{ev}");
    assert!(!ev.contains("aggregation controller"), "{ev}");
    // What the input shows (diff output may hide an aggregationRule above its hunks).
    assert!(ev.contains("no aggregationRule shows on the role"), "{ev}");
}

// SO: "its CRD is in the same Git input" only when Git holds the CRD.

#[test]
fn crd_in_the_same_sync_only_when_git_holds_it() {
    let id = "storage.example.org/Backup/billing/nightly";
    let (rule, ev) = evidence("so-crd-in-git", id, "");
    assert_eq!(rule, "SO001", "{ev}");
    assert!(
        ev.contains("backups.storage.example.org is in the same Git input"),
        "{ev}"
    );
    let (rule, ev) = evidence("so-crd-elsewhere", id, "");
    assert_eq!(rule, "SO003", "{ev}");
    assert!(!ev.contains("same Git input"), "{ev}");
    assert!(
        ev.contains("neither in Git nor among the live objects"),
        "{ev}"
    );
}
