//! Just enough of the YAML dialect that `sigs.k8s.io/yaml` prints (sorted keys, two-space indent, list
//! items `- ` at their parent key's indent): reading single lines, reading blocks of lines back into
//! values, and writing values in the same style.
//!
//! Reading is tolerant: anything that is not understood becomes a string, never an error, so masked
//! Secret values (`++++++++`, `***`) and lines damaged by copy and paste still give a value.

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

/// Deepest nesting followed; anything deeper is kept as text (bounds recursion and work).
pub(crate) const MAX_DEPTH: usize = 100;

/// Line width at which go-yaml v2 (used by sigs.k8s.io/yaml) folds long scalars.
const BEST_WIDTH: usize = 80;

// ---------------------------------------------------------------------------------------------
// Single lines
// ---------------------------------------------------------------------------------------------

/// Number of leading spaces.
pub(crate) fn indent_of(line: &str) -> usize {
    line.bytes().take_while(|b| *b == b' ').count()
}

/// `- rest` or `-`: the offset of `rest` from the dash and `rest` itself.
pub(crate) fn dash_rest(body: &str) -> Option<(usize, &str)> {
    let rest = body.strip_prefix('-')?;
    if rest.is_empty() {
        return Some((1, ""));
    }
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let trimmed = rest.trim_start_matches([' ', '\t']);
    Some((body.len() - trimmed.len(), trimmed))
}

