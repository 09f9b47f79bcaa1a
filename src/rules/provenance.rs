//! The provenance stage: for one differing field, the facts the input
//! itself carries about who wrote it, computed once before any rule runs.
//!
//! - Git against the last-applied configuration (what Argo CD's client-side
//!   apply sent at its last sync) and live against it.
//! - Who last wrote the live value: the `managedFields` entry (manager,
//!   operation, subresource, time) and that manager's class
//!   ([`super::managers`]). For an item of a list keyed by a merge key that
//!   live lacks, the entry that took its place speaks for it; for a field
//!   live lacks that only Argo CD's earlier apply recorded, a program's later
//!   update of the fields next to it does (nobody records a removal).
//! - Which objects of the input name this one (`scaleTargetRef`,
//!   `targetRef`, `workloadRef`).
//! - The value's shape: random, a certificate, a checksum, a timestamp, or
//!   the same amount in another notation.
//!
//! [`Provenance::default_cause`] is the decision table below; the rules of
//! the catalogue refine it (they name the tool and carry its fixes), and
//! [`Provenance::admits`] keeps any rule from contradicting it.
//!
//! | who wrote the live value | last-applied | default cause |
//! | --- | --- | --- |
//! | a person's tool | any | `drift`, high: changed by hand |
//! | a program through `scale` | any | `autoscaler` |
//! | a program holding only container `resources` of the spec | any | `autoscaler`: a vertical sizer |
//! | any other program | any | `controller-rewrite`, medium |
//! | Argo CD's apply | holds Git's value | `mutating-webhook`: rewritten inside the apply |
//! | Argo CD's apply, or not recorded | holds the live value, Git moved on | `nondeterministic-render` when the value looks generated, else `drift` (a Git change waiting for a sync) |
//! | not recorded | holds Git's value | `drift`, low: the cluster changed, the writer is not shown |
//! | not recorded | none | `drift`, low: the input cannot tell who changed it |
//!
//! No rule may say "changed by hand" of a field a program wrote, nor
//! "rewritten after the sync" of one the last sync applied as it is, nor
//! "rewritten by a webhook or a controller" of one a person's tool wrote;
//! [`webhooks_can_see`] keeps a webhook from being blamed for an object the
//! input's webhook configurations do not register for.

use super::managers::{self, ManagerClass};
use super::Finding;
use crate::identity::ResourceKey;
use crate::managed_fields::FieldWriter;
use crate::model::{Cause, Confidence, Presence};
use crate::path::{Pointer, Seg};
use serde_json::Value;

/// What the last-applied configuration says about the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastApplied {
    /// The live object holds no (readable) last-applied configuration.
    Unknown,
    /// It holds what Git holds now: Git has not changed since that apply.
    SameAsGit,
    /// It holds something else: Git changed after that apply. `live_as_applied`:
    /// the live value is still the one that apply wrote.
    Differs {
        /// The live value is the one the last apply wrote.
        live_as_applied: bool,
    },
}

/// How the writer of the live value was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// `managedFields` hold the field itself (or a subtree above it).
    Field,
    /// The list item live lacks was replaced: the entry that holds the
    /// item which took its place.
    ReplacingItem,
    /// A field Git declares and live lacks, recorded only under Argo CD's
    /// earlier apply: a program updated the fields next to it afterwards.
    /// The API server keeps no record of who removes a field, and a webhook
    /// mutating Argo CD's own request shows under Argo CD's time, so a later
    /// update by a program is the removal's best witness.
    LaterUpdate,
}

/// Who last wrote the live value.
#[derive(Debug, Clone)]
pub struct Writer {
    /// The `managedFields` entry.
    pub field: FieldWriter,
    /// Its manager's class.
    pub class: ManagerClass,
    /// How it was found.
    pub via: Via,
}

/// The shape of the differing values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// High-entropy strings of one length (generated passwords, keys, tokens).
    Random,
    /// PEM certificates or keys, raw or base64.
    Certificate,
    /// A `checksum/...` annotation: a hash of other rendered content.
    Checksum,
    /// Dates or epoch seconds.
    Timestamp,
    /// Anything else.
    Plain,
}

impl Shape {
    /// Whether a render makes such a value anew each time it runs
    /// (`randAlphaNum`, `genCA`, `now`, a checksum of those).
    pub fn generated(self) -> bool {
        !matches!(self, Shape::Plain)
    }

