//! The report: the contract every part of drift-doctor shares (report-v1).
//! Field names and cause ids are stable; see `tests/contract/report-v1.md`
//! (and its JSON Schema, `tests/contract/report-v1.schema.json`).

#![warn(missing_docs)]

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The contract's version, the report's `version`.
pub const REPORT_VERSION: u32 = 1;

/// Why a field differs. The ids are part of the report contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// An admission webhook or a webhook's own controller rewrote the object.
    MutatingWebhook,
    /// The API server filled in or re-serialised a value Git leaves out or writes differently.
    ServerDefaults,
    /// HPA, KEDA or VPA owns replicas or resources.
    Autoscaler,
    /// A reloader, restart or secret-sync tool stamps annotations, env vars or hashes.
    Reloader,
    /// Helm or Kustomize renders a different value on every run.
    NondeterministicRender,
    /// An operator or built-in controller normalises or fills the spec of the object it owns.
    ControllerRewrite,
    /// Sync waves, hooks, immutable fields or missing CRDs make the sync fail and retry.
    SyncOrdering,
    /// A real change: someone edited the cluster or Git.
    Drift,
}

impl Cause {
    /// Every cause.
    pub const ALL: [Cause; 8] = [
        Cause::MutatingWebhook,
        Cause::ServerDefaults,
        Cause::Autoscaler,
        Cause::Reloader,
        Cause::NondeterministicRender,
        Cause::ControllerRewrite,
        Cause::SyncOrdering,
        Cause::Drift,
    ];

    /// The cause's stable id in the report.
    pub fn id(self) -> &'static str {
        match self {
            Cause::MutatingWebhook => "mutating-webhook",
            Cause::ServerDefaults => "server-defaults",
            Cause::Autoscaler => "autoscaler",
            Cause::Reloader => "reloader",
            Cause::NondeterministicRender => "nondeterministic-render",
            Cause::ControllerRewrite => "controller-rewrite",
            Cause::SyncOrdering => "sync-ordering",
            Cause::Drift => "drift",
        }
    }

    /// The cause with this id.
    pub fn from_id(id: &str) -> Option<Cause> {
        Cause::ALL.into_iter().find(|c| c.id() == id)
    }

    /// The two letters every rule code of this cause starts with.
    pub fn code_prefix(self) -> &'static str {
        match self {
            Cause::MutatingWebhook => "WH",
            Cause::ServerDefaults => "SD",
            Cause::Autoscaler => "AS",
            Cause::Reloader => "RL",
            Cause::NondeterministicRender => "NR",
            Cause::ControllerRewrite => "CR",
            Cause::SyncOrdering => "SO",
            Cause::Drift => "DR",
        }
    }

    /// A short human label for summaries.
    pub fn label(self) -> &'static str {
        match self {
            Cause::MutatingWebhook => "mutating webhook",
            Cause::ServerDefaults => "server defaults",
            Cause::Autoscaler => "autoscaler",
            Cause::Reloader => "reloader / restart",
            Cause::NondeterministicRender => "non-deterministic render",
            Cause::ControllerRewrite => "controller rewrite",
            Cause::SyncOrdering => "sync ordering",
            Cause::Drift => "real drift",
        }
    }
}

/// How sure the rule that gave the cause is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// The lowest.
    Low,
    /// Between low and high.
    Medium,
    /// The highest.
    High,
}

impl Confidence {
    /// The confidence's id in the report.
    pub fn id(self) -> &'static str {
        match self {
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }
}

/// A change relative to Git.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Present live only.
    Added,
    /// Present in Git only.
    Removed,
    /// Present on both sides with different values.
    Changed,
}

impl Change {
    /// The change's id in the report.
    pub fn id(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        }
    }
}

/// A resource's sync status, as Argo CD would report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Status {
    /// Argo CD counts no difference.
    Synced,
    /// Argo CD counts at least one difference.
    OutOfSync,
}

/// Which sides hold a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Presence {
    /// In Git and live.
    Both,
    /// In Git only: Argo CD would create it.
    GitOnly,
    /// Live only, belonging to the app: extraneous.
    LiveOnly,
}

impl Presence {
    /// Where the resource is, in the words Argo CD shows it with: a Git
    /// object not live is `Missing` (its health) and Argo CD creates it; a
    /// live object of the app not in Git "requires pruning". `None` for
    /// both sides.
    pub fn words(self) -> Option<&'static str> {
        match self {
            Presence::Both => None,
            Presence::GitOnly => Some("in Git only: Missing live, a sync creates it"),
            Presence::LiveOnly => Some("live only: requires pruning, not in Git"),
        }
    }
}

