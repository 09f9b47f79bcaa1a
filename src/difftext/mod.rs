//! Reading the text of `argocd app diff` and `kubectl diff` (as pasted from a terminal or a ticket)
//! into per-resource changes with full YAML paths, and writing such text from objects.
//!
//! Understood formats (they may be mixed when several outputs are pasted one after another):
//!
//! * `argocd app diff`: `===== group/Kind namespace/name ======` headers, each followed by the output
//!   of `diff <live> <desired>`, either normal (`118c118`, `<   replicas: 5`, `---`, `>   replicas: 2`;
//!   `0a1,21` for a resource that exists only in Git, `1,12d0` for one that exists only in the
//!   cluster) or unified (`KUBECTL_EXTERNAL_DIFF="diff -u"` or `-U N`: `---`/`+++` lines and
//!   `@@ -115,7 +115,7 @@` hunks). `argocd app sync --preview-changes` wrapper lines are skipped.
//! * `kubectl diff`: `diff -u -N /tmp/LIVE-…/apps.v1.Deployment.default.web /tmp/MERGED-…/…` lines,
//!   each followed by a unified diff (or a normal one when `KUBECTL_EXTERNAL_DIFF=diff`).
//!
//! The left/old side is always the live object, the right/new side the desired one (Git for Argo
//! CD, the dry-run merge for kubectl).
//!
//! Paths are rebuilt from what each hunk shows: indentation, the keys above a line, list markers,
//! and, where the hunk starts below the top of the object (always so for the normal format, which
//! has no context), from the usual shape of the kind (`replicas:` at two spaces in a Deployment is
//! `/spec/replicas`; `- admissionReviewVersions:` at column 0 in a MutatingWebhookConfiguration is an
//! item of `/webhooks`, since list items are written at their key's column and an object is never a
//! list). Guessed paths come back with `certain: false` and a one-sentence `note`.
//!
//! Every line shown (context too) also builds partial live and desired objects (`live_object`,
//! `git_object`), which the rules read as they read whole objects. Paths are places in those
//! objects, never wildcards: an item whose list position the hunk does not show is placed by its
//! merge key, else after the items already there; lines whose parents no hunk names stay on the
//! whole object (empty path), their place below told in the note. A list whose shown items are the
//! same in another order is one change of the list; a whole `annotations` or `labels` map added or
//! removed is one change per key; `kubectl diff`'s bookkeeping (`metadata.generation`,
//! `resourceVersion`, `managedFields`, the last-applied annotation) comes back with `hidden` set.
//!
//! For example this text gives one `apps/Deployment default/web` resource with one change at
//! `[Key("spec"), Key("replicas")]`, `live` 5, `git` 2, `certain`:
//!
//! ```text
//! ===== apps/Deployment default/web ======
//! 118c118
//! <   replicas: 5
//! ---
//! >   replicas: 2
//! ```
//!
//! Resources present on one side only (`0a1,21`, `@@ -0,0 +1,21 @@`, …) carry the whole object in
//! `git_object`/`live_object` and one change with the empty path holding the same object.

#![warn(missing_docs)]

mod paths;
mod render;
mod shape;
mod yaml;

#[cfg(test)]
mod tests;

use crate::diff_headers::{
    argo_header, kubectl_ident, normal_header, unified_header, NormalHeader, UnifiedHeader,
};
use std::borrow::Cow;

use serde_json::Value;

use paths::{ViewLine, Workspace};

/// One step of a path inside a Kubernetes object (shared with the core).
pub use crate::path::Seg;

/// Which tool printed a resource's diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    /// `argocd app diff` with plain `diff` (normal format).
    ArgoNormal,
    /// `argocd app diff` with a unified external diff (`diff -u`, `diff -U N`).
    ArgoUnified,
    /// `kubectl diff` (unified by default; also used when `KUBECTL_EXTERNAL_DIFF` gives another format).
    KubectlUnified,
}

/// Which sides the resource exists on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextPresence {
    /// In Git and in the cluster.
    Both,
    /// Only in Git: Argo CD would create it (the live file is empty).
    GitOnly,
    /// Only in the cluster: extraneous, would be pruned (the desired file is empty).
    LiveOnly,
}

/// One difference found in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextChange {
    /// Where in the object; empty for a whole one-side-only object.
    pub path: Vec<Seg>,
    /// Desired side (`>` / `+`), None when absent there.
    pub git: Option<Value>,
    /// Live side (`<` / `-`), None when absent there.
    pub live: Option<Value>,
    /// false when the path was partly guessed (unknown list index, ancestors not shown by the hunk).
    pub certain: bool,
    /// Why the path is uncertain, one short sentence; None when certain.
    pub note: Option<String>,
    /// 1-based line in the pasted text where this change starts.
    pub line: usize,
    /// Why this is not a difference to report, when the tool that printed the text always shows it
    /// (`kubectl diff`'s bookkeeping); None for a difference.
    pub hidden: Option<String>,
}

/// One resource of the text and its differences.
#[derive(Debug, Clone, PartialEq)]
pub struct TextResource {
    /// API group without version; empty for the core group.
    pub group: String,
    /// Kind, e.g. `Deployment`.
    pub kind: String,
    /// Namespace; empty for cluster-scoped objects.
    pub namespace: String,
    /// Object name.
    pub name: String,
    /// The tool whose output this was.
    pub format: TextFormat,
    /// Which sides the object exists on.
    pub presence: TextPresence,
    /// For one-side-only resources: one change with the empty path and the whole object.
    pub changes: Vec<TextChange>,
    /// For one-side-only resources: the whole object parsed from the `>`/`+` (git) or `<`/`-` (live) lines.
    /// For resources on both sides: the partial object the text shows (context and added lines for
    /// git, context and removed lines for live) with the kind, name and namespace of the header; items
    /// whose list position is not shown are placed by merge key, else after the items already there,
    /// as the changes' paths say.
    pub git_object: Option<Value>,
    /// See `git_object`.
    pub live_object: Option<Value>,
    /// 1-based line of the resource header.
    pub line: usize,
}

