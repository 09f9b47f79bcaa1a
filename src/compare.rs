//! Argo CD's comparison of one desired object with one live object.
//!
//! The legacy (default) strategy: a three-way diff with the
//! `kubectl.kubernetes.io/last-applied-configuration` annotation as the
//! original (two-way when it is absent or does not parse). Built-in kinds are
//! patched with strategic-merge semantics (merge keys from the Kubernetes
//! schema) and the API server's defaults are applied to both the predicted and
//! the live object; custom resources get a JSON merge patch computed against
//! live trimmed to the original's fields. The differences between predicted
//! and live are what Argo CD shows; differences between raw Git and raw live
//! that it does not show are kept as hidden, with the reason.

#![warn(missing_docs)]

use crate::argocd_release::{ArgoCdRelease, Behaviour};
use crate::context::CrdDefinition;
use crate::identity::ResourceKey;
use crate::k8s;
use crate::model::Change;
use crate::normalize;
use crate::normalize::TRACKING_ANNOTATION;
use crate::path::Pointer;
use crate::path::Seg;

mod patch;
pub use patch::{diff_values, json_eq, json_merge, remove_map_fields, strategic_merge};
use serde_json::{Map, Value};
use std::collections::HashSet;

pub use crate::k8s::LAST_APPLIED_ANNOTATION as LAST_APPLIED;

/// How Argo CD computes the diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// Client-side three-way diff (Argo CD's default).
    #[default]
    Legacy,
    /// An app that syncs with `ServerSideApply=true`: compared with the
    /// structured-merge diff up to Argo CD 3.5, with server-side diff since
    /// (see [`crate::argocd_release::CHANGES`]).
    ServerSideApply,
    /// Server-side diff: a dry-run apply by the API server. Offline, the
    /// predicted object is Git applied over live, with API defaults filled
    /// and fields Git never declared taken from live (webhook changes to
    /// undeclared fields are invisible, as with `ignoreMutationWebhook`).
    ServerSideDiff,
}

impl Strategy {
    /// The strategy's id, as `--strategy` and links spell it.
    pub fn id(self) -> &'static str {
        match self {
            Strategy::Legacy => "legacy",
            Strategy::ServerSideApply => "server-side-apply",
            Strategy::ServerSideDiff => "server-side-diff",
        }
    }

    /// A strategy from its id or a common alias (`ssa`, `ssd`, `three-way`).
    pub fn from_id(id: &str) -> Option<Strategy> {
        match id {
            "legacy" | "client-side" | "three-way" => Some(Strategy::Legacy),
            "server-side-apply" | "ssa" | "structured-merge" => Some(Strategy::ServerSideApply),
            "server-side-diff" | "ssd" => Some(Strategy::ServerSideDiff),
            _ => None,
        }
    }
}

/// argocd-cm `resource.compareoptions` `ignoreResourceStatusField`: whose
/// `status` Argo CD leaves out of the comparison. Argo CD implements it as a
/// system-level ignoreDifferences entry with the JSON pointer `/status`, for
/// every kind (`all`) or for `apiextensions.k8s.io/CustomResourceDefinition`
/// only (`crd`); `none` adds no entry (argo-cd `util/settings/settings.go`,
/// `GetResourceOverrides`, v3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IgnoreStatus {
    /// Every object's `status` is ignored (Argo CD's default since v3.0).
    #[default]
    All,
    /// Only CustomResourceDefinitions' `status` is ignored.
    Crd,
    /// `status` is compared like any other field.
    None,
}

impl IgnoreStatus {
    /// The default of argocd-cm `resource.compareoptions`
    /// `ignoreResourceStatusField` in a release.
    pub fn default_for(release: ArgoCdRelease) -> IgnoreStatus {
        if release.has(Behaviour::IgnoreEveryStatusByDefault) {
            IgnoreStatus::All
        } else {
            IgnoreStatus::Crd
        }
    }

    /// The setting's value as argocd-cm spells it.
    pub fn id(self) -> &'static str {
        match self {
            IgnoreStatus::All => "all",
            IgnoreStatus::Crd => "crd",
            IgnoreStatus::None => "none",
        }
    }

    /// Read a value as Argo CD does: `all` (or empty) and `crd` as named,
    /// `none`, `off` and `false` as none (YAML 1.1 reads an unquoted `off`
    /// or `no` as the boolean false, which Argo CD receives as "false"), and
    /// anything else as `all` (Argo CD logs "Unrecognized value").
    pub fn from_setting(value: &str) -> IgnoreStatus {
        match value {
            "crd" => IgnoreStatus::Crd,
            "none" | "off" | "false" => IgnoreStatus::None,
            // YAML 1.1 booleans false, as sigs.k8s.io/yaml reads a plain scalar.
            "n" | "N" | "no" | "No" | "NO" | "Off" | "OFF" | "False" | "FALSE" => {
                IgnoreStatus::None
            }
            _ => IgnoreStatus::All,
        }
    }

    /// Whether Argo CD ignores the `status` of objects of this group/kind.
    pub fn ignores(self, group: &str, kind: &str) -> bool {
        match self {
            IgnoreStatus::All => true,
            IgnoreStatus::Crd => {
                group == "apiextensions.k8s.io" && kind == "CustomResourceDefinition"
            }
            IgnoreStatus::None => false,
        }
    }
}

