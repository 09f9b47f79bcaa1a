//! The second render of the same commit as a fact for the rules: a field the
//! two renders disagree on is rendered anew each time, whatever live holds.
//! The kind of value names the template functions behind it and the Git fix.

use super::predicates::{has_timestamp, is_certificate, looks_random};
use super::Finding;
use crate::model::Presence;
use crate::path::Seg;
use serde_json::Value;

type Vars = Vec<(String, String)>;

/// The value at `path` in `obj`; list items by their merge key when the path
/// has one, else by position.
pub fn value_at<'v>(obj: &'v Value, path: &[Seg]) -> Option<&'v Value> {
    let mut v = obj;
    for seg in path {
        v = match seg {
            Seg::Key(k) => v.as_object()?.get(k)?,
            Seg::Item { index, key } => {
                let items = v.as_array()?;
                match key {
                    Some((field, want)) => items.iter().find(|i| i.get(field) == Some(want))?,
                    None => items.get((*index)?)?,
                }
            }
        };
    }
    Some(v)
}

/// What kind of generated value differs, as template functions and a Git fix.
struct Generated {
    functions: &'static str,
    git_fix: &'static str,
}

const CERTIFICATE: Generated = Generated {
    functions: "`genCA`, `genSelfSignedCert`, `genSignedCert` or `genPrivateKey`",
    git_fix: "Issue the certificate with cert-manager (a Certificate, and its cainjector for `caBundle` fields), or pass a fixed CA and key through values; `lookup` of the existing Secret cannot keep it, because Argo CD renders with `helm template`, where `lookup` finds nothing.",
};
const TIME: Generated = Generated {
    functions: "`now` or `date` (or `.Release.Time`)",
    git_fix: "Take the time out of the template, or pass it as a value set once (by CI at build time) in a values file.",
};
const UUID: Generated = Generated {
    functions: "`uuidv4`",
    git_fix: "Set the ID once in a values file.",
};
const RANDOM: Generated = Generated {
    functions: "`randAlphaNum`, `randAlpha`, `randAscii` or `randBytes` (or a `lookup` of the existing Secret falling back to one of them)",
    git_fix: "Set the value in a values file, or keep the Secret outside the chart (External Secrets, Sealed Secrets, an `existingSecret` value) and have the chart refer to it; `lookup` of the existing Secret keeps it only where Helm reaches the cluster, which Argo CD's `helm template` does not.",
};
const OTHER: Generated = Generated {
    functions: "a template function whose result changes on every run (a random string, `now`, a generated certificate or key, `uuidv4`, or `lookup`)",
    git_fix: "Make the value a fixed input: a values file, or an object managed outside the chart.",
};

fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// The text a value holds, base64-decoded for a Secret's `data`.
fn plain(v: Option<&Value>, secret_data: bool) -> String {
    let Some(s) = v.and_then(Value::as_str) else {
        return v.map(crate::text::value_text).unwrap_or_default();
    };
    if secret_data {
        if let Some(text) =
            crate::secret_mask::decode_secret_data(s).and_then(|b| String::from_utf8(b).ok())
        {
            return text;
        }
    }
    s.to_string()
}

fn generated(a: &str, b: &str, secret: bool) -> &'static Generated {
    let both = |f: fn(&str) -> bool| f(a) && f(b);
    if is_certificate(a) || is_certificate(b) {
        &CERTIFICATE
    } else if both(is_uuid) {
        &UUID
    } else if both(has_timestamp) {
        &TIME
    } else if both(looks_random) || secret {
        &RANDOM
    } else {
        &OTHER
    }
}

/// The template functions behind two values two renders disagree on, and
/// the Git fix: `secret` for a Secret's value (`secret_data` when it is
/// base64 `data`, decoded before looking).
pub fn generated_kind(
    first: Option<&Value>,
    other: Option<&Value>,
    secret: bool,
    secret_data: bool,
) -> (&'static str, &'static str) {
    let (a, b) = (plain(first, secret_data), plain(other, secret_data));
    let what = generated(&a, &b, secret);
    (what.functions, what.git_fix)
}

