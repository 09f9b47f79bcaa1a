//! Reading a live object without its bookkeeping: most of a live paste is
//! `metadata.managedFields` and `status`, which only an object that differs
//! needs (who wrote a field, status rules). A line scan cuts their
//! block-YAML lines out of an object's text before the YAML parser runs;
//! the analysis parses them ([`Document::hydrated`]) only for the objects
//! that ask.
//!
//! The `kubectl.kubernetes.io/last-applied-configuration` annotation, a
//! third of a typical live paste, is needed for every object but costs the
//! YAML parser most: a long quoted JSON text read character by character.
//! Where its line is a double-quoted string that JSON reads the same way
//! (printable ASCII, escapes both languages share), the line is cut too and
//! the string read with the JSON parser; it is put back at once.
//!
//! Only lines of a plain shape are cut (keys and scalars as `kubectl` and
//! `argocd` print them, no anchors, tags, comments, block scalars or
//! duplicate keys), so a field left unparsed is one the parser would have
//! read without error; anything else stays in the text and is parsed as
//! before. Cut lines become empty lines, so the rest of the document keeps
//! its line numbers.

use super::{parse_yaml_document, Document};
use crate::limits::MAX_NESTING;
use crate::sorting::CollectByInsertion;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeSet;

/// Where a deferred field sits in its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeferredAt {
    /// `status`, at the object's top.
    Status,
    /// `metadata.managedFields`.
    ManagedFields,
    /// `metadata.annotations` `kubectl.kubernetes.io/last-applied-configuration`,
    /// read at once (the three-way diff needs it), never deferred.
    LastApplied,
}

impl DeferredAt {
    fn key(self) -> &'static str {
        match self {
            DeferredAt::Status => "status",
            DeferredAt::ManagedFields => "managedFields",
            DeferredAt::LastApplied => crate::k8s::LAST_APPLIED_ANNOTATION,
        }
    }
}

/// A field cut out of an object's text, parsed when the analysis asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeferredField {
    /// Where it belongs in the object.
    pub at: DeferredAt,
    /// Its lines as the side holds them, its key's line first; for
    /// `LastApplied`, the annotation's value.
    text: String,
}

impl DeferredField {
    /// The field's value. The lines were checked to be plain YAML when
    /// they were cut; `Null` only if that check let through what the
    /// parser refuses.
    fn value(&self) -> Value {
        if self.at == DeferredAt::LastApplied {
            return Value::String(self.text.clone());
        }
        match parse_yaml_document(&self.text) {
            Ok(Value::Object(mut map)) => map.remove(self.at.key()).unwrap_or(Value::Null),
            _ => Value::Null,
        }
    }
}

impl Document {
    /// The object with its deferred fields read into it: the object as the
    /// eager parse reads it.
    pub fn hydrated(&self) -> Cow<'_, Value> {
        if self.deferred.is_empty() {
            return Cow::Borrowed(&self.object);
        }
        let mut object = self.object.clone();
        hydrate(&mut object, &self.deferred);
        Cow::Owned(object)
    }
}

/// Put `fields` into `object`, where they were cut from.
pub(crate) fn hydrate(object: &mut Value, fields: &[DeferredField]) {
    for field in fields {
        let value = field.value();
        let parent = match field.at {
            DeferredAt::Status => Some(&mut *object),
            DeferredAt::ManagedFields => object.get_mut("metadata"),
            DeferredAt::LastApplied => object.get_mut("metadata").and_then(|meta| {
                let annotations = meta
                    .as_object_mut()?
                    .entry("annotations")
                    .or_insert(Value::Null);
                // `annotations:` with nothing left under it reads as null.
                if annotations.is_null() {
                    *annotations = Value::Object(Default::default());
                }
                Some(annotations)
            }),
        };
        if let Some(Value::Object(map)) = parent {
            map.insert(field.at.key().to_string(), value);
        }
    }
}

