//! Masking of pasted text: the entry point, lines, and whole YAML/JSON documents (scan, replace, verify).

use super::*;
use crate::input::{flow_nesting_beyond, yaml_to_json};
use crate::limits::MAX_NESTING;

/// Mask Secret values inside pasted text without reformatting anything else: multi-document YAML or JSON (also
/// `kind: List` items and `argocd app diff`/`kubectl diff` text where Secret blocks show `data:` lines), returning the
/// new text and the number of values masked. For YAML, replace the value text in place on its line(s) (keep keys,
/// indentation, comments, other documents byte-identical); block scalars are replaced as a whole. For data (base64)
/// write a base64 encoding of the mask string, for stringData the mask string itself, so an analysis of the masked
/// text still sees equal values as equal (stringData merged into data as base64 compares equal to the same plain value).
/// Already-masked values (ours, Argo CD's `++++++++` runs, kubectl's `***`) are left alone.
///
/// Masks are numbered with `masks` (one numbering per report or link); masks already in `text` keep their numbers.
///
/// How it works:
/// - YAML/JSON: each document is scanned line by line (JSON documents with a span-keeping JSON parser); every
///   mapping whose `kind` is Secret (any letter case), at any depth and in any key order, has the values of all its
///   fields but `apiVersion`, `kind`, `type`, `immutable` and `metadata` replaced. The last-applied annotation is
///   masked inside its JSON (written back as a double-quoted string) when it belongs to a Secret or its JSON is a
///   Secret. Then the masked document is parsed again; if a Secret value is still readable (a YAML construct the
///   scanner does not follow, such as aliases or flow-style Secrets), that one document is replaced by a
///   pretty-printed JSON rendering of it, fully masked; and a document whose `kind` says Secret but that cannot be
///   parsed at all is replaced whole by a comment saying so.
/// - Diffs (unified `@@` hunks, `diff`/`kubectl diff` headers, Argo CD's `===== group/Kind ns/name ======` with
///   normal `NcM`/`<`/`>` hunks): the old and new sides are scanned separately. The kind comes from the visible
///   `kind:` line, else the file header (`/Secret`, `v1.Secret.ns.name`), else a `kind:` line elsewhere in the same
///   file. When a hunk shows `data:`/`stringData:` without a visible kind and the file's kind is unknown, the values
///   are masked (safer). Lines cut off from their parent (`  password: ...` with no `data:` above it in the hunk) are
///   masked when the file is a Secret, unless they visibly belong to metadata or the hunk's `@@ ... @@ context` names
///   another top-level key. A context line that masks differently on the two sides (a multi-line value that
///   changed) is split into a `-` and a `+` line, which keeps the hunk's line counts valid. Continuation lines of a
///   masked multi-line value keep their diff marker and lose their content.
pub fn mask_secrets_in_text(text: &str, masks: &Masks) -> (String, usize) {
    masks.reserve_masks_in(text);
    let raws = split_lines(text);
    if looks_like_diff(text, &raws) {
        let (masked, n) = mask_diff(text, &raws, masks);
        mask_json_lines(&masked, n, masks)
    } else {
        mask_documents(text, &raws, masks)
    }
}

/// In a diff, a Secret written as JSON on one line (`-{"kind":"Secret",...}`) is not YAML the scanner follows:
/// mask such a line as a document of its own (whole when it does not parse), keeping its diff marker.
fn mask_json_lines(text: &str, mut count: usize, masks: &Masks) -> (String, usize) {
    if !text.to_ascii_lowercase().contains("secret") {
        return (text.to_string(), count);
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let marker = body
            .char_indices()
            .take_while(|&(i, c)| i < 2 && matches!(c, '+' | '-' | ' ' | '<' | '>'))
            .last()
            .map_or(0, |(i, c)| i + c.len_utf8());
        let content = &body[marker..];
        if content.trim_start().starts_with(['{', '[']) && says_secret_kind(content) {
            let (masked, n) = mask_document(content, masks);
            count += n;
            out.push_str(&body[..marker]);
            out.push_str(masked.trim_end_matches('\n'));
            out.push_str(&line[body.len()..]);
        } else {
            out.push_str(line);
        }
    }
    (out, count)
}

/// One line of the input: content `[start, end)` (without `\r\n`), the next line starts at `next`.
#[derive(Clone, Copy, Debug)]
pub(super) struct RawLine {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) next: usize,
}

pub(super) fn split_lines(text: &str) -> Vec<RawLine> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while start < b.len() {
        let nl = b[start..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| start + p);
        let mut end = nl;
        if end > start && b[end - 1] == b'\r' {
            end -= 1;
        }
        let next = if nl < b.len() { nl + 1 } else { b.len() };
        out.push(RawLine { start, end, next });
        start = next;
    }
    out
}

pub(super) fn indent(s: &str) -> usize {
    s.bytes().take_while(|&b| b == b' ').count()
}