/// What a fix changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FixKind {
    /// An `ignoreDifferences` rule (Application and argocd-cm forms).
    Ignore,
    /// A change to the manifests in Git.
    Git,
    /// Sync waves, hooks or sync options.
    SyncOrder,
    /// Make Helm or Kustomize output deterministic.
    Render,
}

/// The result of one analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`REPORT_VERSION`].
    pub version: u32,
    /// The Argo CD release whose comparison the analysis imitates, as given:
    /// `MAJOR.MINOR`, or `MAJOR.MINOR.PATCH` when the patch release was named.
    #[serde(default)]
    pub argocd_version: String,
    /// The counts.
    pub summary: Summary,
    /// Steps to take first when the findings show a sync loop (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub emergency: Vec<String>,
    /// Problems that did not stop the analysis but change what it could use:
    /// a jq rule stopped by its time budget and skipped, a part of pasted
    /// diff output that could not be read (each naming its line).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What the pasted Application (`--application`) says: Argo CD's own
    /// verdicts where they disagree, its sync errors classified, and a sync
    /// loop in its history. Absent when no Application was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argocd_status: Option<ArgocdStatus>,
    /// Every resource compared (skipped live objects left out).
    pub resources: Vec<ResourceReport>,
    /// Every recommended fix combined, verified together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Plan>,
    /// What each of the user's own ignore rules does in this input.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub audit: Vec<RuleAudit>,
    /// What the pasted events and logs say beside the differences (added
    /// in the course of version 1): Argo CD's syncs counted into a loop, and
    /// Argo CD's own errors classified. Absent when none were given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<ObservedReport>,
}

/// What the pasted events and logs say about the app as a whole.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ObservedReport {
    /// Events read.
    pub events: usize,
    /// Log lines read.
    pub log_lines: usize,
    /// Argo CD syncing one revision again and again, paired with the other
    /// writer of the fields it restores, when the events or logs show it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_loop: Option<ObservedLoop>,
    /// Argo CD's own errors in them (application controller and repo
    /// server), classified by the sync-error catalogue; `source` names the
    /// input and line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub argocd_errors: Vec<SyncError>,
}

/// A sync loop as Argo CD's events and logs record it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObservedLoop {
    /// The Application (`namespace/name`, or the name).
    pub application: String,
    /// The revision synced again and again.
    pub revision: String,
    /// How many automated syncs of it were recorded.
    pub syncs: u64,
    /// Seconds from the first to the last, when the times say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_seconds: Option<u64>,
    /// Mean seconds between two syncs, when the times say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_seconds: Option<u64>,
    /// The other writer the events and logs show undoing each sync, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_writer: Option<String>,
    /// How many writes of that writer were recorded.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub other_writes: u64,
    /// The fields the two fight over (`resource id` and pointer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<String>,
    /// What it means, in one paragraph.
    pub message: String,
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

/// An event or log line that names a differing field's object and explains it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// The code of the recognised format (`EV001`).
    pub code: String,
    /// `event` or `log`.
    pub origin: String,
    /// Where it was read: the input and line (`events 1, line 4`).
    pub location: String,
    /// When, as the text wrote it (an RFC 3339 time, or `2m30s ago`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// How many times the event was seen (absent for once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// Who it says wrote the field.
    pub writer: String,
    /// The object it is about (`Kind namespace/name`).
    pub object: String,
    /// The line as written, on one line, cut, credentials masked. User
    /// text: shown as text, never as markup.
    pub quote: String,
    /// Whether it decided the difference's cause.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub proves: bool,
}

/// What an Argo CD Application's own status says, next to the analysis.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ArgocdStatus {
    /// The Application's name.
    #[serde(default)]
    pub name: String,
    /// Argo CD's own sync status of the app (`status.sync.status`), if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_status: Option<String>,
    /// The Application's settings the analysis used, one sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<String>,
    /// Every resource whose verdict differs between Argo CD and drift-doctor,
    /// or that only one of them lists.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<VerdictDisagreement>,
    /// The errors of the last sync operation and the app's error conditions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sync_errors: Vec<SyncError>,
    /// A sync loop read from `status.history`, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_loop: Option<SyncLoop>,
}

/// One resource on which Argo CD and drift-doctor disagree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictDisagreement {
    /// `group/Kind/namespace/name`.
    pub id: String,
    /// Argo CD's status for it (`Synced`, `OutOfSync`, `Unknown`), absent when
    /// Argo CD does not list it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argocd: Option<String>,
    /// drift-doctor's status, absent when the resource was not pasted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift_doctor: Option<Status>,
    /// Argo CD says it requires pruning (in the cluster, not in Git).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub requires_pruning: bool,
    /// What the disagreement means and what to do.
    pub message: String,
}

