//! Masking of Kubernetes Secret values.
//!
//! Manifests pasted into drift-doctor often hold Secrets, and what users share (links, share files, reports)
//! must not carry their values. A value is replaced by a *mask*: a numbered stand-in such as `<secret 2>`, the
//! number given in order of first appearance within one report or link (as Argo CD's `HideSecretData` numbers its
//! runs of `+`). Equal values get the same mask and different values different masks, so "Git and live differ"
//! stays visible; a mask says nothing else about the value (no length, no hash: a guessed password cannot be
//! confirmed from it). [`Masks`] holds the numbering of one report or link.
//!
//! The rule: every value of any object whose kind is Secret (in any letter case), in any field except
//! `apiVersion`, `kind`, `type`, `immutable` and `metadata`, is masked, and so is the last-applied annotation of
//! such an object (it holds the data). Text whose Secret the scanner cannot follow is masked whole.
//!
//! Two layers:
//! - [`mask_secret_object`] / [`is_secret_pointer`] / [`mask_pointer_value`] work on parsed objects (serde_json
//!   values) for reports; there `data` and `stringData` values both become the readable mask.
//! - [`mask_secrets_in_text`] works on pasted text (YAML, JSON, diff output) without reformatting anything
//!   else; there a `data` value becomes the *base64 encoding* of the mask so the masked text is still a valid
//!   manifest and still compares the way the original did (`stringData: {k: v}` against `data: {k: base64(v)}`).
//!   Values already masked (ours, Argo CD's, kubectl's) are left alone, so masking twice changes nothing.
//!
//! Everything here is total: no input makes it panic, and work is linear in the input (plus YAML/JSON parsing of
//! single values and documents).

#![warn(missing_docs)]

pub mod credentials;
mod diff;
mod json;
mod object;
#[cfg(test)]
mod tests;
mod text;
mod yaml_scan;

use diff::*;
use json::*;
use object::*;
use text::*;
use yaml_scan::*;

pub use object::{
    is_secret_kind, is_secret_pointer, kind_for_masking, mask_pointer_value, mask_secret_object,
    may_contain_secret,
};
pub use text::mask_secrets_in_text;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Mutex, MutexGuard};

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use serde_json::{Map, Value};

pub use crate::k8s::LAST_APPLIED_ANNOTATION;

/// How the API server reads a Secret's `data` (Go's `encoding/json` decodes `[]byte` with
/// `base64.StdEncoding`): standard alphabet, padding required, non-zero trailing bits accepted;
/// `\r` and `\n` are skipped before decoding. Anything else is rejected by the API server.
const API_SERVER_B64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical)
        .with_decode_allow_trailing_bits(true),
);

/// Deepest nesting that the recursive walks follow.
pub(super) const MAX_DEPTH: usize = crate::limits::MAX_WALK_DEPTH;

// ---------------------------------------------------------------------------------------------------------------
// Masks
// ---------------------------------------------------------------------------------------------------------------

const MASK_PREFIX: &str = "<secret ";

/// The numbering of the Secret values of one report or link: each distinct value gets the next number the first
/// time it is seen. Numbers already used by masks in the input are never given to a new value, so a link opened,
/// edited and shared again keeps its masks and adds new ones.
#[derive(Default)]
pub struct Masks {
    // A lock, not a cell: the resources of one report are compared on
    // several threads, and every value is numbered before they start.
    numbers: Mutex<Numbering>,
}

/// Shows how many masks were given, never the values behind them.
impl std::fmt::Debug for Masks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.numbering();
        f.debug_struct("Masks")
            .field("values", &n.by_value.len())
            .field("highest", &n.highest)
            .finish()
    }
}

#[derive(Default)]
struct Numbering {
    by_value: HashMap<Vec<u8>, usize>,
    highest: usize,
}

