//! What makes a sync stop or run in an order that leaves a difference:
//! CRDs, hooks, waves and namespaces.

use super::{annotation, var, Vars};
use crate::model::Presence;
use crate::path::Pointer;
use crate::rules::Finding;
use serde_json::Value;

/// The CRD that defines this kind is in the same Git input.
pub(super) fn crd_in_git(f: &Finding<'_>) -> Option<Vars> {
    let (name, wave) = f
        .input
        .crds_in_git
        .get(&(f.key.group.clone(), f.key.kind.clone()))?;
    Some(vec![
        var("crd", name.clone()),
        var("crd_wave", wave.clone().unwrap_or_else(|| "0".into())),
    ])
}

/// No live object of this kind's CRD is in the input (and the kind is not built in).
pub(super) fn crd_missing_live(f: &Finding<'_>) -> Option<Vars> {
    if crate::k8s::root(&f.key.group, &f.key.kind).is_some()
        || f.key.group.is_empty()
        || !f.key.group.contains('.')
    {
        return None;
    }
    (!f.input
        .crds_live
        .contains(&(f.key.group.clone(), f.key.kind.clone())))
    .then(Vec::new)
}

/// The object carries an Argo CD sync wave or hook annotation (or a Helm hook).
pub(super) fn sync_wave_or_hook(f: &Finding<'_>) -> Option<Vars> {
    let obj = f.git_obj.or(f.live_obj)?;
    for key in [
        "argocd.argoproj.io/hook",
        "helm.sh/hook",
        "argocd.argoproj.io/sync-wave",
        "helm.sh/hook-weight",
    ] {
        if let Some(v) = annotation(obj, key) {
            return Some(vec![var("annotation", format!("{key}: {v}"))]);
        }
    }
    None
}

/// Hook annotations on the pod template of an object whose own metadata
/// carries none: Argo CD (and Helm) read a hook only from the object's
/// metadata, so this object is synced as an ordinary resource.
pub(super) fn hook_on_pod_template(f: &Finding<'_>) -> Option<Vars> {
    let obj = f.git_obj?;
    let template = obj.at("/spec/template/metadata/annotations")?.as_object()?;
    ["argocd.argoproj.io/hook", "helm.sh/hook"]
        .iter()
        .filter(|key| annotation(obj, key).is_none())
        .find_map(|key| {
            let v = template.get(*key)?.as_str()?;
            Some(vec![var("annotation", format!("{key}: {v}"))])
        })
}

/// A hook without a delete policy: the old hook object blocks the next run.
/// Git's object is looked at first; when it is not a hook, the live one is
/// (a Job that an earlier version of the chart ran as a hook stays behind).
pub(super) fn hook_without_delete_policy(f: &Finding<'_>) -> Option<Vars> {
    let check = |obj: &Value| -> Option<Vars> {
        let hook = annotation(obj, "argocd.argoproj.io/hook")
            .or_else(|| annotation(obj, "helm.sh/hook"))?;
        let policy = annotation(obj, "argocd.argoproj.io/hook-delete-policy")
            .or_else(|| annotation(obj, "helm.sh/hook-delete-policy"));
        policy.is_none().then(|| vec![var("hook", hook)])
    };
    f.git_obj
        .and_then(check)
        .or_else(|| f.live_obj.and_then(check))
}

/// A hook Job that runs before anything is applied failed live, so each
/// sync stops before reaching this object: `hook`.
pub(super) fn presync_hook_failed(f: &Finding<'_>) -> Option<Vars> {
    let hook = f.input.failed_presync_hook()?;
    Some(vec![var("hook", hook)])
}

/// The resource's namespace is created by the same app and is not live yet.
pub(super) fn namespace_created_by_app(f: &Finding<'_>) -> Option<Vars> {
    let present = f.input.namespaces_in_git.get(&f.key.namespace)?;
    (!present && f.presence == Presence::GitOnly).then(|| vec![var("ns", f.key.namespace.clone())])
}

/// The object is missing live, and so is every other object of the input
/// in its namespace, which Git does not declare: `ns` and `count`.
pub(super) fn namespace_absent(f: &Finding<'_>) -> Option<Vars> {
    if f.presence != Presence::GitOnly {
        return None;
    }
    let n = f.input.namespace_empty_live(&f.key.namespace)?;
    let count = if n == 1 {
        "the only object of the input there".to_string()
    } else {
        format!("none of the input's {n} objects there exists live")
    };
    Some(vec![
        var("ns", f.key.namespace.clone()),
        var("count", count),
    ])
}