    /// The template functions behind values of this shape.
    pub fn template_functions(self) -> &'static str {
        match self {
            Shape::Random => "`randAlphaNum`/`randAscii`, or `lookup`, which returns nothing under `helm template` so the chart generates a new value",
            Shape::Certificate => "`genCA`, `genSelfSignedCert` or `genSignedCert`",
            Shape::Checksum => "`sha256sum` over a template that itself renders generated values",
            Shape::Timestamp => "`now` (or `date`)",
            Shape::Plain => "none",
        }
    }
}

/// The facts of one differing field that decide its cause.
#[derive(Debug, Clone)]
pub struct Provenance {
    /// Git and live against the last-applied configuration.
    pub last_applied: LastApplied,
    /// Who last wrote the live value, when `managedFields` say.
    pub writer: Option<Writer>,
    /// Whether the live object carries `managedFields` at all.
    pub has_managed_fields: bool,
    /// Objects of the input that name this one.
    pub referrers: Vec<crate::context::Referrer>,
    /// The values' shape.
    pub shape: Shape,
}

impl Provenance {
    /// The facts of this finding (its `provenance` field left aside).
    pub fn of(f: &Finding<'_>) -> Provenance {
        let live = f.live_obj.filter(|_| f.presence == Presence::Both);
        Provenance {
            last_applied: last_applied(f),
            writer: live.and_then(|l| writer(l, f)),
            has_managed_fields: live.is_some_and(|l| l.at("/metadata/managedFields").is_some()),
            referrers: f.input.referrers_of(f.key).cloned().collect(),
            shape: shape(f),
        }
    }

    /// The class of the live value's writer, when known.
    pub fn writer_class(&self) -> Option<ManagerClass> {
        self.writer.as_ref().map(|w| w.class)
    }

    /// The render moved since the last sync: the last-applied configuration
    /// holds the live value, and Git holds another.
    pub fn render_moved(&self) -> bool {
        self.last_applied
            == LastApplied::Differs {
                live_as_applied: true,
            }
            && !matches!(
                self.writer_class(),
                Some(ManagerClass::Person | ManagerClass::Program)
            )
    }

    /// Whether the live value's writer is an autoscaler ([`managers::is_scaler`]).
    pub fn scaled(&self, key: &ResourceKey, pointer: &str) -> bool {
        let rollout = self.referrers.iter().any(|r| r.drives_rollout());
        self.writer
            .as_ref()
            .is_some_and(|w| managers::is_scaler(&w.field, &key.kind, pointer, rollout))
    }

    /// Whether the live value's writer sizes container resources and does
    /// nothing else to the object ([`managers::is_resizer`]).
    pub fn resized(&self, pointer: &str) -> bool {
        self.writer
            .as_ref()
            .is_some_and(|w| managers::is_resizer(&w.field, pointer))
    }

    /// The decision table's cause and confidence for these facts.
    pub fn default_cause(&self, key: &ResourceKey, pointer: &str) -> (Cause, Confidence) {
        use ManagerClass::*;
        if let Some(w) = &self.writer {
            if self.scaled(key, pointer) || self.resized(pointer) {
                return (Cause::Autoscaler, Confidence::Medium);
            }
            match w.class {
                Person => return (Cause::Drift, Confidence::High),
                Program => return (Cause::ControllerRewrite, Confidence::Medium),
                ArgoCd if self.last_applied == LastApplied::SameAsGit => {
                    return (Cause::MutatingWebhook, Confidence::Medium)
                }
                _ => {}
            }
        }
        if self.render_moved() {
            return if self.shape.generated() {
                (Cause::NondeterministicRender, Confidence::Medium)
            } else {
                (Cause::Drift, Confidence::Medium)
            };
        }
        (Cause::Drift, Confidence::Low)
    }