/// `key: rest` or `key:`: the (unquoted) key and the trimmed rest.
pub(crate) fn split_key(body: &str) -> Option<(Cow<'_, str>, &str)> {
    let bytes = body.as_bytes();
    let first = *bytes.first()?;
    let (key, after): (Cow<'_, str>, &str) = match first {
        b'"' => {
            let end = closing_double_quote(body)?;
            (Cow::Owned(unescape_double(&body[1..end])), &body[end + 1..])
        }
        b'\'' => {
            let end = closing_single_quote(body)?;
            (
                Cow::Owned(body[1..end].replace("''", "'")),
                &body[end + 1..],
            )
        }
        b'[' | b'{' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`' | b',' => {
            return None;
        }
        b'-' | b'?' | b':' if bytes.len() == 1 || matches!(bytes.get(1), Some(b' ' | b'\t')) => {
            return None;
        }
        _ => {
            let mut i = 0;
            let found = loop {
                match bytes[i..].iter().position(|b| *b == b':') {
                    None => break None,
                    Some(p) => {
                        let at = i + p;
                        if matches!(bytes.get(at + 1), None | Some(b' ' | b'\t')) {
                            break Some(at);
                        }
                        i = at + 1;
                    }
                }
            };
            let i = found?;
            let key = trim_blanks_end(&body[..i]);
            if key.is_empty() {
                return None;
            }
            return Some((Cow::Borrowed(key), trim_blanks(&body[i + 1..])));
        }
    };
    let after = trim_blanks_start(after);
    let rest = after.strip_prefix(':')?;
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    Some((key, trim_blanks(rest)))
}

fn trim_blanks_start(s: &str) -> &str {
    let n = s.bytes().take_while(|b| *b == b' ' || *b == b'\t').count();
    &s[n..]
}

pub(crate) fn trim_blanks_end(s: &str) -> &str {
    let n = s
        .bytes()
        .rev()
        .take_while(|b| *b == b' ' || *b == b'\t')
        .count();
    &s[..s.len() - n]
}

/// Trim spaces and tabs (ASCII only: cheaper than Unicode whitespace and all YAML counts as blank).
pub(crate) fn trim_blanks(s: &str) -> &str {
    trim_blanks_end(trim_blanks_start(s))
}

/// Byte index of the quote closing a double-quoted scalar that starts at index 0.
fn closing_double_quote(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Byte index of the quote closing a single-quoted scalar that starts at index 0.
fn closing_single_quote(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            if bytes.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i);
        }
        i += 1;
    }
    None
}

/// `|`, `|-`, `>+`, `|2`, … (a block scalar header).
pub(crate) fn is_block_header(rest: &str) -> bool {
    let mut chars = rest.chars();
    match chars.next() {
        Some('|' | '>') => {}
        _ => return false,
    }
    let tail = chars.as_str();
    let tail = match tail.find(" #") {
        Some(i) => &tail[..i],
        None => tail,
    };
    tail.trim_end()
        .chars()
        .all(|c| c == '-' || c == '+' || c.is_ascii_digit())
}

// ---------------------------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------------------------

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
fn is_decimal_float(s: &str) -> bool {
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
    if first.starts_with('"') {
        // Double-quoted: line breaks fold to one space unless escaped with a trailing backslash.
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
                    joined.push_str("\\n");
                }
                pending_newlines = 0;
            } else if joined.ends_with('\\') && !joined.ends_with("\\\\") {
                joined.pop();
            } else {
                joined.push(' ');
            }
            joined.push_str(line);
        }
        return parse_inline(&joined);
    }
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
                joined.push('\n');
            }
            pending_newlines = 0;
        } else {
            joined.push(' ');
        }
        joined.push_str(line);
    }
    if first.starts_with('\'') {
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

// ---------------------------------------------------------------------------------------------
// Blocks of lines
// ---------------------------------------------------------------------------------------------

/// Read lines of YAML (one document, no `---`) into a value. Never fails: what cannot be read as
/// structure is kept as text.
pub(crate) fn parse_block<S: AsRef<str>>(lines: &[S]) -> Value {
    let plines: Vec<(usize, &str)> = lines
        .iter()
        .map(|l| {
            let l = l.as_ref().trim_end();
            let col = indent_of(l);
            if col == l.len() {
                (0, "")
            } else {
                (col, &l[col..])
            }
        })
        .collect();
    let mut p = BlockParser {
        lines: plines,
        i: 0,
    };
    p.node(0, 0)
}

struct BlockParser<'a> {
    lines: Vec<(usize, &'a str)>,
    i: usize,
}

impl<'a> BlockParser<'a> {
    fn skip_blank(&mut self) {
        while self.i < self.lines.len() && self.lines[self.i].1.is_empty() {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<(usize, &'a str)> {
        self.lines.get(self.i).copied()
    }

    /// A node whose lines are at column `min_col` or deeper.
    fn node(&mut self, min_col: usize, depth: usize) -> Value {
        self.skip_blank();
        let Some((col, body)) = self.peek() else {
            return Value::Null;
        };
        if col < min_col {
            return Value::Null;
        }
        if depth > MAX_DEPTH {
            return Value::String(self.take_text(min_col));
        }
        if dash_rest(body).is_some() {
            return self.seq(col, depth);
        }
        if split_key(body).is_some() {
            return self.map(col, depth);
        }
        self.i += 1;
        let cont = self.take_continuations(col.saturating_sub(1));
        if cont.is_empty() {
            parse_inline(body)
        } else {
            parse_folded_flow(body, &cont)
        }
    }

    /// All remaining lines at `min_col` or deeper, as text.
    fn take_text(&mut self, min_col: usize) -> String {
        let mut parts = Vec::new();
        while let Some((col, body)) = self.peek() {
            if !body.is_empty() && col < min_col {
                break;
            }
            parts.push(body);
            self.i += 1;
        }
        parts.join("\n")
    }

    /// Lines that continue a scalar owned by something at column `owner_col` (deeper lines and blank
    /// lines between them), trimmed.
    fn take_continuations(&mut self, owner_col: usize) -> Vec<&'a str> {
        let start = self.i;
        let mut end = self.i;
        let mut j = self.i;
        while let Some(&(col, body)) = self.lines.get(j) {
            if body.is_empty() {
                j += 1;
                continue;
            }
            if col <= owner_col {
                break;
            }
            j += 1;
            end = j;
        }
        self.i = end;
        self.lines[start..end].iter().map(|(_, b)| *b).collect()
    }

    fn map(&mut self, col: usize, depth: usize) -> Value {
        let mut m = Map::new();
        loop {
            self.skip_blank();
            let Some((c, body)) = self.peek() else { break };
            if c < col {
                break;
            }
            if c > col {
                // A stray deeper line (damaged paste): skip it.
                self.i += 1;
                continue;
            }
            if dash_rest(body).is_some() {
                break;
            }
            let Some((key, rest)) = split_key(body) else {
                self.i += 1;
                continue;
            };
            self.i += 1;
            let v = self.value_after(col, rest, depth);
            m.insert(key.into_owned(), v);
        }
        Value::Object(m)
    }

    /// The value of a key at column `col` whose line continues with `rest`.
    fn value_after(&mut self, col: usize, rest: &'a str, depth: usize) -> Value {
        if rest.is_empty() {
            let save = self.i;
            self.skip_blank();
            return match self.peek() {
                Some((c, b)) if c == col && dash_rest(b).is_some() => self.seq(col, depth + 1),
                Some((c, _)) if c > col => self.node(col + 1, depth + 1),
                _ => {
                    self.i = save;
                    Value::Null
                }
            };
        }
        if is_block_header(rest) {
            let start = self.i;
            let mut end = self.i;
            let mut j = self.i;
            while let Some(&(c, b)) = self.lines.get(j) {
                if !b.is_empty() && c <= col {
                    break;
                }
                j += 1;
                end = j;
            }
            // Trailing blank lines belong to the scalar only for `|+`; they are harmless otherwise.
            self.i = end;
            return Value::String(block_scalar(rest, col, &self.lines[start..end]));
        }
        let cont = self.take_continuations(col);
        if cont.is_empty() {
            parse_inline(rest)
        } else {
            parse_folded_flow(rest, &cont)
        }
    }

    fn seq(&mut self, col: usize, depth: usize) -> Value {
        let mut items = Vec::new();
        loop {
            self.skip_blank();
            let Some((c, body)) = self.peek() else { break };
            if c < col {
                break;
            }
            if c > col {
                self.i += 1;
                continue;
            }
            let Some((off, rest)) = dash_rest(body) else {
                break;
            };
            if depth > MAX_DEPTH {
                items.push(Value::String(self.take_text(col)));
                break;
            }
            if rest.is_empty() {
                self.i += 1;
                items.push(self.node(col + 1, depth + 1));
                continue;
            }
            let inner = col + off;
            if dash_rest(rest).is_some() || split_key(rest).is_some() {
                // Read `- key: v` as if `key: v` stood on its own line at the item's column.
                self.lines[self.i] = (inner, rest);
                items.push(self.node(col + 1, depth + 1));
                continue;
            }
            self.i += 1;
            if is_block_header(rest) {
                let start = self.i;
                let mut end = self.i;
                let mut j = self.i;
                while let Some(&(c2, b)) = self.lines.get(j) {
                    if !b.is_empty() && c2 <= col {
                        break;
                    }
                    j += 1;
                    end = j;
                }
                self.i = end;
                items.push(Value::String(block_scalar(
                    rest,
                    col,
                    &self.lines[start..end],
                )));
                continue;
            }
            let cont = self.take_continuations(col);
            items.push(if cont.is_empty() {
                parse_inline(rest)
            } else {
                parse_folded_flow(rest, &cont)
            });
        }
        Value::Array(items)
    }
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// Serialise like `sigs.k8s.io/yaml.Marshal`: keys sorted (go-yaml's order), two-space indent, list
/// items not indented under their key, long scalars folded at 80 columns.
pub(crate) fn to_yaml(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Object(m) if !m.is_empty() => write_map(&mut out, m, 0, false),
        Value::Array(a) if !a.is_empty() => write_seq(&mut out, a, 0, false),
        other => {
            let mut col = 0;
            write_scalar(&mut out, other, 0, &mut col);
            out.push('\n');
        }
    }
    out
}

fn sorted_entries(m: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = m.iter().collect();
    entries.sort_by(|a, b| go_key_cmp(a.0, b.0));
    entries
}

fn write_map(out: &mut String, m: &Map<String, Value>, indent: usize, inline_first: bool) {
    for (n, (k, v)) in sorted_entries(m).into_iter().enumerate() {
        if n > 0 || !inline_first {
            push_spaces(out, indent);
        }
        let key = key_text(k);
        out.push_str(&key);
        out.push(':');
        match v {
            Value::Object(inner) if !inner.is_empty() => {
                out.push('\n');
                write_map(out, inner, indent + 2, false);
            }
            Value::Array(items) if !items.is_empty() => {
                out.push('\n');
                write_seq(out, items, indent, false);
            }
            _ => {
                let mut col = indent + key.chars().count() + 1;
                write_scalar(out, v, indent + 2, &mut col);
                out.push('\n');
            }
        }
    }
}

fn write_seq(out: &mut String, items: &[Value], indent: usize, inline_first: bool) {
    for (n, item) in items.iter().enumerate() {
        if n > 0 || !inline_first {
            push_spaces(out, indent);
        }
        out.push('-');
        match item {
            Value::Object(inner) if !inner.is_empty() => {
                out.push(' ');
                write_map(out, inner, indent + 2, true);
            }
            Value::Array(inner) if !inner.is_empty() => {
                out.push(' ');
                write_seq(out, inner, indent + 2, true);
            }
            _ => {
                let mut col = indent + 1;
                write_scalar(out, item, indent + 2, &mut col);
                out.push('\n');
            }
        }
    }
}

fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Writes ` value` (with the separating space) for a scalar or an empty collection; `cont` is the
/// indentation of continuation lines, `col` the current column.
fn write_scalar(out: &mut String, v: &Value, cont: usize, col: &mut usize) {
    let text = match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_text(n),
        Value::Object(_) => "{}".to_string(),
        Value::Array(_) => "[]".to_string(),
        Value::String(s) => {
            write_string(out, s, cont, col);
            return;
        }
    };
    if *col > 0 {
        out.push(' ');
    }
    out.push_str(&text);
    *col += text.len() + 1;
}

fn number_text(n: &Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    match n.as_f64() {
        Some(f) => go_format_float(f),
        None => n.to_string(),
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`.
pub(crate) fn go_format_float(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    if !f.is_finite() {
        return if f.is_nan() {
            ".nan".into()
        } else if f > 0.0 {
            ".inf".into()
        } else {
            "-.inf".into()
        };
    }
    let sci = format!("{:e}", f);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    // Shortest formatting switches to the exponent form below 1e-4 and from 1e6 on.
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(&e.to_string());
        return out;
    }
    if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

fn key_text(k: &str) -> String {
    let style = match string_style(k) {
        Style::Literal => Style::Double,
        s => s,
    };
    let mut out = String::new();
    let mut col = 0;
    write_styled(&mut out, k, style, 0, &mut col, false);
    out
}

fn write_string(out: &mut String, s: &str, cont: usize, col: &mut usize) {
    let style = string_style(s);
    if *col > 0 {
        out.push(' ');
        *col += 1;
    }
    if style == Style::Literal {
        write_literal(out, s, cont);
        return;
    }
    write_styled(out, s, style, cont, col, true);
}

fn string_style(s: &str) -> Style {
    let a = analyze(s);
    if s.contains('\n') {
        return if a.block_allowed {
            Style::Literal
        } else {
            Style::Double
        };
    }
    if resolves_to_non_string(s) {
        return Style::Double;
    }
    if a.plain_allowed {
        Style::Plain
    } else if a.single_allowed {
        Style::Single
    } else {
        Style::Double
    }
}

struct Analysis {
    plain_allowed: bool,
    single_allowed: bool,
    block_allowed: bool,
}

fn is_printable(c: char) -> bool {
    let u = c as u32;
    u == 0x0A
        || (0x20..=0x7E).contains(&u)
        || u == 0x85
        || (0xA0..=0xD7FF).contains(&u)
        || ((0xE000..=0xFFFD).contains(&u) && u != 0xFEFF)
        || (0x10000..=0x10FFFF).contains(&u)
}

/// A simplified `yaml_emitter_analyze_scalar` (block context).
fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            plain_allowed: false,
            single_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let mut block_ind = s.starts_with("---") || s.starts_with("...");
    let mut special = false;
    let mut line_breaks = false;
    let mut space_break = false;
    let mut break_space = false;
    let leading_space = chars[0] == ' ';
    let leading_break = chars[0] == '\n';
    let trailing_space = chars[chars.len() - 1] == ' ';
    let trailing_break = chars[chars.len() - 1] == '\n';
    let mut preceded_ws = true;
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let followed_ws = matches!(next, None | Some(' ' | '\t' | '\n'));
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => block_ind = true,
                '?' | ':' | '-' if followed_ws => block_ind = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_ws => block_ind = true,
                '#' if preceded_ws => block_ind = true,
                _ => {}
            }
        }
        if !is_printable(c) || c == '\u{FEFF}' {
            special = true;
        }
        if c == '\n' {
            line_breaks = true;
            if i > 0 && chars[i - 1] == ' ' {
                space_break = true;
            }
        }
        if c == ' ' && i > 0 && chars[i - 1] == '\n' {
            break_space = true;
        }
        preceded_ws = matches!(c, ' ' | '\t' | '\n');
    }
    let plain_allowed = !(block_ind
        || leading_space
        || leading_break
        || trailing_space
        || trailing_break
        || line_breaks
        || space_break
        || break_space
        || special);
    let single_allowed = !(special || space_break || break_space);
    let block_allowed = !(special || space_break || trailing_space);
    Analysis {
        plain_allowed,
        single_allowed,
        block_allowed,
    }
}

