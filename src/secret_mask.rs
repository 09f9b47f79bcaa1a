//! Masking of Kubernetes Secret values.
//!
//! Manifests pasted into drift-doctor often hold Secrets, and what users share (links, share files, reports)
//! must not carry their values. A value is replaced by a *mask*: a short, stable stand-in that shows the length
//! and the first 8 hex digits of the SHA-256 of the plain bytes, e.g. `<secret: 12 bytes, sha256 1a2b3c4d>`.
//! Equal values give equal masks, so "git and live differ" stays visible after masking.
//!
//! The mask is the plain SHA-256 on purpose: a user who knows a candidate value can check it with
//! `printf %s "$value" | sha256sum`. The flip side is that a short or guessable secret (a dictionary word) can be
//! confirmed by anyone who guesses it; 32 bits of hash plus the length do not protect such values.
//!
//! Two layers:
//! - [`mask_secret_object`] / [`is_secret_pointer`] work on parsed objects (serde_json values) for reports;
//!   there `data` and `stringData` values both become the readable mask string.
//! - [`mask_secrets_in_text`] works on pasted text (YAML, JSON, diff output) without reformatting anything
//!   else; there a `data` value becomes the *base64 encoding* of the mask so the masked text is still a valid
//!   manifest and still compares the way the original did (`stringData: {k: v}` against `data: {k: base64(v)}`).
//!
//! Everything here is total: no input makes it panic, and work is linear in the input (plus YAML/JSON parsing of
//! single values and documents).

use std::fmt::Write as _;

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The annotation in which `kubectl apply` stores the whole applied object (so, for a Secret, its data).
pub const LAST_APPLIED_ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Standard alphabet, padding optional, trailing bits tolerated: how Kubernetes-ish tools accept `data` values.
const LENIENT_B64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Deepest nesting that the recursive walks follow (serde_json and serde_yaml stop at 128 anyway).
const MAX_DEPTH: usize = 256;

// ---------------------------------------------------------------------------------------------------------------
// Masks
// ---------------------------------------------------------------------------------------------------------------

/// A short, stable, non-reversible stand-in for a secret value that keeps equality visible: equal inputs give equal
/// masks, different inputs (almost surely) different masks. Shows the length and 8 hex chars of SHA-256, e.g.
/// "<secret: 12 bytes, sha256 1a2b3c4d>".
pub fn mask_value(plain: &[u8]) -> String {
    let digest = Sha256::digest(plain);
    let mut hex = String::with_capacity(8);
    for b in digest.iter().take(4) {
        let _ = write!(hex, "{b:02x}");
    }
    let unit = if plain.len() == 1 { "byte" } else { "bytes" };
    format!("<secret: {} {unit}, sha256 {hex}>", plain.len())
}

/// Whether `s` is exactly a mask made by [`mask_value`].
pub fn is_mask(s: &str) -> bool {
    let Some(rest) = s
        .strip_prefix("<secret: ")
        .and_then(|r| r.strip_suffix('>'))
    else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let rest = &rest[digits..];
    let hex = rest
        .strip_prefix(" bytes, sha256 ")
        .or_else(|| rest.strip_prefix(" byte, sha256 "));
    matches!(hex, Some(h) if h.len() == 8 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
}

/// Whether a Secret value is already hidden, so masking must leave it alone: a drift-doctor mask (plain or
/// base64-encoded), Argo CD's runs of `+` (8, 12, 16, ... of them: different runs mean different values), or
/// kubectl diff's `***`, `*** (before)`, `*** (after)`.
pub fn is_already_masked(value: &str) -> bool {
    let t = value.trim();
    (t.len() >= 8 && t.bytes().all(|b| b == b'+'))
        || t == "***"
        || t == "*** (before)"
        || t == "*** (after)"
        || is_mask(t)
        || (t.starts_with("PHNlY3JldDog") // base64 of "<secret: "
            && decode_b64(t).and_then(|d| String::from_utf8(d).ok()).is_some_and(|d| is_mask(&d)))
}

/// Lenient base64 decoding of a `data` value: ASCII whitespace ignored, padding optional.
fn decode_b64(s: &str) -> Option<Vec<u8>> {
    let cleaned: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    LENIENT_B64.decode(cleaned).ok()
}

/// Which field a value sits in, which decides how it is hashed and written back.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Field {
    /// `data`: base64, hashed after decoding (as given when it does not decode).
    Data,
    /// `stringData`: plain text.
    StringData,
    /// Seen in a diff whose structure is cut off: `data` if it looks like padded base64, else `stringData`.
    Guess,
}

/// How a masked value is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    /// The readable mask everywhere (reports).
    Display,
    /// base64 of the mask in `data`, the mask in `stringData` (text that is analysed again).
    Manifest,
}

