//! Masking on parsed objects (serde_json values), for reports; and which JSON pointers of a Secret hold values.

use super::*;

/// Fields of a Secret that hold no secret value (everything else, misspelt or misplaced keys included, is masked).
pub(super) const NON_SECRET_FIELDS: [&str; 5] =
    ["apiVersion", "kind", "metadata", "type", "immutable"];

/// The fields of `metadata` (Kubernetes `ObjectMeta`): anything else under a
/// Secret's `metadata` is a value written in the wrong place (a misindented
/// `data` key), and masked like one.
const OBJECT_META_FIELDS: [&str; 15] = [
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

fn is_object_meta_field(field: &str) -> bool {
    OBJECT_META_FIELDS.contains(&field)
}

/// Whether a kind names a Secret: Kubernetes kinds are case-sensitive, but a mistyped `kind: secret` still
/// carries a Secret's values, so any letter case counts.
pub fn is_secret_kind(kind: &str) -> bool {
    kind.eq_ignore_ascii_case("Secret")
}

/// The kind whose masking rule applies to a resource: Secret when either side's object says so, whatever the
/// resource was filed under (a diff header can name another kind above a Secret's body).
pub fn kind_for_masking<'a>(kind: &'a str, objects: [Option<&Value>; 2]) -> &'a str {
    let says_secret = objects.iter().flatten().any(|o| {
        o.get("kind")
            .and_then(Value::as_str)
            .is_some_and(is_secret_kind)
    });
    if says_secret {
        "Secret"
    } else {
        kind
    }
}

/// Fields only an `ignoreDifferences` rule has: a mapping with one of them
/// and none of [`OBJECT_FIELDS`] selects objects of its kind rather than
/// being one.
pub(super) const RULE_FIELDS: [&str; 3] =
    ["jsonPointers", "jqPathExpressions", "managedFieldsManagers"];

/// Fields of an object (a Secret with any of them is masked whatever else it has).
pub(super) const OBJECT_FIELDS: [&str; 4] = ["apiVersion", "metadata", "data", "stringData"];

/// An object whose `kind` is Secret (any letter case, any apiVersion); a
/// rule selecting Secrets is not one.
pub(super) fn is_secret_map(m: &Map<String, Value>) -> bool {
    let selector = RULE_FIELDS.iter().any(|k| m.contains_key(*k))
        && !OBJECT_FIELDS.iter().any(|k| m.contains_key(*k));
    !selector
        && m.get("kind")
            .and_then(Value::as_str)
            .is_some_and(is_secret_kind)
}

/// Mask, in place, every value of every object whose kind is Secret (see the module's rule): `data` values are
/// numbered by their decoded bytes, so that `data` and `stringData` holding the same plain value get the same
/// mask. Also masks the `kubectl.kubernetes.io/last-applied-configuration` annotation of a Secret (it holds the
/// data) inside its JSON when it parses, else whole. Returns how many values were masked.
///
/// Secrets are found at any depth (a `kind: List`'s `items`, wrappers), and the last-applied annotation of any
/// object is masked when its JSON is a Secret. Values become the readable mask (this is for display;
/// [`mask_secrets_in_text`] keeps `data` base64). Nulls are left alone and not counted.
pub fn mask_secret_object(obj: &mut Value, masks: &Masks) -> usize {
    mask_all(obj, Style::Display, masks, 0)
}