pub(super) fn is_blank(s: &str) -> bool {
    s.trim().is_empty()
}

pub(super) fn is_blank_or_comment(s: &str) -> bool {
    let t = s.trim_start();
    t.is_empty() || t.starts_with('#')
}

/// A YAML document marker at column 0: `---` (maybe followed by content) or `...`.
pub(super) fn is_doc_marker(s: &str) -> bool {
    let marker = |m: &str| {
        s.strip_prefix(m)
            .is_some_and(|r| r.is_empty() || r.starts_with(' ') || r.starts_with('\t'))
    };
    marker("---") || marker("...")
}

/// `---`/`...` alone (or with a comment): a marker line that holds no content of its own.
pub(super) fn is_pure_doc_marker(s: &str) -> bool {
    is_doc_marker(s) && is_blank_or_comment(&s[3..])
}

// --- documents ------------------------------------------------------------------------------------------------

pub(super) fn mask_documents(text: &str, raws: &[RawLine], masks: &Masks) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut total = 0;
    let mut doc_start = 0;
    let flush = |from: usize, to: usize, out: &mut String, total: &mut usize| {
        if from < to {
            let (masked, n) = mask_document(&text[from..to], masks);
            out.push_str(&masked);
            *total += n;
        }
    };
    for r in raws {
        let s = &text[r.start..r.end];
        if is_doc_marker(s) {
            flush(doc_start, r.start, &mut out, &mut total);
            if is_pure_doc_marker(s) {
                out.push_str(&text[r.start..r.next]);
                doc_start = r.next;
            } else {
                doc_start = r.start;
            }
        }
    }
    flush(doc_start, text.len(), &mut out, &mut total);
    (out, total)
}

/// One YAML or JSON document (or a run of JSON values): scan, replace, verify.
pub(super) fn mask_document(doc: &str, masks: &Masks) -> (String, usize) {
    let could_hold_secret = doc.to_ascii_lowercase().contains("secret")
        || doc.contains(LAST_APPLIED_ANNOTATION)
        || doc.contains('\\');
    if !could_hold_secret {
        return (doc.to_string(), 0);
    }
    let trimmed = doc.trim_start();
    let json_edits = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        json_edits(doc, masks)
    } else {
        None
    };
    let edits = match json_edits {
        Some(e) => e,
        None => {
            let raws = split_lines(doc);
            let lines: Vec<SLine> = raws
                .iter()
                .enumerate()
                .map(|(i, r)| SLine {
                    start: r.start,
                    end: r.end,
                    hunk: 0,
                    raw: i,
                })
                .collect();
            let mut scan = Scan::new(doc, &lines, masks);
            scan.run();
            scan.decide(None)
                .into_iter()
                .map(|m| Edit {
                    start: m.region.vstart,
                    end: m.region.vend,
                    text: m.text,
                    count: m.count,
                })
                .collect()
        }
    };
    let (masked, count) = apply_edits(doc, edits);
    let (masked, count) = verify_document(doc, masked, count, masks);
    // A Secret the parsers cannot read: whatever the scanner did, nothing proves its values are gone.
    if parse_values(&masked).is_none() && says_secret_kind(doc) {
        return (UNREADABLE_SECRET.to_string(), count.max(1));
    }
    (masked, count)
}

#[derive(Debug, Clone)]
pub(super) struct Edit {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) text: String,
    pub(super) count: usize,
}

/// Apply non-overlapping edits (an edit overlapping an earlier one is dropped).
pub(super) fn apply_edits(text: &str, mut edits: Vec<Edit>) -> (String, usize) {
    crate::sorting::sort_by_key(&mut edits, |e| (e.start, std::cmp::Reverse(e.end)));
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    let mut count = 0;
    for e in edits {
        if e.start < pos || e.end < e.start || e.end > text.len() {
            continue;
        }
        let (Some(before), Some(_)) = (text.get(pos..e.start), text.get(e.start..e.end)) else {
            continue;
        };
        out.push_str(before);
        out.push_str(&e.text);
        pos = e.end;
        count += e.count;
    }
    out.push_str(text.get(pos..).unwrap_or(""));
    (out, count)
}

/// Parse the masked document again; if a Secret value is still readable, or the edits broke the document,
/// replace the document by a fully masked JSON rendering of the original.
pub(super) fn verify_document(
    orig: &str,
    masked: String,
    count: usize,
    masks: &Masks,
) -> (String, usize) {
    let render = |mut vals: Vec<Value>| -> (String, usize) {
        let n: usize = vals
            .iter_mut()
            .map(|v| mask_all(v, Style::Manifest, masks, 0))
            .sum();
        let mut out = vals
            .iter()
            .map(|v| serde_json::to_string_pretty(v).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        if orig.ends_with('\n') {
            out.push('\n');
        }
        (out, n)
    };
    match parse_values(&masked) {
        Some(vals) => {
            if vals.iter().any(|v| has_unmasked(v, 0)) {
                render(parse_values(orig).unwrap_or(vals))
            } else {
                (masked, count)
            }
        }
        None => match parse_values(orig) {
            Some(vals) if masked != orig => render(vals),
            _ => (masked, count),
        },
    }
}

/// The values of one document: a run of JSON values, or one YAML document.
pub(super) fn parse_values(doc: &str) -> Option<Vec<Value>> {
    let t = doc.trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        let vals: Result<Vec<Value>, _> = serde_json::Deserializer::from_str(doc)
            .into_iter::<Value>()
            .collect();
        if let Ok(vals) = vals {
            if !vals.is_empty() {
                return Some(vals);
            }
        }
    }
    let mut y = yaml_parse(doc)?;
    let _ = y.apply_merge();
    Some(vec![yaml_to_json(y)?])
}

