//! The user's Argo CD settings: `resource.compareoptions`
//! (ignoreResourceStatusField, ignoreAggregatedRoles) read by
//! `apply_user_settings`, CRD schema defaults under the server-side
//! strategies, and the `link` command's options.

use crate::common;

use drift_doctor::compare::IgnoreStatus;
use drift_doctor::settings::{apply_user_settings, parse_rules};
use drift_doctor::{analyze, CompareOptions, Difference, Options, Report, Status, Strategy};
use std::process::Command;

const DIR: &str = "tests/fixtures/settings";

fn fixture(name: &str) -> String {
    common::read(format!("{DIR}/{name}"))
}

fn fixture_path(name: &str) -> String {
    common::root().join(DIR).join(name).display().to_string()
}

fn run(git: &str, live: &str, compare: CompareOptions) -> Report {
    let opts = Options {
        compare: CompareOptions {
            include_hidden: true,
            ..compare
        },
        ..Default::default()
    };
    let report = analyze(&fixture(git), &fixture(live), &opts).unwrap();
    common::assert_valid(&report);
    common::assert_invariants(&report);
    report
}

fn status_report(mode: IgnoreStatus, strategy: Strategy) -> Report {
    run(
        "status-git.yaml",
        "status-live.yaml",
        CompareOptions {
            ignore_resource_status_field: mode,
            strategy,
            ..Default::default()
        },
    )
}

fn status_of(report: &Report, id: &str) -> Status {
    resource(report, id).status
}

fn resource<'a>(report: &'a Report, id: &str) -> &'a drift_doctor::ResourceReport {
    report
        .resources
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no resource {id}"))
}

fn diff<'a>(report: &'a Report, id: &str, pointer: &str) -> &'a Difference {
    resource(report, id)
        .differences
        .iter()
        .find(|d| d.pointer == pointer)
        .unwrap_or_else(|| {
            panic!(
                "{id}: no difference at {pointer}; have {:?}",
                resource(report, id)
                    .differences
                    .iter()
                    .map(|d| &d.pointer)
                    .collect::<Vec<_>>()
            )
        })
}

fn reason(d: &Difference) -> String {
    d.hidden_reason
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default()
}

const CRD: &str = "apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com";
const WIDGET: &str = "example.com/Widget/shop/blue";
const DEPLOYMENT: &str = "apps/Deployment/shop/web";

#[test]
fn status_is_ignored_for_every_object_by_default() {
    assert_eq!(
        CompareOptions::default().ignore_resource_status_field,
        IgnoreStatus::All
    );
    let report = status_report(IgnoreStatus::All, Strategy::Legacy);
    assert_eq!(report.summary.out_of_sync, 0);
    // What Git declares in status stays in the report, hidden, with why.
    for (id, pointer) in [
        (CRD, "/status/acceptedNames/kind"),
        (CRD, "/status/storedVersions/0"),
        (WIDGET, "/status/phase"),
    ] {
        let d = diff(&report, id, pointer);
        assert!(!d.visible, "{id} {pointer}");
        assert!(
            reason(d).contains("ignoreResourceStatusField: all"),
            "{id} {pointer}: {}",
            reason(d)
        );
    }
}

#[test]
fn status_mode_crd_ignores_only_custom_resource_definitions() {
    let report = status_report(IgnoreStatus::Crd, Strategy::Legacy);
    assert_eq!(status_of(&report, CRD), Status::Synced);
    let d = diff(&report, CRD, "/status/acceptedNames/kind");
    assert!(!d.visible);
    assert!(
        reason(d).contains("ignoreResourceStatusField: crd"),
        "{}",
        reason(d)
    );
    // A custom resource is not a CRD: its declared status counts.
    assert_eq!(status_of(&report, WIDGET), Status::OutOfSync);
    let phase = diff(&report, WIDGET, "/status/phase");
    assert!(phase.visible);
    assert_eq!(
        (
            phase.git.as_ref().and_then(|v| v.as_str()),
            phase.live.as_ref().and_then(|v| v.as_str())
        ),
        (Some("Ready"), Some("Pending"))
    );
    // Status Git does not declare is not a difference (three-way diff).
    assert_eq!(status_of(&report, DEPLOYMENT), Status::Synced);
}

