//! What the page shows beside a report: each resource's Git and live YAML
//! (Secret values masked, server bookkeeping left out) and a line diff of them.

#![warn(missing_docs)]

pub mod compared;

use crate::input::{parse_side, Document, InputError, Side};
use crate::secret_mask::Masks;
use crate::sorting::CollectByInsertion;
use crate::Options;
use serde_json::Value;
use std::collections::BTreeMap;

/// Git and live YAML of every resource, by report id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceTexts {
    /// The Git object as YAML, if Git has it.
    pub git: Option<String>,
    /// The live object as YAML, if live has it.
    pub live: Option<String>,
}

/// An object as the page shows it: Secret values masked, server
/// bookkeeping (managedFields) left out.
fn display_value(obj: &Value, masks: &Masks) -> Value {
    let mut v = obj.clone();
    if let Some(Value::Object(meta)) = v.get_mut("metadata") {
        meta.remove("managedFields");
    }
    crate::secret_mask::mask_secret_object(&mut v, masks);
    v
}

/// Git and live objects of one resource, as the page shows them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceObjects {
    /// The Git object, if Git has it.
    pub git: Option<Value>,
    /// The live object, if live has it.
    pub live: Option<Value>,
}

/// Parse both sides and return each resource's objects (Secret values
/// masked, managedFields left out), keyed like the report.
pub fn resource_objects(
    git: &str,
    live: &str,
    opts: &Options,
) -> Result<BTreeMap<String, ResourceObjects>, InputError> {
    let git_docs = parse_side(git, Side::Git)?;
    let live_docs = parse_side(live, Side::Live)?;
    resource_objects_of(git, &git_docs, live, &live_docs, opts)
}

/// [`resource_objects`] of sides already parsed from `git` and `live`
/// (the texts number the Secret masks as the report numbers them).
pub fn resource_objects_of(
    git: &str,
    git_docs: &[Document],
    live: &str,
    live_docs: &[Document],
    opts: &Options,
) -> Result<BTreeMap<String, ResourceObjects>, InputError> {
    let masks = Masks::for_texts(&[git, live]);
    let paired = crate::pairing::pair(git_docs, live_docs, opts.namespace.as_deref())?;
    let mut out: BTreeMap<String, ResourceObjects> = BTreeMap::new();
    for (key, d) in &paired.live {
        out.entry(key.to_string()).or_default().live = Some(display_value(&d.hydrated(), &masks));
    }
    for (key, d) in &paired.git {
        out.entry(key.to_string()).or_default().git = Some(display_value(&d.hydrated(), &masks));
    }
    Ok(out)
}

/// Parse both sides and return each resource's YAML texts, keyed like the
/// report: [`resource_objects`] written out.
pub fn resource_texts(
    git: &str,
    live: &str,
    opts: &Options,
) -> Result<BTreeMap<String, ResourceTexts>, InputError> {
    let yaml = |v: Option<Value>| v.map(|v| serde_yaml::to_string(&v).unwrap_or_default());
    Ok(resource_objects(git, live, opts)?
        .into_iter()
        .map(|(id, o)| {
            let texts = ResourceTexts {
                git: yaml(o.git),
                live: yaml(o.live),
            };
            (id, texts)
        })
        .collect_by_insertion())
}

/// Which side a line of the diff view is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineTag {
    /// On both.
    Same,
    /// Only in Git.
    Git,
    /// Only live.
    Live,
}

/// How Argo CD counts what a line of the compared view shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineMark {
    /// Compared, and no counted difference (or a plain line diff).
    Plain,
    /// Part of a difference Argo CD counts.
    Counted,
    /// Part of a difference Argo CD does not count (an ignore rule, a
    /// hidden reason).
    Hidden,
    /// Never compared (dropped by Argo CD's normalisation) or differing
    /// without a difference (what the API server fills in).
    Uncompared,
    /// The last-applied annotation, folded to one line.
    Folded,
}

/// One line of the diff view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    /// Its side.
    pub tag: LineTag,
    /// Its 1-based number in the Git text (in pasted diff output: in the
    /// masked diff text), when it is on the Git side.
    pub git_line: Option<usize>,
    /// Its 1-based number in the live text (in pasted diff output: in the
    /// masked diff text), when it is on the live side.
    pub live_line: Option<usize>,
    /// The line, without its line break.
    pub text: String,
    /// The JSON pointer of the field the line shows ("" when unknown).
    pub pointer: String,
    /// How Argo CD counts it.
    pub mark: LineMark,
    /// The pointer of the report's difference this line begins, for a link
    /// from the difference to its row.
    pub anchor: Option<String>,
}

/// A line diff of two texts (Git first), without a deadline so that it never
/// reads a clock (there is none on wasm32-unknown-unknown).
pub fn line_diff(git: &str, live: &str) -> Vec<DiffLine> {
    let old: Vec<&str> = git.lines().collect();
    let new: Vec<&str> = live.lines().collect();
    let mut out = Vec::with_capacity(old.len().max(new.len()));
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old, &new) {
        for change in op.iter_changes(&old, &new) {
            out.push(DiffLine {
                tag: match change.tag() {
                    similar::ChangeTag::Equal => LineTag::Same,
                    similar::ChangeTag::Delete => LineTag::Git,
                    similar::ChangeTag::Insert => LineTag::Live,
                },
                git_line: change.old_index().map(|i| i + 1),
                live_line: change.new_index().map(|i| i + 1),
                text: change.value().to_string(),
                pointer: String::new(),
                mark: LineMark::Plain,
                anchor: None,
            });
        }
    }
    out
}

