//! Tests of the diff-text reader, by topic: the formats the
//! tools print (`formats`), pasted fragments and damaged pastes (`pastes`),
//! lists whose key a hunk does not show (`lists`), hostile and large input (`robustness`).
//!
//! The fixtures in `tests/fixtures/difftext/` were produced by GNU diff 3.8 on sigs.k8s.io/yaml-style
//! files laid out as the tools lay them out (`/tmp/argocd-diffNNN/<name>-live.yaml` vs
//! `/tmp/argocd-diffNNN/<name>`; `/tmp/LIVE-…` vs `/tmp/MERGED-…` directories for kubectl), with the
//! headers the tools print around them:
//!
//! * `argo_normal.txt`: plain `diff`: a live-only ConfigMap (`1,13d0`), a masked Secret (`++++++++`),
//!   a Git-only Service (`0a1,20`), a Service port, a Deployment with `a` and `c` hunks (label,
//!   replicas, env value + added env item + image in one hunk, memory limit).
//! * `argo_unified_u3.txt`, `argo_unified_u1.txt`, `argo_unified_u0.txt`: the same objects with
//!   `diff -u`, `-U1`, `-U0` (one-side objects as `@@ -1,13 +0,0 @@` / `@@ -0,0 +1,20 @@`).
//! * `kubectl_diff.txt`: `kubectl diff` (`diff -u -N` over directories): a Deployment (core of the
//!   change set plus `generation` and the last-applied JSON block), a cluster-scoped ClusterRole
//!   (`..view-extra`), a core Secret with `'*** (before)'`/`'*** (after)'`, a new ServiceAccount.
//! * `block_scalars.txt`: a ConfigMap whose PEM certificate and nginx config (block scalars with a
//!   blank line) change, in normal and in unified form.
//! * `argo_crlf.txt`: a unified Service and Secret diff with CRLF line ends.
//! * `argo_trailing_ws_lost.txt`: unified output copied from a web page: trailing blanks stripped
//!   (the blank context line inside a block scalar became empty), header tabs turned into spaces.
//! * `multi_app_paste.txt`: three `argocd app diff` runs (one without differences) and a
//!   `kubectl diff` pasted one after another with their prompts.
//! * `sync_preview.txt`: `argocd app sync --preview-changes` with its wrapper lines, the question,
//!   the sync result tables, and a second app with `No Differences found`.

use super::*;

mod formats;
mod lists;
mod pastes;
mod robustness;

const ARGO_NORMAL: &str = include_str!("../../../tests/fixtures/difftext/argo_normal.txt");
const ARGO_U3: &str = include_str!("../../../tests/fixtures/difftext/argo_unified_u3.txt");
const ARGO_U1: &str = include_str!("../../../tests/fixtures/difftext/argo_unified_u1.txt");
const ARGO_U0: &str = include_str!("../../../tests/fixtures/difftext/argo_unified_u0.txt");
const KUBECTL: &str = include_str!("../../../tests/fixtures/difftext/kubectl_diff.txt");
const BLOCKS: &str = include_str!("../../../tests/fixtures/difftext/block_scalars.txt");
const CRLF: &str = include_str!("../../../tests/fixtures/difftext/argo_crlf.txt");
const WS_LOST: &str = include_str!("../../../tests/fixtures/difftext/argo_trailing_ws_lost.txt");
const MULTI: &str = include_str!("../../../tests/fixtures/difftext/multi_app_paste.txt");
const SYNC: &str = include_str!("../../../tests/fixtures/difftext/sync_preview.txt");

const ALL: &[(&str, &str)] = &[
    ("argo_normal", ARGO_NORMAL),
    ("argo_unified_u3", ARGO_U3),
    ("argo_unified_u1", ARGO_U1),
    ("argo_unified_u0", ARGO_U0),
    ("kubectl_diff", KUBECTL),
    ("block_scalars", BLOCKS),
    ("argo_crlf", CRLF),
    ("argo_trailing_ws_lost", WS_LOST),
    ("multi_app_paste", MULTI),
    ("sync_preview", SYNC),
];

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// `/spec/template/spec/containers/0[name="web"]/image`-style rendering of a path.
fn path_str(p: &[Seg]) -> String {
    let mut s = String::new();
    for seg in p {
        s.push('/');
        match seg {
            Seg::Key(k) => s.push_str(k),
            Seg::Item { index, key } => {
                match index {
                    Some(i) => s.push_str(&i.to_string()),
                    None => s.push('?'),
                }
                if let Some((k, v)) = key {
                    s.push_str(&format!("[{k}={v}]"));
                }
            }
        }
    }
    if s.is_empty() {
        s.push('/');
    }
    s
}

fn short(v: &Option<Value>) -> String {
    match v {
        None => "-".into(),
        Some(Value::Object(_)) => "{..}".into(),
        Some(v) => v.to_string(),
    }
}

/// One line per resource and per change: `!` certain, `?` guessed; `live -> git`.
fn summary(text: &str) -> Vec<String> {
    let resources = parse_diff_text(text).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for r in &resources {
        out.push(format!(
            "{}/{} {}/{} {:?} {:?}",
            r.group, r.kind, r.namespace, r.name, r.format, r.presence
        ));
        for c in &r.changes {
            let mark = if c.certain { '!' } else { '?' };
            out.push(format!(
                "  {mark} {} {} -> {}",
                path_str(&c.path),
                short(&c.live),
                short(&c.git)
            ));
        }
    }
    out
}

fn find<'a>(rs: &'a [TextResource], kind: &str, name: &str) -> &'a TextResource {
    rs.iter()
        .find(|r| r.kind == kind && r.name == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

fn change<'a>(r: &'a TextResource, path: &str) -> &'a TextChange {
    r.changes
        .iter()
        .find(|c| path_str(&c.path) == path)
        .unwrap_or_else(|| panic!("no change at {path} in {:#?}", r.changes))
}

/// The string value of one side ("" when missing or not a string).
fn text_of(v: &Option<Value>) -> &str {
    v.as_ref().and_then(Value::as_str).unwrap_or("")
}

fn key(k: &str) -> Seg {
    Seg::Key(k.to_string())
}

/// Diff text from its lines (string continuations would eat the leading blanks of context lines).
fn lines(l: &[&str]) -> String {
    let mut s = l.join("\n");
    s.push('\n');
    s
}

/// The pointer the analysis prints for a text path.
fn pointer_of(c: &TextChange) -> String {
    crate::path::pointer(&c.path)
}

/// Each named text reads into exactly these lines of [`summary`].
fn assert_summaries(cases: &[(&str, String, &[&str])]) {
    for (name, text, want) in cases {
        if let Err(e) = parse_diff_text(text) {
            panic!("{name}: {e}");
        }
        assert_eq!(summary(text), *want, "{name}");
    }
}
