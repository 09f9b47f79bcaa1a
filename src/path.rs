//! Paths inside Kubernetes objects, and their two printed forms:
//! RFC 6901 JSON pointers and the jq paths Argo CD's `jqPathExpressions` accept.

#![warn(missing_docs)]

use serde_json::Value;

/// One step of a path inside a Kubernetes object.
#[derive(Debug, Clone, PartialEq)]
pub enum Seg {
    /// A field of a mapping, by name.
    Key(String),
    /// A list item: its index when known, and its merge key and value when the list has one.
    Item {
        /// The item's position in the list.
        index: Option<usize>,
        /// The merge key's field name and the item's value of it.
        key: Option<(String, Value)>,
    },
}

impl Seg {
    /// A mapping field step.
    pub fn key(k: &str) -> Seg {
        Seg::Key(k.to_string())
    }
}

/// One JSON pointer token as RFC 6901 writes it (`~` as `~0`, `/` as `~1`).
pub fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// One JSON pointer token as written back to the key it names.
pub fn unescape_pointer_token(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// The unescaped reference tokens of an RFC 6901 pointer (`""` is the whole document: no
/// tokens); `None` when a non-empty pointer does not start with `/`.
pub fn pointer_tokens(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    Some(tokens_of(rest).map(unescape_pointer_token).collect())
}

/// `Value::pointer` and `Value::pointer_mut` with the same answers, without
/// writing out each token anew (the analysis looks up a few fixed paths in
/// every object, several times).
pub trait Pointer {
    /// The value an RFC 6901 pointer names, as [`Value::pointer`] finds it.
    fn at(&self, pointer: &str) -> Option<&Value>;
    /// The value an RFC 6901 pointer names, as [`Value::pointer_mut`] finds it.
    fn at_mut(&mut self, pointer: &str) -> Option<&mut Value>;
}

/// One token, unescaped only when it holds an escape.
fn pointer_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.as_bytes().contains(&b'~') {
        std::borrow::Cow::Owned(unescape_pointer_token(token))
    } else {
        std::borrow::Cow::Borrowed(token)
    }
}

/// The tokens of a pointer after its first `/`, as `str::split('/')` gives
/// them, found a byte at a time: the pointers looked up are a few short
/// tokens, where the standard library's character search costs more than
/// the lookup. Every pointer of this module is split here.
fn tokens_of(rest: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(rest);
    std::iter::from_fn(move || {
        let left = rest?;
        match left.bytes().position(|b| b == b'/') {
            Some(slash) => {
                rest = Some(&left[slash + 1..]);
                Some(&left[..slash])
            }
            None => {
                rest = None;
                Some(left)
            }
        }
    })
}

/// A list index as serde_json reads one in a pointer (no sign, no leading zero).
fn pointer_index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
        return None;
    }
    token.parse().ok()
}

impl Pointer for Value {
    fn at(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        tokens_of(rest).try_fold(self, |target, token| {
            let token = pointer_token(token);
            match target {
                Value::Object(map) => map.get(token.as_ref()),
                Value::Array(list) => pointer_index(&token).and_then(|i| list.get(i)),
                _ => None,
            }
        })
    }

    fn at_mut(&mut self, pointer: &str) -> Option<&mut Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        tokens_of(rest).try_fold(self, |target, token| {
            let token = pointer_token(token);
            match target {
                Value::Object(map) => map.get_mut(token.as_ref()),
                Value::Array(list) => pointer_index(&token).and_then(move |i| list.get_mut(i)),
                _ => None,
            }
        })
    }
}

/// The list item a step names: by its merge key when it has one (a webhook
/// may have moved it), else by its index.
fn item_index(
    items: &[Value],
    index: Option<usize>,
    key: Option<&(String, Value)>,
) -> Option<usize> {
    match key {
        Some((k, v)) => items.iter().position(|i| i.get(k) == Some(v)),
        None => index.filter(|&i| i < items.len()),
    }
}

/// The value at `path` inside `value`, if it is there.
pub fn get<'v>(value: &'v Value, path: &[Seg]) -> Option<&'v Value> {
    let mut cur = value;
    for seg in path {
        cur = match (seg, cur) {
            (Seg::Key(k), Value::Object(m)) => m.get(k)?,
            (Seg::Item { index, key }, Value::Array(a)) => &a[item_index(a, *index, key.as_ref())?],
            _ => return None,
        };
    }
    Some(cur)
}

