//! The value-level algorithms under the comparison: number-aware equality,
//! the strategic and JSON merge patches Argo CD applies, and the walk that
//! records every differing leaf.

use super::RawDiff;
use crate::k8s::{Cursor, ListStrategy};
use crate::model::Change;
use crate::path::Seg;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// Number-aware deep equality (JSON numbers compare by value: 1 == 1.0).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(i), Some(j)) = (x.as_i64(), y.as_i64()) {
                i == j
            } else {
                x.as_f64() == y.as_f64()
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// gitops-engine's `RemoveMapFields`: keep only the live fields the original
/// has (maps by key, lists by index; extra trailing list items stay).
pub fn remove_map_fields(config: &Value, live: &Value) -> Value {
    match (config, live) {
        (Value::Object(c), Value::Object(l)) => {
            let mut out = Map::new();
            for (k, cv) in c {
                if let Some(lv) = l.get(k) {
                    let v = if lv.is_null() {
                        Value::Null
                    } else {
                        remove_map_fields(cv, lv)
                    };
                    out.insert(k.clone(), v);
                }
            }
            Value::Object(out)
        }
        (Value::Array(c), Value::Array(l)) => Value::Array(
            l.iter()
                .enumerate()
                .map(|(i, lv)| match c.get(i) {
                    Some(cv) if !lv.is_null() => remove_map_fields(cv, lv),
                    _ => lv.clone(),
                })
                .collect(),
        ),
        _ => live.clone(),
    }
}

/// Three-way JSON merge patch (original → desired deletions, trimmed live →
/// desired additions and changes) applied to the full live object.
pub fn json_merge(
    live: &Value,
    trimmed: Option<&Value>,
    original: Option<&Value>,
    desired: &Value,
) -> Value {
    let Value::Object(d) = desired else {
        return desired.clone();
    };
    let mut out = match live {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    for (k, dv) in d {
        let t = trimmed.and_then(|t| t.get(k));
        let o = original.and_then(|o| o.get(k));
        if dv.is_null() {
            // `null` in a merge patch deletes the key.
            out.remove(k);
        } else if dv.is_object() {
            let lv = out.get(k).cloned().unwrap_or(Value::Null);
            let t = if lv.is_object() { t } else { None };
            out.insert(k.clone(), json_merge(&lv, t, o, dv));
        } else if !t.is_some_and(|t| json_eq(t, dv)) {
            out.insert(k.clone(), dv.clone());
        }
    }
    if let Some(Value::Object(o)) = original {
        for k in o.keys() {
            if !d.contains_key(k) {
                out.remove(k);
            }
        }
    }
    Value::Object(out)
}

fn merge_key_of<'a>(item: &'a Value, keys: &[&str]) -> Option<Vec<&'a Value>> {
    let obj = item.as_object()?;
    let first = obj.get(*keys.first()?)?;
    let mut out = vec![first];
    for k in &keys[1..] {
        // Secondary keys (e.g. protocol beside containerPort) may be defaulted.
        out.push(obj.get(*k).unwrap_or(&Value::Null));
    }
    Some(out)
}

fn same_key(a: &[&Value], b: &[&Value]) -> bool {
    // A missing secondary key matches any value: the API server defaults it.
    a.first().zip(b.first()).is_some_and(|(x, y)| json_eq(x, y))
        && a.iter()
            .zip(b)
            .skip(1)
            .all(|(x, y)| x.is_null() || y.is_null() || json_eq(x, y))
}

