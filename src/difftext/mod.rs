//! Reading the text of `argocd app diff` and `kubectl diff` (as pasted from a terminal or a ticket)
//! into per-resource changes with full YAML paths.
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

mod hunks;
mod objects;
mod paths;
mod shape;
mod yaml;

#[cfg(test)]
mod tests;

use crate::diff_headers::{argo_header, kubectl_ident, normal_header, unified_header};
pub use crate::model::Presence;
use std::borrow::Cow;

use serde_json::Value;

use hunks::{
    argo_file_name, clean_line, diff_command, file_token, is_wrapper, noise, only_in, read_normal,
    read_unified, Noise,
};
use objects::Builder;

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
    pub hidden: Option<crate::HiddenReason>,
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
    pub presence: Presence,
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

const FORMATS: &str = "drift-doctor reads the output of `argocd app diff` (`===== group/Kind namespace/name ======` \
headers, each followed by plain `diff` hunks such as `118c118` or unified hunks such as `@@ -115,7 +115,7 @@`) and \
of `kubectl diff` (`diff -u -N /tmp/LIVE-…/<file> /tmp/MERGED-…/<file>` lines, each followed by unified hunks)";

/// Lines looked at by [`looks_like_diff`] (the rest of a text never
/// changes its answer).
pub const SNIFF_LINES: usize = 2000;

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
                Presence::GitOnly
            } else {
                Presence::LiveOnly
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
                    "the hunk of {}/{} {}/{} says it spans {} but the text holds {given}: \
                     the paste is cut off, so differences after line {last} are unknown and the last ones \
                     shown may be incomplete",
                    r.group, r.kind, r.namespace, r.name,
                    crate::text::count(announced, "line", "lines")
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

/// A line shaped like an `argocd app diff` resource header (`===== … ======`), named or not.
fn looks_like_argo_header(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("===== ") && t.ends_with(" ======")
}