/// The kinds whose bookkeeping can wait: built-in kinds whose `status` and
/// `managedFields` no reading of the whole input looks at (the
/// Application's status, a CRD's, a Secret's masks do, so those are read at
/// once).
const DEFERRABLE_KINDS: &[(&str, &str)] = &[
    ("", "ConfigMap"),
    ("", "Service"),
    ("", "ServiceAccount"),
    ("", "PersistentVolumeClaim"),
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("autoscaling", "HorizontalPodAutoscaler"),
    ("batch", "Job"),
    ("batch", "CronJob"),
    ("networking.k8s.io", "Ingress"),
    ("networking.k8s.io", "NetworkPolicy"),
    ("policy", "PodDisruptionBudget"),
    ("rbac.authorization.k8s.io", "Role"),
    ("rbac.authorization.k8s.io", "RoleBinding"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
];

fn deferrable(object: &Value) -> bool {
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    let api = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let group = api.rsplit_once('/').map_or("", |(g, _)| g);
    DEFERRABLE_KINDS.contains(&(group, kind))
}

/// One object's YAML text read with its bookkeeping deferred: the value
/// without those fields, and the fields. None when nothing is cut or the
/// text does not read so (the caller then parses it whole, errors and all).
pub(super) fn parse_deferring(unit: &str) -> Option<(Value, Vec<DeferredField>)> {
    let (text, fields) = cut(unit)?;
    let mut value = parse_yaml_document(&text).ok()?;
    let object = value.as_object()?;
    // A field given twice is the parser's error to report, with its place.
    let present = |at: DeferredAt| match at {
        DeferredAt::Status => object.contains_key("status"),
        DeferredAt::ManagedFields => match object.get("metadata") {
            Some(Value::Object(meta)) => meta.contains_key("managedFields"),
            _ => true,
        },
        DeferredAt::LastApplied => match object.get("metadata") {
            Some(Value::Object(meta)) => match meta.get("annotations") {
                Some(Value::Object(annotations)) => annotations.contains_key(at.key()),
                Some(Value::Null) | None => false,
                Some(_) => true,
            },
            _ => true,
        },
    };
    if fields.iter().any(|f| present(f.at)) {
        return None;
    }
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind.ends_with("List") {
        return None;
    }
    let (now, later): (Vec<DeferredField>, Vec<DeferredField>) = if deferrable(&value) {
        fields
            .into_iter()
            .partition(|f| f.at == DeferredAt::LastApplied)
    } else {
        (fields, Vec::new())
    };
    hydrate(&mut value, &now);
    Some((value, later))
}

/// `unit` with its plain `status` and `metadata.managedFields` lines made
/// empty, and those fields; None when there is none to cut.
fn cut(unit: &str) -> Option<(String, Vec<DeferredField>)> {
    let lines: Vec<&str> = super::lines_with_breaks(unit).collect();
    let indent = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let is_content = |l: &str| match l.bytes().find(|&b| b != b' ') {
        // Most lines: a key or an entry.
        Some(b) if b.is_ascii_graphic() && b != b'#' => true,
        _ => {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#')
        }
    };
    let first = lines.iter().position(|l| is_content(l))?;
    let top = indent(lines[first]);
    if lines[first][top..].starts_with('-') {
        return None;
    }
    // Each span with, for the last-applied line, its value already read.
    let mut spans: Vec<(DeferredAt, usize, usize, Option<String>)> = Vec::new();
    let mut at = first;
    while at < lines.len() {
        let line = lines[at];
        if !is_content(line) || indent(line) != top {
            at += 1;
            continue;
        }
        let key = line[top..].trim_end();
        if key == "status:" {
            let end = span_end(&lines, at, top);
            spans.push((DeferredAt::Status, at, end, None));
            at = end;
        } else if key == "metadata:" {
            // The metadata's own keys sit at the first deeper line's indent.
            let mut i = at + 1;
            let mut child = None;
            while i < lines.len() && (!is_content(lines[i]) || indent(lines[i]) > top) {
                let l = lines[i];
                if is_content(l) {
                    let col = *child.get_or_insert(indent(l));
                    if indent(l) == col && l[col..].trim_end() == "managedFields:" {
                        let end = span_end(&lines, i, col);
                        spans.push((DeferredAt::ManagedFields, i, end, None));
                        i = end;
                        continue;
                    }
                    if indent(l) == col && l[col..].trim_end() == "annotations:" {
                        if let Some((line, value)) = last_applied_line(&lines, i, col) {
                            spans.push((DeferredAt::LastApplied, line, line + 1, Some(value)));
                        }
                    }
                }
                i += 1;
            }
            at = i;
        } else {
            at += 1;
        }
    }
    spans.retain(|&(at, from, to, _)| {
        if at == DeferredAt::LastApplied {
            return true;
        }
        // What follows must not be a list entry at the key's own indent
        // (a list that is the field's value continuing past the scan).
        let col = indent(lines[from]);
        let next = lines[to..].iter().find(|l| is_content(l));
        let continues = next.is_some_and(|l| indent(l) == col && l[col..].starts_with('-'));
        !continues && plain_block(&lines[from..to], col)
    });
    // A key's line inside a quoted string or a bracket spanning lines is
    // text, not a key: such a document is read whole. The lines cut were
    // checked to hold one-line scalars only, so the lines kept are the ones
    // a string or bracket could open on.
    if spans.is_empty() {
        return None;
    }
    let mut kept_from = 0;
    for &(_, from, to, _) in &spans {
        if !lines[kept_from..from].iter().all(|l| one_line_flow(l)) {
            return None;
        }
        kept_from = to;
    }
    if !lines[kept_from..].iter().all(|l| one_line_flow(l)) {
        return None;
    }
    let mut text = String::with_capacity(unit.len());
    let mut fields = Vec::with_capacity(spans.len());
    let mut next = 0;
    for (at, from, to, value) in spans {
        lines[next..from].iter().for_each(|l| text.push_str(l));
        let mut field = String::new();
        for l in &lines[from..to] {
            field.push_str(l);
            if l.ends_with('\n') {
                text.push('\n');
            }
        }
        fields.push(DeferredField {
            at,
            text: value.unwrap_or(field),
        });
        next = to;
    }
    lines[next..].iter().for_each(|l| text.push_str(l));
    Some((text, fields))
}

/// The line under the `annotations:` key on line `from` (at column `col`)
/// that holds the last-applied annotation as a string JSON reads the same
/// way YAML does, with that string.
fn last_applied_line(lines: &[&str], from: usize, col: usize) -> Option<(usize, String)> {
    let indent = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let mut child = None;
    for (i, l) in lines.iter().enumerate().skip(from + 1) {
        if l.trim().is_empty() {
            continue;
        }
        let ind = indent(l);
        if ind <= col {
            return None;
        }
        if ind != *child.get_or_insert(ind) {
            continue;
        }
        if l[ind..].starts_with(crate::k8s::LAST_APPLIED_ANNOTATION) {
            // A deeper line after it would continue its value (or make the
            // text invalid): the YAML parser must see that.
            let continued = lines[i + 1..]
                .iter()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|next| indent(next) > ind);
            if continued {
                return None;
            }
            return last_applied_value(l).map(|value| (i, value));
        }
    }
    None
}