/// One sync error or error condition, classified.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncError {
    /// The stable code of the recognised pattern (`SE000` when none matched).
    pub code: String,
    /// The pattern's title.
    pub title: String,
    /// The cause it gives, absent when the message was not recognised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
    /// The resource the error names (`group/Kind/namespace/name`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// Where in the Application it was read (`operationState.syncResult.resources`, …).
    pub source: String,
    /// The message as Argo CD wrote it, on one line, cut, Secret values masked.
    pub message: String,
    /// Why this pattern gives this cause.
    pub evidence: String,
    /// What to do.
    pub fix: String,
    /// Text ready to paste, if any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub snippet: String,
    /// The risk of the fix, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<String>,
}

/// Many syncs to one revision in a short time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncLoop {
    /// The revision synced again and again.
    pub revision: String,
    /// How many syncs of it the history holds.
    pub syncs: usize,
    /// Seconds between the first and the last of them.
    pub window_seconds: u64,
    /// Auto-sync is on (`spec.syncPolicy.automated`).
    pub auto_sync: bool,
    /// Auto-sync heals live changes (`selfHeal: true`).
    pub self_heal: bool,
    /// Retries of the current operation (`operationState.retryCount`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_count: Option<u64>,
    /// What it means, in one paragraph.
    pub message: String,
}

/// The report's counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Resources reported.
    pub resources: usize,
    /// Of which Synced.
    pub synced: usize,
    /// Of which OutOfSync.
    pub out_of_sync: usize,
    /// Live objects left out: created by a controller or tracked by another app.
    pub skipped: usize,
    /// Visible differences per cause.
    pub causes: BTreeMap<Cause, usize>,
    /// The Argo CD Application the input belongs to, when its tracking metadata says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub application: Option<String>,
}

/// One resource: its status, its differences and their fixes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceReport {
    /// `group/Kind/namespace/name` (core group and cluster scope empty).
    pub id: String,
    /// The API group without version.
    pub group: String,
    /// The kind.
    pub kind: String,
    /// The namespace (empty when cluster-scoped).
    pub namespace: String,
    /// The name.
    pub name: String,
    /// Synced or OutOfSync, as Argo CD would report it.
    pub status: Status,
    /// Which sides hold it.
    pub presence: Presence,
    /// The fields that differ.
    pub differences: Vec<Difference>,
    /// What to do about them.
    pub fixes: Vec<Fix>,
}

/// One field that differs, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// RFC 6901 pointer (`""` for the whole object).
    pub pointer: String,
    /// The same path as Argo CD's `jqPathExpressions` accept it.
    pub jq: String,
    /// The field as every view and sentence names it (added in the course
    /// of version 1): dotted, list items by their merge key where one is
    /// known (`spec.template.spec.containers[web].image`); empty for the
    /// whole object.
    #[serde(default)]
    pub field: String,
    /// Added, removed or changed, relative to Git.
    pub change: Change,
    /// The value in Git; `None` when Git lacks the field (`null` in JSON,
    /// as is a value Git sets to null).
    pub git: Option<Value>,
    /// The value live; `None` when live lacks the field.
    pub live: Option<Value>,
    /// Whether Argo CD's comparison would show it.
    pub visible: bool,
    /// Why Argo CD does not show it, when hidden.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden_reason: Option<HiddenReason>,
    /// The one cause given to it.
    pub cause: Cause,
    /// The code of the rule that decided the cause.
    pub rule: String,
    /// How sure that rule is.
    pub confidence: Confidence,
    /// One sentence naming what in the input supports the cause.
    pub evidence: String,
    /// Who last wrote the live value, as the live object's `managedFields`
    /// record it (absent when they do not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_by: Option<WrittenBy>,
    /// The pasted events and log lines that name this object and explain
    /// this field (added in the course of version 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observed: Vec<Observation>,
    /// The path with list items' merge keys, for building fixes.
    #[serde(skip)]
    pub segs: Vec<crate::path::Seg>,
    /// The live value is what the last sync applied and Git changed since
    /// (the last-applied configuration shows both): a sync applies Git's
    /// change and overwrites no one's edit.
    #[serde(skip)]
    pub pending_git_change: bool,
    /// The input shows a person changed the live value: a person's tool
    /// wrote it (`managedFields`), or, with no writer recorded, the cluster
    /// changed after a sync that applied Git's value (last-applied).
    #[serde(skip)]
    pub by_hand: bool,
}