/// A value found at `pointer` in an object of this kind, masked for display: a Secret's value by its field, and any
/// Secret (or last-applied annotation holding one) inside a larger value.
pub fn mask_pointer_value(masks: &Masks, kind: &str, pointer: &str, mut v: Value) -> Value {
    if is_secret_pointer(kind, pointer) {
        let tokens = pointer_tokens(pointer);
        let field = match tokens.first().map(String::as_str) {
            Some("data") if tokens.len() > 1 => Field::Data,
            Some("data") => {
                if let Value::Object(entries) = &mut v {
                    for x in entries.values_mut() {
                        mask_any(x, Field::Data, Style::Display, masks, 0);
                    }
                    return v;
                }
                Field::Data
            }
            Some("metadata") if tokens.get(1).is_some_and(|f| !is_object_meta_field(f)) => {
                Field::Guess
            }
            Some("metadata") => {
                if let Value::String(s) = &v {
                    if let Some((new, _)) = mask_last_applied_text(s, true, Style::Display, masks) {
                        return Value::String(new);
                    }
                    return v;
                }
                Field::StringData
            }
            _ => Field::StringData,
        };
        mask_any(&mut v, field, Style::Display, masks, 0);
        return v;
    }
    let tokens = pointer_tokens(pointer);
    match &mut v {
        Value::Object(m) if is_secret_kind(kind) && tokens.is_empty() => {
            mask_secret_fields(m, Style::Display, masks);
        }
        Value::Object(meta) if is_secret_kind(kind) && tokens == ["metadata"] => {
            if let Some(Value::Object(ann)) = meta.get_mut("annotations") {
                mask_last_applied_value(ann, true, Style::Display, masks);
            }
        }
        Value::Object(ann) if is_secret_kind(kind) && tokens == ["metadata", "annotations"] => {
            mask_last_applied_value(ann, true, Style::Display, masks);
        }
        // a masked `data` value seen where no Secret is visible (a diff filed under another kind)
        Value::String(s)
            if decode_secret_data(s)
                .and_then(|d| String::from_utf8(d).ok())
                .is_some_and(|d| is_mask(&d)) =>
        {
            masked_for(masks, Field::Data, s, Style::Display)
                .into_iter()
                .for_each(|(m, _)| *s = m);
        }
        Value::String(s) if tokens.last().is_some_and(|t| t == LAST_APPLIED_ANNOTATION) => {
            if let Some((new, _)) = mask_last_applied_text(s, false, Style::Display, masks) {
                *s = new;
            }
        }
        _ => {
            mask_all(&mut v, Style::Display, masks, 0);
        }
    }
    v
}

pub(super) fn mask_all(v: &mut Value, style: Style, masks: &Masks, depth: usize) -> usize {
    if depth > MAX_DEPTH {
        return 0;
    }
    match v {
        Value::Object(m) => {
            if is_secret_map(m) {
                return mask_secret_fields(m, style, masks);
            }
            let mut n = mask_last_applied_in(m, false, style, masks);
            for (_, child) in m.iter_mut() {
                n += mask_all(child, style, masks, depth + 1);
            }
            n
        }
        Value::Array(items) => items
            .iter_mut()
            .map(|c| mask_all(c, style, masks, depth + 1))
            .sum(),
        _ => 0,
    }
}

/// Mask every field but the non-secret ones, and the last-applied annotation, of a map known to be a Secret.
pub(super) fn mask_secret_fields(m: &mut Map<String, Value>, style: Style, masks: &Masks) -> usize {
    let mut n = 0;
    for (key, v) in m.iter_mut() {
        let field = match key.as_str() {
            "data" => Field::Data,
            "stringData" => Field::StringData,
            k if NON_SECRET_FIELDS.contains(&k) => continue,
            _ => Field::Guess,
        };
        match v {
            Value::Object(entries) => {
                for (_, x) in entries.iter_mut() {
                    n += mask_any(x, field, style, masks, 0);
                }
            }
            other => n += mask_any(other, field, style, masks, 0),
        }
    }
    if let Some(Value::Object(meta)) = m.get_mut("metadata") {
        for (_, v) in meta.iter_mut().filter(|(k, _)| !is_object_meta_field(k)) {
            n += mask_any(v, Field::Guess, style, masks, 0);
        }
    }
    n + mask_last_applied_in(m, true, style, masks)
}

/// Mask a value of a Secret's field: a scalar whole, a list or mapping value by value.
fn mask_any(v: &mut Value, field: Field, style: Style, masks: &Masks, depth: usize) -> usize {
    match v {
        Value::Array(items) if depth < MAX_DEPTH => items
            .iter_mut()
            .map(|x| mask_any(x, field, style, masks, depth + 1))
            .sum(),
        Value::Object(m) if depth < MAX_DEPTH => m
            .values_mut()
            .map(|x| mask_any(x, field, style, masks, depth + 1))
            .sum(),
        _ => mask_json_leaf(v, field, style, masks),
    }
}

