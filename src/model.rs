//! The report: the contract every part of drift-doctor shares (report-v1).
//! Field names and cause ids are stable; see `shared/contract/report-v1.md`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub const REPORT_VERSION: u32 = 1;

/// Why a field differs. The ids are part of the report contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    MutatingWebhook,
    ServerDefaults,
    Autoscaler,
    Reloader,
    NondeterministicRender,
    ControllerRewrite,
    SyncOrdering,
    Drift,
}

impl Cause {
    pub const ALL: [Cause; 8] = [
        Cause::MutatingWebhook,
        Cause::ServerDefaults,
        Cause::Autoscaler,
        Cause::Reloader,
        Cause::NondeterministicRender,
        Cause::ControllerRewrite,
        Cause::SyncOrdering,
        Cause::Drift,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Cause::MutatingWebhook => "mutating-webhook",
            Cause::ServerDefaults => "server-defaults",
            Cause::Autoscaler => "autoscaler",
            Cause::Reloader => "reloader",
            Cause::NondeterministicRender => "nondeterministic-render",
            Cause::ControllerRewrite => "controller-rewrite",
            Cause::SyncOrdering => "sync-ordering",
            Cause::Drift => "drift",
        }
    }

    pub fn from_id(id: &str) -> Option<Cause> {
        Cause::ALL.into_iter().find(|c| c.id() == id)
    }

    /// The two letters every rule code of this cause starts with.
    pub fn code_prefix(self) -> &'static str {
        match self {
            Cause::MutatingWebhook => "WH",
            Cause::ServerDefaults => "SD",
            Cause::Autoscaler => "AS",
            Cause::Reloader => "RL",
            Cause::NondeterministicRender => "NR",
            Cause::ControllerRewrite => "CR",
            Cause::SyncOrdering => "SO",
            Cause::Drift => "DR",
        }
    }

    /// A short human label for summaries.
    pub fn label(self) -> &'static str {
        match self {
            Cause::MutatingWebhook => "mutating webhook",
            Cause::ServerDefaults => "server defaults",
            Cause::Autoscaler => "autoscaler",
            Cause::Reloader => "reloader / restart",
            Cause::NondeterministicRender => "non-deterministic render",
            Cause::ControllerRewrite => "controller rewrite",
            Cause::SyncOrdering => "sync ordering",
            Cause::Drift => "real drift",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

impl Confidence {
    pub fn id(self) -> &'static str {
        match self {
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }
}

/// A change relative to Git.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Present live only.
    Added,
    /// Present in Git only.
    Removed,
    /// Present on both sides with different values.
    Changed,
}

impl Change {
    pub fn id(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Status {
    Synced,
    OutOfSync,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Presence {
    Both,
    GitOnly,
    LiveOnly,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FixKind {
    Ignore,
    Git,
    SyncOrder,
    Render,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub version: u32,
    /// The Argo CD release (`MAJOR.MINOR`) whose comparison the analysis
    /// imitates.
    #[serde(default)]
    pub argocd_version: String,
    pub summary: Summary,
    /// Steps to take first when the findings show a sync loop (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub emergency: Vec<String>,
    /// Problems that did not stop the analysis but change what it could use:
    /// a jq rule stopped by its time budget and skipped, a part of pasted
    /// diff output that could not be read (each naming its line).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub resources: Vec<ResourceReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub resources: usize,
    pub synced: usize,
    pub out_of_sync: usize,
    /// Live objects left out: created by a controller or tracked by another app.
    pub skipped: usize,
    /// Visible differences per cause.
    pub causes: BTreeMap<Cause, usize>,
    /// The Argo CD Application the input belongs to, when its tracking metadata says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub application: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceReport {
    pub id: String,
    pub group: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub status: Status,
    pub presence: Presence,
    pub differences: Vec<Difference>,
    pub fixes: Vec<Fix>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    pub pointer: String,
    pub jq: String,
    pub change: Change,
    pub git: Value,
    pub live: Value,
    pub visible: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden_reason: Option<String>,
    pub cause: Cause,
    pub rule: String,
    pub confidence: Confidence,
    pub evidence: String,
    /// The path with list items' merge keys, for building fixes.
    #[serde(skip)]
    pub segs: Vec<crate::path::Seg>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fix {
    pub cause: Cause,
    pub kind: FixKind,
    pub title: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pointers: Vec<String>,
    pub snippet: String,
}
