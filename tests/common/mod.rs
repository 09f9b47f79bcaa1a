//! Shared helpers for the integration tests.
#![allow(dead_code)]

use drift_doctor::{Report, Status};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The scenario directories under tests/fixtures/scenarios, sorted.
pub fn scenario_names() -> Vec<String> {
    let dir = root().join("tests/fixtures/scenarios");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

pub fn read(path: impl AsRef<Path>) -> String {
    let p = root().join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let schema: Value =
            serde_json::from_str(&read("tests/contract/report-v1.schema.json")).unwrap();
        jsonschema::validator_for(&schema).expect("the contract schema compiles")
    })
}

/// Validate a report against the contract's JSON Schema; panics with every violation.
pub fn assert_valid(report: &Report) -> Value {
    let json = serde_json::to_value(report).unwrap();
    let errors: Vec<String> = validator()
        .iter_errors(&json)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "report violates report-v1 schema:\n{}",
        errors.join("\n")
    );
    json
}

/// Contract invariants beyond the schema.
pub fn assert_invariants(report: &Report) {
    let s = &report.summary;
    assert_eq!(s.resources, report.resources.len());
    assert_eq!(s.synced + s.out_of_sync, s.resources);
    for r in &report.resources {
        let visible = r.differences.iter().any(|d| d.visible);
        assert_eq!(
            r.status == Status::OutOfSync,
            visible,
            "{}: status must follow visible differences",
            r.id
        );
        assert_eq!(
            r.id,
            format!("{}/{}/{}/{}", r.group, r.kind, r.namespace, r.name)
        );
        for f in &r.fixes {
            if f.kind == drift_doctor::FixKind::Ignore {
                assert_ne!(
                    f.cause,
                    drift_doctor::Cause::Drift,
                    "{}: drift must never get an ignore fix",
                    r.id
                );
                for p in &f.pointers {
                    let d = r
                        .differences
                        .iter()
                        .find(|d| &d.pointer == p)
                        .expect("ignore fix names a real difference");
                    assert_ne!(
                        d.cause,
                        drift_doctor::Cause::Drift,
                        "{}: ignore fix covers drift at {p}",
                        r.id
                    );
                }
            }
        }
    }
}