#[test]
fn status_mode_none_counts_status_git_declares() {
    let report = status_report(IgnoreStatus::None, Strategy::Legacy);
    assert_eq!(status_of(&report, CRD), Status::OutOfSync);
    for pointer in [
        "/status/acceptedNames/kind",
        "/status/acceptedNames/plural",
        "/status/storedVersions/0",
    ] {
        assert!(diff(&report, CRD, pointer).visible, "{pointer}");
    }
    // Fields only the cluster wrote under a declared status stay hidden.
    assert!(!diff(&report, CRD, "/status/acceptedNames/listKind").visible);
    assert!(diff(&report, WIDGET, "/status/phase").visible);
    // The Deployment's live status is not in Git: hidden, not a difference.
    assert_eq!(status_of(&report, DEPLOYMENT), Status::Synced);
    let d = diff(&report, DEPLOYMENT, "/status");
    assert!(!d.visible);
    assert!(
        reason(d).contains("written by the cluster"),
        "{}",
        reason(d)
    );
}

#[test]
fn status_mode_none_under_server_side_diff_keeps_the_live_status() {
    // status is a subresource (the CRD declares it for Widget, and a CRD's
    // own status is one): a dry-run apply never changes it.
    for strategy in [Strategy::ServerSideDiff, Strategy::ServerSideApply] {
        let report = status_report(IgnoreStatus::None, strategy);
        assert_eq!(report.summary.out_of_sync, 0, "{}", strategy.id());
        let d = diff(&report, WIDGET, "/status/phase");
        assert!(!d.visible);
        assert!(reason(d).contains("subresource"), "{}", reason(d));
    }
    // Without the subresource, Git's status is applied and differs.
    let git = fixture("status-git.yaml");
    let live = fixture("status-live.yaml").replace("    subresources:\n      status: {}\n", "");
    let opts = Options {
        compare: CompareOptions {
            strategy: Strategy::ServerSideDiff,
            ignore_resource_status_field: IgnoreStatus::None,
            ..Default::default()
        },
        ..Default::default()
    };
    let report = analyze(&git, &live, &opts).unwrap();
    common::assert_valid(&report);
    assert!(diff(&report, WIDGET, "/status/phase").visible);
}

#[test]
fn status_setting_values_read_as_argo_cd_reads_them() {
    for (value, mode) in [
        ("all", IgnoreStatus::All),
        ("", IgnoreStatus::All),
        ("crd", IgnoreStatus::Crd),
        ("none", IgnoreStatus::None),
        ("off", IgnoreStatus::None),
        ("false", IgnoreStatus::None),
        // Unrecognised values fall back to all (Argo CD logs a warning).
        ("CRD", IgnoreStatus::All),
        ("everything", IgnoreStatus::All),
    ] {
        assert_eq!(IgnoreStatus::from_setting(value), mode, "{value:?}");
    }
    assert!(IgnoreStatus::Crd.ignores("apiextensions.k8s.io", "CustomResourceDefinition"));
    assert!(!IgnoreStatus::Crd.ignores("example.com", "Widget"));
    assert!(!IgnoreStatus::None.ignores("apiextensions.k8s.io", "CustomResourceDefinition"));
    assert!(IgnoreStatus::All.ignores("apps", "Deployment"));
}

fn argocd_cm(compare_options: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: argocd\ndata:\n  resource.compareoptions: |\n{}",
        compare_options
            .lines()
            .map(|l| format!("    {l}\n"))
            .collect::<String>()
    )
}