/// The value of a last-applied annotation's line, when JSON reads it.
fn last_applied_value(line: &str) -> Option<String> {
    let value = line
        .trim_start_matches(' ')
        .strip_prefix(crate::k8s::LAST_APPLIED_ANNOTATION)?
        .strip_prefix(": ")?;
    json_read_string(value)
}

/// A one-line YAML double-quoted string that JSON reads as the same text:
/// printable ASCII, and escapes both languages read alike (`\u` is left to
/// YAML, which refuses the surrogate halves JSON joins).
fn json_read_string(line: &str) -> Option<String> {
    let value = line.trim_end_matches(['\n', '\r', ' ']);
    let bytes = value.as_bytes();
    if bytes.len() < 2 || bytes[0] != b'"' || bytes[bytes.len() - 1] != b'"' {
        return None;
    }
    if !bytes.iter().all(|b| (0x20..0x7f).contains(b)) {
        return None;
    }
    let mut at = 1;
    while at < bytes.len() - 1 {
        if bytes[at] == b'\\' {
            if !matches!(
                bytes[at + 1],
                b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't'
            ) {
                return None;
            }
            at += 2;
        } else {
            at += 1;
        }
    }
    serde_json::from_str(value).ok()
}

/// The end (exclusive) of the field whose key is on line `from` at column
/// `col`: its deeper lines and list entries at its own column; blank lines
/// after its last one are left out.
fn span_end(lines: &[&str], from: usize, col: usize) -> usize {
    let mut end = from + 1;
    let mut i = from + 1;
    while let Some(l) = lines.get(i) {
        let t = l.trim();
        if t.is_empty() {
            i += 1;
            continue;
        }
        let ind = l.len() - l.trim_start_matches(' ').len();
        let entry = ind == col && (l[col..].starts_with("- ") || l[col..].trim_end() == "-");
        if ind <= col && !entry {
            break;
        }
        i += 1;
        end = i;
    }
    end
}