/// Strategic-merge three-way patch applied to live: keys Git declares take
/// Git's values (merged recursively), keys the original had and Git dropped
/// are removed, everything else live has is kept.
pub fn strategic_merge(
    live: &Value,
    original: Option<&Value>,
    desired: &Value,
    cursor: Option<Cursor>,
) -> Value {
    match (live, desired) {
        (Value::Object(l), Value::Object(d)) => {
            // Each live child is cloned at most once, and only when the
            // patch keeps it as it is: cloning the whole live map first and
            // then replacing the merged children would copy every subtree
            // once per level above it.
            let removed_by_original = |k: &String| {
                !d.contains_key(k)
                    && matches!(original, Some(Value::Object(o)) if o.contains_key(k))
            };
            let mut out = serde_json::Map::new();
            for (k, lv) in l {
                match d.get(k) {
                    // `null` in a strategic merge patch deletes the key
                    // (gitops-engine normalizeRole writes one for `rules`).
                    Some(Value::Null) => {}
                    Some(dv) => {
                        let child = cursor.and_then(|c| c.field(k));
                        let o = original.and_then(|o| o.get(k));
                        out.insert(k.clone(), strategic_merge(lv, o, dv, child));
                    }
                    None if removed_by_original(k) => {}
                    None => {
                        out.insert(k.clone(), lv.clone());
                    }
                }
            }
            for (k, dv) in d {
                if !dv.is_null() && !l.contains_key(k) {
                    out.insert(k.clone(), dv.clone());
                }
            }
            Value::Object(out)
        }
        (Value::Array(l), Value::Array(d)) => {
            let strategy = cursor.map_or(ListStrategy::Atomic, |c| c.list_strategy());
            let item_cursor = cursor.and_then(|c| c.item());
            match strategy {
                ListStrategy::MergeByKey(keys) => {
                    merge_keyed_list(l, original.and_then(Value::as_array), d, keys, item_cursor)
                        .unwrap_or_else(|| desired.clone())
                }
                ListStrategy::Set => {
                    // Hashed by canonical text so a list of thousands of
                    // entries merges in linear time.
                    let desired_texts: HashSet<String> = d.iter().map(canonical_text).collect();
                    let removed: HashSet<String> = original
                        .and_then(Value::as_array)
                        .map(|o| {
                            o.iter()
                                .map(canonical_text)
                                .filter(|t| !desired_texts.contains(t))
                                .collect()
                        })
                        .unwrap_or_default();
                    let mut out: Vec<Value> = Vec::with_capacity(l.len() + d.len());
                    let mut present: HashSet<String> = HashSet::new();
                    for x in l {
                        let text = canonical_text(x);
                        if !removed.contains(&text) {
                            present.insert(text);
                            out.push(x.clone());
                        }
                    }
                    for x in d {
                        if present.insert(canonical_text(x)) {
                            out.push(x.clone());
                        }
                    }
                    Value::Array(out)
                }
                ListStrategy::Atomic => desired.clone(),
            }
        }
        _ => desired.clone(),
    }
}

fn merge_keyed_list(
    live: &[Value],
    original: Option<&Vec<Value>>,
    desired: &[Value],
    keys: &[&str],
    item_cursor: Option<Cursor>,
) -> Option<Value> {
    let mut out: Vec<Option<Value>> = live.iter().cloned().map(Some).collect();
    let mut out_index = KeyIndex::of(live.iter(), keys);
    let original_index = original.map(|o| KeyIndex::of(o.iter(), keys));
    let desired_index = KeyIndex::of(desired.iter(), keys);
    for d in desired {
        let dk = merge_key_of(d, keys)?;
        let o = original
            .zip(original_index.as_ref())
            .and_then(|(o, index)| {
                index
                    .candidates(&dk)
                    .find(|&i| merge_key_of(&o[i], keys).is_some_and(|ok| same_key(&ok, &dk)))
                    .map(|i| &o[i])
            });
        let found = out_index.candidates(&dk).find(|&i| {
            out[i]
                .as_ref()
                .and_then(|x| merge_key_of(x, keys))
                .is_some_and(|xk| same_key(&xk, &dk))
        });
        match found {
            Some(i) => {
                let merged = out[i]
                    .as_ref()
                    .map(|current| strategic_merge(current, o, d, item_cursor));
                out[i] = merged;
            }
            None => {
                out_index.add(&dk, out.len());
                out.push(Some(d.clone()));
            }
        }
    }
    if let Some(orig) = original {
        for o in orig {
            let Some(ok) = merge_key_of(o, keys) else {
                continue;
            };
            let still_desired = desired_index
                .candidates(&ok)
                .any(|i| merge_key_of(&desired[i], keys).is_some_and(|dk| same_key(&dk, &ok)));
            if !still_desired {
                for i in out_index.candidates(&ok).collect::<Vec<_>>() {
                    let matches = out[i]
                        .as_ref()
                        .and_then(|x| merge_key_of(x, keys))
                        .is_some_and(|xk| same_key(&xk, &ok));
                    if matches {
                        out[i] = None;
                    }
                }
            }
        }
    }
    Some(Value::Array(out.into_iter().flatten().collect()))
}

