//! What the whole input says about each object: who autoscales it, which
//! CRDs are being installed (and their schemas' defaults), which app tracks
//! it. Rules read this to name the owner of a change rather than guess from a
//! path alone.

#![warn(missing_docs)]

use crate::identity::{api_group, ResourceKey};
use crate::k8s;
use crate::path::Pointer;
use crate::path::Seg;
use crate::sorting::CollectByInsertion;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

/// An object that scales another: HPA, KEDA ScaledObject or VPA.
#[derive(Debug, Clone, PartialEq)]
pub struct Scaler {
    /// e.g. "HorizontalPodAutoscaler shop/cart"
    pub describe: String,
    /// The scaler's namespace, which is its target's.
    pub namespace: String,
    /// The target's API group.
    pub target_group: String,
    /// The target's kind.
    pub target_kind: String,
    /// The target's name.
    pub target_name: String,
    /// VPA only: whether it changes resources (updateMode other than Off).
    pub changes_resources: bool,
    /// VPA only: it is a VPA, which never owns replicas.
    pub is_vpa: bool,
}

/// What the whole input tells about each object beyond the object itself:
/// who scales it, which CRDs and namespaces exist where, which app it is.
#[derive(Debug, Clone, Default)]
pub struct InputContext {
    /// Every scaler found, Git or live.
    pub scalers: Vec<Scaler>,
    /// The scalers by what they target (namespace, kind, name), and the
    /// ones already seen by their description: found in one lookup each,
    /// not by a walk over every scaler (thousands in a big app).
    scaler_targets: BTreeMap<(String, String, String), Vec<usize>>,
    scalers_seen: BTreeSet<String>,
    /// Group/kind pairs whose CRD is defined in the Git input, with the CRD's name and sync wave.
    pub crds_in_git: BTreeMap<(String, String), (String, Option<String>)>,
    /// Group/kinds whose CRD exists live.
    pub crds_live: BTreeSet<(String, String)>,
    /// Namespaces defined in Git (name → present live).
    pub namespaces_in_git: BTreeMap<String, bool>,
    /// The Argo CD app the input belongs to, from tracking metadata.
    pub application: Option<String>,
    /// CRDs found in the input by group/kind: the live one (what the API
    /// server uses now) and the one Git declares.
    pub crd_definitions_live: BTreeMap<(String, String), CrdDefinition>,
    /// See `crd_definitions_live`.
    pub crd_definitions_git: BTreeMap<(String, String), CrdDefinition>,
    /// Objects as compact JSON, written once per object on first use: rules
    /// that look at a whole object's text would otherwise serialise it again
    /// for every one of its differences (quadratic for a big object).
    json_texts: JsonTexts,
    /// A second render of the same commit, by key, when one was given: the
    /// fields it disagrees on with the first are rendered anew each time.
    pub second_render: Option<BTreeMap<ResourceKey, Value>>,
    /// The objects were rebuilt from diff output: a field on lines no hunk
    /// shows is unknown, not absent.
    pub partial_objects: bool,
    /// Objects of the input that name another in their spec
    /// (`scaleTargetRef`, `targetRef`, `workloadRef`), by the object named
    /// (namespace, kind, name): "Canary shop/web (spec.targetRef)".
    referrers: BTreeMap<(String, String, String), BTreeSet<Referrer>>,
    /// What the mutating webhooks of the input's MutatingWebhookConfigurations
    /// are registered for: (API groups, resources) per rule. Empty when the
    /// input holds none.
    pub mutating_webhook_rules: Vec<(Vec<String>, Vec<String>)>,
    /// The content of each ConfigMap and Secret of the input (data, binary
    /// data, string data as the API server stores it), as a digest per side:
    /// what a `checksum/config` annotation can hash.
    config_contents: BTreeMap<ResourceKey, [Option<u64>; 2]>,
    /// The same content key by key (`data` with `stringData` folded in, and
    /// `binaryData`), as a digest per key and side: which keys differ.
    config_keys: BTreeMap<ResourceKey, [Option<BTreeMap<String, u64>>; 2]>,
    /// The diff text came from `argocd app diff`, which prints every
    /// resource of the app that differs: a resource it does not show is
    /// Synced.
    pub whole_app_diff: bool,
    /// Certificate material per object and side, as digests: the CA
    /// bundles of webhook configurations, APIServices and CRD conversion
    /// webhooks, and the certificate and key entries of Secrets. A chart
    /// that generates its webhook's CA at render time changes both.
    ca_bundles: BTreeMap<ResourceKey, [Option<u64>; 2]>,
    /// See `ca_bundles`.
    tls_secrets: BTreeMap<ResourceKey, [Option<u64>; 2]>,
    /// Namespaces any live object of the input is in: they exist.
    live_namespaces: BTreeSet<String>,
    /// Git's hook Jobs that run before any resource is applied (Argo CD's
    /// `PreSync`, Helm's `pre-install`/`pre-upgrade`), by key: their hook
    /// and delete policy as written.
    presync_hook_jobs: BTreeMap<ResourceKey, String>,
    /// Live Jobs that failed (a `Failed` condition), by key: the reason.
    failed_jobs: BTreeMap<ResourceKey, String>,
    /// How many Git objects of the input each namespace holds.
    git_objects_per_namespace: BTreeMap<String, usize>,
    /// The pasted events and logs, when any: the rules' provenance reads
    /// who they say wrote a field (`rules::observed`).
    pub observed: Option<std::sync::Arc<crate::evidence::Observed>>,
}