/// How objects are compared: Argo CD's diff strategy, the release imitated and the user's settings.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// The diff strategy (`--strategy`, or an Application's `ServerSideApply=true`).
    pub strategy: Strategy,
    /// The Argo CD release whose comparison is imitated.
    pub release: ArgoCdRelease,
    /// argocd-cm `resource.compareoptions` `ignoreAggregatedRoles`.
    pub ignore_aggregated_roles: bool,
    /// `resource.compareoptions` `ignoreResourceStatusField` (default `all`).
    pub ignore_resource_status_field: IgnoreStatus,
    /// Whether to compute the differences Argo CD would not count.
    pub include_hidden: bool,
    /// The field manager Argo CD applies as under server-side apply.
    pub manager: String,
    /// The user's own ignoreDifferences rules (Application and argocd-cm).
    pub ignore_rules: Vec<crate::ignore::IgnoreRule>,
    /// Runs the rules' jq expressions within their budget; its warnings go
    /// into the report.
    pub jq: crate::ignore::JqRuntime,
    /// argocd-cm `application.resourceTrackingMethod`; None: the release's
    /// default.
    pub tracking_method: Option<TrackingMethod>,
    /// The Application the objects belong to, when the input names it: Argo
    /// CD writes its tracking annotation into every desired object.
    pub tracked_by: Option<TrackedBy>,
    /// Compare the kinds the stock `argocd-cm` excludes too (its
    /// `resource.exclusions` replaced): by default they are not compared
    /// from 3.0 on ([`crate::pairing::excluded_by_stock_settings`]).
    pub compare_stock_excluded_kinds: bool,
    /// A pasted `argocd-cm`'s `resource.exclusions` and `resource.inclusions`,
    /// which replace the stock ones.
    pub resource_filter: Option<ResourceFilter>,
    /// The Application's `compare-options: IncludeMutationWebhook=true`:
    /// server-side diff keeps what mutating webhooks change instead of
    /// filtering the prediction down to the fields Argo CD owns.
    pub include_mutation_webhook: bool,
}

/// How Argo CD marks the objects of an app (`application.resourceTrackingMethod`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackingMethod {
    /// The instance label only (Argo CD's default before 3.0).
    Label,
    /// The `argocd.argoproj.io/tracking-id` annotation (the default since 3.0).
    Annotation,
    /// Both.
    AnnotationAndLabel,
}

impl TrackingMethod {
    /// The setting's value as argocd-cm writes it; any other value is
    /// annotation tracking, as Argo CD's `SetAppInstance` falls back to it.
    pub fn from_setting(value: &str) -> TrackingMethod {
        match value.trim() {
            "label" => TrackingMethod::Label,
            "annotation+label" => TrackingMethod::AnnotationAndLabel,
            _ => TrackingMethod::Annotation,
        }
    }
}

/// The Application whose tracking annotation the desired objects carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrackedBy {
    /// `Application.InstanceName`: the name, prefixed with `<namespace>_`
    /// for an Application outside Argo CD's own namespace.
    pub instance: String,
    /// The destination namespace, which a cluster-scoped object's tracking
    /// id names (argo-cd `UnstructuredToAppInstanceValue`).
    pub destination_namespace: String,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            strategy: Strategy::Legacy,
            release: ArgoCdRelease::default(),
            ignore_aggregated_roles: false,
            ignore_resource_status_field: IgnoreStatus::default_for(ArgoCdRelease::default()),
            include_hidden: false,
            manager: "argocd-controller".to_string(),
            ignore_rules: Vec::new(),
            jq: Default::default(),
            tracking_method: None,
            tracked_by: None,
            compare_stock_excluded_kinds: false,
            resource_filter: None,
            include_mutation_webhook: false,
        }
    }
}

impl CompareOptions {
    /// The defaults of an Argo CD release (its `ignoreResourceStatusField`
    /// default among them); argocd-cm settings read afterwards override them.
    pub fn for_release(release: ArgoCdRelease) -> CompareOptions {
        CompareOptions {
            release,
            ignore_resource_status_field: IgnoreStatus::default_for(release),
            ..CompareOptions::default()
        }
    }

    /// Whether Argo CD writes its tracking annotation into desired objects.
    pub fn annotation_tracking(&self) -> bool {
        match self.tracking_method {
            Some(TrackingMethod::Label) => false,
            Some(_) => true,
            None => self.release.has(Behaviour::AnnotationTrackingByDefault),
        }
    }

    /// Whether Argo CD writes its instance label into desired objects.
    pub fn label_tracking(&self) -> bool {
        match self.tracking_method {
            Some(TrackingMethod::Annotation) => false,
            Some(_) => true,
            None => !self.release.has(Behaviour::AnnotationTrackingByDefault),
        }
    }

    /// Whether the comparison is the API server's dry run (server-side
    /// diff), which fills CRD defaults and keeps a status subresource.
    pub fn dry_run(&self) -> bool {
        match self.strategy {
            Strategy::ServerSideDiff => true,
            Strategy::ServerSideApply => self
                .release
                .has(Behaviour::ServerSideDiffForServerSideApply),
            Strategy::Legacy => false,
        }
    }
}