/// Where and why the text could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffTextError {
    /// 1-based line in the pasted text.
    pub line: usize,
    /// 1-based column in that line.
    pub column: usize,
    /// What was expected there, naming the formats understood.
    pub message: String,
}

/// Diff text is the `diff` side of the input, one document.
impl From<DiffTextError> for crate::input::InputError {
    fn from(e: DiffTextError) -> Self {
        crate::input::InputError {
            side: crate::input::Side::Diff,
            document: 0,
            line: e.line,
            column: e.column,
            message: e.message,
        }
    }
}

impl std::fmt::Display for DiffTextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for DiffTextError {}

/// One resource to render: the live object and the desired (target) object, either may be missing.
pub struct RenderResource<'a> {
    /// API group without version; empty for the core group.
    pub group: &'a str,
    /// Kind, e.g. `Deployment`.
    pub kind: &'a str,
    /// Namespace; empty for cluster-scoped objects.
    pub namespace: &'a str,
    /// Object name.
    pub name: &'a str,
    /// The object in the cluster (left side), if any.
    pub live: Option<&'a Value>,
    /// The desired object (right side), if any.
    pub target: Option<&'a Value>,
}

/// Render what `argocd app diff` prints for these resources: header `\n===== group/Kind ns/name ======`, then
/// `diff <live-file> <target-file>` output in normal format (`unified = None`) or unified with N context lines
/// (`Some(N)`, `---`/`+++` lines naming `/tmp/argocd-diffNNN/<name>-live.yaml` and `/tmp/argocd-diffNNN/<name>`).
/// Objects are serialised as sigs.k8s.io/yaml would (sorted keys, 2-space indent, unindented list items). Only resources
/// whose two sides differ (or one side is missing) are printed, sorted by "group/kind/namespace/name".
pub fn render_argocd_diff(resources: &[RenderResource<'_>], unified: Option<usize>) -> String {
    render::argocd(resources, unified)
}

/// Same for `kubectl diff` (diff -u -N with LIVE-/MERGED- directories and the group.version.Kind.ns.name file names;
/// the apiVersion is taken from the object).
pub fn render_kubectl_diff(resources: &[RenderResource<'_>]) -> String {
    render::kubectl(resources)
}

const FORMATS: &str = "drift-doctor reads the output of `argocd app diff` (`===== group/Kind namespace/name ======` \
headers, each followed by plain `diff` hunks such as `118c118` or unified hunks such as `@@ -115,7 +115,7 @@`) and \
of `kubectl diff` (`diff -u -N /tmp/LIVE-…/<file> /tmp/MERGED-…/<file>` lines, each followed by unified hunks)";

/// Lines looked at by [`looks_like_diff`].
const SNIFF_LINES: usize = 2000;

/// Cheap check used to switch the page to diff mode automatically.
pub fn looks_like_diff(text: &str) -> bool {
    let mut prev: Option<Cow<'_, str>> = None;
    for raw in text.split('\n').take(SNIFF_LINES) {
        let line = clean_line(raw);
        if argo_header(&line).is_some()
            || is_wrapper(&line)
            || unified_header(&line).is_some()
            || diff_command(&line)
                .is_some_and(|(l, r)| kubectl_ident(l).is_some() || kubectl_ident(r).is_some())
        {
            return true;
        }
        if let Some(p) = &prev {
            if p.starts_with("--- ") && line.starts_with("+++ ") {
                return true;
            }
            if let Some(h) = normal_header(p) {
                let want = if h.cmd == 'a' { '>' } else { '<' };
                if line.starts_with(want) {
                    return true;
                }
            }
        }
        prev = Some(line);
    }
    false
}

/// Something in the text that could not be used while the rest could: a header with no diff after it,
/// a hunk shorter than its header says.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffTextWarning {
    /// 1-based line in the pasted text.
    pub line: usize,
    /// What is missing and what it means for the report.
    pub message: String,
}

impl std::fmt::Display for DiffTextWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// The resources of the text (in input order) and what could not be used.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffText {
    /// Each resource's changes, in input order.
    pub resources: Vec<TextResource>,
    /// What of the text could not be used, by line.
    pub warnings: Vec<DiffTextWarning>,
}

/// Parse any of the supported formats (detected automatically, may be mixed when several outputs are pasted).
/// Resources are returned in input order. An error names the formats understood and the line where the text
/// stopped making sense. Warnings are dropped; see [`read_diff_text`].
pub fn parse_diff_text(text: &str) -> Result<Vec<TextResource>, DiffTextError> {
    read_diff_text(text).map(|d| d.resources)
}

