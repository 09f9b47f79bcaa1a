//! The evidence an Argo CD Application carries about itself: its settings
//! (destination namespace, sync options, ignoreDifferences), Argo CD's own
//! verdict per resource, the errors of its last sync and its sync history.
//! Read from `argocd app get APP -o yaml` or `kubectl get application APP -o
//! yaml` (YAML or JSON), and set beside the analysis of the objects.

#![warn(missing_docs)]

pub mod history;
pub mod observed;
pub mod sync_errors;

use crate::compare::{CompareOptions, Strategy};
use crate::identity::{canonical_group, ResourceKey};
use crate::input::{parse_values, InputError, Side};
use crate::model::{ArgocdStatus, Presence, Report, Status, VerdictDisagreement};
use serde_json::Value;

/// A pasted Application, with its text (its ignoreDifferences are read by
/// [`crate::settings::apply_user_settings`] from the text, so errors locate in it).
#[derive(Debug, Clone)]
pub struct Application {
    object: Value,
    text: String,
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

fn array_at<'a>(v: &'a Value, pointer: &str) -> &'a [Value] {
    v.pointer(pointer)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The first Application among parsed documents (a List's items included).
fn find_application(v: &Value) -> Option<&Value> {
    match v {
        Value::Array(items) => items.iter().find_map(find_application),
        Value::Object(m) => match m.get("kind").and_then(Value::as_str) {
            Some("Application") => Some(v),
            Some(k) if k.ends_with("List") => m.get("items").and_then(find_application),
            _ => None,
        },
        _ => None,
    }
}

impl Application {
    /// Read the Application from YAML or JSON; the first document of kind
    /// `Application` counts. Errors name the document, line and column.
    pub fn parse(text: &str) -> Result<Application, InputError> {
        let docs = parse_values(text, Side::Git).map_err(|mut e| {
            e.message = format!("Application: {}", e.message);
            e
        })?;
        let object = docs
            .iter()
            .find_map(|(v, _, _)| find_application(v))
            .cloned()
            .ok_or_else(|| InputError {
                side: Side::Git,
                document: 0,
                line: 0,
                column: 0,
                message: "Application: the text holds no object of kind Application (give what `argocd app get APP -o yaml` or `kubectl get application APP -n argocd -o yaml` prints)".to_string(),
            })?;
        Ok(Application {
            object,
            text: text.to_string(),
        })
    }

    /// The Application object as read.
    pub fn object(&self) -> &Value {
        &self.object
    }

    /// The Application without its status, as YAML: the settings a link
    /// carries (the status's messages are free text no masker can vouch for).
    pub fn settings_text(&self) -> String {
        let mut out = serde_json::Map::new();
        for key in ["apiVersion", "kind", "spec"] {
            if let Some(v) = self.object.get(key) {
                out.insert(key.to_string(), v.clone());
            }
        }
        if let Some(name) = self.object.pointer("/metadata/name") {
            out.insert("metadata".to_string(), serde_json::json!({ "name": name }));
        }
        serde_yaml::to_string(&Value::Object(out)).unwrap_or_default()
    }

    /// Its name.
    pub fn name(&self) -> &str {
        str_at(&self.object, "/metadata/name").unwrap_or("")
    }

    /// What Argo CD's tracking annotation names this Application by
    /// (argo-cd `Application.InstanceName`: the name, prefixed with
    /// `<namespace>_` when the Application lives outside Argo CD's own
    /// namespace, taken to be `argocd` or unstated).
    pub fn tracked_by(&self) -> crate::compare::TrackedBy {
        let namespace = str_at(&self.object, "/metadata/namespace").unwrap_or("");
        let instance = if namespace.is_empty() || namespace == "argocd" {
            self.name().to_string()
        } else {
            format!("{namespace}_{}", self.name())
        };
        crate::compare::TrackedBy {
            instance,
            destination_namespace: self.destination_namespace().unwrap_or("").to_string(),
        }
    }

    /// `spec.destination.namespace`, when set.
    pub fn destination_namespace(&self) -> Option<&str> {
        str_at(&self.object, "/spec/destination/namespace").filter(|s| !s.is_empty())
    }

    /// Whether `spec.syncPolicy.syncOptions` turns `option` on (`Name=true`).
    pub fn sync_option(&self, option: &str) -> bool {
        array_at(&self.object, "/spec/syncPolicy/syncOptions")
            .iter()
            .filter_map(Value::as_str)
            .filter_map(|o| o.split_once('='))
            .any(|(k, v)| k.trim() == option && v.trim().eq_ignore_ascii_case("true"))
    }

    /// Whether the Application's compare-options annotation turns `option` on.
    fn compare_option(&self, option: &str) -> Option<bool> {
        let text = str_at(
            &self.object,
            "/metadata/annotations/argocd.argoproj.io~1compare-options",
        )?;
        text.split(',')
            .filter_map(|o| o.split_once('='))
            .find(|(k, _)| k.trim() == option)
            .map(|(_, v)| v.trim().eq_ignore_ascii_case("true"))
    }

    /// How Argo CD `release` compares this app: server-side diff when its
    /// compare-options annotation asks for it; when it syncs with
    /// `ServerSideApply=true`, the comparison that goes with it
    /// ([`Strategy::ServerSideApply`]: structured merge before 3.6,
    /// server-side diff since), unless from 3.6 its `ServerSideDiff=false`
    /// selects the legacy diff (argo-cd PR #29103, controller/state.go
    /// `shouldUseServerSideDiff`; before it `ServerSideDiff=false` only
    /// turned server-side diff off and the structured merge stayed); else
    /// none said.
    pub fn strategy(&self, release: crate::ArgoCdRelease) -> Option<Strategy> {
        let ssd = self.compare_option("ServerSideDiff");
        if ssd == Some(true) {
            return Some(Strategy::ServerSideDiff);
        }
        if !self.sync_option("ServerSideApply") {
            return None;
        }
        let legacy = ssd == Some(false)
            && release.has(crate::argocd_release::Behaviour::ServerSideDiffForServerSideApply);
        Some(if legacy {
            Strategy::Legacy
        } else {
            Strategy::ServerSideApply
        })
    }

    /// `spec.syncPolicy.automated`: (auto-sync on, selfHeal on).
    pub fn automated(&self) -> (bool, bool) {
        match self.object.pointer("/spec/syncPolicy/automated") {
            Some(Value::Object(a)) => {
                // Argo CD 3.1 added `enabled`; absent means on.
                let on = a.get("enabled").and_then(Value::as_bool).unwrap_or(true);
                let heal = a.get("selfHeal").and_then(Value::as_bool).unwrap_or(false);
                (on, on && heal)
            }
            _ => (false, false),
        }
    }

    /// Use the Application's settings as if given separately (the
    /// analysis' `namespace` and `compare` options): its ignoreDifferences
    /// join the compare rules; its destination namespace and strategy apply
    /// unless the caller gave its own (`namespace_given`, `strategy_given`).
    pub fn apply_to(
        &self,
        namespace: &mut Option<String>,
        compare: &mut CompareOptions,
        namespace_given: bool,
        strategy_given: bool,
    ) -> Result<(), InputError> {
        crate::settings::apply_user_settings(&self.text, compare)?;
        compare.tracked_by = Some(self.tracked_by());
        if !namespace_given {
            if let Some(ns) = self.destination_namespace() {
                *namespace = Some(ns.to_string());
            }
        }
        // Read from the Application only (controller/state.go,
        // `HasAnnotationOption(app, ...)`).
        compare.include_mutation_webhook =
            self.compare_option("IncludeMutationWebhook") == Some(true);
        if !strategy_given {
            if let Some(s) = self.strategy(compare.release) {
                compare.strategy = s;
            }
        }
        Ok(())
    }

    /// What the Application says next to `report`, an analysis run with
    /// this `namespace` and `strategy`.
    pub fn status(
        &self,
        report: &Report,
        namespace: Option<&str>,
        strategy: Strategy,
    ) -> ArgocdStatus {
        ArgocdStatus {
            name: self.name().to_string(),
            sync_status: str_at(&self.object, "/status/sync/status").map(str::to_string),
            // The report names the release it imitates.
            settings: self.settings_used(
                namespace,
                strategy,
                crate::ArgoCdRelease::parse(&report.argocd_version).unwrap_or_default(),
            ),
            verdicts: self.verdicts(report),
            sync_errors: sync_errors::classify(&self.object),
            sync_loop: history::sync_loop(self),
        }
    }

    /// One sentence per setting of the Application the analysis used.
    fn settings_used(
        &self,
        namespace: Option<&str>,
        strategy: Strategy,
        release: crate::ArgoCdRelease,
    ) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(ns) = self.destination_namespace() {
            if namespace == Some(ns) {
                out.push(format!(
                    "Destination namespace `{ns}`: Git objects without a namespace are placed there."
                ));
            }
        }
        let rules = array_at(&self.object, "/spec/ignoreDifferences").len();
        if rules > 0 {
            out.push(if rules == 1 {
                "Its ignoreDifferences rule is applied to the comparison.".to_string()
            } else {
                format!("Its {rules} ignoreDifferences rules are applied to the comparison.")
            });
        }
        match self.strategy(release) {
            Some(s) if s == strategy => out.push(format!(
                "Compared as `{}`, as {} says.",
                s.id(),
                match s {
                    Strategy::ServerSideDiff =>
                        "its `argocd.argoproj.io/compare-options: ServerSideDiff=true` annotation",
                    Strategy::Legacy =>
                        "its `ServerSideDiff=false` compare option over its `ServerSideApply=true` sync option (argo-cd PR #29103)",
                    Strategy::ServerSideApply => "its `ServerSideApply=true` sync option",
                }
            )),
            Some(s) => out.push(format!(
                "It asks for `{}`, but the comparison given (`{}`) was used.",
                s.id(),
                strategy.id()
            )),
            None => {}
        }
        if self.sync_option("RespectIgnoreDifferences") {
            out.push("`RespectIgnoreDifferences=true`: a sync keeps the live values of ignored fields of existing objects, so an ignore rule also stops the sync from overwriting them.".to_string());
        } else if rules > 0 {
            out.push("Without `RespectIgnoreDifferences=true`, a sync still applies ignored fields from Git: ignoring a field hides it from the comparison but does not stop the sync from overwriting it.".to_string());
        }
        out
    }

    /// Every resource on which Argo CD's `status.resources` and the report disagree.
    fn verdicts(&self, report: &Report) -> Vec<VerdictDisagreement> {
        let listed = array_at(&self.object, "/status/resources");
        if listed.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for r in listed {
            let kind = str_at(r, "/kind").unwrap_or("");
            let name = str_at(r, "/name").unwrap_or("");
            if kind.is_empty() || name.is_empty() {
                continue;
            }
            let key = ResourceKey {
                group: canonical_group(str_at(r, "/group").unwrap_or(""), kind),
                kind: kind.to_string(),
                namespace: str_at(r, "/namespace").unwrap_or("").to_string(),
                name: name.to_string(),
            };
            let id = key.to_string();
            seen.insert(id.clone());
            // Hooks are run, not compared: Argo CD's status for them says nothing about drift.
            if r.get("hook").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            let argocd = str_at(r, "/status").unwrap_or("Unknown").to_string();
            let prune = r.get("requiresPruning").and_then(Value::as_bool) == Some(true);
            let ours = report.resources.iter().find(|x| x.id == id);
            let message = match ours {
                None if prune => Some(format!(
                    "Argo CD lists it as {argocd} and requiring pruning (live, not in Git); it is not among the pasted objects: paste the live object to have it explained."
                )),
                None => Some(format!(
                    "Argo CD lists it as {argocd}; it is not among the pasted objects: paste it on both sides to have it explained."
                )),
                Some(o) if prune && o.presence != Presence::LiveOnly => Some(
                    "Argo CD says it requires pruning (live, not in Git); the pasted Git holds it: the Git pasted is not the revision Argo CD rendered, or the object's tracking names another app.".to_string(),
                ),
                Some(o) => match (argocd.as_str(), o.status) {
                    ("OutOfSync", Status::Synced) => Some(
                        "Argo CD says OutOfSync; from the pasted objects this is Synced: paste the live object as Argo CD reads it (`argocd app manifests APP --source live`), or check the Argo CD release compared with (`--argocd-version`; on the page, \"Argo CD release\") and your argocd-cm settings.".to_string(),
                    ),
                    ("Synced", Status::OutOfSync) => Some(
                        "Argo CD says Synced; from the pasted objects this is OutOfSync: Argo CD hides the difference by a setting not pasted (argocd-cm ignoreDifferences or compare options), compares as another release, or the pasted objects are not the ones it compared.".to_string(),
                    ),
                    ("Unknown", _) => Some(
                        "Argo CD could not compare it (Unknown): its ComparisonError condition says why.".to_string(),
                    ),
                    _ => None,
                },
            };
            if let Some(message) = message {
                out.push(VerdictDisagreement {
                    id,
                    argocd: Some(argocd),
                    drift_doctor: ours.map(|o| o.status),
                    requires_pruning: prune,
                    message,
                });
            }
        }
        for r in &report.resources {
            if !seen.contains(&r.id) {
                out.push(VerdictDisagreement {
                    id: r.id.clone(),
                    argocd: None,
                    drift_doctor: Some(r.status),
                    requires_pruning: false,
                    message: "Argo CD's status does not list it: Argo CD does not track it as part of this app (another app's, or not tracked), so it does not count toward the app's status.".to_string(),
                });
            }
        }
        crate::sorting::sort_by(&mut out, |a, b| a.id.cmp(&b.id));
        out
    }
}