/// A difference between two objects, before it gets a cause.
#[derive(Debug, Clone, PartialEq)]
pub struct RawDiff {
    /// Where the objects differ.
    pub path: Vec<Seg>,
    /// Added live, removed from live, or changed.
    pub change: Change,
    /// Desired (predicted) value; None when absent there.
    pub git: Option<Value>,
    /// Live value; None when absent there.
    pub live: Option<Value>,
    /// Why Argo CD does not count it; None for a visible difference.
    pub hidden_reason: Option<crate::HiddenReason>,
}

/// The outcome for one resource present on both sides.
#[derive(Debug, Clone, Default)]
pub struct Compared {
    /// The differences Argo CD shows.
    pub visible: Vec<RawDiff>,
    /// The differences Argo CD does not count, each with its reason (computed only with `include_hidden`).
    pub hidden: Vec<RawDiff>,
    /// The three-way original came from the last-applied annotation.
    pub three_way: bool,
}

/// Compare one desired object with its live counterpart.
pub fn compare(key: &ResourceKey, git: &Value, live: &Value, opts: &CompareOptions) -> Compared {
    compare_with_crd(key, git, live, opts, None)
}

/// [`compare`], knowing the CustomResourceDefinition of a custom resource
/// when the input holds it: its schema's `default:` values (which the API
/// server fills in, so server-side diff's dry run predicts them) and whether
/// `status` is a subresource.
pub fn compare_with_crd(
    key: &ResourceKey,
    git: &Value,
    live: &Value,
    opts: &CompareOptions,
    crd: Option<&CrdDefinition>,
) -> Compared {
    let group = key.group.as_str();
    let kind = key.kind.as_str();
    let schema = k8s::root(group, kind);
    // Built-in kinds outside client-go's scheme (APIService, CRDs) get a
    // JSON merge patch, as custom resources do.
    let typed = k8s::typed_in_argo_cd(group, kind);
    let status_ignored = opts.ignore_resource_status_field.ignores(group, kind);
    // The CRD version the live object is served at (the API server defaults
    // a custom resource with that version's schema).
    let crd_version = if schema.is_none() {
        crd.and_then(|c| c.served(&[Some(live), Some(git)]).map(|v| (c, v)))
    } else {
        None
    };
    // Server-side diff asks the API server for a dry-run apply, and the API
    // server fills the CRD schema's defaults into what it would store. Apps
    // that sync with server-side apply get server-side diff too since argo-cd
    // PR #29103 retired the structured-merge diff, which knew no CRD defaults.
    let server_side = opts.dry_run();
    let crd_defaults = crd_version
        .filter(|_| server_side)
        .and_then(|(_, v)| v.schema.as_ref());
    // Applying an object never changes its status when status is a
    // subresource (the API server keeps the stored status), so the dry run
    // predicts the live status whatever Git declares.
    let status_subresource = !status_ignored
        && server_side
        && match crd_version {
            Some((_, v)) => v.status_subresource,
            None => true,
        };

    let mut last_applied = k8s::last_applied(live);

    let norm = normalize::Normalizer {
        group,
        kind,
        ignore_aggregated_roles: opts.ignore_aggregated_roles,
        keep_status: !status_ignored,
    };
    let mut desired = norm.normalize(git);
    if opts.strategy != Strategy::Legacy {
        // Only the legacy diff's patch carries normalizeRole's `null`.
        normalize::strip_nulls_in_place(&mut desired);
    }
    // The live object is stored: a `null` there is an absent field.
    let mut live_n = norm.normalize(live);
    normalize::strip_nulls_in_place(&mut live_n);
    if status_subresource {
        if let Value::Object(d) = &mut desired {
            match live_n.get("status") {
                Some(st) => d.insert("status".to_string(), st.clone()),
                None => d.remove("status"),
            };
        }
    }
    let three_way = last_applied.is_some() && opts.strategy == Strategy::Legacy;
    // The three-way diff's original, normalised where it is: copied only
    // when the hidden differences read the last-applied again.
    let three_way_original = match (three_way, opts.include_hidden) {
        (false, _) => None,
        (true, true) => last_applied.clone(),
        (true, false) => last_applied.take(),
    };
    let original = match (three_way_original, opts.strategy) {
        // gitops-engine `remarshal`s desired and live through the typed
        // structs (dropping `omitempty` zero values) but not the last-applied
        // original: a zero value kept there and dropped from desired is a
        // key Git "removed", which the three-way patch deletes live.
        (Some(la), _) => norm.normalize_last_applied(la),
        // Server-side apply removes what the applier owns through `Apply`
        // and Git dropped. Argo CD's client-side apply records its fields
        // with `Update`, which an apply never removes: under server-side
        // diff a key removed from Git on an object last applied client-side
        // shows no difference (argo-cd #25205, #23845; kubernetes/kubectl#1796).
        (None, Strategy::ServerSideApply | Strategy::ServerSideDiff) => {
            crate::managed_fields::applied_skeleton(live, &opts.manager)
                .unwrap_or_else(|| desired.clone())
        }
        (None, _) => desired.clone(),
    };

    if opts.label_tracking() {
        add_tracking_label(&mut desired, &original);
    } else {
        drop_untracked_instance_label(&desired, &mut live_n, group, kind);
    }
    // A live tracking id the backfill replaced, kept to say so.
    let mut backfilled_away = None;
    if let Some(id) = expected_tracking_id(key, git, live, opts) {
        // Compared like any annotation: the normaliser left it out of both.
        let live_id = if tracking_backfill(group, kind, live, opts) {
            backfilled_away = annotation(live, TRACKING_ANNOTATION)
                .filter(|l| l.as_str() != Some(id.as_str()))
                .map(|l| RawDiff {
                    path: ["metadata", "annotations", TRACKING_ANNOTATION]
                        .into_iter()
                        .map(Seg::key)
                        .collect(),
                    change: Change::Changed,
                    git: Some(Value::String(id.clone())),
                    live: Some(l.clone()),
                    hidden_reason: Some(crate::HiddenReason::TrackingBackfill {
                        release: opts.release.to_string(),
                    }),
                });
            Some(Value::String(id.clone()))
        } else {
            annotation(live, TRACKING_ANNOTATION).cloned()
        };
        set_annotation(&mut desired, TRACKING_ANNOTATION, Value::String(id));
        if let Some(v) = live_id {
            set_annotation(&mut live_n, TRACKING_ANNOTATION, v);
        }
    }

    if kind == "StatefulSet" && group == "apps" && opts.strategy == Strategy::Legacy {
        statefulset_workaround(&original, &mut live_n);
    }

    if schema.is_some() {
        // Defaults only fill what is missing, so live can take them once up front.
        k8s::apply_defaults(group, kind, &mut live_n);
    }
    if let Some(s) = crd_defaults {
        crate::k8s::apply_schema_defaults(s, &mut live_n);
    }
    let predict = |desired: &Value, original: &Value, live_n: &Value| -> Vec<RawDiff> {
        let mut predicted = match schema.filter(|_| typed) {
            Some(cursor) => strategic_merge(live_n, Some(original), desired, Some(cursor)),
            None => {
                let trimmed = remove_map_fields(original, live_n);
                json_merge(live_n, Some(&trimmed), Some(original), desired)
            }
        };
        if schema.is_some() {
            k8s::apply_defaults(group, kind, &mut predicted);
        }
        if let Some(s) = crd_defaults {
            crate::k8s::apply_schema_defaults(s, &mut predicted);
        }
        let mut out = Vec::new();
        diff_values(&predicted, live_n, schema, &mut out);
        out
    };

    // From 3.6 an object's own annotation joins the Application's rules
    // (argo-cd PR #29616).
    let own_rule = if opts.release.has(Behaviour::ResourceIgnoreAnnotation) {
        crate::ignore::resource_rule(key, git, live)
    } else {
        None
    };
    let rules: Vec<&crate::ignore::IgnoreRule> = opts
        .ignore_rules
        .iter()
        .filter(|r| r.applies_to(key))
        .chain(own_rule.iter())
        .collect();
    let refused = refused_dry_run(key, git, opts);
    let mut hidden: Vec<RawDiff> = backfilled_away
        .into_iter()
        .filter(|_| opts.include_hidden)
        .collect();
    let visible = if rules.is_empty() {
        predict(&desired, &original, &live_n)
    } else {
        // Argo CD removes ignored paths from both sides before the patch.
        let ruled = |subset: &[&crate::ignore::IgnoreRule]| {
            let (mut d, mut o, mut l) = (desired.clone(), original.clone(), live_n.clone());
            for r in subset {
                r.apply(&mut d);
                r.apply(&mut o);
                r.apply(&mut l);
            }
            // Argo CD defaults both sides after the rules removed fields.
            if schema.is_some() {
                k8s::apply_defaults(group, kind, &mut l);
            }
            if let Some(s) = crd_defaults {
                crate::k8s::apply_schema_defaults(s, &mut l);
            }
            predict(&d, &o, &l)
        };
        let mut visible = ruled(&rules);
        // Which rule hid which field is told only with the hidden
        // differences (fix verification compares without them).
        if opts.include_hidden {
            let before = predict(&desired, &original, &live_n);
            let pointers = |diffs: &[RawDiff]| -> HashSet<String> {
                diffs
                    .iter()
                    .map(|d| crate::path::pointer(&d.path))
                    .collect()
            };
            let after = pointers(&visible);
            // With several rules, the one that hid a field is the first that
            // hides it alone: each rule's own prediction, computed once and only
            // when some field was hidden.
            let mut alone: Vec<Option<HashSet<String>>> = vec![None; rules.len()];
            for mut d in before {
                let p = crate::path::pointer(&d.path);
                if after.contains(&p) {
                    continue;
                }
                let source = if rules.len() == 1 {
                    rules[0].source.clone()
                } else {
                    (0..rules.len())
                        .find(|&i| {
                            !alone[i]
                                .get_or_insert_with(|| pointers(&ruled(&[rules[i]])))
                                .contains(&p)
                        })
                        .map(|i| rules[i].source.clone())
                        .unwrap_or_else(|| "set".to_string())
                };
                d.hidden_reason = Some(crate::HiddenReason::UserRule { source });
                hidden.push(d);
            }
        }
        // Trusted managers: fields they own live keep their live value.
        visible.retain(|d| {
            let owners = crate::managed_fields::owners_of(live, &d.path);
            let trusted = rules.iter().find_map(|r| {
                owners
                    .iter()
                    .find(|o| r.managed_fields_managers.contains(o))
                    .map(|o| (r, o.clone()))
            });
            match trusted {
                Some((r, owner)) => {
                    if opts.include_hidden {
                        let mut h = d.clone();
                        h.hidden_reason = Some(crate::HiddenReason::TrustedManager {
                            manager: owner,
                            source: r.source.clone(),
                        });
                        hidden.push(h);
                    }
                    false
                }
                None => true,
            }
        });
        visible
    };
    let mut visible = visible;
    // Before the fix of argo-cd PR #28819 the webhook filter took a whole
    // `x-kubernetes-preserve-unknown-fields` object from live.
    let preserved_schema = crd_version
        .and_then(|(_, v)| v.schema.as_ref())
        .filter(|_| {
            server_side
                && !opts.include_mutation_webhook
                && !opts
                    .release
                    .has(Behaviour::WebhookFilterKeepsPreservedFields)
        });
    if let Some(schema) = preserved_schema {
        visible.retain(|d| {
            if !crate::k8s::preserves_unknown_above(schema, &d.path) {
                return true;
            }
            if opts.include_hidden {
                let mut h = d.clone();
                h.hidden_reason = Some(crate::HiddenReason::PreservedUnknownFields {
                    release: opts.release.to_string(),
                });
                hidden.push(h);
            }
            false
        });
    }
    if let Some(field) = &refused {
        // The comparison fails: Argo CD shows no difference of this app.
        for mut d in std::mem::take(&mut visible) {
            if opts.include_hidden {
                d.hidden_reason = Some(crate::HiddenReason::ComparisonError {
                    field: field.clone(),
                    release: opts.release.to_string(),
                });
                hidden.push(d);
            }
        }
    }
    if group.is_empty() && kind == "Secret" {
        // Argo CD masks live Secret values (`++++++++`); a masked value cannot
        // be compared with a plain one from Git.
        visible.retain(|d| {
            let masked = d
                .live
                .as_ref()
                .and_then(Value::as_str)
                .is_some_and(is_argo_mask)
                && !d
                    .git
                    .as_ref()
                    .and_then(Value::as_str)
                    .is_some_and(is_argo_mask);
            if masked {
                let mut h = d.clone();
                h.hidden_reason = Some(crate::HiddenReason::ArgoCdMask);
                hidden.push(h);
            }
            !masked
        });
        if !opts.include_hidden {
            hidden.clear();
        }
    }
    if opts.include_hidden && status_ignored && git.get("status").is_some_and(|s| !s.is_null()) {
        // Git declares a status that Argo CD leaves out: what comparing it
        // would have shown stays in the report, hidden.
        let mut unignored = opts.clone();
        unignored.ignore_resource_status_field = IgnoreStatus::None;
        unignored.include_hidden = false;
        let reason = crate::HiddenReason::IgnoredStatus {
            crds_only: opts.ignore_resource_status_field == IgnoreStatus::Crd,
        };
        for mut d in compare_with_crd(key, git, live, &unignored, crd).visible {
            if matches!(d.path.first(), Some(Seg::Key(k)) if k == "status") {
                d.hidden_reason = Some(reason.clone());
                hidden.push(d);
            }
        }
    }
    if opts.include_hidden {
        let mut raw = Vec::new();
        let mut live_plain = norm.normalize_keeping_zero_values(live);
        normalize::strip_nulls_in_place(&mut live_plain);
        let mut desired_plain = norm.normalize_keeping_zero_values(git);
        normalize::strip_nulls_in_place(&mut desired_plain);
        diff_values(&desired_plain, &live_plain, schema, &mut raw);
        let shown_pointers: Vec<String> = visible
            .iter()
            .chain(hidden.iter())
            .map(|d| crate::path::pointer(&d.path))
            .collect();
        let shown = Shown::new(&shown_pointers);
        for mut d in raw {
            let p = crate::path::pointer(&d.path);
            if shown.overlaps(&p) {
                continue;
            }
            let why = HiddenContext {
                last_applied: last_applied.as_ref().filter(|_| three_way),
                group,
                kind,
                live,
                crd: crd_version,
                status_subresource,
                server_side_manager: matches!(
                    opts.strategy,
                    Strategy::ServerSideApply | Strategy::ServerSideDiff
                )
                .then_some(opts.manager.as_str()),
            };
            d.hidden_reason = Some(hidden_reason(&d, &why, &p));
            hidden.push(d);
        }
    }
    Compared {
        visible,
        hidden,
        three_way,
    }
}

