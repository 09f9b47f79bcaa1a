//! `drift-doctor check`: every check's own examples find it at their line,
//! the fixtures under tests/fixtures/check give each check in a Helm-shaped
//! render (with the template it came from), a render that passes gives no
//! finding, and the JSON, SARIF and GitHub forms keep their contracts.

use crate::common;

use drift_doctor::check::{self, format, CheckInput, CheckReport, Input};
use drift_doctor::rules::catalog;
use drift_doctor::rules::checks::{CheckExample, Level};
use serde_json::Value;
use std::sync::OnceLock;

fn settings_input(settings: Option<&str>) -> (Option<&str>, Option<&str>) {
    match settings {
        Some(s) if s.contains("kind: ConfigMap") => (None, Some(s)),
        Some(s) => (Some(s), None),
        None => (None, None),
    }
}

fn run(git: &str, git_again: Option<&str>, settings: Option<&str>) -> CheckReport {
    let (app, argocd_cm) = settings_input(settings);
    check::check(&CheckInput {
        git,
        git_again,
        app,
        argocd_cm,
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("check failed: {e}"))
}

fn example_report(ex: &CheckExample) -> CheckReport {
    run(&ex.git, ex.git_again.as_deref(), ex.settings.as_deref())
}

/// A finding of `code` at `line` about `id` (a resource, or a rule's source
/// the message names).
fn has(report: &CheckReport, code: &str, id: &str, line: usize) -> bool {
    report.findings.iter().any(|f| {
        f.rule == code
            && f.line == line
            && (f.resource.as_deref() == Some(id) || f.message.contains(id))
    })
}

fn describe(report: &CheckReport) -> String {
    report
        .findings
        .iter()
        .map(|f| {
            format!(
                "{} {} line {} {:?}: {}",
                f.rule,
                f.input.id(),
                f.line,
                f.resource,
                f.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let schema: Value =
            serde_json::from_str(&common::read("tests/contract/check-v1.schema.json")).unwrap();
        jsonschema::validator_for(&schema).expect("the check schema compiles")
    })
}

fn sarif_validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let schema: Value =
            serde_json::from_str(&common::read("tests/contract/sarif-schema-2.1.0.json")).unwrap();
        jsonschema::validator_for(&schema).expect("the SARIF schema compiles")
    })
}

fn assert_valid(validator: &jsonschema::Validator, v: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(v)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what} invalid:\n{}", errors.join("\n"));
}

fn names(input: Input) -> String {
    format!("{}.yaml", input.id())
}

fn sarif_of(report: &CheckReport) -> Value {
    format::sarif(
        report,
        catalog().checks(),
        &names,
        Some("https://example.org/docs/rules.md"),
    )
}

#[test]
fn every_check_has_a_detector_and_every_detector_a_check() {
    let c = catalog();
    let codes: Vec<&str> = c.checks().iter().map(|c| c.code.as_str()).collect();
    let detectors: Vec<&str> = check::detector_codes().collect();
    assert_eq!(codes, detectors);
    assert!(c.checks().len() >= 13);
}