/// Set the value at `path` (`None` removes it), creating the maps on the
/// way; a list item that is not there is appended when a value is set.
/// Returns whether anything changed.
pub fn set(value: &mut Value, path: &[Seg], new: Option<Value>) -> bool {
    let Some((last, parents)) = path.split_last() else {
        return match new {
            Some(v) if *value != v => {
                *value = v;
                true
            }
            _ => false,
        };
    };
    let mut cur = value;
    for seg in parents {
        cur = match seg {
            Seg::Key(k) => {
                if !cur.is_object() {
                    if new.is_none() {
                        return false;
                    }
                    *cur = Value::Object(Default::default());
                }
                let Value::Object(m) = cur else { return false };
                if new.is_none() && !m.contains_key(k) {
                    return false;
                }
                m.entry(k.clone())
                    .or_insert(Value::Object(Default::default()))
            }
            Seg::Item { index, key } => {
                let Value::Array(a) = cur else { return false };
                let Some(i) = item_index(a, *index, key.as_ref()) else {
                    return false;
                };
                &mut a[i]
            }
        };
    }
    match (last, cur) {
        (Seg::Key(k), Value::Object(m)) => match new {
            Some(v) => m.insert(k.clone(), v.clone()).as_ref() != Some(&v),
            None => m.remove(k).is_some(),
        },
        (Seg::Item { index, key }, Value::Array(a)) => {
            match (item_index(a, *index, key.as_ref()), new) {
                (Some(i), Some(v)) => {
                    let changed = a[i] != v;
                    a[i] = v;
                    changed
                }
                (Some(i), None) => {
                    a.remove(i);
                    true
                }
                (None, Some(v)) => {
                    a.push(v);
                    true
                }
                (None, None) => false,
            }
        }
        _ => false,
    }
}

/// RFC 6901 pointer; an item of unknown index prints as `*`.
pub fn pointer(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        out.push('/');
        match seg {
            Seg::Key(k) => out.push_str(&escape_pointer_token(k)),
            Seg::Item { index: Some(i), .. } => out.push_str(&i.to_string()),
            Seg::Item { index: None, .. } => out.push('*'),
        }
    }
    out
}

fn is_plain_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn jq_key(key: &str) -> String {
    if is_plain_identifier(key) {
        format!(".{key}")
    } else {
        format!(
            ".{}",
            serde_json::to_string(key).unwrap_or_else(|_| "\"\"".into())
        )
    }
}

fn jq_literal(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

/// A jq path expression; list items with a merge key are selected by it.
/// The jq path expression selecting `path` (see [`jq_with`]).
pub fn jq(path: &[Seg]) -> String {
    jq_with(path, false)
}

/// The jq path expression selecting `path`; `optional` adds `?` after `[]`
/// so the expression never fails on objects lacking the list.
pub fn jq_with(path: &[Seg], optional: bool) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let mut out = String::new();
    let mut after_select = false;
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if after_select {
                    out.push_str(" | ");
                    after_select = false;
                }
                out.push_str(&jq_key(k));
            }
            Seg::Item {
                key: Some((name, value)),
                ..
            } => {
                if after_select {
                    out.push_str(" | .");
                }
                if out.is_empty() {
                    out.push('.');
                }
                out.push_str(if optional { "[]?" } else { "[]" });
                out.push_str(&format!(
                    " | select(.{} == {})",
                    jq_key(name).trim_start_matches('.'),
                    jq_literal(value)
                ));
                after_select = true;
            }
            Seg::Item { index, key: None } => {
                if after_select {
                    out.push_str(" | .");
                    after_select = false;
                }
                if out.is_empty() {
                    out.push('.');
                }
                match index {
                    Some(i) => out.push_str(&format!("[{i}]")),
                    None => out.push_str(if optional { "[]?" } else { "[]" }),
                }
            }
        }
    }
    out
}

/// Whether a path can be written as a positional JSON pointer that Argo CD's
/// `jsonPointers` would apply to the right field (no keyed or unknown list items).
pub fn pointer_is_exact(path: &[Seg]) -> bool {
    path.iter().all(|s| matches!(s, Seg::Key(_)))
}