/// Whether every quoted string and bracket that opens on `line` closes on
/// it (a string that goes on keeps a later `status:` line its own text).
/// Counted loosely: anything unsure answers false.
fn one_line_flow(line: &str) -> bool {
    let bytes = line.as_bytes();
    let (double, open) = if memchr::memchr3(b'[', b'{', b'\\', bytes).is_none() {
        // Most lines: nothing opens but quotes, and no escape to skip.
        if memchr::memchr2(b'"', b'\'', bytes).is_none() {
            return true;
        }
        (memchr::memchr_iter(b'"', bytes).count(), 0)
    } else {
        quotes_and_brackets(bytes)
    };
    double % 2 == 0 && open <= 0 && !single_quote_open(line)
}

/// The double quotes of a line (an escaped one left out) and how many more
/// brackets it opens than it closes, counted byte by byte.
fn quotes_and_brackets(bytes: &[u8]) -> (usize, i64) {
    let (mut double, mut open, mut at) = (0, 0, 0);
    while let Some(&b) = bytes.get(at) {
        match b {
            b'\\' => at += 1,
            b'"' => double += 1,
            b'[' | b'{' => open += 1,
            b']' | b'}' => open -= 1,
            _ => {}
        }
        at += 1;
    }
    (double, open)
}

/// Whether a single-quoted string opens on `line` and does not close: it
/// starts a token, and every quote after it pairs.
fn single_quote_open(line: &str) -> bool {
    memchr::memchr(b'\'', line.as_bytes()).is_some()
        && [": '", "- '"]
            .iter()
            .filter_map(|p| line.find(p).map(|i| i + p.len() - 1))
            .chain(
                line.trim_start()
                    .starts_with('\'')
                    .then(|| line.len() - line.trim_start().len()),
            )
            .min()
            .is_some_and(|from| line[from..].matches('\'').count() % 2 == 1)
}

/// One level of the block the check walks: a mapping's keys or a list.
enum Level<'l> {
    Map(usize, Keys<'l>),
    List(usize),
}

/// A mapping's keys so far, to find one given twice. Bookkeeping holds
/// thousands of small mappings: a short list is searched in place, with no
/// hashing and no tree, and only a long one becomes a tree.
enum Keys<'l> {
    Few(Vec<&'l str>),
    Many(BTreeSet<&'l str>),
}

impl<'l> Keys<'l> {
    /// Up to this many keys are kept in a list.
    const FEW: usize = 16;

    fn new() -> Self {
        Keys::Few(Vec::new())
    }

    /// Add `key`; false when it was there already.
    fn insert(&mut self, key: &'l str) -> bool {
        match self {
            Keys::Few(keys) if keys.contains(&key) => false,
            Keys::Few(keys) if keys.len() < Self::FEW => {
                keys.push(key);
                true
            }
            Keys::Few(keys) => {
                let mut tree: BTreeSet<&str> = keys.drain(..).collect_by_insertion();
                tree.insert(key);
                *self = Keys::Many(tree);
                true
            }
            Keys::Many(tree) => tree.insert(key),
        }
    }
}

impl Level<'_> {
    fn col(&self) -> usize {
        match self {
            Level::Map(c, _) | Level::List(c) => *c,
        }
    }
}

