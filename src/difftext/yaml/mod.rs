//! Just enough of the YAML dialect that `sigs.k8s.io/yaml` prints (sorted keys, two-space indent, list
//! items `- ` at their parent key's indent): reading single lines and reading blocks of lines back into
//! values.
//!
//! Reading is tolerant: anything that is not understood becomes a string, never an error, so masked
//! Secret values (`++++++++`, `***`) and lines damaged by copy and paste still give a value.
//!
//! This module reads the structure (single lines, then blocks of lines into maps and lists); the
//! values on those lines are read in `scalars`.

mod scalars;

use std::borrow::Cow;

use serde_json::{Map, Value};

pub(crate) use scalars::parse_inline;
use scalars::{block_scalar, parse_folded_flow, unescape_double};

/// Deepest nesting followed, as the manifest readers allow; anything deeper
/// is kept as text (bounds recursion and work).
pub(crate) const MAX_DEPTH: usize = crate::limits::MAX_NESTING;

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

    /// The next non-blank line if it stands at column `col`; none at a line less indented, or
    /// at the end. Deeper stray lines (a damaged paste) are skipped.
    fn next_at(&mut self, col: usize) -> Option<&'a str> {
        loop {
            self.skip_blank();
            let (c, body) = self.peek()?;
            if c < col {
                return None;
            }
            if c == col {
                return Some(body);
            }
            self.i += 1;
        }
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
        while let Some(body) = self.next_at(col) {
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
        self.scalar_after(col, rest)
    }

    /// The scalar that `rest` starts on the line just read (of a key or dash at column `col`):
    /// a block scalar over the more indented (or blank) lines below, else an inline value with
    /// its continuation lines.
    fn scalar_after(&mut self, col: usize, rest: &'a str) -> Value {
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
        while let Some(body) = self.next_at(col) {
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
            items.push(self.scalar_after(col, rest));
        }
        Value::Array(items)
    }
}