/// Parse as [`parse_diff_text`] does, keeping the warnings.
///
/// Malformed text is an error, never an empty result: a cut-off hunk header, a `=====` header or a
/// diff that names no resource. A header with no diff after it, or a hunk shorter than its header
/// says, is a warning when other resources remain usable, and an error when none does.
pub fn read_diff_text(text: &str) -> Result<DiffText, DiffTextError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<Cow<'_, str>> = text.split('\n').map(clean_line).collect();
    if lines.iter().all(|l| l.trim().is_empty()) {
        return Err(DiffTextError {
            line: 1,
            column: 1,
            message: format!("the text is empty; {FORMATS}"),
        });
    }
    let n = lines.len();
    let mut done: Vec<Builder<'_>> = Vec::new();
    let mut cur: Option<Builder<'_>> = None;
    // Before the first diff, and after a prompt or a sync question, other text is skipped.
    let mut skipping = true;
    let mut recognised = false;
    let mut said_no_differences = false;
    let mut first_other: Option<usize> = None;
    let mut i = 0;
    while i < n {
        let line: &str = &lines[i];
        let ln = i + 1;
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        if line.starts_with("@@") && unified_header(line).is_none_or(|h| !h.closed) {
            return Err(DiffTextError {
                line: ln,
                column: 1,
                message: "this hunk header is cut off or malformed: a unified hunk header reads \
                          `@@ -<line>,<count> +<line>,<count> @@`"
                    .to_string(),
            });
        }
        if argo_header(line).is_none() && looks_like_argo_header(line) {
            return Err(DiffTextError {
                line: ln,
                column: 1,
                message: "this header names no resource: `argocd app diff` writes \
                          `===== group/Kind namespace/name ======` (the group is empty for core kinds: \
                          `===== /Service default/web ======`)"
                    .to_string(),
            });
        }
        if let Some((group, kind, namespace, name)) = argo_header(line) {
            done.extend(cur.take());
            cur = Some(Builder::new(
                group,
                kind,
                namespace,
                name,
                TextFormat::ArgoNormal,
                ln,
            ));
            skipping = false;
            recognised = true;
            i += 1;
            continue;
        }
        if is_wrapper(line) {
            done.extend(cur.take());
            skipping = true;
            recognised = true;
            said_no_differences |= line.contains("No Differences found");
            i += 1;
            continue;
        }
        if let Some((left, right)) = diff_command(line) {
            let argo_waiting = cur.as_ref().is_some_and(|c| {
                c.format != TextFormat::KubectlUnified && c.hunks.is_empty() && !c.anonymous
            });
            if !argo_waiting {
                done.extend(cur.take());
                cur = Some(match kubectl_ident(right).or_else(|| kubectl_ident(left)) {
                    Some((g, k, ns, name)) => {
                        Builder::new(g, k, ns, name, TextFormat::KubectlUnified, ln)
                    }
                    None => Builder::anonymous(TextFormat::ArgoUnified, ln, argo_file_name(left)),
                });
            }
            skipping = false;
            recognised = true;
            i += 1;
            continue;
        }
        if line.starts_with("--- ") && lines.get(i + 1).is_some_and(|l| l.starts_with("+++ ")) {
            let left = file_token(&line[4..]);
            let right = lines.get(i + 1).map(|l| file_token(&l[4..])).unwrap_or("");
            let reuse = cur
                .as_ref()
                .is_some_and(|c| c.hunks.is_empty() && !c.file_header);
            if reuse {
                if let Some(c) = cur.as_mut() {
                    c.file_header = true;
                    if c.format == TextFormat::ArgoNormal {
                        c.format = TextFormat::ArgoUnified;
                    }
                }
            } else {
                done.extend(cur.take());
                let mut b = match kubectl_ident(left).or_else(|| kubectl_ident(right)) {
                    Some((g, k, ns, name)) => {
                        Builder::new(g, k, ns, name, TextFormat::KubectlUnified, ln)
                    }
                    None => Builder::anonymous(TextFormat::ArgoUnified, ln, argo_file_name(left)),
                };
                b.file_header = true;
                cur = Some(b);
            }
            skipping = false;
            recognised = true;
            i += 2;
            continue;
        }
        if let Some(h) = unified_header(line) {
            let b =
                cur.get_or_insert_with(|| Builder::anonymous(TextFormat::ArgoUnified, ln, None));
            if b.format == TextFormat::ArgoNormal {
                b.format = TextFormat::ArgoUnified;
            }
            let (hunk, next) = read_unified(&lines, i, h);
            b.hunks.push(hunk);
            skipping = false;
            recognised = true;
            i = next;
            continue;
        }
        if let Some(h) = normal_header(line) {
            let want = if h.cmd == 'a' { '>' } else { '<' };
            if lines.get(i + 1).is_some_and(|l| l.starts_with(want)) {
                let b =
                    cur.get_or_insert_with(|| Builder::anonymous(TextFormat::ArgoNormal, ln, None));
                let (hunk, next) = read_normal(&lines, i, h);
                b.hunks.push(hunk);
                skipping = false;
                recognised = true;
                i = next;
                continue;
            }
        }
        let only = only_in(line).and_then(|(dir, file)| Some((dir, kubectl_ident(file)?)));
        if let Some((dir, (g, k, ns, name))) = only {
            done.extend(cur.take());
            let mut b = Builder::new(g, k, ns, name, TextFormat::KubectlUnified, ln);
            b.presence = Some(if dir.contains("MERGED-") {
                TextPresence::GitOnly
            } else {
                TextPresence::LiveOnly
            });
            done.push(b);
            skipping = false;
            recognised = true;
            i += 1;
            continue;
        }
        match noise(line) {
            Noise::Prompt => {
                done.extend(cur.take());
                skipping = true;
                recognised = true;
                i += 1;
                continue;
            }
            Noise::Skip => {
                i += 1;
                continue;
            }
            Noise::No => {}
        }
        if skipping {
            first_other.get_or_insert(ln);
            i += 1;
            continue;
        }
        let what = cur
            .as_ref()
            .or(done.last())
            .map(Builder::describe)
            .unwrap_or_else(|| "the previous resource".into());
        let column = line.len() - line.trim_start().len() + 1;
        return Err(DiffTextError {
            line: ln,
            column,
            message: format!("this line does not continue the diff of {what}; {FORMATS}"),
        });
    }
    done.extend(cur.take());
    // Only `argocd app sync --preview-changes` says in words that nothing differs; a command or a
    // wrapper line with no output after it is a paste cut short.
    if done.is_empty() && !said_no_differences {
        let line = first_other.unwrap_or(1);
        let message = if recognised {
            format!("the text holds a command or a wrapper line but no diff after it; {FORMATS}")
        } else {
            format!("no diff found; {FORMATS}")
        };
        return Err(DiffTextError {
            line,
            column: 1,
            message,
        });
    }
    let mut resources = Vec::with_capacity(done.len());
    let mut warnings = Vec::new();
    for b in done {
        if b.hunks.is_empty() && b.presence.is_none() {
            warnings.push(DiffTextWarning {
                line: b.line,
                message: format!(
                    "no diff follows the header of {}: the tool printed it because the resource differs, \
                     but what differs is not in the text (was the diff program missing, or the paste cut?)",
                    b.describe()
                ),
            });
            continue;
        }
        let cut: Vec<(usize, usize, usize, usize)> = b
            .hunks
            .iter()
            .filter(|h| h.is_cut())
            .map(|h| {
                let last = h.lines.last().map_or(h.header_line, |l| l.src);
                (
                    h.header_line,
                    h.old_len.max(h.new_len),
                    h.shown_span(),
                    last,
                )
            })
            .collect();
        let r = b.finish();
        if r.kind.is_empty() || r.name.is_empty() {
            return Err(DiffTextError {
                line: r.line,
                column: 1,
                message: "this diff names no resource: neither its header nor its file names \
                          (`kubectl diff` writes `[group.]version.Kind.namespace.name`) nor the lines shown \
                          (`kind:` and `metadata.name`) say which object it is"
                    .to_string(),
            });
        }
        let shown_kind = [&r.git_object, &r.live_object]
            .into_iter()
            .flatten()
            .filter_map(|o| o.get("kind").and_then(Value::as_str))
            .find(|k| *k != r.kind);
        if let Some(shown) = shown_kind {
            return Err(DiffTextError {
                line: r.line,
                column: 1,
                message: format!(
                    "this header names a {} but the lines below it show `kind: {shown}`: the paste mixes two \
                     resources, so which one differs (and whether its values must be masked) is unknown",
                    r.kind
                ),
            });
        }
        for (line, announced, given, last) in cut {
            warnings.push(DiffTextWarning {
                line,
                message: format!(
                    "the hunk of {}/{} {}/{} says it spans {announced} line(s) but the text holds {given}: \
                     the paste is cut off, so differences after line {last} are unknown and the last ones \
                     shown may be incomplete",
                    r.group, r.kind, r.namespace, r.name
                ),
            });
        }
        resources.push(r);
    }
    if resources.is_empty() {
        if let Some(w) = warnings.first() {
            return Err(DiffTextError {
                line: w.line,
                column: 1,
                message: w.message.clone(),
            });
        }
    }
    Ok(DiffText {
        resources,
        warnings,
    })
}