/// The masked form of one value, or `None` when it is already masked. The flag tells whether the result is base64
/// (so it can be written as a plain YAML scalar).
fn masked_for(field: Field, value: &str, style: Style) -> Option<(String, bool)> {
    if is_already_masked(value) {
        return None;
    }
    let field = match field {
        Field::Guess => {
            let t: Vec<u8> = value.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
            if !t.is_empty() && t.len() % 4 == 0 && decode_b64(value).is_some() {
                Field::Data
            } else {
                Field::StringData
            }
        }
        f => f,
    };
    match field {
        Field::Data => {
            let plain = decode_b64(value);
            let mask = mask_value(plain.as_deref().unwrap_or(value.as_bytes()));
            match style {
                Style::Display => Some((mask, false)),
                Style::Manifest => Some((STANDARD.encode(mask), true)),
            }
        }
        _ => Some((mask_value(value.as_bytes()), false)),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------------------------------

/// `kind: Secret` of the core group (apiVersion `v1`, or no apiVersion at all, as in some diff fragments).
fn is_secret_map(m: &Map<String, Value>) -> bool {
    m.get("kind").and_then(Value::as_str) == Some("Secret")
        && match m.get("apiVersion") {
            None | Some(Value::Null) => true,
            Some(Value::String(v)) => v == "v1" || v.is_empty(),
            Some(_) => false,
        }
}

/// Mask every value of `data` (base64: decode first, so that `data` and `stringData` holding the same plain value
/// get the same mask; undecodable base64 is hashed as given) and `stringData` of every object whose kind is `Secret`
/// (apiVersion v1) in place. Also masks the `kubectl.kubernetes.io/last-applied-configuration` annotation of a Secret
/// (it holds the data) by masking inside its JSON when it parses, else replacing it whole. Returns how many values were masked.
///
/// Secrets are found at any depth (a `kind: List`'s `items`, wrappers), and the last-applied annotation of any
/// object is masked when its JSON is a Secret. Values become the readable mask string in both `data` and
/// `stringData` (this is for display; [`mask_secrets_in_text`] keeps `data` base64). Values that are already
/// masked (see [`is_already_masked`]) and nulls are left alone and not counted.
pub fn mask_secret_object(obj: &mut Value) -> usize {
    mask_all(obj, Style::Display, 0)
}

fn mask_all(v: &mut Value, style: Style, depth: usize) -> usize {
    if depth > MAX_DEPTH {
        return 0;
    }
    match v {
        Value::Object(m) => {
            if is_secret_map(m) {
                return mask_secret_fields(m, style);
            }
            let mut n = mask_last_applied_in(m, false, style);
            for (_, child) in m.iter_mut() {
                n += mask_all(child, style, depth + 1);
            }
            n
        }
        Value::Array(items) => items
            .iter_mut()
            .map(|c| mask_all(c, style, depth + 1))
            .sum(),
        _ => 0,
    }
}

/// Mask `data`, `stringData` and the last-applied annotation of a map known to be a Secret.
fn mask_secret_fields(m: &mut Map<String, Value>, style: Style) -> usize {
    let mut n = 0;
    for (key, field) in [("data", Field::Data), ("stringData", Field::StringData)] {
        match m.get_mut(key) {
            None | Some(Value::Null) => {}
            Some(Value::Object(entries)) => {
                for (_, v) in entries.iter_mut() {
                    n += mask_json_leaf(v, field, style);
                }
            }
            Some(other) => n += mask_json_leaf(other, field, style),
        }
    }
    n + mask_last_applied_in(m, true, style)
}

fn mask_json_leaf(v: &mut Value, field: Field, style: Style) -> usize {
    let text = match &*v {
        Value::Null => return 0,
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match masked_for(field, &text, style) {
        Some((masked, _)) => {
            *v = Value::String(masked);
            1
        }
        None => 0,
    }
}

/// The last-applied annotation of `m`, masked when `force` (m is a Secret) or when its JSON is a Secret.
fn mask_last_applied_in(m: &mut Map<String, Value>, force: bool, style: Style) -> usize {
    let Some(Value::Object(meta)) = m.get_mut("metadata") else {
        return 0;
    };
    let Some(Value::Object(ann)) = meta.get_mut("annotations") else {
        return 0;
    };
    let Some(v) = ann.get_mut(LAST_APPLIED_ANNOTATION) else {
        return 0;
    };
    match v {
        Value::Null => 0,
        Value::String(s) => match mask_last_applied_text(s, force, style) {
            Some((new, n)) => {
                *s = new;
                n
            }
            None => 0,
        },
        other if force => {
            *other = Value::String(mask_value(other.to_string().as_bytes()));
            1
        }
        _ => 0,
    }
}

/// Mask the Secret data inside a last-applied annotation's text. `force`: the annotation belongs to a Secret,
/// so text that is not a JSON object is replaced whole. Returns `None` when nothing needs to change.
fn mask_last_applied_text(s: &str, force: bool, style: Style) -> Option<(String, usize)> {
    if is_already_masked(s) {
        return None;
    }
    match serde_json::from_str::<Value>(s) {
        Ok(Value::Object(mut o)) => {
            if !(force || is_secret_map(&o)) {
                return None;
            }
            let n = mask_secret_fields(&mut o, style);
            if n == 0 {
                return None;
            }
            match serde_json::to_string(&Value::Object(o)) {
                Ok(mut out) => {
                    if s.ends_with('\n') {
                        out.push('\n');
                    }
                    Some((out, n))
                }
                Err(_) => Some((mask_value(s.as_bytes()), 1)),
            }
        }
        _ if force => Some((mask_value(s.as_bytes()), 1)),
        _ => None,
    }
}

/// Whether a JSON pointer (RFC 6901) into an object of this kind points at a secret value
/// (Secret: /data/..., /stringData/..., the last-applied annotation; also the whole /data and /stringData).
///
/// `group` is the API group: `""` (also accepted: `"core"`, `"v1"`). A leading `#` (URI fragment form) is
/// accepted, and so is the annotation key with its `/` left unescaped. Pointers *above* a secret value (`""`,
/// `/metadata`, `/metadata/annotations`) give `false`; see [`may_contain_secret`] for those.
pub fn is_secret_pointer(group: &str, kind: &str, pointer: &str) -> bool {
    if !is_core_secret(group, kind) {
        return false;
    }
    let t = pointer_tokens(pointer);
    match t.as_slice() {
        [first, ..] => {
            first == "data"
                || first == "stringData"
                || (first == "metadata"
                    && t.get(1).is_some_and(|a| a == "annotations")
                    && (t.get(2).is_some_and(|k| k == LAST_APPLIED_ANNOTATION)
                        || (t.get(2).is_some_and(|k| k == "kubectl.kubernetes.io")
                            && t.get(3).is_some_and(|k| k == "last-applied-configuration"))))
        }
        [] => false,
    }
}

/// Whether the value at `pointer` is, or contains, a secret value: [`is_secret_pointer`], plus the whole
/// Secret object, its `/metadata` and its `/metadata/annotations`. A value for which this is true must be
/// masked (for objects, with [`mask_secret_object`]) before it is shown.
pub fn may_contain_secret(group: &str, kind: &str, pointer: &str) -> bool {
    if is_secret_pointer(group, kind, pointer) {
        return true;
    }
    if !is_core_secret(group, kind) {
        return false;
    }
    let p = pointer.strip_prefix('#').unwrap_or(pointer);
    if p.is_empty() {
        return true;
    }
    let t = pointer_tokens(pointer);
    matches!(t.as_slice(), [m] if m == "metadata")
        || matches!(t.as_slice(), [m, a] if m == "metadata" && a == "annotations")
}

fn is_core_secret(group: &str, kind: &str) -> bool {
    kind == "Secret" && (group.is_empty() || group == "core" || group == "v1")
}

fn pointer_tokens(pointer: &str) -> Vec<String> {
    let p = pointer.strip_prefix('#').unwrap_or(pointer);
    match p.strip_prefix('/') {
        None => Vec::new(),
        Some(rest) => rest
            .split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------------------------

/// Mask Secret values inside pasted text without reformatting anything else: multi-document YAML or JSON (also
/// `kind: List` items and `argocd app diff`/`kubectl diff` text where Secret blocks show `data:` lines), returning the
/// new text and the number of values masked. For YAML, replace the value text in place on its line(s) (keep keys,
/// indentation, comments, other documents byte-identical); block scalars are replaced as a whole. For data (base64)
/// write a base64 encoding of the mask string, for stringData the mask string itself, so an analysis of the masked
/// text still sees equal values as equal (stringData merged into data as base64 compares equal to the same plain value).
/// Already-masked values (Argo CD's `++++++++` runs, kubectl's `***`) are left alone.
///
/// How it works:
/// - YAML/JSON: each document is scanned line by line (JSON documents with a span-keeping JSON parser); every
///   mapping with `kind: Secret` (apiVersion `v1` or none), at any depth and in any key order, has its `data` and
///   `stringData` values replaced. The last-applied annotation is masked inside its JSON (written back as a
///   double-quoted string) when it belongs to a Secret or its JSON is a Secret. Then the masked document is parsed
///   again; if a Secret value is still readable (a YAML construct the scanner does not follow, such as aliases or
///   flow-style Secrets), that one document is replaced by a pretty-printed JSON rendering of it, fully masked.
/// - Diffs (unified `@@` hunks, `diff`/`kubectl diff` headers, Argo CD's `===== group/Kind ns/name ======` with
///   normal `NcM`/`<`/`>` hunks): the old and new sides are scanned separately. The kind comes from the visible
///   `kind:` line, else the file header (`/Secret`, `v1.Secret.ns.name`), else a `kind:` line elsewhere in the same
///   file. When a hunk shows `data:`/`stringData:` without a visible kind and the file's kind is unknown, the values
///   are masked (safer). Lines cut off from their parent (`  password: ...` with no `data:` above it in the hunk) are
///   masked when the file is a Secret, unless they visibly belong to metadata or the hunk's `@@ ... @@ context` names
///   another top-level key. A context line that masks differently on the two sides (a multi-line value that
///   changed) is split into a `-` and a `+` line, which keeps the hunk's line counts valid. Continuation lines of a
///   masked multi-line value keep their diff marker and lose their content.
pub fn mask_secrets_in_text(text: &str) -> (String, usize) {
    let raws = split_lines(text);
    if looks_like_diff(text, &raws) {
        mask_diff(text, &raws)
    } else {
        mask_documents(text, &raws)
    }
}

/// One line of the input: content `[start, end)` (without `\r\n`), the next line starts at `next`.
#[derive(Clone, Copy, Debug)]
struct RawLine {
    start: usize,
    end: usize,
    next: usize,
}

fn split_lines(text: &str) -> Vec<RawLine> {
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

fn indent(s: &str) -> usize {
    s.bytes().take_while(|&b| b == b' ').count()
}

fn is_blank(s: &str) -> bool {
    s.trim().is_empty()
}

fn is_blank_or_comment(s: &str) -> bool {
    let t = s.trim_start();
    t.is_empty() || t.starts_with('#')
}

/// A YAML document marker at column 0: `---` (maybe followed by content) or `...`.
fn is_doc_marker(s: &str) -> bool {
    let marker = |m: &str| {
        s.strip_prefix(m)
            .is_some_and(|r| r.is_empty() || r.starts_with(' ') || r.starts_with('\t'))
    };
    marker("---") || marker("...")
}

/// `---`/`...` alone (or with a comment): a marker line that holds no content of its own.
fn is_pure_doc_marker(s: &str) -> bool {
    is_doc_marker(s) && is_blank_or_comment(&s[3..])
}

// --- documents ------------------------------------------------------------------------------------------------

fn mask_documents(text: &str, raws: &[RawLine]) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut total = 0;
    let mut doc_start = 0;
    let flush = |from: usize, to: usize, out: &mut String, total: &mut usize| {
        if from < to {
            let (masked, n) = mask_document(&text[from..to]);
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
fn mask_document(doc: &str) -> (String, usize) {
    let could_hold_secret =
        doc.contains("Secret") || doc.contains(LAST_APPLIED_ANNOTATION) || doc.contains('\\');
    if !could_hold_secret {
        return (doc.to_string(), 0);
    }
    let trimmed = doc.trim_start();
    let json_edits = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        json_edits(doc)
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
            let mut scan = Scan::new(doc, &lines);
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
    verify_document(doc, masked, count)
}

#[derive(Debug, Clone)]
struct Edit {
    start: usize,
    end: usize,
    text: String,
    count: usize,
}

/// Apply non-overlapping edits (an edit overlapping an earlier one is dropped).
fn apply_edits(text: &str, mut edits: Vec<Edit>) -> (String, usize) {
    edits.sort_by_key(|e| (e.start, std::cmp::Reverse(e.end)));
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
fn verify_document(orig: &str, masked: String, count: usize) -> (String, usize) {
    let render = |mut vals: Vec<Value>| -> (String, usize) {
        let n: usize = vals
            .iter_mut()
            .map(|v| mask_all(v, Style::Manifest, 0))
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
fn parse_values(doc: &str) -> Option<Vec<Value>> {
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
    Some(vec![yaml_to_json(&y, 0)])
}

/// serde_yaml's parse, refused for text nested deeper than serde_yaml accepts anyway (128 levels): libyaml's
/// scanner gets quadratic on deeply nested flow collections, so such text would take minutes just to fail.
fn yaml_parse(text: &str) -> Option<serde_yaml::Value> {
    let mut depth = 0usize;
    for b in text.bytes() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > 128 {
                    return None;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    serde_yaml::from_str(text).ok()
}

fn yaml_to_json(v: &serde_yaml::Value, depth: usize) -> Value {
    use serde_yaml::Value as Y;
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    match v {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(*b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or_else(|| Value::String(n.to_string()), Value::Number)
            }
        }
        Y::String(s) => Value::String(s.clone()),
        Y::Sequence(items) => {
            Value::Array(items.iter().map(|i| yaml_to_json(i, depth + 1)).collect())
        }
        Y::Mapping(m) => {
            let mut out = Map::new();
            for (k, val) in m {
                out.insert(yaml_key_string(k), yaml_to_json(val, depth + 1));
            }
            Value::Object(out)
        }
        Y::Tagged(t) => yaml_to_json(&t.value, depth + 1),
    }
}

fn yaml_key_string(k: &serde_yaml::Value) -> String {
    match yaml_scalar_string(k) {
        Some(s) => s,
        None => "null".to_string(),
    }
}

/// The text of a YAML scalar as Kubernetes would see it (`None` for null); collections as compact JSON.
fn yaml_scalar_string(v: &serde_yaml::Value) -> Option<String> {
    use serde_yaml::Value as Y;
    match v {
        Y::Null => None,
        Y::Bool(b) => Some(b.to_string()),
        Y::Number(n) => Some(n.to_string()),
        Y::String(s) => Some(s.clone()),
        Y::Tagged(t) => yaml_scalar_string(&t.value),
        other => Some(serde_json::to_string(&yaml_to_json(other, 0)).unwrap_or_default()),
    }
}

/// Whether a Secret value (or a last-applied annotation holding one) is still readable anywhere in `v`.
fn has_unmasked(v: &Value, depth: usize) -> bool {
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

fn secret_fields_unmasked(m: &Map<String, Value>) -> bool {
    let leaf_ok = |v: &Value| match v {
        Value::Null => true,
        Value::String(s) => is_already_masked(s),
        _ => false,
    };
    ["data", "stringData"].iter().any(|k| match m.get(*k) {
        None | Some(Value::Null) => false,
        Some(Value::Object(o)) => !o.values().all(leaf_ok),
        Some(other) => !leaf_ok(other),
    })
}

// --- JSON documents -------------------------------------------------------------------------------------------

struct JVal {
    start: usize,
    end: usize,
    node: JNode,
}

enum JNode {
    Obj(Vec<(String, JVal)>),
    Arr(Vec<JVal>),
    Str(String),
    Null,
    /// A number or boolean.
    Other,
}

/// A JSON parser that keeps the byte span of every value (serde_json decodes the strings and numbers).
struct JsonSpans<'a> {
    s: &'a str,
    b: &'a [u8],
    pos: usize,
}

impl JsonSpans<'_> {
    fn ws(&mut self) {
        while self.pos < self.b.len() && matches!(self.b[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<JVal> {
        if depth > 200 {
            return None;
        }
        self.ws();
        let start = self.pos;
        let node = match *self.b.get(self.pos)? {
            b'{' => {
                self.pos += 1;
                let mut members = Vec::new();
                self.ws();
                if self.b.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        let key = self.string()?;
                        self.ws();
                        if self.b.get(self.pos) != Some(&b':') {
                            return None;
                        }
                        self.pos += 1;
                        let v = self.value(depth + 1)?;
                        members.push((key, v));
                        self.ws();
                        match *self.b.get(self.pos)? {
                            b',' => self.pos += 1,
                            b'}' => {
                                self.pos += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                JNode::Obj(members)
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                } else {
                    loop {
                        items.push(self.value(depth + 1)?);
                        self.ws();
                        match *self.b.get(self.pos)? {
                            b',' => self.pos += 1,
                            b']' => {
                                self.pos += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                JNode::Arr(items)
            }
            b'"' => JNode::Str(self.string()?),
            b't' | b'f' | b'n' | b'-' | b'0'..=b'9' => {
                while self.pos < self.b.len()
                    && (self.b[self.pos].is_ascii_alphanumeric()
                        || matches!(self.b[self.pos], b'+' | b'-' | b'.'))
                {
                    self.pos += 1;
                }
                match self.s.get(start..self.pos)? {
                    "null" => JNode::Null,
                    "true" | "false" => JNode::Other,
                    lit => {
                        serde_json::from_str::<serde_json::Number>(lit).ok()?;
                        JNode::Other
                    }
                }
            }
            _ => return None,
        };
        Some(JVal {
            start,
            end: self.pos,
            node,
        })
    }

    fn string(&mut self) -> Option<String> {
        if self.b.get(self.pos) != Some(&b'"') {
            return None;
        }
        let start = self.pos;
        self.pos += 1;
        loop {
            match *self.b.get(self.pos)? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    break;
                }
                c if c < 0x20 => return None,
                _ => self.pos += 1,
            }
        }
        serde_json::from_str::<String>(self.s.get(start..self.pos)?).ok()
    }
}

/// Edits for a document made of JSON values; `None` when it is not JSON.
fn json_edits(doc: &str) -> Option<Vec<Edit>> {
    let mut p = JsonSpans {
        s: doc,
        b: doc.as_bytes(),
        pos: 0,
    };
    let mut vals = Vec::new();
    loop {
        p.ws();
        if p.pos >= doc.len() {
            break;
        }
        vals.push(p.value(0)?);
    }
    if vals.is_empty() {
        return None;
    }
    let mut edits = Vec::new();
    for v in &vals {
        json_collect(doc, v, &mut edits, 0);
    }
    Some(edits)
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

fn jget<'v>(members: &'v [(String, JVal)], key: &str) -> Option<&'v JVal> {
    members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn json_collect(doc: &str, v: &JVal, out: &mut Vec<Edit>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match &v.node {
        JNode::Obj(members) => {
            let kind = jget(members, "kind").and_then(|k| {
                if let JNode::Str(s) = &k.node {
                    Some(s.as_str())
                } else {
                    None
                }
            });
            let api_ok = match jget(members, "apiVersion").map(|a| &a.node) {
                None | Some(JNode::Null) => true,
                Some(JNode::Str(s)) => s == "v1" || s.is_empty(),
                Some(_) => false,
            };
            let secret = kind == Some("Secret") && api_ok;
            if secret {
                for (key, field) in [("data", Field::Data), ("stringData", Field::StringData)] {
                    for (k, fv) in members {
                        if k != key {
                            continue;
                        }
                        match &fv.node {
                            JNode::Null => {}
                            JNode::Obj(entries) => {
                                for (_, leaf) in entries {
                                    json_leaf(doc, leaf, field, out);
                                }
                            }
                            _ => json_leaf(doc, fv, field, out),
                        }
                    }
                }
            }
            if let Some(JNode::Obj(meta)) = jget(members, "metadata").map(|m| &m.node) {
                if let Some(JNode::Obj(ann)) = jget(meta, "annotations").map(|a| &a.node) {
                    for (k, la) in ann {
                        if k != LAST_APPLIED_ANNOTATION {
                            continue;
                        }
                        match &la.node {
                            JNode::Str(s) => {
                                if let Some((new, n)) =
                                    mask_last_applied_text(s, secret, Style::Manifest)
                                {
                                    out.push(Edit {
                                        start: la.start,
                                        end: la.end,
                                        text: json_str(&new),
                                        count: n,
                                    });
                                }
                            }
                            JNode::Null => {}
                            _ if secret => {
                                let raw = doc.get(la.start..la.end).unwrap_or("");
                                out.push(Edit {
                                    start: la.start,
                                    end: la.end,
                                    text: json_str(&mask_value(raw.as_bytes())),
                                    count: 1,
                                });
                            }
                            _ => {}
                        }
                    }
                }
            }
            if !secret {
                for (_, c) in members {
                    json_collect(doc, c, out, depth + 1);
                }
            }
        }
        JNode::Arr(items) => {
            for c in items {
                json_collect(doc, c, out, depth + 1);
            }
        }
        _ => {}
    }
}

fn json_leaf(doc: &str, leaf: &JVal, field: Field, out: &mut Vec<Edit>) {
    let text = match &leaf.node {
        JNode::Null => return,
        JNode::Str(s) => s.clone(),
        _ => doc.get(leaf.start..leaf.end).unwrap_or("").to_string(),
    };
    if let Some((masked, _)) = masked_for(field, &text, Style::Manifest) {
        out.push(Edit {
            start: leaf.start,
            end: leaf.end,
            text: json_str(&masked),
            count: 1,
        });
    }
}

// --- the YAML line scanner ------------------------------------------------------------------------------------

/// A line as the scanner sees it: content `[start, end)` of the text (after any diff marker), the hunk it belongs
/// to (structure never continues across hunks) and its index among the raw lines.
#[derive(Clone, Copy, Debug)]
struct SLine {
    start: usize,
    end: usize,
    hunk: usize,
    raw: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    /// Nothing after the colon: a nested block (or null) follows.
    Empty,
    Scalar,
    Block,
    Flow,
}

/// Where a value's text is: from `vstart` on line `first` to `vend` on line `last` (line indices into the scan).
#[derive(Clone, Copy, Debug)]
struct Region {
    first: usize,
    vstart: usize,
    last: usize,
    vend: usize,
}

struct Entry {
    key: String,
    map: usize,
    shape: Shape,
    region: Option<Region>,
}

struct MapNode {
    col: usize,
    parent: Option<usize>,
    hunk: usize,
    entries: Vec<usize>,
}

/// A value to replace.
struct Masked {
    region: Region,
    text: String,
    count: usize,
}

struct Scan<'a> {
    text: &'a str,
    lines: &'a [SLine],
    entries: Vec<Entry>,
    maps: Vec<MapNode>,
    /// For each entry, the mappings nested under it.
    children: Vec<Vec<usize>>,
    /// Lines that are neither keys, nor sequence items, nor part of a value: in a diff, the rest of a value
    /// whose key is outside the hunk.
    loose: Vec<usize>,
}

/// Parse a mapping key starting at byte `col` of `s`; returns the key and the offset just after its colon.
fn parse_key(s: &str, col: usize) -> Option<(String, usize)> {
    let b = s.as_bytes();
    let first = *b.get(col)?;
    let colon_ok = |i: usize| {
        b.get(i) == Some(&b':') && matches!(b.get(i + 1), None | Some(b' ') | Some(b'\t'))
    };
    match first {
        b'"' | b'\'' => {
            let close = if first == b'"' {
                find_dq_end(b, col, b.len())
            } else {
                find_sq_end(b, col, b.len())
            }?;
            let inner = s.get(col + 1..close)?;
            let key = if first == b'"' {
                serde_json::from_str::<String>(s.get(col..=close)?)
                    .unwrap_or_else(|_| inner.to_string())
            } else {
                inner.replace("''", "'")
            };
            let mut p = close + 1;
            while p < b.len() && (b[p] == b' ' || b[p] == b'\t') {
                p += 1;
            }
            colon_ok(p).then_some((key, p + 1))
        }
        b'{' | b'[' | b'}' | b']' | b',' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%'
        | b'@' | b'`' => None,
        b'?' if matches!(b.get(col + 1), None | Some(b' ') | Some(b'\t')) => None,
        _ => {
            let mut i = col;
            while i < b.len() {
                if colon_ok(i) {
                    let key = s.get(col..i)?.trim_end();
                    return (!key.is_empty()).then(|| (key.to_string(), i + 1));
                }
                if b[i] == b'#' && i > col && (b[i - 1] == b' ' || b[i - 1] == b'\t') {
                    return None;
                }
                i += 1;
            }
            None
        }
    }
}

/// Index of the closing `"` of a double-quoted scalar opened at `open`, before `end`.
fn find_dq_end(b: &[u8], open: usize, end: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < end {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Index of the closing `'` of a single-quoted scalar opened at `open` (`''` is an escaped quote), before `end`.
fn find_sq_end(b: &[u8], open: usize, end: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < end {
        if b[i] == b'\'' {
            if i + 1 < end && b[i + 1] == b'\'' {
                i += 2;
                continue;
            }
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The value of a simple one-line scalar such as `Secret`, `"v1"` or `'v1' # comment`.
fn simple_scalar(v: &str) -> String {
    let b = v.as_bytes();
    match b.first() {
        Some(b'"') => {
            if let Some(close) = find_dq_end(b, 0, b.len()) {
                if let Some(lit) = v.get(..=close) {
                    return serde_json::from_str::<String>(lit)
                        .unwrap_or_else(|_| v[1..close].to_string());
                }
            }
            v.to_string()
        }
        Some(b'\'') => match find_sq_end(b, 0, b.len()) {
            Some(close) => v[1..close].replace("''", "'"),
            None => v.to_string(),
        },
        _ => {
            let end = comment_start(v).unwrap_or(v.len());
            v[..end].trim().trim_end_matches(',').trim().to_string()
        }
    }
}

/// Offset of a ` #` comment in a plain scalar's line.
fn comment_start(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    (1..b.len()).find(|&i| b[i] == b'#' && (b[i - 1] == b' ' || b[i - 1] == b'\t'))
}

/// The logical value of a scalar's source text (`None` for null).
fn scalar_value(raw: &str) -> Option<String> {
    let t = raw.trim();
    if t.is_empty() || matches!(t, "~" | "null" | "Null" | "NULL") {
        return None;
    }
    if !raw.contains('\n')
        && t.bytes().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'-' | b'_' | b'.')
        })
    {
        return Some(t.to_string());
    }
    // The region ends at the end of its last line's text: give back the line break a block scalar keeps.
    let snippet = format!("v: {raw}\n");
    match yaml_parse(&snippet) {
        Some(serde_yaml::Value::Mapping(m)) => match m.get("v") {
            Some(v) => yaml_scalar_string(v),
            None => Some(t.to_string()),
        },
        _ => Some(t.to_string()),
    }
}

/// A YAML double-quoted scalar for `s`, escaping what YAML would not keep as is.
fn yaml_dq(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20
                || (0x7f..=0x9f).contains(&(c as u32))
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') =>
            {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

const METADATA_PAIRS: [(&str, &str); 2] = [("name", "namespace"), ("resourceVersion", "uid")];
/// Nested blocks that only metadata has.
const METADATA_BLOCKS: [&str; 5] = [
    "labels",
    "annotations",
    "managedFields",
    "ownerReferences",
    "finalizers",
];

impl<'a> Scan<'a> {
    fn new(text: &'a str, lines: &'a [SLine]) -> Self {
        Scan {
            text,
            lines,
            entries: Vec::new(),
            maps: Vec::new(),
            children: Vec::new(),
            loose: Vec::new(),
        }
    }

    fn content(&self, i: usize) -> &'a str {
        let l = self.lines[i];
        self.text.get(l.start..l.end).unwrap_or("")
    }

    fn run(&mut self) {
        let mut frames: Vec<(usize, usize)> = Vec::new(); // (key column, map)
        let mut cur_hunk = usize::MAX;
        let mut i = 0;
        while i < self.lines.len() {
            let l = self.lines[i];
            if l.hunk != cur_hunk {
                frames.clear();
                cur_hunk = l.hunk;
            }
            let s = self.content(i);
            if is_doc_marker(s) {
                frames.clear();
                i += 1;
                continue;
            }
            if is_blank_or_comment(s) {
                i += 1;
                continue;
            }
            let b = s.as_bytes();
            let mut col = indent(s);
            let mut dash = None;
            while col < b.len()
                && b[col] == b'-'
                && matches!(b.get(col + 1), None | Some(b' ') | Some(b'\t'))
            {
                dash.get_or_insert(col);
                col += 1;
                while col < b.len() && (b[col] == b' ' || b[col] == b'\t') {
                    col += 1;
                }
            }
            if let Some(d) = dash {
                while frames.last().is_some_and(|f| f.0 > d) {
                    frames.pop();
                }
            }
            let Some((key, after)) = parse_key(s, col) else {
                if dash.is_none() {
                    self.loose.push(i);
                }
                i += 1;
                continue;
            };
            if dash.is_none() {
                while frames.last().is_some_and(|f| f.0 > col) {
                    frames.pop();
                }
            }
            let map = match frames.last() {
                Some(&(c, m)) if dash.is_none() && c == col => m,
                top => {
                    let parent = top
                        .and_then(|&(_, m)| self.maps[m].entries.last().copied())
                        .filter(|&e| self.entries[e].shape == Shape::Empty);
                    let m = self.maps.len();
                    self.maps.push(MapNode {
                        col,
                        parent,
                        hunk: l.hunk,
                        entries: Vec::new(),
                    });
                    if let Some(p) = parent {
                        self.children[p].push(m);
                    }
                    frames.push((col, m));
                    m
                }
            };
            let (shape, region, last) = self.value_at(i, col, l.start + after);
            let e = self.entries.len();
            self.entries.push(Entry {
                key,
                map,
                shape,
                region,
            });
            self.children.push(Vec::new());
            self.maps[map].entries.push(e);
            i = last.max(i) + 1;
        }
    }

    /// The next line of the same hunk that is neither blank nor a comment (`None` at a document marker).
    fn next_content_line(&self, i: usize) -> Option<usize> {
        let hunk = self.lines[i].hunk;
        let mut j = i + 1;
        while j < self.lines.len() && self.lines[j].hunk == hunk {
            let s = self.content(j);
            if is_doc_marker(s) {
                return None;
            }
            if !is_blank_or_comment(s) {
                return Some(j);
            }
            j += 1;
        }
        None
    }

    /// The last line that continues a value whose key is at column `kc` (more indented lines and blanks).
    fn extent(&self, i: usize, kc: usize) -> usize {
        let hunk = self.lines[i].hunk;
        let mut last = i;
        let mut j = i + 1;
        while j < self.lines.len() && self.lines[j].hunk == hunk {
            let s = self.content(j);
            if is_doc_marker(s) {
                break;
            }
            if is_blank(s) {
                j += 1;
                continue;
            }
            if indent(s) > kc {
                last = j;
                j += 1;
                continue;
            }
            break;
        }
        last
    }

    fn trimmed_end(&self, i: usize) -> usize {
        let l = self.lines[i];
        let s = self.content(i);
        l.start + s.trim_end().len()
    }

    /// Classify the value after a key's colon (`after` is a byte offset into the text).
    fn value_at(&self, i: usize, kc: usize, after: usize) -> (Shape, Option<Region>, usize) {
        let l = self.lines[i];
        let b = self.text.as_bytes();
        let mut p = after;
        while p < l.end && (b[p] == b' ' || b[p] == b'\t') {
            p += 1;
        }
        let vstart = p;
        // Anchors and tags before the value.
        while p < l.end && (b[p] == b'&' || b[p] == b'!') {
            while p < l.end && b[p] != b' ' && b[p] != b'\t' {
                p += 1;
            }
            while p < l.end && (b[p] == b' ' || b[p] == b'\t') {
                p += 1;
            }
        }
        if p >= l.end || b[p] == b'#' {
            // A nested block follows, or a scalar on the next line(s), or nothing (null).
            if let Some(j) = self.next_content_line(i) {
                let s = self.content(j);
                let ind = indent(s);
                let rest = &s[ind..];
                let structural = rest.starts_with("- ")
                    || rest == "-"
                    || rest.starts_with("-\t")
                    || parse_key(s, ind).is_some();
                if ind > kc && !structural {
                    let (shape, region, last) = self.value_from(j, self.lines[j].start + ind, kc);
                    return (
                        if shape == Shape::Flow {
                            Shape::Flow
                        } else {
                            Shape::Scalar
                        },
                        region,
                        last,
                    );
                }
            }
            return (Shape::Empty, None, i);
        }
        let (shape, region, last) = self.value_from(i, p, kc);
        (shape, region.map(|r| Region { vstart, ..r }), last)
    }

    /// The region of a value that starts at byte `p` of line `i`.
    fn value_from(&self, i: usize, p: usize, kc: usize) -> (Shape, Option<Region>, usize) {
        let b = self.text.as_bytes();
        let l = self.lines[i];
        let whole = |last: usize| Region {
            first: i,
            vstart: p,
            last,
            vend: self.trimmed_end(last),
        };
        match b[p] {
            b'|' | b'>' => {
                let last = self.extent(i, kc);
                let region = if last == i {
                    let s = self.text.get(p..l.end).unwrap_or("");
                    let hdr = comment_start(s).unwrap_or(s.len());
                    Region {
                        first: i,
                        vstart: p,
                        last: i,
                        vend: p + s[..hdr].trim_end().len(),
                    }
                } else {
                    whole(last)
                };
                (Shape::Block, Some(region), last)
            }
            b'"' | b'\'' => match self.scan_quoted(i, p, kc) {
                Some((last, vend)) => (
                    Shape::Scalar,
                    Some(Region {
                        first: i,
                        vstart: p,
                        last,
                        vend,
                    }),
                    last,
                ),
                None => {
                    let last = self.extent(i, kc);
                    (Shape::Scalar, Some(whole(last)), last)
                }
            },
            b'{' | b'[' => match self.scan_flow(i, p, kc) {
                Some((last, vend)) => (
                    Shape::Flow,
                    Some(Region {
                        first: i,
                        vstart: p,
                        last,
                        vend,
                    }),
                    last,
                ),
                None => {
                    let last = self.extent(i, kc);
                    (Shape::Flow, Some(whole(last)), last)
                }
            },
            _ => {
                let last = self.extent(i, kc);
                if last == i {
                    let s = self.text.get(p..l.end).unwrap_or("");
                    let end = comment_start(s).unwrap_or(s.len());
                    let vend = p + s[..end].trim_end().len();
                    (
                        Shape::Scalar,
                        Some(Region {
                            first: i,
                            vstart: p,
                            last: i,
                            vend,
                        }),
                        i,
                    )
                } else {
                    (Shape::Scalar, Some(whole(last)), last)
                }
            }
        }
    }

    /// May the scan of a multi-line quoted or flow value go on to line `j`?
    fn continues(&self, from: usize, j: usize, kc: usize, closers: bool) -> bool {
        if j >= self.lines.len() || self.lines[j].hunk != self.lines[from].hunk {
            return false;
        }
        let s = self.content(j);
        if is_doc_marker(s) {
            return false;
        }
        let t = s.trim_start();
        t.is_empty() || indent(s) > kc || (closers && (t.starts_with('}') || t.starts_with(']')))
    }

    /// End of a quoted scalar opened at byte `p` of line `i`: (last line, byte after the closing quote).
    fn scan_quoted(&self, i: usize, p: usize, kc: usize) -> Option<(usize, usize)> {
        let b = self.text.as_bytes();
        let q = b[p];
        let mut li = i;
        let mut pos = p + 1;
        loop {
            let end = self.lines[li].end;
            while pos < end {
                let c = b[pos];
                if q == b'"' && c == b'\\' {
                    pos += 2;
                    continue;
                }
                if c == q {
                    if q == b'\'' && pos + 1 < end && b[pos + 1] == b'\'' {
                        pos += 2;
                        continue;
                    }
                    return Some((li, pos + 1));
                }
                pos += 1;
            }
            if !self.continues(i, li + 1, kc, false) {
                return None;
            }
            li += 1;
            pos = self.lines[li].start;
        }
    }

    /// End of a flow collection opened at byte `p` of line `i`: (last line, byte after the closing bracket).
    fn scan_flow(&self, i: usize, p: usize, kc: usize) -> Option<(usize, usize)> {
        let b = self.text.as_bytes();
        let mut depth = 0usize;
        let mut quote: Option<u8> = None;
        let mut prev = b'{';
        let mut li = i;
        let mut pos = p;
        loop {
            let l = self.lines[li];
            while pos < l.end {
                let c = b[pos];
                match quote {
                    Some(q) => {
                        if q == b'"' && c == b'\\' {
                            pos += 2;
                            continue;
                        }
                        if c == q {
                            if q == b'\'' && pos + 1 < l.end && b[pos + 1] == b'\'' {
                                pos += 2;
                                continue;
                            }
                            quote = None;
                        }
                    }
                    None => match c {
                        b'"' | b'\'' if matches!(prev, b'{' | b'[' | b',' | b':') => {
                            quote = Some(c)
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                return Some((li, pos + 1));
                            }
                        }
                        b'#' if pos > l.start && (b[pos - 1] == b' ' || b[pos - 1] == b'\t') => {
                            pos = l.end;
                            continue;
                        }
                        _ => {}
                    },
                }
                if !c.is_ascii_whitespace() {
                    prev = c;
                }
                pos += 1;
            }
            if !self.continues(i, li + 1, kc, true) {
                return None;
            }
            li += 1;
            pos = self.lines[li].start;
        }
    }

    /// The source text of a region; continuation lines keep their indentation.
    fn region_text(&self, r: &Region) -> String {
        let t = self.text;
        if r.first == r.last {
            return t
                .get(r.vstart..r.vend.max(r.vstart))
                .unwrap_or("")
                .to_string();
        }
        let mut out = t
            .get(r.vstart..self.lines[r.first].end)
            .unwrap_or("")
            .to_string();
        for li in r.first + 1..=r.last {
            let l = self.lines[li];
            let end = if li == r.last {
                r.vend.max(l.start)
            } else {
                l.end
            };
            out.push('\n');
            out.push_str(t.get(l.start..end).unwrap_or(""));
        }
        out
    }

    fn map_scalar(&self, m: usize, key: &str) -> Option<String> {
        self.maps[m]
            .entries
            .iter()
            .rev()
            .map(|&e| &self.entries[e])
            .find(|e| e.key == key && e.shape == Shape::Scalar)
            .and_then(|e| e.region.map(|r| simple_scalar(&self.region_text(&r))))
    }

    /// Some(true): a core Secret; Some(false): another kind; None: no kind visible.
    fn map_is_secret(&self, m: usize) -> Option<bool> {
        let kind = self.map_scalar(m, "kind")?;
        let api = self.map_scalar(m, "apiVersion");
        Some(kind == "Secret" && matches!(api.as_deref(), None | Some("v1") | Some("")))
    }

    fn has_key(&self, m: usize, key: &str) -> bool {
        self.maps[m]
            .entries
            .iter()
            .any(|&e| self.entries[e].key == key)
    }

    /// Keys that only the top of an object has (so a cut-off mapping holding them is an object, not `data`).
    fn looks_like_object(&self, m: usize) -> bool {
        self.maps[m].entries.iter().any(|&e| {
            let en = &self.entries[e];
            match en.key.as_str() {
                "apiVersion" | "kind" => en.shape == Shape::Scalar,
                "metadata" | "data" | "stringData" => en.shape != Shape::Scalar,
                _ => false,
            }
        })
    }

    /// A cut-off mapping that is visibly not `data`: it nests blocks (data values never do) or has metadata pairs.
    fn looks_like_metadata(&self, m: usize) -> bool {
        self.maps[m].entries.iter().any(|&e| {
            !self.children[e].is_empty() && METADATA_BLOCKS.contains(&self.entries[e].key.as_str())
        }) || METADATA_PAIRS
            .iter()
            .any(|(a, b)| self.has_key(m, a) && self.has_key(m, b))
    }

    /// Mask an entry's value, or every value nested under it.
    fn mask_subtree(&self, e: usize, field: Field, out: &mut Vec<Masked>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        if self.entries[e].shape != Shape::Empty {
            self.mask_leaf(e, field, out);
            return;
        }
        for &cm in &self.children[e] {
            for &c in &self.maps[cm].entries {
                self.mask_subtree(c, field, out, depth + 1);
            }
        }
    }

    /// In a diff, lines cut off from their key: mask them whole when they sit in a Secret's values.
    fn decide_loose(&self, d: &DiffCtx, out: &mut Vec<Masked>) {
        for &i in &self.loose {
            let l = self.lines[i];
            let s = self.content(i);
            let field = match (d.section_kind(l.hunk), d.hunk_context(l.hunk)) {
                (SecKind::Other, _) => continue,
                (_, Some(c)) if c.starts_with("data:") => Field::Data,
                (_, Some(c)) if c.starts_with("stringData:") => Field::StringData,
                (SecKind::Secret, _) => Field::Guess,
                _ if s.contains("\"kind\":\"Secret\"") => Field::StringData,
                _ => continue,
            };
            let value = s.trim();
            let Some((masked, is_b64)) = masked_for(field, value, Style::Manifest) else {
                continue;
            };
            let text = if is_b64 {
                masked
            } else {
                format!("\"{masked}\"")
            };
            let vstart = l.start + indent(s);
            out.push(Masked {
                region: Region {
                    first: i,
                    vstart,
                    last: i,
                    vend: self.trimmed_end(i),
                },
                text,
                count: 1,
            });
        }
    }

    /// Decide what to mask.
    fn decide(&self, diff: Option<&DiffCtx>) -> Vec<Masked> {
        let mut out = Vec::new();
        for (mi, m) in self.maps.iter().enumerate() {
            let role = match self.map_is_secret(mi) {
                Some(true) => Role::Secret,
                Some(false) => Role::None,
                None => match diff {
                    Some(d) if m.parent.is_none() => {
                        let sec = d.section_kind(m.hunk);
                        if m.col == 0 || self.looks_like_object(mi) {
                            match sec {
                                SecKind::Other => Role::None,
                                _ => Role::Secret,
                            }
                        } else {
                            match (sec, d.hunk_context(m.hunk)) {
                                (SecKind::Other, _) => Role::None,
                                (_, Some(c)) if c.starts_with("data:") => Role::Fields(Field::Data),
                                (_, Some(c)) if c.starts_with("stringData:") => {
                                    Role::Fields(Field::StringData)
                                }
                                (_, Some(_)) => Role::None,
                                (SecKind::Secret, None) if !self.looks_like_metadata(mi) => {
                                    Role::Fields(Field::Guess)
                                }
                                _ => Role::None,
                            }
                        }
                    }
                    _ => Role::None,
                },
            };
            match role {
                Role::None => {}
                Role::Secret => {
                    for &e in &m.entries {
                        let field = match self.entries[e].key.as_str() {
                            "data" => Field::Data,
                            "stringData" => Field::StringData,
                            _ => continue,
                        };
                        self.mask_field_entry(e, field, &mut out);
                    }
                }
                Role::Fields(field) => {
                    for &e in &m.entries {
                        if self.entries[e].key != LAST_APPLIED_ANNOTATION {
                            self.mask_subtree(e, field, &mut out, 0);
                        }
                    }
                }
            }
        }
        if let Some(d) = diff {
            self.decide_loose(d, &mut out);
        }
        for (ei, e) in self.entries.iter().enumerate() {
            if e.key == LAST_APPLIED_ANNOTATION {
                let force = self.last_applied_owner_is_secret(ei)
                    || diff
                        .is_some_and(|d| d.section_kind(self.maps[e.map].hunk) == SecKind::Secret);
                self.mask_last_applied(ei, force, &mut out);
            }
        }
        out
    }

    /// Whether `annotations` → `metadata` above this entry belong to a visible Secret.
    fn last_applied_owner_is_secret(&self, e: usize) -> bool {
        let up = |e: usize, key: &str| -> Option<usize> {
            let p = self.maps[self.entries[e].map].parent?;
            (self.entries[p].key == key).then_some(p)
        };
        let Some(ann) = up(e, "annotations") else {
            return false;
        };
        let Some(meta) = up(ann, "metadata") else {
            return false;
        };
        self.map_is_secret(self.entries[meta].map) == Some(true)
    }

    fn mask_field_entry(&self, e: usize, field: Field, out: &mut Vec<Masked>) {
        let en = &self.entries[e];
        match en.shape {
            Shape::Empty => {
                for &cm in &self.children[e] {
                    for &c in &self.maps[cm].entries {
                        self.mask_leaf(c, field, out);
                    }
                }
            }
            Shape::Flow => {
                let Some(r) = en.region else { return };
                let raw = self.region_text(&r);
                match mask_flow_mapping(&raw, field) {
                    Some((text, n)) if n > 0 => out.push(Masked {
                        region: r,
                        text,
                        count: n,
                    }),
                    Some(_) => {}
                    None => self.mask_leaf(e, field, out),
                }
            }
            _ => self.mask_leaf(e, field, out),
        }
    }

    fn mask_leaf(&self, e: usize, field: Field, out: &mut Vec<Masked>) {
        let en = &self.entries[e];
        let Some(r) = en.region else { return };
        let raw = self.region_text(&r);
        let Some(value) = scalar_value(&raw) else {
            return;
        };
        let Some((masked, is_b64)) = masked_for(field, &value, Style::Manifest) else {
            return;
        };
        let text = match raw.as_bytes().first() {
            Some(b'\'') => format!("'{masked}'"),
            Some(b'"') => format!("\"{masked}\""),
            _ if is_b64 => masked,
            _ => format!("\"{masked}\""),
        };
        out.push(Masked {
            region: r,
            text,
            count: 1,
        });
    }

    fn mask_last_applied(&self, e: usize, force: bool, out: &mut Vec<Masked>) {
        let Some(r) = self.entries[e].region else {
            return;
        };
        let raw = self.region_text(&r);
        let Some(value) = scalar_value(&raw) else {
            return;
        };
        if let Some((new, n)) = mask_last_applied_text(&value, force, Style::Manifest) {
            out.push(Masked {
                region: r,
                text: yaml_dq(&new),
                count: n,
            });
        }
    }
}

enum Role {
    None,
    /// A Secret object: mask its `data` and `stringData`.
    Secret,
    /// The entries themselves are Secret values (a cut-off `data` block in a diff).
    Fields(Field),
}

/// Mask the values of a flow mapping such as `{a: YWJj, b: "x"}`; written back as one-line JSON.
fn mask_flow_mapping(raw: &str, field: Field) -> Option<(String, usize)> {
    let snippet = format!("v: {raw}");
    let v = yaml_parse(&snippet)?;
    let serde_yaml::Value::Mapping(outer) = v else {
        return None;
    };
    let serde_yaml::Value::Mapping(m) = outer.get("v")? else {
        return None;
    };
    let mut out = Map::new();
    let mut n = 0;
    for (k, val) in m {
        let key = yaml_key_string(k);
        let new = match yaml_scalar_string(val) {
            None => Value::Null,
            Some(text) => match masked_for(field, &text, Style::Manifest) {
                Some((masked, _)) => {
                    n += 1;
                    Value::String(masked)
                }
                None => Value::String(text),
            },
        };
        out.insert(key, new);
    }
    Some((serde_json::to_string(&Value::Object(out)).ok()?, n))
}

// --- diffs ----------------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum SecKind {
    Secret,
    Other,
    Unknown,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum DKind {
    Header,
    Ctx,
    Old,
    New,
}

#[derive(Clone, Copy, Debug)]
struct DLine {
    kind: DKind,
    /// Where the content starts (after the diff marker).
    cstart: usize,
    hunk: usize,
}

struct DiffCtx {
    hunk_context: Vec<Option<String>>,
    hunk_section: Vec<usize>,
    section_header: Vec<Option<SecKind>>,
    section_kind: Vec<SecKind>,
}

impl DiffCtx {
    fn section_kind(&self, hunk: usize) -> SecKind {
        self.hunk_section
            .get(hunk)
            .and_then(|&s| self.section_kind.get(s))
            .copied()
            .unwrap_or(SecKind::Unknown)
    }

    fn hunk_context(&self, hunk: usize) -> Option<&str> {
        self.hunk_context.get(hunk).and_then(|c| c.as_deref())
    }
}

/// `@@ -a[,b] +c[,d] @@ context`: counts of old and new lines (unbounded when they cannot be read) and the
/// context text.
fn parse_unified_header(s: &str) -> Option<(usize, usize, Option<String>)> {
    let rest = s.strip_prefix("@@")?;
    let parsed = (|| {
        let rest = rest.strip_prefix(" -")?;
        let (old, rest) = rest.split_once(" +")?;
        let (new, rest) = rest.split_once(" @@")?;
        let count = |r: &str| -> Option<usize> {
            let mut it = r.splitn(2, ',');
            it.next()?.parse::<usize>().ok()?;
            match it.next() {
                Some(c) => c.parse::<usize>().ok(),
                None => Some(1),
            }
        };
        let ctx = rest.trim();
        Some((
            count(old)?,
            count(new)?,
            (!ctx.is_empty()).then(|| ctx.to_string()),
        ))
    })();
    Some(parsed.unwrap_or((usize::MAX / 4, usize::MAX / 4, None)))
}

/// `5`, `5,7`, followed by `a`/`c`/`d`, then the same: a normal diff hunk header.
fn is_normal_hunk_header(s: &str) -> bool {
    let b = s.as_bytes();
    let range = |mut i: usize| -> Option<usize> {
        let st = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == st {
            return None;
        }
        if i < b.len() && b[i] == b',' {
            i += 1;
            let st2 = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == st2 {
                return None;
            }
        }
        Some(i)
    };
    let Some(i) = range(0) else { return false };
    if i >= b.len() || !matches!(b[i], b'a' | b'c' | b'd') {
        return false;
    }
    range(i + 1) == Some(b.len())
}

fn is_argo_header(s: &str) -> bool {
    s.starts_with("===== ") && s.trim_end().ends_with("======")
}

/// Kind of a resource named by an Argo CD header (`===== group/Kind ns/name ======`).
fn argo_header_kind(s: &str) -> Option<SecKind> {
    let token = s.strip_prefix("===== ")?.split_whitespace().next()?;
    let (group, kind) = token.rsplit_once('/')?;
    if kind.is_empty() {
        return None;
    }
    Some(if group.is_empty() && kind == "Secret" {
        SecKind::Secret
    } else {
        SecKind::Other
    })
}

/// Kind of a resource named by a kubectl diff file name (`v1.Secret.ns.name`, `apps.v1.Deployment.ns.name`).
fn file_kind(path: &str) -> Option<SecKind> {
    let name = path.rsplit('/').next()?;
    let segs: Vec<&str> = name.split('.').collect();
    for i in 0..segs.len().saturating_sub(1) {
        let v = segs[i].as_bytes();
        let versionish = v.len() >= 2
            && v[0] == b'v'
            && v[1].is_ascii_digit()
            && v.iter().all(u8::is_ascii_alphanumeric);
        let kind = segs[i + 1];
        if versionish && kind.as_bytes().first().is_some_and(u8::is_ascii_uppercase) {
            return Some(if i == 0 && segs[i] == "v1" && kind == "Secret" {
                SecKind::Secret
            } else {
                SecKind::Other
            });
        }
    }
    None
}

fn looks_like_diff(text: &str, raws: &[RawLine]) -> bool {
    let line = |i: usize| -> &str { raws.get(i).map_or("", |r| &text[r.start..r.end]) };
    (0..raws.len()).any(|i| {
        let s = line(i);
        (s.starts_with("@@ -")
            && parse_unified_header(s).is_some_and(|(o, _, _)| o < usize::MAX / 4))
            || is_argo_header(s)
            || (is_normal_hunk_header(s)
                && (line(i + 1).starts_with('<') || line(i + 1).starts_with('>')))
    })
}

fn classify_diff_lines(text: &str, raws: &[RawLine]) -> (Vec<DLine>, DiffCtx) {
    let mut out = Vec::with_capacity(raws.len());
    let mut ctx = DiffCtx {
        hunk_context: vec![None],
        hunk_section: vec![0],
        section_header: vec![None],
        section_kind: Vec::new(),
    };
    let mut hunk = 0usize;
    let mut section = 0usize;
    let (mut rem_old, mut rem_new) = (0usize, 0usize);
    let mut in_normal = false;
    let mut seen_unified = false;
    let mut file_header_open = false;
    let new_section =
        |ctx: &mut DiffCtx, kind: Option<SecKind>, section: &mut usize, hunk: &mut usize| {
            ctx.section_header.push(kind);
            *section = ctx.section_header.len() - 1;
            ctx.hunk_context.push(None);
            ctx.hunk_section.push(*section);
            *hunk = ctx.hunk_context.len() - 1;
        };
    for (k, r) in raws.iter().enumerate() {
        let s = &text[r.start..r.end];
        let mut push = |kind: DKind, skip: usize| {
            out.push(DLine {
                kind,
                cstart: (r.start + skip).min(r.end),
                hunk,
            });
        };
        if rem_old > 0 || rem_new > 0 {
            match s.as_bytes().first() {
                None | Some(b' ') => {
                    rem_old = rem_old.saturating_sub(1);
                    rem_new = rem_new.saturating_sub(1);
                    push(DKind::Ctx, 1);
                    continue;
                }
                Some(b'-') => {
                    rem_old = rem_old.saturating_sub(1);
                    push(DKind::Old, 1);
                    continue;
                }
                Some(b'+') => {
                    rem_new = rem_new.saturating_sub(1);
                    push(DKind::New, 1);
                    continue;
                }
                Some(b'\\') => {
                    push(DKind::Header, 0);
                    continue;
                }
                _ => {
                    rem_old = 0;
                    rem_new = 0;
                }
            }
        }
        let next = raws.get(k + 1).map_or("", |n| &text[n.start..n.end]);
        if s.starts_with("@@") {
            if let Some((o, n, c)) = parse_unified_header(s) {
                ctx.hunk_context.push(c);
                ctx.hunk_section.push(section);
                hunk = ctx.hunk_context.len() - 1;
                rem_old = o;
                rem_new = n;
                in_normal = false;
                seen_unified = true;
                file_header_open = false;
                out.push(DLine {
                    kind: DKind::Header,
                    cstart: r.start,
                    hunk,
                });
                continue;
            }
        }
        if s.starts_with("diff ") || s.starts_with("Index: ") || is_argo_header(s) {
            let kind = if is_argo_header(s) {
                argo_header_kind(s)
            } else {
                s.split_whitespace().last().and_then(file_kind)
            };
            new_section(&mut ctx, kind, &mut section, &mut hunk);
            in_normal = false;
            file_header_open = true;
            out.push(DLine {
                kind: DKind::Header,
                cstart: r.start,
                hunk,
            });
            continue;
        }
        if s.starts_with("--- ") && next.starts_with("+++ ") {
            if !file_header_open {
                let kind = s[4..].split_whitespace().next().and_then(file_kind);
                new_section(&mut ctx, kind, &mut section, &mut hunk);
            }
            file_header_open = true;
            in_normal = false;
            out.push(DLine {
                kind: DKind::Header,
                cstart: r.start,
                hunk,
            });
            continue;
        }
        if s.starts_with("+++ ") && file_header_open {
            out.push(DLine {
                kind: DKind::Header,
                cstart: r.start,
                hunk,
            });
            continue;
        }
        if is_normal_hunk_header(s) {
            ctx.hunk_context.push(None);
            ctx.hunk_section.push(section);
            hunk = ctx.hunk_context.len() - 1;
            in_normal = true;
            file_header_open = false;
            out.push(DLine {
                kind: DKind::Header,
                cstart: r.start,
                hunk,
            });
            continue;
        }
        if in_normal {
            let b = s.as_bytes();
            let skip = if b.get(1) == Some(&b' ') { 2 } else { 1 };
            match b.first() {
                Some(b'<') => push(DKind::Old, skip),
                Some(b'>') => push(DKind::New, skip),
                _ => {
                    if s != "---" {
                        in_normal = false;
                    }
                    push(DKind::Header, 0);
                }
            }
            continue;
        }
        if seen_unified {
            match s.as_bytes().first() {
                Some(b' ') => push(DKind::Ctx, 1),
                Some(b'-') => push(DKind::Old, 1),
                Some(b'+') => push(DKind::New, 1),
                _ => push(DKind::Header, 0),
            }
            continue;
        }
        push(DKind::Header, 0);
    }
    // The kind of each file: its header, else the `kind:` lines of its content.
    let mut seen: Vec<(bool, bool)> = vec![(false, false); ctx.section_header.len()];
    for (d, r) in out.iter().zip(raws) {
        if d.kind == DKind::Header {
            continue;
        }
        let s = text.get(d.cstart..r.end).unwrap_or("");
        let ind = indent(s);
        let mut col = ind;
        let b = s.as_bytes();
        while col < b.len() && b[col] == b'-' && b.get(col + 1) == Some(&b' ') {
            col += 2;
            while col < b.len() && b[col] == b' ' {
                col += 1;
            }
        }
        if let Some((key, after)) = parse_key(s, col) {
            if key == "kind" {
                let v = simple_scalar(s[after..].trim_start());
                let sec = ctx.hunk_section.get(d.hunk).copied().unwrap_or(0);
                if let Some(slot) = seen.get_mut(sec) {
                    if v == "Secret" {
                        slot.0 = true;
                    } else if col == 0 {
                        slot.1 = true;
                    }
                }
            }
        }
    }
    ctx.section_kind = ctx
        .section_header
        .iter()
        .zip(&seen)
        .map(|(h, &(secret, other))| match h {
            Some(k) => *k,
            None if secret => SecKind::Secret,
            None if other => SecKind::Other,
            None => SecKind::Unknown,
        })
        .collect();
    (out, ctx)
}

/// A replacement on one raw line: content bytes `[start, end)` become `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct LineEdit {
    start: usize,
    end: usize,
    text: String,
    count: usize,
}

fn mask_diff(text: &str, raws: &[RawLine]) -> (String, usize) {
    let (dlines, ctx) = classify_diff_lines(text, raws);
    let side = |want: DKind| -> Vec<SLine> {
        dlines
            .iter()
            .zip(raws)
            .enumerate()
            .filter(|(_, (d, _))| d.kind == DKind::Ctx || d.kind == want)
            .map(|(i, (d, r))| SLine {
                start: d.cstart,
                end: r.end.max(d.cstart),
                hunk: d.hunk,
                raw: i,
            })
            .collect()
    };
    let mut per_line: [Vec<Vec<LineEdit>>; 2] =
        [vec![Vec::new(); raws.len()], vec![Vec::new(); raws.len()]];
    for (si, want) in [DKind::Old, DKind::New].into_iter().enumerate() {
        let lines = side(want);
        let mut scan = Scan::new(text, &lines);
        scan.run();
        for m in scan.decide(Some(&ctx)) {
            let r = m.region;
            let Some(first) = lines.get(r.first) else {
                continue;
            };
            let first_end = if r.first == r.last { r.vend } else { first.end };
            per_line[si][first.raw].push(LineEdit {
                start: r.vstart,
                end: first_end,
                text: m.text,
                count: m.count,
            });
            for l in lines.iter().take(r.last + 1).skip(r.first + 1) {
                per_line[si][l.raw].push(LineEdit {
                    start: l.start,
                    end: l.end,
                    text: String::new(),
                    count: 0,
                });
            }
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut total = 0;
    for (i, (d, r)) in dlines.iter().zip(raws).enumerate() {
        let apply = |edits: &[LineEdit]| -> (String, usize) {
            let mut e = edits.to_vec();
            e.sort_by_key(|x| (x.start, std::cmp::Reverse(x.end)));
            let mut s = String::new();
            let mut pos = d.cstart;
            let mut n = 0;
            for x in e {
                if x.start < pos || x.end < x.start || x.end > r.end {
                    continue;
                }
                let Some(before) = text.get(pos..x.start) else {
                    continue;
                };
                if text.get(x.start..x.end).is_none() {
                    continue;
                }
                s.push_str(before);
                s.push_str(&x.text);
                pos = x.end;
                n += x.count;
            }
            s.push_str(text.get(pos..r.end).unwrap_or(""));
            (s, n)
        };
        let prefix = text.get(r.start..d.cstart).unwrap_or("");
        let eol = text.get(r.end..r.next).unwrap_or("");
        let (old, new) = (&per_line[0][i], &per_line[1][i]);
        match d.kind {
            DKind::Header => out.push_str(text.get(r.start..r.next).unwrap_or("")),
            DKind::Old | DKind::New => {
                let edits = if d.kind == DKind::Old { old } else { new };
                if edits.is_empty() {
                    out.push_str(text.get(r.start..r.next).unwrap_or(""));
                } else {
                    let (content, n) = apply(edits);
                    total += n;
                    out.push_str(prefix);
                    out.push_str(&content);
                    out.push_str(eol);
                }
            }
            DKind::Ctx => {
                if old.is_empty() && new.is_empty() {
                    out.push_str(text.get(r.start..r.next).unwrap_or(""));
                } else if old == new {
                    let (content, n) = apply(old);
                    total += n;
                    out.push_str(prefix);
                    out.push_str(&content);
                    out.push_str(eol);
                } else {
                    // The two sides mask this shared line differently: show it as removed and added.
                    let eol = if eol.is_empty() { "\n" } else { eol };
                    let (a, na) = apply(old);
                    let (b, nb) = apply(new);
                    total += na + nb;
                    out.push('-');
                    out.push_str(&a);
                    out.push_str(eol);
                    out.push('+');
                    out.push_str(&b);
                    out.push_str(text.get(r.end..r.next).unwrap_or(""));
                }
            }
        }
    }
    (out, total)
}

// ---------------------------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn b64(s: &str) -> String {
        STANDARD.encode(s)
    }

    /// The mask of a `data` value as written in masked text, decoded back to the mask string.
    fn unb64(s: &str) -> String {
        String::from_utf8(STANDARD.decode(s.trim()).unwrap()).unwrap()
    }

    fn yaml(text: &str) -> Value {
        yaml_to_json(&serde_yaml::from_str::<serde_yaml::Value>(text).unwrap(), 0)
    }

    #[test]
    fn mask_value_shape() {
        let m = mask_value(b"hunter2");
        assert!(m.starts_with("<secret: 7 bytes, sha256 "), "{m}");
        assert!(is_mask(&m));
        assert_eq!(m, mask_value(b"hunter2"));
        assert_ne!(m, mask_value(b"hunter3"));
        // sha256("") = e3b0c442...
        assert_eq!(mask_value(b""), "<secret: 0 bytes, sha256 e3b0c442>");
        assert_eq!(mask_value(b"a"), "<secret: 1 byte, sha256 ca978112>");
        assert!(is_already_masked(&b64(&m)));
        assert!(!is_mask("<secret: x bytes, sha256 e3b0c442>"));
    }

    #[test]
    fn object_data_and_string_data_mask_alike() {
        let mut s = json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "db", "annotations": {"a": "keep"}},
            "data": {"password": b64("hunter2"), "bad": "not base64!", "argo": "++++++++", "none": null},
            "stringData": {"password": "hunter2", "port": 5432}
        });
        let n = mask_secret_object(&mut s);
        assert_eq!(n, 4);
        assert_eq!(s["data"]["password"], json!(mask_value(b"hunter2")));
        assert_eq!(s["stringData"]["password"], json!(mask_value(b"hunter2")));
        assert_eq!(s["data"]["bad"], json!(mask_value(b"not base64!")));
        assert_eq!(s["data"]["argo"], json!("++++++++"));
        assert_eq!(s["data"]["none"], Value::Null);
        assert_eq!(s["stringData"]["port"], json!(mask_value(b"5432")));
        assert_eq!(s["metadata"]["annotations"]["a"], json!("keep"));
        // Idempotent.
        assert_eq!(mask_secret_object(&mut s), 0);
    }

    #[test]
    fn object_other_kinds_untouched_and_lists_walked() {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}});
        let mut c = cm.clone();
        assert_eq!(mask_secret_object(&mut c), 0);
        assert_eq!(c, cm);
        let other = json!({"apiVersion": "example.com/v1", "kind": "Secret", "data": {"a": "b"}});
        let mut o = other.clone();
        assert_eq!(mask_secret_object(&mut o), 0);
        assert_eq!(o, other);
        let mut list = json!({"apiVersion": "v1", "kind": "List", "items": [cm, {"kind": "Secret", "apiVersion": "v1", "data": {"k": b64("s3cr3t")}}]});
        assert_eq!(mask_secret_object(&mut list), 1);
        assert_eq!(list["items"][1]["data"]["k"], json!(mask_value(b"s3cr3t")));
        assert_eq!(list["items"][0]["data"]["a"], json!("b"));
    }

    #[test]
    fn object_last_applied() {
        let inner =
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x"}, "data": {"k": b64("topsecret")}})
                .to_string()
                + "\n";
        let mut s = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"annotations": {LAST_APPLIED_ANNOTATION: inner}}, "data": {"k": b64("topsecret")}});
        assert_eq!(mask_secret_object(&mut s), 2);
        let la = s["metadata"]["annotations"][LAST_APPLIED_ANNOTATION]
            .as_str()
            .unwrap();
        assert!(!la.contains(&b64("topsecret")));
        assert!(la.ends_with('\n'));
        let parsed: Value = serde_json::from_str(la).unwrap();
        assert_eq!(parsed["data"]["k"], json!(mask_value(b"topsecret")));
        // Not JSON: replaced whole.
        let mut g = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"annotations": {LAST_APPLIED_ANNOTATION: "garbage topsecret"}}});
        assert_eq!(mask_secret_object(&mut g), 1);
        assert_eq!(
            g["metadata"]["annotations"][LAST_APPLIED_ANNOTATION],
            json!(mask_value(b"garbage topsecret"))
        );
    }

    #[test]
    fn pointers() {
        assert!(is_secret_pointer("", "Secret", "/data/password"));
        assert!(is_secret_pointer("", "Secret", "/data"));
        assert!(is_secret_pointer("", "Secret", "/stringData"));
        assert!(is_secret_pointer("", "Secret", "/stringData/a~1b"));
        assert!(is_secret_pointer(
            "",
            "Secret",
            "/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration"
        ));
        assert!(is_secret_pointer(
            "",
            "Secret",
            "/metadata/annotations/kubectl.kubernetes.io/last-applied-configuration"
        ));
        assert!(is_secret_pointer("core", "Secret", "#/data/x"));
        assert!(!is_secret_pointer(
            "",
            "Secret",
            "/metadata/annotations/other"
        ));
        assert!(!is_secret_pointer("", "Secret", "/type"));
        assert!(!is_secret_pointer("", "Secret", ""));
        assert!(!is_secret_pointer("", "ConfigMap", "/data/x"));
        assert!(!is_secret_pointer("bitnami.com", "Secret", "/data/x"));
        assert!(may_contain_secret("", "Secret", ""));
        assert!(may_contain_secret("", "Secret", "/metadata"));
        assert!(may_contain_secret("", "Secret", "/metadata/annotations"));
        assert!(!may_contain_secret("", "Secret", "/metadata/labels"));
        assert!(!may_contain_secret("", "ConfigMap", ""));
    }

    const SECRET_YAML: &str = "\
# leading comment
apiVersion: v1
kind: Secret # the kind
metadata:
  name: db   # name comment
  namespace: prod
type: Opaque
data:
  password: aHVudGVyMg==   # hunter2
  quoted: \"c2VjcmV0LXZhbHVl\"
  empty: \"\"
  argo: ++++++++
stringData:
  plain: hunter2
  single: 'it''s secret'
  block: |
    line one
    line two
  folded: >-
    folded
    text
  next:
    on-the-next-line
  nul: null
---
apiVersion: v1
kind: ConfigMap  # not a secret
metadata:
  name: cfg
data:
  password: aHVudGVyMg==
";

    #[test]
    fn yaml_secret_masked_in_place() {
        let (out, n) = mask_secrets_in_text(SECRET_YAML);
        assert_eq!(n, 8, "{out}");
        for plain in [
            "c2VjcmV0LXZhbHVl",
            "line one",
            "line two",
            "folded\n",
            "    text",
            "on-the-next-line",
            "it''s secret",
            "  plain: hunter2",
        ] {
            assert!(!out.contains(plain), "{plain} in {out}");
        }
        // Comments, keys, indentation and the ConfigMap are byte-identical.
        assert!(out.starts_with(
            "# leading comment\napiVersion: v1\nkind: Secret # the kind\nmetadata:\n  name: db   # name comment\n"
        ));
        assert!(out.contains("   # hunter2\n"));
        assert!(out.contains("  argo: ++++++++\n"));
        assert!(out.contains("  nul: null\n"));
        let cm = SECRET_YAML.split("---\n").nth(1).unwrap();
        assert!(out.ends_with(&format!("---\n{cm}")));
        // Still YAML, and equal values keep equal masks across data and stringData.
        let doc = out.split("---\n").next().unwrap();
        let v = yaml(doc);
        assert_eq!(
            unb64(v["data"]["password"].as_str().unwrap()),
            v["stringData"]["plain"].as_str().unwrap()
        );
        assert_eq!(v["stringData"]["plain"], json!(mask_value(b"hunter2")));
        assert_eq!(
            v["stringData"]["block"],
            json!(mask_value(b"line one\nline two\n"))
        );
        assert_eq!(v["stringData"]["folded"], json!(mask_value(b"folded text")));
        assert_eq!(v["stringData"]["single"], json!(mask_value(b"it's secret")));
        assert_eq!(
            v["stringData"]["next"],
            json!(mask_value(b"on-the-next-line"))
        );
        assert_eq!(
            unb64(v["data"]["quoted"].as_str().unwrap()),
            mask_value(b"secret-value")
        );
        assert_eq!(unb64(v["data"]["empty"].as_str().unwrap()), mask_value(b""));
        // Masking again changes nothing.
        assert_eq!(mask_secrets_in_text(&out), (out.clone(), 0));
    }

    #[test]
    fn yaml_sorted_keys_and_lists() {
        let text = "apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n    token: dG9rZW4tdmFsdWU=\n  kind: Secret\n  metadata:\n    name: a\n- apiVersion: v1\n  data:\n    token: dG9rZW4tdmFsdWU=\n  kind: ConfigMap\nkind: List\n";
        let (out, n) = mask_secrets_in_text(text);
        assert_eq!(n, 1);
        assert_eq!(out.matches("dG9rZW4tdmFsdWU=").count(), 1, "{out}");
        assert!(out.contains("  kind: ConfigMap\n"));
        let v = yaml(&out);
        assert_eq!(
            unb64(v["items"][0]["data"]["token"].as_str().unwrap()),
            mask_value(b"token-value")
        );
    }

    #[test]
    fn yaml_flow_style_and_fallback() {
        let text = "kind: Secret\napiVersion: v1\ndata: {a: YWJj, b: \"ZGVm\"}\n";
        let (out, n) = mask_secrets_in_text(text);
        assert_eq!(n, 2, "{out}");
        assert!(
            out.starts_with("kind: Secret\napiVersion: v1\ndata: {\""),
            "{out}"
        );
        assert!(!out.contains("YWJj") && !out.contains("ZGVm"));
        // A whole flow-style Secret is not followed by the line scanner: the document is rendered as masked JSON.
        let text =
            "# c\n{kind: Secret, apiVersion: v1, data: {a: YWJjZGVmZ2g=}}\n---\nkind: ConfigMap\n";
        let (out, n) = mask_secrets_in_text(text);
        assert_eq!(n, 1, "{out}");
        assert!(!out.contains("YWJjZGVmZ2g="));
        assert!(out.ends_with("---\nkind: ConfigMap\n"));
        // Aliases: the value lives elsewhere.
        let text = "x: &pw c2VjcmV0\n---\nkind: Secret\ndata:\n  a: *pw\n  b: c2VjcmV0\n";
        let (out, _) = mask_secrets_in_text(text);
        let second = out.split("---\n").nth(1).unwrap();
        assert!(!second.contains("c2VjcmV0"), "{out}");
    }

    #[test]
    fn yaml_last_applied_annotation() {
        let la = json!({"apiVersion":"v1","kind":"Secret","metadata":{"name":"db"},"data":{"password": b64("hunter22")},"stringData":{"x":"plainvalue"}}).to_string();
        let text = format!("apiVersion: v1\nkind: Secret\nmetadata:\n  annotations:\n    {LAST_APPLIED_ANNOTATION}: |\n      {la}\n    other: keep\n  name: db\ndata:\n  password: {}\n", b64("hunter22"));
        let (out, n) = mask_secrets_in_text(&text);
        assert_eq!(n, 3, "{out}");
        assert!(
            !out.contains(&b64("hunter22")) && !out.contains("plainvalue"),
            "{out}"
        );
        assert!(out.contains("    other: keep\n  name: db\n"));
        let v = yaml(&out);
        let inner: Value = serde_json::from_str(
            v["metadata"]["annotations"][LAST_APPLIED_ANNOTATION]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(inner["data"]["password"], v["data"]["password"]);
        assert_eq!(inner["stringData"]["x"], json!(mask_value(b"plainvalue")));
        // The annotation of a non-Secret whose JSON is a Secret is masked too; one of a ConfigMap is not.
        let cm_la = json!({"kind":"ConfigMap","data":{"a":"visible"}}).to_string();
        let text = format!("kind: ConfigMap\nmetadata:\n  annotations:\n    {LAST_APPLIED_ANNOTATION}: '{cm_la}'\n");
        assert_eq!(mask_secrets_in_text(&text), (text.clone(), 0));
    }

    #[test]
    fn json_documents() {
        let secret = json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "db", "annotations": {LAST_APPLIED_ANNOTATION: json!({"kind":"Secret","apiVersion":"v1","data":{"p": b64("hunter2")}}).to_string()}},
            "data": {"p": b64("hunter2")},
            "stringData": {"q": "hunter2"}
        });
        let pretty = serde_json::to_string_pretty(&json!({"apiVersion": "v1", "kind": "List", "items": [secret, {"kind": "ConfigMap", "data": {"p": "hunter2"}}]})).unwrap();
        let (out, n) = mask_secrets_in_text(&pretty);
        assert_eq!(n, 3, "{out}");
        assert!(!out.contains(&b64("hunter2")));
        assert_eq!(out.matches("hunter2").count(), 1); // the ConfigMap's
        let v: Value = serde_json::from_str(&out).unwrap();
        let s = &v["items"][0];
        assert_eq!(
            unb64(s["data"]["p"].as_str().unwrap()),
            s["stringData"]["q"].as_str().unwrap()
        );
        // Only the values changed: same number of lines.
        assert_eq!(out.lines().count(), pretty.lines().count());
        // Compact, several values in a row.
        let compact = format!(
            "{}\n{}\n",
            json!({"kind":"Secret","data":{"a":b64("zzzzzz")}}),
            json!({"kind":"ConfigMap"})
        );
        let (out, n) = mask_secrets_in_text(&compact);
        assert_eq!(n, 1);
        assert!(!out.contains(&b64("zzzzzz")));
        assert!(out.ends_with("\n{\"kind\":\"ConfigMap\"}\n"));
    }

    #[test]
    fn crlf_kept() {
        let text = "kind: Secret\r\napiVersion: v1\r\ndata:\r\n  a: YWJjZA==\r\n  b: ZGVm\r\n";
        let (out, n) = mask_secrets_in_text(text);
        assert_eq!(n, 2);
        assert_eq!(out.matches("\r\n").count(), 5);
        assert!(!out.contains("YWJjZA==") && !out.contains("ZGVm\r"));
    }

    #[test]
    fn kubectl_diff_already_masked_untouched() {
        let text = "diff -u -N /tmp/LIVE-1/v1.Secret.default.db /tmp/MERGED-2/v1.Secret.default.db\n--- /tmp/LIVE-1/v1.Secret.default.db\t2024-01-01\n+++ /tmp/MERGED-2/v1.Secret.default.db\t2024-01-01\n@@ -1,6 +1,6 @@\n apiVersion: v1\n data:\n-  password: '*** (before)'\n+  password: '*** (after)'\n   user: '***'\n kind: Secret\n metadata:\n";
        assert_eq!(mask_secrets_in_text(text), (text.to_string(), 0));
        let argo = "===== /Secret default/db ======\n9c9\n<   password: ++++++++\n---\n>   password: ++++++++++++\n";
        assert_eq!(mask_secrets_in_text(argo), (argo.to_string(), 0));
    }

    #[test]
    fn argo_normal_diff_masked() {
        let text = "===== /Secret default/db ======\n9c9\n<   password: aHVudGVyMg==\n---\n>   password: aHVudGVyMw==\n===== apps/Deployment default/web ======\n20c20\n<         image: nginx:1.1\n---\n>         image: nginx:1.2\n";
        let (out, n) = mask_secrets_in_text(text);
        assert_eq!(n, 2, "{out}");
        assert!(!out.contains("aHVudGVyMg==") && !out.contains("aHVudGVyMw=="));
        assert!(out.contains(&format!("<   password: {}\n", b64(&mask_value(b"hunter2")))));
        assert!(out.contains("<         image: nginx:1.1\n---\n>         image: nginx:1.2\n"));
    }

    #[test]
    fn argo_unified_diff_uses_header_kind() {
        let text = "===== /Secret prod/db ======\n--- /tmp/a/db-live.yaml\n+++ /tmp/a/db\n@@ -7,3 +7,3 @@\n   user: YWRtaW4=\n-  password: aHVudGVyMg==\n+  password: aHVudGVyMw==\n===== /ConfigMap prod/c ======\n--- /tmp/a/c-live.yaml\n+++ /tmp/a/c\n@@ -7,2 +7,2 @@\n-  password: aHVudGVyMg==\n+  password: aHVudGVyMw==\n";
        let (out, n) = mask_secrets_in_text(text);
        assert_eq!(n, 3, "{out}");
        assert_eq!(out.matches("aHVudGVy").count(), 2, "{out}");
        assert!(!out.contains("YWRtaW4="));
        assert!(out
            .ends_with("@@ -7,2 +7,2 @@\n-  password: aHVudGVyMg==\n+  password: aHVudGVyMw==\n"));
    }

    #[test]
    fn git_diff_masked() {
        // kind is outside the hunk; the hunk shows `data:` as context.
        let text = "diff --git a/secret.yaml b/secret.yaml\nindex 1..2 100644\n--- a/secret.yaml\n+++ b/secret.yaml\n@@ -5,4 +5,4 @@ metadata:\n   namespace: prod\n data:\n-  password: aHVudGVyMg==\n+  password: aHVudGVyMw==\n   user: YWRtaW4=\n";
        let (out, n) = mask_secrets_in_text(text);
        assert_eq!(n, 3, "{out}");
        assert!(!out.contains("aHVudGVy") && !out.contains("YWRtaW4="));
        assert!(out.contains("   namespace: prod\n data:\n"));
        // Cut-off lines with the hunk context naming `data:`.
        let text =
            "--- a/s.yaml\n+++ b/s.yaml\n@@ -9,2 +9,2 @@ data:\n-  password: aHVudGVyMg==\n+  password: aHVudGVyMw==\n";
        let (out, n) = mask_secrets_in_text(text);
        assert_eq!(n, 2, "{out}");
        // A Deployment's diff is untouched.
        let dep = "--- a/d.yaml\n+++ b/d.yaml\n@@ -1,4 +1,4 @@\n kind: Deployment\n spec:\n-  replicas: 2\n+  replicas: 3\n   paused: false\n";
        assert_eq!(mask_secrets_in_text(dep), (dep.to_string(), 0));
        // A ConfigMap whose kind is visible elsewhere in the file is untouched.
        let cm = "--- a/c.yaml\n+++ b/c.yaml\n@@ -1,2 +1,2 @@\n apiVersion: v1\n kind: ConfigMap\n@@ -8,2 +8,2 @@\n data:\n-  a: one\n+  a: two\n";
        assert_eq!(mask_secrets_in_text(cm), (cm.to_string(), 0));
    }

    #[test]
    fn diff_context_line_split_when_sides_differ() {
        let text = "--- a/s.yaml\n+++ b/s.yaml\n@@ -1,6 +1,6 @@\n apiVersion: v1\n kind: Secret\n stringData:\n   key: |\n-    old-secret-line\n+    new-secret-line\n";
        let (out, n) = mask_secrets_in_text(text);
        assert!(
            !out.contains("old-secret-line") && !out.contains("new-secret-line"),
            "{out}"
        );
        assert_eq!(n, 2);
        let old_mask = mask_value(b"old-secret-line\n");
        let new_mask = mask_value(b"new-secret-line\n");
        assert!(
            out.contains(&format!(
                "-  key: \"{old_mask}\"\n+  key: \"{new_mask}\"\n-\n+\n"
            )),
            "{out}"
        );
        assert!(out.starts_with(
            "--- a/s.yaml\n+++ b/s.yaml\n@@ -1,6 +1,6 @@\n apiVersion: v1\n kind: Secret\n stringData:\n"
        ));
    }

    #[test]
    fn plain_text_untouched() {
        for t in [
            "",
            "\n",
            "hello: world\n",
            "just some words\nkind: Secret\n",
            "Secret\n---\n...\n",
            "- a\n- b: c\n",
        ] {
            assert_eq!(mask_secrets_in_text(t).0, t);
        }
    }

    // --- properties -----------------------------------------------------------------------------------------

    fn word() -> impl Strategy<Value = String> {
        "[a-z][a-zA-Z0-9]{0,10}"
    }

    /// Values that cannot be confused with anything else in the text: 12+ alphanumerics.
    fn secret_value() -> impl Strategy<Value = String> {
        "[A-Za-z0-9]{12,30}"
    }

    fn comment() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(String::new()),
            "[ -~]{0,20}".prop_map(|c| format!("  # {c}"))
        ]
    }

    /// A random non-Secret document: kinds, keys and values of every style, comments.
    fn other_doc() -> impl Strategy<Value = String> {
        (
            prop_oneof![
                Just("ConfigMap"),
                Just("Deployment"),
                Just("SealedSecret"),
                Just("Service")
            ],
            prop::collection::vec((word(), "[ -~]{0,20}", 0..4usize, comment()), 0..8),
        )
            .prop_map(|(kind, entries)| {
                let mut s = format!("apiVersion: v1\nkind: {kind}\nmetadata:\n  name: x\ndata:\n");
                for (k, v, style, c) in entries {
                    let v = v.replace('\'', "''");
                    match style {
                        0 => s.push_str(&format!("  {k}: '{v}'{c}\n")),
                        1 => s.push_str(&format!("  {k}: |\n    {}\n", v.trim())),
                        2 => s.push_str(&format!("  # {v}\n")),
                        _ => s.push_str(&format!("  {k}: \"{}\"{c}\n", v.replace(['\\', '"'], ""))),
                    }
                }
                s
            })
    }

    /// A random Secret: values in random fields and styles, random key order. Returns the text and the values.
    fn secret_doc() -> impl Strategy<Value = (String, Vec<String>)> {
        (
            prop::collection::vec(
                (word(), secret_value(), 0..5usize, any::<bool>(), comment()),
                1..6,
            ),
            any::<bool>(),
            prop_oneof![Just(""), Just("- "),],
        )
            .prop_map(|(entries, data_first, dash)| {
                let pad = if dash.is_empty() { "" } else { "  " };
                let mut data = format!("{pad}data:\n");
                let mut string_data = format!("{pad}stringData:\n");
                let mut values = Vec::new();
                let mut keys = std::collections::BTreeSet::new();
                for (k, v, style, in_data, c) in entries {
                    // A key twice in one map is not YAML a cluster would hold.
                    if !keys.insert((in_data, k.clone())) {
                        continue;
                    }
                    values.push(v.clone());
                    let target = if in_data { &mut data } else { &mut string_data };
                    let shown = if in_data { b64(&v) } else { v.clone() };
                    match style {
                        0 => target.push_str(&format!("{pad}  {k}: {shown}{c}\n")),
                        1 => target.push_str(&format!("{pad}  {k}: \"{shown}\"{c}\n")),
                        2 => target.push_str(&format!("{pad}  {k}: '{shown}'{c}\n")),
                        3 => target.push_str(&format!("{pad}  {k}: |-{c}\n{pad}    {shown}\n")),
                        _ => target.push_str(&format!("{pad}  {k}:\n{pad}    {shown}\n")),
                    }
                }
                let head = format!("{dash}apiVersion: v1\n{pad}metadata:\n{pad}  name: s\n");
                let kind = format!("{pad}kind: Secret\n");
                let body = if data_first {
                    format!("{data}{kind}{string_data}")
                } else {
                    format!("{kind}{string_data}{data}")
                };
                let text = if dash.is_empty() {
                    format!("{head}{body}")
                } else {
                    format!("kind: List\nitems:\n{head}{body}")
                };
                (text, values)
            })
    }

    /// The same Secret with every value changed (reversed, plus a letter).
    fn changed(text: &str, values: &[String]) -> (String, Vec<String>) {
        let mut out = text.to_string();
        let mut new_values = Vec::new();
        for v in values {
            let nv: String = v.chars().rev().chain(std::iter::once('Q')).collect();
            out = out.replace(&b64(v), &b64(&nv)).replace(v.as_str(), &nv);
            new_values.push(nv);
        }
        (out, new_values)
    }

    /// Diffs of two texts with the same lines but changed values, in three styles.
    fn diffs(old: &str, new: &str) -> Vec<String> {
        let o: Vec<&str> = old.lines().collect();
        let n: Vec<&str> = new.lines().collect();
        let mut full = format!(
            "--- a/s.yaml\n+++ b/s.yaml\n@@ -1,{} +1,{} @@\n",
            o.len(),
            n.len()
        );
        let mut normal = String::from("===== /Secret ns/s ======\n");
        let mut zero = String::from("diff -u -N /tmp/LIVE-1/v1.Secret.ns.s /tmp/MERGED-2/v1.Secret.ns.s\n--- /tmp/LIVE-1/v1.Secret.ns.s\n+++ /tmp/MERGED-2/v1.Secret.ns.s\n");
        for (k, (a, b)) in o.iter().zip(&n).enumerate() {
            if a == b {
                full.push_str(&format!(" {a}\n"));
            } else {
                full.push_str(&format!("-{a}\n+{b}\n"));
                normal.push_str(&format!("{0}c{0}\n< {a}\n---\n> {b}\n", k + 1));
                zero.push_str(&format!("@@ -{0} +{0} @@\n-{a}\n+{b}\n", k + 1));
            }
        }
        vec![full, normal, zero]
    }

    proptest! {
        // PROPTEST_CASES raises the number of cases for a longer run.
        #![proptest_config(ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(128),
            ..ProptestConfig::default()
        })]

        #[test]
        fn secret_values_never_survive_in_diffs((secret, values) in secret_doc()) {
            let (new, new_values) = changed(&secret, &values);
            for d in diffs(&secret, &new) {
                let (out, _) = mask_secrets_in_text(&d);
                for v in values.iter().chain(&new_values) {
                    prop_assert!(!out.contains(v.as_str()), "{} survived in {}", v, out);
                    prop_assert!(!out.contains(&b64(v)), "{} survived in {}", v, out);
                }
                prop_assert_eq!(out.lines().filter(|l| l.starts_with("@@") || l.starts_with("=====")).count(),
                    d.lines().filter(|l| l.starts_with("@@") || l.starts_with("=====")).count());
            }
        }

        #[test]
        fn never_panics(s in any::<String>()) {
            let _ = mask_secrets_in_text(&s);
        }

        #[test]
        fn never_panics_yamlish(s in "(kind: Secret\n|data:\n|stringData:\n|  [a-z]: [\"'|>{}\\[\\]a-z0-9+/= #-]{0,8}\n|---\n|@@ -1 \\+1 @@\n|[-+ ]|  |\t|\"|'|[{}\\[\\]]|#|\n){0,40}") {
            let (out, _) = mask_secrets_in_text(&s);
            let _ = mask_secrets_in_text(&out);
        }

        #[test]
        fn never_panics_on_damaged_manifests(
            base in prop_oneof![Just(0usize), Just(1), Just(2)],
            edits in prop::collection::vec((any::<prop::sample::Index>(), "[ -~\n\t\r\u{e9}\u{1F600}]{0,6}", 0..4usize), 1..12),
        ) {
            let samples = [
                SECRET_YAML.to_string(),
                "--- a/s.yaml\n+++ b/s.yaml\n@@ -1,6 +1,6 @@\n apiVersion: v1\n kind: Secret\n stringData:\n   key: |\n-    old\n+    new\n   x: 'y'\n".to_string(),
                serde_json::to_string_pretty(&json!({"kind": "Secret", "apiVersion": "v1", "metadata": {"annotations": {LAST_APPLIED_ANNOTATION: "{\"kind\":\"Secret\",\"data\":{\"a\":\"YQ==\"}}"}}, "data": {"a": "YWJj"}})).unwrap(),
            ];
            let mut text = samples[base].clone();
            for (at, insert, cut) in edits {
                let mut pos = at.index(text.len() + 1);
                while !text.is_char_boundary(pos) { pos -= 1; }
                let mut end = (pos + cut).min(text.len());
                while !text.is_char_boundary(end) { end += 1; }
                text.replace_range(pos..end, &insert);
            }
            let (out, _) = mask_secrets_in_text(&text);
            let _ = mask_secrets_in_text(&out);
        }

        #[test]
        fn non_secret_documents_byte_identical(docs in prop::collection::vec(other_doc(), 1..4)) {
            let text = docs.join("---\n");
            let (out, n) = mask_secrets_in_text(&text);
            prop_assert_eq!(n, 0);
            prop_assert_eq!(out, text);
        }

        #[test]
        fn secret_values_never_survive((secret, values) in secret_doc(), before in other_doc(), after in other_doc()) {
            let text = format!("{before}---\n{secret}---\n{after}");
            let (out, n) = mask_secrets_in_text(&text);
            prop_assert_eq!(n, values.len(), "{}", out);
            for v in &values {
                prop_assert!(!out.contains(v.as_str()), "{} survived in {}", v, out);
                prop_assert!(!out.contains(&b64(v)), "{} survived in {}", v, out);
            }
            // Everything but the Secret is byte-identical.
            let head = format!("{before}---\n");
            let tail = format!("---\n{after}");
            prop_assert!(out.starts_with(&head));
            prop_assert!(out.ends_with(&tail));
            // Idempotent.
            prop_assert_eq!(mask_secrets_in_text(&out), (out.clone(), 0));
            // Still YAML; data masks decode to the stringData mask of the same value.
            let doc = out.split("---\n").nth(1).unwrap();
            let v = yaml(doc);
            let obj = if v["kind"] == json!("List") { v["items"][0].clone() } else { v };
            for field in ["data", "stringData"] {
                if let Some(m) = obj[field].as_object() {
                    for val in m.values() {
                        let s = val.as_str().unwrap();
                        let mask = if field == "data" { unb64(s) } else { s.to_string() };
                        prop_assert!(is_mask(&mask), "{}", mask);
                        prop_assert!(values.iter().any(|p| mask_value(p.as_bytes()) == mask));
                    }
                }
            }
        }
    }
}