/// What the input says of the content a checksum annotation can hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashedContent {
    /// These many ConfigMaps and Secrets are in the input, each the same in
    /// Git and live.
    Unchanged(usize),
    /// `argocd app diff` shows no ConfigMap or Secret differing.
    NoneInWholeAppDiff,
    /// A ConfigMap or Secret differs, or the input cannot tell.
    Unknown,
}

/// The spec fields by which an object names the workload it acts on.
const REFERENCE_FIELDS: &[&str] = &["scaleTargetRef", "targetRef", "workloadRef"];

/// An object of the input that names another in its spec.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Referrer {
    /// The naming object's kind (`Canary`, `HorizontalPodAutoscaler`).
    pub kind: String,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// The field of its spec that names the object (`targetRef`).
    pub field: &'static str,
}

impl Referrer {
    /// Whether the naming object drives the workload's rollout (a
    /// progressive-delivery object: a Canary's `targetRef`, a Rollout's
    /// `workloadRef`), which moves replicas between workloads as it shifts
    /// traffic; an autoscaler names its target in `scaleTargetRef`, and a
    /// VerticalPodAutoscaler's `targetRef` sets resources, never replicas.
    pub fn drives_rollout(&self) -> bool {
        match self.field {
            "workloadRef" => true,
            "targetRef" => self.kind != "VerticalPodAutoscaler",
            _ => false,
        }
    }
}

impl std::fmt::Display for Referrer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}/{} (spec.{})",
            self.kind, self.namespace, self.name, self.field
        )
    }
}

impl InputContext {
    /// `obj` (the Git object of `key` when `from_git`, else the live one) as
    /// compact JSON, serialised at most once per analysis.
    pub fn json_text(&self, key: &ResourceKey, from_git: bool, obj: &Value) -> Arc<str> {
        let cache_key = (key.clone(), from_git);
        if let Ok(cache) = self.json_texts.0.lock() {
            if let Some(text) = cache.get(&cache_key) {
                return Arc::clone(text);
            }
        }
        let text: Arc<str> = Arc::from(obj.to_string());
        if let Ok(mut cache) = self.json_texts.0.lock() {
            cache.insert(cache_key, Arc::clone(&text));
        }
        text
    }
}

/// The cache behind [`InputContext::json_text`]; a clone starts empty.
#[derive(Default)]
struct JsonTexts(Mutex<HashMap<(ResourceKey, bool), Arc<str>>>);

impl Clone for JsonTexts {
    fn clone(&self) -> Self {
        JsonTexts::default()
    }
}

impl std::fmt::Debug for JsonTexts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JsonTexts")
    }
}

/// One version of a CustomResourceDefinition, as far as comparing needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct CrdVersion {
    /// The version's name, e.g. `v1`.
    pub name: String,
    /// Whether objects are stored in this version.
    pub storage: bool,
    /// The version's `openAPIV3Schema`, kept only when it declares a `default`.
    pub schema: Option<Value>,
    /// `subresources.status` is enabled.
    pub status_subresource: bool,
    /// The lists the schema keys by `x-kubernetes-list-map-keys`, each as
    /// the property names leading to it (list items add no name; `*` is
    /// any key of an `additionalProperties` map). Strategic merges that
    /// take the CRD's schema merge these item by item; every other list of
    /// a custom resource is replaced whole.
    pub keyed_lists: Vec<Vec<String>>,
}