/// Whether go-yaml v2 would read the plain text as something other than a string (then it is
/// double-quoted when written).
pub(crate) fn resolves_to_non_string(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "", "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true",
        "True", "TRUE", "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE",
        ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    if WORDS.contains(&s) {
        return true;
    }
    let first = s.as_bytes()[0];
    if !(first.is_ascii_digit() || first == b'+' || first == b'-' || first == b'.') {
        return false;
    }
    let plain: String = s.chars().filter(|c| *c != '_').collect();
    go_parses_int(&plain)
        || go_parses_float(&plain)
        || looks_like_timestamp(s)
        || is_base60_float(s)
}

fn go_parses_int(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.is_empty() {
        return false;
    }
    let lower = body.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        return !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit());
    }
    if let Some(o) = lower.strip_prefix("0o") {
        return !o.is_empty() && o.chars().all(|c| ('0'..='7').contains(&c));
    }
    if let Some(b) = lower.strip_prefix("0b") {
        return !b.is_empty() && b.chars().all(|c| c == '0' || c == '1');
    }
    if body.len() > 1 && body.starts_with('0') {
        return body.chars().all(|c| ('0'..='7').contains(&c));
    }
    body.chars().all(|c| c.is_ascii_digit())
}

fn go_parses_float(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return true;
    }
    if lower.starts_with("0x") {
        return lower.contains('p');
    }
    is_decimal_float(body)
}

