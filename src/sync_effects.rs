//! What the sync that applies a Git fix does on the way to its result.
//!
//! Comparing again with a fix applied proves the state after the next sync;
//! this module looks at the sync itself. Argo CD's client-side apply sends a
//! three-way patch: a field the live object's last-applied annotation holds
//! and the new Git object lacks is deleted live, and the API server then
//! fills its default (Kubernetes documents the hazard for `spec.replicas` in
//! "Migrating Deployments and StatefulSets to horizontal autoscaling": the
//! Deployment drops to one replica). A changed pod template rolls the pods;
//! a changed immutable field fails the sync.
//!
//! Server-side apply removes instead what Argo CD's manager owns through
//! `Apply` (from `managedFields`) and the new Git lacks; fields it owns
//! through `Update` stay.
//!
//! An ignore fix changes what a sync sends too. Without
//! `RespectIgnoreDifferences=true` the rule hides the difference but every
//! sync still applies Git's value; with it, Argo CD copies the live values
//! of the ignored fields into the applied object (`controller/sync.go`),
//! with the release-specific limits of [`of_ignore_fix`].
//!
//! Limits: lists are compared whole (a removed list item is not followed
//! into the list), and only the API server's defaults drift-doctor's schema
//! tables know are predicted.

use crate::argocd_release::Behaviour;
use crate::context::CrdVersion;
use crate::identity::ResourceKey;
use crate::model::{SyncEffect, SyncEffectKind};
use crate::path::{self, Pointer, Seg};
use serde_json::Value;

/// Kinds whose `spec.template` is a pod template: a change to it rolls the pods.
const POD_TEMPLATE_KINDS: &[(&str, &str)] = &[
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("apps", "ReplicaSet"),
    ("argoproj.io", "Rollout"),
];

/// Fields the API server refuses to change after creation (the sync fails).
const IMMUTABLE: &[(&str, &str, &str)] = &[
    ("apps", "Deployment", "/spec/selector"),
    ("apps", "StatefulSet", "/spec/selector"),
    ("apps", "DaemonSet", "/spec/selector"),
    ("apps", "ReplicaSet", "/spec/selector"),
    ("apps", "StatefulSet", "/spec/volumeClaimTemplates"),
    ("apps", "StatefulSet", "/spec/serviceName"),
    ("apps", "StatefulSet", "/spec/podManagementPolicy"),
    ("batch", "Job", "/spec/selector"),
    ("batch", "Job", "/spec/template"),
    ("", "Service", "/spec/clusterIP"),
    ("", "PersistentVolumeClaim", "/spec/accessModes"),
    ("", "PersistentVolumeClaim", "/spec/storageClassName"),
    ("", "PersistentVolumeClaim", "/spec/volumeName"),
    ("rbac.authorization.k8s.io", "RoleBinding", "/roleRef"),
    (
        "rbac.authorization.k8s.io",
        "ClusterRoleBinding",
        "/roleRef",
    ),
];

