//! Human renderings of a report: terminal text and ticket-ready Markdown.

#![warn(missing_docs)]

pub mod markdown;
pub mod text;

use crate::model::Status;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt::Write;

/// Text from the input made inert for a terminal: control characters (ESC,
/// OSC's BEL, C1 controls) and the invisible direction overrides that can
/// reorder what a reader sees are written as `\u{..}` escapes. Line breaks
/// and tabs stay: the renderers lay text out with them.
pub fn terminal_inert(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe_for_terminal) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe_for_terminal(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn is_unsafe_for_terminal(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A value on one line for tables and terminal output.
pub fn inline_value(v: Option<&Value>, max: usize) -> String {
    crate::text::one_line(&crate::text::value_or_absent(v), max)
}

/// What drift-doctor says of a resource Argo CD's verdict names.
use crate::text::count;

fn our_verdict(status: Option<Status>) -> &'static str {
    match status {
        Some(Status::Synced) => "Synced",
        Some(Status::OutOfSync) => "OutOfSync",
        None => "not pasted",
    }
}