/// What two masked Secret values say (argo-cd `HideSecretData` gives each distinct value a run of `+`,
/// the first `++++++++` and each next one 4 longer, the same on both sides; `kubectl diff` writes
/// `*** (before)` and `*** (after)` for a changed value): a sentence for the evidence, or None
/// when the values are not masks.
pub fn mask_evidence(git: Option<&Value>, live: Option<&Value>) -> Option<String> {
    let plus_run = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .filter(|s| !s.is_empty() && s.bytes().all(|b| b == b'+'))
            .map(str::len)
    };
    let kubectl = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .is_some_and(|s| s == "*** (before)" || s == "*** (after)")
    };
    match (plus_run(git), plus_run(live)) {
        (Some(g), Some(l)) if g != l => Some(format!(
            "The masks differ in length ({l} and {g} `+` live and in Git): Argo CD gives each distinct value its own mask, so the values differ."
        )),
        (Some(_), Some(_)) => Some(
            "The masks are equal: Argo CD gives equal values equal masks, so the values are the same.".to_string(),
        ),
        _ if kubectl(git) && kubectl(live) => Some(
            "kubectl diff marks the value `*** (before)` and `*** (after)`: it changed.".to_string(),
        ),
        _ => None,
    }
}

/// The same items in another order (as the HPA controller stores `spec.metrics`).
fn is_reordering(git: &[Value], live: &[Value]) -> bool {
    if git.len() != live.len() || git.len() < 2 || git == live {
        return false;
    }
    let mut used = vec![false; live.len()];
    git.iter().all(|g| {
        match live
            .iter()
            .enumerate()
            .position(|(i, l)| !used[i] && l == g)
        {
            Some(i) => {
                used[i] = true;
                true
            }
            None => false,
        }
    })
}