/// The effects of syncing `new_git` over `live`, Argo CD applying as
/// `manager`.
pub fn of_git_change(
    key: &ResourceKey,
    new_git: &Value,
    live: &Value,
    manager: &str,
) -> Vec<SyncEffect> {
    let mut effects = Vec::new();
    // Client-side apply deletes what its last-applied annotation holds;
    // server-side apply what the manager owns through `Apply`.
    let applied = crate::k8s::last_applied(live)
        .or_else(|| crate::managed_fields::applied_skeleton(live, manager));
    if let Some(applied) = applied.filter(Value::is_object) {
        let mut deleted = Vec::new();
        removed_by_three_way_patch(&applied, new_git, &mut Vec::new(), &mut deleted);
        for segs in deleted {
            if let Some(v) = path::get(live, &segs) {
                effects.extend(deletion_effect(key, &segs, v, live));
            }
        }
    }
    for &(group, kind, pointer) in IMMUTABLE {
        if key.group != group || key.kind != kind {
            continue;
        }
        let (now, then) = (live.at(pointer), new_git.at(pointer));
        if let (Some(now), Some(then)) = (now, then) {
            if !crate::compare::json_eq(now, then) {
                effects.push(SyncEffect {
                    kind: SyncEffectKind::SyncFails,
                    pointer: pointer.to_string(),
                    message: format!(
                        "The sync fails: {} cannot change once the {} exists, so the API server refuses the apply (the sync retries and fails again until the object is replaced).",
                        path::dotted(&path::parse_pointer(pointer)),
                        key.kind
                    ),
                });
            }
        }
    }
    let rolls = POD_TEMPLATE_KINDS.contains(&(key.group.as_str(), key.kind.as_str()))
        && effects
            .iter()
            .any(|e| e.pointer.starts_with("/spec/template/"));
    if rolls {
        effects.push(SyncEffect {
            kind: SyncEffectKind::PodsRestart,
            pointer: "/spec/template".into(),
            message: format!(
                "The sync changes the {}'s pod template, so its pods are replaced (a rolling restart).",
                key.kind
            ),
        });
    }
    effects
}

/// The effects of the syncs that follow an ignore fix hiding `ignored` (the
/// fields the rule covers on this object), with `respect` when the fix
/// sets `RespectIgnoreDifferences=true`, on Argo CD `release`.
/// `crd` is the custom resource's CRD version from the input, when it is
/// there (it tells which lists its schema keys).
pub fn of_ignore_fix(
    key: &ResourceKey,
    git: &Value,
    live: &Value,
    ignored: &[Vec<Seg>],
    respect: bool,
    release: crate::ArgoCdRelease,
    crd: Option<&CrdVersion>,
) -> Vec<SyncEffect> {
    let mut effects = Vec::new();
    if !respect {
        // The rule hides the difference from the comparison only: the
        // next sync (auto-sync after any other change, or a manual one)
        // still writes Git's value.
        for segs in ignored {
            let (Some(g), Some(l)) = (path::get(git, segs), path::get(live, segs)) else {
                continue;
            };
            if crate::compare::json_eq(g, l) {
                continue;
            }
            let pointer = path::pointer(segs);
            if pointer == "/spec/replicas" && g.as_f64() < l.as_f64() {
                effects.push(SyncEffect {
                    kind: SyncEffectKind::CapacityDrop,
                    pointer,
                    message: format!(
                        "The rule hides spec.replicas from the comparison only: every later sync still applies Git's {} and the {} drops from {} until its scaler scales it back. Add RespectIgnoreDifferences=true so a sync keeps the live count.",
                        crate::text::value_text(g),
                        key.kind,
                        replicas(l)
                    ),
                });
            } else if pointer.starts_with("/spec/template/")
                && POD_TEMPLATE_KINDS.contains(&(key.group.as_str(), key.kind.as_str()))
            {
                effects.push(SyncEffect {
                    kind: SyncEffectKind::PodsRestart,
                    pointer,
                    message: format!(
                        "The rule hides {} from the comparison only: every later sync writes Git's value into the pod template, so the pods roll each time its other writer puts its own value back.",
                        path::dotted(segs)
                    ),
                });
            }
        }
        return effects;
    }
    let secret = key.group.is_empty() && key.kind == "Secret";
    let keys_one_by_one = ignored
        .iter()
        .any(|s| matches!(s.as_slice(), [Seg::Key(d), Seg::Key(_), ..] if d == "data"));
    if secret && git.get("stringData").is_some() && keys_one_by_one {
        effects.push(SyncEffect {
            kind: SyncEffectKind::DataDeleted,
            pointer: "/data".into(),
            message: "With RespectIgnoreDifferences=true, a Secret written with stringData whose data keys are ignored one by one is applied without its data (argo-cd #29644, open in every release so far): the sync deletes the Secret's keys. Ignore /data whole, or write the Secret with data instead of stringData.".into(),
        });
    }
    let pdb = key.group == "policy" && key.kind == "PodDisruptionBudget";
    if pdb && git.at("/spec/selector").is_some() {
        if let Some(when) = lacking(
            release,
            Behaviour::RespectIgnoreDifferencesKeepsReplacedFields,
        ) {
            effects.push(SyncEffect {
                kind: SyncEffectKind::ResetToDefault,
                pointer: "/spec/selector".into(),
                message: format!(
                    "{when}, RespectIgnoreDifferences=true replaces a PodDisruptionBudget's spec.selector with the ignored fields' live values alone (argo-cd #27136; the selector's patch strategy is replace): the sync can leave the budget selecting no pods. Upgrade, or use the rule without RespectIgnoreDifferences."
                ),
            });
        }
    }
    // Argo CD's manager applied the object server-side before, so it will
    // again, and a status in what it sends becomes its own.
    let applied_server_side =
        crate::managed_fields::applied_skeleton(live, ARGOCD_MANAGER).is_some();
    if applied_server_side && live.get("status").is_some() && lacks_status_subresource(key, crd) {
        if let Some(when) = lacking(release, Behaviour::RespectIgnoreDifferencesLeavesStatus) {
            effects.push(SyncEffect {
                kind: SyncEffectKind::StatusFrozen,
                pointer: "/status".into(),
                message: format!(
                    "{when}, RespectIgnoreDifferences=true copies the live status into the object Argo CD applies server-side (argo-cd PR #28201): Argo CD's manager becomes an owner of status, and on a {} without a status subresource the status stops following its controller (a stale status.operationState, on an Application). Upgrade, or use the rule without RespectIgnoreDifferences.",
                    key.kind
                ),
            });
        }
    }
    if !crate::k8s::typed_in_argo_cd(&key.group, &key.kind) {
        effects.extend(custom_resource_lists_copied(
            key, git, live, ignored, release, crd,
        ));
    }
    effects
}

