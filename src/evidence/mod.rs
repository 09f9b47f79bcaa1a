//! What the cluster and Argo CD already said: `kubectl get events` (table,
//! `-o yaml|json` of `v1` and `events.k8s.io/v1`), the Events section of
//! `kubectl describe`, and controller logs (Argo CD's logrus text and JSON,
//! klog, free text). Read into [`Said`] items, matched against the catalogue
//! of what each tool says (`patterns.yaml`), and counted into the sync loop
//! ([`sync_loop`]). Pure: the caller passes the texts.
//!
//! Credentials in log lines (bearer tokens, passwords in URLs, `token=`)
//! are masked before anything is read ([`crate::secret_mask::credentials`]),
//! so no quote carries them.

#![warn(missing_docs)]

pub mod events;
pub mod logs;
pub mod patterns;
pub mod sync_loop;
pub mod time;

use std::fmt;
pub use time::When;

/// The longest quote of a line kept, in characters.
pub const MAX_QUOTE: usize = 300;

/// Which kind of text an item was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    /// A Kubernetes event.
    Event,
    /// A log line.
    Log,
}

impl Origin {
    /// The origin's id in the report.
    pub fn id(self) -> &'static str {
        match self {
            Origin::Event => "event",
            Origin::Log => "log",
        }
    }

    /// The input's name in messages (`events 1`, `logs 2`).
    pub fn input_name(self) -> &'static str {
        match self {
            Origin::Event => "events",
            Origin::Log => "logs",
        }
    }
}

/// The object an event is about, or a log line names.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectRef {
    /// The kind as written (`deployment` in a table, `Deployment` in YAML);
    /// empty when the text does not say.
    pub kind: String,
    /// The name.
    pub name: String,
    /// The namespace; empty when the text does not say.
    pub namespace: String,
}

impl ObjectRef {
    /// `Kind namespace/name` for sentences.
    pub fn describe(&self) -> String {
        let kind = if self.kind.is_empty() {
            "object".to_string()
        } else {
            self.kind.clone()
        };
        if self.namespace.is_empty() {
            format!("{kind} {}", self.name)
        } else {
            format!("{kind} {}/{}", self.namespace, self.name)
        }
    }

    /// Whether this names the resource `kind` `namespace`/`name`: kinds agree
    /// ignoring case (tables print them in lower case) or this one has none,
    /// and the namespace agrees unless this one has none.
    pub fn names(&self, kind: &str, namespace: &str, name: &str) -> bool {
        self.name == name
            && (self.kind.is_empty() || self.kind.eq_ignore_ascii_case(kind))
            && (self.namespace.is_empty() || self.namespace == namespace)
    }
}

/// One event or log line.
#[derive(Debug, Clone, PartialEq)]
pub struct Said {
    /// Event or log.
    pub origin: Origin,
    /// Which input of its origin (from 1).
    pub input: usize,
    /// Its line in that input (from 1).
    pub line: usize,
    /// When it was last said.
    pub last: Option<When>,
    /// When it was first said (an event seen more than once).
    pub first: Option<When>,
    /// The time as the text wrote it (`2m30s`, an RFC 3339 time).
    pub time_text: String,
    /// How many times (an event's count; 1 for a log line).
    pub count: u64,
    /// The object it is about (an event's involved object, the object a
    /// log line's fields name).
    pub object: Option<ObjectRef>,
    /// The event's reason (empty for a log line).
    pub reason: String,
    /// Who said it: the event's reporting component, or the program a log
    /// line's fields or shape show (empty when unknown).
    pub source: String,
    /// A Warning event, or a log line at level warning or above.
    pub warning: bool,
    /// The event's message or note, or the log line's message.
    pub message: String,
    /// A log line's other fields (`application`, `kind`, `name`…), or facts
    /// the describe output gave about the object (`reference`).
    pub fields: Vec<(String, String)>,
    /// The line as written (masked), on one line, cut.
    pub quote: String,
}

impl Said {
    /// A field's value.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// `events 1, line 4`.
    pub fn location(&self) -> String {
        format!(
            "{} {}, line {}",
            self.origin.input_name(),
            self.input,
            self.line
        )
    }

    /// The time for sentences: `2m30s ago`, the RFC 3339 time, or the
    /// clock as written.
    pub fn time_words(&self) -> String {
        match self.last {
            Some(When::Ago(_)) => format!("{} ago", self.time_text),
            Some(_) => self.time_text.clone(),
            None => "at a time not given".to_string(),
        }
    }
}

/// Everything read from the events and logs given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    /// Every event and log line read, in input order.
    pub said: Vec<Said>,
    /// What was skipped, each naming its input and line.
    pub warnings: Vec<String>,
    /// Events read.
    pub events: usize,
    /// Log lines read.
    pub log_lines: usize,
}

/// An input that cannot be read: which one, which line, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// `events 1`, `logs 2`.
    pub input: String,
    /// The line (from 1; 0 for the input as a whole).
    pub line: usize,
    /// Why.
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}, line {}: {}", self.input, self.line, self.message)
        } else {
            write!(f, "{}: {}", self.input, self.message)
        }
    }
}

impl std::error::Error for ReadError {}

/// The texts masked as the report and a link show them: credentials in
/// every text, one numbering over all of them (events first, then logs).
pub fn masked_texts(events: &[&str], logs: &[&str]) -> (Vec<String>, Vec<String>) {
    let all: Vec<&str> = events.iter().chain(logs).copied().collect();
    let masks = crate::secret_mask::Masks::reserving(&all);
    let mask = |t: &&str| crate::secret_mask::credentials::mask_credentials(t, &masks);
    (
        events.iter().map(mask).collect(),
        logs.iter().map(mask).collect(),
    )
}

/// Read events and logs, each text one input (numbered from 1 in its
/// kind). A text of neither known shape is an error naming it; a line that
/// cannot be read is skipped with a warning naming its line.
pub fn read(events: &[&str], logs: &[&str]) -> Result<Observed, ReadError> {
    let (events, logs) = masked_texts(events, logs);
    let mut out = Observed::default();
    for (i, text) in events.iter().enumerate() {
        let read = events::read(text, i + 1)?;
        out.events += read.said.len();
        out.said.extend(read.said);
        out.warnings.extend(read.warnings);
    }
    for (i, text) in logs.iter().enumerate() {
        let read = logs::read(text, i + 1)?;
        out.log_lines += read.said.len();
        out.said.extend(read.said);
        out.warnings.extend(read.warnings);
    }
    Ok(out)
}

/// What one input gave.
#[derive(Debug, Default)]
pub struct Read {
    /// Its items.
    pub said: Vec<Said>,
    /// Its skipped lines.
    pub warnings: Vec<String>,
}

/// The quote of a line: one line, cut.
pub(crate) fn quote(line: &str) -> String {
    crate::text::one_line(line.trim(), MAX_QUOTE)
}