impl CrdVersion {
    /// Whether the list at `segs` (mapping keys and list items, ending at
    /// the list) is keyed by the schema's `x-kubernetes-list-map-keys`.
    pub fn keys_list(&self, segs: &[Seg]) -> bool {
        let names: Vec<&str> = segs
            .iter()
            .filter_map(|s| match s {
                Seg::Key(k) => Some(k.as_str()),
                Seg::Item { .. } => None,
            })
            .collect();
        self.keyed_lists.iter().any(|list| {
            list.len() == names.len()
                && list
                    .iter()
                    .zip(&names)
                    .all(|(want, got)| want == "*" || want == got)
        })
    }
}

/// What a CustomResourceDefinition says about its custom resources.
#[derive(Debug, Clone, PartialEq)]
pub struct CrdDefinition {
    /// The CRD's own name, e.g. `backups.dr.example.com`.
    pub name: String,
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// `spec.versions`.
    pub versions: Vec<CrdVersion>,
}

impl CrdDefinition {
    /// Read a CRD object (`apiextensions.k8s.io/v1`, or the per-CRD schema
    /// and subresources of `v1beta1`).
    pub fn from_object(obj: &Value) -> Option<CrdDefinition> {
        let spec = obj.get("spec")?;
        let group = spec.get("group").and_then(Value::as_str)?.to_string();
        let kind = spec.at("/names/kind").and_then(Value::as_str)?.to_string();
        let name = obj
            .at("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let shared_schema = spec.at("/validation/openAPIV3Schema");
        let shared_status = spec
            .at("/subresources/status")
            .is_some_and(|s| !s.is_null());
        let mut versions: Vec<CrdVersion> = spec
            .get("versions")
            .and_then(Value::as_array)
            .map(|vs| {
                vs.iter()
                    .filter_map(|v| {
                        let name = v.get("name").and_then(Value::as_str)?.to_string();
                        let schema = v.at("/schema/openAPIV3Schema").or(shared_schema);
                        Some(CrdVersion {
                            name,
                            storage: v.get("storage").and_then(Value::as_bool).unwrap_or(false),
                            keyed_lists: schema.map(k8s::crd_keyed_lists).unwrap_or_default(),
                            schema: schema.filter(|s| k8s::crd_schema_has_default(s)).cloned(),
                            status_subresource: v
                                .at("/subresources/status")
                                .map_or(shared_status, |s| !s.is_null()),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        if versions.is_empty() {
            // v1beta1 with a single `spec.version`.
            let name = spec.get("version").and_then(Value::as_str)?.to_string();
            versions.push(CrdVersion {
                name,
                storage: true,
                keyed_lists: shared_schema.map(k8s::crd_keyed_lists).unwrap_or_default(),
                schema: shared_schema
                    .filter(|s| k8s::crd_schema_has_default(s))
                    .cloned(),
                status_subresource: shared_status,
            });
        }
        Some(CrdDefinition {
            name,
            group,
            kind,
            versions,
        })
    }

    /// The version the first of `objects` with an `apiVersion` is served
    /// at (the API server defaults a custom resource with its schema).
    pub fn served(&self, objects: &[Option<&Value>]) -> Option<&CrdVersion> {
        let served = objects
            .iter()
            .flatten()
            .find_map(|o| o.get("apiVersion").and_then(Value::as_str))
            .map(|v| v.rsplit('/').next().unwrap_or(v))
            .unwrap_or("");
        self.version(served)
    }

    /// The named version, or the storage version when the name is unknown.
    pub fn version(&self, name: &str) -> Option<&CrdVersion> {
        self.versions
            .iter()
            .find(|v| v.name == name)
            .or_else(|| self.versions.iter().find(|v| v.storage))
            .or_else(|| self.versions.first())
    }
}

fn scale_target(obj: &Value, field: &str) -> Option<(String, String, String)> {
    let t = obj.at(&format!("/spec/{field}"))?;
    let kind = t
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("Deployment");
    let name = t.get("name").and_then(Value::as_str)?;
    let group = api_group(
        t.get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("apps/v1"),
    );
    let group = crate::identity::canonical_group(group, kind);
    Some((group, kind.to_string(), name.to_string()))
}

impl InputContext {
    /// Learn from one object of the input (`from_git`: of the Git side).
    pub fn learn(&mut self, key: &ResourceKey, obj: &Value, from_git: bool) {
        let ns = key.namespace.clone();
        let push = |ctx: &mut InputContext, what: &str, field: &str, is_vpa: bool| {
            let (targets, describe) = match scale_target(obj, field) {
                Some(target) => (vec![target], format!("{what} {}/{}", ns, key.name)),
                // From diff output, a scaler whose target is on lines no hunk
                // shows is taken to scale the workload of its own name, as
                // `kubectl autoscale` names it and charts usually do; the
                // description says so.
                None if ctx.partial_objects && !is_vpa => (
                    ["Deployment", "StatefulSet"]
                        .map(|k| ("apps".to_string(), k.to_string(), key.name.clone()))
                        .to_vec(),
                    format!(
                        "{what} {}/{} (its target is not in the diff; taken to be the workload of the same name)",
                        ns, key.name
                    ),
                ),
                None => return,
            };
            if !ctx.scalers_seen.insert(describe.clone()) {
                return;
            }
            let mode = obj
                .at("/spec/updatePolicy/updateMode")
                .and_then(Value::as_str)
                .unwrap_or("Auto");
            for (g, k, n) in targets {
                ctx.scaler_targets
                    .entry((ns.clone(), k.clone(), n.clone()))
                    .or_default()
                    .push(ctx.scalers.len());
                ctx.scalers.push(Scaler {
                    describe: describe.clone(),
                    namespace: ns.clone(),
                    target_group: g,
                    target_kind: k,
                    target_name: n,
                    changes_resources: is_vpa && mode != "Off",
                    is_vpa,
                });
            }
        };
        let spec = obj.get("spec");
        for field in REFERENCE_FIELDS {
            let Some(r) = spec.and_then(|s| s.get(field)) else {
                continue;
            };
            if let (Some(kind), Some(name)) = (
                r.get("kind").and_then(Value::as_str),
                r.get("name").and_then(Value::as_str),
            ) {
                self.referrers
                    .entry((ns.clone(), kind.to_string(), name.to_string()))
                    .or_default()
                    .insert(Referrer {
                        kind: key.kind.clone(),
                        namespace: ns.clone(),
                        name: key.name.clone(),
                        field,
                    });
            }
        }
        if !key.namespace.is_empty() {
            if from_git {
                *self
                    .git_objects_per_namespace
                    .entry(key.namespace.clone())
                    .or_default() += 1;
            } else {
                self.live_namespaces.insert(key.namespace.clone());
            }
        }
        if key.group == "batch" && key.kind == "Job" {
            if from_git {
                if let Some(hook) = presync_hook(obj) {
                    self.presync_hook_jobs.insert(key.clone(), hook);
                }
            } else if let Some(reason) = job_failure(obj) {
                self.failed_jobs.insert(key.clone(), reason);
            }
        }
        let side = usize::from(!from_git);
        if let Some(digest) = ca_bundle_digest(key, obj) {
            self.ca_bundles.entry(key.clone()).or_default()[side] = Some(digest);
        }
        if key.group.is_empty() && key.kind == "Secret" {
            if let Some(digest) = tls_digest(obj) {
                self.tls_secrets.entry(key.clone()).or_default()[side] = Some(digest);
            }
        }
        if key.group.is_empty() && matches!(key.kind.as_str(), "ConfigMap" | "Secret") {
            let side = usize::from(!from_git);
            let stored = stored_data(obj);
            self.config_contents.entry(key.clone()).or_default()[side] =
                Some(config_digest(obj, &stored));
            self.config_keys.entry(key.clone()).or_default()[side] =
                Some(config_key_digests(obj, &stored));
        }
        if key.group == "admissionregistration.k8s.io" && key.kind == "MutatingWebhookConfiguration"
        {
            self.learn_webhook_rules(obj);
        }
        match (key.group.as_str(), key.kind.as_str()) {
            ("autoscaling", "HorizontalPodAutoscaler") => {
                push(self, "HorizontalPodAutoscaler", "scaleTargetRef", false)
            }
            ("keda.sh", "ScaledObject") => push(self, "KEDA ScaledObject", "scaleTargetRef", false),
            ("autoscaling.k8s.io", "VerticalPodAutoscaler") => {
                push(self, "VerticalPodAutoscaler", "targetRef", true)
            }
            ("apiextensions.k8s.io", "CustomResourceDefinition") => {
                if let Some(def) = CrdDefinition::from_object(obj) {
                    let gk = (def.group.clone(), def.kind.clone());
                    if from_git {
                        self.crd_definitions_git.insert(gk, def);
                    } else {
                        self.crd_definitions_live.insert(gk, def);
                    }
                }
                let g = obj
                    .at("/spec/group")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let k = obj
                    .at("/spec/names/kind")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                if from_git {
                    let wave = obj
                        .at("/metadata/annotations/argocd.argoproj.io~1sync-wave")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    let name = obj
                        .pointer("/metadata/name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    self.crds_in_git.insert((g, k), (name, wave));
                } else {
                    self.crds_live.insert((g, k));
                }
            }
            ("", "Namespace") => {
                let present = self
                    .namespaces_in_git
                    .entry(key.name.clone())
                    .or_insert(false);
                if !from_git {
                    *present = true;
                }
            }
            _ => {}
        }
        if !from_git && self.application.is_none() {
            if let Some(id) = obj
                .at("/metadata/annotations")
                .and_then(|a| a.get(crate::normalize::TRACKING_ANNOTATION))
                .and_then(Value::as_str)
            {
                if let Some((app, _)) = id.split_once(':') {
                    self.application = Some(app.rsplit('_').next().unwrap_or(app).to_string());
                }
            }
        }
    }

    fn learn_webhook_rules(&mut self, obj: &Value) {
        let strings = |v: Option<&Value>| -> Vec<String> {
            v.and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        };
        let webhooks = obj.get("webhooks").and_then(Value::as_array);
        for rule in webhooks
            .into_iter()
            .flatten()
            .filter_map(|w| w.get("rules").and_then(Value::as_array))
            .flatten()
        {
            let entry = (
                strings(rule.get("apiGroups")),
                strings(rule.get("resources")),
            );
            if !self.mutating_webhook_rules.contains(&entry) {
                self.mutating_webhook_rules.push(entry);
            }
        }
    }

    /// Whether the content a checksum annotation hashes (the input's
    /// ConfigMaps and Secrets) is the same in Git and live.
    pub fn hashed_content(&self) -> HashedContent {
        if self.partial_objects {
            return if self.whole_app_diff && self.config_contents.is_empty() {
                HashedContent::NoneInWholeAppDiff
            } else {
                HashedContent::Unknown
            };
        }
        let same = self
            .config_contents
            .values()
            .all(|[g, l]| g.is_some() && g == l);
        if same && !self.config_contents.is_empty() {
            HashedContent::Unchanged(self.config_contents.len())
        } else {
            HashedContent::Unknown
        }
    }

    /// The Secrets whose changes a checksum annotation follows, when every
    /// ConfigMap and Secret of the input that differs between Git and live
    /// is a Secret whose differing keys are all credentials or certificates
    /// (named like a password, secret, token, key, salt, cookie or JWT, or a
    /// `.crt`/`.pem` entry): the values charts generate at render time.
    /// `None` when none differs, when another kind of content differs, or
    /// when diff output that is not `argocd app diff` may leave some out.
    pub fn hashed_changes_generated(&self) -> Option<Vec<&ResourceKey>> {
        if self.partial_objects && !self.whole_app_diff {
            return None;
        }
        let mut changed = Vec::new();
        for (key, [git, live]) in &self.config_keys {
            let (Some(git), Some(live)) = (git, live) else {
                if git.is_some() != live.is_some() && !self.partial_objects {
                    return None;
                }
                continue;
            };
            let differing: Vec<&String> = git
                .keys()
                .chain(live.keys())
                .filter(|k| git.get(*k) != live.get(*k))
                .collect();
            if differing.is_empty() {
                continue;
            }
            if key.kind != "Secret" || !differing.iter().all(|k| credential_key(k)) {
                return None;
            }
            changed.push(key);
        }
        (!changed.is_empty()).then_some(changed)
    }

    /// The objects of the input whose certificate material differs between
    /// Git and live, Git holding some: the CA bundles (`secrets: false`)
    /// or the TLS Secrets (`secrets: true`).
    pub fn changed_certificates(&self, secrets: bool) -> impl Iterator<Item = &ResourceKey> {
        let map = if secrets {
            &self.tls_secrets
        } else {
            &self.ca_bundles
        };
        map.iter()
            .filter(|(_, [g, l])| g.is_some() && l.is_some() && g != l)
            .map(|(k, _)| k)
    }

    /// Whether nothing of the input exists live in this namespace and Git
    /// does not declare it: the app's objects there are all missing, which
    /// a namespace that does not exist explains. `Some(n)` with the number
    /// of the app's objects there. From diff output, which shows only what
    /// differs, it holds only for `argocd app diff` (every differing
    /// resource of the app) and at least two objects, all missing.
    pub fn namespace_empty_live(&self, namespace: &str) -> Option<usize> {
        if namespace.is_empty()
            || self.namespaces_in_git.contains_key(namespace)
            || self.live_namespaces.contains(namespace)
        {
            return None;
        }
        let n = *self.git_objects_per_namespace.get(namespace)?;
        if self.partial_objects && !(self.whole_app_diff && n >= 2) {
            return None;
        }
        Some(n)
    }

    /// The objects of the input that name this one in their spec.
    pub fn referrers_of(&self, key: &ResourceKey) -> impl Iterator<Item = &Referrer> {
        self.referrers
            .get(&(key.namespace.clone(), key.kind.clone(), key.name.clone()))
            .into_iter()
            .flatten()
    }

    /// Whether the input's mutating webhooks can see objects of this group
    /// and plural resource: `None` when the input holds no webhook
    /// configuration (nothing is known), else whether a rule covers it.
    pub fn webhooks_cover(&self, group: &str, resource: &str) -> Option<bool> {
        if self.mutating_webhook_rules.is_empty() {
            return None;
        }
        let has = |list: &[String], want: &str| list.iter().any(|x| x == "*" || x == want);
        Some(
            self.mutating_webhook_rules
                .iter()
                .any(|(groups, resources)| {
                    has(groups, group)
                        && resources.iter().any(|r| {
                            r == "*" || r == "*/*" || r.split('/').next() == Some(resource)
                        })
                }),
        )
    }

    /// The CRD of a custom resource's group/kind when the input holds it:
    /// the live one when both sides have it (the API server uses that one).
    pub fn crd(&self, group: &str, kind: &str) -> Option<&CrdDefinition> {
        if self.crd_definitions_live.is_empty() && self.crd_definitions_git.is_empty() {
            return None;
        }
        let gk = (group.to_string(), kind.to_string());
        self.crd_definitions_live
            .get(&gk)
            .or_else(|| self.crd_definitions_git.get(&gk))
    }

    /// A hook Job of the input that runs before anything is applied and
    /// failed live, with what says so: each sync stops there, so nothing
    /// Git changed since gets applied (the Job's own failure is not part of
    /// the comparison: Argo CD does not compare hooks).
    pub fn failed_presync_hook(&self) -> Option<String> {
        self.presync_hook_jobs.iter().find_map(|(key, hook)| {
            let reason = self.failed_jobs.get(key)?;
            Some(format!(
                "the Job {}/{} ({hook}) failed live ({reason})",
                key.namespace, key.name
            ))
        })
    }

    /// Scalers that target this object (same namespace, kind and name).
    pub fn scalers_of<'a>(&'a self, key: &'a ResourceKey) -> impl Iterator<Item = &'a Scaler> + 'a {
        self.scaler_targets
            .get(&(key.namespace.clone(), key.kind.clone(), key.name.clone()))
            .into_iter()
            .flatten()
            .filter_map(|&i| self.scalers.get(i))
    }
}

/// The app named by an object's tracking annotation, if any.
pub fn tracked_app(obj: &Value) -> Option<String> {
    let id = obj
        .at("/metadata/annotations")
        .and_then(|a| a.get(crate::normalize::TRACKING_ANNOTATION))
        .and_then(Value::as_str)?;
    let (app, _) = id.split_once(':')?;
    Some(app.rsplit('_').next().unwrap_or(app).to_string())
}

/// A ConfigMap's or Secret's `data` and `stringData` as the API server
/// stores them: `stringData` merged into `data` base64-encoded, so a Git
/// Secret written with `stringData` matches its live form.
fn stored_data(obj: &Value) -> Value {
    let mut stored = serde_json::Map::new();
    for field in ["data", "stringData"] {
        if let Some(v) = obj.get(field) {
            stored.insert(field.to_string(), v.clone());
        }
    }
    let mut stored = Value::Object(stored);
    crate::normalize::normalize_secret(&mut stored);
    stored
}

/// Each key of a ConfigMap's or Secret's content as stored (`stored`, its
/// [`stored_data`], and `binaryData`), with its value's digest.
fn config_key_digests(obj: &Value, stored: &Value) -> BTreeMap<String, u64> {
    let entries = ["data", "binaryData"].into_iter().flat_map(|field| {
        let map = if field == "data" {
            stored.get(field)
        } else {
            obj.get(field)
        };
        map.and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(move |(k, v)| (format!("{field}.{k}"), v))
    });
    entries
        .map(|(k, v)| (k, digest_of_json(&[v])))
        .collect_by_insertion()
}

/// A Secret key that holds a credential or certificate: what charts
/// generate at render time (`randAlphaNum`, `genCA`), in any case.
pub fn credential_key(key: &str) -> bool {
    let name = key.split_once('.').map_or(key, |(_, k)| k);
    let lower = name.to_ascii_lowercase();
    [
        "password", "passwd", "secret", "token", "key", "salt", "cookie", "jwt",
    ]
    .iter()
    .any(|w| lower.contains(w))
        || lower.ends_with(".crt")
        || lower.ends_with(".pem")
}

/// A digest of a ConfigMap's or Secret's whole content as stored (`stored`,
/// its [`stored_data`], and `binaryData`).
fn config_digest(obj: &Value, stored: &Value) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    hash_json(stored, &mut h);
    match obj.get("binaryData") {
        Some(binary) => hash_json(binary, &mut h),
        None => "".hash(&mut h),
    }
    h.finish()
}

fn digest_of(parts: &[&Value]) -> Option<u64> {
    (!parts.is_empty()).then(|| digest_of_json(parts))
}

/// The digest of each part's JSON text in turn.
fn digest_of_json(parts: &[&Value]) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for p in parts {
        hash_json(p, &mut h);
    }
    h.finish()
}

/// Hash `v`'s JSON text as hashing that text as a `str` would.
fn hash_json(v: &Value, h: &mut impl std::hash::Hasher) {
    // Into a vector: the program already has that serializer, so none is
    // compiled for the hasher alone.
    h.write(&serde_json::to_vec(v).unwrap_or_default());
    // What `str::hash` adds after the bytes.
    h.write_u8(0xff);
}

/// The CA bundles an object carries, when it is a kind that carries one.
fn ca_bundle_digest(key: &ResourceKey, obj: &Value) -> Option<u64> {
    let bundles: Vec<&Value> = match (key.group.as_str(), key.kind.as_str()) {
        (
            "admissionregistration.k8s.io",
            "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration",
        ) => obj
            .get("webhooks")?
            .as_array()?
            .iter()
            .filter_map(|w| w.at("/clientConfig/caBundle"))
            .collect(),
        ("apiregistration.k8s.io", "APIService") => obj.at("/spec/caBundle").into_iter().collect(),
        ("apiextensions.k8s.io", "CustomResourceDefinition") => obj
            .at("/spec/conversion/webhook/clientConfig/caBundle")
            .into_iter()
            .collect(),
        _ => return None,
    };
    digest_of(&bundles)
}

/// Whether a Secret's data key holds a certificate or key by its name
/// (`tls.crt`, `ca.crt`, `tls.key`, `*.pem`).
pub fn is_certificate_key(name: &str) -> bool {
    [".crt", ".key", ".pem", ".cert"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// The certificate and key entries of a Secret.
fn tls_digest(obj: &Value) -> Option<u64> {
    let entries: Vec<&Value> = ["data", "stringData"]
        .iter()
        .filter_map(|f| obj.get(*f).and_then(Value::as_object))
        .flat_map(|m| m.iter())
        .filter(|(k, _)| is_certificate_key(k))
        .map(|(_, v)| v)
        .collect();
    digest_of(&entries)
}

/// A Job's hook, when it runs before any resource is applied: Argo CD's
/// `PreSync` or Helm's `pre-install`/`pre-upgrade` (which Argo CD runs as
/// PreSync), with its delete policy as written.
fn presync_hook(obj: &Value) -> Option<String> {
    let annotations = obj.at("/metadata/annotations")?;
    let get = |k: &str| annotations.get(k).and_then(Value::as_str);
    let (hook, policy) = match get("argocd.argoproj.io/hook") {
        Some(h) => (h, get("argocd.argoproj.io/hook-delete-policy")),
        None => (get("helm.sh/hook")?, get("helm.sh/hook-delete-policy")),
    };
    let before = hook
        .split(',')
        .map(str::trim)
        .any(|h| matches!(h, "PreSync" | "pre-install" | "pre-upgrade"));
    before.then(|| match policy {
        Some(p) => format!("hook {hook}, delete policy {p}"),
        None => format!("hook {hook}"),
    })
}

/// Why a live Job failed, when its status says it did.
fn job_failure(obj: &Value) -> Option<String> {
    obj.at("/status/conditions")?
        .as_array()?
        .iter()
        .find(|c| {
            c.get("type").and_then(Value::as_str) == Some("Failed")
                && c.get("status").and_then(Value::as_str) == Some("True")
        })
        .map(|c| {
            c.get("reason")
                .and_then(Value::as_str)
                .unwrap_or("Failed")
                .to_string()
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_value_hashes_as_its_json_text_does() {
        use std::hash::{Hash, Hasher};
        let values = [
            json!(null),
            json!("tab\t, quote \", snowman \u{2603}, nul \u{0}"),
            json!({"b": [1, 2.5, -3], "a": {"nested": true}, "": ""}),
            json!({"key": "x".repeat(5000)}),
        ];
        for v in &values {
            let mut by_value = std::collections::hash_map::DefaultHasher::new();
            hash_json(v, &mut by_value);
            let mut by_text = std::collections::hash_map::DefaultHasher::new();
            v.to_string().hash(&mut by_text);
            assert_eq!(by_value.finish(), by_text.finish(), "{v}");
        }
        assert_ne!(digest_of_json(&[&values[0]]), digest_of_json(&[&values[1]]));
    }

    fn crd() -> Value {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Widget"}, "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "mode": {"type": "string", "default": "fast"},
                        "tls": {"type": "object", "default": {}, "properties": {
                            "enabled": {"type": "boolean", "default": false}}},
                        "ports": {"type": "array", "items": {"type": "object", "properties": {
                            "protocol": {"type": "string", "default": "TCP"},
                            "port": {"type": "integer"}}}},
                        "labels": {"type": "object", "additionalProperties": {
                            "type": "object", "properties": {"weight": {"type": "integer", "default": 1}}}}
                    }}}}}}]}})
    }

    #[test]
    fn checksums_follow_generated_credentials_only_when_nothing_else_differs() {
        let key = |kind: &str, name: &str| ResourceKey {
            group: String::new(),
            kind: kind.into(),
            namespace: "shop".into(),
            name: name.into(),
        };
        let object = |kind: &str, data: Value| json!({"kind": kind, "data": data});
        let mut ctx = InputContext::default();
        let secret = key("Secret", "auth");
        ctx.learn(
            &secret,
            &object("Secret", json!({"API_TOKEN": "YQ==", "user": "dQ=="})),
            true,
        );
        ctx.learn(
            &secret,
            &object("Secret", json!({"API_TOKEN": "Yg==", "user": "dQ=="})),
            false,
        );
        assert_eq!(ctx.hashed_changes_generated(), Some(vec![&secret]));
        // A setting that is no credential changed as well: not only generated values.
        let config = key("ConfigMap", "settings");
        ctx.learn(&config, &object("ConfigMap", json!({"mode": "fast"})), true);
        ctx.learn(
            &config,
            &object("ConfigMap", json!({"mode": "safe"})),
            false,
        );
        assert_eq!(ctx.hashed_changes_generated(), None);
        // Nothing differs at all: nothing to follow.
        let mut same = InputContext::default();
        same.learn(&config, &object("ConfigMap", json!({"mode": "fast"})), true);
        same.learn(
            &config,
            &object("ConfigMap", json!({"mode": "fast"})),
            false,
        );
        assert_eq!(same.hashed_changes_generated(), None);
    }

    #[test]
    fn reads_versions_schema_and_status_subresource() {
        let def = CrdDefinition::from_object(&crd()).unwrap();
        assert_eq!(
            (def.group.as_str(), def.kind.as_str()),
            ("example.com", "Widget")
        );
        let v = def.version("v1").unwrap();
        assert!(v.status_subresource && v.schema.is_some());
        assert_eq!(
            def.version("v9").unwrap().name,
            "v1",
            "unknown versions fall back to storage"
        );
    }

    #[test]
    fn fills_defaults_through_properties_items_and_additional_properties() {
        let def = CrdDefinition::from_object(&crd()).unwrap();
        let schema = def.version("v1").unwrap().schema.clone().unwrap();
        let mut obj = json!({"spec": {"ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}],
            "labels": {"a": {}}}});
        k8s::apply_schema_defaults(&schema, &mut obj);
        assert_eq!(
            obj,
            json!({"spec": {"mode": "fast", "tls": {"enabled": false},
                "ports": [{"port": 80, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}],
                "labels": {"a": {"weight": 1}}}})
        );
        let at = |p: &[Seg]| k8s::schema_default_at(&schema, p);
        assert_eq!(
            at(&[Seg::key("spec"), Seg::key("tls")]),
            Some(json!({"enabled": false}))
        );
        assert_eq!(
            at(&[
                Seg::key("spec"),
                Seg::key("ports"),
                Seg::Item {
                    index: Some(0),
                    key: None
                },
                Seg::key("protocol")
            ]),
            Some(json!("TCP"))
        );
        assert_eq!(at(&[Seg::key("spec"), Seg::key("ports")]), None);
    }
}