/// Argo CD's field manager for its own applies (`ArgoCDSSAManager`).
const ARGOCD_MANAGER: &str = "argocd-controller";

/// When `release` lacks a fix of the table, the words that say so ("On Argo
/// CD 3.4.3", or "On Argo CD 3.4 before 3.4.5" for a bare line); `None`
/// when it has it.
fn lacking(release: crate::ArgoCdRelease, fix: Behaviour) -> Option<String> {
    match release.decides(fix) {
        Some(true) => None,
        Some(false) => Some(format!("On Argo CD {release}")),
        None => {
            let first = crate::argocd_release::change(fix).and_then(|c| {
                c.first_releases()
                    .into_iter()
                    .find(|f| f.line() == release.line())
            });
            Some(match first {
                Some(first) => format!("On Argo CD {release} before {first}"),
                None => format!("On Argo CD {release}"),
            })
        }
    }
}

/// A kind whose status is written with the object itself: a custom
/// resource whose CRD (in the input) enables no status subresource, or Argo
/// CD's own Application, whose CRD has none.
fn lacks_status_subresource(key: &ResourceKey, crd: Option<&CrdVersion>) -> bool {
    if crate::k8s::typed_in_argo_cd(&key.group, &key.kind) {
        return false;
    }
    match crd {
        Some(version) => !version.status_subresource,
        None => key.group == "argoproj.io" && key.kind == "Application",
    }
}

/// How `RespectIgnoreDifferences=true` copies a custom resource's ignored
/// list items from live: `Some(true)` merged item by item where the CRD's
/// schema keys the list (argo-cd PR #24197, in 3.2.0 only: PR #25294
/// reverted it for 3.2.1; PR #28220 again from 3.6), `Some(false)` the
/// whole list copied (`controller/sync.go` `normalizeTargetResources`: a
/// kind outside client-go's scheme gets a JSON merge patch, which replaces
/// lists), `None` when the release names only the 3.2 line.
fn crd_lists_merged_by_schema(release: crate::ArgoCdRelease) -> Option<bool> {
    use crate::ArgoCdRelease;
    if release.line() >= ArgoCdRelease::new(3, 6) {
        Some(true)
    } else if release.line() == ArgoCdRelease::new(3, 2) {
        release.patch.map(|p| p == 0)
    } else {
        Some(false)
    }
}

