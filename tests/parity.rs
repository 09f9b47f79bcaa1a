//! Parity with Argo CD's own tests: every case in
//! tests/corpus/gitops-engine/cases.json (copied from gitops-engine and
//! argo-cd, Apache-2.0, The Argo Authors), a config/live pair of their diff
//! tests or an application of their comparison and hook tests, must get the
//! verdict the maintainers assert. Cases out of reach offline are listed with
//! the reason; known disagreements are marked in the corpus.

use crate::common;

use drift_doctor::compare::{compare, compare_with_predicted, CompareOptions, Strategy};
use drift_doctor::identity::{key_of, ScopeTable};
use drift_doctor::Presence;
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
        // The corpus tests the diff itself, whatever argocd-cm excludes.
        compare_stock_excluded_kinds: true,
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

/// What a case's run found, against what upstream asserts.
enum Outcome {
    Agrees,
    Differs(String),
}

/// Tallies of one run over the corpus. A case marked `known_disagreement`
/// that differs is counted, not failed; one that agrees fails the run, so
/// the mark is removed once the disagreement is fixed.
#[derive(Default)]
struct Tally {
    considered: usize,
    agreed: usize,
    known: Vec<String>,
    failures: Vec<String>,
}

impl Tally {
    fn record(&mut self, case: &Value, outcome: Outcome) {
        let id = case["id"].as_str().unwrap_or("?");
        let known = case["known_disagreement"].as_str();
        self.considered += 1;
        match (outcome, known) {
            (Outcome::Agrees, None) => self.agreed += 1,
            (Outcome::Agrees, Some(_)) => self.failures.push(format!(
                "{id}: now agrees with upstream; remove its known_disagreement"
            )),
            (Outcome::Differs(why), Some(_)) => self.known.push(format!("{id}: {why}")),
            (Outcome::Differs(why), None) => self.failures.push(format!("{id}: {why}")),
        }
    }

    fn finish(self, what: &str) {
        println!(
            "{what}: {}/{} cases agree, {} known disagreements",
            self.agreed,
            self.considered,
            self.known.len()
        );
        for k in &self.known {
            println!("  known: {k}");
        }
        assert!(
            self.failures.is_empty(),
            "{} of {} cases differ:\n{}",
            self.failures.len(),
            self.considered,
            self.failures.join("\n")
        );
    }
}

fn corpus() -> Vec<Value> {
    serde_json::from_str(&common::read(format!("{CORPUS}/cases.json"))).unwrap()
}

/// The diff-level cases (an assertion on `DiffResult.Modified`) through the
/// comparison alone.
#[test]
fn argo_cd_diff_verdicts() {
    let mut tally = Tally::default();
    for case in corpus()
        .iter()
        .filter(|c| c["expect_modified"].is_boolean())
    {
        let id = case["id"].as_str().unwrap();
        if OUT_OF_REACH.iter().any(|(c, _)| *c == id) {
            continue;
        }
        let expect = case["expect_modified"].as_bool().unwrap();
        let outcome = match verdict(case) {
            Ok(got) if got == expect => Outcome::Agrees,
            Ok(got) => Outcome::Differs(format!("expected modified={expect}, got {got}")),
            Err(e) => Outcome::Differs(e),
        };
        tally.record(case, outcome);
    }
    tally.finish(&format!(
        "parity ({} out of reach offline)",
        OUT_OF_REACH.len()
    ));
}

/// Server-side cases whose verdict comes from the mocked dry-run answer, which
/// the CLI (no API server) cannot have: it simulates the dry run from Git and
/// live. The mocked answer for the httpbin Service leaves out the
/// `app.kubernetes.io/instance` label Git declares and live has, and that
/// missing label is the difference upstream asserts.
const CLI_OFFLINE: &[(&str, &str)] = &[
    (
        "ge-TestServerSideDiff-ignore-webhook-default",
        "the mocked dry-run answer drops a label Git declares",
    ),
    (
        "ge-TestServerSideDiff-include-webhook",
        "the mocked dry-run answer drops a label Git declares",
    ),
    (
        "ge-TestServerSideDiff-ignoreDifferences-normalizer",
        "the mocked dry-run answer drops a label Git declares",
    ),
];

