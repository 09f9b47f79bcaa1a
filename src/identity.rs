//! Resource identity: group, kind, namespace and name, as Argo CD pairs objects.
//! The API version is not part of the identity.

#![warn(missing_docs)]

use crate::path::Pointer;
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;

/// Which resource an object is: Argo CD pairs a Git and a live object when
/// their keys are equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceKey {
    /// The API group without version, in its current spelling (`` for core).
    pub group: String,
    /// The object's `kind`.
    pub kind: String,
    /// `metadata.namespace` (`` for cluster-scoped kinds).
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
}

impl fmt::Display for ResourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}/{}",
            self.group, self.kind, self.namespace, self.name
        )
    }
}

impl ResourceKey {
    /// `group/Kind` as Argo CD's ignoreDifferences and argocd-cm keys spell it.
    pub fn group_kind(&self) -> String {
        format!("{}/{}", self.group, self.kind)
    }
}

/// The API group of an `apiVersion` (`apps/v1` → `apps`, `v1` → ``).
pub fn api_group(api_version: &str) -> &str {
    match api_version.rfind('/') {
        Some(i) => &api_version[..i],
        None => "",
    }
}

pub use crate::k8s::current_group;

/// Legacy groups that serve the same kinds as today's groups, so that
/// `extensions/v1beta1` Deployments pair with `apps/v1` ones.
pub fn canonical_group(group: &str, kind: &str) -> String {
    current_group(group, kind).to_string()
}

/// Built-in and widely installed kinds that are cluster-scoped.
const CLUSTER_SCOPED: &[(&str, &str)] = &[
    ("", "Namespace"),
    ("", "Node"),
    ("", "PersistentVolume"),
    ("", "ComponentStatus"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("apiregistration.k8s.io", "APIService"),
    ("storage.k8s.io", "StorageClass"),
    ("storage.k8s.io", "CSIDriver"),
    ("storage.k8s.io", "CSINode"),
    ("storage.k8s.io", "VolumeAttachment"),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
    ),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
    ),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
    (
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicyBinding",
    ),
    ("scheduling.k8s.io", "PriorityClass"),
    ("networking.k8s.io", "IngressClass"),
    ("networking.k8s.io", "IPAddress"),
    ("networking.k8s.io", "ServiceCIDR"),
    ("node.k8s.io", "RuntimeClass"),
    ("policy", "PodSecurityPolicy"),
    ("certificates.k8s.io", "CertificateSigningRequest"),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
    ("gateway.networking.k8s.io", "GatewayClass"),
    ("cert-manager.io", "ClusterIssuer"),
    ("kyverno.io", "ClusterPolicy"),
    ("kyverno.io", "ClusterCleanupPolicy"),
    ("wgpolicyk8s.io", "ClusterPolicyReport"),
    ("external-secrets.io", "ClusterSecretStore"),
    ("external-secrets.io", "ClusterExternalSecret"),
    ("templates.gatekeeper.sh", "ConstraintTemplate"),
    ("config.gatekeeper.sh", "Config"),
    ("karpenter.sh", "NodePool"),
    ("karpenter.sh", "NodeClaim"),
    ("karpenter.k8s.aws", "EC2NodeClass"),
    ("snapshot.storage.k8s.io", "VolumeSnapshotClass"),
    ("snapshot.storage.k8s.io", "VolumeSnapshotContent"),
    ("metallb.io", "BGPPeer"),
    ("argoproj.io", "ClusterWorkflowTemplate"),
    ("monitoring.coreos.com", "ThanosRuler"),
];

/// What the input tells about scope beyond the built-in table: CRDs that
/// declare `spec.scope: Cluster`, and custom kinds whose live objects have no
/// namespace (the API server always writes the namespace of a namespaced
/// object, so a live object without one is cluster-scoped, and Argo CD then
/// ignores the namespace Git gives it).
#[derive(Debug, Default, Clone)]
pub struct ScopeTable {
    cluster_crds: BTreeSet<(String, String)>,
}

