//! The Argo CD release whose comparison drift-doctor imitates.
//!
//! Argo CD's comparison changed between releases, and many teams run one a
//! year or two old. What changed is kept as one table, [`CHANGES`], each row
//! with the first release that has the change and the upstream change that
//! made it; the comparison asks [`ArgoCdRelease::has`] rather than comparing
//! release numbers itself.

#![warn(missing_docs)]

use std::fmt;

/// An Argo CD release line, `MAJOR.MINOR`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ArgoCdRelease {
    /// The major version (`3` in 3.4).
    pub major: u16,
    /// The minor version (`4` in 3.4).
    pub minor: u16,
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
        ArgoCdRelease { major, minor }
    }

    /// Read `MAJOR.MINOR` (a leading `v` and a patch number are accepted and
    /// the patch ignored: `v2.14.3` is 2.14). The error says what was wrong.
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
        if parts.next().is_some_and(|p| p.parse::<u32>().is_err()) || parts.next().is_some() {
            return Err(format!(
                "Argo CD release `{trimmed}` is not MAJOR.MINOR (for example 2.14 or 3.4)"
            ));
        }
        let release = ArgoCdRelease::new(major, minor);
        if release < OLDEST {
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
        write!(f, "{}.{}", self.major, self.minor)
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