#[test]
fn apply_user_settings_reads_application_and_argocd_cm() {
    let text = format!("{}---\n{}", fixture("app.yaml"), fixture("argocd-cm.yaml"));
    let mut compare = CompareOptions::default();
    apply_user_settings(&text, &mut compare).unwrap();
    // The rules are exactly what parse_rules reads.
    assert_eq!(compare.ignore_rules, parse_rules(&text).unwrap());
    assert_eq!(compare.ignore_rules.len(), 2);
    assert_eq!(compare.ignore_rules[0].group, "apps");
    assert_eq!(compare.ignore_rules[0].json_pointers, ["/spec/replicas"]);
    assert_eq!(compare.ignore_rules[1].kind, "MutatingWebhookConfiguration");
    assert_eq!(compare.ignore_resource_status_field, IgnoreStatus::None);
    assert!(compare.ignore_aggregated_roles);

    // Rules are appended to what is there.
    apply_user_settings(&fixture("app.yaml"), &mut compare).unwrap();
    assert_eq!(compare.ignore_rules.len(), 3);

    // An Application alone changes no compare option.
    let mut only_app = CompareOptions {
        ignore_resource_status_field: IgnoreStatus::Crd,
        ..Default::default()
    };
    apply_user_settings(&fixture("app.yaml"), &mut only_app).unwrap();
    assert_eq!(only_app.ignore_resource_status_field, IgnoreStatus::Crd);
    assert!(!only_app.ignore_aggregated_roles);

    // Blank settings apply nothing.
    let mut blank = CompareOptions::default();
    apply_user_settings("  \n# nothing yet\n", &mut blank).unwrap();
    assert!(blank.ignore_rules.is_empty());
}

#[test]
fn compare_options_values_follow_argo_cd() {
    let mode = |options: &str, start: IgnoreStatus| {
        let mut compare = CompareOptions {
            ignore_resource_status_field: start,
            ..Default::default()
        };
        apply_user_settings(&argocd_cm(options), &mut compare)
            .unwrap_or_else(|e| panic!("{options:?}: {e}"));
        (
            compare.ignore_resource_status_field,
            compare.ignore_aggregated_roles,
        )
    };
    assert_eq!(
        mode("ignoreResourceStatusField: crd", IgnoreStatus::All),
        (IgnoreStatus::Crd, false)
    );
    // YAML 1.1 reads a plain off/no as false, which Argo CD takes as none.
    assert_eq!(
        mode("ignoreResourceStatusField: off", IgnoreStatus::All),
        (IgnoreStatus::None, false)
    );
    assert_eq!(
        mode("ignoreResourceStatusField: false", IgnoreStatus::All),
        (IgnoreStatus::None, false)
    );
    // A compareoptions without the key means Argo CD's default, all.
    assert_eq!(
        mode("ignoreAggregatedRoles: true", IgnoreStatus::None),
        (IgnoreStatus::All, true)
    );
    assert_eq!(
        mode("ignoreAggregatedRoles: yes", IgnoreStatus::Crd),
        (IgnoreStatus::All, true)
    );
    assert_eq!(
        mode("ignoreAggregatedRoles: false", IgnoreStatus::All),
        (IgnoreStatus::All, false)
    );
    // ignoreDifferencesOnResourceUpdates only throttles refreshes.
    assert_eq!(
        mode(
            "ignoreDifferencesOnResourceUpdates: false\nignoreResourceStatusField: none",
            IgnoreStatus::All
        ),
        (IgnoreStatus::None, false)
    );
    // ignoreAggregatedRoles: false does not turn off what is already on.
    let mut on = CompareOptions {
        ignore_aggregated_roles: true,
        ..Default::default()
    };
    apply_user_settings(&argocd_cm("ignoreAggregatedRoles: false"), &mut on).unwrap();
    assert!(on.ignore_aggregated_roles);
}