#[test]
fn every_check_example_finds_its_check_at_its_line() {
    let mut failures = Vec::new();
    for c in catalog().checks() {
        for (i, ex) in c.examples.iter().enumerate() {
            let report = example_report(ex);
            let json = serde_json::to_value(&report).unwrap();
            assert_valid(check_validator(), &json, "check report");
            assert_valid(sarif_validator(), &sarif_of(&report), "SARIF");
            if !has(&report, &c.code, &ex.id, ex.line) {
                failures.push(format!(
                    "{} example {i}: no finding on {} at line {}; found:\n{}",
                    c.code,
                    ex.id,
                    ex.line,
                    describe(&report)
                ));
            }
            for f in &report.findings {
                for text in [&f.message, &f.fix] {
                    if let Some(at) = text.find('{') {
                        let word: String = text[at + 1..]
                            .chars()
                            .take_while(|ch| ch.is_ascii_lowercase() || *ch == '_')
                            .collect();
                        if !word.is_empty() && text[at + 1 + word.len()..].starts_with('}') {
                            failures.push(format!(
                                "{} example {i}: `{word}` left unfilled in {text:?}",
                                c.code
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The second example of each check names other objects than the first, so
/// a detector keyed on an example's names fails one of them.
#[test]
fn second_examples_use_other_names() {
    for c in catalog().checks() {
        let name = |ex: &CheckExample| ex.id.rsplit('/').next().unwrap_or("").to_string();
        assert_ne!(name(&c.examples[0]), name(&c.examples[1]), "{}", c.code);
    }
}

#[test]
fn every_check_is_documented_and_explained() {
    let c = catalog();
    let markdown = drift_doctor::rules::docs::catalogue_markdown(c);
    for check in c.checks() {
        assert!(
            markdown.contains(&format!("## {}", check.code)),
            "{}",
            check.code
        );
        let text = drift_doctor::rules::docs::explain_check(check);
        assert!(text.contains(&check.title) && text.contains("Why it loops"));
    }
}

fn fixture_dir(name: &str) -> std::path::PathBuf {
    common::root().join("tests/fixtures/check").join(name)
}

fn read_opt(dir: &std::path::Path, file: &str) -> Option<String> {
    std::fs::read_to_string(dir.join(file)).ok()
}

fn fixture_report(name: &str) -> CheckReport {
    let dir = fixture_dir(name);
    let git = read_opt(&dir, "git.yaml").expect("git.yaml");
    let again = read_opt(&dir, "git-again.yaml");
    let app = read_opt(&dir, "app.yaml");
    let cm = read_opt(&dir, "argocd-cm.yaml");
    check::check(&CheckInput {
        git: &git,
        git_again: again.as_deref(),
        app: app.as_deref(),
        argocd_cm: cm.as_deref(),
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Each fixture (a Helm-shaped render, `# Source:` comments included) gives
/// exactly the findings its `expected.json` lists: code, input, line and
/// template.
#[test]
fn fixtures_give_exactly_their_findings() {
    let mut failures = Vec::new();
    let mut dirs: Vec<String> = std::fs::read_dir(common::root().join("tests/fixtures/check"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "clean")
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 13, "one fixture per check");
    for name in &dirs {
        let report = fixture_report(name);
        assert_valid(
            check_validator(),
            &serde_json::to_value(&report).unwrap(),
            name,
        );
        let got: Vec<Value> = report
            .findings
            .iter()
            .map(|f| {
                serde_json::json!({"rule": f.rule, "input": f.input.id(), "line": f.line, "source": f.source})
            })
            .collect();
        let want: Value = serde_json::from_str(
            &read_opt(&fixture_dir(name), "expected.json").unwrap_or_default(),
        )
        .unwrap_or(Value::Null);
        if Value::Array(got.clone()) != want {
            failures.push(format!(
                "{name}: expected {want}\n  got {}\n{}",
                Value::Array(got),
                describe(&report)
            ));
        }
        let code = name[..5].to_uppercase();
        if !report.findings.iter().any(|f| f.rule == code) {
            failures.push(format!("{name}: no {code} finding"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A render that passes every check (autoscaled without replicas, hooks
/// with delete policies, CRDs and Namespaces first, no rendered caBundle,
/// two identical renders, sound ignore rules) gives no finding and an empty
/// SARIF result list.
#[test]
fn a_clean_render_gives_no_finding_and_empty_sarif_results() {
    let report = fixture_report("clean");
    assert!(report.findings.is_empty(), "{}", describe(&report));
    assert!(report.summary.objects >= 9);
    let sarif = sarif_of(&report);
    assert_valid(sarif_validator(), &sarif, "SARIF");
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]));
    assert!(!report.fails(Level::Note));
}

#[test]
fn sarif_names_rules_with_docs_and_results_with_their_lines() {
    let report = fixture_report("ck001-1");
    let sarif = sarif_of(&report);
    assert_valid(sarif_validator(), &sarif, "SARIF");
    let run = &sarif["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), catalog().checks().len());
    let ck001 = rules.iter().find(|r| r["id"] == "CK001").unwrap();
    assert_eq!(ck001["helpUri"], "https://example.org/docs/rules.md#ck001");
    assert!(ck001["help"]["markdown"]
        .as_str()
        .unwrap()
        .contains("**Why it loops.**"));
    let result = &run["results"][0];
    assert_eq!(result["ruleId"], "CK001");
    assert_eq!(result["level"], "warning");
    assert_eq!(
        rules[result["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "CK001"
    );
    let loc = &result["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "git.yaml");
    assert_eq!(loc["region"]["startLine"], 11);
    assert!(result["message"]["text"]
        .as_str()
        .unwrap()
        .contains("orbit/templates/api.yaml"));
}

#[test]
fn github_annotations_are_one_escaped_command_per_finding() {
    let report = fixture_report("ck001-1");
    let out = format::github(&report, &|i: Input| format!("out/{},x.yaml", i.id()));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), report.findings.len());
    let first = lines[0];
    assert!(
        first.starts_with("::warning file=out/git%2Cx.yaml,line=11,title=CK001 "),
        "{first}"
    );
    let (props, message) = first[2..].split_once("::").unwrap();
    assert!(
        !props.contains('\n') && props.matches(',').count() == 2,
        "{props}"
    );
    assert!(message.contains("%0AFix: "), "{message}");
    assert!(!message.contains('\n'));
}

#[test]
fn the_order_of_documents_does_not_change_the_report() {
    let dir = fixture_dir("ck001-1");
    let git = read_opt(&dir, "git.yaml").unwrap();
    let docs: Vec<&str> = git
        .split("---\n")
        .filter(|d| !d.trim().is_empty())
        .collect();
    let reversed: String = docs.iter().rev().map(|d| format!("---\n{d}")).collect();
    let a = run(&git, None, None);
    let b = run(&reversed, None, None);
    let strip = |r: &CheckReport| -> Vec<(String, Option<String>, Option<String>)> {
        r.findings
            .iter()
            .map(|f| (f.rule.clone(), f.resource.clone(), f.pointer.clone()))
            .collect()
    };
    assert_eq!(strip(&a), strip(&b));
}

#[test]
fn unusable_input_is_an_error_naming_its_input_and_line() {
    let e = check::check(&CheckInput {
        git: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: 1, a: 2}\n",
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.input, Input::Git);
    assert!(e.error.line > 0, "{e}");
    let e = check::check(&CheckInput {
        git: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        app: Some("spec:\n  ignoreDifferences: 3\n"),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.input, Input::App);
    assert!(e.to_string().starts_with("app"), "{e}");
}

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_drift-doctor"))
        .current_dir(common::root())
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn exit_codes_follow_fail_on() {
    let clean = "tests/fixtures/check/clean/git.yaml";
    let warn = "tests/fixtures/check/ck001-1/git.yaml";
    let note = "tests/fixtures/check/ck003-1/git.yaml";
    assert_eq!(cli(&["check", "--git", clean]).status.code(), Some(0));
    assert_eq!(cli(&["check", "--git", warn]).status.code(), Some(1));
    assert_eq!(
        cli(&["check", "--git", warn, "--fail-on", "error"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(cli(&["check", "--git", note]).status.code(), Some(0));
    assert_eq!(
        cli(&["check", "--git", note, "--fail-on", "note"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        cli(&["check", "--git", warn, "--fail-on", "never"])
            .status
            .code(),
        Some(0)
    );
    let missing = cli(&["check", "--git", "tests/fixtures/check/nope.yaml"]);
    assert_eq!(missing.status.code(), Some(2));
    let bad_app = cli(&[
        "check",
        "--git",
        clean,
        "--app",
        "tests/fixtures/check/ck001-1/git.yaml",
    ]);
    assert_eq!(
        bad_app.status.code(),
        Some(0),
        "an object without ignoreDifferences is no error"
    );
    let out = cli(&["check", "--git", warn, "--format", "json"]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_valid(check_validator(), &json, "CLI JSON");
    assert_eq!(json["findings"][0]["rule"], "CK001");
    let out = cli(&["check", "--git", warn, "--format", "sarif"]);
    let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_valid(sarif_validator(), &sarif, "CLI SARIF");
    let out = cli(&["check", "--git", warn, "--format", "github"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(&format!("::warning file={warn},line=11,")),
        "{text}"
    );
    let out = cli(&["rules"]);
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(
        listed.contains("CK001") && listed.contains("AS001"),
        "{listed}"
    );
    let out = cli(&["explain", "CK001"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("Why it loops"));
}

/// An object whose name is generated is in one render only: each render's
/// copy is named where that render holds it.
#[test]
fn a_generated_name_is_named_in_both_renders() {
    let doc = |name: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: orbit\ndata: {{a: b}}\n")
    };
    let report = run(&doc("orbit-run-k2x9q"), Some(&doc("orbit-run-p7m3z")), None);
    let found: Vec<(&str, Input, Option<&str>)> = report
        .findings
        .iter()
        .map(|f| (f.rule.as_str(), f.input, f.resource.as_deref()))
        .collect();
    assert_eq!(
        found,
        vec![
            (
                "CK002",
                Input::Git,
                Some("/ConfigMap/orbit/orbit-run-k2x9q")
            ),
            (
                "CK002",
                Input::GitAgain,
                Some("/ConfigMap/orbit/orbit-run-p7m3z")
            ),
        ]
    );
}

/// Secret values never appear in findings, whichever render holds them.
#[test]
fn secret_values_are_never_shown() {
    let dir = fixture_dir("ck002-1");
    let report = fixture_report("ck002-1");
    let json = serde_json::to_string(&report).unwrap();
    for file in ["git.yaml", "git-again.yaml"] {
        let text = read_opt(&dir, file).unwrap();
        let value = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("key: "))
            .unwrap();
        assert!(!json.contains(value), "{value} shown");
    }
}

/// The page's worker runs the same check and answers its JSON report.
#[cfg(feature = "web")]
#[test]
fn the_page_engine_answers_the_check_report() {
    use drift_doctor::web::protocol::{Request, Response};
    let dir = fixture_dir("ck001-1");
    let input: drift_doctor::web::protocol::Input = serde_json::from_value(serde_json::json!({
        "mode": "Sides", "git": read_opt(&dir, "git.yaml").unwrap(), "live": "", "diff": "",
        "settings": "", "namespace": "", "strategy": "legacy",
        "ignore_aggregated_roles": false, "include_hidden": false
    }))
    .unwrap();
    let mut engine = drift_doctor::web::engine::Engine::default();
    let Response::Checked { outcome } = engine.handle(Request::Check { input }) else {
        panic!("no check answer");
    };
    let json: Value = serde_json::from_str(&outcome.unwrap()).unwrap();
    assert_valid(check_validator(), &json, "page check report");
    assert_eq!(
        json,
        serde_json::to_value(fixture_report("ck001-1")).unwrap()
    );
}

/// A custom resource run as a PreSync hook comes before its CRD whatever
/// the waves say; a later wave, or a skipped dry-run, is in order.
#[test]
fn a_custom_resource_as_a_pre_sync_hook_is_before_its_crd() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: dials.orbit.example.net}\nspec:\n  group: orbit.example.net\n  scope: Namespaced\n  names: {kind: Dial, plural: dials, singular: dial}\n  versions: [{name: v1, served: true, storage: true}]\n";
    let cr = |annotations: &str| {
        format!("---\napiVersion: orbit.example.net/v1\nkind: Dial\nmetadata:\n  name: orbit-dial\n  namespace: orbit\n  annotations: {{{annotations}}}\nspec: {{size: 1}}\n")
    };
    let codes = |annotations: &str| -> Vec<String> {
        run(&format!("{crd}{}", cr(annotations)), None, None)
            .findings
            .iter()
            .filter(|f| f.rule == "CK004")
            .map(|f| f.message.clone())
            .collect()
    };
    let hook = codes("argocd.argoproj.io/hook: PreSync, argocd.argoproj.io/hook-delete-policy: BeforeHookCreation, argocd.argoproj.io/sync-wave: \"5\"");
    assert_eq!(hook.len(), 1);
    assert!(hook[0].contains("PreSync hook"), "{}", hook[0]);
    assert!(codes("argocd.argoproj.io/sync-wave: \"1\"").is_empty());
    assert!(codes("argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true").is_empty());
    assert_eq!(codes("a: b").len(), 1);
}

/// An empty value is named only where Argo CD's comparison shows it: a
/// CRD's `shortNames: []` loops, a Deployment's `env` value `""` does not
/// (Argo CD's round trip of the built-in kind drops it).
#[test]
fn empty_values_are_named_only_where_argo_cd_compares_them() {
    let git = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: orbit-web, namespace: orbit}\nspec:\n  selector: {matchLabels: {app: w}}\n  template:\n    metadata: {labels: {app: w}}\n    spec:\n      containers:\n      - name: w\n        image: orbit/w:1\n        env:\n        - name: PROXY\n          value: \"\"\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: tiles.orbit.example.net}\nspec:\n  group: orbit.example.net\n  scope: Namespaced\n  names:\n    kind: Tile\n    plural: tiles\n    shortNames: []\n  versions: [{name: v1, served: true, storage: true}]\n";
    let found: Vec<(Option<String>, Option<String>)> = run(git, None, None)
        .findings
        .into_iter()
        .filter(|f| f.rule == "CK010")
        .map(|f| (f.resource, f.pointer))
        .collect();
    assert_eq!(
        found,
        vec![(
            Some("apiextensions.k8s.io/CustomResourceDefinition//tiles.orbit.example.net".into()),
            Some("/spec/names/shortNames".into())
        )]
    );
}

/// Each rule's finding points at that rule's own line, even when several
/// rules name the same kind.
#[test]
fn settings_findings_point_at_their_own_rule() {
    let git = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: orbit-web, namespace: orbit}\nspec:\n  selector: {matchLabels: {app: w}}\n  template:\n    metadata:\n      labels: {app: w}\n      annotations: {a/b: c}\n    spec:\n      containers: [{name: w, image: \"orbit/w:1\"}]\n";
    let app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: orbit}\nspec:\n  ignoreDifferences:\n  - group: apps/v1\n    kind: Deployment\n    jsonPointers: [/spec/replicas]\n  - group: apps\n    kind: Deployment\n    jsonPointers:\n    - /spec/replicas\n    - /spec/template/metadata/annotations/a/b\n";
    let lines: Vec<(String, usize)> = run(git, None, Some(app))
        .findings
        .into_iter()
        .map(|f| (f.rule, f.line))
        .collect();
    assert_eq!(
        lines,
        vec![("CK011".to_string(), 6), ("CK011".to_string(), 13)]
    );
}

/// CK005 stays quiet for the destination namespace an Application creates
/// before any wave (`CreateNamespace=true`), and speaks for any other.
#[test]
fn a_namespace_the_application_creates_first_is_no_ordering_problem() {
    let git = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  annotations: {argocd.argoproj.io/sync-wave: \"2\"}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cart, namespace: shop}\ndata: {a: b}\n";
    let codes = |app: Option<&str>| -> Vec<String> {
        run(git, None, app)
            .findings
            .iter()
            .map(|f| f.rule.clone())
            .collect()
    };
    assert!(codes(None).contains(&"CK005".to_string()));
    let app = |ns: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: shop}}\nspec:\n  destination: {{namespace: {ns}}}\n  syncPolicy:\n    syncOptions: [CreateNamespace=true]\n")
    };
    assert!(!codes(Some(&app("shop"))).contains(&"CK005".to_string()));
    assert!(codes(Some(&app("billing"))).contains(&"CK005".to_string()));
}