/// Compare with a predicted live object the API server computed (a
/// server-side dry-run apply, as `kubectl diff` and Argo CD's server-side
/// diff use). With `revert_webhook_changes`, fields of the prediction that
/// the applying manager does not own take their live value, as Argo CD's
/// default `ignoreMutationWebhook` does.
pub fn compare_with_predicted(
    key: &ResourceKey,
    predicted: &Value,
    live: &Value,
    opts: &CompareOptions,
    revert_webhook_changes: bool,
) -> Compared {
    let norm = normalize::Normalizer {
        group: &key.group,
        kind: &key.kind,
        ignore_aggregated_roles: opts.ignore_aggregated_roles,
        keep_status: !opts
            .ignore_resource_status_field
            .ignores(&key.group, &key.kind),
    };
    let schema = k8s::root(&key.group, &key.kind);
    let mut p = norm.normalize(predicted);
    normalize::strip_nulls_in_place(&mut p);
    let mut l = norm.normalize(live);
    normalize::strip_nulls_in_place(&mut l);
    let mut visible = Vec::new();
    diff_values(&p, &l, schema, &mut visible);
    if revert_webhook_changes {
        visible.retain(|d| {
            let owner = crate::managed_fields::owner_of(predicted, &d.path);
            owner.as_deref() == Some(opts.manager.as_str())
                || owner.is_none() && d.change != Change::Changed
        });
    }
    Compared {
        visible,
        hidden: Vec::new(),
        three_way: false,
    }
}