    /// Whether a rule giving `cause` agrees with these facts.
    pub fn admits(&self, cause: Cause) -> bool {
        use ManagerClass::*;
        // The live value is the one the last sync applied and Git moved on:
        // nobody rewrote it after that apply (no webhook, controller,
        // autoscaler, restart stamp or default); Git or the render changed.
        if self.render_moved()
            && !matches!(
                cause,
                Cause::Drift | Cause::NondeterministicRender | Cause::SyncOrdering
            )
        {
            return false;
        }
        match (self.writer_class(), cause) {
            // A person's tool owns the live value: no webhook, controller or
            // autoscaler wrote it.
            (
                Some(Person),
                Cause::MutatingWebhook | Cause::ControllerRewrite | Cause::Autoscaler,
            ) => false,
            // A program wrote it: it was not changed by hand.
            (Some(Program), Cause::Drift) => false,
            // Argo CD applied Git's value and owns the live one: only the
            // request's own mutation (or the API server) changed it.
            (Some(ArgoCd), Cause::Drift) => self.last_applied != LastApplied::SameAsGit,
            _ => true,
        }
    }
}

/// Whether a mutating webhook can have seen this object: `false` only when
/// the input holds webhook configurations and none registers for the
/// object's resource (sidecar injectors register for Pods, not for the
/// workloads whose templates make them).
pub fn webhooks_can_see(key: &ResourceKey, input: &crate::context::InputContext) -> bool {
    input.webhooks_cover(&key.group, &resource_of(&key.kind)) != Some(false)
}

/// The plural resource name webhook rules register for, as the API server
/// derives it from a kind (`Deployment` → `deployments`, `NetworkPolicy` →
/// `networkpolicies`, `Ingress` → `ingresses`).
fn resource_of(kind: &str) -> String {
    let k = kind.to_ascii_lowercase();
    if k == "endpoints" {
        k
    } else if let Some(stem) = k
        .strip_suffix('y')
        .filter(|s| !s.ends_with(['a', 'e', 'o', 'u']))
    {
        format!("{stem}ies")
    } else if k.ends_with('s') || k.ends_with('x') || k.ends_with("ch") || k.ends_with("sh") {
        format!("{k}es")
    } else {
        format!("{k}s")
    }
}

fn last_applied(f: &Finding<'_>) -> LastApplied {
    let Some(mut applied) = f.live_obj.and_then(crate::k8s::last_applied) else {
        return LastApplied::Unknown;
    };
    if f.key.group.is_empty() && f.key.kind == "Secret" {
        // The annotation holds the Secret as applied, `stringData` and
        // all; the API server stores it in `data`.
        crate::normalize::normalize_secret(&mut applied);
    }
    let then = applied.pointer(f.pointer);
    let same = |other: Option<&Value>| match (then, other) {
        (None, None) => true,
        (Some(a), Some(b)) => crate::compare::json_eq(a, b),
        _ => false,
    };
    if same(f.git_obj.and_then(|g| g.pointer(f.pointer))) {
        LastApplied::SameAsGit
    } else {
        LastApplied::Differs {
            live_as_applied: same(f.live_obj.and_then(|l| l.pointer(f.pointer))),
        }
    }
}

/// The writer of the live value. A field of a keyed list item that live
/// lacks (Git's entry was replaced) is attributed to the entries that hold
/// the live items Git does not declare: whoever put them there removed it.
fn writer(live: &Value, f: &Finding<'_>) -> Option<Writer> {
    let class_of = |field: FieldWriter, via| Writer {
        class: managers::class_of(&field.manager),
        field,
        via,
    };
    if let Some(w) = replacing_item_writer(live, f) {
        return Some(class_of(w, Via::ReplacingItem));
    }
    let Some(found) =
        crate::managed_fields::writer_of(live, f.path).or_else(|| every_entry_writer(live, f.path))
    else {
        // A field Git declares that live lacks and no entry records: its
        // remover left no trace of its own (a removed field leaves every
        // manager's set). When Argo CD's apply wrote it and a program updated
        // the fields next to it afterwards, with no person's tool writing in
        // between, that update is the removal's witness.
        if f.live.is_some() || f.git.is_none() || !argocd_applied_it(live, f) {
            return None;
        }
        let since = latest_write(live, ManagerClass::ArgoCd)?;
        if latest_write(live, ManagerClass::Person).is_some_and(|t| t > since) {
            return None;
        }
        return later_program_update(live, f.path, Some(&since))
            .map(|w| class_of(w, Via::LaterUpdate));
    };
    let w = class_of(found, Via::Field);
    if w.class == ManagerClass::ArgoCd && f.live.is_none() && f.git.is_some() {
        if let Some(later) = later_program_update(live, f.path, w.field.time.as_deref()) {
            return Some(class_of(later, Via::LaterUpdate));
        }
    }
    Some(w)
}