/// Whether `lines` (a key at `col` and its block) is YAML of the plain
/// shape tools print, which the parser reads without error: mappings and
/// lists indented consistently, keys given once, plain or simply quoted
/// scalars; no comments, anchors, aliases, tags, block scalars, tabs,
/// carriage returns or multi-line scalars.
fn plain_block(lines: &[&str], col: usize) -> bool {
    let root = lines[0][col..].trim_end().trim_end_matches(':');
    let mut root_keys = Keys::new();
    root_keys.insert(root);
    let mut levels: Vec<Level> = vec![Level::Map(col, root_keys)];
    // The column of a key whose value is the block below it.
    let mut opened = Some(col);
    for line in &lines[1..] {
        let body = line.strip_suffix('\n').unwrap_or(line);
        if body.trim().is_empty() {
            if !body.bytes().all(|b| b == b' ') {
                return false;
            }
            continue;
        }
        let mut at = body.len() - body.trim_start_matches(' ').len();
        let mut rest = &body[at..];
        let mut after_dash = false;
        // Leading `- `: list entries.
        while let Some(after) = rest.strip_prefix("- ") {
            if after_dash {
                // `- - x`: a list in the entry.
                levels.push(Level::List(at));
            } else if opened.is_some_and(|p| at >= p) {
                // The list that is the opened key's value.
                levels.push(Level::List(at));
            } else {
                // The next entry of an open list.
                while levels.last().is_some_and(|l| l.col() > at) {
                    levels.pop();
                }
                if !matches!(levels.last(), Some(Level::List(c)) if *c == at) {
                    return false;
                }
            }
            opened = None;
            after_dash = true;
            let spaces = after.len() - after.trim_start_matches(' ').len();
            at += 2 + spaces;
            rest = &after[spaces..];
        }
        if levels.len() + 8 > MAX_NESTING / 2 {
            return false;
        }
        let Some((key, value)) = split_key(rest) else {
            // Only a list entry may be a bare scalar (`- value`).
            if !after_dash || !plain_scalar(rest) {
                return false;
            }
            continue;
        };
        if !plain_key(key) {
            return false;
        }
        if after_dash || opened.is_some_and(|p| at > p) {
            levels.push(Level::Map(at, Keys::new()));
        } else {
            // A key at a list's own column ends that list.
            while levels
                .last()
                .is_some_and(|l| l.col() > at || matches!(l, Level::List(c) if *c == at))
            {
                levels.pop();
            }
        }
        match levels.last_mut() {
            Some(Level::Map(c, keys)) if *c == at => {
                if !keys.insert(key.trim_matches('"')) {
                    return false;
                }
            }
            _ => return false,
        }
        if value.is_empty() {
            opened = Some(at);
        } else if plain_scalar(value) {
            opened = None;
        } else {
            return false;
        }
    }
    true
}

/// A line's `key: value` (or `key:`) split at the key's colon.
fn split_key(rest: &str) -> Option<(&str, &str)> {
    if let Some(quoted) = rest.strip_prefix('"') {
        let close = quoted.find('"')?;
        let after = &quoted[close + 1..];
        let value = after.strip_prefix(':')?;
        if !(value.is_empty() || value.starts_with(' ')) {
            return None;
        }
        return Some((&rest[..close + 2], value.trim_start_matches(' ')));
    }
    let bytes = rest.as_bytes();
    let colon = (0..bytes.len())
        .find(|&i| bytes[i] == b':' && bytes.get(i + 1).is_none_or(|&b| b == b' '))?;
    Some((&rest[..colon], rest[colon + 1..].trim_start_matches(' ')))
}

