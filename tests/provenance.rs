//! Who wrote it: one fixture folder per mechanism of attribution under
//! `tests/fixtures/provenance/<mechanism>-<n>/`, each mechanism with a second
//! example under other names. Each folder holds the two sides (or diff
//! output) and `expect.yaml`: the status, and for each field its cause, rule,
//! words its evidence must hold, and whether an ignore fix covers it.

use crate::common;

use drift_doctor::{analyze, analyze_diff, CompareOptions, FixKind, Options};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    status: String,
    differences: Vec<Field>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Field {
    id: String,
    pointer: String,
    cause: String,
    rule: Option<String>,
    #[serde(default = "yes")]
    visible: bool,
    #[serde(default)]
    evidence: Vec<String>,
    ignore_fix: Option<bool>,
    #[serde(default)]
    snippet: Vec<String>,
}

fn yes() -> bool {
    true
}

#[test]
fn every_mechanism_attributes_from_the_inputs_evidence() {
    let root = common::root().join("tests/fixtures/provenance");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    // Every mechanism has a first and a second example.
    let mut per_mechanism: BTreeMap<String, usize> = BTreeMap::new();
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mechanism = name.rsplit_once('-').map_or(name.as_str(), |(m, _)| m);
        *per_mechanism.entry(mechanism.to_string()).or_default() += 1;
    }
    for (mechanism, n) in &per_mechanism {
        assert!(*n >= 2, "{mechanism}: {n} example(s), two wanted");
    }

    let opts = Options {
        compare: CompareOptions {
            include_hidden: true,
            ..CompareOptions::default()
        },
        ..Options::default()
    };
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
        let expect: Expect = serde_yaml::from_str(&read("expect.yaml").expect("expect.yaml"))
            .unwrap_or_else(|e| panic!("{name}/expect.yaml: {e}"));
        let report = match read("diff.txt") {
            Some(diff) => analyze_diff(&diff, &opts),
            None => analyze(
                &read("git.yaml").unwrap(),
                &read("live.yaml").unwrap(),
                &opts,
            ),
        }
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        common::assert_valid(&report);
        common::assert_invariants(&report);
        let status = if report.summary.out_of_sync > 0 {
            "OutOfSync"
        } else {
            "Synced"
        };
        assert_eq!(status, expect.status, "{name}: status");
        for f in &expect.differences {
            let resource = report
                .resources
                .iter()
                .find(|r| r.id == f.id)
                .unwrap_or_else(|| panic!("{name}: no resource {}", f.id));
            let d = resource
                .differences
                .iter()
                .find(|d| d.pointer == f.pointer && d.visible == f.visible)
                .unwrap_or_else(|| {
                    panic!(
                        "{name}: no difference at {} {} (visible {}); found {:?}",
                        f.id,
                        f.pointer,
                        f.visible,
                        resource
                            .differences
                            .iter()
                            .map(|d| (&d.pointer, d.visible, &d.rule))
                            .collect::<Vec<_>>()
                    )
                });
            assert_eq!(
                d.cause.id(),
                f.cause,
                "{name} {}: {}",
                f.pointer,
                d.evidence
            );
            if let Some(rule) = &f.rule {
                assert_eq!(&d.rule, rule, "{name} {}: {}", f.pointer, d.evidence);
            }
            for words in &f.evidence {
                assert!(
                    d.evidence.contains(words.as_str()),
                    "{name} {}: evidence lacks {words:?}: {}",
                    f.pointer,
                    d.evidence
                );
            }
            let ignores: Vec<&drift_doctor::Fix> = resource
                .fixes
                .iter()
                .filter(|x| x.kind == FixKind::Ignore && x.pointers.contains(&f.pointer))
                .collect();
            if let Some(want) = f.ignore_fix {
                assert_eq!(
                    !ignores.is_empty(),
                    want,
                    "{name} {}: ignore fix",
                    f.pointer
                );
            }
            for words in &f.snippet {
                assert!(
                    ignores.iter().any(|x| x.snippet.contains(words.as_str())),
                    "{name} {}: no ignore snippet holds {words:?}",
                    f.pointer
                );
            }
        }
    }
}

/// A person's edit is never hidden: no recommended ignore fix, and the
/// warning before a forced sync names it.
#[test]
fn a_field_a_person_wrote_gets_no_ignore_fix_and_is_named_before_a_forced_sync() {
    for case in [
        "person-replaces-keyed-list-entry-1",
        "person-replaces-keyed-list-entry-2",
    ] {
        let dir = format!("tests/fixtures/provenance/{case}");
        let report = analyze(
            &common::read(format!("{dir}/git.yaml")),
            &common::read(format!("{dir}/live.yaml")),
            &Options::default(),
        )
        .unwrap();
        for r in &report.resources {
            assert!(
                r.fixes.iter().all(|f| f.kind != FixKind::Ignore),
                "{case}: {:?}",
                r.fixes
            );
        }
        assert!(
            report.emergency.iter().any(|s| s.contains("Do not force")),
            "{case}: {:?}",
            report.emergency
        );
    }
}
