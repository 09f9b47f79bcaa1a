//! Scalars of the YAML fragment reader: plain values resolved by the YAML 1.2 core schema, quoted
//! text, flow collections, and the values written over several lines (folded plain scalars and
//! `|`/`>` block scalars).
//!
//! Separate from the structure (maps, lists, indentation) read in the parent module: these read
//! one value once its place is known.

use serde_json::{Map, Number, Value};

use super::{closing_double_quote, closing_single_quote};

/// A value written on one line after `key: ` or `- `.
pub(crate) fn parse_inline(text: &str) -> Value {
    let t = text.trim_matches([' ', '\t']);
    let Some(first) = t.chars().next() else {
        return Value::Null;
    };
    match first {
        '"' => match closing_double_quote(t) {
            Some(end) if end == t.len() - 1 => Value::String(unescape_double(&t[1..end])),
            _ => Value::String(t.to_string()),
        },
        '\'' => match closing_single_quote(t) {
            Some(end) if end == t.len() - 1 => Value::String(t[1..end].replace("''", "'")),
            _ => Value::String(t.to_string()),
        },
        '[' | '{' => {
            if t == "[]" {
                Value::Array(Vec::new())
            } else if t == "{}" {
                Value::Object(Map::new())
            } else {
                parse_flow(t)
            }
        }
        // Aliases, anchors, tags and reserved indicators: kept as text (covers kubectl's `***` mask).
        '*' | '&' | '!' | '%' | '@' | '`' => Value::String(t.to_string()),
        _ => resolve_plain(t),
    }
}

/// Flow collections (`[a, b]`, `{a: 1}`): rare in this dialect, handed to serde_yaml; text if that fails.
fn parse_flow(t: &str) -> Value {
    match serde_yaml::from_str::<serde_yaml::Value>(t) {
        Ok(v) => serde_json::to_value(v).unwrap_or_else(|_| Value::String(t.to_string())),
        Err(_) => Value::String(t.to_string()),
    }
}

/// YAML 1.2 core schema resolution of a plain scalar.
pub(crate) fn resolve_plain(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    let first = s.as_bytes()[0];
    let numeric = first.is_ascii_digit() || first == b'-' || first == b'+' || first == b'.';
    match parse_number(s).filter(|_| numeric) {
        Some(n) => Value::Number(n),
        None => Value::String(s.to_string()),
    }
}

fn parse_number(s: &str) -> Option<Number> {
    let (neg, digits) = match s.as_bytes()[0] {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        if neg {
            if let Ok(v) = s.parse::<i64>() {
                return Some(Number::from(v));
            }
        } else if let Ok(v) = digits.parse::<u64>() {
            return Some(Number::from(v));
        }
        return s.parse::<f64>().ok().and_then(Number::from_f64);
    }
    if !neg {
        if let Some(hex) = digits.strip_prefix("0x") {
            return u64::from_str_radix(hex, 16).ok().map(Number::from);
        }
        if let Some(oct) = digits.strip_prefix("0o") {
            return u64::from_str_radix(oct, 8).ok().map(Number::from);
        }
    }
    if is_decimal_float(digits) {
        return s.parse::<f64>().ok().and_then(Number::from_f64);
    }
    None
}

/// `[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?` or `\.[0-9]+([eE][-+]?[0-9]+)?`.
pub(super) fn is_decimal_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let int_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = b[i.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if exp == 0 {
            return false;
        }
        i += exp;
    }
    i == b.len()
}