/// Parse a JSON pointer into keys and indices (numeric tokens become items).
pub fn parse_pointer(p: &str) -> Vec<Seg> {
    if p.is_empty() {
        return Vec::new();
    }
    tokens_of(p.trim_start_matches('/'))
        .map(|t| {
            if t == "*" {
                Seg::Item {
                    index: None,
                    key: None,
                }
            } else if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) && t.len() < 10 {
                Seg::Item {
                    index: t.parse().ok(),
                    key: None,
                }
            } else {
                Seg::Key(unescape_pointer_token(t))
            }
        })
        .collect()
}

/// A dotted, human form used in titles: `spec.template.spec.containers[app].image`.
pub fn dotted(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                if is_plain_identifier(k) {
                    out.push_str(k);
                } else {
                    out.push_str(&format!("\"{k}\""));
                }
            }
            Seg::Item {
                key: Some((_, v)), ..
            } => {
                let shown = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                out.push_str(&format!("[{shown}]"));
            }
            Seg::Item { index: Some(i), .. } => out.push_str(&format!("[{i}]")),
            Seg::Item { index: None, .. } => out.push_str("[*]"),
        }
    }
    out
}

/// Split a pointer pattern (as rules write them) into unescaped tokens.
pub fn split_pattern(pattern: &str) -> Vec<String> {
    if pattern.is_empty() {
        return Vec::new();
    }
    tokens_of(pattern.trim_start_matches('/'))
        .map(unescape_pointer_token)
        .collect()
}

/// A path as [`PathPattern`]s match it, one token per segment: keys as they
/// are, list items by index, and an item of unknown index as `*`.
pub fn tokens(path: &[Seg]) -> Vec<String> {
    path.iter()
        .map(|s| match s {
            Seg::Key(k) => k.clone(),
            Seg::Item { index: Some(i), .. } => i.to_string(),
            Seg::Item { index: None, .. } => "*".to_string(),
        })
        .collect()
}

/// A path pattern, as the rule catalogue (`match.paths`) and the list of
/// security-relevant fields write them: a JSON pointer whose tokens are
/// unescaped as in RFC 6901 (`~1` is `/`, `~0` is `~`) and may hold wildcards:
///
/// - `*` as a whole token matches exactly one segment (a key or a list index);
/// - `**` as a whole token matches any number of segments, none included;
/// - `*` inside a token matches any run of characters within one segment
///   (`checksum~1*` matches the key `checksum/config`).
///
/// Paths are matched as their [`tokens`] (or a pointer's unescaped tokens,
/// [`split_pattern`]). The empty pattern matches only the root;
/// `/spec/**` matches `/spec` and everything below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPattern {
    tokens: Vec<String>,
}

impl PathPattern {
    /// Read a pattern written as a JSON pointer with wildcards.
    pub fn parse(pattern: &str) -> PathPattern {
        PathPattern {
            tokens: split_pattern(pattern),
        }
    }

    /// Whether a path, given as its tokens, matches the whole pattern.
    pub fn matches<T: AsRef<str>>(&self, path: &[T]) -> bool {
        tokens_match(&self.tokens, path)
    }
}

fn tokens_match<T: AsRef<str>>(pattern: &[String], path: &[T]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((first, rest)) if first == "**" => {
            (0..=path.len()).any(|i| tokens_match(rest, &path[i..]))
        }
        Some((first, rest)) => match path.split_first() {
            Some((t, trest)) => {
                (first == "*" || glob(first, t.as_ref())) && tokens_match(rest, trest)
            }
            None => false,
        },
    }
}

