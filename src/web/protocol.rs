//! Messages between the page and the analysis worker (bincode-encoded by
//! gloo-worker, so only plain data: the report travels as its JSON text).

use serde::{Deserialize, Serialize};

/// What to analyse: both sides' text and the options the page offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Input {
    pub git: String,
    pub live: String,
    pub namespace: String,
    /// A `Strategy` id (`legacy`, `server-side-apply`, `server-side-diff`).
    pub strategy: String,
    pub ignore_aggregated_roles: bool,
    /// Also compute the differences Argo CD does not count (several times
    /// slower on big inputs, so only when the page shows them).
    pub include_hidden: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Analyse `input`; `seq` numbers requests so stale answers can be dropped.
    Analyze { seq: u32, input: Input },
    /// The side-by-side YAML of one resource of the analysis `seq`.
    Texts { seq: u32, id: String },
    /// The rule catalogue's documentation (the page itself does not parse
    /// the catalogue: that keeps YAML and regex code out of its wasm).
    Rules,
}

/// One rule's documentation, for the rules view and the findings' links.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleDoc {
    pub code: String,
    pub title: String,
    pub cause: drift_doctor::Cause,
    pub confidence: drift_doctor::Confidence,
    pub retired: Option<String>,
    /// (heading, text) in the catalogue's fixed order.
    pub sections: Vec<(String, String)>,
}

/// An input problem, with `side` as `Side::name()` (`git`, `live`, `diff`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorInfo {
    pub side: String,
    pub document: usize,
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The core's one-line description (`live side, document 2, line 9, ...`).
    pub text: String,
}

impl ErrorInfo {
    pub fn general(message: impl Into<String>) -> ErrorInfo {
        let message = message.into();
        ErrorInfo {
            side: String::new(),
            document: 0,
            line: 0,
            column: 0,
            text: message.clone(),
            message,
        }
    }
}

impl From<&drift_doctor::InputError> for ErrorInfo {
    fn from(e: &drift_doctor::InputError) -> ErrorInfo {
        ErrorInfo {
            side: e.side.name().to_string(),
            document: e.document,
            line: e.line,
            column: e.column,
            message: e.message.clone(),
            text: e.to_string(),
        }
    }
}

/// Which side a diff line belongs to.
pub const LINE_SAME: u8 = 0;
pub const LINE_GIT: u8 = 1;
pub const LINE_LIVE: u8 = 2;

/// One line of the side-by-side diff (`git_line`/`live_line` are 1-based, 0 = none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub tag: u8,
    pub git_line: u32,
    pub live_line: u32,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Response {
    /// The report as report-v1 JSON, or the input error; `millis` is the
    /// time spent in the worker.
    Analyzed {
        seq: u32,
        outcome: Result<String, ErrorInfo>,
        millis: f64,
    },
    /// The YAML diff lines of one resource, or `None` with a note.
    Texts {
        seq: u32,
        id: String,
        lines: Option<Vec<Line>>,
        note: String,
    },
    Rules(Result<Vec<RuleDoc>, String>),
}