#[test]
fn settings_errors_keep_document_line_and_column() {
    // A YAML error inside the resource.compareoptions block, in document 2.
    let text = format!(
        "{}---\n{}",
        fixture("app.yaml"),
        argocd_cm("ignoreAggregatedRoles: true\nignoreResourceStatusField: [crd")
    );
    let mut compare = CompareOptions::default();
    let e = apply_user_settings(&text, &mut compare).unwrap_err();
    assert_eq!(e.side, drift_doctor::Side::Git);
    assert_eq!(e.document, 2);
    let line = text.lines().position(|l| l.contains("[crd")).unwrap() + 1;
    // serde_yaml reports the end of the unclosed flow sequence: the block's
    // last line or the one after it.
    assert!(
        (line..=line + 1).contains(&e.line),
        "error at line {} (the block's error is around {line}): {e}",
        e.line
    );
    assert!(e.column >= 1, "{e}");
    assert!(e.message.contains("resource.compareoptions"), "{e}");
    assert!(
        compare.ignore_rules.is_empty(),
        "nothing is applied on error"
    );

    // A value Argo CD cannot read points at its key.
    let text = argocd_cm("ignoreResourceStatusField: crd\nignoreAggregatedRoles: sometimes");
    let e = apply_user_settings(&text, &mut CompareOptions::default()).unwrap_err();
    let line = text
        .lines()
        .position(|l| l.contains("ignoreAggregatedRoles"))
        .unwrap()
        + 1;
    assert_eq!((e.document, e.line, e.column), (1, line, 5), "{e}");
    assert!(e.message.contains("ignoreAggregatedRoles"), "{e}");

    // A YAML error in the documents themselves.
    let broken = format!(
        "{}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [argocd-cm\n",
        fixture("app.yaml")
    );
    let e = apply_user_settings(&broken, &mut CompareOptions::default()).unwrap_err();
    assert_eq!(e.document, 2, "{e}");
    assert!(e.line > fixture("app.yaml").lines().count(), "{e}");
    assert!(
        e.to_string().starts_with("git side, document 2, line "),
        "{e}"
    );
}

const GATEWAY: &str = "net.example.com/Gateway/shop/edge";

fn crd_report(strategy: Strategy) -> Report {
    run(
        "crd-defaults-git.yaml",
        "crd-defaults-live.yaml",
        CompareOptions {
            strategy,
            ..Default::default()
        },
    )
}

#[test]
fn crd_schema_defaults_are_not_differences_under_server_side_apply() {
    for strategy in [Strategy::ServerSideApply, Strategy::ServerSideDiff] {
        let report = crd_report(strategy);
        assert_eq!(
            status_of(&report, GATEWAY),
            Status::Synced,
            "{}",
            strategy.id()
        );
        for pointer in [
            "/spec/listeners/0/protocol",
            "/spec/listeners/0/tls",
            "/spec/mode",
        ] {
            let d = diff(&report, GATEWAY, pointer);
            assert!(!d.visible, "{} {pointer}", strategy.id());
            assert!(
                reason(d).contains("default in the schema of CRD gateways.net.example.com"),
                "{pointer}: {}",
                reason(d)
            );
        }
    }
}

#[test]
fn crd_schema_defaults_need_the_crd_and_a_default_value() {
    let cr = |text: &str| {
        text.split("\n---\n")
            .find(|d| d.contains("\nkind: Gateway\n"))
            .unwrap()
            .to_string()
    };
    let git = fixture("crd-defaults-git.yaml");
    let live = fixture("crd-defaults-live.yaml");
    let opts = Options {
        compare: CompareOptions {
            strategy: Strategy::ServerSideDiff,
            ..Default::default()
        },
        ..Default::default()
    };
    // Without the CRD, nothing says the listener's protocol is a default:
    // Git's list replaces the live one and the field differs.
    let report = analyze(&cr(&git), &cr(&live), &opts).unwrap();
    common::assert_valid(&report);
    assert!(diff(&report, GATEWAY, "/spec/listeners/0/protocol").visible);
    // A live value other than the default is a real difference: the dry run
    // would store the default.
    let udp = live.replace("    protocol: TCP", "    protocol: UDP");
    let report = analyze(&git, &udp, &opts).unwrap();
    common::assert_valid(&report);
    let d = diff(&report, GATEWAY, "/spec/listeners/0/protocol");
    assert!(d.visible);
    assert_eq!(
        (
            d.git.as_ref().and_then(|v| v.as_str()),
            d.live.as_ref().and_then(|v| v.as_str())
        ),
        (Some("TCP"), Some("UDP"))
    );
}