impl Difference {
    /// The value an ignore rule's managers and jq expressions are matched
    /// against: the live one, or Git's when live lacks the field.
    pub fn compared_value(&self) -> &Value {
        static ABSENT: Value = Value::Null;
        self.live.as_ref().or(self.git.as_ref()).unwrap_or(&ABSENT)
    }
}

/// What kind of writer a manager is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ManagerClass {
    /// A person at a terminal or in a web console: a change made by hand.
    Person,
    /// Argo CD's own apply (and webhooks that mutated its request, whose
    /// changes the API server records under the requester's name).
    #[serde(rename = "argocd")]
    ArgoCd,
    /// The API server itself (defaulting, allocation).
    ApiServer,
    /// An entry that records no writer (`before-first-apply`: fields the
    /// API server took over when managedFields were first kept).
    Unknown,
    /// Anything else: a controller, an operator or a script.
    Program,
}

/// The `managedFields` entry that last wrote a live value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WrittenBy {
    /// The field manager.
    pub manager: String,
    /// What kind of writer that manager is.
    pub class: ManagerClass,
    /// `Update` or `Apply`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// The subresource written through (`scale`, `status`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subresource: Option<String>,
    /// When, as the entry records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
}

/// A proposed fix for the differences of one cause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fix {
    /// The cause it addresses.
    pub cause: Cause,
    /// What it changes.
    pub kind: FixKind,
    /// One line saying what it does.
    pub title: String,
    /// The pointers of the differences it covers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pointers: Vec<String>,
    /// Text ready to paste (YAML for an ignore rule).
    pub snippet: String,
    /// What comparing again with the fix applied showed.
    #[serde(default)]
    pub verified: Verified,
    /// One sentence: what was applied and compared, and what still differs
    /// and why when it does not resolve.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub verification: String,
    /// Every other difference in this input the fix would also hide.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collateral: Vec<Collateral>,
    /// For an ignore fix: how many other objects of its group and kind this
    /// input holds, which the argocd-cm form also covers (it applies to every
    /// app on the instance).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub instance_wide: usize,
    /// How many differences of those other objects the argocd-cm form would
    /// hide; the first of them are listed in `collateral` (form `argocd-cm`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub instance_wide_hidden: usize,
    /// The fix to apply first for its differences: it resolves, with no collateral.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recommended: bool,
    /// Why the fix must not be applied as it is (it would hide drift or a
    /// security-relevant field); such a fix is never recommended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// What the sync that applies the fix does on the way (added in the
    /// course of version 1): fields it deletes, defaults they take, pods it
    /// restarts, a sync it makes fail. A fix with an effect that harms
    /// ([`SyncEffectKind::harms`]) is never recommended alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sync_effects: Vec<SyncEffect>,
    /// The change a Git fix makes to the manifests, when it is one.
    #[serde(skip)]
    pub git_change: Option<GitChange>,
    /// Where a `drop` change removes fields from Git when that is the
    /// whole field the owner writes (`rules` of an aggregated role) rather
    /// than each differing leaf.
    #[serde(skip)]
    pub git_paths: Vec<Vec<crate::path::Seg>>,
    /// What an ignore fix ignores, as data: its snippet is written from it,
    /// and its verification and the plan read it, never the snippet.
    #[serde(skip)]
    pub ignore: Option<IgnoreSpec>,
}

/// The rule of an ignore fix: one entry of an Application's
/// `spec.ignoreDifferences` (selecting the object by name and namespace) or,
/// without them, of `argocd-cm`'s `resource.customizations.ignoreDifferences`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IgnoreSpec {
    /// The object's API group, empty for the core group.
    pub group: String,
    /// The object's kind.
    pub kind: String,
    /// The object's name (the Application form selects it).
    pub name: String,
    /// The object's namespace, empty for a cluster-scoped object.
    pub namespace: String,
    /// `jsonPointers`.
    pub json_pointers: Vec<String>,
    /// `jqPathExpressions`.
    pub jq_path_expressions: Vec<String>,
    /// Field managers the rule could trust instead of naming paths (the
    /// snippet offers them commented out; the rule does not trust them).
    pub trust_instead: Vec<String>,
    /// Whether the Application also needs `RespectIgnoreDifferences=true`.
    pub respect: bool,
    /// Whether the snippet also offers the object's own
    /// `argocd.argoproj.io/ignore-differences-json-pointers` annotation (a
    /// release that reads it, and JSON pointers only).
    pub annotation: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Fix {
    /// A fix not yet verified.
    pub fn new(
        cause: Cause,
        kind: FixKind,
        title: String,
        pointers: Vec<String>,
        snippet: String,
    ) -> Fix {
        Fix {
            cause,
            kind,
            title,
            pointers,
            snippet,
            verified: Verified::Unverifiable,
            verification: String::new(),
            collateral: Vec::new(),
            instance_wide: 0,
            instance_wide_hidden: 0,
            recommended: false,
            warning: None,
            sync_effects: Vec::new(),
            git_change: None,
            git_paths: Vec::new(),
            ignore: None,
        }
    }
}

