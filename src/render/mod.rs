//! Human renderings of a report: terminal text and ticket-ready Markdown.

pub mod markdown;
pub mod text;

use serde_json::Value;

/// A value on one line for tables and terminal output.
pub fn inline_value(v: &Value, max: usize) -> String {
    let s = match v {
        Value::Null => "(absent)".to_string(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let s = s.replace('\n', "\\n");
    if s.chars().count() > max {
        let cut: String = s.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        s
    }
}