/// A side the case leaves empty, as `kubectl get` prints no objects.
const NO_OBJECTS: &str = "apiVersion: v1\nkind: List\nitems: []\n";

/// One case through the path the CLI takes.
fn through_the_cli_path(case: &Value) -> Outcome {
    let text = |field: &str| {
        case[field]
            .as_str()
            .map(|rel| common::read(format!("{CORPUS}/{rel}")))
            .unwrap_or_else(|| NO_OBJECTS.to_string())
    };
    let options = &case["options"];
    let mut opts = drift_doctor::Options {
        namespace: options["destination_namespace"]
            .as_str()
            .map(str::to_string),
        compare: case_options(options),
    };
    // An application case names its Application: Argo CD writes that app's
    // tracking annotation into every desired object.
    let application = options["application"].as_str().map(|name| {
        let yaml = format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\n  namespace: argocd\nspec:\n  destination:\n    namespace: {}\n",
            options["destination_namespace"].as_str().unwrap_or("")
        );
        drift_doctor::application::Application::parse(&yaml).expect("the case's Application")
    });
    if let Some(app) = &application {
        // As the CLI applies `--application`.
        if let Err(e) = app.apply_to(&mut opts.namespace, &mut opts.compare, true, true) {
            return Outcome::Differs(e.to_string());
        }
    }
    let evidence = drift_doctor::Evidence {
        application: application.as_ref(),
        ..Default::default()
    };
    let report = match drift_doctor::analyze_with(&text("config"), &text("live"), &opts, evidence) {
        Ok(report) => report,
        Err(e) => return Outcome::Differs(e.to_string()),
    };
    common::assert_valid(&report);
    let out_of_sync = report.summary.out_of_sync > 0;
    let seen = format!(
        "got out_of_sync={out_of_sync} ({} resources: {})",
        report.summary.resources,
        report
            .resources
            .iter()
            .map(|r| format!("{} {:?}", r.id, r.presence))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if let Some(want) = case["expect"]["resources"].as_u64() {
        if report.summary.resources as u64 != want {
            return Outcome::Differs(format!("expected {want} resources, {seen}"));
        }
    }
    let presence = |p: Presence| report.resources.iter().all(|r| r.presence == p);
    let agrees = match (
        case["expect_sync_status"].as_str(),
        &case["expect_modified"],
    ) {
        (Some(status), _) => out_of_sync == (status == "OutOfSync"),
        // Upstream's diff is not asked about an object missing on one side
        // ("checked at the comparator"): the pairing must report it as
        // created or extraneous, whole.
        (None, Value::Bool(m)) if case["config"].is_null() => {
            !m && report.summary.resources == 1 && presence(Presence::LiveOnly)
        }
        (None, Value::Bool(m)) if case["live"].is_null() => {
            *m && out_of_sync && report.summary.resources == 1 && presence(Presence::GitOnly)
        }
        (None, Value::Bool(m)) => {
            out_of_sync == *m && report.summary.resources == 1 && presence(Presence::Both)
        }
        _ => return Outcome::Differs("the case asserts no verdict".into()),
    };
    if agrees {
        Outcome::Agrees
    } else {
        let want = case["expect_sync_status"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("modified={}", case["expect_modified"]));
        Outcome::Differs(format!("expected {want}, {seen}"))
    }
}

/// Every case through the path the CLI takes (`analyze`: reading both
/// texts, pairing by identity, comparing, classifying), so pairing, scope
/// and hooks are tested as users meet them, not only the comparison. The
/// server-side cases run without the corpus's dry-run answer, as the CLI
/// simulates it.
#[test]
fn argo_cd_verdicts_through_the_cli_path() {
    let mut tally = Tally::default();
    for case in &corpus() {
        let id = case["id"].as_str().unwrap_or("?");
        if CLI_OFFLINE.iter().any(|(c, _)| *c == id) {
            continue;
        }
        tally.record(case, through_the_cli_path(case));
    }
    tally.finish(&format!(
        "parity through the CLI path ({} need the mocked dry-run answer)",
        CLI_OFFLINE.len()
    ));
}