/// One thing the sync that applies a fix does on the way to its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncEffect {
    /// What kind of effect.
    pub kind: SyncEffectKind,
    /// The field it concerns.
    pub pointer: String,
    /// What happens, in a sentence.
    pub message: String,
}

/// The kinds of [`SyncEffect`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SyncEffectKind {
    /// `spec.replicas` deleted and defaulted: the workload loses pods.
    CapacityDrop,
    /// A field deleted and set to its default, which differs from its value.
    ResetToDefault,
    /// A ConfigMap's or Secret's key deleted.
    DataDeleted,
    /// A field deleted live until its writer writes it again.
    FieldDeleted,
    /// The pod template changes: the pods roll.
    PodsRestart,
    /// An immutable field changes: the API server refuses the sync.
    SyncFails,
    /// A list copied from live whole into every sync holds back Git's
    /// other changes to it now (a custom resource under
    /// `RespectIgnoreDifferences=true`).
    GitChangesHeld,
    /// A list copied from live whole into every sync: a later Git change to
    /// it would be held back.
    ListCopiedWhole,
    /// The live status copied into a server-side apply of a kind without a
    /// status subresource: its controller can no longer correct it.
    StatusFrozen,
}

impl SyncEffectKind {
    /// Whether a user would not want it in an incident: lost capacity, a
    /// value reset, data deleted, a failed sync. Rolling pods and a field
    /// its writer writes again are reported but do not block a fix.
    pub fn harms(self) -> bool {
        !matches!(
            self,
            SyncEffectKind::PodsRestart
                | SyncEffectKind::FieldDeleted
                | SyncEffectKind::ListCopiedWhole
        )
    }
}

/// The change a rule's Git fix makes to the manifests, at each difference's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GitChange {
    /// Remove the field from Git (an autoscaler's `replicas`, an empty map,
    /// a zero value that means the same as leaving it out).
    Drop,
    /// Write the live value in Git (a default spelt out, the form a
    /// controller normalises to, a value a policy enforces).
    WriteLive,
}

/// The outcome of comparing again with a fix applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verified {
    /// The differences it addresses no longer differ, and nothing new does.
    Resolves,
    /// Something it addresses still differs, or a new difference appears.
    Partial,
    /// It cannot be checked from the pasted input (the `verification` says why).
    #[default]
    Unverifiable,
}

impl Verified {
    /// The outcome's id in the report.
    pub fn id(self) -> &'static str {
        match self {
            Verified::Resolves => "resolves",
            Verified::Partial => "partial",
            Verified::Unverifiable => "unverifiable",
        }
    }
}

/// A difference a fix would hide besides those it addresses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Collateral {
    /// The resource's id.
    pub resource: String,
    /// The difference's pointer.
    pub pointer: String,
    /// The difference's field as the report names it ([`Difference::field`]).
    #[serde(default)]
    pub field: String,
    /// Its cause.
    pub cause: Cause,
    /// Whether Argo CD shows it today.
    pub visible: bool,
    /// `application` when the Application form hides it, `argocd-cm` when
    /// only the instance-wide form does.
    pub form: String,
    /// The difference's path, list items by their merge key: sentences
    /// name the field from it as every other sentence does.
    #[serde(skip)]
    pub segs: Vec<crate::path::Seg>,
}

impl Collateral {
    /// Another difference of `resource` a fix's rule also hides, under `form`.
    pub fn of(resource: &str, d: &Difference, visible: bool, form: &str) -> Collateral {
        Collateral {
            resource: resource.to_string(),
            pointer: d.pointer.clone(),
            field: d.field.clone(),
            cause: d.cause,
            visible,
            form: form.to_string(),
            segs: d.segs.clone(),
        }
    }
}