/// `2006-1-2`, `2006-1-2T15:4:5Z`, `2006-1-2 15:4:5.999` and friends (go-yaml v2 timestamps).
fn looks_like_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 8 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let mut i = 5;
    let take_digits = |i: &mut usize, max: usize| -> usize {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() && *i - start < max {
            *i += 1;
        }
        *i - start
    };
    if take_digits(&mut i, 2) == 0 || b.get(i) != Some(&b'-') {
        return false;
    }
    i += 1;
    if take_digits(&mut i, 2) == 0 {
        return false;
    }
    if i == b.len() {
        return true;
    }
    if !matches!(b[i], b'T' | b't' | b' ') {
        return false;
    }
    i += 1;
    for n in 0..3 {
        if take_digits(&mut i, 2) == 0 {
            return false;
        }
        if n < 2 {
            if b.get(i) != Some(&b':') {
                return false;
            }
            i += 1;
        }
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        take_digits(&mut i, 9);
    }
    match b.get(i) {
        None => true,
        Some(b'Z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            let rest = &s[i + 1..];
            rest.len() == 5 && rest.as_bytes()[2] == b':'
        }
        _ => false,
    }
}

fn is_base60_float(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if !body.contains(':') || !body.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return false;
    }
    let (main, frac) = match body.split_once('.') {
        Some((m, f)) => (m, Some(f)),
        None => (body, None),
    };
    if frac.is_some_and(|f| !f.chars().all(|c| c.is_ascii_digit() || c == '_')) {
        return false;
    }
    let mut parts = main.split(':');
    let head = parts.next().unwrap_or("");
    if head.is_empty() || !head.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return false;
    }
    parts.all(|p| {
        let b = p.as_bytes();
        match b.len() {
            1 => b[0].is_ascii_digit(),
            2 => (b'0'..=b'5').contains(&b[0]) && b[1].is_ascii_digit(),
            _ => false,
        }
    })
}

