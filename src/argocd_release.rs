//! The Argo CD release whose comparison drift-doctor imitates.
//!
//! Argo CD's comparison changed between releases, and many teams run one a
//! year or two old. What changed is kept as one table, [`CHANGES`], each row
//! with the first release that has the change and the upstream change that
//! made it; the comparison asks [`ArgoCdRelease::has`] rather than comparing
//! release numbers itself.

#![warn(missing_docs)]

use std::fmt;

/// An Argo CD release: a line, `MAJOR.MINOR`, or one patch release of it,
/// `MAJOR.MINOR.PATCH`. Fixes land in patch releases (a bug fixed in 3.4.5
/// and 3.5.0), so the patch is kept when the user gives it; a bare line
/// orders before every patch release of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ArgoCdRelease {
    /// The major version (`3` in 3.4).
    pub major: u16,
    /// The minor version (`4` in 3.4).
    pub minor: u16,
    /// The patch release (`5` in 3.4.5), when known.
    pub patch: Option<u16>,
}

/// The newest release line drift-doctor knows; the default.
pub const NEWEST: ArgoCdRelease = ArgoCdRelease::new(3, 6);

/// The oldest release line drift-doctor accepts (the first with
/// `resource.compareoptions` and annotation tracking as an option).
pub const OLDEST: ArgoCdRelease = ArgoCdRelease::new(2, 0);

/// A change of Argo CD's comparison that [`CHANGES`] dates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// `resource.compareoptions.ignoreResourceStatusField` defaults to `all`
    /// (before: `crd`).
    IgnoreEveryStatusByDefault,
    /// Resources are tracked with the `argocd.argoproj.io/tracking-id`
    /// annotation by default (before: the `app.kubernetes.io/instance`
    /// label, which Argo CD wrote into every desired object).
    AnnotationTrackingByDefault,
    /// An app that syncs with `ServerSideApply=true` is compared with
    /// server-side diff, unless its `ServerSideDiff=false` asks for the legacy
    /// diff; an object's own `ServerSideApply=true` in an app without
    /// server-side diff is compared with the legacy diff (before: both with
    /// the structured-merge diff, which takes field ownership from the live
    /// `managedFields`, replaces lists without a list type whole and knows no
    /// CRD `default:` values).
    ServerSideDiffForServerSideApply,
    /// The stock `argocd-cm` excludes high-churn kinds no one declares in Git
    /// (Endpoints, EndpointSlice, Lease, the `*Review` kinds, certificate
    /// requests, Cilium identities and endpoints, Kyverno and policy reports):
    /// Argo CD never compares or syncs them (`resource.exclusions`).
    DefaultResourceExclusions,
    /// Server-side diff applies the ignore rules after the dry run (before:
    /// to desired before it, so ignoring a required field such as a
    /// container's `image` made the API server refuse the dry run and the
    /// app's comparison failed).
    IgnoreRulesAfterDryRun,
    /// Server-side diff leaves `metadata.resourceVersion` out (before: with
    /// `IncludeMutationWebhook=true` it was compared, and flapped whenever
    /// the object was written between Argo CD's cache and the dry run).
    ServerSideDiffDropsResourceVersion,
    /// `RespectIgnoreDifferences=true` no longer copies the live `status`
    /// into the object a sync applies.
    RespectIgnoreDifferencesLeavesStatus,
    /// `RespectIgnoreDifferences=true` keeps the fields of a `replace`
    /// strategy field (a PodDisruptionBudget's `spec.selector`) that no rule
    /// ignores.
    RespectIgnoreDifferencesKeepsReplacedFields,
    /// The label-to-annotation tracking backfill happens only when live
    /// carries no tracking annotation (before: whenever live carried the
    /// instance label, live's tracking annotation was overwritten with the
    /// desired one, hiding a wrong tracking id).
    TrackingBackfillOnlyWhenUnset,
    /// Server-side diff's webhook filter keeps the fields Argo CD owns under
    /// an `x-kubernetes-preserve-unknown-fields` object (before: the whole
    /// object was taken from live, so changes under it were invisible).
    WebhookFilterKeepsPreservedFields,
    /// An object's own `argocd.argoproj.io/ignore-differences-json-pointers`
    /// annotation (comma-separated RFC 6901 pointers) is merged with the
    /// Application's ignore rules for that object.
    ResourceIgnoreAnnotation,
}

