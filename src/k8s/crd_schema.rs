//! What a CustomResourceDefinition's structural schema tells about its
//! objects: the `default` values the API server fills in
//! (apiextensions-apiserver structural defaulting) and the lists it keys by
//! `x-kubernetes-list-map-keys`.

use crate::path::Seg;
use serde_json::Value;

/// The lists a structural schema keys by `x-kubernetes-list-map-keys`.
pub fn crd_keyed_lists(schema: &Value) -> Vec<Vec<String>> {
    fn walk(schema: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>, depth: usize) {
        if depth > crate::limits::MAX_WALK_DEPTH {
            return;
        }
        let keyed = schema
            .get("x-kubernetes-list-map-keys")
            .and_then(Value::as_array)
            .is_some_and(|keys| !keys.is_empty());
        if keyed && schema.get("type").and_then(Value::as_str) == Some("array") {
            out.push(at.clone());
        }
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (name, sub) in props {
                at.push(name.clone());
                walk(sub, at, out, depth + 1);
                at.pop();
            }
        }
        if let Some(sub) = schema.get("additionalProperties").filter(|s| s.is_object()) {
            at.push("*".into());
            walk(sub, at, out, depth + 1);
            at.pop();
        }
        if let Some(items) = schema.get("items").filter(|s| s.is_object()) {
            walk(items, at, out, depth + 1);
        }
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out, 0);
    out
}

/// Whether a schema declares a `default` or an
/// `x-kubernetes-preserve-unknown-fields` object anywhere: the comparison
/// reads nothing else from it.
pub fn crd_schema_has_default(schema: &Value) -> bool {
    has_default(schema, 0)
}

fn has_default(schema: &Value, depth: usize) -> bool {
    if depth > crate::limits::MAX_WALK_DEPTH {
        return false;
    }
    match schema {
        Value::Object(m) => {
            m.contains_key("default")
                || m.contains_key(PRESERVE_UNKNOWN)
                || m.values().any(|v| has_default(v, depth + 1))
        }
        Value::Array(a) => a.iter().any(|v| has_default(v, depth + 1)),
        _ => false,
    }
}

/// Fill a custom resource's missing fields with its CRD schema's `default`
/// values, as the API server does (apiextensions-apiserver structural
/// defaulting): in every object, each property with a `default` that is
/// absent (or null without `nullable`) gets it, then defaulting continues
/// into every field through `properties`, `additionalProperties` and list
/// `items`, including values a default just filled.
pub fn apply_schema_defaults(schema: &Value, obj: &mut Value) {
    default_walk(schema, obj, 0);
}

fn default_walk(schema: &Value, obj: &mut Value, depth: usize) {
    if depth > crate::limits::MAX_WALK_DEPTH {
        return;
    }
    match obj {
        Value::Object(m) => {
            let props = schema.get("properties").and_then(Value::as_object);
            if let Some(props) = props {
                for (k, p) in props {
                    let Some(default) = p.get("default") else {
                        continue;
                    };
                    let nullable = p.get("nullable").and_then(Value::as_bool).unwrap_or(false);
                    let missing = match m.get(k) {
                        None => true,
                        Some(Value::Null) => !nullable,
                        Some(_) => false,
                    };
                    if missing {
                        m.insert(k.clone(), default.clone());
                    }
                }
            }
            let extra = schema.get("additionalProperties").filter(|a| a.is_object());
            for (k, v) in m.iter_mut() {
                if let Some(child) = props.and_then(|p| p.get(k)).or(extra) {
                    default_walk(child, v, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|i| i.is_object()) {
                for v in items {
                    default_walk(item_schema, v, depth + 1);
                }
            }
        }
        _ => {}
    }
}

const PRESERVE_UNKNOWN: &str = "x-kubernetes-preserve-unknown-fields";

/// Whether `path` lies below an object the schema marks
/// `x-kubernetes-preserve-unknown-fields: true` (the object itself excluded).
pub fn preserves_unknown_above(schema: &Value, path: &[Seg]) -> bool {
    let mut node = schema;
    for seg in path {
        if node.get(PRESERVE_UNKNOWN).and_then(Value::as_bool) == Some(true) {
            return true;
        }
        let next = match seg {
            Seg::Key(k) => node
                .get("properties")
                .and_then(|p| p.get(k))
                .or_else(|| node.get("additionalProperties").filter(|a| a.is_object())),
            Seg::Item { .. } => node.get("items").filter(|i| i.is_object()),
        };
        match next {
            Some(n) => node = n,
            None => return false,
        }
    }
    false
}

/// The value the API server would fill in at `path` from the schema's
/// `default` (itself defaulted further), if the schema declares one there.
pub fn schema_default_at(schema: &Value, path: &[Seg]) -> Option<Value> {
    let mut node = schema;
    for seg in path {
        node = match seg {
            Seg::Key(k) => node
                .get("properties")
                .and_then(|p| p.get(k))
                .or_else(|| node.get("additionalProperties").filter(|a| a.is_object()))?,
            Seg::Item { .. } => node.get("items").filter(|i| i.is_object())?,
        };
    }
    let mut value = node.get("default")?.clone();
    apply_schema_defaults(node, &mut value);
    Some(value)
}
