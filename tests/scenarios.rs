//! Scenario fixtures: each folder under tests/fixtures/scenarios holds a Git
//! side, a live side and options; the JSON report is snapshotted and checked
//! against the contract.

use crate::common;

use crate::common::Scenario;
use drift_doctor::analyze;

fn run(name: &str) -> drift_doctor::Report {
    let scenario = Scenario::load(name);
    let so = &scenario.options;
    let report = analyze(&scenario.git, &scenario.live, &scenario.analysis_options())
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
    for scenario in Scenario::all() {
        let (name, git, live) = (&scenario.name, &scenario.git, &scenario.live);
        let reverse = |text: &str| -> String {
            let docs: Vec<&str> = text.split("\n---\n").collect();
            docs.into_iter().rev().collect::<Vec<_>>().join("\n---\n")
        };
        let opts = scenario.analysis_options();
        let a = analyze(git, live, &opts).unwrap();
        let b = analyze(&reverse(git), &reverse(live), &opts).unwrap();
        assert_eq!(a, b, "{name}: document order changed the report");
    }
}