/// One dated change of the comparison.
#[derive(Debug, Clone, Copy)]
pub struct ReleaseChange {
    /// What changed.
    pub behaviour: Behaviour,
    /// The first release that has it: a line (`3.0`: all of it) or the first
    /// patch release of the newest line it landed in (`3.5.0`).
    pub since: ArgoCdRelease,
    /// The patch releases of older lines it was backported to, the first of
    /// each line (`3.4.6`); a line not named here never got it.
    pub backported: &'static [ArgoCdRelease],
    /// The upstream change that made it.
    pub upstream: &'static str,
}

impl ReleaseChange {
    /// Every first release that has the change, oldest line first.
    pub fn first_releases(&self) -> Vec<ArgoCdRelease> {
        let mut all = self.backported.to_vec();
        all.push(self.since);
        crate::sorting::sort(&mut all);
        all
    }

    /// The first releases as words: `3.4.6 and 3.5.0`.
    pub fn first_releases_text(&self) -> String {
        let all: Vec<String> = self
            .first_releases()
            .iter()
            .map(ToString::to_string)
            .collect();
        match all.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => all.concat(),
        }
    }
}

const fn p(major: u16, minor: u16, patch: u16) -> ArgoCdRelease {
    ArgoCdRelease::patch_release(major, minor, patch)
}

/// What changed in Argo CD's comparison, and since when. Each row was read
/// in the upstream code of the releases it names (the tags' own files).
pub const CHANGES: &[ReleaseChange] = &[
    ReleaseChange {
        behaviour: Behaviour::IgnoreEveryStatusByDefault,
        since: ArgoCdRelease::new(3, 0),
        backported: &[],
        upstream: "Argo CD 3.0 (upgrade notes 2.14 to 3.0; util/settings GetDefaultDiffOptions): ignoreResourceStatusField defaults to `all`, was `crd`",
    },
    ReleaseChange {
        behaviour: Behaviour::AnnotationTrackingByDefault,
        since: ArgoCdRelease::new(3, 0),
        backported: &[],
        upstream: "Argo CD 3.0 (upgrade notes 2.14 to 3.0, \"Use Annotation-Based Tracking by Default\"): application.resourceTrackingMethod defaults to `annotation`, was `label`",
    },
    ReleaseChange {
        behaviour: Behaviour::DefaultResourceExclusions,
        since: ArgoCdRelease::new(3, 0),
        backported: &[],
        upstream: "argo-cd PR #21635 \"exclude known interim resources by default\" (manifests/base/config/argocd-cm.yaml `resource.exclusions`; APIService taken out again by PR #22586), in the 2.14 to 3.0 upgrade notes",
    },
    ReleaseChange {
        behaviour: Behaviour::IgnoreRulesAfterDryRun,
        since: ArgoCdRelease::new(3, 2),
        backported: &[],
        upstream: "gitops-engine PR #747 \"update normalization for ignoreDifferences on server-side diff\" (pkg/diff/diff.go `WithSkipFullNormalize`; first pinned by argo-cd 3.2.0): before it the ignore rules were applied to desired before the dry run, and ignoring a required field failed the comparison (`ComparisonError ... Required value`)",
    },
    ReleaseChange {
        behaviour: Behaviour::ServerSideDiffDropsResourceVersion,
        since: p(3, 4, 0),
        backported: &[p(3, 3, 11)],
        upstream: "argo-cd PR #27406 \"remove resourceVersion from ssd\" (gitops-engine/pkg/diff/diff.go `serverSideDiff`; in 3.3.11 through PR #28016): metadata.resourceVersion flapped under server-side diff with IncludeMutationWebhook=true",
    },
    ReleaseChange {
        behaviour: Behaviour::RespectIgnoreDifferencesLeavesStatus,
        since: p(3, 5, 0),
        backported: &[p(3, 3, 12), p(3, 4, 4)],
        upstream: "argo-cd PR #28201 \"exclude live status from normalization\" (controller/sync.go `normalizeTargetResources`; PRs #28203, #28204): RespectIgnoreDifferences=true copied the live status into the applied object",
    },
    ReleaseChange {
        behaviour: Behaviour::RespectIgnoreDifferencesKeepsReplacedFields,
        since: p(3, 5, 0),
        backported: &[p(3, 3, 13), p(3, 4, 5)],
        upstream: "argo-cd PR #27136 \"don't clobber non-ignored fields on replace\" (controller/sync.go; PRs #28505, #28506, #28507): RespectIgnoreDifferences=true replaced a PodDisruptionBudget's spec.selector with the ignored fields alone",
    },
    ReleaseChange {
        behaviour: Behaviour::TrackingBackfillOnlyWhenUnset,
        since: p(3, 5, 0),
        backported: &[p(3, 4, 6)],
        upstream: "argo-cd PR #28770 \"only do annotation backfill if live unset\" (util/argo/resource_tracking.go `Normalize`; issue #17965; PRs #28775, #28776): a live tracking id was overwritten with the desired one whenever live carried the instance label",
    },
    ReleaseChange {
        behaviour: Behaviour::WebhookFilterKeepsPreservedFields,
        since: p(3, 5, 0),
        backported: &[p(3, 4, 6)],
        upstream: "argo-cd PR #28819 \"don't drop manager-owned descendant fields when filtering webhook mutations\" (gitops-engine/pkg/diff/diff.go `excludeManagerOwnedAncestors`; PRs #28894, #28895): server-side diff missed changes under x-kubernetes-preserve-unknown-fields",
    },
    ReleaseChange {
        behaviour: Behaviour::ServerSideDiffForServerSideApply,
        since: ArgoCdRelease::new(3, 6),
        backported: &[],
        upstream: "argo-cd PR #29103 \"Default to SSD with SSA and remove SMD\" (issue #24134; controller/state.go `shouldUseServerSideDiff`, gitops-engine/pkg/diff/diff.go `Diff`), in the 3.6 upgrade notes (argo-cd PR #29769): an app's ServerSideApply=true selects server-side diff unless its ServerSideDiff=false selects the legacy diff, and an object's own ServerSideApply=true falls back to the legacy diff; releases before it use the structured-merge diff for both (argo-cd #11139: no CRD defaults)",
    },
    ReleaseChange {
        behaviour: Behaviour::ResourceIgnoreAnnotation,
        since: ArgoCdRelease::new(3, 6),
        backported: &[],
        upstream: "argo-cd PR #29616 \"support ignore-differences annotation on resources\" (issue #12686; docs/user-guide/annotations-and-labels.md), merged in 2026-09 into the development line that became 3.6: an object's argocd.argoproj.io/ignore-differences-json-pointers is merged with the Application's ignore rules",
    },
];

