//! A quick reader for the YAML that `kubectl`, `argocd` and Helm print:
//! block mappings and sequences whose scalars each fit on their line (plain,
//! single- or double-quoted) or are literal blocks (`|`, `|-`), with `[]`
//! and `{}` for empty collections and comments anywhere. Most of a pasted side is written so, and libyaml reads
//! it a character at a time: this reader takes it a line at a time.
//!
//! It gives the value `serde_yaml` and [`StrictValue`] would give, or
//! `None`: for anything else YAML can say (anchors, aliases, tags, flow
//! collections, folded and multi-line scalars, merge keys, directives), for
//! a duplicate key and for every text YAML refuses, so that the strict
//! reader decides and reports the error with its position. Plain scalars
//! resolve as `serde_yaml` resolves them (YAML 1.2's core schema: `null`,
//! `true`, decimal integers, floats, `.inf`, `.nan`); keys become text as
//! [`StrictValue`] makes them. Tests compare the two readers on every
//! fixture and on generated documents.
//!
//! [`StrictValue`]: crate::strict_value::StrictValue

use crate::strict_value::non_finite_text;
use serde_json::{Map, Number, Value};

/// Deeper than this, the strict reader decides (its own limit is 128).
const MAX_DEPTH: usize = 100;

/// libyaml ends a key that runs over 1024 characters to its `:`.
const MAX_KEY_BYTES: usize = 1000;

/// The value of one YAML document `text`, or `None` when it is not written
/// in the subset this reader knows (see the module's documentation).
pub(super) fn read(text: &str) -> Option<Value> {
    if !plain_characters(text) {
        return None;
    }
    let mut reader = Reader {
        lines: document_lines(text)?,
        at: 0,
        depth: 0,
    };
    reader.skip();
    let indent = reader.current()?.indent;
    let value = reader.node(indent)?;
    (reader.at == reader.lines.len()).then_some(value)
}

/// Whether every character is one YAML reads as itself: printable, no tab
/// and no line break but `\n` (libyaml also breaks lines at U+0085, U+2028
/// and U+2029, and refuses control characters, U+FEFF, U+FFFE, U+FFFF).
fn plain_characters(text: &str) -> bool {
    let ascii_ok = |b: u8| b == b'\n' || (b' '..=b'~').contains(&b);
    // Without a branch per byte, a block of bytes is checked at once.
    let block_ok = |block: &[u8]| block.iter().fold(true, |ok, &b| ok & ascii_ok(b));
    if text.as_bytes().chunks(64).all(block_ok) {
        return true;
    }
    text.chars().all(|c| {
        if c.is_ascii() {
            ascii_ok(c as u8)
        } else {
            c >= '\u{a0}'
                && !matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                )
        }
    })
}

/// A line of the document: its indentation, its text after it without
/// trailing spaces, the line as written (for block scalars), and whether
/// it has content (neither blank nor a comment) and a line break.
#[derive(Clone, Copy, Debug)]
struct Line<'t> {
    indent: usize,
    text: &'t str,
    raw: &'t str,
    significant: bool,
    broken: bool,
}

/// The document's lines; `None` for a document marker or directive at the
/// start of a line.
fn document_lines(text: &str) -> Option<Vec<Line<'_>>> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (raw, broken) = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(at) => {
                let raw = &rest[..at];
                rest = &rest[at + 1..];
                (raw, true)
            }
            None => (std::mem::take(&mut rest), false),
        };
        // Spaces are single bytes: counted as bytes, not decoded.
        let bytes = raw.as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        let trailing = bytes[indent..]
            .iter()
            .rev()
            .take_while(|&&b| b == b' ')
            .count();
        let body = &raw[indent..raw.len() - trailing];
        let significant = !body.is_empty() && !body.starts_with('#');
        if significant && indent == 0 && (body.starts_with("---") || body.starts_with("...")) {
            return None;
        }
        lines.push(Line {
            indent,
            text: body,
            raw,
            significant,
            broken,
        });
    }
    Some(lines)
}

/// A sequence entry: `-` alone or followed by a space.
fn is_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

/// What a line (or a sequence entry's text) says, as far as its place in
/// a collection goes.
enum Inline<'t> {
    /// `key: rest`, `rest` without leading spaces (empty, a comment, or
    /// the value).
    Entry { key: String, rest: &'t str },
    /// A scalar alone.
    Scalar,
}

