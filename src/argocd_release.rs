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
    /// Objects synced with `ServerSideApply=true` are compared with
    /// server-side diff (before: the structured-merge diff, which takes field
    /// ownership from the live `managedFields`, replaces lists without a list
    /// type whole and knows no CRD `default:` values).
    ServerSideDiffForServerSideApply,
    /// The stock `argocd-cm` excludes high-churn kinds no one declares in Git
    /// (Endpoints, EndpointSlice, Lease, the `*Review` kinds, certificate
    /// requests, Cilium identities and endpoints, Kyverno and policy reports):
    /// Argo CD never compares or syncs them (`resource.exclusions`).
    DefaultResourceExclusions,
}

/// One dated change of the comparison.
#[derive(Debug, Clone, Copy)]
pub struct ReleaseChange {
    /// What changed.
    pub behaviour: Behaviour,
    /// The first release line that has it.
    pub since: ArgoCdRelease,
    /// The upstream change that made it.
    pub upstream: &'static str,
}

/// What changed in Argo CD's comparison, and since when.
pub const CHANGES: &[ReleaseChange] = &[
    ReleaseChange {
        behaviour: Behaviour::IgnoreEveryStatusByDefault,
        since: ArgoCdRelease::new(3, 0),
        upstream: "Argo CD 3.0 (upgrade notes 2.14 to 3.0; util/settings GetDefaultDiffOptions): ignoreResourceStatusField defaults to `all`, was `crd`",
    },
    ReleaseChange {
        behaviour: Behaviour::AnnotationTrackingByDefault,
        since: ArgoCdRelease::new(3, 0),
        upstream: "Argo CD 3.0 (upgrade notes 2.14 to 3.0, \"Use Annotation-Based Tracking by Default\"): application.resourceTrackingMethod defaults to `annotation`, was `label`",
    },
    ReleaseChange {
        behaviour: Behaviour::ServerSideDiffForServerSideApply,
        since: ArgoCdRelease::new(3, 6),
        upstream: "argo-cd PR #29103 \"Default to SSD with SSA and remove SMD\" (issue #24134), in the 3.6 upgrade notes (argo-cd PR #29769): ServerSideApply=true is compared with server-side diff; releases before it (3.5 and older) use the structured-merge diff (argo-cd #11139: no CRD defaults)",
    },
    ReleaseChange {
        behaviour: Behaviour::DefaultResourceExclusions,
        since: ArgoCdRelease::new(3, 0),
        upstream: "argo-cd PR #21635 \"exclude known interim resources by default\" (manifests/base/config/argocd-cm.yaml `resource.exclusions`; APIService taken out again by PR #22586), in the 2.14 to 3.0 upgrade notes",
    },
];

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

    /// Whether this release has a dated change of the comparison.
    pub fn has(self, behaviour: Behaviour) -> bool {
        CHANGES
            .iter()
            .find(|c| c.behaviour == behaviour)
            .is_some_and(|c| self >= c.since)
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
    fn each_change_starts_at_its_release() {
        for change in CHANGES {
            let since = change.since;
            assert!(since.has(change.behaviour), "{change:?}");
            let before = if since.minor > 0 {
                ArgoCdRelease::new(since.major, since.minor - 1)
            } else {
                ArgoCdRelease::new(since.major - 1, 99)
            };
            assert!(!before.has(change.behaviour), "{change:?}");
            assert!(NEWEST.has(change.behaviour), "{change:?}");
        }
    }
}