/// Undo the escapes of a double-quoted scalar (the text between the quotes).
pub(crate) fn unescape_double(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let hex = |chars: &mut std::str::Chars<'_>, n: usize| -> Option<char> {
            let digits: String = chars.by_ref().take(n).collect();
            u32::from_str_radix(&digits, 16)
                .ok()
                .and_then(char::from_u32)
        };
        match e {
            '0' => out.push('\0'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            't' | '\t' => out.push('\t'),
            'n' => out.push('\n'),
            'v' => out.push('\u{b}'),
            'f' => out.push('\u{c}'),
            'r' => out.push('\r'),
            'e' => out.push('\u{1b}'),
            ' ' => out.push(' '),
            '"' => out.push('"'),
            '/' => out.push('/'),
            '\\' => out.push('\\'),
            'N' => out.push('\u{85}'),
            '_' => out.push('\u{a0}'),
            'L' => out.push('\u{2028}'),
            'P' => out.push('\u{2029}'),
            'x' => out.push(hex(&mut chars, 2).unwrap_or('\u{fffd}')),
            'u' => out.push(hex(&mut chars, 4).unwrap_or('\u{fffd}')),
            'U' => out.push(hex(&mut chars, 8).unwrap_or('\u{fffd}')),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// A scalar written over several lines (go-yaml folds long strings at 80 columns): `first` is the
/// text after `key: `, `rest` the continuation lines (already trimmed, `""` for blank lines).
pub(crate) fn parse_folded_flow(first: &str, rest: &[&str]) -> Value {
    let first = first.trim();
    // A line break folds to one space, blank lines are line breaks (an escape inside double
    // quotes, where a trailing backslash also joins two lines without the space).
    let double = first.starts_with('"');
    let newline = if double { "\\n" } else { "\n" };
    let mut joined = String::from(first);
    let mut pending_newlines = 0usize;
    for line in rest {
        let line = line.trim();
        if line.is_empty() {
            pending_newlines += 1;
            continue;
        }
        if pending_newlines > 0 {
            for _ in 0..pending_newlines {
                joined.push_str(newline);
            }
            pending_newlines = 0;
        } else if double && joined.ends_with('\\') && !joined.ends_with("\\\\") {
            joined.pop();
        } else {
            joined.push(' ');
        }
        joined.push_str(line);
    }
    if double || first.starts_with('\'') {
        return parse_inline(&joined);
    }
    resolve_plain(&joined)
}

/// The content of a block scalar. `header` is `|`, `>-`, `|2+`, …; `key_col` the column of the key
/// (or dash) that owns it; `lines` the following lines as (column, text after the indentation), blank
/// lines as (0, "").
pub(crate) fn block_scalar(header: &str, key_col: usize, lines: &[(usize, &str)]) -> String {
    let folded = header.starts_with('>');
    let chomp = if header.contains('-') {
        Chomp::Strip
    } else if header.contains('+') {
        Chomp::Keep
    } else {
        Chomp::Clip
    };
    let explicit = header
        .chars()
        .find(|c| c.is_ascii_digit())
        .and_then(|c| c.to_digit(10));
    let content_col = match explicit {
        Some(n) if n > 0 => key_col + n as usize,
        _ => lines
            .iter()
            .find(|(_, t)| !t.is_empty())
            .map(|(c, _)| *c)
            .unwrap_or(key_col + 2),
    };
    let texts: Vec<String> = lines
        .iter()
        .map(|(col, t)| {
            if t.is_empty() {
                String::new()
            } else {
                let extra = col.saturating_sub(content_col);
                let mut s = String::with_capacity(extra + t.len());
                s.extend(std::iter::repeat_n(' ', extra));
                s.push_str(t);
                s
            }
        })
        .collect();
    let last_content = texts.iter().rposition(|t| !t.is_empty());
    let (main, trailing_blank) = match last_content {
        Some(k) => (&texts[..=k], texts.len() - k - 1),
        None => (&texts[..0], texts.len()),
    };
    let mut body = if folded {
        fold_lines(main)
    } else {
        main.join("\n")
    };
    match chomp {
        Chomp::Strip => {}
        Chomp::Clip => {
            if !main.is_empty() {
                body.push('\n');
            }
        }
        Chomp::Keep => {
            if !main.is_empty() {
                body.push('\n');
            }
            for _ in 0..trailing_blank {
                body.push('\n');
            }
        }
    }
    body
}

enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// Folding of `>` block scalars: breaks between two plain lines become spaces, blank lines newlines,
/// lines starting with a space keep their breaks.
fn fold_lines(lines: &[String]) -> String {
    let mut out = String::new();
    let mut prev: Option<&str> = None;
    let mut blanks = 0usize;
    for line in lines {
        if line.is_empty() {
            blanks += 1;
            continue;
        }
        if let Some(p) = prev {
            let keep = p.starts_with(' ') || line.starts_with(' ');
            if blanks > 0 {
                if keep {
                    out.push('\n');
                }
                for _ in 0..blanks {
                    out.push('\n');
                }
            } else if keep {
                out.push('\n');
            } else {
                out.push(' ');
            }
        } else {
            for _ in 0..blanks {
                out.push('\n');
            }
        }
        blanks = 0;
        out.push_str(line);
        prev = Some(line);
    }
    out
}