/// The row of a behaviour.
pub fn change(behaviour: Behaviour) -> Option<&'static ReleaseChange> {
    CHANGES.iter().find(|c| c.behaviour == behaviour)
}

impl ArgoCdRelease {
    /// The release line `major.minor`.
    pub const fn new(major: u16, minor: u16) -> ArgoCdRelease {
        ArgoCdRelease {
            major,
            minor,
            patch: None,
        }
    }

    /// The patch release `major.minor.patch`.
    pub const fn patch_release(major: u16, minor: u16, patch: u16) -> ArgoCdRelease {
        ArgoCdRelease {
            major,
            minor,
            patch: Some(patch),
        }
    }

    /// The release line this release belongs to.
    pub const fn line(self) -> ArgoCdRelease {
        ArgoCdRelease::new(self.major, self.minor)
    }

    /// Whether this release carries a fix published in `fixed_in`: one
    /// patch release per line it was backported to, the newest line's
    /// first (`[3.3.13, 3.4.5, 3.5.0]`). `None` when the release names only
    /// its line and the fix came in a patch of that line: the input cannot
    /// tell.
    pub fn carries(self, fixed_in: &[ArgoCdRelease]) -> Option<bool> {
        let newest = fixed_in.iter().max()?;
        if self.line() > newest.line() {
            return Some(true);
        }
        match fixed_in.iter().find(|f| f.line() == self.line()) {
            Some(f) => match (self.patch, f.patch.unwrap_or(0)) {
                (_, 0) => Some(true),
                (Some(p), first) => Some(p >= first),
                (None, _) => None,
            },
            None => Some(false),
        }
    }

