//! What a document must be to be a Kubernetes object (a map with
//! `apiVersion`, `kind` and `metadata.name` as strings), and where in its
//! text the field that shows a problem sits.

use super::{line_col, DocumentText};
use crate::text::type_name;
use serde_json::Value;

/// What is wrong with an object's shape, and the field that shows it.
pub(super) fn check_object(v: &Value) -> Result<(), (String, &'static [&'static str])> {
    let Some(map) = v.as_object() else {
        return Err((
            format!(
                "not a Kubernetes object: a {} rather than a mapping",
                type_name(v)
            ),
            &[],
        ));
    };
    match map.get("kind") {
        Some(Value::String(k)) if !k.is_empty() => {}
        Some(other) => {
            return Err((
                format!(
                    "not a Kubernetes object: `kind` is {} rather than a non-empty string",
                    value_description(other)
                ),
                &["kind"],
            ))
        }
        None => return Err(("not a Kubernetes object: it has no `kind`".into(), &[])),
    }
    match map.get("apiVersion") {
        Some(Value::String(_)) | None => {}
        Some(other) => {
            return Err((
                format!(
                    "`apiVersion` is {} rather than a string",
                    value_description(other)
                ),
                &["apiVersion"],
            ))
        }
    }
    match map.get("metadata").and_then(|m| m.get("name")) {
        Some(Value::String(n)) if !n.is_empty() => Ok(()),
        Some(Value::Number(n)) => Err((
            format!("`metadata.name` is the number {n}; a name is text: quote it (name: \"{n}\")"),
            &["metadata", "name"],
        )),
        Some(other) => Err((
            format!(
                "not a Kubernetes object: `metadata.name` is {} rather than a non-empty string",
                value_description(other)
            ),
            &["metadata", "name"],
        )),
        None => Err((
            "not a Kubernetes object: it has no `metadata.name`".into(),
            &["metadata"],
        )),
    }
}

fn value_description(v: &Value) -> String {
    match v {
        Value::String(s) if s.is_empty() => "an empty string".into(),
        Value::Null => "null".into(),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a mapping".into(),
        other => format!("the {} {other}", type_name(other)),
    }
}

/// The line and column of a nested field in a document's text: in YAML by
/// indentation, in JSON by the order of quoted keys. `None` when the text
/// does not show it (the caller falls back to the document's first line).
pub(super) fn locate_field(source: &DocumentText, field: &[&str]) -> Option<(usize, usize)> {
    let (first, _) = field.split_first()?;
    let text: &str = &source.text;
    let at = |i: usize, col: usize| (source.first_line + i, col + 1);
    if text.trim_start().starts_with('{') {
        let mut from = 0;
        let mut found = None;
        for key in field {
            let quoted = format!("\"{key}\"");
            let pos = from + text.get(from..)?.find(&quoted)?;
            found = Some(pos);
            from = pos + quoted.len();
        }
        let (line, column) = line_col(text.as_bytes(), found?);
        return Some((source.first_line + line - 1, column));
    }
    let mut parent_indent: Option<usize> = None;
    let mut want = *first;
    let mut rest = &field[1..];
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start_matches(' ');
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = line.len() - trimmed.len();
        if let Some(p) = parent_indent {
            if indent <= p {
                return None;
            }
        }
        if parent_indent.is_none() && indent > 0 {
            continue;
        }
        let key = trimmed
            .split(':')
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches(['"', '\'']);
        if key == want && trimmed.contains(':') {
            match rest.split_first() {
                None => return Some(at(i, indent)),
                Some((next, more)) => {
                    parent_indent = Some(indent);
                    want = next;
                    rest = more;
                }
            }
        }
    }
    None
}
