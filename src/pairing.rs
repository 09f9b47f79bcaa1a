//! Pairing Git objects with live objects by identity, as Argo CD does: the
//! one place that decides which objects of the two sides are the same
//! resource, shared by the analysis and the page's YAML view, and which
//! objects Argo CD counts as the app's at all (hooks, skipped objects, what
//! controllers made and excluded kinds are not compared).

#![warn(missing_docs)]

use crate::identity::{key_of, ResourceKey, ScopeTable};
use crate::input::{Document, InputError, Side};
use crate::path::Pointer;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Both sides' objects by resource key. An object given twice with the same
/// content is kept once; what pairs is decided by the key alone.
pub struct Paired<'d> {
    /// The scope of every kind, learnt from both sides.
    pub scopes: ScopeTable,
    /// The Git objects by key.
    pub git: BTreeMap<ResourceKey, &'d Document>,
    /// The live objects by key.
    pub live: BTreeMap<ResourceKey, &'d Document>,
}

/// Key every object of both sides and pair them. Scope is learnt first from
/// the whole input (CRDs, custom kinds live without a namespace), so the
/// result does not depend on the order objects come in. A Git object of a
/// namespaced kind without a namespace (and no `namespace` default) pairs
/// with the one live object of that kind and name, when there is one.
/// Fails when one side holds the same object twice with different content:
/// which copy counts would depend on their order.
pub fn pair<'d>(
    git_docs: &'d [Document],
    live_docs: &'d [Document],
    namespace: Option<&str>,
) -> Result<Paired<'d>, InputError> {
    let mut scopes = ScopeTable::default();
    for d in git_docs {
        scopes.learn_from(&d.object);
    }
    for d in live_docs {
        scopes.learn_from_live(&d.object);
    }
    let ns = namespace.filter(|s| !s.is_empty());
    // Keying reads every object, so it runs on every core.
    let keyed = |docs: &'d [Document]| {
        crate::parallel::map_ordered(
            docs.iter().collect(),
            PARALLEL_KEYS,
            |_| 1,
            |d| (key_of(&d.object, &scopes, ns), d),
        )
    };
    let (live_keyed, mut git_keyed) = (keyed(live_docs), keyed(git_docs));
    let live = unique_by_key(live_keyed, Side::Live)?;
    // Live keys by group, kind and name, built when a Git object first
    // needs one: the unique live object it pairs with, if any.
    let mut by_name: Option<ByName> = None;
    for (key, _) in &mut git_keyed {
        if key.namespace.is_empty()
            && !scopes.is_cluster_scoped(&key.group, &key.kind)
            && !live.contains_key(key)
        {
            let index = by_name.get_or_insert_with(|| {
                let mut index = BTreeMap::new();
                for k in live.keys() {
                    index
                        .entry((k.group.as_str(), k.kind.as_str(), k.name.as_str()))
                        .and_modify(|only: &mut Option<&ResourceKey>| *only = None)
                        .or_insert(Some(k));
                }
                index
            });
            let wanted = (key.group.as_str(), key.kind.as_str(), key.name.as_str());
            if let Some(Some(only)) = index.get(&wanted) {
                *key = (*only).clone();
            }
        }
    }
    let git = unique_by_key(git_keyed, Side::Git)?;
    Ok(Paired { scopes, git, live })
}

/// Live keys by (group, kind, name): the one key of that name, or `None`
/// when several namespaces hold one.
type ByName<'k> = BTreeMap<(&'k str, &'k str, &'k str), Option<&'k ResourceKey>>;

/// Below this many objects keying them on one thread is quicker.
const PARALLEL_KEYS: usize = 512;