/// What a value of one render looks like when it looks generated at render
/// time: `certificate`, `random` or `time`, the template functions behind
/// such values and the Git fix. `random` is only judged for a Secret's
/// values (`secret`), where a password or token is expected to look so;
/// elsewhere a random-looking string is as often an ID written by hand.
pub fn looks_generated(
    v: &Value,
    secret: bool,
    secret_data: bool,
) -> Option<(&'static str, &'static str, &'static str)> {
    let text = plain(Some(v), secret_data);
    let what: (&str, &Generated) = if is_certificate(&text) {
        ("certificate", &CERTIFICATE)
    } else if secret && looks_random(&text) {
        ("random", &RANDOM)
    } else if !secret && is_uuid(&text) {
        ("uuid", &UUID)
    } else if !secret && has_timestamp(&text) {
        ("time", &TIME)
    } else {
        return None;
    };
    Some((what.0, what.1.functions, what.1.git_fix))
}

/// The two renders of the same commit hold different values at this path.
pub fn differs_between_renders(f: &Finding<'_>) -> Option<Vars> {
    let second = f.input.second_render.as_ref()?;
    if f.presence != Presence::Both || f.path.is_empty() {
        return None;
    }
    let (first_obj, second_obj) = (f.git_obj?, second.get(f.key)?);
    let first = value_at(first_obj, f.path);
    let other = value_at(second_obj, f.path);
    if first == other {
        return None;
    }
    let kind = crate::secret_mask::kind_for_masking(&f.key.kind, [f.git_obj, f.live_obj]);
    let secret = crate::secret_mask::is_secret_pointer(kind, f.pointer);
    let secret_data = secret && f.pointer.starts_with("/data/");
    let (functions, git_fix) = generated_kind(first, other, secret, secret_data);
    // A Secret's values are never named: masks tell only that they differ.
    let shown = |v: Option<&Value>| crate::text::one_line(&crate::text::value_or_absent(v), 60);
    let (first_s, second_s) = if secret {
        ("a secret value".to_string(), "a different one".to_string())
    } else {
        (shown(first), shown(other))
    };
    Some(vec![
        ("first".into(), first_s),
        ("second".into(), second_s),
        ("functions".into(), functions.into()),
        ("git_fix".into(), git_fix.into()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn items_by_merge_key_or_position() {
        let obj = json!({"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}});
        let by_key = [
            Seg::key("spec"),
            Seg::key("containers"),
            Seg::Item {
                index: Some(0),
                key: Some(("name".into(), json!("b"))),
            },
            Seg::key("image"),
        ];
        assert_eq!(value_at(&obj, &by_key), Some(&json!("y")));
        let by_index = [
            Seg::key("spec"),
            Seg::key("containers"),
            Seg::Item {
                index: Some(0),
                key: None,
            },
            Seg::key("image"),
        ];
        assert_eq!(value_at(&obj, &by_index), Some(&json!("x")));
        assert_eq!(value_at(&obj, &[Seg::key("nope")]), None);
    }

    #[test]
    fn kinds_of_generated_values() {
        assert_eq!(
            generated(
                "-----BEGIN CERTIFICATE-----a",
                "-----BEGIN CERTIFICATE-----b",
                false
            )
            .functions,
            CERTIFICATE.functions
        );
        assert_eq!(
            generated(
                "0b8f5e3c-1a2b-4c3d-9e8f-0a1b2c3d4e5f",
                "9f8e7d6c-5b4a-4321-8fed-cba987654321",
                false
            )
            .functions,
            UUID.functions
        );
        assert_eq!(
            generated("2026-12-01T10:00:00Z", "2026-12-01T10:05:00Z", false).functions,
            TIME.functions
        );
        assert_eq!(
            generated("Zq8Rk2LmW9xTa4Vb", "Hn3Yp7QeC5uJs1Kd", false).functions,
            RANDOM.functions
        );
        assert_eq!(generated("a", "b", false).functions, OTHER.functions);
    }
}