/// The pointers of the differences reported already. A raw difference at,
/// above or below one of them adds nothing; the lookups allocate nothing.
struct Shown<'a> {
    pointers: HashSet<&'a str>,
    /// Every proper ancestor of a reported pointer: the root (the empty
    /// pointer) and `/a` for `/a/b`.
    ancestors: HashSet<&'a str>,
}

impl<'a> Shown<'a> {
    fn new(pointers: &'a [String]) -> Shown<'a> {
        Shown {
            pointers: pointers.iter().map(String::as_str).collect(),
            ancestors: pointers.iter().flat_map(|p| proper_ancestors(p)).collect(),
        }
    }

    /// Whether `p`, one of its ancestors or one of its descendants is reported.
    fn overlaps(&self, p: &str) -> bool {
        self.pointers.contains(p)
            || self.ancestors.contains(p)
            || proper_ancestors(p).any(|a| self.pointers.contains(a))
    }
}

/// The pointers above a JSON pointer, nearest last: the root (the empty
/// pointer) and `/a` for `/a/b`.
fn proper_ancestors(p: &str) -> impl Iterator<Item = &str> {
    p.match_indices('/').map(move |(i, _)| &p[..i])
}

/// What explains a difference Argo CD does not count.
struct HiddenContext<'a> {
    /// The last-applied original, when the three-way diff used it.
    last_applied: Option<&'a Value>,
    group: &'a str,
    kind: &'a str,
    live: &'a Value,
    /// The custom resource's CRD and the version it is served at.
    crd: Option<(&'a CrdDefinition, &'a crate::context::CrdVersion)>,
    /// A server-side strategy, and `status` is a subresource.
    status_subresource: bool,
    /// Under a server-side strategy, the manager Argo CD applies as.
    server_side_manager: Option<&'a str>,
}

