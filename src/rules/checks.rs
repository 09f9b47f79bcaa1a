//! The checks of `drift-doctor check`: rules of the same catalogue that look
//! at rendered manifests alone, before they ship (`checks.yaml`, which
//! `build.rs` turns into JSON like `catalog.yaml`). Each names the cause the
//! loop would get once it runs and the analysis rules that would explain it;
//! what it finds is decided by `crate::check`, one detector per code.

use super::Docs;
use crate::model::Cause;
use serde::{Deserialize, Serialize};

/// `checks.yaml` as JSON, one check per line (see `build.rs`).
pub(super) const CHECKS: &str = include_str!(concat!(env!("OUT_DIR"), "/checks.json"));

/// The code prefix every check carries.
pub const CHECK_PREFIX: &str = "CK";

/// How serious a finding is; `--fail-on` compares against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Worth a look: the value may be generated, the rule may be stale.
    Note,
    /// The app will loop or a sync will fail in a common setup.
    Warning,
    /// The app loops, or the sync fails, whatever the cluster holds.
    Error,
}

impl Level {
    /// The level's id (also SARIF's `level`).
    pub fn id(self) -> &'static str {
        match self {
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }

    /// The level with this id.
    pub fn from_id(id: &str) -> Option<Level> {
        [Level::Note, Level::Warning, Level::Error]
            .into_iter()
            .find(|l| l.id() == id)
    }
}

/// One check of the catalogue.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// The stable code, `CK` and three digits.
    pub code: String,
    /// One line naming what it finds.
    pub title: String,
    /// How serious its findings are.
    pub level: Level,
    /// The cause the loop gets once the manifests are synced.
    pub cause: Cause,
    /// The analysis rules that explain that loop once it runs.
    #[serde(default)]
    pub loops_as: Vec<String>,
    /// The finding's message, with `{vars}` the detector fills.
    pub message: String,
    /// The fix, a sentence (may hold `{vars}`).
    pub fix: String,
    /// A YAML snippet to copy, when the fix is one (may hold `{vars}`).
    #[serde(default)]
    pub snippet: Option<String>,
    /// Pointer patterns the detector looks at, where it looks at fields.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Its documentation, the same six questions as every rule's.
    pub docs: Docs,
    /// Renders it must find (and where), run as tests.
    pub examples: Vec<CheckExample>,
}

/// A render a check must find something in.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckExample {
    /// The render (`helm template`, `kustomize build`).
    pub git: String,
    /// A second render of the same commit.
    #[serde(default)]
    pub git_again: Option<String>,
    /// Argo CD settings (an Application and/or argocd-cm).
    #[serde(default)]
    pub settings: Option<String>,
    /// The resource id the finding names (`group/Kind/namespace/name`), or
    /// the rule's source for a finding on the settings.
    pub id: String,
    /// The line of the finding in its input.
    pub line: usize,
}

/// Parse and check the checks: codes carry `CK`, are unique, and each has
/// two examples at least; the analysis rules they name exist in `rules`.
pub(super) fn parse(text: &str, rules: &[super::Rule]) -> Result<Vec<Check>, String> {
    let checks: Vec<Check> = serde_json::from_str(text).map_err(|e| {
        format!(
            "check catalogue, check {} of checks.yaml: {e}",
            e.line().saturating_sub(1)
        )
    })?;
    let mut seen = std::collections::BTreeSet::new();
    for c in &checks {
        if !c.code.starts_with(CHECK_PREFIX) || !seen.insert(c.code.as_str()) {
            return Err(format!(
                "check {}: a check's code starts with {CHECK_PREFIX} and is unique",
                c.code
            ));
        }
        if c.examples.len() < 2 {
            return Err(format!("check {}: give two examples at least", c.code));
        }
        if let Some(missing) = c
            .loops_as
            .iter()
            .find(|code| !rules.iter().any(|r| &r.code == *code))
        {
            return Err(format!("check {}: no rule {missing} to loop as", c.code));
        }
        for p in &c.paths {
            if !p.starts_with('/') {
                return Err(format!(
                    "check {}: path `{p}` is not a pointer pattern",
                    c.code
                ));
            }
        }
    }
    Ok(checks)
}
