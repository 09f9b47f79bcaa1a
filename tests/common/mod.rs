//! Shared helpers for the integration tests.
#![allow(dead_code)]

pub mod diff_writer;

use drift_doctor::{ArgoCdRelease, CompareOptions, Options, Report, Status, Strategy};
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

/// What a scenario's `options.yaml` says: how it is compared, and what the
/// scenario test expects.
#[derive(serde::Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct ScenarioOptions {
    pub namespace: Option<String>,
    #[serde(default)]
    pub include_hidden: bool,
    pub strategy: Option<String>,
    #[serde(default)]
    pub ignore_aggregated_roles: bool,
    /// The Argo CD release imitated (`MAJOR.MINOR`); the newest when absent.
    pub argocd_version: Option<String>,
    /// Cause ids that must appear among the visible differences.
    #[serde(default)]
    pub expect_causes: Vec<String>,
    /// Expected number of OutOfSync resources.
    pub expect_out_of_sync: Option<usize>,
}

/// One folder under tests/fixtures/scenarios: its two sides and options.
/// Every test that runs scenarios loads them here, so each runs under the
/// release and strategy its folder names.
pub struct Scenario {
    pub name: String,
    pub git: String,
    pub live: String,
    pub options: ScenarioOptions,
}

impl Scenario {
    pub fn load(name: &str) -> Scenario {
        let dir = format!("tests/fixtures/scenarios/{name}");
        let path = root().join(&dir).join("options.yaml");
        let options = if path.exists() {
            serde_yaml::from_str(&read(&path))
                .unwrap_or_else(|e| panic!("{name}: options.yaml: {e}"))
        } else {
            ScenarioOptions::default()
        };
        Scenario {
            name: name.to_string(),
            git: read(format!("{dir}/git.yaml")),
            live: read(format!("{dir}/live.yaml")),
            options,
        }
    }

    /// Every scenario, by name.
    pub fn all() -> Vec<Scenario> {
        scenario_names().iter().map(|n| Scenario::load(n)).collect()
    }

    /// The strategy the scenario names, legacy when it names none.
    pub fn strategy(&self) -> Strategy {
        self.options
            .strategy
            .as_deref()
            .map(|s| Strategy::from_id(s).expect("known strategy"))
            .unwrap_or_default()
    }

    /// The options the scenario is compared with.
    pub fn analysis_options(&self) -> Options {
        self.options_with(self.strategy())
    }

    /// Those options under another strategy.
    pub fn options_with(&self, strategy: Strategy) -> Options {
        let release = self
            .options
            .argocd_version
            .as_deref()
            .map(|v| ArgoCdRelease::parse(v).expect("a release"))
            .unwrap_or_default();
        Options {
            namespace: self.options.namespace.clone(),
            compare: CompareOptions {
                strategy,
                ignore_aggregated_roles: self.options.ignore_aggregated_roles,
                include_hidden: self.options.include_hidden,
                ..CompareOptions::for_release(release)
            },
        }
    }
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