/// serde_yaml's parse, refused for text nested deeper than serde_yaml accepts anyway ([`MAX_NESTING`]): libyaml's
/// scanner gets quadratic on deeply nested flow collections, so such text would take minutes just to fail.
pub(super) fn yaml_parse(text: &str) -> Option<serde_yaml::Value> {
    if flow_nesting_beyond(text, MAX_NESTING).is_some() {
        return None;
    }
    serde_yaml::from_str(text).ok()
}

pub(super) fn yaml_key_string(k: &serde_yaml::Value) -> String {
    match yaml_scalar_string(k) {
        Some(s) => s,
        None => "null".to_string(),
    }
}

/// The text of a YAML scalar as Kubernetes would see it (`None` for null); collections as compact JSON.
pub(super) fn yaml_scalar_string(v: &serde_yaml::Value) -> Option<String> {
    use serde_yaml::Value as Y;
    match v {
        Y::Null => None,
        Y::Bool(b) => Some(b.to_string()),
        Y::Number(n) => Some(n.to_string()),
        Y::String(s) => Some(s.clone()),
        Y::Tagged(t) => yaml_scalar_string(&t.value),
        other => Some(
            yaml_to_json(other.clone())
                .and_then(|j| serde_json::to_string(&j).ok())
                .unwrap_or_default(),
        ),
    }
}

/// Whether a Secret value (or a last-applied annotation holding one) is still readable anywhere in `v`.
pub(super) fn has_unmasked(v: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match v {
        Value::Object(m) => {
            let secret = is_secret_map(m);
            if secret && secret_fields_unmasked(m) {
                return true;
            }
            if let Some(Value::String(s)) = m
                .get("metadata")
                .and_then(|x| x.get("annotations"))
                .and_then(|x| x.get(LAST_APPLIED_ANNOTATION))
            {
                let unmasked = match serde_json::from_str::<Value>(s) {
                    Ok(Value::Object(o)) => {
                        (secret || is_secret_map(&o)) && secret_fields_unmasked(&o)
                    }
                    _ => secret && !is_already_masked(s),
                };
                if unmasked {
                    return true;
                }
            }
            !secret && m.values().any(|c| has_unmasked(c, depth + 1))
        }
        Value::Array(items) => items.iter().any(|c| has_unmasked(c, depth + 1)),
        _ => false,
    }
}

pub(super) fn secret_fields_unmasked(m: &Map<String, Value>) -> bool {
    fn readable(v: &Value, depth: usize) -> bool {
        match v {
            Value::Null => false,
            Value::String(s) => !is_already_masked(s),
            Value::Object(o) => depth < MAX_DEPTH && o.values().any(|x| readable(x, depth + 1)),
            Value::Array(a) => depth < MAX_DEPTH && a.iter().any(|x| readable(x, depth + 1)),
            _ => true,
        }
    }
    m.iter()
        .any(|(k, v)| !NON_SECRET_FIELDS.contains(&k.as_str()) && readable(v, 0))
}

/// Whether a `kind` key of this text says Secret (any letter case, YAML or JSON spelling, quoted or not): the
/// text holds a Secret even when it cannot be parsed.
pub(super) fn says_secret_kind(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let b = lower.as_bytes();
    let mut from = 0;
    while let Some(at) = lower[from..].find("kind") {
        let mut i = from + at + 4;
        from = i;
        let skip = |i: &mut usize, set: &[u8]| {
            while *i < b.len() && set.contains(&b[*i]) {
                *i += 1;
            }
        };
        skip(&mut i, b"\"'");
        skip(&mut i, b" \t");
        if b.get(i) != Some(&b':') {
            continue;
        }
        i += 1;
        skip(&mut i, b" \t\"'");
        if lower[i..].starts_with("secret") {
            let end = i + "secret".len();
            if b.get(end).is_none_or(|c| !c.is_ascii_alphanumeric()) {
                return true;
            }
        }
    }
    false
}

/// What an unreadable Secret document becomes: nothing of it is kept, since which of its lines hold values
/// cannot be told.
pub(super) const UNREADABLE_SECRET: &str =
    "# drift-doctor left out a Secret document here: it could not be read, so it was masked whole\n";
