//! The value-level algorithms under the comparison: number-aware equality,
//! the strategic and JSON merge patches Argo CD applies, and the walk that
//! records every differing leaf.

use super::RawDiff;
use crate::k8s::{Cursor, ListStrategy};
use crate::model::Change;
use crate::path::Seg;
use crate::sorting::side_by_side;
use serde_json::{Map, Value};
use smallvec::SmallVec;
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

/// An item's merge key: the values of the list's key fields, read from the
/// item when compared rather than copied out. The first field is the
/// primary key, which every keyed item has.
#[derive(Clone, Copy)]
struct MergeKey<'a> {
    item: &'a Map<String, Value>,
    keys: &'a [&'a str],
}

impl<'a> MergeKey<'a> {
    /// The key of `item`, when it is a map holding the primary key field.
    fn of(item: &'a Value, keys: &'a [&'a str]) -> Option<MergeKey<'a>> {
        let item = item.as_object()?;
        item.get(*keys.first()?)?;
        Some(MergeKey { item, keys })
    }

    fn primary(self) -> &'a Value {
        self.field(0)
    }

    /// Key field `i`; a missing secondary field (e.g. `protocol` beside
    /// `containerPort`, which the API server defaults) reads as null.
    fn field(self, i: usize) -> &'a Value {
        self.item.get(self.keys[i]).unwrap_or(&Value::Null)
    }

    /// Whether both name the same item: equal primary keys, and each
    /// secondary key equal or missing on one side (it matches any value).
    fn matches(self, other: MergeKey<'_>) -> bool {
        json_eq(self.primary(), other.primary())
            && (1..self.keys.len().min(other.keys.len())).all(|i| {
                let (x, y) = (self.field(i), other.field(i));
                x.is_null() || y.is_null() || json_eq(x, y)
            })
    }
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
            // once per level above it. Live's and Git's keys are paired in
            // one pass in key order, and the map is built from them in bulk
            // (`collect`): filled by insertion, it is searched at each key,
            // which made the page's analysis a sixth slower.
            side_by_side(l.iter(), d.iter())
                .filter_map(|(k, lv, dv)| {
                    let v = match (lv, dv) {
                        // `null` in a strategic merge patch deletes the key
                        // (gitops-engine normalizeRole writes one for `rules`).
                        (_, Some(Value::Null)) => return None,
                        (Some(lv), Some(dv)) => {
                            let child = cursor.and_then(|c| c.field(k));
                            strategic_merge(lv, original.and_then(|o| o.get(k)), dv, child)
                        }
                        // A key the original had and Git dropped is removed.
                        (Some(_), None)
                            if matches!(original, Some(Value::Object(o)) if o.contains_key(k)) =>
                        {
                            return None
                        }
                        (Some(lv), None) => lv.clone(),
                        (None, Some(dv)) => dv.clone(),
                        (None, None) => return None,
                    };
                    Some((k.clone(), v))
                })
                .collect::<Map<String, Value>>()
                .into()
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
        let dk = MergeKey::of(d, keys)?;
        let o = original
            .zip(original_index.as_ref())
            .and_then(|(o, index)| {
                index
                    .candidates(dk)
                    .find(|&i| MergeKey::of(&o[i], keys).is_some_and(|ok| ok.matches(dk)))
                    .map(|i| &o[i])
            });
        let found = out_index.candidates(dk).find(|&i| {
            out[i]
                .as_ref()
                .and_then(|x| MergeKey::of(x, keys))
                .is_some_and(|xk| xk.matches(dk))
        });
        match found {
            Some(i) => {
                let merged = out[i]
                    .as_ref()
                    .map(|current| strategic_merge(current, o, d, item_cursor));
                out[i] = merged;
            }
            None => {
                out_index.add(dk, out.len());
                out.push(Some(d.clone()));
            }
        }
    }
    if let Some(orig) = original {
        for o in orig {
            let Some(ok) = MergeKey::of(o, keys) else {
                continue;
            };
            let still_desired = desired_index
                .candidates(ok)
                .any(|i| MergeKey::of(&desired[i], keys).is_some_and(|dk| dk.matches(ok)));
            if !still_desired {
                for i in out_index.candidates(ok).collect::<Vec<_>>() {
                    let matches = out[i]
                        .as_ref()
                        .and_then(|x| MergeKey::of(x, keys))
                        .is_some_and(|xk| xk.matches(ok));
                    if matches {
                        out[i] = None;
                    }
                }
            }
        }
    }
    Some(Value::Array(out.into_iter().flatten().collect()))
}

