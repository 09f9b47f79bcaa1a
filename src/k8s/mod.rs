//! Knowledge about Kubernetes built-in kinds that the diff needs.
//!
//! * The schema: for every built-in kind, which fields are lists and how they merge under
//!   strategic merge patch (merge keys, sets, atomic lists), which are maps, and which leaves are
//!   `Quantity` or `IntOrString`. The facts come from the Kubernetes OpenAPI definitions
//!   (PyPI `kubernetes-validate==1.37.0`), turned into `schema_data.json` by
//!   `scripts/gen_k8s_schema.py` and embedded here; the data is parsed once, lazily.
//! * Value canonicalisation the way Argo CD's `remarshal` does it: resource quantities in their
//!   canonical Kubernetes string form (`k8s.io/apimachinery` `resource.Quantity`), integral
//!   `IntOrString` numbers as integers, Go `time.Duration` strings for `meta/v1/Duration`, and
//!   the `omitempty` zero values the round trip drops: per schema type, the non-pointer
//!   `omitempty` fields of the k8s.io/api and k8s.io/apimachinery Go types, turned into
//!   `omitempty_data.json` by `scripts/gen_omitempty.py`.
//! * API-server defaulting of built-in kinds, as a table of rules per schema type (so every
//!   place a `PodSpec`, `Container`, `Probe`... appears gets them), and `default_for` to explain
//!   a live-only value as "a server default".
//! * A custom resource's CRD schema: the `default` values the API server fills in and the lists
//!   it keys (`crd_schema`).
//!
//! Everything here is pure (no I/O, no clock) and never panics on any input.

#![warn(missing_docs)]

mod crd_schema;
mod defaults;
mod duration;
mod known_types;
mod quantity;
mod schema;

pub use crd_schema::{
    apply_schema_defaults, crd_keyed_lists, crd_schema_has_default, preserves_unknown_above,
    schema_default_at,
};
pub use defaults::{apply_defaults, default_for};
pub(crate) use duration::parse_go_duration;
pub use known_types::{
    drop_omitted_zero_values, normalize_as_type, normalize_known_types, normalize_typed,
};
pub use quantity::canonical_quantity;
pub use schema::{root, Cursor, ListStrategy};

/// The annotation in which `kubectl apply` stores the whole applied object (so, for a Secret,
/// its data); the three-way diff reads its original from it.
pub const LAST_APPLIED_ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The object's last-applied configuration (what `kubectl apply` and Argo
/// CD's client-side apply last sent), when it holds a readable JSON object.
pub fn last_applied(obj: &serde_json::Value) -> Option<serde_json::Value> {
    let text = obj
        .pointer("/metadata/annotations")?
        .get(LAST_APPLIED_ANNOTATION)?
        .as_str()?;
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .filter(serde_json::Value::is_object)
}

/// The group that serves `kind` today, for a group without version (legacy `extensions` kinds
/// moved; every other group is its own).
pub fn current_group<'a>(group: &'a str, kind: &str) -> &'a str {
    match (group, kind) {
        ("extensions", "Deployment" | "DaemonSet" | "ReplicaSet" | "StatefulSet") => "apps",
        ("extensions", "Ingress" | "NetworkPolicy") => "networking.k8s.io",
        ("extensions", "PodSecurityPolicy") => "policy",
        _ => group,
    }
}

/// API groups of built-in kinds whose Go types client-go's scheme does not register (they live in
/// apiextensions-apiserver and kube-aggregator). gitops-engine's `remarshal` finds no type for
/// them, so Argo CD neither round-trips them through typed structs (their `omitempty` zero values
/// stay) nor patches them strategically: they get a JSON merge patch, like custom resources.
const OUTSIDE_CLIENT_GO_SCHEME: &[&str] = &["apiextensions.k8s.io", "apiregistration.k8s.io"];

/// Whether Argo CD's legacy diff handles this kind as a typed object: a built-in kind whose
/// group client-go's scheme registers (typed round trip, strategic merge patch).
pub fn typed_in_argo_cd(group: &str, kind: &str) -> bool {
    root(group, kind).is_some() && !OUTSIDE_CLIENT_GO_SCHEME.contains(&group)
}

/// A built-in kind that Argo CD compares as JSON (see [`typed_in_argo_cd`]); the API server still
/// stores it typed, dropping its `omitempty` zero values.
pub fn built_in_outside_client_go_scheme(group: &str, kind: &str) -> bool {
    root(group, kind).is_some() && OUTSIDE_CLIENT_GO_SCHEME.contains(&group)
}