/// The lists of a custom resource that `RespectIgnoreDifferences=true`
/// copies from live whole because an ignored field lies inside them: Git's
/// other changes to such a list never reach the cluster.
fn custom_resource_lists_copied(
    key: &ResourceKey,
    git: &Value,
    live: &Value,
    ignored: &[Vec<Seg>],
    release: crate::ArgoCdRelease,
    crd: Option<&CrdVersion>,
) -> Vec<SyncEffect> {
    // The outermost list on each ignored path: a JSON merge patch replaces it.
    let mut lists: Vec<&[Seg]> = ignored
        .iter()
        .filter_map(|segs| {
            let at = segs.iter().position(|s| matches!(s, Seg::Item { .. }))?;
            Some(&segs[..at])
        })
        .collect();
    crate::sorting::sort_by_key(&mut lists, |l| path::pointer(l));
    lists.dedup();
    let merged = crd_lists_merged_by_schema(release);
    let mut effects = Vec::new();
    for list in lists {
        let keyed = crd.map(|c| c.keys_list(list));
        let when = match (merged, keyed) {
            (Some(true), Some(true)) => continue,
            (Some(true), Some(false)) => format!(
                "Argo CD {release} merges a custom resource's lists item by item only where its CRD keys them (x-kubernetes-list-map-keys; argo-cd PR #28220), and this CRD does not key it, so"
            ),
            (Some(true), None) => format!(
                "Unless the CRD keys the list by x-kubernetes-list-map-keys (Argo CD {release} then merges it item by item, argo-cd PR #28220),"
            ),
            (None, _) => format!(
                "On Argo CD {release} after 3.2.0 (3.2.0 merged lists its CRD keys, argo-cd PR #24197, reverted in 3.2.1 by PR #25294),"
            ),
            (Some(false), _) => format!(
                "On Argo CD {release}, a custom resource is patched as JSON (its kind is not in client-go's scheme; lists are merged by the CRD's schema only in 3.2.0 and from 3.6), so"
            ),
        };
        let (Some(git_list), Some(live_list)) = (path::get(git, list), path::get(live, list))
        else {
            continue;
        };
        let (mut git_rest, mut live_rest) = (git_list.clone(), live_list.clone());
        let mut inside: Vec<&[Seg]> = ignored
            .iter()
            .filter(|s| s.starts_with(list))
            .map(|s| &s[list.len()..])
            .collect();
        // Later items first, so removing an item leaves the others' indexes.
        let order = |segs: &[Seg]| -> Vec<(String, usize)> {
            segs.iter()
                .map(|s| match s {
                    Seg::Key(k) => (k.clone(), 0),
                    Seg::Item { index, .. } => (String::new(), index.unwrap_or(0)),
                })
                .collect()
        };
        crate::sorting::sort_by_key(&mut inside, |rel| std::cmp::Reverse(order(rel)));
        for rel in inside {
            path::set(&mut git_rest, rel, None);
            path::set(&mut live_rest, rel, None);
        }
        let held = !crate::compare::json_eq(&git_rest, &live_rest);
        let name = path::dotted(list);
        // Held for certain: the list is copied whole on this release, or the
        // CRD says the schema-driven merge leaves it whole too.
        let certain = merged != Some(true) || keyed == Some(false);
        let (kind, consequence) = if held && certain {
            (
                SyncEffectKind::GitChangesHeld,
                format!("Git's other changes to {name} never reach the cluster and the {} stays OutOfSync. Sync those changes first, or ignore the field without RespectIgnoreDifferences.", key.kind),
            )
        } else {
            (
                SyncEffectKind::ListCopiedWhole,
                format!("while the rule is in place, a later Git change to another item of {name} never reaches the cluster."),
            )
        };
        effects.push(SyncEffect {
            kind,
            pointer: path::pointer(list),
            message: format!(
                "{when} with RespectIgnoreDifferences=true every sync copies {name} from live whole: {consequence}"
            ),
        });
    }
    effects
}