/// Plain, single- or double-quoted text, folded at spaces past column 80 when `allow_breaks`.
fn write_styled(
    out: &mut String,
    s: &str,
    style: Style,
    cont: usize,
    col: &mut usize,
    allow_breaks: bool,
) {
    let chars: Vec<char> = s.chars().collect();
    let len = chars.len();
    let mut spaces = false;
    let newline_then_indent = |out: &mut String, col: &mut usize| {
        out.push('\n');
        push_spaces(out, cont);
        *col = cont;
    };
    match style {
        Style::Plain | Style::Literal => {
            for (i, &c) in chars.iter().enumerate() {
                if c == ' ' {
                    let next_space = chars.get(i + 1) == Some(&' ');
                    if allow_breaks && !spaces && *col > BEST_WIDTH && !next_space {
                        newline_then_indent(out, col);
                    } else {
                        out.push(c);
                        *col += 1;
                    }
                    spaces = true;
                } else {
                    out.push(c);
                    *col += 1;
                    spaces = false;
                }
            }
        }
        Style::Single => {
            out.push('\'');
            *col += 1;
            for (i, &c) in chars.iter().enumerate() {
                if c == ' ' {
                    let next_space = chars.get(i + 1) == Some(&' ');
                    if allow_breaks
                        && !spaces
                        && *col > BEST_WIDTH
                        && i != 0
                        && i + 1 != len
                        && !next_space
                    {
                        newline_then_indent(out, col);
                    } else {
                        out.push(c);
                        *col += 1;
                    }
                    spaces = true;
                } else {
                    if c == '\'' {
                        out.push('\'');
                        *col += 1;
                    }
                    out.push(c);
                    *col += 1;
                    spaces = false;
                }
            }
            out.push('\'');
            *col += 1;
        }
        Style::Double => {
            out.push('"');
            *col += 1;
            for (i, &c) in chars.iter().enumerate() {
                if !is_printable(c) || c == '\u{FEFF}' || c == '\n' || c == '"' || c == '\\' {
                    let esc = match c {
                        '\0' => "\\0".to_string(),
                        '\u{7}' => "\\a".to_string(),
                        '\u{8}' => "\\b".to_string(),
                        '\t' => "\\t".to_string(),
                        '\n' => "\\n".to_string(),
                        '\u{b}' => "\\v".to_string(),
                        '\u{c}' => "\\f".to_string(),
                        '\r' => "\\r".to_string(),
                        '\u{1b}' => "\\e".to_string(),
                        '"' => "\\\"".to_string(),
                        '\\' => "\\\\".to_string(),
                        '\u{85}' => "\\N".to_string(),
                        '\u{a0}' => "\\_".to_string(),
                        '\u{2028}' => "\\L".to_string(),
                        '\u{2029}' => "\\P".to_string(),
                        other => {
                            let u = other as u32;
                            if u <= 0xFF {
                                format!("\\x{:02X}", u)
                            } else if u <= 0xFFFF {
                                format!("\\u{:04X}", u)
                            } else {
                                format!("\\U{:08X}", u)
                            }
                        }
                    };
                    *col += esc.len();
                    out.push_str(&esc);
                    spaces = false;
                } else if c == ' ' {
                    if allow_breaks && !spaces && *col > BEST_WIDTH && i != 0 && i + 1 != len {
                        newline_then_indent(out, col);
                        if chars.get(i + 1) == Some(&' ') {
                            out.push('\\');
                            *col += 1;
                        }
                    } else {
                        out.push(c);
                        *col += 1;
                    }
                    spaces = true;
                } else {
                    out.push(c);
                    *col += 1;
                    spaces = false;
                }
            }
            out.push('"');
            *col += 1;
        }
    }
}