/// Changes inside a list whose shown items are the same on both sides in another order are one
/// change of the list: a reordering, not edits of each item.
fn join_reorderings(changes: Vec<TextChange>, git: &Value, live: &Value) -> Vec<TextChange> {
    // Each list is judged once, however many changes it holds; very long lists are not judged
    // (comparing every item with every other would cost more than the answer is worth).
    const MAX_ITEMS: usize = 500;
    let mut judged: std::collections::HashMap<String, bool> = std::collections::HashMap::new();
    let mut reordered = |c: &TextChange| -> Option<usize> {
        (0..c.path.len()).find(|&i| {
            if !matches!(c.path[i], Seg::Item { .. }) {
                return false;
            }
            let ptr = crate::path::pointer(&c.path[..i]);
            *judged.entry(ptr).or_insert_with_key(|ptr| {
                matches!(
                    (git.pointer(ptr), live.pointer(ptr)),
                    (Some(Value::Array(g)), Some(Value::Array(l)))
                        if g.len() <= MAX_ITEMS && is_reordering(g, l)
                )
            })
        })
    };
    let mut out: Vec<TextChange> = Vec::with_capacity(changes.len());
    let mut joined_at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for c in changes {
        let Some(len) = reordered(&c) else {
            out.push(c);
            continue;
        };
        let list = c.path[..len].to_vec();
        let ptr = crate::path::pointer(&list);
        if let Some(joined) = joined_at.get(&ptr).and_then(|&i| out.get_mut(i)) {
            joined.line = joined.line.min(c.line);
            joined.certain &= c.certain;
            if joined.note.is_none() {
                joined.note = c.note;
            }
            continue;
        }
        joined_at.insert(ptr.clone(), out.len());
        out.push(TextChange {
            git: git.pointer(&ptr).cloned(),
            live: live.pointer(&ptr).cloned(),
            path: list,
            certain: c.certain,
            note: c.note,
            line: c.line,
            hidden: c.hidden,
        });
    }
    out
}

/// A whole `annotations` or `labels` map added or removed is one change per key: each key has its
/// own writer (a restart stamp next to a team label), and an ignore rule on the whole map would
/// hide every other key.
fn split_whole_maps(changes: Vec<TextChange>) -> Vec<TextChange> {
    let mut out = Vec::with_capacity(changes.len());
    for c in changes {
        let free_form = matches!(
            c.path.last(),
            Some(Seg::Key(k)) if k == "annotations" || k == "labels"
        );
        let map = match (&c.git, &c.live) {
            (Some(Value::Object(m)), None) | (None, Some(Value::Object(m))) if free_form => {
                Some(m.clone())
            }
            _ => None,
        };
        let Some(map) = map.filter(|m| !m.is_empty()) else {
            out.push(c);
            continue;
        };
        let on_git = c.git.is_some();
        for (k, v) in map {
            let mut path = c.path.clone();
            path.push(Seg::Key(k));
            out.push(TextChange {
                path,
                git: on_git.then(|| v.clone()),
                live: (!on_git).then_some(v),
                certain: c.certain,
                note: c.note.clone(),
                line: c.line,
                hidden: c.hidden.clone(),
            });
        }
    }
    out
}

/// The `kubectl.kubernetes.io/last-applied-configuration` JSON of a partial object, when shown whole.
fn last_applied(obj: &Value) -> Option<Value> {
    let text = obj
        .pointer("/metadata/annotations")?
        .get("kubectl.kubernetes.io/last-applied-configuration")?
        .as_str()?;
    serde_json::from_str::<Value>(text)
        .ok()
        .filter(Value::is_object)
}

/// Add the keys of `from` that `to` lacks, recursively through maps (lists are taken whole only
/// when missing: their items' order and count are not known to match).
fn fill_missing(to: &mut Value, from: &Value, depth: usize) {
    if depth > yaml::MAX_DEPTH {
        return;
    }
    let (Value::Object(to), Value::Object(from)) = (to, from) else {
        return;
    };
    for (k, v) in from {
        match to.get_mut(k) {
            // A key shown without its value (`annotations:` as the last line of a hunk) is missing too.
            None | Some(Value::Null) => {
                to.insert(k.clone(), v.clone());
            }
            Some(existing) => fill_missing(existing, v, depth + 1),
        }
    }
}

/// Why a change `kubectl diff` prints is bookkeeping rather than a difference: its right side is the API
/// server's dry-run answer, which bumps `metadata.generation` on every spec change and writes a new
/// `resourceVersion` and new `managedFields` times. Argo CD compares none of them.
fn kubectl_bookkeeping(path: &[Seg]) -> Option<String> {
    let key = |i: usize| match path.get(i) {
        Some(Seg::Key(k)) => Some(k.as_str()),
        _ => None,
    };
    if key(0) != Some("metadata") {
        return None;
    }
    let field = key(1)?;
    let what = match field {
        "generation" if path.len() == 2 => {
            "`metadata.generation`, which the API server bumps on every spec change"
        }
        "resourceVersion" if path.len() == 2 => {
            "`metadata.resourceVersion`, which changes on every write"
        }
        "managedFields" => {
            "`metadata.managedFields`, whose owners and times record the dry-run write itself"
        }
        "annotations"
            if matches!(path.get(2), Some(Seg::Key(k)) if k == "kubectl.kubernetes.io/last-applied-configuration") =>
        {
            "the `kubectl.kubernetes.io/last-applied-configuration` annotation, which `kubectl apply` rewrites from \
             the applied file (what it says differently shows in the fields themselves)"
        }
        _ => return None,
    };
    Some(format!(
        "kubectl diff bookkeeping: its right side is the API server's dry-run answer, so {what}; \
         Argo CD does not compare it"
    ))
}

/// A line shaped like an `argocd app diff` resource header (`===== … ======`), named or not.
fn looks_like_argo_header(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("===== ") && t.ends_with(" ======")
}

