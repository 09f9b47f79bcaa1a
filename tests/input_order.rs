//! The report does not depend on the order objects come in, nor on the
//! namespace Git gives an object of a cluster-scoped kind.

mod common;

use drift_doctor::{analyze, Options};

/// The documents of a YAML stream in reverse order.
fn reversed(text: &str) -> String {
    let mut docs: Vec<&str> = text
        .split("\n---\n")
        .map(|d| d.trim_matches('\n'))
        .filter(|d| !d.trim().is_empty() && d.trim() != "---")
        .collect();
    docs.reverse();
    docs.join("\n---\n") + "\n"
}

#[test]
fn every_scenario_reports_the_same_in_any_document_order() {
    for name in common::scenario_names() {
        let dir = format!("tests/fixtures/scenarios/{name}");
        let git = common::read(format!("{dir}/git.yaml"));
        let live = common::read(format!("{dir}/live.yaml"));
        let opts = Options::default();
        let forward = analyze(&git, &live, &opts).unwrap();
        let backward = analyze(&reversed(&git), &reversed(&live), &opts).unwrap();
        assert_eq!(
            serde_json::to_value(&forward).unwrap(),
            serde_json::to_value(&backward).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn a_namespace_on_a_cluster_scoped_object_changes_nothing() {
    let live = "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  size: 1\n";
    let plain = analyze(live, live, &Options::default()).unwrap();
    for ns in ["default", "team-a", "kube-system"] {
        let git = live.replace("  name: g\n", &format!("  name: g\n  namespace: {ns}\n"));
        let report = analyze(&git, live, &Options::default()).unwrap();
        assert_eq!(report.summary.resources, 1, "{ns}");
        assert_eq!(report.summary.synced, plain.summary.synced, "{ns}");
    }
}