/// Classify `text`; `None` when it is not in the subset.
fn classify(text: &str) -> Option<Inline<'_>> {
    let bytes = text.as_bytes();
    match bytes[0] {
        quote @ (b'"' | b'\'') => {
            let (key, after) = quoted(text, quote)?;
            let spaced = after.trim_start_matches(' ');
            if let Some(rest) = spaced.strip_prefix(':') {
                if rest.is_empty() || rest.starts_with(' ') {
                    if text.len() - rest.len() > MAX_KEY_BYTES {
                        return None;
                    }
                    return Some(Inline::Entry {
                        key,
                        rest: rest.trim_start_matches(' '),
                    });
                }
                return None;
            }
            ends_cleanly(after).then_some(Inline::Scalar)
        }
        b'[' | b'{' => matches!(text, "[]" | "{}").then_some(Inline::Scalar),
        first => {
            if starts_otherwise(first, bytes.get(1).copied()) {
                return None;
            }
            let mut from = 0;
            while let Some(found) = memchr::memchr2(b':', b'#', &bytes[from..]) {
                let at = from + found;
                if bytes[at] == b'#' {
                    if at > 0 && bytes[at - 1] == b' ' {
                        // A comment: what comes before is a scalar alone.
                        return Some(Inline::Scalar);
                    }
                } else if matches!(bytes.get(at + 1), None | Some(b' ')) {
                    if at > MAX_KEY_BYTES {
                        return None;
                    }
                    let key = text[..at].trim_end_matches(' ');
                    return Some(Inline::Entry {
                        key: key_text(resolve(key)?),
                        rest: text[at + 1..].trim_start_matches(' '),
                    });
                }
                from = at + 1;
            }
            Some(Inline::Scalar)
        }
    }
}

/// Whether a plain scalar cannot start with `first` (then `second`): YAML's
/// indicators, but for `-`, `?` and `:` followed by other than a space.
fn starts_otherwise(first: u8, second: Option<u8>) -> bool {
    match first {
        b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%'
        | b'@' | b'`' | b'"' | b'\'' => true,
        b'-' | b'?' | b':' => matches!(second, None | Some(b' ')),
        _ => false,
    }
}

/// Whether what follows a quoted scalar on its line is nothing or a comment.
fn ends_cleanly(after: &str) -> bool {
    after.is_empty() || (after.starts_with(' ') && after.trim_start_matches(' ').starts_with('#'))
}

/// The quoted scalar at the start of `text` and what follows it; `None`
/// unless it closes on the line and every escape is one YAML knows.
fn quoted(text: &str, quote: u8) -> Option<(String, &str)> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut start = 1;
    let mut from = 1;
    loop {
        let at = from
            + if quote == b'"' {
                memchr::memchr2(b'"', b'\\', &bytes[from..])?
            } else {
                memchr::memchr(b'\'', &bytes[from..])?
            };
        out.push_str(&text[start..at]);
        if bytes[at] == quote {
            if quote == b'\'' && bytes.get(at + 1) == Some(&b'\'') {
                out.push('\'');
                start = at + 2;
                from = start;
                continue;
            }
            return Some((out, &text[at + 1..]));
        }
        let (c, length) = escape(&text[at + 1..])?;
        out.push(c);
        start = at + 1 + length;
        from = start;
    }
}

/// The character a double-quoted scalar's escape stands for (`text` is what
/// follows the backslash) and the bytes it takes, as libyaml reads them.
fn escape(text: &str) -> Option<(char, usize)> {
    let c = match text.as_bytes().first()? {
        b'0' => '\0',
        b'a' => '\u{7}',
        b'b' => '\u{8}',
        b't' => '\t',
        b'n' => '\n',
        b'v' => '\u{b}',
        b'f' => '\u{c}',
        b'r' => '\r',
        b'e' => '\u{1b}',
        b' ' => ' ',
        b'"' => '"',
        b'/' => '/',
        b'\\' => '\\',
        b'N' => '\u{85}',
        b'_' => '\u{a0}',
        b'L' => '\u{2028}',
        b'P' => '\u{2029}',
        b'x' => return hex_escape(text, 2),
        b'u' => return hex_escape(text, 4),
        b'U' => return hex_escape(text, 8),
        _ => return None,
    };
    Some((c, 1))
}

fn hex_escape(text: &str, digits: usize) -> Option<(char, usize)> {
    let hex = text.get(1..1 + digits)?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
    Some((c, 1 + digits))
}

/// A plain scalar as `serde_yaml` resolves it.
#[derive(Debug, PartialEq)]
enum Plain<'t> {
    Null,
    Bool(bool),
    Unsigned(u64),
    Negative(i64),
    Float(f64),
    Text(&'t str),
}

