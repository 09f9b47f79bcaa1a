//! The command line end to end: exit codes, formats, stdin, errors.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_drift-doctor"))
}

fn scenario(name: &str, side: &str) -> String {
    common::root()
        .join(format!("tests/fixtures/scenarios/{name}/{side}.yaml"))
        .display()
        .to_string()
}

/// Run the CLI with `args`, and `stdin` as its standard input (none: empty).
fn run(args: &[String], stdin: Option<&str>) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    child.wait_with_output().unwrap()
}

/// What a run's output must show.
enum Shows {
    /// Standard output contains this.
    Out(&'static str),
    /// Standard output starts with this.
    OutStart(&'static str),
    /// Standard error contains this.
    Err(&'static str),
    /// Standard error starts with this.
    ErrStart(&'static str),
}

/// What a run is, its arguments, its standard input, its exit code and what
/// its output shows.
type Case<'a> = (&'a str, Vec<String>, Option<&'a str>, i32, Vec<Shows>);

#[test]
fn exit_codes_and_what_each_run_shows() {
    use Shows::*;
    let dir = std::env::temp_dir().join(format!("drift-doctor-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [broken\n").unwrap();
    let bad = bad.to_str().unwrap();
    let hpa_git = common::read("tests/fixtures/scenarios/autoscaler-hpa-replicas/git.yaml");
    let analyze = |git: &str, live: &str, extra: &[&str]| -> Vec<String> {
        let mut v = vec![
            "analyze".to_string(),
            "--git".into(),
            git.into(),
            "--live".into(),
            live.into(),
        ];
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let words = |w: &[&str]| -> Vec<String> { w.iter().map(|s| s.to_string()).collect() };
    let cases: Vec<Case> = vec![
        (
            "everything synced exits 0",
            analyze(
                &scenario("all-synced-server-noise", "git"),
                &scenario("all-synced-server-noise", "live"),
                &[],
            ),
            None,
            0,
            vec![Out("Everything is Synced")],
        ),
        (
            "bad input exits 2 naming side, document and line",
            analyze(&scenario("real-drift", "git"), bad, &[]),
            None,
            2,
            vec![Err("live side, document 2, line")],
        ),
        (
            "a missing file exits 2 naming the side",
            analyze("/nonexistent/git.yaml", bad, &[]),
            None,
            2,
            vec![Err("git side: cannot read /nonexistent/git.yaml")],
        ),
        (
            "one side from stdin, as Markdown",
            analyze(
                "-",
                &scenario("autoscaler-hpa-replicas", "live"),
                &["--format", "markdown"],
            ),
            Some(&hpa_git),
            1,
            vec![
                OutStart("## drift-doctor report"),
                Out("| `/spec/replicas` |"),
                Out("### Prevention checklist"),
            ],
        ),
        (
            "both sides from stdin is refused",
            analyze("-", "-", &[]),
            None,
            2,
            vec![Err("only one side")],
        ),
        (
            "help explains with an example",
            words(&["analyze", "--help"]),
            None,
            0,
            vec![
                Out("--include-hidden"),
                Out("drift-doctor analyze --git git.yaml --live live.yaml"),
            ],
        ),
        (
            "rules lists the codes",
            words(&["rules"]),
            None,
            0,
            vec![Out("AS001")],
        ),
        (
            "explain takes a code in any case",
            words(&["explain", "as001"]),
            None,
            0,
            vec![Out("Why it loops"), Out("What the ignore could hide")],
        ),
        (
            "explain refuses an unknown code",
            words(&["explain", "ZZ999"]),
            None,
            2,
            vec![],
        ),
        (
            "text that is no diff output is refused",
            words(&["analyze", "--diff", "-"]),
            Some("this is not diff output at all\n"),
            2,
            vec![ErrStart("drift-doctor: diff side")],
        ),
    ];
    for (what, args, stdin, code, shows) in cases {
        let out = run(&args, stdin);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{what}\n{stdout}\n{stderr}");
        for show in shows {
            let (ok, expected) = match show {
                Out(t) => (stdout.contains(t), t),
                OutStart(t) => (stdout.starts_with(t), t),
                Err(t) => (stderr.contains(t), t),
                ErrStart(t) => (stderr.starts_with(t), t),
            };
            assert!(ok, "{what}: expected {expected:?}\n{stdout}\n{stderr}");
        }
    }
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
    // Up to 3.5 ServerSideApply=true is the structured-merge diff; from 3.6,
    // server-side diff, whose dry run fills the CRD default.
    for (version, code, stated) in [
        (Some("3.4"), 1, "3.4"),
        (Some("v3.5.1"), 1, "3.5"),
        (Some("3.6"), 0, "3.6"),
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

fn app_fixture(scenario: &str, name: &str) -> String {
    let own = common::root().join(format!("tests/fixtures/application/{scenario}/{name}"));
    if own.exists() {
        own.display().to_string()
    } else {
        common::root()
            .join(format!("tests/fixtures/application/common/{name}"))
            .display()
            .to_string()
    }
}

/// `analyze` of an Application scenario with its Application, and `extra`.
fn analyze_app(scenario: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "analyze".to_string(),
        "--git".into(),
        app_fixture(scenario, "git.yaml"),
        "--live".into(),
        app_fixture(scenario, "live.yaml"),
        "--application".into(),
        app_fixture(scenario, "application.yaml"),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    run(&args, None)
}

#[test]
fn application_adds_argocd_status_and_its_settings() {
    let out = analyze_app("job-immutable", &["--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: drift_doctor::Report = serde_json::from_slice(&out.stdout).unwrap();
    common::assert_valid(&report);
    // The destination namespace placed the Git Job beside the live one.
    assert_eq!(report.resources.len(), 1);
    assert_eq!(report.resources[0].id, "batch/Job/billing/db-migrate");
    let status = report.argocd_status.expect("argocd_status");
    assert_eq!(status.sync_errors[0].code, "SE001");
    assert_eq!(
        status.sync_errors[0].resource.as_deref(),
        Some("batch/Job/billing/db-migrate")
    );
    // The app's name replaces the placeholder in the emergency steps.
    assert!(report
        .emergency
        .iter()
        .any(|s| s.contains("argocd app set billing")));

    let text = analyze_app("selfheal-loop", &[]);
    let text = String::from_utf8_lossy(&text.stdout);
    let section = text.find("Argo CD's own status: shop").expect("section");
    let loop_at = text.find("sync loop: Argo CD synced revision").unwrap();
    let card = text.find("\nOutOfSync apps/Deployment/shop/web").unwrap();
    assert!(section < loop_at && loop_at < card, "{text}");
}

#[test]
fn explicit_flags_win_over_the_applications_settings() {
    let out = analyze_app(
        "ssa-conflict",
        &["--strategy", "legacy", "--format", "json"],
    );
    let report: drift_doctor::Report = serde_json::from_slice(&out.stdout).unwrap();
    let settings = report.argocd_status.unwrap().settings;
    assert!(
        settings.iter().any(
            |s| s.contains("asks for `server-side-apply`") && s.contains("(`legacy`) was used")
        ),
        "{settings:?}"
    );
    let out = analyze_app("ssa-conflict", &["--format", "json"]);
    let report: drift_doctor::Report = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report
        .argocd_status
        .unwrap()
        .settings
        .iter()
        .any(|s| s.contains("Compared as `server-side-apply`")));
}

#[test]
fn a_broken_application_exits_2_naming_the_option() {
    let dir = std::env::temp_dir().join(format!("drift-doctor-application-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("app.yaml");
    std::fs::write(
        &bad,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    )
    .unwrap();
    let args: Vec<String> = [
        "analyze",
        "--git",
        &app_fixture("healthy-synced", "git.yaml"),
        "--live",
        &app_fixture("healthy-synced", "live.yaml"),
        "--application",
        bad.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = run(&args, None);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--application"), "{err}");
    assert!(err.contains("no object of kind Application"), "{err}");
}

#[test]
fn git_again_explains_what_two_renders_disagree_on() {
    let dir = common::root().join("tests/fixtures/second_render/helm-generated");
    let file = |n: &str| dir.join(n).display().to_string();
    let args: Vec<String> = [
        "analyze",
        "--git",
        &file("git.yaml"),
        "--live",
        &file("live.yaml"),
        "--git-again",
        &file("git-again.yaml"),
        "--namespace",
        "shop",
        "--format",
        "json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = run(&args, None);
    assert_eq!(out.status.code(), Some(1));
    let report: drift_doctor::Report = serde_json::from_slice(&out.stdout).unwrap();
    common::assert_valid(&report);
    let rules: Vec<(&str, &str)> = report
        .resources
        .iter()
        .flat_map(|r| &r.differences)
        .map(|d| (d.pointer.as_str(), d.rule.as_str()))
        .collect();
    assert!(rules.contains(&("/data/password", "NR009")), "{rules:?}");
    assert!(rules
        .iter()
        .any(|(p, r)| p.ends_with("/env/0/value") && r.starts_with("DR")));
    // Without --git the second render has nothing to go with.
    let out = run(
        &[
            "analyze".to_string(),
            "--diff".into(),
            file("git.yaml"),
            "--git-again".into(),
            file("git-again.yaml"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn link_carries_the_applications_settings() {
    let args: Vec<String> = [
        "link",
        "--git",
        &app_fixture("ssa-conflict", "git.yaml"),
        "--live",
        &app_fixture("ssa-conflict", "live.yaml"),
        "--application",
        &app_fixture("ssa-conflict", "application.yaml"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = run(&args, None);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let state = drift_doctor::share::decode_fragment(url.split_once('#').unwrap().1).unwrap();
    assert_eq!(state.namespace, "shop");
    assert_eq!(
        state
            .options
            .get(drift_doctor::share::OPTION_STRATEGY)
            .map(String::as_str),
        Some("server-side-apply")
    );
    assert!(state
        .options
        .get(drift_doctor::share::OPTION_SETTINGS)
        .is_some_and(|s| s.contains("ignoreDifferences") && !s.contains("operationState")));
}

/// `plan --format yaml` prints the Application fragment `analyze --app`
/// reads back: with it, only the drift and the fields of Git steps still
/// differ, and the audit finds nothing wrong with the plan's own rules.
#[test]
fn the_plans_yaml_reads_back_as_settings() {
    let s = |x: &str| x.to_string();
    let (git, live) = (
        scenario("several-causes-one-app", "git"),
        scenario("several-causes-one-app", "live"),
    );
    let plan = run(
        &[
            s("plan"),
            s("--git"),
            git.clone(),
            s("--live"),
            live.clone(),
            s("--format"),
            s("yaml"),
        ],
        None,
    );
    assert_eq!(plan.status.code(), Some(1));
    let yaml = String::from_utf8(plan.stdout).unwrap();
    assert!(
        yaml.starts_with("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"),
        "{yaml}"
    );
    let path = std::env::temp_dir().join(format!("drift-doctor-plan-{}.yaml", std::process::id()));
    std::fs::write(&path, &yaml).unwrap();
    let json_plan = run(
        &[
            s("plan"),
            s("--git"),
            git.clone(),
            s("--live"),
            live.clone(),
            s("--format"),
            s("json"),
        ],
        None,
    );
    let planned: serde_json::Value = serde_json::from_slice(&json_plan.stdout).unwrap();
    let after = run(
        &[
            s("analyze"),
            s("--git"),
            git,
            s("--live"),
            live,
            s("--app"),
            path.display().to_string(),
            s("--format"),
            s("json"),
        ],
        None,
    );
    let _ = std::fs::remove_file(&path);
    let report: serde_json::Value = serde_json::from_slice(&after.stdout).unwrap();
    for audit in report["audit"]
        .as_array()
        .expect("an audit of the plan's rules")
    {
        assert!(audit.get("findings").is_none(), "{audit}");
        assert!(audit["hides"].as_u64().unwrap() > 0, "{audit}");
    }
    // Every drift the plan names still shows: the plan never hides it.
    let visible: Vec<(String, String)> = report["resources"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| {
            r["differences"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["visible"] == true)
                .map(move |d| {
                    (
                        r["id"].as_str().unwrap().to_string(),
                        d["pointer"].as_str().unwrap().to_string(),
                    )
                })
        })
        .collect();
    for d in planned["plan"]["drift"].as_array().unwrap() {
        let key = (
            d["resource"].as_str().unwrap().to_string(),
            d["pointer"].as_str().unwrap().to_string(),
        );
        assert!(visible.contains(&key), "{key:?} hidden by the plan");
    }
}

#[test]
fn plan_says_when_there_is_nothing_to_plan() {
    let s = |x: &str| x.to_string();
    let out = run(
        &[
            s("plan"),
            s("--git"),
            scenario("all-synced-server-noise", "git"),
            s("--live"),
            scenario("all-synced-server-noise", "live"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to plan"));
}
