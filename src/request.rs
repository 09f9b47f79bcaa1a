//! One analysis request, whichever shell fills it.
//!
//! The command line's flags, the page's fields and a link's options say the
//! same things: a namespace, a diff strategy, an Argo CD release, two
//! switches. [`Request`] holds them as the user gave them, and
//! [`Request::resolve`] decides once how they combine with the pasted
//! settings and Application: what the user chose wins over what the
//! Application says, and what nobody chose takes its default (the legacy
//! diff, the newest release).

#![warn(missing_docs)]

use crate::application::Application;
use crate::input::InputError;
use crate::{ArgoCdRelease, CompareOptions, Options, Strategy};

/// What the user asked for, before the pasted settings and Application.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    /// The namespace for Git objects that name none, when the user gave one
    /// (else the Application's destination namespace, else none).
    pub namespace: Option<String>,
    /// The diff strategy the user chose; `None` is "as the Application
    /// says", the legacy diff without one.
    pub strategy: Option<Strategy>,
    /// The Argo CD release whose comparison is imitated.
    pub release: ArgoCdRelease,
    /// `resource.compareoptions.ignoreAggregatedRoles` given as a switch.
    pub ignore_aggregated_roles: bool,
    /// Keep the differences Argo CD would not count in the report.
    pub include_hidden: bool,
}

/// A settings text or Application that could not be used, with the source
/// the shell named it by.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolveError<S> {
    /// The source the shell gave with the text (a file name, a field).
    pub source: S,
    /// Where in that text, and why.
    pub error: InputError,
}

impl Request {
    /// The options the analysis runs with: the request's own choices, each
    /// settings text applied in order (an Application's `ignoreDifferences`,
    /// an `argocd-cm`), then the Application, whose destination namespace
    /// and strategy apply only where the request chose none.
    pub fn resolve<S: Clone>(
        &self,
        settings: &[(S, &str)],
        application: Option<(S, &Application)>,
    ) -> Result<Options, ResolveError<S>> {
        let mut compare = CompareOptions {
            strategy: self.strategy.unwrap_or_default(),
            ignore_aggregated_roles: self.ignore_aggregated_roles,
            include_hidden: self.include_hidden,
            ..CompareOptions::for_release(self.release)
        };
        for (source, text) in settings {
            crate::settings::apply_user_settings(text, &mut compare).map_err(|error| {
                ResolveError {
                    source: source.clone(),
                    error,
                }
            })?;
        }
        let mut namespace = self.namespace.clone();
        if let Some((source, app)) = application {
            app.apply_to(
                &mut namespace,
                &mut compare,
                self.namespace.is_some(),
                self.strategy.is_some(),
            )
            .map_err(|error| ResolveError { source, error })?;
        }
        Ok(Options { namespace, compare })
    }

    /// The strategy a link must carry for this request: the one chosen,
    /// except the default (legacy), which a link writes only when it also
    /// carries an Application whose strategy it must win over.
    pub fn strategy_to_share(&self, with_application: bool) -> Option<Strategy> {
        self.strategy
            .filter(|s| *s != Strategy::default() || with_application)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SSA_APP: &str = r#"
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: shop, namespace: argocd}
spec:
  destination: {namespace: storefront}
  syncPolicy:
    syncOptions: [ServerSideApply=true]
"#;

    #[test]
    fn the_users_choices_win_over_the_application() {
        let app = Application::parse(SSA_APP).unwrap();
        let resolve = |r: &Request| r.resolve::<&str>(&[], Some(("app", &app))).unwrap();
        let as_the_app_says = resolve(&Request::default());
        assert_eq!(as_the_app_says.compare.strategy, Strategy::ServerSideApply);
        assert_eq!(as_the_app_says.namespace.as_deref(), Some("storefront"));
        let chosen = resolve(&Request {
            strategy: Some(Strategy::Legacy),
            namespace: Some("shop".into()),
            ..Request::default()
        });
        assert_eq!(chosen.compare.strategy, Strategy::Legacy);
        assert_eq!(chosen.namespace.as_deref(), Some("shop"));
        // Without an Application, nothing chosen is the legacy diff.
        let none = Request::default().resolve::<&str>(&[], None).unwrap();
        assert_eq!(none.compare.strategy, Strategy::Legacy);
        assert_eq!(none.namespace, None);
    }

    #[test]
    fn a_broken_settings_text_is_named_by_its_source() {
        let err = Request::default()
            .resolve(&[("--argocd-cm cm.yaml", "data: [unclosed")], None)
            .unwrap_err();
        assert_eq!(err.source, "--argocd-cm cm.yaml");
        assert!(err.error.line > 0, "{:?}", err.error);
    }

    #[test]
    fn a_link_writes_legacy_only_over_an_application() {
        let legacy = Request {
            strategy: Some(Strategy::Legacy),
            ..Request::default()
        };
        assert_eq!(legacy.strategy_to_share(false), None);
        assert_eq!(legacy.strategy_to_share(true), Some(Strategy::Legacy));
        assert_eq!(Request::default().strategy_to_share(true), None);
        let ssd = Request {
            strategy: Some(Strategy::ServerSideDiff),
            ..Request::default()
        };
        assert_eq!(ssd.strategy_to_share(false), Some(Strategy::ServerSideDiff));
    }
}