/// Every recommended fix of a report combined into one plan, verified
/// together: after it, the app is Synced except the listed drift.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// `resolves` when every resource is Synced after the plan, or differs
    /// only by the listed drift; `partial` otherwise.
    pub verified: Verified,
    /// What was applied and what is left.
    pub verification: String,
    /// The Application fragment (`apiVersion`, `kind`, `metadata.name`,
    /// `spec.ignoreDifferences`, `spec.syncPolicy.syncOptions`) that
    /// `analyze --app` reads back; empty when the plan needs no ignore rule.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub application: String,
    /// Changes to the manifests in Git.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub git: Vec<PlanStep>,
    /// Sync waves, hooks and sync options.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sync_order: Vec<PlanStep>,
    /// Templates to make deterministic.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub render: Vec<PlanStep>,
    /// Changes to Git whose own sync would harm (a field deleted and
    /// defaulted, data deleted) and that are safe once the plan's ignore
    /// rule keeps the live value in every sync: to take after it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub later: Vec<PlanStep>,
    /// Real changes: each needs a sync or a change in Git, never an ignore rule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drift: Vec<PlanField>,
    /// Differences no verified fix resolves, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unresolved: Vec<PlanField>,
}

impl Plan {
    /// The plan ends the loop, yet real drift stays until a sync: never
    /// shown as a bare "resolves".
    pub fn drift_left(&self) -> bool {
        self.verified == Verified::Resolves && !self.drift.is_empty()
    }

    /// The plan's outcome in words: its `verified` id, or that drift is
    /// left and what ends it (a live object Git lacks needs pruning).
    pub fn outcome(&self) -> &'static str {
        if !self.drift_left() {
            self.verified.id()
        } else if self.drift.iter().any(|f| f.needs_pruning) {
            "drift left: a sync with pruning ends it"
        } else {
            "drift left: a sync ends it"
        }
    }
}

/// One change of a plan that is not an ignore rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    /// The resource's id.
    pub resource: String,
    /// What the step does.
    pub title: String,
    /// Text ready to paste.
    pub snippet: String,
    /// Its own verification.
    pub verified: Verified,
}

/// One field a plan leaves to the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanField {
    /// The resource's id.
    pub resource: String,
    /// The field's pointer.
    pub pointer: String,
    /// The field as the report names it ([`Difference::field`]).
    #[serde(default)]
    pub field: String,
    /// Its cause.
    pub cause: Cause,
    /// What to do about it.
    pub note: String,
    /// Real drift that is a live object Git lacks: only a sync with
    /// pruning ends it (added in the course of version 1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub needs_pruning: bool,
}

/// What one of the user's own ignore rules does in this input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleAudit {
    /// The rule, as the settings name it (`rule 2 of the Application`).
    pub rule: String,
    /// What is wrong with it; empty when it is narrow and needed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<AuditFinding>,
    /// How many differences of this input it hides.
    pub hides: usize,
    /// A corrected, narrow rule, verified by comparing again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected: Option<String>,
}

/// One finding of an audit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditFinding {
    /// What kind of finding.
    pub kind: AuditKind,
    /// One sentence saying what and why.
    pub message: String,
}

/// The kinds of audit findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AuditKind {
    /// The rule hides nothing in this input.
    MatchesNothing,
    /// The rule hides drift or a security-relevant difference.
    TooBroad,
    /// Another rule or Argo CD's own normalisation already hides what it hides.
    Redundant,
}

impl AuditKind {
    /// The kind's id in the report.
    pub fn id(self) -> &'static str {
        match self {
            AuditKind::MatchesNothing => "matches-nothing",
            AuditKind::TooBroad => "too-broad",
            AuditKind::Redundant => "redundant",
        }
    }
}