fn write_literal(out: &mut String, s: &str, cont: usize) {
    out.push('|');
    if s.starts_with([' ', '\n']) {
        out.push('2');
    }
    if !s.ends_with('\n') {
        out.push('-');
    } else if s.len() == 1 || s[..s.len() - 1].ends_with('\n') {
        out.push('+');
    }
    let body = s.strip_suffix('\n').unwrap_or(s);
    for line in body.split('\n') {
        out.push('\n');
        if !line.is_empty() {
            push_spaces(out, cont);
            out.push_str(line);
        }
    }
}

/// go-yaml v2's map key order (`keyList.Less`): letters compare as runes, digit runs numerically,
/// non-letters sort before letters.
pub(crate) fn go_key_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let less = |x: &[char], y: &[char]| -> bool {
        let n = x.len().min(y.len());
        for i in 0..n {
            if x[i] == y[i] {
                continue;
            }
            let al = x[i].is_alphabetic();
            let bl = y[i].is_alphabetic();
            if al && bl {
                return x[i] < y[i];
            }
            if al || bl {
                return bl;
            }
            let mut an: u128 = 0;
            let mut bn: u128 = 0;
            if x[i] == '0' || y[i] == '0' {
                let mut j = i;
                while j > 0 {
                    j -= 1;
                    if !x[j].is_ascii_digit() {
                        break;
                    }
                    if x[j] != '0' {
                        an = 1;
                        bn = 1;
                        break;
                    }
                }
            }
            let mut ai = i;
            while ai < x.len() && x[ai].is_ascii_digit() {
                an = an
                    .saturating_mul(10)
                    .saturating_add(x[ai] as u128 - '0' as u128);
                ai += 1;
            }
            let mut bi = i;
            while bi < y.len() && y[bi].is_ascii_digit() {
                bn = bn
                    .saturating_mul(10)
                    .saturating_add(y[bi] as u128 - '0' as u128);
                bi += 1;
            }
            if an != bn {
                return an < bn;
            }
            if ai != bi {
                return ai < bi;
            }
            return x[i] < y[i];
        }
        x.len() < y.len()
    };
    if less(&ar, &br) {
        Ordering::Less
    } else if less(&br, &ar) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}