// ---------------------------------------------------------------------------------------------
// Lines
// ---------------------------------------------------------------------------------------------

/// Drop the `\r` of CRLF text, trailing blanks, terminal colour codes, and non-breaking spaces used as
/// indentation by web pages.
fn clean_line(raw: &str) -> Cow<'_, str> {
    let trimmed = raw.trim_end_matches(['\r', ' ', '\t']);
    let mut s: Cow<'_, str> = Cow::Borrowed(trimmed);
    if s.contains('\u{1b}') {
        let mut out = String::with_capacity(s.len());
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                if chars.peek() == Some(&'[') {
                    chars.next();
                    for d in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&d) {
                            break;
                        }
                    }
                }
                continue;
            }
            out.push(c);
        }
        s = Cow::Owned(out.trim_end().to_string());
    }
    if s.contains('\u{a0}') {
        let mut out = String::with_capacity(s.len());
        let mut leading = true;
        for (k, c) in s.chars().enumerate() {
            if leading && c == '\u{a0}' {
                out.push(' ');
                continue;
            }
            if !(c == ' ' || (k == 0 && matches!(c, '<' | '>' | '+' | '-'))) {
                leading = false;
            }
            out.push(c);
        }
        s = Cow::Owned(out);
    }
    s
}

/// `argocd app sync --preview-changes` wrapper lines.
fn is_wrapper(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("======")
        && (t.contains("Previewing differences between live and desired state")
            || t.contains("No Differences found"))
}

/// `diff [options] LEFT RIGHT`
fn diff_command(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("diff ")?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    if words.len() < 2 {
        return None;
    }
    let left = words[words.len() - 2];
    let right = words[words.len() - 1];
    if left.starts_with('-') || right.starts_with('-') {
        return None;
    }
    Some((left, right))
}

/// The path on a `---`/`+++` line (a tab, or spaces where a paste lost it, precede the timestamp).
fn file_token(rest: &str) -> &str {
    rest.split_whitespace().next().unwrap_or("")
}

/// The resource name in `/tmp/argocd-diffNNN/<name>-live.yaml`.
fn argo_file_name(path: &str) -> Option<String> {
    let file = path.rsplit(['/', '\\']).next()?;
    let dir_ok = path.contains("argocd-diff");
    let name = file.strip_suffix("-live.yaml").unwrap_or(file);
    (dir_ok && !name.is_empty()).then(|| name.to_string())
}

/// `Only in /tmp/LIVE-123: apps.v1.Deployment.default.web`
fn only_in(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("Only in ")?;
    let (dir, file) = rest.split_once(": ")?;
    Some((dir, file.trim()))
}

enum Noise {
    No,
    /// Text that is not a diff and says nothing about it.
    Skip,
    /// A new command starts: what follows until the next diff may be any text.
    Prompt,
}

fn noise(line: &str) -> Noise {
    let t = line.trim_start();
    if t.starts_with("$ ")
        || t == "$"
        || t.starts_with("% ")
        || t.starts_with('#')
        || t.starts_with("PS ")
        || t.starts_with("argocd ")
        || t.starts_with("kubectl ")
        || t.starts_with("KUBECTL_EXTERNAL_DIFF")
        || [
            "$ argocd",
            "$ kubectl",
            "> argocd",
            "> kubectl",
            "# argocd",
            "# kubectl",
            "% argocd",
            "% kubectl",
        ]
        .iter()
        .any(|p| t.contains(p))
        || t.starts_with("Please review changes to application")
    {
        return Noise::Prompt;
    }
    let skip_prefixes = [
        "\\ No newline",
        "```",
        "~~~",
        "Warning:",
        "warning:",
        "WARNING:",
        "error:",
        "Error:",
        "ERROR:",
        "time=\"",
        "command terminated with exit code",
        "exit status ",
        "Exit code",
        // `git diff` extended header lines.
        "index ",
        "new file mode",
        "deleted file mode",
        "old mode",
        "new mode",
        "similarity index",
        "rename from",
        "rename to",
    ];
    if skip_prefixes.iter().any(|p| t.starts_with(p))
        || matches!(t, "..." | "…" | "[...]" | "(...)" | "[…]")
    {
        return Noise::Skip;
    }
    let b = t.as_bytes();
    // logrus (`INFO[0001] …`) and klog (`W0110 10:00:00.000000 …`) lines.
    if b.len() > 5 && b[..4].iter().all(u8::is_ascii_uppercase) && b[4] == b'[' {
        return Noise::Skip;
    }
    if b.len() > 6
        && matches!(b[0], b'I' | b'W' | b'E' | b'F')
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5] == b' '
    {
        return Noise::Skip;
    }
    Noise::No
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tag {
    Ctx,
    Del,
    Add,
}

struct HLine<'a> {
    tag: Tag,
    text: &'a str,
    src: usize,
}

struct RawHunk<'a> {
    old_start: usize,
    old_len: usize,
    new_start: usize,
    new_len: usize,
    lines: Vec<HLine<'a>>,
    /// 1-based line of the hunk header.
    header_line: usize,
}

impl RawHunk<'_> {
    /// Lines of the old and new side shown.
    fn shown(&self) -> (usize, usize) {
        let old = self.lines.iter().filter(|l| l.tag != Tag::Add).count();
        let new = self.lines.iter().filter(|l| l.tag != Tag::Del).count();
        (old, new)
    }

    /// The longer side shown, to set against the longer side announced.
    fn shown_span(&self) -> usize {
        let (old, new) = self.shown();
        old.max(new)
    }

    /// The text ends (or the next output starts) before the lines the header announced.
    fn is_cut(&self) -> bool {
        let (old, new) = self.shown();
        old < self.old_len || new < self.new_len
    }
}