fn hidden_reason(d: &RawDiff, why: &HiddenContext<'_>, pointer: &str) -> crate::HiddenReason {
    use crate::HiddenReason as Why;
    let in_status = pointer == "/status" || pointer.starts_with("/status/");
    // A difference below `/status` means Git declares a status.
    if in_status && why.status_subresource && (pointer != "/status" || d.git.is_some()) {
        return Why::StatusSubresource;
    }
    match d.change {
        Change::Added => {
            if let Some(manager) = why.server_side_manager {
                if crate::managed_fields::updated_by(why.live, manager, &d.path) {
                    return Why::AppliedClientSide {
                        manager: manager.to_string(),
                    };
                }
            }
            if let Some(default) = k8s::default_for(why.group, why.kind, why.live, pointer) {
                if d.live.as_ref().is_some_and(|l| json_eq(l, &default)) {
                    return Why::ServerDefault;
                }
            }
            if let Some((crd, version)) = why.crd {
                let default = version
                    .schema
                    .as_ref()
                    .and_then(|s| crate::k8s::schema_default_at(s, &d.path));
                if default.is_some_and(|v| d.live.as_ref().is_some_and(|l| json_eq(l, &v))) {
                    return Why::CrdDefault {
                        crd: crd.name.clone(),
                        version: version.name.clone(),
                    };
                }
            }
            if pointer == "/status" {
                return Why::StatusUndeclared;
            }
            if let Some(original) = why.last_applied {
                match listed_depth(original, &d.path) {
                    None => Why::KeptByLastApplied,
                    Some(n) => Why::NotInLastApplied {
                        listed_ancestor: (n > 0).then(|| crate::path::pointer(&d.path[..n])),
                    },
                }
            } else {
                Why::NotInGit
            }
        }
        Change::Removed => Why::RemovedAgain,
        Change::Changed => Why::Normalised,
    }
}

/// How many leading segments of `path` the last-applied original lists
/// (list items found by their merge key when they have one, else by index).
fn listed_depth(original: &Value, path: &[Seg]) -> Option<usize> {
    let mut at = original;
    for (depth, seg) in path.iter().enumerate() {
        let next = match seg {
            Seg::Key(k) => at.get(k),
            Seg::Item {
                key: Some((field, value)),
                ..
            } => at
                .as_array()
                .and_then(|items| items.iter().find(|i| i.get(field) == Some(value))),
            Seg::Item {
                index: Some(i),
                key: None,
            } => at.get(*i),
            Seg::Item { .. } => None,
        };
        match next {
            Some(v) => at = v,
            None => return Some(depth),
        }
    }
    None
}