/// Why Argo CD does not count a difference (the report's `hidden_reason`,
/// which is this reason's sentence). Code that needs to know which rule hid
/// a difference matches the variant, never the sentence.
#[derive(Debug, Clone)]
pub enum HiddenReason {
    /// One of the user's `ignoreDifferences` rules, named by its source.
    UserRule {
        /// Where the rule comes from (`Application spec.ignoreDifferences[0]`, …).
        source: String,
    },
    /// The user's rule trusts the field manager that owns the field live.
    TrustedManager {
        /// The live owner.
        manager: String,
        /// The rule that trusts it.
        source: String,
    },
    /// Argo CD masks live Secret values (`++++++++`).
    ArgoCdMask,
    /// `ignoreResourceStatusField` leaves `status` out.
    IgnoredStatus {
        /// `crd`: only CustomResourceDefinitions' status is left out.
        crds_only: bool,
    },
    /// `status` is a subresource under a server-side strategy.
    StatusSubresource,
    /// A live `status` that Git never declared.
    StatusUndeclared,
    /// A default the API server fills.
    ServerDefault,
    /// A default from a CRD's schema.
    CrdDefault {
        /// The CRD's name.
        crd: String,
        /// The served version whose schema holds the default.
        version: String,
    },
    /// The last-applied configuration lists the field and the prediction
    /// keeps the live value.
    KeptByLastApplied,
    /// Only the cluster has the field and the last-applied configuration
    /// does not list it.
    NotInLastApplied {
        /// The deepest ancestor the last-applied configuration lists, if any.
        listed_ancestor: Option<String>,
    },
    /// Only the cluster has the field, with no last-applied configuration.
    NotInGit,
    /// Under server-side diff: Git dropped a field Argo CD wrote with a
    /// client-side apply (`Update`), which a server-side apply never removes.
    AppliedClientSide {
        /// Argo CD's manager.
        manager: String,
    },
    /// Before 3.4.6 / 3.5.0 Argo CD overwrote the live tracking id with the
    /// desired one whenever live carried the instance label (argo-cd PR
    /// #28770).
    TrackingBackfill {
        /// The Argo CD release imitated.
        release: String,
    },
    /// Under server-side diff before 3.4.6 / 3.5.0, the webhook filter took
    /// the whole `x-kubernetes-preserve-unknown-fields` object above this
    /// field from live (argo-cd PR #28819).
    PreservedUnknownFields {
        /// The Argo CD release imitated.
        release: String,
    },
    /// Before 3.2 the API server refused the server-side dry run of this
    /// object, whose required field the user's ignore rules removed first
    /// (gitops-engine PR #747): the comparison fails, no difference shows.
    ComparisonError {
        /// The required field, as the API server names it.
        field: String,
        /// The Argo CD release imitated.
        release: String,
    },
    /// Git declares it but applying Git would not change it.
    RemovedAgain,
    /// Equal after Argo CD's normalisation.
    Normalised,
    /// The live-only object carries `IgnoreExtraneous`.
    IgnoreExtraneous,
    /// A field of `kubectl diff`'s output that records the dry run itself.
    DiffBookkeeping(Bookkeeping),
    /// A reason read back from a report's text.
    Stated(String),
}

/// The fields `kubectl diff` shows changing on every dry run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bookkeeping {
    /// `metadata.generation`.
    Generation,
    /// `metadata.resourceVersion`.
    ResourceVersion,
    /// `metadata.managedFields`.
    ManagedFields,
    /// The last-applied annotation.
    LastApplied,
}

impl HiddenReason {
    /// Whether the user's rule named `source` hid the difference (directly
    /// or by trusting its live owner).
    pub fn is_by_rule(&self, rule_source: &str) -> bool {
        match self {
            HiddenReason::UserRule { source } | HiddenReason::TrustedManager { source, .. } => {
                source == rule_source
            }
            _ => false,
        }
    }
}