/// One side's objects by key. An object given twice is an error when the
/// copies differ (identical copies, as from a file pasted twice, change
/// nothing); the error names the first such copy in the side's order.
/// Sorting once and building the map from the sorted keys is quicker than
/// inserting the keys one by one.
fn unique_by_key(
    keyed: Vec<(ResourceKey, &Document)>,
    side: Side,
) -> Result<BTreeMap<ResourceKey, &Document>, InputError> {
    let mut keyed: Vec<(usize, ResourceKey, &Document)> = keyed
        .into_iter()
        .enumerate()
        .map(|(at, (key, doc))| (at, key, doc))
        .collect();
    // By key, then in the side's order: the first of equal keys is kept.
    crate::sorting::sort_by(&mut keyed, |a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
    let mut clash: Option<(usize, &ResourceKey, &Document, &Document)> = None;
    for run in keyed.chunk_by(|a, b| a.1 == b.1) {
        let (_, key, first) = &run[0];
        let differing = run[1..]
            .iter()
            .find(|(_, _, doc)| !crate::compare::json_eq(&first.hydrated(), &doc.hydrated()));
        if let Some((at, _, doc)) = differing {
            if clash.is_none_or(|(earliest, ..)| *at < earliest) {
                clash = Some((*at, key, first, doc));
            }
        }
    }
    if let Some((_, key, first, doc)) = clash {
        return Err(InputError {
            side,
            document: doc.document,
            line: doc.line,
            column: 1,
            message: format!(
                "{key} is given twice with different content (document {} at line {}, and here); \
                 Argo CD would apply one of them: remove the other",
                first.document, first.line
            ),
        });
    }
    keyed.dedup_by(|later, first| later.1 == first.1);
    // `collect`, not insertion: a side's thousands of keys, sorted already,
    // are built into the tree in bulk.
    Ok(keyed.into_iter().map(|(_, key, doc)| (key, doc)).collect())
}

/// The `resource.exclusions` of the `argocd-cm` Argo CD's install manifests
/// ship since 3.0 (argo-cd PR #21635, `manifests/base/config/argocd-cm.yaml`):
/// (API groups, kinds). Argo CD neither watches, compares nor syncs them; a
/// Git object of such a kind gives the Application an
/// `ExcludedResourceWarning`.
const STOCK_EXCLUSIONS: &[(&[&str], &[&str])] = &[
    (&["", "discovery.k8s.io"], &["Endpoints", "EndpointSlice"]),
    (&["coordination.k8s.io"], &["Lease"]),
    (
        &["authentication.k8s.io", "authorization.k8s.io"],
        &[
            "SelfSubjectReview",
            "TokenReview",
            "LocalSubjectAccessReview",
            "SelfSubjectAccessReview",
            "SelfSubjectRulesReview",
            "SubjectAccessReview",
        ],
    ),
    (&["certificates.k8s.io"], &["CertificateSigningRequest"]),
    (&["cert-manager.io"], &["CertificateRequest"]),
    (
        &["cilium.io"],
        &["CiliumIdentity", "CiliumEndpoint", "CiliumEndpointSlice"],
    ),
    (
        &["kyverno.io", "reports.kyverno.io", "wgpolicyk8s.io"],
        &[
            "PolicyReport",
            "ClusterPolicyReport",
            "EphemeralReport",
            "ClusterEphemeralReport",
            "AdmissionReport",
            "ClusterAdmissionReport",
            "BackgroundScanReport",
            "ClusterBackgroundScanReport",
            "UpdateRequest",
        ],
    ),
];

/// Whether the stock `argocd-cm` of this release excludes the kind.
pub fn excluded_by_stock_settings(release: crate::ArgoCdRelease, group: &str, kind: &str) -> bool {
    release.has(crate::argocd_release::Behaviour::DefaultResourceExclusions)
        && made_by_controllers(group, kind)
}

/// Whether the kind is one the cluster's controllers make from other
/// objects and no app declares: the kinds Argo CD's stock `argocd-cm`
/// excludes from 3.0 for that reason, whatever the release.
pub fn made_by_controllers(group: &str, kind: &str) -> bool {
    STOCK_EXCLUSIONS
        .iter()
        .any(|(groups, kinds)| groups.contains(&group) && kinds.contains(&kind))
}

/// Whether Argo CD leaves this kind out: by the pasted `argocd-cm`'s
/// filter when one was given, else by the stock settings of the release.
pub fn excluded_kind(copts: &crate::compare::CompareOptions, group: &str, kind: &str) -> bool {
    match &copts.resource_filter {
        Some(filter) => filter.excludes(group, kind),
        None => excluded_by_stock_settings(copts.release, group, kind),
    }
}

// Which live objects Argo CD counts as the app's: hooks, skipped objects
// and what controllers made are left out of the comparison.

/// The values of a comma-separated annotation, trimmed, without empties.
fn annotation_csv<'a>(obj: &'a Value, key: &str) -> Vec<&'a str> {
    obj.at("/metadata/annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// Argo CD's hook annotation names only `Skip` among the phases it knows
/// (gitops-engine `hook.Skip`, `common.NewHookType`): a resource kept out
/// of syncs and of the sync status, not a hook.
pub(crate) fn is_skipped(obj: &Value) -> bool {
    let known: Vec<&str> = annotation_csv(obj, "argocd.argoproj.io/hook")
        .into_iter()
        .filter(|t| ["PreSync", "Sync", "PostSync", "SyncFail", "Skip"].contains(t))
        .collect();
    !known.is_empty() && known.iter().all(|t| *t == "Skip")
}

/// argo-cd `controller/hook.go` `isHook`: gitops-engine `hook.IsHook` (an
/// Argo CD hook annotation unless it only says `Skip`; a Helm hook unless it
/// is `crd-install`, which Helm calls a hook but Argo CD applies as a
/// resource) or a PreDelete/PostDelete hook of either annotation.
pub(crate) fn is_hook(obj: &Value) -> bool {
    let annotations = obj.at("/metadata/annotations");
    let argo = annotation_csv(obj, "argocd.argoproj.io/hook");
    let helm = annotation_csv(obj, "helm.sh/hook");
    let sync_hook = if annotations
        .and_then(|a| a.get("argocd.argoproj.io/hook"))
        .is_some()
    {
        !is_skipped(obj)
    } else {
        annotations
            .and_then(|a| a.get("helm.sh/hook"))
            .is_some_and(|v| v.as_str() != Some("crd-install"))
    };
    sync_hook
        || argo.iter().any(|t| ["PreDelete", "PostDelete"].contains(t))
        || helm
            .iter()
            .any(|t| ["pre-delete", "post-delete"].contains(t))
}

/// Objects a controller created, that Argo CD never counts as part of the app.
pub(crate) fn created_by_controller(
    key: &ResourceKey,
    obj: &Value,
    service_names: &BTreeSet<(&str, &str)>,
) -> bool {
    if obj
        .at("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .is_some_and(|o| !o.is_empty())
    {
        return true;
    }
    // Pods, ReplicaSets and ControllerRevisions that a controller made carry
    // its ownerReference; without one, Argo CD keeps an app's object of any
    // kind (gitops-engine `GetManagedLiveObjs`), so a bare Pod is extraneous.
    match (key.group.as_str(), key.kind.as_str()) {
        ("", "Event")
        | ("events.k8s.io", "Event")
        | ("coordination.k8s.io", "Lease")
        | ("discovery.k8s.io", "EndpointSlice") => true,
        ("", "Endpoints") => service_names.contains(&(key.namespace.as_str(), key.name.as_str())),
        ("", "ConfigMap") => key.name == "kube-root-ca.crt" || key.name == "istio-ca-root-cert",
        ("", "ServiceAccount") => key.name == "default",
        ("", "Secret") => {
            obj.get("type").and_then(Value::as_str) == Some("kubernetes.io/service-account-token")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::parse_side;

    #[test]
    fn a_pasted_filter_replaces_the_stock_exclusions() {
        let rule = |groups: &[&str], kinds: &[&str]| crate::compare::FilteredResource {
            api_groups: groups.iter().map(|s| s.to_string()).collect(),
            kinds: kinds.iter().map(|s| s.to_string()).collect(),
            clusters: Vec::new(),
        };
        let f = crate::compare::ResourceFilter {
            exclusions: vec![rule(&["*.crossplane.io"], &["*"]), rule(&[""], &["Secret"])],
            inclusions: Vec::new(),
        };
        assert!(f.excludes("pkg.crossplane.io", "Provider"));
        assert!(f.excludes("", "Secret"));
        assert!(!f.excludes("", "ConfigMap"));
        // Stock exclusions are gone, core ones stay.
        assert!(!f.excludes("discovery.k8s.io", "EndpointSlice"));
        assert!(f.excludes("", "Event"));
        let only_apps = crate::compare::ResourceFilter {
            exclusions: Vec::new(),
            inclusions: vec![rule(&["apps"], &[])],
        };
        assert!(!only_apps.excludes("apps", "Deployment"));
        assert!(only_apps.excludes("", "ConfigMap"));
    }

    #[test]
    fn pairs_by_identity_whatever_the_order() {
        let a = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: n\n";
        let b =
            "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: team\n";
        let live_b = "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n";
        let git = parse_side(&format!("{a}---\n{b}"), Side::Git).unwrap();
        let git_reversed = parse_side(&format!("{b}---\n{a}"), Side::Git).unwrap();
        let live = parse_side(&format!("{live_b}---\n{a}"), Side::Live).unwrap();
        for g in [&git, &git_reversed] {
            let paired = pair(g, &live, None).unwrap();
            let keys: Vec<String> = paired.git.keys().map(|k| k.to_string()).collect();
            assert_eq!(keys, ["/ConfigMap/n/a", "example.com/Gadget//g"]);
            assert!(paired.git.keys().all(|k| paired.live.contains_key(k)));
        }
    }

    #[test]
    fn a_git_object_without_namespace_pairs_with_the_only_live_object_of_its_name() {
        let cm = |name: &str, ns: &str| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {ns}\n"
            )
        };
        let git = parse_side(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n---\n\
             apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n",
            Side::Git,
        )
        .unwrap();
        let live_text = [cm("one", "team"), cm("two", "a"), cm("two", "b")].join("---\n");
        let live = parse_side(&live_text, Side::Live).unwrap();
        let paired = pair(&git, &live, None).unwrap();
        let keys: Vec<String> = paired.git.keys().map(|k| k.to_string()).collect();
        // `two` is in two namespaces live: which one Git means is unknown.
        assert_eq!(keys, ["/ConfigMap//two", "/ConfigMap/team/one"]);
    }

    #[test]
    fn an_object_given_twice_alike_is_kept_once_and_differing_copies_are_refused() {
        let a = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: n\n";
        let twice = parse_side(&format!("{a}---\n{a}"), Side::Git).unwrap();
        assert_eq!(pair(&twice, &[], None).unwrap().git.len(), 1);
        let changed = format!("{a}---\n{a}data:\n  k: v\n");
        let differing = parse_side(&changed, Side::Git).unwrap();
        let Err(error) = pair(&differing, &[], None) else {
            panic!("differing copies of one object are refused");
        };
        assert_eq!((error.side, error.document), (Side::Git, 2));
        assert!(
            error.message.contains("given twice with different content"),
            "{}",
            error.message
        );
    }
}
