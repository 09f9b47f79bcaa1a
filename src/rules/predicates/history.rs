//! What the live object itself records about who wrote a field: the
//! last-applied configuration (what Argo CD applied at its last client-side
//! sync) and the `managedFields` owner. Evidence may state only what these
//! show.

use super::{var, Vars};
use crate::rules::Finding;
use serde_json::Value;

use crate::rules::managers::{self, ManagerClass};
use crate::rules::provenance::{LastApplied, Via};

fn last_applied(f: &Finding<'_>) -> LastApplied {
    f.provenance().last_applied
}

/// The last-applied configuration holds Git's value at the path: the last
/// sync applied what Git holds now.
pub(super) fn git_as_last_applied(f: &Finding<'_>) -> Option<Vars> {
    matches!(last_applied(f), LastApplied::SameAsGit).then(Vec::new)
}

/// Always holds; `since_sync` says what the input shows about Git since the
/// last sync: changed (the last-applied configuration holds another value)
/// or unknown (no last-applied configuration). A rule that must not say
/// "Git changed" when Git did not comes after one using `git_as_last_applied`.
pub(super) fn since_last_sync(f: &Finding<'_>) -> Option<Vars> {
    let s = match last_applied(f) {
        LastApplied::Differs { .. } => "the last-applied configuration Argo CD wrote at its last sync holds another value there, so Git changed after that sync (or the sync of the change failed)",
        LastApplied::SameAsGit => "the last-applied configuration holds Git's value, so Git has not changed since the last sync: the value changed during Argo CD's own apply",
        LastApplied::Unknown => "the live object holds no last-applied configuration, so the input does not show whether Git changed after the last sync or a mutating webhook rewrote the value during Argo CD's own apply",
    };
    Some(vec![var("since_sync", s)])
}

/// Always holds; `origin` says what the input shows about where a drifted
/// value came from: the cluster changed after a sync that applied Git's value,
/// Git changed after the last sync (the cluster still holding what it
/// applied, or changed too), or, without a last-applied configuration, which
/// of the two is not shown.
pub(super) fn drift_origin(f: &Finding<'_>) -> Option<Vars> {
    let s = match last_applied(f) {
        LastApplied::SameAsGit => "the last-applied configuration agrees with Git there, so the cluster was changed after the last sync",
        LastApplied::Differs { live_as_applied: true } => "the cluster still holds what the last sync applied (the last-applied configuration holds the live value), so Git changed after that sync and the change is not applied yet",
        LastApplied::Differs { live_as_applied: false } => "the last-applied configuration holds a third value, so Git changed after the last sync and the cluster was changed too",
        LastApplied::Unknown => "the input holds no last-applied configuration, so it does not show whether the cluster was changed or Git moved on without a sync",
    };
    Some(vec![var("origin", s)])
}

/// The live value is the one the last sync applied and Git holds another:
/// Git changed since, and the cluster was not touched.
pub(crate) fn pending_git_change(f: &Finding<'_>) -> bool {
    matches!(
        last_applied(f),
        LastApplied::Differs {
            live_as_applied: true
        }
    )
}

/// The evidence variables of the live value's writer when its class is one
/// of `classes`: `writer` (the manager), `writer_how` (how it was found and
/// when), `writer_class` (what kind of writer that is).
fn written_by(f: &Finding<'_>, classes: &[ManagerClass]) -> Option<Vars> {
    let w = f.provenance().writer.as_ref()?;
    if !classes.contains(&w.class) {
        return None;
    }
    let mut how = String::new();
    match w.via {
        Via::ReplacingItem => {
            how.push_str(" (it owns the list entry that took the place of Git's)")
        }
        Via::LaterUpdate => how.push_str(
            " (it updated the fields next to it after Argo CD's last apply; the API server records no writer for a field that is gone)",
        ),
        Via::Field => {}
    }
    if let Some(t) = &w.field.time {
        how.push_str(&format!(" at {t}"));
    }
    let referrers = &f.provenance().referrers;
    let named_by = if referrers.is_empty() {
        String::new()
    } else {
        format!(
            " The input's {} names this {} as its target.",
            referrers
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            f.key.kind
        )
    };
    Some(vec![
        var("writer", w.field.manager.clone()),
        var("writer_how", how),
        var("writer_class", managers::describe(w.class)),
        var("named_by", named_by),
    ])
}