/// Resolve the plain scalar `s`; `None` for the forms the strict reader
/// should decide (hexadecimal, octal and binary numbers, and integers
/// beyond 64 bits, which `serde_yaml` hands over as 128-bit ones).
fn resolve(s: &str) -> Option<Plain<'_>> {
    match s {
        "null" | "Null" | "NULL" | "~" => return Some(Plain::Null),
        "true" | "True" | "TRUE" => return Some(Plain::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Plain::Bool(false)),
        _ => {}
    }
    // Only these can start a number (Rust also reads `inf` and `nan`, which
    // `serde_yaml` leaves as text, as they are not finite).
    if !s
        .as_bytes()
        .first()
        .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.'))
    {
        return Some(Plain::Text(s));
    }
    let magnitude = s.strip_prefix(['+', '-']).unwrap_or(s);
    if ["0x", "0o", "0b"].iter().any(|p| magnitude.starts_with(p)) {
        return None;
    }
    if digits_but_not_number(s) {
        return Some(Plain::Text(s));
    }
    if !magnitude.is_empty() && magnitude.bytes().all(|b| b.is_ascii_digit()) {
        return if s.starts_with('-') {
            s.parse().ok().map(Plain::Negative)
        } else {
            magnitude.parse().ok().map(Plain::Unsigned)
        };
    }
    let unpositive = match s.strip_prefix('+') {
        Some(rest) if rest.starts_with(['+', '-']) => return Some(Plain::Text(s)),
        Some(rest) => rest,
        None => s,
    };
    if matches!(unpositive, ".inf" | ".Inf" | ".INF") {
        return Some(Plain::Float(f64::INFINITY));
    }
    if matches!(s, "-.inf" | "-.Inf" | "-.INF") {
        return Some(Plain::Float(f64::NEG_INFINITY));
    }
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return Some(Plain::Float(f64::NAN));
    }
    match unpositive.parse::<f64>() {
        Ok(f) if f.is_finite() => Some(Plain::Float(f)),
        _ => Some(Plain::Text(s)),
    }
}

/// Leading zeros then digits: text in YAML 1.2 (`0755`, `-007`).
fn digits_but_not_number(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    s.len() > 1 && s.starts_with('0') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

fn plain_value(plain: Plain<'_>) -> Value {
    match plain {
        Plain::Null => Value::Null,
        Plain::Bool(b) => Value::Bool(b),
        Plain::Unsigned(u) => Value::Number(u.into()),
        Plain::Negative(i) => Value::Number(i.into()),
        Plain::Float(f) => {
            Number::from_f64(f).map_or_else(|| Value::String(non_finite_text(f)), Value::Number)
        }
        Plain::Text(s) => Value::String(s.to_string()),
    }
}

/// A plain key as text, as `StrictValue` writes scalar keys.
fn key_text(plain: Plain<'_>) -> String {
    match plain {
        Plain::Null => "null".to_string(),
        Plain::Bool(b) => b.to_string(),
        Plain::Unsigned(u) => u.to_string(),
        Plain::Negative(i) => i.to_string(),
        Plain::Float(f) if f.is_finite() => f.to_string(),
        Plain::Float(f) => non_finite_text(f),
        Plain::Text(s) => s.to_string(),
    }
}

/// A value written on its key's or entry's line; `None` when not in the
/// subset (the caller has checked it is not itself an entry).
fn inline_value(text: &str) -> Option<Value> {
    let bytes = text.as_bytes();
    match bytes[0] {
        quote @ (b'"' | b'\'') => {
            let (s, after) = quoted(text, quote)?;
            ends_cleanly(after).then_some(Value::String(s))
        }
        b'[' => (text == "[]").then(|| Value::Array(Vec::new())),
        b'{' => (text == "{}").then(|| Value::Object(Map::new())),
        first => {
            if starts_otherwise(first, bytes.get(1).copied()) {
                return None;
            }
            // Up to a comment (` #`), refusing `: ` (a mapping) before it;
            // spaces are few in values, and each is looked at once.
            let mut end = text.len();
            for at in memchr::memchr_iter(b' ', bytes) {
                if at > 0 && bytes[at - 1] == b':' {
                    return None;
                }
                if bytes.get(at + 1) == Some(&b'#') {
                    end = at;
                    break;
                }
            }
            let scalar = text[..end].trim_end_matches(' ');
            if scalar.ends_with(':') {
                return None;
            }
            resolve(scalar).map(plain_value)
        }
    }
}

struct Reader<'t> {
    lines: Vec<Line<'t>>,
    /// The current line: a significant one, or the end.
    at: usize,
    depth: usize,
}

/// What a literal block scalar does with its last line breaks.
#[derive(Clone, Copy, PartialEq)]
enum Chomping {
    /// `|`: keeps one.
    Clip,
    /// `|-`: keeps none.
    Strip,
}