    /// Read `MAJOR.MINOR` or `MAJOR.MINOR.PATCH`, with or without a leading
    /// `v` (`v2.14.3`). The error says what was wrong.
    pub fn parse(text: &str) -> Result<ArgoCdRelease, String> {
        let trimmed = text.trim();
        let bare = trimmed.strip_prefix(['v', 'V']).unwrap_or(trimmed);
        let mut parts = bare.split('.');
        let number = |p: Option<&str>| p.and_then(|s| s.parse::<u16>().ok());
        let (major, minor) = match (number(parts.next()), number(parts.next())) {
            (Some(major), Some(minor)) => (major, minor),
            _ => {
                return Err(format!(
                    "Argo CD release `{trimmed}` is not MAJOR.MINOR (for example 2.14 or 3.4)"
                ))
            }
        };
        let patch = match parts.next() {
            None => None,
            Some(p) => match p.parse::<u16>() {
                Ok(p) => Some(p),
                Err(_) => {
                    return Err(format!(
                        "Argo CD release `{trimmed}` is not MAJOR.MINOR or MAJOR.MINOR.PATCH (for example 2.14 or 3.4.5)"
                    ))
                }
            },
        };
        if parts.next().is_some() {
            return Err(format!(
                "Argo CD release `{trimmed}` is not MAJOR.MINOR or MAJOR.MINOR.PATCH (for example 2.14 or 3.4.5)"
            ));
        }
        let release = ArgoCdRelease {
            major,
            minor,
            patch,
        };
        if release.line() < OLDEST {
            return Err(format!(
                "Argo CD {release} is older than {OLDEST}, the oldest release drift-doctor imitates"
            ));
        }
        Ok(release)
    }

    /// Whether this release has a dated change of the comparison. A bare
    /// line (`3.4`) is taken as its first release: a change that came in a
    /// later patch of it is not had ([`ArgoCdRelease::undecided`] lists them).
    pub fn has(self, behaviour: Behaviour) -> bool {
        self.decides(behaviour) == Some(true)
    }

    /// Whether this release has a change: `None` when it names only its line
    /// and the change came in a patch release of that line.
    pub fn decides(self, behaviour: Behaviour) -> Option<bool> {
        change(behaviour).and_then(|c| self.carries(&c.first_releases()))
    }

    /// The changes this release cannot tell because it names only its line
    /// and they came in one of its patch releases, in table order.
    pub fn undecided(self) -> Vec<&'static ReleaseChange> {
        CHANGES
            .iter()
            .filter(|c| self.decides(c.behaviour).is_none())
            .collect()
    }

    /// A sentence for the report when this release names only its line and
    /// some changes came in its patch releases: which ones, and that the
    /// comparison takes the line's first release.
    pub fn undecided_warning(self) -> Option<String> {
        let rows = self.undecided();
        if rows.is_empty() {
            return None;
        }
        let listed: Vec<String> = rows
            .iter()
            .map(|c| {
                let first = c
                    .first_releases()
                    .into_iter()
                    .find(|f| f.line() == self.line())
                    .map_or_else(String::new, |f| f.to_string());
                let pr = c
                    .upstream
                    .split_once(" \"")
                    .map_or(c.upstream, |(head, _)| head);
                format!("{pr} (from {first})")
            })
            .collect();
        Some(format!(
            "Argo CD {self} names no patch release: compared as {self}.0, without the changes of its later patch releases: {}. Give the exact release (for example {}.{}) if yours has them.",
            listed.join(", "),
            self,
            rows.iter()
                .filter_map(|c| c.first_releases().into_iter().find(|f| f.line() == self.line()))
                .filter_map(|f| f.patch)
                .max()
                .unwrap_or(0)
        ))
    }
}

impl Default for ArgoCdRelease {
    fn default() -> Self {
        NEWEST
    }
}