/// A map's keys are owned one by one, so a map nobody owns whole (a
/// Secret's `data` Git leaves out) was written by whoever wrote every one
/// of its keys, when that is one manager.
fn every_entry_writer(live: &Value, path: &[Seg]) -> Option<FieldWriter> {
    let map = live.at(&crate::path::pointer(path))?.as_object()?;
    let mut found: Option<FieldWriter> = None;
    for key in map.keys() {
        let mut child = path.to_vec();
        child.push(Seg::Key(key.clone()));
        let w = crate::managed_fields::writer_of(live, &child)?;
        match &found {
            Some(prev) if prev.manager != w.manager => return None,
            Some(prev) if prev.time >= w.time => {}
            _ => found = Some(w),
        }
    }
    found.map(|w| FieldWriter { exact: false, ..w })
}

/// Whether Argo CD's last apply sent this field, which live lacks: the
/// last-applied configuration holds it as Git does; or it is an annotation
/// and the last-applied annotation, which Argo CD's client-side apply
/// (an `Update` of `argocd-controller`) writes at every sync, is gone as
/// well, so the annotations were replaced after that apply. A field Git
/// added since the last sync is in neither and stays a change to sync.
fn argocd_applied_it(live: &Value, f: &Finding<'_>) -> bool {
    match crate::k8s::last_applied(live) {
        Some(applied) => {
            applied.pointer(f.pointer).is_some() && last_applied(f) == LastApplied::SameAsGit
        }
        None => {
            let annotation = matches!(
                f.path,
                [Seg::Key(m), Seg::Key(a), _] if m == "metadata" && a == "annotations"
            );
            let client_side = live
                .at("/metadata/managedFields")
                .and_then(Value::as_array)
                .is_some_and(|entries| {
                    entries.iter().any(|e| {
                        let manager = e.get("manager").and_then(Value::as_str).unwrap_or_default();
                        managers::class_of(manager) == ManagerClass::ArgoCd
                            && e.get("operation").and_then(Value::as_str) == Some("Update")
                    })
                });
            annotation && client_side
        }
    }
}

/// The time of the latest write to the object itself (no subresource) by a
/// manager of this class. RFC 3339 times in UTC order as strings.
fn latest_write(live: &Value, class: ManagerClass) -> Option<String> {
    live.at("/metadata/managedFields")?
        .as_array()?
        .iter()
        .filter(|e| {
            let manager = e.get("manager").and_then(Value::as_str).unwrap_or_default();
            managers::class_of(manager) == class
                && e.get("subresource")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
        })
        .filter_map(|e| e.get("time").and_then(Value::as_str))
        .max()
        .map(str::to_string)
}

/// The latest `Update` of the object itself (no subresource) by a program,
/// after Argo CD's apply at `argocd_time`, whose fields include others of
/// the map that held the field at `path`.
fn later_program_update(
    live: &Value,
    path: &[Seg],
    argocd_time: Option<&str>,
) -> Option<FieldWriter> {
    let argocd_time = argocd_time?;
    let (_, parent) = path.split_last()?;
    let entries = live.at("/metadata/managedFields")?.as_array()?;
    let text = |e: &Value, k: &str| e.get(k).and_then(Value::as_str).map(str::to_string);
    entries
        .iter()
        .filter(|e| {
            let manager = e.get("manager").and_then(Value::as_str).unwrap_or_default();
            managers::class_of(manager) == ManagerClass::Program
                && e.get("operation").and_then(Value::as_str) == Some("Update")
                && e.get("subresource").and_then(Value::as_str).is_none_or(str::is_empty)
                // RFC 3339 times in UTC order as strings.
                && e.get("time").and_then(Value::as_str).is_some_and(|t| t > argocd_time)
        })
        .filter(|e| {
            let mut node = e.get("fieldsV1");
            for seg in parent {
                let Seg::Key(k) = seg else { return false };
                node = node.and_then(|n| n.get(format!("f:{k}")));
            }
            node.and_then(Value::as_object)
                .is_some_and(|m| m.keys().any(|k| k.starts_with("f:")))
        })
        .max_by(|a, b| text(a, "time").cmp(&text(b, "time")))
        .and_then(|e| FieldWriter::of(e, false))
}