/// The positions of a list's items by the canonical text of their primary
/// merge key, in list order, so matching items by key is linear rather than
/// a scan of the whole list per item. Secondary keys are checked by the
/// caller with `same_key` (a missing secondary key matches any value).
struct KeyIndex {
    by_primary: HashMap<String, Vec<usize>>,
}

impl KeyIndex {
    fn of<'a>(items: impl Iterator<Item = &'a Value>, keys: &[&str]) -> KeyIndex {
        let mut index = KeyIndex {
            by_primary: HashMap::new(),
        };
        for (i, item) in items.enumerate() {
            if let Some(k) = merge_key_of(item, keys) {
                index.add(&k, i);
            }
        }
        index
    }

    fn add(&mut self, key: &[&Value], position: usize) {
        if let Some(primary) = key.first() {
            self.by_primary
                .entry(canonical_text(primary))
                .or_default()
                .push(position);
        }
    }

    /// Positions whose primary key equals `key`'s, in list order.
    fn candidates<'s>(&'s self, key: &[&Value]) -> impl Iterator<Item = usize> + 's {
        key.first()
            .and_then(|primary| self.by_primary.get(&canonical_text(primary)))
            .into_iter()
            .flatten()
            .copied()
    }
}

/// A text that two values share exactly when `json_eq` calls them equal
/// (numbers by value, maps regardless of key order), for hashing.
fn canonical_text(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    use std::fmt::Write;
    match v {
        Value::Number(n) => {
            let _ = match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => write!(out, "n{i}"),
                (None, Some(u), _) => write!(out, "n{u}"),
                // An integral float equals the integer of the same value.
                (None, None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e18 => {
                    write!(out, "n{}", f as i64)
                }
                (None, None, Some(f)) => write!(out, "f{}", f.to_bits()),
                (None, None, None) => write!(out, "n?"),
            };
        }
        Value::String(s) => {
            out.push('s');
            out.push_str(&serde_json::to_string(s).unwrap_or_default());
        }
        Value::Array(items) => {
            out.push('[');
            for item in items {
                write_canonical(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(map) => {
            // serde_json's map iterates in key order, so equal maps agree.
            out.push('{');
            for (k, item) in map {
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push(':');
                write_canonical(item, out);
                out.push(',');
            }
            out.push('}');
        }
        Value::Bool(b) => out.push_str(if *b { "t" } else { "f" }),
        Value::Null => out.push_str("null"),
    }
}

/// Walk two values and record every differing leaf (or whole subtree when
/// one side lacks it). `git` is the desired/predicted side.
pub fn diff_values(
    git: &Value,
    live: &Value,
    cursor: Option<Cursor>,
    path: &mut Vec<Seg>,
    out: &mut Vec<RawDiff>,
) {
    match (git, live) {
        (Value::Object(g), Value::Object(l)) => {
            for (k, gv) in g {
                path.push(Seg::Key(k.clone()));
                let child = cursor.and_then(|c| c.field(k));
                match l.get(k) {
                    Some(lv) => diff_values(gv, lv, child, path, out),
                    None => out.push(RawDiff {
                        path: path.clone(),
                        change: Change::Removed,
                        git: Some(gv.clone()),
                        live: None,
                        hidden_reason: None,
                    }),
                }
                path.pop();
            }
            for (k, lv) in l {
                if !g.contains_key(k) {
                    path.push(Seg::Key(k.clone()));
                    out.push(RawDiff {
                        path: path.clone(),
                        change: Change::Added,
                        git: None,
                        live: Some(lv.clone()),
                        hidden_reason: None,
                    });
                    path.pop();
                }
            }
        }
        (Value::Array(g), Value::Array(l)) => {
            let strategy = cursor.map_or(ListStrategy::Atomic, |c| c.list_strategy());
            let item_cursor = cursor.and_then(|c| c.item());
            if let ListStrategy::MergeByKey(keys) = strategy {
                if diff_keyed_lists(g, l, keys, item_cursor, path, out) {
                    return;
                }
            }
            diff_positional_lists(g, l, item_cursor, path, out);
        }
        _ => {
            if !json_eq(git, live) {
                out.push(RawDiff {
                    path: path.clone(),
                    change: Change::Changed,
                    git: Some(git.clone()),
                    live: Some(live.clone()),
                    hidden_reason: None,
                });
            }
        }
    }
}

fn key_seg(keys: &[&str], item_key: &[&Value], index: usize) -> Seg {
    Seg::Item {
        index: Some(index),
        key: Some((keys[0].to_string(), item_key[0].clone())),
    }
}

/// Returns false when some item lacks its merge key (then positional).
fn diff_keyed_lists(
    git: &[Value],
    live: &[Value],
    keys: &[&str],
    item_cursor: Option<Cursor>,
    path: &mut Vec<Seg>,
    out: &mut Vec<RawDiff>,
) -> bool {
    let gk: Option<Vec<Vec<&Value>>> = git.iter().map(|x| merge_key_of(x, keys)).collect();
    let lk: Option<Vec<Vec<&Value>>> = live.iter().map(|x| merge_key_of(x, keys)).collect();
    let (Some(gk), Some(lk)) = (gk, lk) else {
        return false;
    };
    let mut live_matched = vec![false; live.len()];
    let live_index = KeyIndex::of(live.iter(), keys);
    for (gi, g) in git.iter().enumerate() {
        let found = live_index
            .candidates(&gk[gi])
            .find(|&li| !live_matched[li] && same_key(&lk[li], &gk[gi]));
        match found {
            Some(li) => {
                live_matched[li] = true;
                path.push(key_seg(keys, &lk[li], li));
                diff_values(g, &live[li], item_cursor, path, out);
                path.pop();
            }
            None => {
                path.push(key_seg(keys, &gk[gi], gi));
                out.push(RawDiff {
                    path: path.clone(),
                    change: Change::Removed,
                    git: Some(g.clone()),
                    live: None,
                    hidden_reason: None,
                });
                path.pop();
            }
        }
    }
    for (li, l) in live.iter().enumerate() {
        if !live_matched[li] {
            path.push(key_seg(keys, &lk[li], li));
            out.push(RawDiff {
                path: path.clone(),
                change: Change::Added,
                git: None,
                live: Some(l.clone()),
                hidden_reason: None,
            });
            path.pop();
        }
    }
    true
}

fn diff_positional_lists(
    git: &[Value],
    live: &[Value],
    item_cursor: Option<Cursor>,
    path: &mut Vec<Seg>,
    out: &mut Vec<RawDiff>,
) {
    let n = git.len().max(live.len());
    for i in 0..n {
        path.push(Seg::Item {
            index: Some(i),
            key: None,
        });
        match (git.get(i), live.get(i)) {
            (Some(g), Some(l)) => diff_values(g, l, item_cursor, path, out),
            (Some(g), None) => out.push(RawDiff {
                path: path.clone(),
                change: Change::Removed,
                git: Some(g.clone()),
                live: None,
                hidden_reason: None,
            }),
            (None, Some(l)) => out.push(RawDiff {
                path: path.clone(),
                change: Change::Added,
                git: None,
                live: Some(l.clone()),
                hidden_reason: None,
            }),
            (None, None) => {}
        }
        path.pop();
    }
}