/// Recursion guard for walks over values (the schema itself is recursive, e.g. JSONSchemaProps).
const MAX_DEPTH: usize = crate::limits::MAX_WALK_DEPTH;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// Wide: every key that could be a schema field, a few levels deep (kept small).
    fn nested(depth: usize) -> Value {
        let mut v = json!({"leaf": 1});
        for _ in 0..depth {
            v = json!({"schema": v, "spec": v.clone(), "items": [v.clone()], "properties": {"p": v.clone()}});
            if v.to_string().len() > 20_000 {
                break;
            }
        }
        v
    }

    /// Deep: a long chain through recursive schema types (JSONSchemaProps) and unknown keys.
    fn deep(depth: usize) -> Value {
        let mut v = json!("bottom");
        for i in 0..depth {
            v = match i % 4 {
                0 => json!({"properties": {"x": v}}),
                1 => json!({"items": v}),
                2 => json!({"spec": {"template": [v]}}),
                _ => json!([v]),
            };
        }
        json!({"spec": {"versions": [{"schema": {"openAPIV3Schema": v}}]}})
    }

    #[test]
    fn garbage_never_panics() {
        let garbage = vec![
            json!(null),
            json!("a string"),
            json!(42),
            json!([1, 2, 3]),
            json!({"spec": "not an object"}),
            json!({"spec": null}),
            json!({"spec": {"template": "x", "strategy": "y", "replicas": "three"}}),
            json!({"spec": {"template": {"spec": {"containers": "nope", "volumes": [null, 1, "x", {"name": null}]}}}}),
            json!({"spec": {"template": {"spec": {"containers": [null, 3, [], {"image": 5, "ports": [null, {"protocol": null}],
                "resources": {"limits": "x", "requests": {"cpu": {"nested": true}, "memory": [1]}},
                "livenessProbe": {"httpGet": "x"}, "env": [{"valueFrom": {"fieldRef": null}}]}]}}}}),
            json!({"spec": {"strategy": {"type": 1, "rollingUpdate": "no"}}}),
            json!({"spec": {"updateStrategy": {"type": null, "rollingUpdate": 7}}}),
            json!({"spec": {"ports": [{"port": "eighty"}, {"port": null}, "x"], "type": 5, "sessionAffinity": ["x"]}}),
            json!({"metadata": "x", "webhooks": [{"clientConfig": {"service": "s"}, "rules": [null, {"scope": null}]}]}),
            json!({"metadata": {"name": 5, "labels": "x"}}),
            json!({"spec": {"names": {"kind": 3}, "conversion": null, "versions": [{"schema": {"openAPIV3Schema": nested(6)}}]}}),
            json!({"spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "x"}]}}}}, "behavior": "x"}}),
            nested(300),
            deep(600),
        ];
        let kinds = [
            ("apps", "Deployment"),
            ("apps", "StatefulSet"),
            ("apps", "DaemonSet"),
            ("", "Service"),
            ("", "Pod"),
            ("", "Namespace"),
            ("", "ReplicationController"),
            ("batch", "Job"),
            ("batch", "CronJob"),
            (
                "admissionregistration.k8s.io",
                "MutatingWebhookConfiguration",
            ),
            ("apiextensions.k8s.io", "CustomResourceDefinition"),
            ("autoscaling", "HorizontalPodAutoscaler"),
            ("networking.k8s.io", "NetworkPolicy"),
            ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
            ("x.io", "Thing"),
        ];
        for (g, k) in kinds {
            for v in &garbage {
                let mut a = v.clone();
                apply_defaults(g, k, &mut a);
                apply_defaults(g, k, &mut a);
                let mut b = v.clone();
                normalize_known_types(g, k, &mut b);
                for p in [
                    "",
                    "/",
                    "/spec",
                    "/spec/replicas",
                    "/spec/template/spec/containers/0/imagePullPolicy",
                    "/spec/ports/0/targetPort",
                    "/~",
                    "/spec/~2/x",
                    "/spec/ports/01",
                    "/spec/ports/-1",
                    "/webhooks/0/timeoutSeconds",
                    "/metadata/labels/a~1b",
                ] {
                    let _ = default_for(g, k, v, p);
                }
            }
        }
        for t in [
            "core/v1/PodSpec",
            "core/Quantity",
            "meta/v1/Duration",
            "core/v1/ResourceList",
            "a/b/c/d",
            "//",
            "core//x",
        ] {
            for v in &garbage {
                let mut a = v.clone();
                let _ = normalize_as_type(t, &mut a);
            }
        }
        for s in [
            "-",
            "+",
            ".",
            "-.",
            "e",
            "E5",
            "1e+",
            "1e-",
            "0x10",
            "∞",
            "1µ",
            "1\u{0}",
            "1.e3",
            "9".repeat(2000).as_str(),
            "99999999999999999999Ei",
            "0.0000000000000000000000001",
            "-0.000000000000001Ki",
            "1e-1000",
            "1e1000",
        ] {
            let _ = canonical_quantity(&Value::from(s));
        }
        for s in [
            "∞",
            "1µ",
            "1\u{0}s",
            "1.s",
            "-",
            "+",
            "9223372036854775807ns",
            "9223372036854775808ns",
            "-9223372036854775808ns",
            "2562047h47m16.854775807s",
            "2562047h47m16.854775808s",
            ".5h",
            "1..5s",
        ] {
            let mut v = Value::from(s);
            normalize_as_type("meta/v1/Duration", &mut v);
        }
    }
}
