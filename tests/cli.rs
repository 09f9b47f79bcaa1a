//! The command line end to end: exit codes, formats, stdin, errors.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_drift-doctor"))
}

fn scenario(name: &str, side: &str) -> String {
    common::root()
        .join(format!("tests/fixtures/scenarios/{name}/{side}.yaml"))
        .display()
        .to_string()
}

#[test]
fn exit_zero_when_everything_is_synced() {
    let out = bin()
        .args([
            "analyze",
            "--git",
            &scenario("all-synced-server-noise", "git"),
            "--live",
            &scenario("all-synced-server-noise", "live"),
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Everything is Synced"));
}

#[test]
fn exit_one_and_a_valid_json_report_when_out_of_sync() {
    let out = bin()
        .args([
            "analyze",
            "--git",
            &scenario("mixed-app", "git"),
            "--live",
            &scenario("mixed-app", "live"),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: drift_doctor::Report = serde_json::from_slice(&out.stdout).expect("JSON report");
    common::assert_valid(&report);
    assert!(report.summary.out_of_sync > 0);
}

#[test]
fn exit_two_with_side_document_and_line_on_bad_input() {
    let dir = std::env::temp_dir().join(format!("drift-doctor-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [broken\n").unwrap();
    let out = bin()
        .args([
            "analyze",
            "--git",
            &scenario("real-drift", "git"),
            "--live",
            bad.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("live side, document 2, line"), "{err}");
    let missing = bin()
        .args([
            "analyze",
            "--git",
            "/nonexistent/git.yaml",
            "--live",
            bad.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr)
        .contains("git side: cannot read /nonexistent/git.yaml"));
}

#[test]
fn reads_one_side_from_stdin_and_prints_markdown() {
    let mut child = bin()
        .args([
            "analyze",
            "--git",
            "-",
            "--live",
            &scenario("autoscaler-hpa-replicas", "live"),
            "--format",
            "markdown",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            common::read("tests/fixtures/scenarios/autoscaler-hpa-replicas/git.yaml").as_bytes(),
        )
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.starts_with("## drift-doctor report"));
    assert!(md.contains("| `/spec/replicas` |"), "{md}");
    assert!(md.contains("### Prevention checklist"));
}

#[test]
fn both_sides_from_stdin_is_refused() {
    let out = bin()
        .args(["analyze", "--git", "-", "--live", "-"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("only one side"));
}

#[test]
fn help_explains_with_an_example() {
    let out = bin().args(["analyze", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("--include-hidden")
            && help.contains("drift-doctor analyze --git git.yaml --live live.yaml")
    );
}

#[test]
fn rules_and_explain() {
    let out = bin().arg("rules").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("AS001"));
    let out = bin().args(["explain", "as001"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Why it loops") && text.contains("What the ignore could hide"),
        "{text}"
    );
    let out = bin().args(["explain", "ZZ999"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn analyses_pasted_argocd_diff_text() {
    let fixture = common::root().join("tests/fixtures/difftext/argo_unified_u3.txt");
    let out = bin()
        .args([
            "analyze",
            "--diff",
            fixture.to_str().unwrap(),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: drift_doctor::Report = serde_json::from_slice(&out.stdout).unwrap();
    common::assert_valid(&report);
    assert!(report.resources.iter().any(|r| r.kind == "Deployment"));
    let bad = bin()
        .args(["analyze", "--diff", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut bad = bad;
    bad.stdin
        .take()
        .unwrap()
        .write_all(b"this is not diff output at all\n")
        .unwrap();
    let out = bad.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("drift-doctor: diff side"));
}

#[test]
fn user_ignore_rules_hide_what_they_cover() {
    let dir = std::env::temp_dir().join(format!("drift-doctor-app-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let app = dir.join("app.yaml");
    std::fs::write(
        &app,
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop}\nspec:\n  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    jsonPointers: [/spec/replicas]\n",
    )
    .unwrap();
    let args = |extra: &[&str]| {
        let mut v = vec![
            "analyze".to_string(),
            "--git".into(),
            scenario("autoscaler-hpa-replicas", "git"),
            "--live".into(),
            scenario("autoscaler-hpa-replicas", "live"),
            "--format".into(),
            "json".into(),
        ];
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let out = bin()
        .args(args(&["--app", app.to_str().unwrap(), "--include-hidden"]))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "the HPA replicas difference is ignored by the rule"
    );
    let report: drift_doctor::Report = serde_json::from_slice(&out.stdout).unwrap();
    let replicas = report
        .resources
        .iter()
        .flat_map(|r| &r.differences)
        .find(|d| d.pointer == "/spec/replicas")
        .unwrap();
    assert!(!replicas.visible);
    assert!(replicas
        .hidden_reason
        .as_deref()
        .unwrap()
        .contains("ignored by your rule Application shop spec.ignoreDifferences[0]"));
}

#[test]
fn link_prints_a_fragment_url_without_secret_values() {
    let out = bin()
        .args([
            "link",
            "--git",
            &scenario("helm-random-secret", "git"),
            "--live",
            &scenario("helm-random-secret", "live"),
            "--base",
            "https://tools.example.com/drift-doctor/",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(
        url.starts_with("https://tools.example.com/drift-doctor/#v1."),
        "{url}"
    );
    let state = drift_doctor::share::decode_fragment(url.split_once('#').unwrap().1).unwrap();
    let live = common::read("tests/fixtures/scenarios/helm-random-secret/live.yaml");
    let secret_line = live
        .lines()
        .find(|l| l.contains("redis-password:"))
        .unwrap();
    let value = secret_line.split(':').nth(1).unwrap().trim();
    assert!(
        !state.live.contains(value),
        "the link carries a Secret value"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("Secret value(s) replaced by masks"));
}

#[test]
fn argocd_version_selects_the_release_imitated_and_travels_in_links() {
    let name = "ssa-structured-merge-no-crd-defaults-3.4";
    let analyze = |version: Option<&str>| {
        let mut cmd = bin();
        cmd.args([
            "analyze",
            "--git",
            &scenario(name, "git"),
            "--live",
            &scenario(name, "live"),
            "--strategy",
            "server-side-apply",
            "--format",
            "json",
        ]);
        if let Some(v) = version {
            cmd.args(["--argocd-version", v]);
        }
        cmd.output().unwrap()
    };
    // Up to 3.4 ServerSideApply=true is the structured-merge diff; later,
    // server-side diff, whose dry run fills the CRD default.
    for (version, code, stated) in [
        (Some("3.4"), 1, "3.4"),
        (Some("v3.5.1"), 0, "3.5"),
        (
            None,
            0,
            &drift_doctor::argocd_release::NEWEST.to_string()[..],
        ),
    ] {
        let out = analyze(version);
        assert_eq!(out.status.code(), Some(code), "{version:?}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["argocd_version"], stated, "{version:?}");
    }
    let out = analyze(Some("three"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not MAJOR.MINOR"));

    let link = |extra: &[&str]| {
        let out = bin()
            .args([
                "link",
                "--git",
                &scenario(name, "git"),
                "--live",
                &scenario(name, "live"),
            ])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
        drift_doctor::share::decode_fragment(url.split_once('#').unwrap().1).unwrap()
    };
    let old = link(&["--argocd-version", "2.14"]);
    assert_eq!(
        old.option(drift_doctor::share::OPTION_ARGOCD_VERSION),
        "2.14"
    );
    assert_eq!(old.release(), drift_doctor::ArgoCdRelease::new(2, 14));
    let newest = link(&[]);
    assert!(!newest
        .options
        .contains_key(drift_doctor::share::OPTION_ARGOCD_VERSION));
    assert_eq!(newest.release(), drift_doctor::argocd_release::NEWEST);
}