pub(super) fn mask_json_leaf(v: &mut Value, field: Field, style: Style, masks: &Masks) -> usize {
    let text = match &*v {
        Value::Null => return 0,
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match masked_for(masks, field, &text, style) {
        Some((masked, _)) => {
            *v = Value::String(masked);
            1
        }
        None => 0,
    }
}

/// The last-applied annotation of `m`, masked when `force` (m is a Secret) or when its JSON is a Secret.
pub(super) fn mask_last_applied_in(
    m: &mut Map<String, Value>,
    force: bool,
    style: Style,
    masks: &Masks,
) -> usize {
    let Some(Value::Object(meta)) = m.get_mut("metadata") else {
        return 0;
    };
    let Some(Value::Object(ann)) = meta.get_mut("annotations") else {
        return 0;
    };
    mask_last_applied_value(ann, force, style, masks)
}

fn mask_last_applied_value(
    ann: &mut Map<String, Value>,
    force: bool,
    style: Style,
    masks: &Masks,
) -> usize {
    let Some(v) = ann.get_mut(LAST_APPLIED_ANNOTATION) else {
        return 0;
    };
    match v {
        Value::Null => 0,
        Value::String(s) => match mask_last_applied_text(s, force, style, masks) {
            Some((new, n)) => {
                *s = new;
                n
            }
            None => 0,
        },
        other if force => {
            *other = Value::String(masks.mask(other.to_string().as_bytes()));
            1
        }
        _ => 0,
    }
}

/// Mask the Secret data inside a last-applied annotation's text. `force`: the annotation belongs to a Secret,
/// so text that is not a JSON object is replaced whole. Returns `None` when nothing needs to change.
pub(super) fn mask_last_applied_text(
    s: &str,
    force: bool,
    style: Style,
    masks: &Masks,
) -> Option<(String, usize)> {
    if is_already_masked(s) {
        return None;
    }
    match serde_json::from_str::<Value>(s) {
        Ok(Value::Object(mut o)) => {
            if !(force || is_secret_map(&o)) {
                return None;
            }
            let n = mask_secret_fields(&mut o, style, masks);
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
                Err(_) => Some((masks.mask(s.as_bytes()), 1)),
            }
        }
        _ if force => Some((masks.mask(s.as_bytes()), 1)),
        _ => None,
    }
}

/// Whether a JSON pointer (RFC 6901) into an object of this kind points at a secret value: for a Secret (any
/// letter case), anything but `apiVersion`, `kind`, `type`, `immutable` and `metadata`, plus the last-applied
/// annotation.
///
/// A leading `#` (URI fragment form) is accepted, and so is the annotation key with its `/` left unescaped.
/// Pointers *above* a secret value (`""`, `/metadata`, `/metadata/annotations`) give `false`; see
/// [`may_contain_secret`] for those.
pub fn is_secret_pointer(kind: &str, pointer: &str) -> bool {
    if !is_secret_kind(kind) {
        return false;
    }
    let t = pointer_tokens(pointer);
    match t.as_slice() {
        [first, second, ..] if first == "metadata" && !is_object_meta_field(second) => true,
        [first, ..] if first == "metadata" => {
            t.get(1).is_some_and(|a| a == "annotations")
                && (t.get(2).is_some_and(|k| k == LAST_APPLIED_ANNOTATION)
                    || (t.get(2).is_some_and(|k| k == "kubectl.kubernetes.io")
                        && t.get(3).is_some_and(|k| k == "last-applied-configuration")))
        }
        [first, ..] => !NON_SECRET_FIELDS.contains(&first.as_str()),
        [] => false,
    }
}

/// Whether the value at `pointer` is, or contains, a secret value: [`is_secret_pointer`], plus the whole
/// Secret object, its `/metadata` and its `/metadata/annotations`. A value for which this is true must be
/// masked (with [`mask_pointer_value`]) before it is shown.
pub fn may_contain_secret(kind: &str, pointer: &str) -> bool {
    if is_secret_pointer(kind, pointer) {
        return true;
    }
    if !is_secret_kind(kind) {
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

/// The tokens of a pointer, also in URI fragment form (`#/data/a`); none for a malformed one.
pub(super) fn pointer_tokens(pointer: &str) -> Vec<String> {
    let p = pointer.strip_prefix('#').unwrap_or(pointer);
    crate::path::pointer_tokens(p).unwrap_or_default()
}