impl std::fmt::Display for HiddenReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HiddenReason::UserRule { source } => write!(f, "ignored by your rule {source}"),
            HiddenReason::TrustedManager { manager, source } => write!(
                f,
                "owned live by field manager `{manager}`, which your rule {source} trusts"
            ),
            HiddenReason::ArgoCdMask => f.write_str(
                "the live value is masked by Argo CD (++++++++), so it cannot be compared with Git's value",
            ),
            HiddenReason::IgnoredStatus { crds_only: true } => f.write_str(
                "Argo CD leaves the `status` of CustomResourceDefinitions out of the comparison (argocd-cm `resource.compareoptions` ignoreResourceStatusField: crd)",
            ),
            HiddenReason::IgnoredStatus { crds_only: false } => f.write_str(
                "Argo CD leaves `status` out of the comparison (argocd-cm `resource.compareoptions` ignoreResourceStatusField: all, its default)",
            ),
            HiddenReason::StatusSubresource => f.write_str(
                "`status` is a subresource: applying the object never changes it, so the server-side dry run keeps the live status whatever Git declares",
            ),
            HiddenReason::StatusUndeclared => f.write_str(
                "`status` is written by the cluster; Git never declared it, so Argo CD's diff leaves it out",
            ),
            HiddenReason::ServerDefault => {
                f.write_str("filled by the API server as a default; Git never declared it")
            }
            HiddenReason::CrdDefault { crd, version } => write!(
                f,
                "filled by the API server from the default in the schema of CRD {crd} ({version}); Git never declared it"
            ),
            HiddenReason::KeptByLastApplied => f.write_str(
                "the last-applied configuration lists this field, and Argo CD's prediction keeps the live value after its normalisation",
            ),
            HiddenReason::NotInLastApplied {
                listed_ancestor: Some(ancestor),
            } => write!(
                f,
                "only the cluster has this field; the last-applied configuration has `{ancestor}` but not this key, and Argo CD's three-way patch deletes only what the last-applied configuration lists, so the live value stays"
            ),
            HiddenReason::NotInLastApplied {
                listed_ancestor: None,
            } => f.write_str(
                "only the cluster has this field and the last-applied configuration has no part of it, so Argo CD's three-way diff leaves it out",
            ),
            HiddenReason::NotInGit => f.write_str(
                "only the cluster has this field; Git never declared it, so Argo CD's diff leaves it out",
            ),
            HiddenReason::AppliedClientSide { manager } => write!(
                f,
                "only the cluster has this field now, and `{manager}` wrote it with a client-side apply (managedFields operation Update): a server-side apply removes only the fields its manager owns through Apply, so Argo CD's server-side diff shows no difference and a sync leaves the field live (argo-cd #25205); remove it by hand once, or sync once with ServerSideApply=true, which moves the ownership to Apply from Argo CD 3.1"
            ),
            HiddenReason::TrackingBackfill { release } => write!(
                f,
                "Argo CD {release} overwrites the live tracking id with the one it writes whenever the live object carries the `app.kubernetes.io/instance` label, so another app's id shows no difference (argo-cd PR #28770, fixed in 3.4.6 and 3.5.0): the object may be managed by two apps"
            ),
            HiddenReason::PreservedUnknownFields { release } => write!(
                f,
                "under server-side diff, Argo CD {release} takes the whole `x-kubernetes-preserve-unknown-fields` object above this field from live when it filters out webhook changes, so changes under it do not show (argo-cd PR #28819, fixed in 3.4.6 and 3.5.0)"
            ),
            HiddenReason::ComparisonError { field, release } => write!(
                f,
                "Argo CD {release} cannot compare this object: under server-side diff it removes the ignored fields from desired before the dry run, and the API server refuses the object (`ComparisonError ... {field}: Required value`), so the app is Unknown and shows no difference (gitops-engine PR #747, fixed in 3.2)"
            ),
            HiddenReason::RemovedAgain => f.write_str(
                "Git declares it but applying Git would not change it (it is removed again by defaulting or equal after normalisation)",
            ),
            HiddenReason::Normalised => f.write_str(
                "equal after Argo CD's normalisation (defaults, quantities, merge semantics)",
            ),
            HiddenReason::IgnoreExtraneous => f.write_str(
                "its `argocd.argoproj.io/compare-options: IgnoreExtraneous` annotation: Argo CD does not count this object, which is not in Git, against the app's sync status",
            ),
            HiddenReason::DiffBookkeeping(field) => {
                let what = match field {
                    Bookkeeping::Generation => {
                        "`metadata.generation`, which the API server bumps on every spec change"
                    }
                    Bookkeeping::ResourceVersion => {
                        "`metadata.resourceVersion`, which changes on every write"
                    }
                    Bookkeeping::ManagedFields => {
                        "`metadata.managedFields`, whose owners and times record the dry-run write itself"
                    }
                    Bookkeeping::LastApplied => {
                        "the `kubectl.kubernetes.io/last-applied-configuration` annotation, which `kubectl apply` rewrites from \
                         the applied file (what it says differently shows in the fields themselves)"
                    }
                };
                write!(
                    f,
                    "kubectl diff bookkeeping: its right side is the API server's dry-run answer, so {what}; \
                     Argo CD does not compare it"
                )
            }
            HiddenReason::Stated(text) => f.write_str(text),
        }
    }
}

/// Two reasons are the same when they say the same: a reason read back
/// from a report equals the one it was written from.
impl PartialEq for HiddenReason {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Serialize for HiddenReason {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for HiddenReason {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(HiddenReason::Stated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hidden_reason_is_its_sentence_in_json_and_reads_back_equal() {
        let reason = HiddenReason::TrustedManager {
            manager: "kube-controller-manager".into(),
            source: "argocd-cm resource.customizations.ignoreDifferences.apps_Deployment".into(),
        };
        let json = serde_json::to_value(&reason).unwrap();
        assert_eq!(
            json,
            "owned live by field manager `kube-controller-manager`, which your rule argocd-cm resource.customizations.ignoreDifferences.apps_Deployment trusts"
        );
        let back: HiddenReason = serde_json::from_value(json).unwrap();
        assert_eq!(back, reason);
        assert!(matches!(back, HiddenReason::Stated(_)));
        assert!(reason
            .is_by_rule("argocd-cm resource.customizations.ignoreDifferences.apps_Deployment"));
        assert!(!reason.is_by_rule("Application shop spec.ignoreDifferences[0]"));
        assert!(!HiddenReason::ServerDefault.is_by_rule(""));
    }
}