/// The YAML after a one-character diff marker (and the space or tab some diffs put after it).
fn after_marker(line: &str, space: bool) -> &str {
    let rest = line.get(1..).unwrap_or("");
    if space {
        rest.strip_prefix([' ', '\t']).unwrap_or(rest)
    } else {
        rest.strip_prefix('\t').unwrap_or(rest)
    }
}

fn read_unified<'a>(lines: &'a [Cow<'a, str>], i: usize, h: UnifiedHeader) -> (RawHunk<'a>, usize) {
    let mut out = Vec::new();
    let (mut ro, mut rn) = (h.old_len, h.new_len);
    let mut j = i + 1;
    while j < lines.len() && (ro > 0 || rn > 0) {
        let l: &str = &lines[j];
        let src = j + 1;
        match l.as_bytes().first() {
            Some(b'\\') => {}
            // An empty context line (a blank YAML line whose marker space was trimmed), unless only
            // blank lines follow: then the text simply ends there.
            None if ro > 0
                && rn > 0
                && lines[j + 1..].iter().take(ro + rn).any(|l| !l.is_empty()) =>
            {
                out.push(HLine {
                    tag: Tag::Ctx,
                    text: "",
                    src,
                });
                ro -= 1;
                rn -= 1;
            }
            Some(b' ') if ro > 0 && rn > 0 => {
                out.push(HLine {
                    tag: Tag::Ctx,
                    text: &l[1..],
                    src,
                });
                ro -= 1;
                rn -= 1;
            }
            Some(b'-') if ro > 0 => {
                out.push(HLine {
                    tag: Tag::Del,
                    text: after_marker(l, false),
                    src,
                });
                ro -= 1;
            }
            Some(b'+') if rn > 0 => {
                out.push(HLine {
                    tag: Tag::Add,
                    text: after_marker(l, false),
                    src,
                });
                rn -= 1;
            }
            _ => break,
        }
        j += 1;
    }
    while lines.get(j).is_some_and(|l| l.starts_with('\\')) {
        j += 1;
    }
    let hunk = RawHunk {
        old_start: h.old_start,
        old_len: h.old_len,
        new_start: h.new_start,
        new_len: h.new_len,
        lines: out,
        header_line: i + 1,
    };
    (hunk, j)
}

fn read_normal<'a>(lines: &'a [Cow<'a, str>], i: usize, h: NormalHeader) -> (RawHunk<'a>, usize) {
    let mut out = Vec::new();
    let mut j = i + 1;
    if h.cmd != 'a' {
        while let Some(l) = lines.get(j) {
            if l.starts_with('<') {
                out.push(HLine {
                    tag: Tag::Del,
                    text: after_marker(l, true),
                    src: j + 1,
                });
            } else if !l.starts_with('\\') {
                break;
            }
            j += 1;
        }
    }
    if h.cmd == 'c' && lines.get(j).is_some_and(|l| l.as_ref() == "---") {
        j += 1;
    }
    if h.cmd != 'd' {
        while let Some(l) = lines.get(j) {
            if l.starts_with('>') {
                out.push(HLine {
                    tag: Tag::Add,
                    text: after_marker(l, true),
                    src: j + 1,
                });
            } else if !l.starts_with('\\') {
                break;
            }
            j += 1;
        }
    }
    let span = |a: usize, b: usize| b.saturating_sub(a) + 1;
    let (old_start, old_len) = if h.cmd == 'a' {
        (h.a1, 0)
    } else {
        (h.a1, span(h.a1, h.a2))
    };
    let (new_start, new_len) = if h.cmd == 'd' {
        (h.b1, 0)
    } else {
        (h.b1, span(h.b1, h.b2))
    };
    (
        RawHunk {
            old_start,
            old_len,
            new_start,
            new_len,
            lines: out,
            header_line: i + 1,
        },
        j,
    )
}

// ---------------------------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------------------------

struct Builder<'a> {
    group: String,
    kind: String,
    namespace: String,
    name: String,
    anonymous: bool,
    format: TextFormat,
    line: usize,
    file_header: bool,
    presence: Option<TextPresence>,
    hunks: Vec<RawHunk<'a>>,
}

impl<'a> Builder<'a> {
    fn new(
        group: String,
        kind: String,
        namespace: String,
        name: String,
        format: TextFormat,
        line: usize,
    ) -> Self {
        Builder {
            group,
            kind,
            namespace,
            name,
            anonymous: false,
            format,
            line,
            file_header: false,
            presence: None,
            hunks: Vec::new(),
        }
    }

    fn anonymous(format: TextFormat, line: usize, name: Option<String>) -> Self {
        let mut b = Builder::new(
            String::new(),
            String::new(),
            String::new(),
            name.unwrap_or_default(),
            format,
            line,
        );
        b.anonymous = true;
        b
    }

    fn describe(&self) -> String {
        if self.kind.is_empty() && self.name.is_empty() {
            "the diff above".to_string()
        } else {
            format!(
                "{}/{} {}/{}",
                self.group, self.kind, self.namespace, self.name
            )
        }
    }