impl Masks {
    fn numbering(&self) -> MutexGuard<'_, Numbering> {
        self.numbers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The numbering of one report or link of these texts (same texts, same order, so the report and the link of
    /// one state agree): masks already in the texts keep their numbers; then, text by text, the Secrets of the
    /// objects that parse are numbered in the order of their kind, namespace and name (so the order of documents
    /// does not change the masks), then whatever only the text scanner finds in that text, in text order.
    pub fn for_texts(texts: &[&str]) -> Masks {
        let parsed: Vec<Vec<crate::input::Document>> = texts
            .iter()
            .map(|t| crate::input::parse_side(t, crate::input::Side::Git).unwrap_or_default())
            .collect();
        let sides: Vec<(SideText<'_>, &[crate::input::Document])> = texts
            .iter()
            .zip(&parsed)
            .map(|(t, d)| (SideText::Held(t), d.as_slice()))
            .collect();
        Masks::reserving(texts).numbering_sides(&sides)
    }

    /// The first step of [`Masks::for_texts`]: the masks these texts hold
    /// already keep their numbers. Once it is done, a text read into objects
    /// is no longer needed (see [`Masks::numbering_sides`]), so a caller can
    /// free a large one before the comparison starts.
    pub fn reserving(texts: &[&str]) -> Masks {
        let masks = Masks::default();
        for text in texts {
            masks.reserve_masks_in(text);
        }
        masks
    }

    /// The second step of [`Masks::for_texts`], for texts already parsed, on
    /// masks made by [`Masks::reserving`] from every side's text: each
    /// side's objects, and its text when no object was read from it (a
    /// [`SideText::Freed`] text is given up).
    pub fn numbering_sides(self, sides: &[(SideText<'_>, &[crate::input::Document])]) -> Masks {
        let masks = self;
        // Text by text, so that the numbering of a list of texts begins with that of any of its prefixes (a report
        // of git and live, a link of git, live, diff and settings).
        for (text, docs) in sides {
            let spells_secret = !docs.is_empty()
                && match text {
                    SideText::Held(text) => may_spell_secret(text),
                    SideText::Freed { may_spell_secret } => *may_spell_secret,
                };
            // Only objects that can hold a Secret (or a last-applied
            // annotation of one) take part: none, when the text cannot
            // spell the word. Looked for on every core: a big side holds
            // thousands of objects.
            let walked: &[crate::input::Document] = if spells_secret { docs } else { &[] };
            let mut objects: Vec<(String, &Value)> = crate::parallel::map_ordered(
                walked.iter().collect(),
                PARALLEL_OBJECTS,
                |_| 1,
                |d: &crate::input::Document| {
                    mentions_secret(&d.object).then(|| (object_order(&d.object), &d.object))
                },
            )
            .into_iter()
            .flatten()
            .collect();
            crate::sorting::sort_by(&mut objects, |a, b| a.0.cmp(&b.0));
            for (_, o) in objects {
                mask_secret_object(&mut o.clone(), &masks);
            }
            // The text scanner finds what no parsed object shows (a text that
            // does not read as YAML: diff output, a broken Secret); a text read
            // into objects holds nothing more, and scanning it again would
            // cost more than the whole comparison.
            if let (SideText::Held(text), true) = (text, docs.is_empty()) {
                let _ = mask_secrets_in_text(text, &masks);
            }
        }
        masks
    }

    /// The mask of one plain value; a value that is itself a mask stays as it is.
    pub fn mask(&self, plain: &[u8]) -> String {
        if let Some(m) = std::str::from_utf8(plain).ok().filter(|s| is_mask(s)) {
            return m.to_string();
        }
        let mut n = self.numbering();
        let number = match n.by_value.get(plain) {
            Some(&k) => k,
            None => {
                n.highest += 1;
                let k = n.highest;
                n.by_value.insert(plain.to_vec(), k);
                k
            }
        };
        format!("{MASK_PREFIX}{number}>")
    }

    /// Keep the numbers of masks already present in `text` (plain or base64) for the values they stand for.
    pub fn reserve_masks_in(&self, text: &str) {
        // Texts of megabytes are searched here at every analysis: `memmem`
        // reads many bytes at a time where `str::find` reads one. A match of
        // these ASCII prefixes always starts on a character boundary.
        let mut highest = memchr::memmem::find_iter(text.as_bytes(), MASK_PREFIX.as_bytes())
            .filter_map(|at| mask_number(&text[at + MASK_PREFIX.len()..]))
            .max()
            .unwrap_or(0);
        // A base64 mask always holds its prefix: most texts hold none, and
        // then need no walk word by word.
        let words = if memchr::memmem::find(text.as_bytes(), B64_MASK_PREFIX.as_bytes()).is_some() {
            text
        } else {
            ""
        };
        for word in
            words.split(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '='))
        {
            if word.starts_with(B64_MASK_PREFIX) {
                if let Some(m) = decode_secret_data(word).and_then(|d| String::from_utf8(d).ok()) {
                    highest = highest.max(
                        m.strip_prefix(MASK_PREFIX)
                            .and_then(mask_number)
                            .unwrap_or(0),
                    );
                }
            }
        }
        let mut n = self.numbering();
        n.highest = n.highest.max(highest);
    }
}

/// A side's text as [`Masks::numbering_sides`] needs it.
#[derive(Debug, Clone, Copy)]
pub enum SideText<'t> {
    /// Still held: the text scanner reads it when no object came from it.
    Held(&'t str),
    /// Given up once read into objects, with what [`may_spell_secret`] said
    /// of it.
    Freed {
        /// Whether the text could spell "secret".
        may_spell_secret: bool,
    },
}

/// Whether a key or string read from `text` could hold "secret" in any
/// case: the text holds the word, or an escape that writes a letter by its
/// code (`\x`, `\u`, `\U`) or joins two lines (`\` before a line break:
/// LF, CR, and NEL, LS or PS, which libyaml takes for breaks too), the
/// only ways YAML and JSON spell a letter other than as itself (tags such
/// as `!!binary` leave the text as it is written). When it cannot, none of
/// its objects is a Secret or mentions one, and the numbering walks none.
pub fn may_spell_secret(text: &str) -> bool {
    let bytes = text.as_bytes();
    // Each backslash, found many bytes at a time, is looked at with the
    // bytes after it: YAML as kubectl and argocd print it seldom holds one,
    // and JSON's escaped quotes are each a quick look.
    let escapes_a_letter = memchr::memchr_iter(b'\\', bytes).any(|at| {
        matches!(
            &bytes[at + 1..],
            [b'x' | b'X' | b'u' | b'U' | b'\n' | b'\r', ..]
                | [0xc2, 0x85, ..]
                | [0xe2, 0x80, 0xa8 | 0xa9, ..]
        )
    });
    escapes_a_letter || holds_secret_in_any_case(bytes)
}

/// Whether `bytes` holds "secret" in any case. A side's text is megabytes:
/// the word is looked for at each `c` (found many bytes at a time), its
/// third letter, rarer in manifests than `s` and `e`, which spares
/// lower-casing the text.
fn holds_secret_in_any_case(bytes: &[u8]) -> bool {
    memchr::memchr2_iter(b'c', b'C', bytes).any(|at| {
        at >= 2
            && bytes
                .get(at - 2..at + 4)
                .is_some_and(|word| word.eq_ignore_ascii_case(b"secret"))
    })
}

/// Whether any key or string of `v` contains "secret" in any case (what
/// the object's text would show), without writing the text.
fn mentions_secret(v: &Value) -> bool {
    let has = |s: &str| holds_secret_in_any_case(s.as_bytes());
    match v {
        Value::String(s) => has(s),
        Value::Array(items) => items.iter().any(mentions_secret),
        Value::Object(m) => m.iter().any(|(k, v)| has(k) || mentions_secret(v)),
        _ => false,
    }
}

/// Kind, namespace, name, then the whole object: an order of objects that does not depend on the text.
fn object_order(o: &Value) -> String {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
    let meta = o.get("metadata");
    format!(
        "{}\0{}\0{}\0{}",
        text(o.get("kind")),
        text(meta.and_then(|m| m.get("namespace"))),
        text(meta.and_then(|m| m.get("name"))),
        o
    )
}

/// Below this many objects, looking for Secrets on one thread is quicker.
const PARALLEL_OBJECTS: usize = 64;

/// base64 of `<secret` (the first six bytes encode to these eight characters whatever follows).
const B64_MASK_PREFIX: &str = "PHNlY3Jl";

/// The number of a mask from just after its prefix: `12>` gives 12.
fn mask_number(after_prefix: &str) -> Option<usize> {
    let digits = after_prefix.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 || after_prefix.as_bytes().get(digits) != Some(&b'>') {
        return None;
    }
    after_prefix[..digits].parse().ok().filter(|&k| k > 0)
}

/// Whether `s` is exactly a mask made by [`Masks::mask`].
pub fn is_mask(s: &str) -> bool {
    s.strip_prefix(MASK_PREFIX).is_some_and(|r| {
        mask_number(r).is_some() && r.len() == r.bytes().take_while(u8::is_ascii_digit).count() + 1
    })
}

/// A Secret `data` value as the API server decodes it, or `None` when the API server would reject it.
pub fn decode_secret_data(s: &str) -> Option<Vec<u8>> {
    let cleaned: Vec<u8> = s.bytes().filter(|b| !matches!(b, b'\r' | b'\n')).collect();
    API_SERVER_B64.decode(cleaned).ok()
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
        || (t.starts_with(B64_MASK_PREFIX)
            && decode_secret_data(t)
                .and_then(|d| String::from_utf8(d).ok())
                .is_some_and(|d| is_mask(&d)))
}

/// Which field a value sits in, which decides how it is read and written back.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Field {
    /// `data`: base64, numbered by its decoded bytes (by its text when the API server would reject it).
    Data,
    /// `stringData`, or any other field of a Secret: plain text.
    StringData,
    /// Seen in a diff whose structure is cut off: `data` if it decodes as `data`, else `stringData`.
    Guess,
}

/// How a masked value is written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    /// The readable mask everywhere (reports).
    Display,
    /// base64 of the mask in `data`, the mask in `stringData` (text that is analysed again).
    Manifest,
}

/// The masked form of one value, or `None` when it is already masked (in the form `style` writes). The flag tells
/// whether the result is base64 (so it can be written as a plain YAML scalar).
pub(super) fn masked_for(
    masks: &Masks,
    field: Field,
    value: &str,
    style: Style,
) -> Option<(String, bool)> {
    let field = match field {
        Field::Guess if decode_secret_data(value).is_some_and(|d| !d.is_empty()) => Field::Data,
        Field::Guess => Field::StringData,
        f => f,
    };
    if field == Field::Data && style == Style::Display {
        // a masked `data` value is base64 of its mask: shown as the mask itself
        if let Some(m) = decode_secret_data(value)
            .and_then(|d| String::from_utf8(d).ok())
            .filter(|m| is_mask(m))
        {
            return Some((m, false));
        }
    }
    if is_already_masked(value) {
        return None;
    }
    match field {
        Field::Data => {
            let plain = decode_secret_data(value);
            let mask = masks.mask(plain.as_deref().unwrap_or(value.as_bytes()));
            match style {
                Style::Display => Some((mask, false)),
                Style::Manifest => Some((STANDARD.encode(mask), true)),
            }
        }
        _ => Some((masks.mask(value.as_bytes()), false)),
    }
}
