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

pub use object::{is_secret_pointer, mask_secret_object, may_contain_secret};
pub use text::mask_secrets_in_text;

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
pub(super) const LENIENT_B64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Deepest nesting that the recursive walks follow (serde_json and serde_yaml stop at 128 anyway).
pub(super) const MAX_DEPTH: usize = 256;

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
pub(super) fn decode_b64(s: &str) -> Option<Vec<u8>> {
    let cleaned: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    LENIENT_B64.decode(cleaned).ok()
}

/// Which field a value sits in, which decides how it is hashed and written back.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Field {
    /// `data`: base64, hashed after decoding (as given when it does not decode).
    Data,
    /// `stringData`: plain text.
    StringData,
    /// Seen in a diff whose structure is cut off: `data` if it looks like padded base64, else `stringData`.
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

/// The masked form of one value, or `None` when it is already masked. The flag tells whether the result is base64
/// (so it can be written as a plain YAML scalar).
pub(super) fn masked_for(field: Field, value: &str, style: Style) -> Option<(String, bool)> {
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
