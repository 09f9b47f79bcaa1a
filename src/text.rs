//! Values as words: the one way the core turns JSON values into text for
//! evidence, fix templates and renderers, and fills `{name}` templates.

#![warn(missing_docs)]

use serde_json::Value;

/// How an absent side reads wherever a value is shown.
pub const ABSENT: &str = "(absent)";

/// A value as rules and evidence see it: strings raw, others compact JSON.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// [`value_text`], or [`ABSENT`] for an absent side (`None`; in a report's
/// differences an absent side is stored as `null`).
pub fn value_or_absent(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => ABSENT.to_string(),
        Some(v) => value_text(v),
    }
}

/// A value as the page shows it beside the other side: strings quoted (so
/// an empty string and a missing value read apart), others compact JSON,
/// [`ABSENT`] for an absent side.
pub fn value_quoted(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => ABSENT.to_string(),
        Some(Value::String(s)) => serde_json::to_string(s).unwrap_or_else(|_| s.clone()),
        Some(other) => other.to_string(),
    }
}

/// The name of a value's JSON type, as messages about input name it.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "mapping",
    }
}

/// The text with its first letter upper-case (a badge or sentence start).
pub fn sentence_case(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Text on one line (line breaks shown as `\n`), cut to `max` characters
/// with an ellipsis.
pub fn one_line(s: &str, max: usize) -> String {
    let s = s.replace('\n', "\\n");
    if s.chars().count() > max {
        let cut: String = s.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        s
    }
}

/// A field as evidence and fixes name it: dotted, with list items by their
/// merge key where known (`spec.template.spec.containers[name=app].image`).
pub fn field_words(path: &[crate::path::Seg]) -> String {
    if path.is_empty() {
        "the whole object".to_string()
    } else {
        crate::path::dotted(path)
    }
}

/// [`field_words`] as a code span in a sentence (`` `spec.replicas` ``), or
/// "the whole object".
pub fn field_code(path: &[crate::path::Seg]) -> String {
    if path.is_empty() {
        "the whole object".to_string()
    } else {
        format!("`{}`", crate::path::dotted(path))
    }
}

/// A field as the views list it: its dotted name ([`crate::Difference::field`]),
/// or "(whole object)".
pub fn field_label(field: &str) -> &str {
    if field.is_empty() {
        "(whole object)"
    } else {
        field
    }
}

/// [`field_code`] of a JSON pointer.
pub fn pointer_code(pointer: &str) -> String {
    field_code(&crate::path::parse_pointer(pointer))
}

/// Replace `{name}` placeholders; unknown ones stay as written.
pub fn fill(template: &str, vars: &[(String, String)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        match after.find('}') {
            Some(end) => {
                let name = &after[..end];
                match vars.iter().rev().find(|(k, _)| k == name) {
                    Some((_, v)) => out.push_str(v),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// `n` and the noun in its number: "1 difference", "2 differences" (never
/// "difference(s)").
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_read_one_way() {
        let cases: &[(Option<Value>, &str)] = &[
            (None, "(absent)"),
            (Some(Value::Null), "(absent)"),
            (Some(json!("a b")), "a b"),
            (Some(json!(3)), "3"),
            (Some(json!({"k": [1, true]})), r#"{"k":[1,true]}"#),
        ];
        for (v, want) in cases {
            assert_eq!(value_or_absent(v.as_ref()), *want);
        }
        assert_eq!(one_line("a\nbcdef", 5), "a\\nb…");
        assert_eq!(one_line("short", 60), "short");
    }

    #[test]
    fn templates_fill_known_names_only() {
        let vars = vec![("kind".to_string(), "Deployment".to_string())];
        assert_eq!(fill("{kind} {other} {", &vars), "Deployment {other} {");
    }
}
