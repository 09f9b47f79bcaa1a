//! The settings and jq lines of the hostile-input findings
//! (tests/data/badinput/README.md): each file, run as the finding ran it,
//! now gets a named message and an exit status, in bounded time.

use crate::common;

use std::process::Command;
use std::time::{Duration, Instant};

fn data(path: &str) -> String {
    common::root()
        .join("tests/data/badinput")
        .join(path)
        .display()
        .to_string()
}

struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// `drift-doctor` with `args`, timed.
fn run(args: &[&str]) -> Outcome {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_drift-doctor"))
        .args(args)
        .output()
        .unwrap();
    Outcome {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        took: start.elapsed(),
    }
}

/// `drift-doctor analyze` on the ConfigMap pair of the findings, with `extra`.
fn on_pair(extra: &[&str]) -> Outcome {
    let (git, live) = (data("set/cm_git.yaml"), data("set/cm_live.yaml"));
    run(&[&["analyze", "--git", &git, "--live", &live], extra].concat())
}

/// `analyze` on that pair without colours, with one settings option and `extra`.
fn analyze(option: &str, file: &str, extra: &[&str]) -> Outcome {
    on_pair(&[&["--color", "never", option, &data(file)], extra].concat())
}

/// A settings file of this run's own under the temporary directory.
fn temp_file(dir: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("drift-doctor-{dir}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("settings.yaml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Settings the analysis cannot use: exit 2, and stderr names the option
/// and file, the document, line and column, and says why.
#[test]
fn unusable_settings_are_located_errors_naming_the_file() {
    let cases: &[(&str, &str, &str, &str)] = &[
        // (option, file, where, why)
        (
            "--app",
            "set/jq_recursive_def.yaml",
            "document 1, line 11, column 8",
            "rule Application shop spec.ignoreDifferences[0], jq expression 1 `def f: f; f`: the jq definition `f` calls itself; drift-doctor does not run recursive definitions",
        ),
        (
            "--app",
            "set/jq_deep_parens.yaml",
            "document 1, line 11, column 40",
            "the jq expression nests deeper than 32 levels (brackets, parentheses, braces, string interpolations); drift-doctor reads at most 32",
        ),
        (
            "--app",
            "set/jq_long.yaml",
            "document 1, line 11, column 528",
            "the jq expression has more than 128 operators and keywords; drift-doctor reads at most 128",
        ),
        (
            "--app",
            "set/jq_invalid.yaml",
            "document 1, line 11, column 14",
            "rule Application shop spec.ignoreDifferences[0], jq expression 1 `.data[`: invalid jq: expected a closing bracket",
        ),
        (
            "--argocd-cm",
            "set/cm_jq_hang.yaml",
            "document 1, line 9, column 8",
            "rule argocd-cm resource.customizations.ignoreDifferences.all, jq expression 1 `def f: f; f`: the jq definition `f` calls itself",
        ),
        (
            "--argocd-cm",
            "set/cm_legacy_hang.yaml",
            "document 1, line 11, column 12",
            "rule argocd-cm resource.customizations ConfigMap, jq expression 1 `def f: f; f`: the jq definition `f` calls itself",
        ),
        (
            "--argocd-cm",
            "set/cm_badyaml.yaml",
            "document 1, line 9, column 5",
            "invalid YAML in `resource.customizations.ignoreDifferences.ConfigMap`: did not find expected ',' or ']'",
        ),
        (
            "--argocd-cm",
            "set/cm_notmap.yaml",
            "document 1, line 7, column 3",
            "`resource.customizations.ignoreDifferences.ConfigMap` holds a string, not a mapping of jsonPointers, jqPathExpressions and managedFieldsManagers",
        ),
        (
            "--argocd-cm",
            "set/cm_legacy_bad.yaml",
            "document 1, line 10, column 5",
            "invalid YAML in `resource.customizations`: did not find expected ',' or ']'",
        ),
        (
            "--app",
            "set/settings_nest.yaml",
            "line 1, column 132",
            "the text nests deeper than 128 levels, the limit drift-doctor reads",
        ),
    ];
    for (option, file, place, why) in cases {
        let out = analyze(option, file, &[]);
        assert_eq!(out.code, Some(2), "{file}: {}", out.stderr);
        let head = format!(
            "drift-doctor: {option} {}, {place}: Argo CD settings: ",
            data(file)
        );
        assert!(
            out.stderr.starts_with(&head),
            "{file}: want {head}\n got {}",
            out.stderr
        );
        assert!(
            out.stderr.contains(why),
            "{file}: want {why}\n got {}",
            out.stderr
        );
        assert!(!out.stderr.contains("git side"), "{file}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{file}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{file}");
        assert!(
            out.took < Duration::from_secs(2),
            "{file} took {:?}",
            out.took
        );
    }
}

/// `def f: f; f` for every kind, with pasted diff text: refused the same way.
#[test]
fn a_recursive_rule_for_every_kind_is_refused_with_diff_input() {
    let (diff, app) = (
        data("diff/valid_unified.txt"),
        data("set/jq_recursive_def_all.yaml"),
    );
    let out = run(&[
        "analyze", "--color", "never", "--diff", &diff, "--app", &app,
    ]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("jq expression 1 `def f: f; f`: the jq definition `f` calls itself"),
        "{}",
        out.stderr
    );
}

/// Rules that run without end are stopped, the analysis goes on, and the
/// report says which rule was skipped and why.
#[test]
fn endless_rules_are_stopped_and_named_in_the_report() {
    let cases = [
        (
            "set/jq_until.yaml",
            "rule Application shop spec.ignoreDifferences[0]: jq expression `until(false; .)` stopped: it recursed deeper than 256 KiB of stack; skipped",
        ),
        (
            "set/jq_range_path.yaml",
            "rule Application shop spec.ignoreDifferences[0]: jq expression `.data[range(1e9) | tostring]` timed out after 1s; skipped",
        ),
    ];
    for (file, warning) in cases {
        let out = analyze("--app", file, &["--format", "json"]);
        assert_eq!(out.code, Some(1), "{file}: {}", out.stderr);
        let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(report["warnings"], serde_json::json!([warning]), "{file}");
        // The other differences are still reported.
        assert_eq!(report["summary"]["out_of_sync"], 1, "{file}");
        assert!(
            out.took < Duration::from_secs(4),
            "{file} took {:?}",
            out.took
        );

        // The text format says it on stderr.
        let text = analyze("--app", file, &[]);
        assert_eq!(text.code, Some(1));
        assert!(
            text.stderr
                .contains(&format!("drift-doctor: warning: {warning}")),
            "{}",
            text.stderr
        );
    }
}

/// `ignore.normalizer.jq.timeout` in argocd-cm sets the budget, as in Argo CD.
#[test]
fn the_argocd_cm_timeout_sets_the_budget() {
    let cm = |timeout: &str| {
        temp_file(
            "jq-timeout",
            &format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\ndata:\n  ignore.normalizer.jq.timeout: {timeout}\n"),
        )
    };
    let app = data("set/jq_range_path.yaml");
    let out = on_pair(&[
        "--format",
        "json",
        "--app",
        &app,
        "--argocd-cm",
        &cm("150ms"),
    ]);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let warning = report["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.ends_with("timed out after 150ms; skipped"),
        "{warning}"
    );
    assert!(out.took < Duration::from_secs(1), "took {:?}", out.took);

    let out = on_pair(&["--argocd-cm", &cm("soon")]);
    assert_eq!(out.code, Some(2));
    let err = out.stderr;
    assert!(
        err.contains("line 6, column 3: Argo CD settings: `ignore.normalizer.jq.timeout` is `soon`, not a positive Go duration"),
        "{err}"
    );
}

/// Three jq rules for every kind are compiled once per analysis, not once
/// per object: the runtime hands out the same compiled expression.
#[test]
fn each_expression_is_compiled_once_per_analysis() {
    let text = common::read("tests/data/badinput/set/app_all_jq3.yaml");
    let mut compare = drift_doctor::CompareOptions::default();
    drift_doctor::settings::apply_user_settings(&text, &mut compare).unwrap();
    let rule = &compare.ignore_rules[0];
    assert_eq!(rule.jq_path_expressions.len(), 3);
    for expr in &rule.jq_path_expressions {
        let first = compare.jq.compile(expr);
        let again = compare.jq.compile(expr);
        assert!(std::sync::Arc::ptr_eq(&first, &again), "{expr}");
        assert!(first.program.is_ok(), "{expr}");
    }
}

/// Settings that hold nothing drift-doctor can use are refused with the
/// place and the reason; a rule field Argo CD does not read, and an object
/// of another kind pasted along, are warnings in the report.
#[test]
fn settings_are_never_ignored_in_silence() {
    use drift_doctor::settings::apply_user_settings;
    use drift_doctor::CompareOptions;
    let refused = [
        ("just text\n", (1, 1, 1), "document 1 is a string, not Argo CD settings"),
        (
            "a: 1\nb: 2\n",
            (1, 1, 1),
            "document 1 holds no Argo CD settings (its keys: a, b)",
        ),
        (
            "spec:\n  ignoreDifferences:\n  - just a string\n",
            (1, 2, 3),
            "rule Application spec.ignoreDifferences[0] is a string, not a mapping",
        ),
        (
            "ignoreDifferences:\n- kind: Service\n  jsonPointers: /spec/clusterIP\n",
            (1, 3, 3),
            "rule ignoreDifferences[0]: `jsonPointers` is a string, not a list of strings",
        ),
        (
            "spec:\n  ignoreDifferences: {kind: Service}\n",
            (1, 2, 3),
            "`ignoreDifferences` is a mapping, not a list of rules",
        ),
        (
            "data: [1]\n",
            (1, 1, 1),
            "`data` of argocd-cm is a list, not a mapping",
        ),
        (
            "data:\n  resource.customizations.ignoreDifferences.Service:\n    jsonPointers: [/spec/clusterIP]\n",
            (1, 2, 3),
            "`resource.customizations.ignoreDifferences.Service` is a mapping; argocd-cm values are strings",
        ),
    ];
    for (text, (document, line, column), why) in refused {
        let mut compare = CompareOptions::default();
        let e = apply_user_settings(text, &mut compare).unwrap_err();
        assert_eq!(
            (e.document, e.line, e.column),
            (document, line, column),
            "{text}: {e}"
        );
        assert!(e.message.starts_with("Argo CD settings: "), "{e}");
        assert!(e.message.contains(why), "{text}: {e}");
        assert!(compare.ignore_rules.is_empty(), "{text}");
    }

    let typo = "ignoreDifferences:\n- kind: ConfigMap\n  jsonPointer: [/data/a]\n  jsonPointers: [/data/b]\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: argocd-secret\n";
    let mut opts = drift_doctor::Options::default();
    apply_user_settings(typo, &mut opts.compare).unwrap();
    let git = common::read("tests/data/badinput/set/cm_git.yaml");
    let live = common::read("tests/data/badinput/set/cm_live.yaml");
    let report = drift_doctor::analyze(&git, &live, &opts).unwrap();
    assert_eq!(
        report.warnings,
        [
            "rule ignoreDifferences[0]: `jsonPointer` is not a field Argo CD reads in a rule (group, kind, name, namespace, jsonPointers, jqPathExpressions, managedFieldsManagers); ignored",
            "Argo CD settings, document 2: a Secret argocd-secret holds no settings drift-doctor reads; ignored (give an Application, the argocd-cm ConfigMap, or a fragment of either (`spec:` with `ignoreDifferences:`, `data:` with `resource.customizations.ignoreDifferences.<kind>:`, or an `ignoreDifferences:` list))",
        ]
    );
}

/// An expression whose outputs multiply without any loop (2^40 bindings)
/// passes no budget check inside jaq: the CLI stops waiting for it at the
/// time budget and skips it, as Argo CD's timeout would.
#[test]
fn outputs_that_multiply_without_a_loop_stop_at_the_time_budget() {
    let bindings: String = (0..40).map(|i| format!("(1, 1) as $v{i} | ")).collect();
    let settings = temp_file(
        "jq-multiply",
        &format!(
            "data:\n  ignore.normalizer.jq.timeout: 200ms\n---\nignoreDifferences:\n- kind: ConfigMap\n  jqPathExpressions:\n  - '.data[{bindings}\"a\"]'\n"
        ),
    );
    let out = on_pair(&["--format", "json", "--argocd-cm", &settings]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let warning = report["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.starts_with("rule ignoreDifferences[0]: jq expression `.data[(1, 1) as $v0"),
        "{warning}"
    );
    assert!(
        warning.ends_with("timed out after 200ms; skipped"),
        "{warning}"
    );
    assert!(out.took < Duration::from_secs(2), "took {:?}", out.took);
}