impl ScopeTable {
    /// Learn from one live object: a custom kind seen live without a
    /// namespace is cluster-scoped. Built-in kinds keep their known scope,
    /// so a hand-trimmed live Deployment does not change how all pair.
    pub fn learn_from_live(&mut self, obj: &Value) {
        self.learn_from(obj);
        let has_namespace = obj
            .at("/metadata/namespace")
            .and_then(Value::as_str)
            .is_some_and(|ns| !ns.is_empty());
        if has_namespace {
            return;
        }
        let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
        let group = canonical_group(
            api_group(obj.get("apiVersion").and_then(Value::as_str).unwrap_or("")),
            kind,
        );
        if !kind.is_empty() && crate::k8s::root(&group, kind).is_none() {
            self.cluster_crds.insert((group, kind.to_string()));
        }
    }

    /// Learn from a CustomResourceDefinition whose `spec.scope` is `Cluster`:
    /// its kind is cluster-scoped. Any other object teaches nothing.
    pub fn learn_from(&mut self, obj: &Value) {
        if obj.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
            return;
        }
        let spec = &obj["spec"];
        if spec["scope"].as_str() == Some("Cluster") {
            if let (Some(g), Some(k)) = (spec["group"].as_str(), spec["names"]["kind"].as_str()) {
                self.cluster_crds.insert((g.to_string(), k.to_string()));
            }
        }
    }

    /// Whether objects of this group and kind have no namespace: a built-in
    /// cluster-scoped kind, or one learnt from the input.
    pub fn is_cluster_scoped(&self, group: &str, kind: &str) -> bool {
        group == "constraints.gatekeeper.sh"
            || CLUSTER_SCOPED
                .iter()
                .any(|(g, k)| *g == group && *k == kind)
            || self
                .cluster_crds
                .contains(&(group.to_string(), kind.to_string()))
    }
}

/// The key of an object; namespaced objects without a namespace take
/// `default_namespace` (Argo CD's destination namespace) when given.
pub fn key_of(obj: &Value, scopes: &ScopeTable, default_namespace: Option<&str>) -> ResourceKey {
    let kind = obj
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let group = canonical_group(
        api_group(obj.get("apiVersion").and_then(Value::as_str).unwrap_or("")),
        &kind,
    );
    let name = obj
        .at("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let namespace = if scopes.is_cluster_scoped(&group, &kind) {
        String::new()
    } else {
        match obj.at("/metadata/namespace").and_then(Value::as_str) {
            Some(ns) if !ns.is_empty() => ns.to_string(),
            _ => default_namespace.unwrap_or("").to_string(),
        }
    };
    ResourceKey {
        group,
        kind,
        namespace,
        name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn versions_do_not_matter_and_legacy_groups_pair() {
        let s = ScopeTable::default();
        let a = key_of(
            &json!({"apiVersion":"extensions/v1beta1","kind":"Deployment","metadata":{"name":"x","namespace":"n"}}),
            &s,
            None,
        );
        let b = key_of(
            &json!({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x","namespace":"n"}}),
            &s,
            None,
        );
        assert_eq!(a, b);
        assert_eq!(a.to_string(), "apps/Deployment/n/x");
    }

    #[test]
    fn cluster_scoped_kinds_never_carry_a_namespace() {
        let mut s = ScopeTable::default();
        let k = key_of(
            &json!({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"view","namespace":"x"}}),
            &s,
            Some("d"),
        );
        assert_eq!(k.to_string(), "rbac.authorization.k8s.io/ClusterRole//view");
        s.learn_from(&json!({"kind":"CustomResourceDefinition","spec":{"scope":"Cluster","group":"example.com","names":{"kind":"Widget"}}}));
        let w = key_of(
            &json!({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}),
            &s,
            Some("d"),
        );
        assert_eq!(w.namespace, "");
        let svc = key_of(
            &json!({"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}}),
            &s,
            Some("shop"),
        );
        assert_eq!(svc.to_string(), "/Service/shop/s");
    }

    #[test]
    fn a_custom_kind_live_without_a_namespace_is_cluster_scoped() {
        let mut s = ScopeTable::default();
        let git = json!({"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g","namespace":"team"}});
        assert_eq!(key_of(&git, &s, None).namespace, "team");
        s.learn_from_live(
            &json!({"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"}}),
        );
        assert_eq!(key_of(&git, &s, None).namespace, "");
        // A built-in kind keeps its scope whatever a trimmed live copy says.
        s.learn_from_live(
            &json!({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}),
        );
        let d = json!({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"team"}});
        assert_eq!(key_of(&d, &s, None).namespace, "team");
    }
}