/// The positions of a list's items by their primary merge key, in list
/// order, so matching items by key is linear rather than a scan of the
/// whole list per item. Secondary keys are checked by the caller with
/// [`MergeKey::matches`].
enum KeyIndex<'a> {
    /// Most lists are short (a pod's containers, a Service's ports): their
    /// keys are compared one by one, with nothing hashed.
    Few(Vec<(HashedKey<'a>, usize)>),
    // Nearly every key names one item: its position is held inline.
    Many(HashMap<HashedKey<'a>, SmallVec<[usize; 1]>>),
}

impl<'a> KeyIndex<'a> {
    /// Up to this many keys are searched in a list.
    const FEW: usize = 16;

    fn of(items: impl Iterator<Item = &'a Value>, keys: &'a [&'a str]) -> KeyIndex<'a> {
        let mut index = KeyIndex::Few(Vec::new());
        for (i, item) in items.enumerate() {
            if let Some(k) = MergeKey::of(item, keys) {
                index.add(k, i);
            }
        }
        index
    }

    fn add(&mut self, key: MergeKey<'a>, position: usize) {
        let key = HashedKey::of(key.primary());
        match self {
            KeyIndex::Few(entries) if entries.len() < Self::FEW => entries.push((key, position)),
            KeyIndex::Few(entries) => {
                let mut by_primary: HashMap<HashedKey<'a>, SmallVec<[usize; 1]>> = HashMap::new();
                for (k, p) in entries.drain(..).chain([(key, position)]) {
                    by_primary.entry(k).or_default().push(p);
                }
                *self = KeyIndex::Many(by_primary);
            }
            KeyIndex::Many(by_primary) => by_primary.entry(key).or_default().push(position),
        }
    }

    /// Positions whose primary key equals `key`'s, in list order.
    fn candidates(&self, key: MergeKey<'a>) -> impl Iterator<Item = usize> + '_ {
        let wanted = HashedKey::of(key.primary());
        let (few, many) = match self {
            KeyIndex::Few(entries) => (entries.as_slice(), None),
            KeyIndex::Many(by_primary) => (&[][..], by_primary.get(&wanted)),
        };
        few.iter()
            .filter(move |(k, _)| *k == wanted)
            .map(|&(_, p)| p)
            .chain(many.into_iter().flatten().copied())
    }
}

/// A primary merge key as hashed: two are equal exactly when the values'
/// canonical texts are. Text and whole numbers, which nearly every merge
/// key is, are borrowed rather than written out.
#[derive(PartialEq, Eq, Hash)]
enum HashedKey<'a> {
    Text(&'a str),
    Whole(i64),
    Canonical(String),
}

impl<'a> HashedKey<'a> {
    fn of(v: &'a Value) -> HashedKey<'a> {
        match v {
            Value::String(s) => HashedKey::Text(s),
            Value::Number(n) => match whole_number(n) {
                Some(i) => HashedKey::Whole(i),
                None => HashedKey::Canonical(canonical_text(v)),
            },
            _ => HashedKey::Canonical(canonical_text(v)),
        }
    }
}

/// The integer a number is, as `json_eq` compares it: an integral float
/// equals the integer of the same value. Integers beyond `i64` are not.
fn whole_number(n: &serde_json::Number) -> Option<i64> {
    n.as_i64().or_else(|| {
        n.as_f64()
            .filter(|f| !n.is_u64() && f.fract() == 0.0 && f.abs() < 9.0e18)
            .map(|f| f as i64)
    })
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
            let _ = match (whole_number(n), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => write!(out, "n{i}"),
                (None, Some(u), _) => write!(out, "n{u}"),
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
pub fn diff_values(git: &Value, live: &Value, cursor: Option<Cursor>, out: &mut Vec<RawDiff>) {
    diff_at(git, live, cursor, &mut Vec::new(), out);
}

/// A step of the path the diff walk is at, borrowed from the values it
/// walks: the owned path ([`Seg`]s) is made only for a difference found,
/// not for every key visited.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Item {
        index: usize,
        key: Option<MergeKey<'a>>,
    },
}

fn owned_path(steps: &[Step<'_>]) -> Vec<Seg> {
    steps
        .iter()
        .map(|step| match *step {
            Step::Key(k) => Seg::key(k),
            Step::Item { index, key } => Seg::Item {
                index: Some(index),
                key: key.map(|k| (k.keys[0].to_string(), k.primary().clone())),
            },
        })
        .collect()
}

fn found(steps: &[Step<'_>], change: Change, git: Option<&Value>, live: Option<&Value>) -> RawDiff {
    RawDiff {
        path: owned_path(steps),
        change,
        git: git.cloned(),
        live: live.cloned(),
        hidden_reason: None,
    }
}

fn diff_at<'a>(
    git: &'a Value,
    live: &'a Value,
    cursor: Option<Cursor>,
    steps: &mut Vec<Step<'a>>,
    out: &mut Vec<RawDiff>,
) {
    match (git, live) {
        (Value::Object(g), Value::Object(l)) => {
            // Git's keys first, then the keys only live has, kept aside in
            // the same walk (seldom any: the prediction starts from live,
            // and an empty vector allocates nothing).
            let mut live_only: Vec<(&String, &Value)> = Vec::new();
            for (k, gv, lv) in side_by_side(g.iter(), l.iter()) {
                let Some(gv) = gv else {
                    live_only.extend(lv.map(|lv| (k, lv)));
                    continue;
                };
                steps.push(Step::Key(k));
                match lv {
                    Some(lv) => diff_at(gv, lv, cursor.and_then(|c| c.field(k)), steps, out),
                    None => out.push(found(steps, Change::Removed, Some(gv), None)),
                }
                steps.pop();
            }
            for (k, lv) in live_only {
                steps.push(Step::Key(k));
                out.push(found(steps, Change::Added, None, Some(lv)));
                steps.pop();
            }
        }
        (Value::Array(g), Value::Array(l)) => {
            let strategy = cursor.map_or(ListStrategy::Atomic, |c| c.list_strategy());
            let item_cursor = cursor.and_then(|c| c.item());
            if let ListStrategy::MergeByKey(keys) = strategy {
                if diff_keyed_lists(g, l, keys, item_cursor, steps, out) {
                    return;
                }
            }
            diff_positional_lists(g, l, item_cursor, steps, out);
        }
        _ => {
            if !json_eq(git, live) {
                out.push(found(steps, Change::Changed, Some(git), Some(live)));
            }
        }
    }
}

/// Returns false when some item lacks its merge key (then positional).
fn diff_keyed_lists<'a>(
    git: &'a [Value],
    live: &'a [Value],
    keys: &'a [&'a str],
    item_cursor: Option<Cursor>,
    steps: &mut Vec<Step<'a>>,
    out: &mut Vec<RawDiff>,
) -> bool {
    let gk: Option<Vec<MergeKey>> = git.iter().map(|x| MergeKey::of(x, keys)).collect();
    let lk: Option<Vec<MergeKey>> = live.iter().map(|x| MergeKey::of(x, keys)).collect();
    let (Some(gk), Some(lk)) = (gk, lk) else {
        return false;
    };
    let mut live_matched = vec![false; live.len()];
    let live_index = KeyIndex::of(live.iter(), keys);
    let item = |key: MergeKey<'a>, index: usize| Step::Item {
        index,
        key: Some(key),
    };
    for (gi, g) in git.iter().enumerate() {
        let matched = live_index
            .candidates(gk[gi])
            .find(|&li| !live_matched[li] && lk[li].matches(gk[gi]));
        match matched {
            Some(li) => {
                live_matched[li] = true;
                steps.push(item(lk[li], li));
                diff_at(g, &live[li], item_cursor, steps, out);
            }
            None => {
                steps.push(item(gk[gi], gi));
                out.push(found(steps, Change::Removed, Some(g), None));
            }
        }
        steps.pop();
    }
    for (li, l) in live.iter().enumerate() {
        if !live_matched[li] {
            steps.push(item(lk[li], li));
            out.push(found(steps, Change::Added, None, Some(l)));
            steps.pop();
        }
    }
    true
}

fn diff_positional_lists<'a>(
    git: &'a [Value],
    live: &'a [Value],
    item_cursor: Option<Cursor>,
    steps: &mut Vec<Step<'a>>,
    out: &mut Vec<RawDiff>,
) {
    let n = git.len().max(live.len());
    for i in 0..n {
        steps.push(Step::Item {
            index: i,
            key: None,
        });
        match (git.get(i), live.get(i)) {
            (Some(g), Some(l)) => diff_at(g, l, item_cursor, steps, out),
            (Some(g), None) => out.push(found(steps, Change::Removed, Some(g), None)),
            (None, Some(l)) => out.push(found(steps, Change::Added, None, Some(l))),
            (None, None) => {}
        }
        steps.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Short lists are searched in place and long ones hashed: either way a
    /// key's candidates are the positions with that primary key, in order.
    #[test]
    fn a_key_index_finds_every_item_of_a_key_in_list_order() {
        let keys: &[&str] = &["name"];
        let names = [json!("a"), json!("b"), json!(1), json!(1.0), json!(true)];
        for len in 0..40 {
            let items: Vec<Value> = (0..len)
                .map(|i| match i % 7 {
                    6 => json!({"other": i}),
                    k => json!({"name": names[(i * k) % names.len()].clone(), "i": i}),
                })
                .collect();
            let index = KeyIndex::of(items.iter(), keys);
            for probe in &names {
                let wanted = json!({"name": probe.clone()});
                let key = MergeKey::of(&wanted, keys).expect("a key");
                let found: Vec<usize> = index.candidates(key).collect();
                let expected: Vec<usize> = items
                    .iter()
                    .enumerate()
                    .filter(|(_, item)| {
                        MergeKey::of(item, keys)
                            .is_some_and(|k| HashedKey::of(k.primary()) == HashedKey::of(probe))
                    })
                    .map(|(i, _)| i)
                    .collect();
                assert_eq!(found, expected, "{len} {probe}");
            }
        }
    }

    /// Values a merge key holds, and near misses of each other.
    fn keys() -> Vec<Value> {
        let big = u64::MAX;
        vec![
            json!("80"),
            json!("http"),
            json!(""),
            json!(80),
            json!(80.0),
            json!(-80),
            json!(-80.0),
            json!(80.5),
            json!(0),
            json!(1),
            json!(-0.0),
            json!(big),
            json!(big as f64),
            json!(1e19),
            json!(true),
            json!(null),
            json!({"port": 80}),
            json!({"port": 80.0}),
            json!([80]),
        ]
    }

    #[test]
    fn hashed_keys_are_equal_exactly_when_canonical_texts_are() {
        let values = keys();
        for a in &values {
            for b in &values {
                assert_eq!(
                    HashedKey::of(a) == HashedKey::of(b),
                    canonical_text(a) == canonical_text(b),
                    "{a} against {b}"
                );
            }
        }
    }

    #[test]
    fn equal_hashed_keys_are_equal_values() {
        // The index may only offer candidates `json_eq` then accepts.
        let values = keys();
        for a in &values {
            for b in &values {
                if HashedKey::of(a) == HashedKey::of(b) {
                    assert!(json_eq(a, b), "{a} against {b}");
                }
            }
        }
    }

    #[test]
    fn a_missing_secondary_key_matches_any_value() {
        let keys: &[&str] = &["containerPort", "protocol"];
        let tcp = json!({"containerPort": 8080, "protocol": "TCP"});
        let udp = json!({"containerPort": 8080, "protocol": "UDP"});
        let defaulted = json!({"containerPort": 8080.0});
        let other = json!({"containerPort": 9090, "protocol": "TCP"});
        let key = |v| MergeKey::of(v, keys).expect("keyed");
        assert!(key(&tcp).matches(key(&defaulted)));
        assert!(key(&defaulted).matches(key(&udp)));
        assert!(!key(&tcp).matches(key(&udp)));
        assert!(!key(&tcp).matches(key(&other)));
        assert!(MergeKey::of(&json!({"protocol": "TCP"}), keys).is_none());
        assert!(MergeKey::of(&json!("8080"), keys).is_none());
    }

    #[test]
    fn an_index_offers_every_item_of_a_key_in_list_order() {
        let keys: &[&str] = &["name"];
        let items = [
            json!({"name": "a"}),
            json!({"image": "no key"}),
            json!({"name": "b"}),
            json!({"name": "a", "image": "again"}),
        ];
        let index = KeyIndex::of(items.iter(), keys);
        let a = MergeKey::of(&items[0], keys).expect("keyed");
        let b = MergeKey::of(&items[2], keys).expect("keyed");
        assert_eq!(index.candidates(a).collect::<Vec<_>>(), [0, 3]);
        assert_eq!(index.candidates(b).collect::<Vec<_>>(), [2]);
        let missing = json!({"name": "c"});
        let c = MergeKey::of(&missing, keys).expect("keyed");
        assert_eq!(index.candidates(c).count(), 0);
    }

    /// `side_by_side` pairs the keys of two maps in one pass, which holds
    /// only while `serde_json`'s maps iterate in key order: every key of
    /// either map once, in order, with its value on each side.
    #[test]
    fn two_maps_side_by_side_give_every_key_once_in_order() {
        proptest::proptest!(|(
            a in proptest::collection::btree_map("[a-dZé~]{0,3}", 0..5i64, 0..12),
            b in proptest::collection::btree_map("[a-dZé~]{0,3}", 0..5i64, 0..12),
        )| {
            // Built in reverse so that insertion order is not key order.
            let map = |m: &std::collections::BTreeMap<String, i64>| -> Map<String, Value> {
                m.iter().rev().map(|(k, v)| (k.clone(), json!(v))).collect()
            };
            let (ma, mb) = (map(&a), map(&b));
            let got: Vec<(String, Option<Value>, Option<Value>)> = side_by_side(ma.iter(), mb.iter())
                .map(|(k, x, y)| (k.clone(), x.cloned(), y.cloned()))
                .collect();
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            crate::sorting::sort(&mut keys);
            keys.dedup();
            let want: Vec<(String, Option<Value>, Option<Value>)> = keys
                .into_iter()
                .map(|k| (k.clone(), a.get(k).map(|v| json!(v)), b.get(k).map(|v| json!(v))))
                .collect();
            proptest::prop_assert_eq!(got, want);
        });
    }

    /// A merge keeps, replaces and removes keys by what live, Git and the
    /// original hold; the differences list Git's keys depth first, then the
    /// keys only live has.
    #[test]
    fn a_merge_and_its_differences_hold_keys_in_order() {
        let live = json!({"z": 1, "a": {"y": 2, "b": 3}, "m": [1], "keep": "x"});
        let desired = json!({"a": {"b": 4, "c": 5}, "z": null, "n": "new", "m": [1]});
        let original = json!({"keep": "x", "a": {"y": 2}});
        let merged = strategic_merge(&live, Some(&original), &desired, None);
        assert_eq!(merged, json!({"a": {"b": 4, "c": 5}, "m": [1], "n": "new"}));
        let mut out = Vec::new();
        diff_values(&merged, &live, None, &mut out);
        let found: Vec<(String, Change)> = out
            .iter()
            .map(|d| (crate::path::pointer(&d.path), d.change))
            .collect();
        assert_eq!(
            found,
            [
                ("/a/b".to_string(), Change::Changed),
                ("/a/c".to_string(), Change::Removed),
                ("/a/y".to_string(), Change::Added),
                ("/n".to_string(), Change::Removed),
                ("/keep".to_string(), Change::Added),
                ("/z".to_string(), Change::Added),
            ]
        );
    }
}