/// Argo CD's masks for Secret values: runs of `+`.
fn is_argo_mask(s: &str) -> bool {
    s.len() >= 8 && s.bytes().all(|b| b == b'+')
}

/// Argo CD's resource-tracking normalisation under annotation tracking
/// (argo-cd `util/argo/resource_tracking.go` `Normalize`): when Git does not
/// set the `app.kubernetes.io/instance` label, the live one (written under
/// label tracking, or by a chart) is left out of the comparison; CRDs are
/// left as they are.
fn drop_untracked_instance_label(desired: &Value, live: &mut Value, group: &str, kind: &str) {
    const LABEL: &str = "app.kubernetes.io/instance";
    if group == "apiextensions.k8s.io" && kind == "CustomResourceDefinition" {
        return;
    }
    if desired
        .at("/metadata/labels")
        .and_then(|l| l.get(LABEL))
        .is_some()
    {
        return;
    }
    if let Some(Value::Object(labels)) = live.at_mut("/metadata/labels") {
        labels.remove(LABEL);
        if labels.is_empty() {
            if let Some(Value::Object(meta)) = live.get_mut("metadata") {
                meta.remove("labels");
            }
        }
    }
}

/// The tracking annotation Argo CD compares the live object against, when
/// the input tells it: the one Git carries (Argo CD's repo server writes it
/// into the manifests it renders, so `argocd app manifests` shows it), else,
/// with annotation tracking and the Application named, the one Argo CD
/// writes (argo-cd `SetAppInstance`: `<app>:<group>/<kind>:<namespace>/<name>`),
/// but only where live carries none: a live id of another form (an
/// installation id, an app namespace) is not second-guessed.
fn expected_tracking_id(
    key: &ResourceKey,
    git: &Value,
    live: &Value,
    opts: &CompareOptions,
) -> Option<String> {
    if let Some(Value::String(id)) = annotation(git, TRACKING_ANNOTATION) {
        return Some(id.clone());
    }
    let app = opts.tracked_by.as_ref()?;
    if !opts.annotation_tracking() || annotation(live, TRACKING_ANNOTATION).is_some() {
        return None;
    }
    let namespace = if key.namespace.is_empty() {
        &app.destination_namespace
    } else {
        &key.namespace
    };
    Some(format!(
        "{}:{}/{}:{}/{}",
        app.instance, key.group, key.kind, namespace, key.name
    ))
}

/// The required field whose removal by the user's ignore rules makes the API
/// server refuse Argo CD's server-side dry run, before 3.2: Argo CD then
/// applied the rules to desired before the dry run (gitops-engine PR #747),
/// so ignoring a container's `image` sent a pod template without one, and
/// the app's comparison failed with `ComparisonError ... Required value`.
/// The field is written as the API server names it
/// (`spec.template.spec.containers[0].image`).
pub fn refused_dry_run(key: &ResourceKey, git: &Value, opts: &CompareOptions) -> Option<String> {
    if !opts.dry_run() || opts.release.has(Behaviour::IgnoreRulesAfterDryRun) {
        return None;
    }
    let rules: Vec<&crate::ignore::IgnoreRule> = opts
        .ignore_rules
        .iter()
        .filter(|r| r.applies_to(key))
        .collect();
    if rules.is_empty() {
        return None;
    }
    let mut ruled = git.clone();
    for r in &rules {
        r.apply(&mut ruled);
    }
    required_field_removed(&key.group, &key.kind, git, &ruled)
}

/// The first required field of a pod template that `before` has and `after`
/// lost: a container's `name` or `image`, or the `containers` list itself
/// (Kubernetes `ValidatePodTemplateSpec`).
fn required_field_removed(
    group: &str,
    kind: &str,
    before: &Value,
    after: &Value,
) -> Option<String> {
    let spec_at = match (group, kind) {
        ("", "Pod") => "/spec",
        ("batch", "CronJob") => "/spec/jobTemplate/spec/template/spec",
        ("apps", "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet")
        | ("batch", "Job")
        | ("", "ReplicationController") => "/spec/template/spec",
        _ => return None,
    };
    let dotted = spec_at.trim_start_matches('/').replace('/', ".");
    let spec = before.at(spec_at)?;
    let spec_after = after.at(spec_at);
    for list in ["containers", "initContainers"] {
        let Some(items) = spec.get(list).and_then(Value::as_array) else {
            continue;
        };
        let items_after = spec_after
            .and_then(|s| s.get(list))
            .and_then(Value::as_array);
        let Some(items_after) = items_after else {
            if list == "containers" {
                return Some(format!("{dotted}.containers"));
            }
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let Some(item_after) = items_after.get(i) else {
                continue;
            };
            for field in ["name", "image"] {
                if item.get(field).is_some() && item_after.get(field).is_none() {
                    return Some(format!("{dotted}.{list}[{i}].{field}"));
                }
            }
        }
    }
    None
}