impl<'t> Reader<'t> {
    fn current(&self) -> Option<Line<'t>> {
        self.lines.get(self.at).copied()
    }

    /// Past blank lines and comments.
    fn skip(&mut self) {
        while self.lines.get(self.at).is_some_and(|l| !l.significant) {
            self.at += 1;
        }
    }

    fn advance(&mut self) {
        self.at += 1;
        self.skip();
    }

    /// The collection whose first line is the current one, at `indent`
    /// (`mapping` refuses a first line that is not an entry).
    fn node(&mut self, indent: usize) -> Option<Value> {
        if is_item(self.current()?.text) {
            self.sequence(indent)
        } else {
            self.mapping(indent)
        }
    }

    /// The value of an entry whose line holds none: the collection below,
    /// a sequence at the key's own indentation, or null.
    fn value_below(&mut self, indent: usize) -> Option<Value> {
        match self.current() {
            Some(next) if next.indent > indent => self.node(next.indent),
            Some(next) if next.indent == indent && is_item(next.text) => self.sequence(indent),
            _ => Some(Value::Null),
        }
    }

    /// The value written on the current line after its key or entry marker
    /// (`text`), in a collection at `indent`: a literal block scalar, or a
    /// scalar that no more indented line may follow (that would continue
    /// it over lines, or be an error).
    fn value_on_line(&mut self, text: &str, indent: usize) -> Option<Value> {
        if text.starts_with('|') {
            return self.literal(text, indent);
        }
        let value = inline_value(text)?;
        self.advance();
        if self.current().is_some_and(|next| next.indent > indent) {
            return None;
        }
        Some(value)
    }

    /// A literal block scalar (`|` or `|-`, its indentation found from its
    /// first line) whose header is `header`, in a collection at `indent`.
    fn literal(&mut self, header: &str, indent: usize) -> Option<Value> {
        let (chomping, after) = match header.strip_prefix("|-") {
            Some(after) => (Chomping::Strip, after),
            None => (Chomping::Clip, &header[1..]),
        };
        if !ends_cleanly(after) {
            return None;
        }
        let first = self.at + 1;
        let content = self.lines.get(first)?;
        // Leading blank lines and lines no deeper than the collection (an
        // empty scalar) are left to the strict reader.
        if content.text.is_empty() || content.indent <= indent {
            return None;
        }
        let column = content.indent;
        let mut end = first;
        let mut last_text = first;
        while let Some(line) = self.lines.get(end) {
            if line.text.is_empty() {
                // Spaces beyond the indentation would be content.
                if line.raw.len() > column {
                    return None;
                }
            } else if line.indent < column {
                break;
            } else {
                last_text = end;
            }
            end += 1;
        }
        let mut value = String::new();
        for (n, line) in self.lines[first..=last_text].iter().enumerate() {
            if n > 0 {
                value.push('\n');
            }
            value.push_str(line.raw.get(column..).unwrap_or(""));
        }
        if chomping == Chomping::Clip && self.lines[last_text].broken {
            value.push('\n');
        }
        self.at = end;
        self.skip();
        Some(Value::String(value))
    }

    fn deeper(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    fn mapping(&mut self, indent: usize) -> Option<Value> {
        self.deeper()?;
        let mut map = Map::new();
        while let Some(line) = self.current() {
            if line.indent < indent {
                break;
            }
            if line.indent > indent || is_item(line.text) {
                return None;
            }
            let Inline::Entry { key, rest } = classify(line.text)? else {
                return None;
            };
            if key == "<<" {
                return None;
            }
            let value = if rest.is_empty() || rest.starts_with('#') {
                self.advance();
                self.value_below(indent)?
            } else {
                self.value_on_line(rest, indent)?
            };
            match map.entry(key) {
                serde_json::map::Entry::Vacant(entry) => {
                    entry.insert(value);
                }
                serde_json::map::Entry::Occupied(_) => return None,
            }
        }
        self.depth -= 1;
        Some(Value::Object(map))
    }

    fn sequence(&mut self, indent: usize) -> Option<Value> {
        self.deeper()?;
        let mut items = Vec::new();
        while let Some(line) = self.current() {
            if line.indent < indent {
                break;
            }
            if line.indent > indent {
                return None;
            }
            if !is_item(line.text) {
                break;
            }
            let content = line.text[1..].trim_start_matches(' ');
            if content.is_empty() || content.starts_with('#') {
                self.advance();
                items.push(match self.current() {
                    Some(next) if next.indent > indent => self.node(next.indent)?,
                    _ => Value::Null,
                });
                continue;
            }
            if is_item(content) {
                return None;
            }
            if content.starts_with('|') {
                items.push(self.literal(content, indent)?);
                continue;
            }
            match classify(content)? {
                Inline::Entry { .. } => {
                    // `- key: value`: a mapping whose keys line up with this one.
                    let column = line.indent + line.text.len() - content.len();
                    self.lines[self.at].indent = column;
                    self.lines[self.at].text = content;
                    items.push(self.mapping(column)?);
                }
                Inline::Scalar => items.push(self.value_on_line(content, indent)?),
            }
        }
        self.depth -= 1;
        Some(Value::Array(items))
    }
}

#[cfg(test)]
mod tests;