/// Paths of fields the last-applied configuration holds and the new Git
/// object lacks: the three-way patch deletes them. Lists count whole.
fn removed_by_three_way_patch(
    applied: &Value,
    new_git: &Value,
    at: &mut Vec<Seg>,
    out: &mut Vec<Vec<Seg>>,
) {
    let Value::Object(a) = applied else {
        return;
    };
    for (k, av) in a {
        // Metadata the sync writes itself (tracking, the annotation) or
        // that harms no workload; status is the controllers'.
        if at.is_empty() && matches!(k.as_str(), "status" | "apiVersion" | "kind" | "metadata") {
            continue;
        }
        at.push(Seg::key(k));
        match new_git.get(k) {
            None => out.push(at.clone()),
            Some(gv) if av.is_object() && gv.is_object() => {
                removed_by_three_way_patch(av, gv, at, out)
            }
            Some(_) => {}
        }
        at.pop();
    }
}

fn deletion_effect(
    key: &ResourceKey,
    segs: &[Seg],
    live_value: &Value,
    live: &Value,
) -> Option<SyncEffect> {
    let pointer = path::pointer(segs);
    let field = path::dotted(segs);
    let now = crate::text::value_text(live_value);
    let default = crate::k8s::default_for(&key.group, &key.kind, &without(live, segs), &pointer);
    match default {
        Some(d) if crate::compare::json_eq(&d, live_value) => None,
        Some(d) if pointer == "/spec/replicas" => Some(SyncEffect {
            kind: SyncEffectKind::CapacityDrop,
            pointer,
            message: format!(
                "The next sync deletes spec.replicas: the last-applied annotation still holds it, so Argo CD's three-way patch removes it, and the API server sets it to its default {}. The {} drops from {now} to {} until its autoscaler scales it back. Keep the field out of the apply first (the ignore rule with RespectIgnoreDifferences=true copies the live count into every sync, or `kubectl apply edit-last-applied` removes it from the annotation), then remove it from Git.",
                crate::text::value_text(&d),
                key.kind,
                replicas(&d)
            ),
        }),
        Some(d) => Some(SyncEffect {
            kind: SyncEffectKind::ResetToDefault,
            pointer,
            message: format!(
                "The next sync deletes {field} (the last-applied annotation still holds it) and the API server sets it to its default {}, where it is {now} now.",
                crate::text::value_text(&d)
            ),
        }),
        None if key.group.is_empty()
            && matches!(key.kind.as_str(), "ConfigMap" | "Secret")
            && matches!(segs.first(), Some(Seg::Key(k)) if k == "data" || k == "stringData" || k == "binaryData") =>
        {
            Some(SyncEffect {
                kind: SyncEffectKind::DataDeleted,
                pointer,
                message: format!(
                    "The next sync deletes {field} from the {} (the last-applied annotation still holds it): whatever reads that key loses it.",
                    key.kind
                ),
            })
        }
        None => Some(SyncEffect {
            kind: SyncEffectKind::FieldDeleted,
            pointer,
            message: format!(
                "The next sync deletes {field} live (the last-applied annotation still holds it), until whoever writes it writes it again."
            ),
        }),
    }
}

/// The live object without the field, as the API server sees it before defaulting.
fn without(live: &Value, segs: &[Seg]) -> Value {
    let mut out = live.clone();
    path::set(&mut out, segs, None);
    out
}

/// `1 replica`, `3 replicas`.
fn replicas(n: &Value) -> String {
    match n.as_u64() {
        Some(1) => "1 replica".to_string(),
        _ => format!("{} replicas", crate::text::value_text(n)),
    }
}