#[test]
fn crd_schema_defaults_are_not_differences_under_legacy_either() {
    // The legacy diff trims live custom resources to the fields of the
    // original, so defaults Git never declared never differ.
    let report = crd_report(Strategy::Legacy);
    assert_eq!(status_of(&report, GATEWAY), Status::Synced);
    let d = diff(&report, GATEWAY, "/spec/listeners/0/protocol");
    assert!(!d.visible);
    assert!(reason(d).contains("schema of CRD"), "{}", reason(d));
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_drift-doctor"))
}

fn link_options(extra: &[&str]) -> std::collections::BTreeMap<String, String> {
    let mut args = vec![
        "link".to_string(),
        "--git".into(),
        fixture_path("status-git.yaml"),
        "--live".into(),
        fixture_path("status-live.yaml"),
        "--base".into(),
        "https://tools.example.com/drift-doctor/".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = bin().args(&args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let fragment = url.split_once('#').expect("a fragment").1;
    drift_doctor::share::decode_fragment(fragment)
        .unwrap()
        .options
}

#[test]
fn cli_link_stores_strategy_roles_and_settings() {
    let app = fixture_path("app.yaml");
    let cm = fixture_path("argocd-cm.yaml");
    let options = link_options(&[
        "--strategy",
        "server-side-diff",
        "--ignore-aggregated-roles",
        "--app",
        &app,
        "--argocd-cm",
        &cm,
    ]);
    let expected_settings = format!(
        "{}\n---\n{}",
        fixture("app.yaml"),
        fixture("argocd-cm.yaml")
    );
    let expected: std::collections::BTreeMap<String, String> = [
        ("strategy", "server-side-diff".to_string()),
        ("ignoreAggregatedRoles", "true".to_string()),
        ("argocdSettings", expected_settings),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(options, expected);
    assert_eq!(
        Strategy::from_id(&options["strategy"]),
        Some(Strategy::ServerSideDiff)
    );

    // Defaults are left out: legacy, roles off, no settings.
    assert!(link_options(&[]).is_empty());
    assert!(link_options(&["--strategy", "legacy"]).is_empty());
    let one = link_options(&["--strategy", "server-side-apply", "--argocd-cm", &cm]);
    assert_eq!(one["strategy"], "server-side-apply");
    assert_eq!(one["argocdSettings"], fixture("argocd-cm.yaml"));
    assert!(!one.contains_key("ignoreAggregatedRoles"));
}

#[test]
fn cli_link_and_analyze_refuse_broken_settings() {
    let dir = std::env::temp_dir().join(format!("drift-doctor-settings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("argocd-cm.yaml");
    std::fs::write(&bad, argocd_cm("ignoreResourceStatusField: [crd")).unwrap();
    for command in ["link", "analyze"] {
        let out = bin()
            .args([
                command,
                "--git",
                &fixture_path("status-git.yaml"),
                "--live",
                &fixture_path("status-live.yaml"),
                "--argocd-cm",
                bad.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{command}");
        let err = String::from_utf8_lossy(&out.stderr);
        // The file is named with its option, never as a side of the comparison.
        let named = format!("--argocd-cm {}, document 1, line ", bad.display());
        assert!(err.contains(&named), "{command}: {err}");
        assert!(!err.contains("git side"), "{command}: {err}");
    }
}

#[test]
fn cli_analyze_applies_compare_options_from_argocd_cm() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "analyze".to_string(),
            "--git".into(),
            fixture_path("status-git.yaml"),
            "--live".into(),
            fixture_path("status-live.yaml"),
            "--format".into(),
            "json".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let out = bin().args(&args).output().unwrap();
        let report: Report = serde_json::from_slice(&out.stdout).unwrap();
        common::assert_valid(&report);
        (out.status.code(), report)
    };
    // Default: status ignored, everything Synced.
    assert_eq!(run(&[]).0, Some(0));
    // argocd-cm says ignoreResourceStatusField: none.
    let (code, report) = run(&["--argocd-cm", &fixture_path("argocd-cm.yaml")]);
    assert_eq!(code, Some(1));
    assert!(diff(&report, WIDGET, "/status/phase").visible);
    assert_eq!(status_of(&report, DEPLOYMENT), Status::Synced);
}

/// Pasted diff output: the user's ignoreDifferences rules hide what they
/// cover (JSON pointers and jq, judged on the fields the hunks show), and a
/// resource whose every change they hide is Synced.
#[test]
fn user_rules_apply_to_pasted_diff_output() {
    let text = common::read("tests/fixtures/difftext/argo_unified_u3.txt");
    let app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: guestbook}\nspec:\n  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    jsonPointers: [/spec/replicas]\n  - group: apps\n    kind: Deployment\n    jqPathExpressions: ['.spec.template.spec.containers[] | select(.name == \"guestbook-ui\") | .image']\n  - kind: Service\n    name: guestbook-ui\n    jsonPointers: [/spec/ports]\n";
    let analyse = |rules: &str, include_hidden: bool| {
        let mut compare = CompareOptions {
            include_hidden,
            ..Default::default()
        };
        apply_user_settings(rules, &mut compare).unwrap();
        let report = drift_doctor::analyze_diff(
            &text,
            &Options {
                compare,
                ..Default::default()
            },
        )
        .unwrap();
        common::assert_valid(&report);
        common::assert_invariants(&report);
        report
    };
    let plain = analyse("", true);
    let ruled = analyse(app, true);
    let deployment = "apps/Deployment/default/guestbook-ui";
    for pointer in ["/spec/replicas", "/spec/template/spec/containers/0/image"] {
        assert!(
            diff(&plain, deployment, pointer).visible,
            "{pointer} counts without rules"
        );
        let d = diff(&ruled, deployment, pointer);
        assert!(!d.visible, "{pointer} is hidden by a rule");
        assert!(
            reason(d).contains("spec.ignoreDifferences["),
            "{}",
            reason(d)
        );
    }
    // Other fields of the same Deployment still count.
    assert!(
        diff(
            &ruled,
            deployment,
            "/spec/template/spec/containers/1/resources/limits/memory"
        )
        .visible
    );
    assert_eq!(status_of(&ruled, deployment), Status::OutOfSync);
    // The Service's only change is under /spec/ports: Synced now, and still
    // listed when hidden differences are not asked for.
    let service = "/Service/default/guestbook-ui";
    assert_eq!(status_of(&plain, service), Status::OutOfSync);
    assert_eq!(status_of(&ruled, service), Status::Synced);
    let quiet = analyse(app, false);
    assert_eq!(status_of(&quiet, service), Status::Synced);
    assert!(resource(&quiet, service).differences.is_empty());
    // The rule names a Service: the canary Service is untouched.
    assert_eq!(
        status_of(&ruled, "/Service/default/guestbook-canary"),
        status_of(&plain, "/Service/default/guestbook-canary")
    );
    assert_eq!(ruled.summary.out_of_sync + 1, plain.summary.out_of_sync);
}

/// A pasted argocd-cm's `resource.exclusions` and `resource.inclusions`
/// decide which kinds Argo CD compares, in place of the stock ones.
#[test]
fn a_pasted_argocd_cm_filter_decides_which_kinds_are_compared() {
    let git = r#"
apiVersion: v1
kind: ConfigMap
metadata: {name: flags, namespace: shop}
data: {mode: fast}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: legacy-db-1, namespace: shop}
addressType: IPv4
endpoints: [{addresses: [10.0.0.9]}]
"#;
    let live = r#"
apiVersion: v1
kind: ConfigMap
metadata: {name: flags, namespace: shop}
data: {mode: slow}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: legacy-db-1, namespace: shop}
addressType: IPv4
endpoints: [{addresses: [10.0.0.7]}]
"#;
    let analyse = |settings: Option<&str>| {
        let mut compare = CompareOptions::default();
        if let Some(s) = settings {
            apply_user_settings(s, &mut compare).unwrap();
        }
        let report = analyze(
            git,
            live,
            &Options {
                compare,
                ..Default::default()
            },
        )
        .unwrap();
        common::assert_valid(&report);
        report
    };
    let ids = |r: &Report| -> Vec<String> {
        r.resources
            .iter()
            .filter(|r| r.status == Status::OutOfSync)
            .map(|r| r.id.clone())
            .collect()
    };
    // Stock 3.x settings leave EndpointSlices out.
    assert_eq!(ids(&analyse(None)), ["/ConfigMap/shop/flags"]);
    // A pasted filter replaces them: ConfigMaps out, EndpointSlices back in.
    let cm = r#"
apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm, namespace: argocd}
data:
  resource.exclusions: |
    - apiGroups: [""]
      kinds: [ConfigMap]
      clusters: ["*"]
"#;
    let report = analyse(Some(cm));
    assert_eq!(
        ids(&report),
        ["discovery.k8s.io/EndpointSlice/shop/legacy-db-1"]
    );
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("/ConfigMap/shop/flags") && w.contains("resource.exclusions")),
        "{:?}",
        report.warnings
    );
    // Inclusions: only what they name is compared.
    let only_discovery = r#"
