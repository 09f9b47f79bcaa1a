//! The security policy of fixes: fields and kinds whose changes matter for
//! security. An ignore rule over them could hide a privilege escalation or a
//! swapped workload, so no ignore fix is ever proposed for them, whatever
//! explained the difference.

use crate::identity::ResourceKey;
use crate::path::{self, PathPattern};
use std::sync::OnceLock;

/// Fields whose changes matter for security, each with why: an ignore rule
/// over them could hide a privilege escalation or a swapped workload, so
/// drift-doctor never proposes one. Every kind of container (regular, init,
/// ephemeral) is covered alike.
pub const SENSITIVE_PATHS: &[(&str, &str)] = &[
    (
        "**/securityContext",
        "privileges and user of a pod or container",
    ),
    (
        "**/securityContext/**",
        "privileges and user of a pod or container",
    ),
    ("**/privileged", "a privileged container owns the node"),
    (
        "**/allowPrivilegeEscalation",
        "lets a process gain more privileges than its parent",
    ),
    (
        "**/capabilities/**",
        "Linux capabilities granted to a container",
    ),
    (
        "**/hostNetwork",
        "the pod joins the node's network namespace",
    ),
    ("**/hostPID", "the pod sees the node's processes"),
    ("**/hostIPC", "the pod shares the node's IPC namespace"),
    ("**/hostPath", "the pod mounts the node's filesystem"),
    ("**/hostPath/**", "the pod mounts the node's filesystem"),
    ("**/serviceAccountName", "the identity the pod runs as"),
    ("**/serviceAccount", "the identity the pod runs as"),
    (
        "**/automountServiceAccountToken",
        "whether the pod gets an API token",
    ),
    ("**/containers/*/image", "which code runs"),
    ("**/initContainers/*/image", "which code runs"),
    ("**/ephemeralContainers/*/image", "which code runs"),
    ("**/containers/*/command", "what the container executes"),
    ("**/containers/*/command/**", "what the container executes"),
    ("**/containers/*/args", "what the container executes"),
    ("**/containers/*/args/**", "what the container executes"),
    ("**/initContainers/*/command", "what the container executes"),
    (
        "**/initContainers/*/command/**",
        "what the container executes",
    ),
    ("**/initContainers/*/args", "what the container executes"),
    ("**/initContainers/*/args/**", "what the container executes"),
    (
        "**/ephemeralContainers/*/command",
        "what the container executes",
    ),
    (
        "**/ephemeralContainers/*/command/**",
        "what the container executes",
    ),
    (
        "**/ephemeralContainers/*/args",
        "what the container executes",
    ),
    (
        "**/ephemeralContainers/*/args/**",
        "what the container executes",
    ),
];

/// Kinds whose every field is security-relevant (RBAC and network policy);
/// an aggregated ClusterRole's `rules` are the exception, since the
/// aggregation controller writes them.
const SENSITIVE_KINDS: &[(&str, &str)] = &[
    ("rbac.authorization.k8s.io/Role", "who may do what"),
    ("rbac.authorization.k8s.io/ClusterRole", "who may do what"),
    ("rbac.authorization.k8s.io/RoleBinding", "who gets a role"),
    (
        "rbac.authorization.k8s.io/ClusterRoleBinding",
        "who gets a role",
    ),
    (
        "networking.k8s.io/NetworkPolicy",
        "which traffic is allowed",
    ),
];

/// [`SENSITIVE_PATHS`], parsed once.
fn sensitive_patterns() -> &'static [(PathPattern, &'static str)] {
    static PATTERNS: OnceLock<Vec<(PathPattern, &'static str)>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        SENSITIVE_PATHS
            .iter()
            .map(|(p, why)| (PathPattern::parse(p), *why))
            .collect()
    })
}

/// Why ignoring this field could hide a security-relevant change, or None.
pub fn sensitive_reason(key: &ResourceKey, pointer: &str) -> Option<&'static str> {
    let gk = key.group_kind();
    if let Some((_, why)) = SENSITIVE_KINDS.iter().find(|(k, _)| *k == gk) {
        if !(pointer == "/rules" || pointer.starts_with("/rules/")) {
            return Some(why);
        }
    }
    if key.kind == "Secret" && key.group.is_empty() && pointer.is_empty() {
        return None;
    }
    let toks = path::split_pattern(pointer);
    sensitive_patterns()
        .iter()
        .find(|(p, _)| p.matches(&toks))
        .map(|(_, why)| *why)
}

/// Whether ignoring this field could hide a security-relevant change.
pub fn is_sensitive(key: &ResourceKey, pointer: &str) -> bool {
    sensitive_reason(key, pointer).is_some()
}
