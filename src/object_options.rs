//! Options an object sets for itself. Argo CD reads two from the object:
//! the sync option `ServerSideApply=true` (`argocd.argoproj.io/sync-options`),
//! which before 3.6 makes gitops-engine compare that one object with the
//! structured-merge diff (`gitops-engine/pkg/diff/diff.go`, `Diff`; from 3.6
//! the legacy diff, see [`ObjectOptions::strategy`]), and the
//! compare option `IgnoreExtraneous`. `ServerSideDiff` and
//! `IncludeMutationWebhook` are the Application's own annotations
//! (`controller/state.go`, `HasAnnotationOption(app, ...)`): on an object they
//! configure nothing, so they are not read here. `ServerSideApply=false` on
//! an object does not take it out of an app-wide structured-merge diff
//! either: only `true` is looked for.

#![warn(missing_docs)]

use crate::compare::Strategy;
use crate::path::Pointer;
use serde_json::Value;

/// The annotation with per-object sync options (`ServerSideApply=true`, ...).
pub const SYNC_OPTIONS: &str = "argocd.argoproj.io/sync-options";
/// The annotation with per-object compare options (`IgnoreExtraneous`, ...).
pub const COMPARE_OPTIONS: &str = "argocd.argoproj.io/compare-options";

/// What an object's own annotations say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ObjectOptions {
    /// `sync-options: ServerSideApply=true` on the Git object.
    pub server_side_apply: bool,
    /// `compare-options: IgnoreExtraneous`: a live-only object does not
    /// make the app OutOfSync.
    pub ignore_extraneous: bool,
}

impl ObjectOptions {
    /// Read the annotations of the object Argo CD takes them from: the Git
    /// object (the sync option is read from the desired state only), else,
    /// for `IgnoreExtraneous`, the live one.
    pub fn of(git: Option<&Value>, live: Option<&Value>) -> ObjectOptions {
        let mut out = ObjectOptions::default();
        if let Some(git) = git {
            out.server_side_apply = options(git, SYNC_OPTIONS)
                .any(|(key, value)| key == "ServerSideApply" && value == Some("true"));
        }
        if let Some(obj) = git.or(live) {
            out.ignore_extraneous = options(obj, COMPARE_OPTIONS)
                .any(|(key, value)| key == "IgnoreExtraneous" && value.is_none_or(|v| v == "true"));
        }
        out
    }

    /// The strategy for this object on Argo CD `release`, given the
    /// Application's: a server-side diff covers every object; otherwise,
    /// before 3.6, `ServerSideApply=true` on the object selects the
    /// structured-merge diff, as the Application's server-side apply does
    /// for all. From 3.6 (argo-cd PR #29103) the structured-merge diff is
    /// gone and the object's option would ask for server-side diff, but the
    /// dry-run runner is wired only when the Application's own decision is
    /// server-side diff (controller/state.go), so the object falls back to
    /// the legacy diff (gitops-engine/pkg/diff/diff.go `Diff`, `willUseSSD`).
    pub fn strategy(self, app: Strategy, release: crate::ArgoCdRelease) -> Strategy {
        let retired =
            release.has(crate::argocd_release::Behaviour::ServerSideDiffForServerSideApply);
        match app {
            Strategy::Legacy if self.server_side_apply && !retired => Strategy::ServerSideApply,
            other => other,
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn annotated(sync: &str, compare: &str) -> Value {
        json!({"metadata": {"annotations": {SYNC_OPTIONS: sync, COMPARE_OPTIONS: compare}}})
    }

    #[test]
    fn only_server_side_apply_true_on_the_object_changes_its_diff() {
        let cases: &[(&str, &str, Strategy, Strategy)] = &[
            ("", "", Strategy::Legacy, Strategy::Legacy),
            (
                "ServerSideApply=true",
                "",
                Strategy::Legacy,
                Strategy::ServerSideApply,
            ),
            // `false` on the object does not leave an app-wide
            // structured-merge diff.
            (
                "Prune=false,ServerSideApply=false",
                "",
                Strategy::ServerSideApply,
                Strategy::ServerSideApply,
            ),
            // Compare options on an object configure nothing.
            (
                "",
                "ServerSideDiff=true",
                Strategy::Legacy,
                Strategy::Legacy,
            ),
            (
                "",
                "ServerSideDiff=false",
                Strategy::ServerSideDiff,
                Strategy::ServerSideDiff,
            ),
            // A server-side diff covers every object.
            (
                "ServerSideApply=true",
                "",
                Strategy::ServerSideDiff,
                Strategy::ServerSideDiff,
            ),
        ];
        let before = crate::ArgoCdRelease::new(3, 5);
        for (sync, compare, app, want) in cases {
            let o = ObjectOptions::of(Some(&annotated(sync, compare)), None);
            assert_eq!(
                o.strategy(*app, before),
                *want,
                "{sync} / {compare} under {app:?}"
            );
        }
    }

    /// argo-cd PR #29103: from 3.6 an object's own `ServerSideApply=true`
    /// in an app without server-side diff is compared with the legacy diff.
    #[test]
    fn from_3_6_an_objects_server_side_apply_falls_back_to_the_legacy_diff() {
        let o = ObjectOptions::of(Some(&annotated("ServerSideApply=true", "")), None);
        let release = |t: &str| crate::ArgoCdRelease::parse(t).unwrap();
        assert_eq!(
            o.strategy(Strategy::Legacy, release("3.5.1")),
            Strategy::ServerSideApply
        );
        assert_eq!(
            o.strategy(Strategy::Legacy, release("3.6")),
            Strategy::Legacy
        );
        // The app's own server-side apply keeps its comparison.
        assert_eq!(
            o.strategy(Strategy::ServerSideApply, release("3.6")),
            Strategy::ServerSideApply
        );
    }

    #[test]
    fn ignore_extraneous_is_read_from_git_else_live() {
        let live = annotated("", "IgnoreExtraneous, IncludeMutationWebhook=true");
        let o = ObjectOptions::of(None, Some(&live));
        assert!(o.ignore_extraneous);
        let git = annotated("", "");
        assert!(!ObjectOptions::of(Some(&git), Some(&live)).is_set());
        // The sync option is the desired object's: live's says nothing.
        let live_ssa = annotated("ServerSideApply=true", "");
        assert!(!ObjectOptions::of(None, Some(&live_ssa)).server_side_apply);
    }
}