data:
  resource.inclusions: |
    - apiGroups: ["discovery.k8s.io"]
"#;
    assert_eq!(
        ids(&analyse(Some(only_discovery))),
        ["discovery.k8s.io/EndpointSlice/shop/legacy-db-1"]
    );
    // Not a list: refused, naming the key.
    let mut compare = CompareOptions::default();
    let bad = "data:\n  resource.exclusions: |\n    apiGroups: [\"\"]\n";
    let err = apply_user_settings(bad, &mut compare).unwrap_err();
    assert!(err.to_string().contains("resource.exclusions"), "{err}");
}

/// The page's strategy wins over a pasted Application's only when chosen:
/// "as the Application says" (empty) takes its `ServerSideApply=true`, an
/// explicit legacy choice keeps the client-side diff, and a link keeps the
/// difference between the two.
#[cfg(feature = "web")]
#[test]
fn the_pages_strategy_wins_over_the_application_only_when_chosen() {
    use drift_doctor::web::{engine, protocol::Input};
    let git = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: shop}\ndata: {mode: a}\n";
    let live = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: shop}\ndata: {mode: a}\n";
    let app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop, namespace: argocd}\nspec:\n  destination: {namespace: shop}\n  syncPolicy:\n    syncOptions: [ServerSideApply=true]\n";
    let settings_of = |strategy: &str| {
        let mut input = Input::sides(git, live);
        input.application = app.to_string();
        input.strategy = strategy.to_string();
        let report = engine::analyze(&input).unwrap();
        let back = Input::from_share(&input.to_share(None));
        assert_eq!(back.strategy, strategy, "a link keeps the choice");
        report.argocd_status.unwrap().settings.join(" ")
    };
    let own = settings_of("");
    assert!(own.contains("Compared as `server-side-apply`"), "{own}");
    let chosen = settings_of("legacy");
    assert!(
        chosen.contains("asks for `server-side-apply`, but the comparison given (`legacy`)"),
        "{chosen}"
    );
}
