//! Masking on parsed objects (serde_json values), for reports; and which JSON pointers of a Secret hold values.

use super::*;

/// `kind: Secret` of the core group (apiVersion `v1`, or no apiVersion at all, as in some diff fragments).
pub(super) fn is_secret_map(m: &Map<String, Value>) -> bool {
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

pub(super) fn mask_all(v: &mut Value, style: Style, depth: usize) -> usize {
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
pub(super) fn mask_secret_fields(m: &mut Map<String, Value>, style: Style) -> usize {
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

pub(super) fn mask_json_leaf(v: &mut Value, field: Field, style: Style) -> usize {
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
pub(super) fn mask_last_applied_in(m: &mut Map<String, Value>, force: bool, style: Style) -> usize {
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
pub(super) fn mask_last_applied_text(
    s: &str,
    force: bool,
    style: Style,
) -> Option<(String, usize)> {
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

pub(super) fn is_core_secret(group: &str, kind: &str) -> bool {
    kind == "Secret" && (group.is_empty() || group == "core" || group == "v1")
}

pub(super) fn pointer_tokens(pointer: &str) -> Vec<String> {
    let p = pointer.strip_prefix('#').unwrap_or(pointer);
    match p.strip_prefix('/') {
        None => Vec::new(),
        Some(rest) => rest
            .split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    }
}
