//! What the page shows beside a report: each resource's Git and live YAML
//! (Secret values masked, server bookkeeping left out) and a line diff of them.

use crate::identity::{key_of, ScopeTable};
use crate::input::{parse_side, InputError, Side};
use crate::Options;
use serde_json::Value;
use std::collections::BTreeMap;

/// Git and live YAML of every resource, by report id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceTexts {
    pub git: Option<String>,
    pub live: Option<String>,
}

fn display_object(obj: &Value) -> String {
    let mut v = obj.clone();
    if let Some(Value::Object(meta)) = v.get_mut("metadata") {
        meta.remove("managedFields");
    }
    let is_secret = obj.get("kind").and_then(Value::as_str) == Some("Secret")
        && obj
            .get("apiVersion")
            .and_then(Value::as_str)
            .is_some_and(|a| a == "v1");
    if is_secret {
        crate::secret_mask::mask_secret_object(&mut v);
    }
    serde_yaml::to_string(&v).unwrap_or_default()
}

/// Parse both sides and return each resource's texts, keyed like the report.
pub fn resource_texts(
    git: &str,
    live: &str,
    opts: &Options,
) -> Result<BTreeMap<String, ResourceTexts>, InputError> {
    let git_docs = parse_side(git, Side::Git)?;
    let live_docs = parse_side(live, Side::Live)?;
    let mut scopes = ScopeTable::default();
    for d in git_docs.iter().chain(&live_docs) {
        scopes.learn_from(&d.object);
    }
    let ns = opts.namespace.as_deref().filter(|s| !s.is_empty());
    let mut out: BTreeMap<String, ResourceTexts> = BTreeMap::new();
    let live_keys: Vec<(crate::identity::ResourceKey, &Value)> = live_docs
        .iter()
        .map(|d| (key_of(&d.object, &scopes, ns), &d.object))
        .collect();
    for (k, obj) in &live_keys {
        out.entry(k.to_string())
            .or_default()
            .live
            .get_or_insert_with(|| display_object(obj));
    }
    for d in &git_docs {
        let mut key = key_of(&d.object, &scopes, ns);
        if key.namespace.is_empty() && !scopes.is_cluster_scoped(&key.group, &key.kind) {
            let mut same = live_keys
                .iter()
                .filter(|(k, _)| k.group == key.group && k.kind == key.kind && k.name == key.name);
            if let (Some((only, _)), None) = (same.next(), same.next()) {
                key = only.clone();
            }
        }
        out.entry(key.to_string())
            .or_default()
            .git
            .get_or_insert_with(|| display_object(&d.object));
    }
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineTag {
    Same,
    /// Only in Git.
    Git,
    /// Only live.
    Live,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    pub tag: LineTag,
    pub git_line: Option<usize>,
    pub live_line: Option<usize>,
    pub text: String,
}

/// A line diff of two texts (Git first), without a deadline so that it never
/// reads a clock (there is none on wasm32-unknown-unknown).
pub fn line_diff(git: &str, live: &str) -> Vec<DiffLine> {
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .diff_lines(git, live);
    diff.iter_all_changes()
        .map(|c| DiffLine {
            tag: match c.tag() {
                similar::ChangeTag::Equal => LineTag::Same,
                similar::ChangeTag::Delete => LineTag::Git,
                similar::ChangeTag::Insert => LineTag::Live,
            },
            git_line: c.old_index().map(|i| i + 1),
            live_line: c.new_index().map(|i| i + 1),
            text: c.value().trim_end_matches('\n').to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_pair_by_report_id_and_mask_secrets() {
        let git = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: n\nstringData:\n  password: hunter2\n";
        let live = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: n\n  managedFields: []\ndata:\n  password: aHVudGVyMg==\n";
        let t = resource_texts(git, live, &Options::default()).unwrap();
        let s = &t["/Secret/n/s"];
        assert!(!s.git.as_ref().unwrap().contains("hunter2"));
        assert!(!s.live.as_ref().unwrap().contains("aHVudGVyMg=="));
        assert!(!s.live.as_ref().unwrap().contains("managedFields"));
    }

    #[test]
    fn line_diff_marks_each_side() {
        let d = line_diff("a\nb\nc\n", "a\nx\nc\n");
        let tags: Vec<LineTag> = d.iter().map(|l| l.tag).collect();
        assert_eq!(
            tags,
            vec![LineTag::Same, LineTag::Git, LineTag::Live, LineTag::Same]
        );
        assert_eq!(d[1].git_line, Some(2));
        assert_eq!(d[2].live_line, Some(2));
    }
}
