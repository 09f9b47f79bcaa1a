//! Parity with Argo CD's own diff tests: every config/live pair in
//! tests/corpus/gitops-engine/cases.json (copied from gitops-engine and
//! argo-cd, Apache-2.0, The Argo Authors) must get the verdict the
//! maintainers assert. Cases out of reach offline are listed with the reason.

mod common;

use drift_doctor::compare::{compare, compare_with_predicted, CompareOptions, Strategy};
use drift_doctor::identity::{key_of, ScopeTable};
use drift_doctor::{ignore::IgnoreRule, settings::parse_rules};
use serde_json::Value;

const CORPUS: &str = "tests/corpus/gitops-engine";

/// Cases whose verdict needs what an offline tool cannot have, with why.
const OUT_OF_REACH: &[(&str, &str)] = &[];

fn load(rel: &str) -> Value {
    let text = common::read(format!("{CORPUS}/{rel}"));
    let docs = drift_doctor::input::parse_side(&text, drift_doctor::Side::Live)
        .unwrap_or_else(|e| panic!("{rel}: {e}"));
    docs.into_iter()
        .next()
        .map(|d| d.object)
        .unwrap_or(Value::Null)
}

/// The case's ignoreDifferences (argo-cd StateDiff cases) or the normaliser's
/// equivalent rule (gitops-engine cases), as the user would paste them.
fn ignore_rules(opts: &Value) -> Vec<IgnoreRule> {
    let mut entries: Vec<Value> = opts["ignoreDifferences"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if let Some(e) = opts.pointer("/normalizer/equivalent_ignoreDifferences") {
        entries.push(e.clone());
    }
    if entries.is_empty() {
        return Vec::new();
    }
    let app = serde_json::json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": "corpus"}, "spec": {"ignoreDifferences": entries}});
    parse_rules(&app.to_string()).expect("the case's rules parse")
}

/// The comparison options a case asserts its verdict under.
fn case_options(opts: &Value) -> CompareOptions {
    let path = opts["diff_path"].as_str().unwrap_or("");
    let strategy = if path.starts_with("structured-merge") {
        Strategy::ServerSideApply
    } else if path.starts_with("server-side") {
        Strategy::ServerSideDiff
    } else {
        Strategy::Legacy
    };
    CompareOptions {
        strategy,
        ignore_aggregated_roles: opts["ignore_aggregated_roles"].as_bool().unwrap_or(false),
        include_hidden: false,
        manager: opts["manager"]
            .as_str()
            .unwrap_or("argocd-controller")
            .to_string(),
        ignore_rules: ignore_rules(opts),
        ..Default::default()
    }
}

pub fn verdict(case: &Value) -> Result<bool, String> {
    let opts = &case["options"];
    let config = case["config"].as_str().map(load);
    let live = case["live"].as_str().map(load);
    let (config, live) = match (config, live) {
        (Some(c), Some(l)) => (c, l),
        // Argo CD: a missing live object is a create (modified); a missing
        // config is an extraneous object, not "modified".
        (Some(_), None) => return Ok(true),
        (None, Some(_)) => return Ok(false),
        (None, None) => return Err("no objects".into()),
    };
    let copts = case_options(opts);
    let key = key_of(&config, &ScopeTable::default(), None);
    let compared = match case["dry_run_result"].as_str() {
        // The API server's dry-run answer is an input the corpus gives.
        Some(dry_run) => {
            let predicted = load(dry_run);
            let revert = opts["ignore_mutation_webhook"].as_bool().unwrap_or(true);
            compare_with_predicted(&key, &predicted, &live, &copts, revert)
        }
        None => compare(&key, &config, &live, &copts),
    };
    Ok(!compared.visible.is_empty())
}

#[test]
fn argo_cd_diff_verdicts() {
    let cases: Vec<Value> =
        serde_json::from_str(&common::read(format!("{CORPUS}/cases.json"))).unwrap();
    let mut passed = 0;
    let mut failures = Vec::new();
    let mut considered = 0;
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        if OUT_OF_REACH.iter().any(|(c, _)| *c == id) {
            continue;
        }
        considered += 1;
        let expect = case["expect_modified"].as_bool().unwrap();
        match verdict(case) {
            Ok(got) if got == expect => passed += 1,
            Ok(got) => failures.push(format!("{id}: expected modified={expect}, got {got}")),
            Err(e) => failures.push(format!("{id}: {e}")),
        }
    }
    println!(
        "parity: {passed}/{considered} cases ({} out of reach offline)",
        OUT_OF_REACH.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {considered} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The same cases through the path the CLI takes (`analyze`: reading both
/// texts, pairing by identity, comparing, classifying), so pairing and
/// scope are tested as users meet them, not only the comparison.
#[test]
fn argo_cd_diff_verdicts_through_the_cli_path() {
    let cases: Vec<Value> =
        serde_json::from_str(&common::read(format!("{CORPUS}/cases.json"))).unwrap();
    let mut failures = Vec::new();
    let mut considered = 0;
    for case in cases.iter().filter(|c| c["dry_run_result"].is_null()) {
        let id = case["id"].as_str().unwrap();
        let text = |field: &str| {
            case[field]
                .as_str()
                .map(|rel| common::read(format!("{CORPUS}/{rel}")))
        };
        let (Some(config), Some(live)) = (text("config"), text("live")) else {
            continue;
        };
        considered += 1;
        let opts = drift_doctor::Options {
            namespace: None,
            compare: case_options(&case["options"]),
        };
        let expect = case["expect_modified"].as_bool().unwrap();
        match drift_doctor::analyze(&config, &live, &opts) {
            Ok(report) => {
                let got = report.summary.out_of_sync > 0;
                if got != expect {
                    failures.push(format!(
                        "{id}: expected modified={expect}, got {got} ({} resources)",
                        report.summary.resources
                    ));
                }
            }
            Err(e) => failures.push(format!("{id}: {e}")),
        }
    }
    println!(
        "parity through the CLI path: {} of {considered} cases",
        considered - failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