impl fmt::Display for ArgoCdRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)?;
        match self.patch {
            Some(p) => write!(f, ".{p}"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_are_read_as_major_minor() {
        let cases: &[(&str, Option<(u16, u16)>)] = &[
            ("3.4", Some((3, 4))),
            ("v2.14", Some((2, 14))),
            ("2.14.3", Some((2, 14))),
            (" 3.0 ", Some((3, 0))),
            ("3", None),
            ("3.x", None),
            ("3.4.1.2", None),
            ("1.8", None),
            ("", None),
        ];
        for (text, expected) in cases {
            let got = ArgoCdRelease::parse(text).ok().map(|r| (r.major, r.minor));
            assert_eq!(got, *expected, "{text:?}");
        }
        assert_eq!(ArgoCdRelease::new(2, 14).to_string(), "2.14");
        let patch = ArgoCdRelease::parse("v3.4.5").unwrap();
        assert_eq!(patch, ArgoCdRelease::patch_release(3, 4, 5));
        assert_eq!(patch.to_string(), "3.4.5");
        // A line orders before its patch releases, after the older line's.
        assert!(ArgoCdRelease::new(3, 4) < patch && patch < ArgoCdRelease::new(3, 5));
        assert!(patch.has(Behaviour::AnnotationTrackingByDefault));
    }

    #[test]
    fn a_fix_backported_to_patch_releases_is_carried_from_them() {
        let fixed_in = [
            ArgoCdRelease::patch_release(3, 3, 13),
            ArgoCdRelease::patch_release(3, 4, 5),
            ArgoCdRelease::patch_release(3, 5, 0),
        ];
        let carries = |text: &str| ArgoCdRelease::parse(text).unwrap().carries(&fixed_in);
        assert_eq!(carries("3.4.5"), Some(true));
        assert_eq!(carries("3.4.4"), Some(false));
        assert_eq!(carries("3.3.12"), Some(false));
        assert_eq!(carries("3.3.20"), Some(true));
        assert_eq!(carries("3.5"), Some(true));
        assert_eq!(carries("3.6.1"), Some(true));
        assert_eq!(carries("3.2.9"), Some(false));
        assert_eq!(carries("2.14"), Some(false));
        // The line alone does not tell which patch it runs.
        assert_eq!(carries("3.4"), None);
    }

    #[test]
    fn each_change_starts_at_its_first_releases() {
        for change in CHANGES {
            for first in change.first_releases() {
                assert!(first.has(change.behaviour), "{first} {change:?}");
                let before = match (first.patch, first.minor) {
                    (Some(n), _) if n > 0 => {
                        ArgoCdRelease::patch_release(first.major, first.minor, n - 1)
                    }
                    (_, m) if m > 0 => ArgoCdRelease::new(first.major, m - 1),
                    _ => ArgoCdRelease::new(first.major - 1, 99),
                };
                let backported_to_older_line = change
                    .first_releases()
                    .iter()
                    .any(|f| f.line() == before.line() && f.patch.unwrap_or(0) == 0);
                if !backported_to_older_line {
                    assert!(!before.has(change.behaviour), "{before} {change:?}");
                }
            }
            assert!(NEWEST.has(change.behaviour), "{change:?}");
        }
    }

    #[test]
    fn patch_rows_tell_patch_releases_apart() {
        let release = |t: &str| ArgoCdRelease::parse(t).unwrap();
        let b = Behaviour::TrackingBackfillOnlyWhenUnset;
        assert!(!release("3.4.5").has(b));
        assert!(release("3.4.6").has(b));
        assert!(release("3.5.0").has(b));
        // 3.3 never got the fix.
        assert!(!release("3.3.20").has(b));
        assert_eq!(release("3.4").decides(b), None);
        let b = Behaviour::ServerSideDiffDropsResourceVersion;
        assert!(release("3.3.11").has(b) && !release("3.3.10").has(b));
        assert!(release("3.4").has(b), "3.4.0 has it: the whole line does");
        assert_eq!(
            change(Behaviour::RespectIgnoreDifferencesLeavesStatus)
                .unwrap()
                .first_releases_text(),
            "3.3.12, 3.4.4 and 3.5.0"
        );
        // A bare line says which rows it cannot tell; an exact release none.
        let warning = release("3.4").undecided_warning().unwrap();
        assert!(
            warning.contains("argo-cd PR #28770 (from 3.4.6)"),
            "{warning}"
        );
        assert!(warning.contains("for example 3.4.6"), "{warning}");
        assert!(release("3.4.6").undecided_warning().is_none());
        assert!(NEWEST.undecided_warning().is_none());
    }
}