/// Wildcard match of a whole text: `*` matches any run of characters (none
/// included); every other character matches itself.
pub fn glob(pattern: &str, text: &str) -> bool {
    // Iterative wildcard match with backtracking on the last `*`.
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item(name: &str, i: usize) -> Seg {
        Seg::Item {
            index: Some(i),
            key: Some(("name".into(), json!(name))),
        }
    }

    #[test]
    fn pointer_lookups_answer_as_serde_json_does() {
        let mut doc = json!({
            "metadata": {"annotations": {"a/b": 1, "m~n": 2, "": 3, "é/ü": 4}},
            "": {"": {"x": 5}},
            "spec": {"template": {"metadata": {"labels": {"app": "web"}}}},
            "list": [{"name": "a"}, {"name": "b"}, 7],
        });
        for p in [
            "",
            "/",
            "//",
            "///x",
            "/metadata/annotations/a~1b",
            "/metadata/annotations/m~0n",
            "/metadata/annotations/",
            "/metadata/annotations/é~1ü",
            "/spec/template/metadata/labels/app",
            "/spec/template/metadata/labels/app/",
            "/list/0/name",
            "/list/1",
            "/list/2",
            "/list/01",
            "/list/+1",
            "/list/3",
            "/list/-",
            "metadata",
            "/nothing/here",
        ] {
            assert_eq!(doc.at(p), doc.pointer(p), "{p:?}");
            let expected = doc.clone().pointer_mut(p).map(|v| v.clone());
            assert_eq!(doc.at_mut(p).map(|v| v.clone()), expected, "{p:?}");
            if let Some(rest) = p.strip_prefix('/') {
                assert!(tokens_of(rest).eq(rest.split('/')), "{p:?}");
            }
        }
    }

    #[test]
    fn pointer_escapes_slashes_and_tildes() {
        let p = vec![
            Seg::key("metadata"),
            Seg::key("annotations"),
            Seg::key("kubectl.kubernetes.io/restartedAt"),
        ];
        assert_eq!(
            pointer(&p),
            "/metadata/annotations/kubectl.kubernetes.io~1restartedAt"
        );
        assert_eq!(parse_pointer(&pointer(&p)), p);
        assert_eq!(pointer(&[Seg::key("a~b")]), "/a~0b");
    }

    #[test]
    fn jq_selects_keyed_items_and_quotes_odd_keys() {
        let p = vec![
            Seg::key("spec"),
            Seg::key("template"),
            Seg::key("spec"),
            Seg::key("containers"),
            item("app", 0),
            Seg::key("image"),
        ];
        assert_eq!(
            jq(&p),
            r#".spec.template.spec.containers[] | select(.name == "app") | .image"#
        );
        assert_eq!(pointer(&p), "/spec/template/spec/containers/0/image");
        let a = vec![
            Seg::key("metadata"),
            Seg::key("annotations"),
            Seg::key("checksum/config"),
        ];
        assert_eq!(jq(&a), r#".metadata.annotations."checksum/config""#);
        let w = vec![
            Seg::key("webhooks"),
            Seg::Item {
                index: None,
                key: None,
            },
            Seg::key("clientConfig"),
            Seg::key("caBundle"),
        ];
        assert_eq!(jq_with(&w, true), ".webhooks[]?.clientConfig.caBundle");
        assert_eq!(pointer(&w), "/webhooks/*/clientConfig/caBundle");
        let nested = vec![
            Seg::key("spec"),
            Seg::key("containers"),
            item("a", 1),
            Seg::key("env"),
            item("X", 2),
        ];
        assert_eq!(
            jq(&nested),
            r#".spec.containers[] | select(.name == "a") | .env[] | select(.name == "X")"#
        );
        assert_eq!(jq(&[]), ".");
        assert_eq!(
            jq(&[
                Seg::key("rules"),
                Seg::Item {
                    index: Some(3),
                    key: None
                }
            ]),
            ".rules[3]"
        );
    }

    #[test]
    fn dotted_is_readable() {
        let p = vec![
            Seg::key("spec"),
            Seg::key("containers"),
            item("app", 0),
            Seg::key("image"),
        ];
        assert_eq!(dotted(&p), "spec.containers[app].image");
    }

    #[test]
    fn patterns_match_segments_globs_and_any_depth() {
        let m = |pattern: &str, pointer: &str| {
            PathPattern::parse(pattern).matches(&split_pattern(pointer))
        };
        assert!(m("/spec/replicas", "/spec/replicas"));
        assert!(!m("/spec/replicas", "/spec/replicas/x"));
        assert!(m("/spec/*/name", "/spec/0/name"));
        assert!(!m("/spec/*/name", "/spec/name"));
        assert!(m("**/image", "/spec/containers/0/image"));
        assert!(m("**/image", "/image"));
        assert!(m("/spec/**", "/spec"));
        assert!(m(
            "/metadata/annotations/checksum~1*",
            "/metadata/annotations/checksum~1config"
        ));
        assert!(!m(
            "/metadata/annotations/checksum~1*",
            "/metadata/annotations/other"
        ));
        assert!(m("", ""));
        assert!(!m("", "/spec"));
        let unknown_item = [
            Seg::key("webhooks"),
            Seg::Item {
                index: None,
                key: None,
            },
        ];
        assert!(PathPattern::parse("/webhooks/*").matches(&tokens(&unknown_item)));
        assert!(!PathPattern::parse("/webhooks/0").matches(&tokens(&unknown_item)));
    }
}