    /// Fill in kind, name, … from the YAML when no header named the resource.
    fn identify_from_content(&mut self) {
        let mut top = "";
        for h in &self.hunks {
            for l in &h.lines {
                let t = l.text.trim_end();
                let col = yaml::indent_of(t);
                let Some((key, rest)) = yaml::split_key(&t[col..]) else {
                    continue;
                };
                let value = || match yaml::parse_inline(rest) {
                    Value::String(s) => s,
                    _ => String::new(),
                };
                if col == 0 {
                    match key.as_ref() {
                        "kind" if self.kind.is_empty() => self.kind = value(),
                        "apiVersion" if self.group.is_empty() => {
                            self.group = value()
                                .split_once('/')
                                .map(|(g, _)| g.to_string())
                                .unwrap_or_default()
                        }
                        "metadata" => top = "metadata",
                        _ => top = "",
                    }
                } else if col == 2 && top == "metadata" {
                    match key.as_ref() {
                        "name" if self.name.is_empty() => self.name = value(),
                        "namespace" if self.namespace.is_empty() => self.namespace = value(),
                        _ => {}
                    }
                }
            }
        }
    }

    fn finish(mut self) -> TextResource {
        if self.anonymous {
            self.identify_from_content();
        }
        let mut res = TextResource {
            group: self.group.clone(),
            kind: self.kind.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            format: self.format,
            presence: self.presence.unwrap_or(TextPresence::Both),
            changes: Vec::new(),
            git_object: None,
            live_object: None,
            line: self.line,
        };
        if self.presence.is_some() {
            return res;
        }
        let shape = shape::shape_for(&self.kind);
        let allow_status = self.format == TextFormat::KubectlUnified;
        if let [only] = self.hunks.as_slice() {
            let whole_add = only.old_len == 0 && only.old_start == 0 && only.new_len > 0;
            let whole_del = only.new_len == 0 && only.new_start == 0 && only.old_len > 0;
            if whole_add || whole_del {
                let tag = if whole_add { Tag::Add } else { Tag::Del };
                let view: Vec<ViewLine<'_>> = only
                    .lines
                    .iter()
                    .filter(|l| l.tag == tag)
                    .map(|l| ViewLine {
                        text: l.text,
                        changed: true,
                        src: l.src,
                    })
                    .collect();
                let object = paths::whole_object(&view);
                let line = view.first().map(|l| l.src).unwrap_or(self.line);
                let change = TextChange {
                    path: Vec::new(),
                    git: whole_add.then(|| object.clone()),
                    live: whole_del.then(|| object.clone()),
                    certain: true,
                    note: None,
                    line,
                    hidden: None,
                };
                if whole_add {
                    res.presence = TextPresence::GitOnly;
                    res.git_object = Some(object);
                } else {
                    res.presence = TextPresence::LiveOnly;
                    res.live_object = Some(object);
                }
                res.changes.push(change);
                return res;
            }
        }
        let mut work = Workspace::new(shape, allow_status);
        let (mut old, mut new, mut all) = (Vec::new(), Vec::new(), Vec::new());
        let mut previous_end: Option<usize> = None;
        for hunk in &self.hunks {
            // Plain diff shows no context: a hunk starting at most two unseen lines after the
            // previous one most likely continues the same list item.
            let no_context = hunk.lines.iter().all(|l| l.tag != Tag::Ctx);
            let near = no_context
                && previous_end.is_some_and(|end| {
                    hunk.old_start > end && hunk.old_start <= end + 3 && hunk.old_len > 0
                });
            previous_end = Some(hunk.old_start + hunk.old_len.saturating_sub(1));
            old.clear();
            new.clear();
            all.clear();
            for l in &hunk.lines {
                let changed = l.tag != Tag::Ctx;
                let line = ViewLine {
                    text: l.text,
                    changed,
                    src: l.src,
                };
                all.push(line);
                if l.tag != Tag::Add {
                    old.push(line);
                }
                if l.tag != Tag::Del {
                    new.push(line);
                }
            }
            let first = res.changes.len();
            work.hunk(&old, &new, &all, &self.kind, near, &mut res.changes);
            if self.format == TextFormat::KubectlUnified {
                for c in &mut res.changes[first..] {
                    c.hidden = kubectl_bookkeeping(&c.path);
                }
            }
            if hunk.is_cut() {
                for c in &mut res.changes[first..] {
                    c.certain = false;
                    c.note.get_or_insert_with(|| {
                        "The hunk is cut off before its end, so this change may be incomplete."
                            .to_string()
                    });
                }
            }
        }
        res.changes = split_whole_maps(std::mem::take(&mut res.changes));
        res.changes = join_reorderings(std::mem::take(&mut res.changes), &work.git, &work.live);
        let identity = |mut obj: Value| {
            if let Value::Object(m) = &mut obj {
                m.entry("kind")
                    .or_insert_with(|| Value::String(self.kind.clone()));
                let meta = m
                    .entry("metadata")
                    .or_insert_with(|| Value::Object(serde_json::Map::new()));
                if let Value::Object(meta) = meta {
                    meta.entry("name")
                        .or_insert_with(|| Value::String(self.name.clone()));
                    if !self.namespace.is_empty() {
                        meta.entry("namespace")
                            .or_insert_with(|| Value::String(self.namespace.clone()));
                    }
                }
            }
            obj
        };
        let (mut git, mut live) = (work.git, work.live);
        // The last-applied configuration a hunk shows is a whole earlier desired object: it fills
        // in what the lines around the changes do not show (labels, an HPA's target), never
        // overriding a line the text shows.
        let applied = [&live, &git].into_iter().find_map(last_applied);
        if let Some(applied) = applied {
            fill_missing(&mut git, &applied, 0);
            fill_missing(&mut live, &applied, 0);
        }
        res.git_object = Some(identity(git));
        res.live_object = Some(identity(live));
        res
    }
}