/// A key as tools print it: plain text that starts with no indicator, or
/// double quotes around text without quotes or escapes.
fn plain_key(key: &str) -> bool {
    if let Some(inner) = key.strip_prefix('"') {
        let Some(inner) = inner.strip_suffix('"') else {
            return false;
        };
        return !inner.contains(['"', '\\']);
    }
    // Only keys that read as strings: `True` and `true`, `0x10` and `16`
    // would be one key once made strings, which the parser refuses.
    let starts_as_text =
        key == "." || key.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '/');
    let reserved = ["true", "false", "null", "yes", "no", "on", "off", "y", "n"];
    starts_as_text && !reserved.iter().any(|r| key.eq_ignore_ascii_case(r)) && plain_text(key)
}

/// Plain text that reads as one plain scalar wherever it stands: no
/// comment (` #`), no `: ` (a mapping), no tab or carriage return.
fn plain_text(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    let starts_plain = first.is_alphanumeric()
        || matches!(first, '.' | '_' | '/' | '(' | '+' | '$' | '=' | '~')
        || (first == '-' && text.len() > 1 && !text.starts_with("- ") && !text.starts_with("---"));
    // One pass over the bytes: bookkeeping has hundreds of thousands of these.
    let mut previous = 0;
    let inside_plain = text.bytes().all(|b| {
        let plain = match b {
            b'\t' | b'\r' => false,
            b'#' => previous != b' ',
            b' ' => previous != b':',
            _ => true,
        };
        previous = b;
        plain
    });
    starts_plain && inside_plain && !text.ends_with(':') && !text.ends_with(' ')
}