/// A person's tool (kubectl, a web console) last wrote the live value.
pub(super) fn written_by_person(f: &Finding<'_>) -> Option<Vars> {
    written_by(f, &[ManagerClass::Person])
}

/// A program (a controller, an operator, a script: any manager the table
/// does not name as a person's tool, Argo CD or the API server) last wrote it.
pub(super) fn written_by_program(f: &Finding<'_>) -> Option<Vars> {
    written_by(f, &[ManagerClass::Program])
}

/// Argo CD's own apply last wrote it (or a webhook mutating that request).
pub(super) fn written_by_argocd(f: &Finding<'_>) -> Option<Vars> {
    written_by(f, &[ManagerClass::ArgoCd])
}

/// An autoscaler last wrote it, through the scale subresource.
pub(super) fn written_by_scaler(f: &Finding<'_>) -> Option<Vars> {
    let p = f.provenance();
    if !p.scaled(f.key, f.pointer) {
        return None;
    }
    let through_scale = p
        .writer
        .as_ref()
        .is_some_and(|w| w.field.subresource.as_deref() == Some("scale"));
    let how = if through_scale {
        "writes through the scale subresource, as autoscalers do (the HPA controller runs inside kube-controller-manager)"
    } else {
        "holds the replica count and nothing else of the spec, as autoscalers and schedule-based scalers write it"
    };
    let mut vars = written_by(f, &[ManagerClass::Program])?;
    vars.push(var("scaled_how", how));
    Some(vars)
}

/// A program that sizes container resources, and does nothing else to the
/// workload, last wrote them (a vertical autoscaler or request right-sizer).
pub(super) fn written_by_resizer(f: &Finding<'_>) -> Option<Vars> {
    if !f.provenance().resized(f.pointer) {
        return None;
    }
    written_by(f, &[ManagerClass::Program])
}

/// The render moved since the last sync (the last-applied configuration
/// holds the live value, Git another, and no person or program wrote the
/// live one) and the values look generated: `functions` names the template
/// functions that make such values.
pub(super) fn render_moved_generated(f: &Finding<'_>) -> Option<Vars> {
    let p = f.provenance();
    (p.render_moved() && p.shape.generated())
        .then(|| vec![var("functions", p.shape.template_functions())])
}

/// Who re-encoded a value, as the input shows it. The API server stores a
/// built-in kind's quantities in canonical form; anything else (a custom
/// resource's strings, a ConfigMap's data) it stores as written, and there
/// `managedFields` tell: Argo CD's manager owning the rewritten value means a
/// mutating admission webhook changed the object Argo CD applied, another
/// manager is the controller that wrote it.
pub(super) fn reencoded_by(f: &Finding<'_>) -> String {
    if typed_quantity(f) {
        return "the API server stores the quantities of built-in kinds in canonical form"
            .to_string();
    }
    match f.manager {
        Some(m) if managers::class_of(m) == ManagerClass::ArgoCd => format!(
            "its field manager is `{m}`, Argo CD's own apply, so a mutating admission webhook rewrote the object Argo CD applied"
        ),
        Some(m) if m != "kube-apiserver" => {
            format!("its field manager is `{m}`: that controller wrote it in this form")
        }
        _ => "a mutating webhook or a controller wrote it in this form; the live object's managedFields do not say which".to_string(),
    }
}

