//! Reading a side's YAML in parts: the units a parse reads one by one, so
//! that another worker can read some of them at the same time, and the
//! values it read, which the side's parse then takes instead of reading
//! those units again.

use serde_json::Value;
use std::collections::HashMap;

/// The YAML texts a side's parse reads one by one, in order: each document
/// of a stream, or each item of a large `kind: List` document. Another
/// worker can read some of them (with [`parse_unit`]) while this one reads
/// the rest, and [`super::parse_side_preparsed`] takes the values. Empty for JSON.
pub fn yaml_units(text: &str) -> Vec<String> {
    let text = super::without_bom(text);
    if super::starts_as_json(super::after_preamble(text).0) || text.contains('\0') {
        return Vec::new();
    }
    let mut units = Vec::new();
    for (_, chunk) in super::yaml_chunks(text) {
        match super::list_items(&chunk) {
            Some(list) => units.extend(
                list.items
                    .into_iter()
                    .filter_map(|item| super::list_item_text(&chunk, item)),
            ),
            None => units.push(chunk.into_owned()),
        }
    }
    units
}

/// One YAML unit's value, or None when it does not read on its own (the
/// side's parse then reads it again, to report the error where it is).
pub fn parse_unit(text: &str) -> Option<Value> {
    super::parse_yaml_document(text).ok()
}

/// Values of YAML units read elsewhere, each taken once by the parse that
/// reads the same text.
#[derive(Default)]
pub struct Preparsed {
    /// By the unit's length, then its text: a lookup compares one text or two.
    by_len: std::sync::Mutex<HashMap<usize, Vec<(String, Value)>>>,
}

impl Preparsed {
    /// Hold `value` as the value of the unit `text`.
    pub fn insert(&mut self, text: String, value: Value) {
        let by_len = self.by_len.get_mut().unwrap_or_else(|e| e.into_inner());
        by_len.entry(text.len()).or_default().push((text, value));
    }

    /// How many values are held (not taken yet).
    pub fn len(&self) -> usize {
        let by_len = self.by_len.lock().unwrap_or_else(|e| e.into_inner());
        by_len.values().map(Vec::len).sum()
    }

    /// Whether no value is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(super) fn take(&self, text: &str) -> Option<Value> {
        let mut by_len = self.by_len.lock().unwrap_or_else(|e| e.into_inner());
        let same_len = by_len.get_mut(&text.len())?;
        let at = same_len.iter().position(|(t, _)| t == text)?;
        Some(same_len.swap_remove(at).1)
    }
}