fn replacing_item_writer(live: &Value, f: &Finding<'_>) -> Option<FieldWriter> {
    // The first keyed item on the path that live lacks.
    let (at, field) = f.path.iter().enumerate().find_map(|(at, s)| {
        let Seg::Item {
            key: Some((field, value)),
            ..
        } = s
        else {
            return None;
        };
        let items = live.at(&crate::path::pointer(&f.path[..at]))?.as_array()?;
        (!items.iter().any(|i| i.get(field) == Some(value))).then_some((at, field))
    })?;
    let list_path = &f.path[..at];
    let list_pointer = crate::path::pointer(list_path);
    let live_items = live.at(&list_pointer)?.as_array()?;
    let git_items = f
        .git_obj
        .and_then(|g| g.at(&list_pointer))
        .and_then(Value::as_array);
    let declared = |v: &Value| git_items.is_some_and(|g| g.iter().any(|i| i.get(field) == Some(v)));
    let mut writers: Vec<FieldWriter> = live_items
        .iter()
        .filter_map(|i| i.get(field))
        .filter(|v| !declared(v))
        .flat_map(|v| crate::managed_fields::writers_of_item(live, list_path, field, v))
        .collect();
    // A person's entry speaks first: it is the one that replaced the item
    // (Argo CD's apply never adds an item Git lacks).
    crate::sorting::sort_by_key(&mut writers, |w| {
        managers::class_of(&w.manager) != ManagerClass::Person
    });
    writers.into_iter().next()
}

/// A random-looking string a render generates. One without capitals that
/// carries a run of lowercase hex is a digest or a commit id (a CI build's
/// version label `ci-0b2c7e5…`, an image tag): it moves when its source
/// moves, not on every render (`randAlphaNum` mixes capitals in).
pub(super) fn generated_text(s: &str) -> bool {
    let is_hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
    let longest_hex_run = s
        .as_bytes()
        .split(|b| !is_hex(b))
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    let digest = !s.bytes().any(|b| b.is_ascii_uppercase()) && longest_hex_run >= 7;
    !digest && super::predicates::looks_random(s)
}

/// Lengths one generator can give: equal, or for long values within a
/// quarter of each other (a generator of variable length, a chart that
/// changed its length, a value encoded with or without a trailing newline).
fn similar_lengths(a: &str, b: &str) -> bool {
    let (short, long) = (a.len().min(b.len()), a.len().max(b.len()));
    short == long || (short >= 16 && 4 * (long - short) <= long)
}

fn shape(f: &Finding<'_>) -> Shape {
    if matches!(f.path.last(), Some(Seg::Key(k)) if k.starts_with("checksum/")) {
        return Shape::Checksum;
    }
    let strings = [f.git, f.live].map(|v| v.and_then(Value::as_str));
    let (Some(g), Some(l)) = (strings[0], strings[1]) else {
        return Shape::Plain;
    };
    if g == l {
        return Shape::Plain;
    }
    if super::predicates::is_certificate(g) && super::predicates::is_certificate(l) {
        Shape::Certificate
    } else if similar_lengths(g, l) && generated_text(g) && generated_text(l) {
        Shape::Random
    } else if super::predicates::has_timestamp(g) && super::predicates::has_timestamp(l) {
        Shape::Timestamp
    } else {
        Shape::Plain
    }
}

#[cfg(test)]
mod tests {
    use super::{resource_of, similar_lengths};

    #[test]
    fn one_generator_gives_equal_or_close_lengths() {
        assert!(similar_lengths("abcd", "wxyz"));
        assert!(similar_lengths(
            "sDzwqqAb4HwzaRoBOOI9GwKfCHV9FMK",
            "fTxovOhmK3Rh2u8mNHI2JNsgse6C"
        ));
        // Short values must match exactly; far lengths are other values.
        assert!(!similar_lengths("abc", "abcd"));
        assert!(!similar_lengths(
            "a1B2c3D4e5F6g7H8",
            "a1B2c3D4e5F6g7H8i9J0k1L2m3N4"
        ));
    }

    #[test]
    fn kinds_become_the_resources_webhooks_register_for() {
        for (kind, resource) in [
            ("Deployment", "deployments"),
            ("Pod", "pods"),
            ("NetworkPolicy", "networkpolicies"),
            ("Ingress", "ingresses"),
            ("Endpoints", "endpoints"),
            ("Gateway", "gateways"),
        ] {
            assert_eq!(resource_of(kind), resource);
        }
    }
}
