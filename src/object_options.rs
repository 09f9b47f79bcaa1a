//! Options an object sets for itself: the `argocd.argoproj.io/sync-options`
//! and `argocd.argoproj.io/compare-options` annotations, which override the
//! Application's choice for that one object (gitops-engine `pkg/sync/common`
//! and argo-cd `controller/state.go` read them per resource).

#![warn(missing_docs)]

use crate::compare::Strategy;
use crate::path::Pointer;
use serde_json::Value;

/// The annotation with per-object sync options (`ServerSideApply=true`, ...).
pub const SYNC_OPTIONS: &str = "argocd.argoproj.io/sync-options";
/// The annotation with per-object compare options (`IgnoreExtraneous`, ...).
pub const COMPARE_OPTIONS: &str = "argocd.argoproj.io/compare-options";

/// What an object's own annotations say, each `None` when it says nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ObjectOptions {
    /// `sync-options: ServerSideApply=true|false`.
    pub server_side_apply: Option<bool>,
    /// `compare-options: ServerSideDiff=true|false`.
    pub server_side_diff: Option<bool>,
    /// `compare-options: IncludeMutationWebhook=true`.
    pub include_mutation_webhook: bool,
    /// `compare-options: IgnoreExtraneous`: a live-only object does not
    /// make the app OutOfSync.
    pub ignore_extraneous: bool,
}

impl ObjectOptions {
    /// Read the annotations of the object Argo CD takes them from: the Git
    /// object when there is one, else the live one.
    pub fn of(git: Option<&Value>, live: Option<&Value>) -> ObjectOptions {
        let Some(obj) = git.or(live) else {
            return ObjectOptions::default();
        };
        let mut out = ObjectOptions::default();
        for (key, value) in options(obj, SYNC_OPTIONS) {
            if key == "ServerSideApply" {
                out.server_side_apply = parse_bool(value);
            }
        }
        for (key, value) in options(obj, COMPARE_OPTIONS) {
            match key {
                "ServerSideDiff" => out.server_side_diff = parse_bool(value),
                "IncludeMutationWebhook" => {
                    out.include_mutation_webhook = parse_bool(value).unwrap_or(false)
                }
                "IgnoreExtraneous" => out.ignore_extraneous = value.is_none_or(|v| v == "true"),
                _ => {}
            }
        }
        out
    }

    /// The strategy for this object, given the Application's. An explicit
    /// `ServerSideDiff` decides; otherwise `ServerSideApply=true` makes the
    /// object compare as the Application's server-side apply would, and
    /// `ServerSideApply=false` takes it back to the legacy diff.
    pub fn strategy(self, app: Strategy) -> Strategy {
        match (self.server_side_diff, self.server_side_apply) {
            (Some(true), _) => Strategy::ServerSideDiff,
            (Some(false), Some(true)) => Strategy::ServerSideApply,
            (Some(false), _) => match app {
                Strategy::ServerSideDiff => Strategy::Legacy,
                other => other,
            },
            (None, Some(true)) if app == Strategy::Legacy => Strategy::ServerSideApply,
            (None, Some(false)) if app == Strategy::ServerSideApply => Strategy::Legacy,
            (None, _) => app,
        }
    }

    /// Whether the object overrides anything, for the evidence.
    pub fn is_set(self) -> bool {
        self != ObjectOptions::default()
    }
}

/// `Key=Value` pairs (or bare `Key`s) of a comma-separated annotation.
fn options<'v>(
    obj: &'v Value,
    annotation: &str,
) -> impl Iterator<Item = (&'v str, Option<&'v str>)> {
    obj.at("/metadata/annotations")
        .and_then(|a| a.get(annotation))
        .and_then(Value::as_str)
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| match s.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => (s, None),
        })
}

fn parse_bool(value: Option<&str>) -> Option<bool> {
    match value? {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn annotated(sync: &str, compare: &str) -> Value {
        json!({"metadata": {"annotations": {SYNC_OPTIONS: sync, COMPARE_OPTIONS: compare}}})
    }

    #[test]
    fn object_annotations_override_the_application() {
        let cases: &[(&str, &str, Strategy, Strategy)] = &[
            ("", "", Strategy::Legacy, Strategy::Legacy),
            (
                "ServerSideApply=true",
                "",
                Strategy::Legacy,
                Strategy::ServerSideApply,
            ),
            (
                "Prune=false,ServerSideApply=false",
                "",
                Strategy::ServerSideApply,
                Strategy::Legacy,
            ),
            (
                "",
                "ServerSideDiff=true",
                Strategy::Legacy,
                Strategy::ServerSideDiff,
            ),
            (
                "",
                "ServerSideDiff=false",
                Strategy::ServerSideDiff,
                Strategy::Legacy,
            ),
            (
                "ServerSideApply=true",
                "ServerSideDiff=false",
                Strategy::ServerSideDiff,
                Strategy::ServerSideApply,
            ),
        ];
        for (sync, compare, app, want) in cases {
            let o = ObjectOptions::of(Some(&annotated(sync, compare)), None);
            assert_eq!(o.strategy(*app), *want, "{sync} / {compare} under {app:?}");
        }
    }

    #[test]
    fn compare_options_are_read_from_git_else_live() {
        let live = annotated("", "IgnoreExtraneous, IncludeMutationWebhook=true");
        let o = ObjectOptions::of(None, Some(&live));
        assert!(o.ignore_extraneous && o.include_mutation_webhook);
        let git = annotated("", "");
        assert!(!ObjectOptions::of(Some(&git), Some(&live)).is_set());
    }
}
