//! Problems rebuilt from public issue threads (`tests/real/<case>/`), each
//! labelled from its thread's resolution before drift-doctor ran on it.
//! The test prints how often the cause is right (a figure, not a gate) and
//! fails only on what must never happen: a case that does not load, a
//! report outside the contract, or an ignore fix recommended for a field a
//! person changed by hand.

use crate::common;

use drift_doctor::{
    analyze, analyze_diff, ArgoCdRelease, CompareOptions, FixKind, Options, Report, Strategy,
};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    source: String,
    #[allow(dead_code)]
    title: String,
    #[serde(default)]
    options: CaseOptions,
    label: Label,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct CaseOptions {
    namespace: Option<String>,
    strategy: Option<String>,
    argocd_version: Option<String>,
}

#[derive(Deserialize)]
struct Label {
    status: String,
    differences: Vec<LabelledField>,
}

#[derive(Deserialize)]
struct LabelledField {
    id: String,
    pointer: String,
    cause: String,
    #[serde(default)]
    person_changed: bool,
}

fn segments(p: &str) -> Vec<&str> {
    p.split('/').skip(1).collect()
}

/// One pointer lies on the other's path (the label may name a map the
/// report splits into keys, or a key inside a value the report names whole).
fn related(a: &str, b: &str) -> bool {
    let (a, b) = (segments(a), segments(b));
    let n = a.len().min(b.len());
    a[..n] == b[..n]
}

fn run(dir: &std::path::Path, case: &Case) -> Report {
    let o = &case.options;
    let opts = Options {
        namespace: o.namespace.clone(),
        compare: CompareOptions {
            strategy: o
                .strategy
                .as_deref()
                .map(|s| Strategy::from_id(s).expect("a known strategy"))
                .unwrap_or_default(),
            include_hidden: true,
            ..CompareOptions::for_release(
                o.argocd_version
                    .as_deref()
                    .map(|v| ArgoCdRelease::parse(v).expect("a known release"))
                    .unwrap_or_default(),
            )
        },
    };
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
    let result = match read("diff.txt") {
        Some(diff) => analyze_diff(&diff, &opts),
        None => analyze(
            &read("git.yaml").expect("git.yaml"),
            &read("live.yaml").expect("live.yaml"),
            &opts,
        ),
    };
    result.unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

#[test]
fn real_reports_cause_accuracy() {
    let root = common::root().join("tests/real");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("tests/real")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 30, "the corpus holds {} cases", dirs.len());
    let (mut fields, mut right, mut statuses, mut status_right) = (0, 0, 0, 0);
    let mut misses = Vec::new();
    let mut hidden_by_hand = Vec::new();
    // Per batch (the case name's prefix before the first `-`): labelled
    // fields, right causes, cases, right statuses. A fresh batch's figure is
    // the one that says how the tool does on reports it was never tuned to.
    let mut batches: std::collections::BTreeMap<String, [usize; 4]> = Default::default();
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let batch = name.split('-').next().unwrap_or_default().to_string();
        let (fields_before, right_before, status_before) = (fields, right, status_right);
        let text = std::fs::read_to_string(dir.join("case.yaml")).expect("case.yaml");
        let case: Case =
            serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{name}/case.yaml: {e}"));
        assert!(case.source.starts_with("https://"), "{name}: source URL");
        let report = run(dir, &case);
        common::assert_valid(&report);
        common::assert_invariants(&report);
        statuses += 1;
        let out_of_sync = report.summary.out_of_sync > 0;
        if out_of_sync == (case.label.status == "OutOfSync") {
            status_right += 1;
        } else {
            misses.push(format!(
                "{name}: status {} (labelled {})",
                if out_of_sync { "OutOfSync" } else { "Synced" },
                case.label.status
            ));
        }
        for l in &case.label.differences {
            fields += 1;
            let resource = report.resources.iter().find(|r| r.id == l.id);
            let found = resource.and_then(|r| {
                r.differences
                    .iter()
                    .find(|d| d.pointer == l.pointer)
                    .or_else(|| {
                        r.differences
                            .iter()
                            .find(|d| related(&d.pointer, &l.pointer))
                    })
            });
            match found {
                Some(d) if d.cause.id() == l.cause => right += 1,
                Some(d) => misses.push(format!(
                    "{name}: {} {}: {} ({}) where the thread says {}",
                    l.id,
                    l.pointer,
                    d.cause.id(),
                    d.rule,
                    l.cause
                )),
                None => misses.push(format!("{name}: {} {}: not reported", l.id, l.pointer)),
            }
            if l.person_changed {
                let recommended_ignore = resource.is_some_and(|r| {
                    r.fixes.iter().any(|f| {
                        f.kind == FixKind::Ignore
                            && f.recommended
                            && f.pointers.iter().any(|p| related(p, &l.pointer))
                    })
                });
                if recommended_ignore {
                    hidden_by_hand.push(format!("{name}: {} {}", l.id, l.pointer));
                }
            }
        }
        let b = batches.entry(batch).or_default();
        b[0] += fields - fields_before;
        b[1] += right - right_before;
        b[2] += 1;
        b[3] += status_right - status_before;
    }
    println!(
        "real reports: cause right for {right} of {fields} labelled fields ({:.0}%), status right for {status_right} of {statuses} cases",
        100.0 * right as f64 / fields.max(1) as f64
    );
    for (batch, [f, r, c, s]) in &batches {
        println!(
            "  batch {batch}-*: cause right for {r} of {f} ({:.0}%), status right for {s} of {c}",
            100.0 * *r as f64 / (*f).max(1) as f64
        );
    }
    for m in &misses {
        println!("  miss: {m}");
    }
    assert!(
        hidden_by_hand.is_empty(),
        "an ignore fix is recommended for a field a person changed: {hidden_by_hand:?}"
    );
}
