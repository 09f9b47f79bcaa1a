//! Scenario fixtures: each folder under tests/fixtures/scenarios holds a Git
//! side, a live side and options; the JSON report is snapshotted and checked
//! against the contract.

use crate::common;

use drift_doctor::{analyze, ArgoCdRelease, CompareOptions, Options, Strategy};
use serde::Deserialize;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ScenarioOptions {
    namespace: Option<String>,
    #[serde(default)]
    include_hidden: bool,
    strategy: Option<String>,
    #[serde(default)]
    ignore_aggregated_roles: bool,
    /// The Argo CD release imitated (`MAJOR.MINOR`); the newest when absent.
    argocd_version: Option<String>,
    /// Cause ids that must appear among the visible differences.
    #[serde(default)]
    expect_causes: Vec<String>,
    /// Expected number of OutOfSync resources.
    expect_out_of_sync: Option<usize>,
}

fn run(name: &str) -> drift_doctor::Report {
    let dir = format!("tests/fixtures/scenarios/{name}");
    let opts_path = common::root().join(&dir).join("options.yaml");
    let so: ScenarioOptions = if opts_path.exists() {
        serde_yaml::from_str(&std::fs::read_to_string(opts_path).unwrap()).unwrap()
    } else {
        ScenarioOptions::default()
    };
    let opts = Options {
        namespace: so.namespace.clone(),
        compare: CompareOptions {
            strategy: so
                .strategy
                .as_deref()
                .map(|s| Strategy::from_id(s).expect("known strategy"))
                .unwrap_or_default(),
            ignore_aggregated_roles: so.ignore_aggregated_roles,
            include_hidden: so.include_hidden,
            ..CompareOptions::for_release(
                so.argocd_version
                    .as_deref()
                    .map(|v| ArgoCdRelease::parse(v).expect("a release"))
                    .unwrap_or_default(),
            )
        },
    };
    let report = analyze(
        &common::read(format!("{dir}/git.yaml")),
        &common::read(format!("{dir}/live.yaml")),
        &opts,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    common::assert_valid(&report);
    common::assert_invariants(&report);
    let visible_causes: Vec<&str> = report
        .resources
        .iter()
        .flat_map(|r| &r.differences)
        .filter(|d| d.visible)
        .map(|d| d.cause.id())
        .collect();
    for c in &so.expect_causes {
        assert!(
            visible_causes.contains(&c.as_str()),
            "{name}: expected cause {c}, got {visible_causes:?}"
        );
    }
    if let Some(n) = so.expect_out_of_sync {
        assert_eq!(report.summary.out_of_sync, n, "{name}: OutOfSync count");
    }
    report
}

#[test]
fn every_scenario_matches_its_snapshot() {
    let names = common::scenario_names();
    assert!(
        names.len() >= 9,
        "expected the scenario fixtures, found {names:?}"
    );
    for name in names {
        let report = run(&name);
        insta::with_settings!({snapshot_suffix => name.clone(), prepend_module_to_snapshot => false}, {
            insta::assert_json_snapshot!("scenario", report);
        });
    }
}

#[test]
fn document_order_does_not_change_the_report() {
    for name in common::scenario_names() {
        let dir = format!("tests/fixtures/scenarios/{name}");
        let git = common::read(format!("{dir}/git.yaml"));
        let live = common::read(format!("{dir}/live.yaml"));
        let reverse = |text: &str| -> String {
            let docs: Vec<&str> = text.split("\n---\n").collect();
            docs.into_iter().rev().collect::<Vec<_>>().join("\n---\n")
        };
        let opts = Options {
            namespace: Some("default".into()),
            ..Default::default()
        };
        let a = analyze(&git, &live, &opts).unwrap();
        let b = analyze(&reverse(&git), &reverse(&live), &opts).unwrap();
        assert_eq!(a, b, "{name}: document order changed the report");
    }
}