/// The pasted diff output of each resource, by report id, as lines of the
/// side-by-side view: `<` and `-` lines are live, `>` and `+` lines Git (the
/// order `argocd app diff` and `kubectl diff` use), unified context lines are
/// on both sides; headers, hunk ranges and anything between outputs are left
/// out. Secret values are masked first; line numbers are those of the masked
/// text, which masking can lengthen by a line where a context line differs.
pub fn diff_text_lines(text: &str) -> Result<BTreeMap<String, Vec<DiffLine>>, InputError> {
    let (masked, _) = crate::secret_mask::mask_secrets_in_text(text, &Masks::default());
    let parsed = crate::difftext::parse_diff_text(&masked)?;
    let lines: Vec<&str> = masked.split('\n').collect();
    let mut out: BTreeMap<String, Vec<DiffLine>> = BTreeMap::new();
    for (i, r) in parsed.iter().enumerate() {
        // From the line after the header to the line before the next header.
        let end = parsed
            .get(i + 1)
            .map_or(lines.len(), |next| next.line.saturating_sub(1))
            .min(lines.len());
        let start = r.line.min(end);
        let key = crate::identity::ResourceKey {
            group: crate::identity::canonical_group(&r.group, &r.kind),
            kind: r.kind.clone(),
            namespace: r.namespace.clone(),
            name: r.name.clone(),
        };
        let unified = r.format != crate::difftext::TextFormat::ArgoNormal;
        let view = out.entry(key.to_string()).or_default();
        for (k, raw) in lines[start..end].iter().enumerate() {
            let n = Some(start + k + 1);
            let line = raw.trim_end_matches('\r');
            let (tag, body) = match line.as_bytes().first() {
                Some(b'<') if !unified => (LineTag::Live, after_marker(line)),
                Some(b'>') if !unified => (LineTag::Git, after_marker(line)),
                _ if unified && (line.starts_with("--- ") || line.starts_with("+++ ")) => continue,
                Some(b'-') if unified => (LineTag::Live, &line[1..]),
                Some(b'+') if unified => (LineTag::Git, &line[1..]),
                Some(b' ') if unified => (LineTag::Same, &line[1..]),
                _ => continue,
            };
            view.push(DiffLine {
                tag,
                git_line: n,
                live_line: n,
                text: body.to_string(),
                pointer: String::new(),
                mark: LineMark::Plain,
                anchor: None,
            });
        }
    }
    Ok(out)
}

/// A normal-format line without its `< ` or `> `.
fn after_marker(line: &str) -> &str {
    let rest = &line[1..];
    rest.strip_prefix(' ').unwrap_or(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_text_lines_split_each_resource_by_side_and_mask_secrets() {
        let text = "===== /Secret default/db ======\n3c3\n<   password: c2VjcmV0LW9uZQ==\n---\n>   password: c2VjcmV0LXR3bw==\n\n$ kubectl diff -f web.yaml\ndiff -u -N /tmp/LIVE-1/apps.v1.Deployment.default.web /tmp/MERGED-2/apps.v1.Deployment.default.web\n--- /tmp/LIVE-1/apps.v1.Deployment.default.web\t2025-01-10\n+++ /tmp/MERGED-2/apps.v1.Deployment.default.web\t2025-01-10\n@@ -5,3 +5,3 @@\n spec:\n-  replicas: 3\n+  replicas: 2\n   selector:\n";
        let views = diff_text_lines(text).unwrap();
        let secret = &views["/Secret/default/db"];
        let tags: Vec<LineTag> = secret.iter().map(|l| l.tag).collect();
        assert_eq!(tags, [LineTag::Live, LineTag::Git]);
        assert!(secret.iter().all(|l| l.text.starts_with("  password: ")));
        assert!(
            secret.iter().all(|l| !l.text.contains("c2VjcmV0")),
            "{secret:?}"
        );
        let web = &views["apps/Deployment/default/web"];
        let shown: Vec<(LineTag, &str)> = web.iter().map(|l| (l.tag, l.text.as_str())).collect();
        assert_eq!(
            shown,
            [
                (LineTag::Same, "spec:"),
                (LineTag::Live, "  replicas: 3"),
                (LineTag::Git, "  replicas: 2"),
                (LineTag::Same, "  selector:"),
            ]
        );
        assert_eq!(web[1].git_line, Some(13));
    }

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
    fn held_sides_show_what_a_fresh_parse_shows() {
        // The analysis holds live with its status and managedFields cut out
        // until asked for; the view puts them back (managedFields then left
        // out, as always).
        let git = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: n\nspec:\n  replicas: 2\n";
        let live = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: n\n  managedFields:\n  - manager: kubectl-edit\n    operation: Update\nspec:\n  replicas: 3\nstatus:\n  readyReplicas: 3\n";
        let opts = Options::default();
        let git_docs = parse_side(git, Side::Git).unwrap();
        let live_docs = crate::input::parse_side_deferring(live, Side::Live).unwrap();
        assert!(!live_docs[0].deferred.is_empty(), "status is cut out");
        let held = resource_objects_of(git, &git_docs, live, &live_docs, &opts).unwrap();
        let fresh = resource_objects(git, live, &opts).unwrap();
        assert_eq!(held, fresh);
        let shown = held["apps/Deployment/n/web"].live.as_ref().unwrap();
        assert_eq!(shown["status"]["readyReplicas"], 3);
        assert!(shown["metadata"].get("managedFields").is_none());
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