/// A value as tools print it on one line: plain text, a double-quoted
/// string with simple escapes, a single-quoted one, `{}` or `[]`.
fn plain_scalar(value: &str) -> bool {
    if value == "{}" || value == "[]" {
        return true;
    }
    if let Some(inner) = value.strip_prefix('"') {
        let Some(inner) = inner.strip_suffix('"') else {
            return false;
        };
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            let plain = match c {
                '"' | '\t' | '\r' => false,
                '\\' => matches!(chars.next(), Some('"' | '\\' | '/' | 'n' | 't' | 'r' | '0')),
                _ => true,
            };
            if !plain {
                return false;
            }
        }
        return true;
    }
    if let Some(inner) = value.strip_prefix('\'') {
        let Some(inner) = inner.strip_suffix('\'') else {
            return false;
        };
        return !inner.contains(['\t', '\r']) && inner.replace("''", "").find('\'').is_none();
    }
    plain_text(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_kubectl_bookkeeping_and_keeps_line_numbers() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  managedFields:\n  - manager: kubectl\n    fieldsV1:\n      f:data:\n        f:a: {}\n      k:{\"type\":\"Ready\"}:\n        .: {}\n  uid: x\ndata:\n  a: b\nstatus:\n  phase: Active\n";
        let (cut_text, fields) = cut(text).unwrap();
        assert_eq!(cut_text.lines().count(), text.lines().count());
        assert_eq!(fields.len(), 2);
        let (value, fields) = parse_deferring(text).unwrap();
        assert!(value.pointer("/metadata/managedFields").is_none());
        assert!(value.get("status").is_none());
        assert_eq!(value.pointer("/metadata/uid"), Some(&Value::from("x")));
        let mut full = value.clone();
        hydrate(&mut full, &fields);
        assert_eq!(full, parse_yaml_document(text).unwrap());
    }

    #[test]
    fn the_last_applied_line_is_read_as_json_and_put_back_at_once() {
        let line = "    kubectl.kubernetes.io/last-applied-configuration: \"{\\\"data\\\":{\\\"a\\\":\\\"b\\\\tc\\\"}}\\n\"\n";
        let text = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n{line}data:\n  a: b\n");
        let (cut_text, fields) = cut(&text).unwrap();
        assert!(!cut_text.contains("last-applied"));
        assert_eq!(cut_text.lines().count(), text.lines().count());
        assert_eq!(fields[0].at, DeferredAt::LastApplied);
        // The annotation was the map's only key: it reads back as a map.
        let (value, later) = parse_deferring(&text).unwrap();
        assert!(later.is_empty());
        assert_eq!(value, parse_yaml_document(&text).unwrap());
        assert_eq!(
            value
                .pointer("/metadata/annotations")
                .and_then(Value::as_object)
                .map(|m| m.len()),
            Some(1)
        );
    }

    #[test]
    fn a_last_applied_line_with_a_deeper_line_after_it_is_not_cut() {
        // The deeper line makes the text invalid; cut, it would read.
        let text = "kind: Deployment\nmetadata:\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: \"{}\"\n      deeper: 1\n";
        assert!(cut(text).is_none());
        assert!(parse_yaml_document(text).is_err());
    }

    #[test]
    fn a_last_applied_line_json_would_read_otherwise_stays_for_yaml() {
        for value in [
            "\"\\u00e9\"",
            "\"\\ud83d\"",
            "\"é\"",
            "\"\\x41\"",
            "\"\\/\"",
            "\"a\tb\"",
            "\"{}\" # note",
            "'{}'",
            "\"{\\\"",
        ] {
            assert!(json_read_string(value).is_none(), "{value}");
        }
        assert_eq!(
            json_read_string("\"a\\\"b\\\\\"  \r\n").as_deref(),
            Some("a\"b\\")
        );
    }

    #[test]
    fn a_status_line_inside_a_string_that_goes_on_is_not_cut() {
        for text in [
            "kind: ConfigMap\na: \"x\nstatus:\n  y: 1\nb: z\"\n",
            "kind: ConfigMap\na: 'x\nstatus:\n  y: 1\nb: z'\n",
            "kind: ConfigMap\na: [x,\nstatus:\n  y: 1\nb: z]\n",
        ] {
            assert!(cut(text).is_none(), "{text}");
        }
    }

    #[test]
    fn leaves_in_place_what_is_not_plain() {
        for odd in [
            "status:\n  a: &x 1\n",
            "status:\n  a: 1\n  a: 2\n",
            "status:\n  a: |\n    text\n",
            "status:\n  a: 1 # note\n",
            "status:\n  a: b\n    c\n",
            "status:\n    a: 1\n  b: 2\n",
            "status:\n  a: \"\\x41\"\n",
        ] {
            let text = format!("kind: ConfigMap\n{odd}");
            assert!(cut(&text).is_none(), "{odd}");
        }
    }

    /// Counted byte by byte, as the quick paths must agree with.
    fn one_line_flow_byte_by_byte(line: &str) -> bool {
        let (double, open) = quotes_and_brackets(line.as_bytes());
        double % 2 == 0 && open <= 0 && !single_quote_open(line)
    }

    proptest::proptest! {
        #[test]
        fn one_line_flow_agrees_with_counting_byte_by_byte(line in "[ a:\\\\\\-\"'\\[\\]{}]{0,12}") {
            proptest::prop_assert_eq!(one_line_flow(&line), one_line_flow_byte_by_byte(&line), "{:?}", line);
        }
    }

    #[test]
    fn a_key_given_twice_is_found_among_many() {
        let keys: String = (0..40).map(|i| format!("  k{i}: {i}\n")).collect();
        let text = format!("kind: ConfigMap\nstatus:\n{keys}");
        assert!(cut(&text).is_some());
        for again in [0, 15, 16, 17, 39] {
            let text = format!("kind: ConfigMap\nstatus:\n{keys}  k{again}: x\n");
            assert!(cut(&text).is_none(), "k{again}");
            assert!(parse_yaml_document(&text).is_err(), "k{again}");
        }
    }
}