/// The field is stored as written: not a typed quantity of a built-in kind,
/// so the API server did not re-encode it.
pub(super) fn stored_as_written(f: &Finding<'_>) -> Option<Vars> {
    (!typed_quantity(f)).then(Vec::new)
}

/// The path is a `Quantity` field of a built-in kind's schema.
fn typed_quantity(f: &Finding<'_>) -> bool {
    let Some(mut c) = crate::k8s::root(&f.key.group, &f.key.kind) else {
        return false;
    };
    for seg in f.path {
        let next = match seg {
            crate::path::Seg::Key(k) if !c.is_list() => c.field(k),
            _ => c.item(),
        };
        match next {
            Some(n) => c = n,
            None => return false,
        }
    }
    c.is_quantity()
}

/// Always holds for an object only live; `tracking` says whether the object
/// carries the tracking Argo CD uses to count it as the app's: the
/// `argocd.argoproj.io/tracking-id` annotation (the default since 3.0) or
/// the `app.kubernetes.io/instance` label (label tracking, the default
/// before; Helm charts set the same label, so it shows less).
pub(super) fn live_tracking(f: &Finding<'_>) -> Option<Vars> {
    let live = f.live_obj?;
    let s = if let Some(app) = crate::context::tracked_app(live) {
        format!(", and its `{}` annotation names the app `{app}`: Argo CD marks it as requiring pruning", crate::normalize::TRACKING_ANNOTATION)
    } else if let Some(v) = live
        .pointer("/metadata/labels/app.kubernetes.io~1instance")
        .and_then(Value::as_str)
    {
        format!(", and it carries `app.kubernetes.io/instance: {v}`, the label Argo CD's label tracking reads: if that tracking is on, Argo CD marks it as requiring pruning")
    } else {
        ", and it carries no Argo CD tracking annotation or label: the input does not show that this app manages it (if it does, Argo CD marks it as requiring pruning)".to_string()
    };
    Some(vec![var("tracking", s)])
}

/// A program created this object Git does not declare and gave it the
/// app's tracking label: every write of it the API server recorded is a
/// program's (none is Argo CD's apply or a person's tool), and a program
/// owns `app.kubernetes.io/instance`. Controllers that copy the metadata of
/// the object they derive from copy that label too, and label tracking then
/// counts the copy as the app's. (A copied tracking annotation does not
/// count: its value names the object it was written for.)
pub(super) fn created_by_program(f: &Finding<'_>) -> Option<Vars> {
    let live = f.live_obj?;
    let label = live
        .pointer("/metadata/labels/app.kubernetes.io~1instance")
        .and_then(Value::as_str)?;
    let entries = live.pointer("/metadata/managedFields")?.as_array()?;
    let managers: Vec<&str> = entries
        .iter()
        .filter_map(|e| e.get("manager").and_then(Value::as_str))
        .collect();
    if managers.is_empty()
        || managers
            .iter()
            .any(|m| managers::class_of(m) != ManagerClass::Program)
    {
        return None;
    }
    let path = [
        crate::path::Seg::Key("metadata".into()),
        crate::path::Seg::Key("labels".into()),
        crate::path::Seg::Key("app.kubernetes.io/instance".into()),
    ];
    let creator = crate::managed_fields::writer_of(live, &path)?;
    if managers::class_of(&creator.manager) != ManagerClass::Program {
        return None;
    }
    // An object with an owner reference is its owner's child to Argo CD,
    // never an extraneous one.
    if live
        .pointer("/metadata/ownerReferences")
        .is_some_and(|o| o.as_array().is_some_and(|a| !a.is_empty()))
    {
        return None;
    }
    Some(vec![
        var("creator", creator.manager),
        var("instance", label),
    ])
}

/// A mutating webhook can have seen this object: the input holds no webhook
/// configuration, or one registers for the object's resource.
pub(super) fn webhooks_can_see(f: &Finding<'_>) -> Option<Vars> {
    crate::rules::provenance::webhooks_can_see(f.key, f.input).then(Vec::new)
}
