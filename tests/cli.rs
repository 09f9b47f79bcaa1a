//! The command line end to end: exit codes, formats, stdin, errors.

use crate::common;

use drift_doctor::share::{decode_fragment, ShareState};
use drift_doctor::Report;
use std::ffi::OsStr;
use std::io::Write;
use std::path::PathBuf;
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
fn run(args: &[impl AsRef<OsStr>], stdin: Option<&str>) -> Output {
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

/// `cmd --git git --live live extra…` as arguments.
fn sides(cmd: &str, git: &str, live: &str, extra: &[&str]) -> Vec<String> {
    [cmd, "--git", git, "--live", live]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

/// Run `cmd` on a scenario's Git and live files, with `extra` arguments.
fn on_scenario(cmd: &str, name: &str, extra: &[&str]) -> Output {
    let (git, live) = (scenario(name, "git"), scenario(name, "live"));
    run(&sides(cmd, &git, &live, extra), None)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The JSON a run printed.
fn json<T: serde::de::DeserializeOwned>(out: &Output) -> T {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            stderr(out)
        )
    })
}

/// What the link a run printed carries.
fn link_state(out: &Output) -> ShareState {
    let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
    decode_fragment(url.split_once('#').unwrap().1).unwrap()
}

/// A file of this run's own under the temporary directory.
fn temp_file(dir: &str, name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("drift-doctor-{dir}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
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
    let bad = temp_file("cli", "bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [broken\n");
    let bad = bad.to_str().unwrap();
    let hpa_git = common::read("tests/fixtures/scenarios/autoscaler-hpa-replicas/git.yaml");
    let analyze = |git: &str, live: &str, extra: &[&str]| sides("analyze", git, live, extra);
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
                Out("| `spec.replicas` |"),
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
    let out = on_scenario("analyze", "mixed-app", &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: Report = json(&out);
    common::assert_valid(&report);
    assert!(report.summary.out_of_sync > 0);
}

#[test]
fn analyses_pasted_argocd_diff_text() {
    let fixture = common::root().join("tests/fixtures/difftext/argo_unified_u3.txt");
    let out = run(
        &[
            "analyze",
            "--diff",
            fixture.to_str().unwrap(),
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Report = json(&out);
    common::assert_valid(&report);
    assert!(report.resources.iter().any(|r| r.kind == "Deployment"));
}

#[test]
fn user_ignore_rules_hide_what_they_cover() {
    let app = temp_file(
        "app",
        "app.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop}\nspec:\n  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    jsonPointers: [/spec/replicas]\n",
    );
    let out = on_scenario(
        "analyze",
        "autoscaler-hpa-replicas",
        &[
            "--format",
            "json",
            "--app",
            app.to_str().unwrap(),
            "--include-hidden",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "the HPA replicas difference is ignored by the rule"
    );
    let report: Report = json(&out);
    let replicas = report
        .resources
        .iter()
        .flat_map(|r| &r.differences)
        .find(|d| d.pointer == "/spec/replicas")
        .unwrap();
    assert!(!replicas.visible);
    assert!(replicas
        .hidden_reason
        .as_ref()
        .unwrap()
        .to_string()
        .contains("ignored by your rule Application shop spec.ignoreDifferences[0]"));
}

#[test]
fn link_prints_a_fragment_url_without_secret_values() {
    let out = on_scenario(
        "link",
        "helm-random-secret",
        &["--base", "https://tools.example.com/drift-doctor/"],
    );
    assert_eq!(out.status.code(), Some(0));
    let url = String::from_utf8_lossy(&out.stdout);
    assert!(
        url.starts_with("https://tools.example.com/drift-doctor/#v1."),
        "{url}"
    );
    let state = link_state(&out);
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
    let err = stderr(&out);
    assert!(
        err.contains("Secret value replaced by masks")
            || err.contains("Secret values replaced by masks"),
        "{err}"
    );
}

#[test]
fn argocd_version_selects_the_release_imitated_and_travels_in_links() {
    let name = "ssa-structured-merge-no-crd-defaults-3.4";
    let analyze = |version: Option<&str>| {
        let mut extra = vec!["--strategy", "server-side-apply", "--format", "json"];
        extra.extend(
            version
                .map(|v| ["--argocd-version", v])
                .into_iter()
                .flatten(),
        );
        on_scenario("analyze", name, &extra)
    };
    // Up to 3.5 ServerSideApply=true is the structured-merge diff; from 3.6,
    // server-side diff, whose dry run fills the CRD default.
    for (version, code, stated) in [
        (Some("3.4"), 1, "3.4"),
        (Some("v3.5.1"), 1, "3.5.1"),
        (Some("3.6"), 0, "3.6"),
        (
            None,
            0,
            &drift_doctor::argocd_release::NEWEST.to_string()[..],
        ),
    ] {
        let out = analyze(version);
        assert_eq!(out.status.code(), Some(code), "{version:?}");
        let report: serde_json::Value = json(&out);
        assert_eq!(report["argocd_version"], stated, "{version:?}");
    }
    let out = analyze(Some("three"));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not MAJOR.MINOR"));

    let link = |extra: &[&str]| {
        let out = on_scenario("link", name, extra);
        assert_eq!(out.status.code(), Some(0));
        link_state(&out)
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

/// A fix that came in a patch release: `--argocd-version 3.4.5` and `3.4.6`
/// answer differently (argo-cd PR #28770: from 3.4.6 another app's tracking
/// id on a live object carrying the instance label is a difference), and the
/// report names the exact release.
#[test]
fn a_patch_release_gives_its_own_answer() {
    let name = "tracking-backfill-hides-another-apps-id-3.4.6";
    for (version, code) in [("3.4.5", 0), ("3.4.6", 1), ("3.5.0", 1), ("3.3.14", 0)] {
        let out = on_scenario(
            "analyze",
            name,
            &["--argocd-version", version, "--format", "json"],
        );
        assert_eq!(out.status.code(), Some(code), "{version}: {}", stderr(&out));
        let report: serde_json::Value = json(&out);
        assert_eq!(report["argocd_version"], version);
    }
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

/// `cmd` on an Application scenario's Git and live files with `extra`.
fn on_app_scenario(cmd: &str, scenario: &str, extra: &[&str]) -> Output {
    let (git, live) = (
        app_fixture(scenario, "git.yaml"),
        app_fixture(scenario, "live.yaml"),
    );
    run(&sides(cmd, &git, &live, extra), None)
}

/// `analyze` of an Application scenario with its Application, and `extra`.
fn analyze_app(scenario: &str, extra: &[&str]) -> Output {
    let app = app_fixture(scenario, "application.yaml");
    let args = [&["--application", app.as_str()], extra].concat();
    on_app_scenario("analyze", scenario, &args)
}

#[test]
fn application_adds_argocd_status_and_its_settings() {
    let out = analyze_app("job-immutable", &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Report = json(&out);
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
    let report: Report = json(&out);
    let settings = report.argocd_status.unwrap().settings;
    assert!(
        settings.iter().any(
            |s| s.contains("asks for `server-side-apply`") && s.contains("(`legacy`) was used")
        ),
        "{settings:?}"
    );
    let out = analyze_app("ssa-conflict", &["--format", "json"]);
    let report: Report = json(&out);
    assert!(report
        .argocd_status
        .unwrap()
        .settings
        .iter()
        .any(|s| s.contains("Compared as `server-side-apply`")));
}

#[test]
fn a_broken_application_exits_2_naming_the_option() {
    let bad = temp_file(
        "application",
        "app.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    );
    let out = on_app_scenario(
        "analyze",
        "healthy-synced",
        &["--application", bad.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("--application"), "{err}");
    assert!(err.contains("no object of kind Application"), "{err}");
}

#[test]
fn git_again_explains_what_two_renders_disagree_on() {
    let dir = common::root().join("tests/fixtures/second_render/helm-generated");
    let file = |n: &str| dir.join(n).display().to_string();
    let again = file("git-again.yaml");
    let extra = [
        "--git-again",
        &again,
        "--namespace",
        "shop",
        "--format",
        "json",
    ];
    let out = run(
        &sides("analyze", &file("git.yaml"), &file("live.yaml"), &extra),
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let report: Report = json(&out);
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
            "analyze",
            "--diff",
            &file("git.yaml"),
            "--git-again",
            &again,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn link_carries_the_applications_settings() {
    let app = app_fixture("ssa-conflict", "application.yaml");
    let out = on_app_scenario("link", "ssa-conflict", &["--application", &app]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let state = link_state(&out);
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
    let name = "several-causes-one-app";
    let plan = on_scenario("plan", name, &["--format", "yaml"]);
    assert_eq!(plan.status.code(), Some(1));
    let yaml = String::from_utf8(plan.stdout).unwrap();
    assert!(
        yaml.starts_with("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"),
        "{yaml}"
    );
    let path = std::env::temp_dir().join(format!("drift-doctor-plan-{}.yaml", std::process::id()));
    std::fs::write(&path, &yaml).unwrap();
    let planned: serde_json::Value = json(&on_scenario("plan", name, &["--format", "json"]));
    let after = on_scenario(
        "analyze",
        name,
        &["--app", &path.display().to_string(), "--format", "json"],
    );
    let _ = std::fs::remove_file(&path);
    let report: serde_json::Value = json(&after);
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
    let out = on_scenario("plan", "all-synced-server-noise", &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to plan"));
}

/// A terminal's prompt and log lines pasted above the manifests are
/// skipped with a note naming them; the report is the one without them.
#[test]
fn a_prompt_above_the_manifests_is_skipped_with_a_note() {
    let live = std::fs::read_to_string(scenario("mixed-app", "live")).unwrap();
    let pasted = temp_file(
        "prompt",
        "live.yaml",
        &format!("$ argocd app manifests shop --source live\nWARN[0000] Failed to invoke grpc call. Use flag --grpc-web in grpc calls.\n{live}"),
    );
    let git = scenario("mixed-app", "git");
    let with = run(
        &sides(
            "analyze",
            &git,
            pasted.to_str().unwrap(),
            &["--format", "json"],
        ),
        None,
    );
    let without = on_scenario("analyze", "mixed-app", &["--format", "json"]);
    assert_eq!(
        with.status.code(),
        without.status.code(),
        "{}",
        stderr(&with)
    );
    assert_eq!(json::<Report>(&with), json::<Report>(&without));
    assert_eq!(
        stderr(&with).trim(),
        "note: The live side starts with 2 lines that are not YAML (line 1 “$ argocd app manifests shop --source live”, line 2 “WARN[0000] Failed to invoke grpc call. Use flag --grpc-web in grpc calls.”): skipped."
    );
    assert_eq!(stderr(&without), "");
}