/// Whether Argo CD's tracking normalisation gives live the desired tracking
/// annotation (argo-cd `util/argo/resource_tracking.go` `Normalize`, under
/// annotation tracking, for a live object that carries the instance label
/// and is no CRD): when live has no tracking annotation, so that objects
/// last synced under label tracking are not all OutOfSync; and before 3.4.6
/// and 3.5.0 also when it has one, which hid a wrong tracking id (argo-cd
/// PR #28770, issue #17965).
fn tracking_backfill(group: &str, kind: &str, live: &Value, opts: &CompareOptions) -> bool {
    const LABEL: &str = "app.kubernetes.io/instance";
    let labelled = live
        .at("/metadata/labels")
        .and_then(|l| l.get(LABEL))
        .and_then(Value::as_str)
        .is_some_and(|v| !v.is_empty());
    if !opts.annotation_tracking()
        || !labelled
        || group == "apiextensions.k8s.io" && kind == "CustomResourceDefinition"
    {
        return false;
    }
    annotation(live, TRACKING_ANNOTATION).is_none()
        || !opts.release.has(Behaviour::TrackingBackfillOnlyWhenUnset)
}

fn annotation<'v>(obj: &'v Value, key: &str) -> Option<&'v Value> {
    obj.pointer("/metadata/annotations")?.get(key)
}

fn set_annotation(obj: &mut Value, key: &str, value: Value) {
    let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    if let Value::Object(a) = meta
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()))
    {
        a.insert(key.to_string(), value);
    }
}

/// Under label tracking (before Argo CD 3.0) Argo CD writes its tracking
/// label, the Application's name, into every desired object; raw Git lacks
/// it. When Git sets no such label, the one in the last-applied
/// configuration is the one Argo CD wrote.
fn add_tracking_label(desired: &mut Value, original: &Value) {
    const LABEL: &str = "app.kubernetes.io/instance";
    let Some(applied) = original.at("/metadata/labels").and_then(|l| l.get(LABEL)) else {
        return;
    };
    let Some(meta) = desired.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let labels = meta
        .entry("labels")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(l) = labels {
        l.entry(LABEL.to_string())
            .or_insert_with(|| applied.clone());
    }
}

/// Argo CD prunes live `volumeClaimTemplates` to the fields of the original,
/// because the API server echoes them back with apiVersion, kind and status.
fn statefulset_workaround(original: &Value, live: &mut Value) {
    let Some(orig_vct) = original.at("/spec/volumeClaimTemplates") else {
        return;
    };
    if let Some(live_vct) = live.at_mut("/spec/volumeClaimTemplates") {
        let trimmed = remove_map_fields(orig_vct, live_vct);
        *live_vct = trimmed;
    }
}

/// One entry of `resource.exclusions` or `resource.inclusions` in
/// `argocd-cm` (argo-cd `util/settings/filtered_resource.go`): API group
/// globs, kinds (`*` or exact) and cluster globs, each empty for all.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilteredResource {
    /// API group globs.
    #[serde(default)]
    pub api_groups: Vec<String>,
    /// Kinds, `*` for any.
    #[serde(default)]
    pub kinds: Vec<String>,
    /// Cluster URL or name globs.
    #[serde(default)]
    pub clusters: Vec<String>,
}

impl FilteredResource {
    fn matches(&self, group: &str, kind: &str) -> bool {
        let group_ok = self.api_groups.is_empty()
            || self.api_groups.iter().any(|g| crate::path::glob(g, group));
        let kind_ok = self.kinds.is_empty() || self.kinds.iter().any(|k| k == "*" || k == kind);
        // The destination cluster is not in the input: an entry for some
        // clusters is taken to cover the app's.
        group_ok && kind_ok
    }
}

/// What Argo CD excludes whatever `argocd-cm` says (argo-cd
/// `util/settings/resources_filter.go`, `coreExcludedResources`).
const CORE_EXCLUSIONS: &[(&str, &str)] = &[
    ("events.k8s.io", "*"),
    ("metrics.k8s.io", "*"),
    ("", "Event"),
    ("coordination.k8s.io", "Lease"),
];

/// A pasted `argocd-cm`'s `resource.exclusions` and `resource.inclusions`,
/// which replace the stock file's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceFilter {
    /// `resource.exclusions`.
    pub exclusions: Vec<FilteredResource>,
    /// `resource.inclusions`.
    pub inclusions: Vec<FilteredResource>,
}

impl ResourceFilter {
    /// Whether Argo CD neither watches, compares nor syncs this kind
    /// (`ResourcesFilter.IsExcludedResource`): excluded when an exclusion
    /// (or a core exclusion) matches; else allowed when an inclusion
    /// matches; else excluded when there are inclusions at all.
    pub fn excludes(&self, group: &str, kind: &str) -> bool {
        let core = CORE_EXCLUSIONS
            .iter()
            .any(|(g, k)| *g == group && (*k == "*" || *k == kind));
        if core || self.exclusions.iter().any(|r| r.matches(group, kind)) {
            return true;
        }
        if self.inclusions.iter().any(|r| r.matches(group, kind)) {
            return false;
        }
        !self.inclusions.is_empty()
    }
}
