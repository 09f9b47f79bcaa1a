//! The normalisations Argo CD applies to both sides before comparing:
//! status (unless `ignoreResourceStatusField` keeps it), server-managed metadata, the tracking annotation, Secret
//! `stringData`, empty role rules, Endpoints protocols, and the canonical
//! form of quantities (the typed round trip Argo CD calls "remarshal").

#![warn(missing_docs)]

use crate::k8s;
use crate::k8s::LAST_APPLIED_ANNOTATION as LAST_APPLIED;
use crate::sorting::CollectByInsertion;
use serde_json::{Map, Value};

/// Argo CD's default tracking annotation (label tracking uses the
/// `app.kubernetes.io/instance` label, which charts also set, so it stays).
pub const TRACKING_ANNOTATION: &str = "argocd.argoproj.io/tracking-id";

/// Metadata the API server owns; Argo CD never reports it as a difference.
const SERVER_METADATA: &[&str] = &[
    "creationTimestamp",
    "managedFields",
    "resourceVersion",
    "uid",
    "generation",
    "selfLink",
    "namespace",
];

/// Argo CD's normalisations of one object before comparing, for its kind and the user's settings.
pub struct Normalizer<'a> {
    /// The object's API group.
    pub group: &'a str,
    /// The object's kind.
    pub kind: &'a str,
    /// argocd-cm `ignoreAggregatedRoles`: an aggregated ClusterRole's `rules` are left out.
    pub ignore_aggregated_roles: bool,
    /// Keep `status` (argocd-cm `ignoreResourceStatusField` does not ignore
    /// this object's status); by default Argo CD drops it.
    pub keep_status: bool,
}

impl Normalizer<'_> {
    /// The same normalisation but keeping zero values such as
    /// `readOnly: false`, to explain them as hidden differences.
    pub fn normalize_keeping_zero_values(&self, obj: &Value) -> Value {
        self.finish(self.stripped_copy(obj), false)
    }

    /// [`Self::normalize_keeping_zero_values`] of an object the caller has
    /// no more use for: normalised where it is, not copied.
    pub fn normalize_owned_keeping_zero_values(&self, obj: Value) -> Value {
        self.finish(self.stripped(obj), false)
    }

    /// The last-applied original of the three-way diff. Argo CD neither
    /// remarshals it nor drops its nulls (gitops-engine `ThreeWayDiff`
    /// reads it as the annotation says): a key Git renders as `null`, which
    /// kubectl keeps in the annotation and the typed round trip drops from
    /// desired, is one the three-way patch deletes live.
    pub fn normalize_last_applied(&self, obj: Value) -> Value {
        self.finish(self.stripped_keeping_nulls(obj), false)
    }

    /// The object as Argo CD compares it: nulls, server bookkeeping, the
    /// last-applied and tracking annotations and (by default) `status`
    /// dropped, and the typed round trip's zero values removed.
    pub fn normalize(&self, obj: &Value) -> Value {
        self.finish(self.stripped_copy(obj), true)
    }

    fn is_secret(&self) -> bool {
        self.group.is_empty() && self.kind == "Secret"
    }

    /// A copy of `obj` without nulls, status (unless kept) and server metadata.
    fn stripped_copy(&self, obj: &Value) -> Value {
        if self.is_secret() {
            self.stripped(obj.clone())
        } else {
            strip_nulls(obj, self.keep_status)
        }
    }

    /// [`Self::stripped_copy`], in place.
    fn stripped(&self, obj: Value) -> Value {
        let mut obj = self.stripped_keeping_nulls(obj);
        strip_nulls_in_place(&mut obj);
        obj
    }

    /// Server metadata and status (unless kept) dropped; nulls below stay.
    fn stripped_keeping_nulls(&self, mut obj: Value) -> Value {
        if self.is_secret() {
            // A Secret's null data value is an empty one (Argo CD NormalizeSecret).
            for field in ["data", "stringData"] {
                if let Some(Value::Object(m)) = obj.get_mut(field) {
                    for val in m.values_mut() {
                        if val.is_null() {
                            *val = Value::String(String::new());
                        }
                    }
                }
            }
        }
        if let Value::Object(top) = &mut obj {
            // A top-level `null` stays too: Git's `data:` left empty is a key
            // the last-applied original lists, which the patch deletes live.
            top.retain(|k, _| self.keep_status || k != "status");
            if let Some(Value::Object(meta)) = top.get_mut("metadata") {
                meta.retain(|k, x| kept_in_metadata(k, x));
            }
        }
        obj
    }

    /// The normalisations after the nulls are gone.
    fn finish(&self, mut v: Value, drop_zero_values: bool) -> Value {
        let Some(map) = v.as_object_mut() else {
            return v;
        };
        if !self.keep_status {
            map.remove("status");
        }
        if let Some(Value::Object(meta)) = map.get_mut("metadata") {
            for k in SERVER_METADATA {
                meta.remove(*k);
            }
            for field in ["annotations", "labels"] {
                if let Some(Value::Object(m)) = meta.get_mut(field) {
                    if field == "annotations" {
                        m.remove(LAST_APPLIED);
                        m.remove(TRACKING_ANNOTATION);
                    }
                }
                if meta
                    .get(field)
                    .is_some_and(|m| m.as_object().is_some_and(Map::is_empty))
                {
                    meta.remove(field);
                }
            }
        }
        if let Some(spec) = map.get_mut("spec") {
            drop_template_timestamps(spec);
        }
        match (self.group, self.kind) {
            ("", "Secret") => normalize_secret(&mut v),
            ("rbac.authorization.k8s.io", "Role" | "ClusterRole") => self.normalize_role(&mut v),
            ("", "Endpoints") => normalize_endpoints(&mut v),
            _ => {}
        }
        let drop_zero = drop_zero_values && k8s::typed_in_argo_cd(self.group, self.kind);
        k8s::normalize_typed(self.group, self.kind, &mut v, drop_zero);
        v
    }

    /// gitops-engine `normalizeRole`: an empty `rules` list, and the rules of
    /// an aggregated role when `ignoreAggregatedRoles` is set, become `null`
    /// with the key kept. In the patch Argo CD computes, that `null` is a
    /// delete directive: an aggregated role whose Git declares `rules: []`
    /// loses its aggregated rules in the prediction.
    fn normalize_role(&self, v: &mut Value) {
        let Some(map) = v.as_object_mut() else { return };
        let empty = map
            .get("rules")
            .is_some_and(|r| r.as_array().is_some_and(Vec::is_empty));
        let aggregated = self.ignore_aggregated_roles
            && map.get("aggregationRule").is_some_and(Value::is_object);
        if empty || aggregated {
            map.insert("rules".to_string(), Value::Null);
        }
    }
}

/// The templates in an object's `spec` (`template`, a CronJob's
/// `jobTemplate` and its pods', a StatefulSet's `volumeClaimTemplates`)
/// lose their metadata's `creationTimestamp`, as gitops-engine's
/// normalisation leaves none there (clients write `creationTimestamp: null`
/// into them).
fn drop_template_timestamps(spec: &mut Value) {
    fn drop_timestamp(template: Option<&mut Value>) {
        if let Some(Value::Object(meta)) = template.and_then(|t| t.get_mut("metadata")) {
            meta.remove("creationTimestamp");
        }
    }
    drop_timestamp(spec.get_mut("template"));
    if let Some(job) = spec.get_mut("jobTemplate") {
        drop_timestamp(Some(&mut *job));
        drop_timestamp(job.get_mut("spec").and_then(|s| s.get_mut("template")));
    }
    if let Some(Value::Array(claims)) = spec.get_mut("volumeClaimTemplates") {
        for claim in claims {
            drop_timestamp(Some(claim));
        }
    }
}

/// A copy without nulls, status (unless kept) and server bookkeeping: the
/// top level skips `status` and `metadata.managedFields` before copying,
/// since they are often half of a live object.
fn strip_nulls(v: &Value, keep_status: bool) -> Value {
    let Value::Object(top) = v else {
        return strip_nulls_deep(v);
    };
    let mut out = Map::new();
    for (k, x) in top {
        if !kept_at_top(k, x, keep_status) {
            continue;
        }
        if k == "metadata" {
            if let Value::Object(meta) = x {
                let m: Map<String, Value> = meta
                    .iter()
                    .filter(|(mk, mv)| kept_in_metadata(mk, mv))
                    .map(|(mk, mv)| (mk.clone(), compared_metadata_field(mk, mv)))
                    .collect_by_insertion();
                out.insert(k.clone(), Value::Object(m));
                continue;
            }
        }
        out.insert(k.clone(), strip_nulls_deep(x));
    }
    Value::Object(out)
}

/// A copy of a metadata field without its nulls; the annotations leave out
/// the last-applied one (often the largest string of the object) and the
/// tracking id, which [`Normalizer::finish`] drops from the copy anyway.
fn compared_metadata_field(key: &str, value: &Value) -> Value {
    match value {
        Value::Object(annotations) if key == "annotations" => Value::Object(
            annotations
                .iter()
                .filter(|(a, v)| !v.is_null() && *a != LAST_APPLIED && *a != TRACKING_ANNOTATION)
                .map(|(a, v)| (a.clone(), strip_nulls_deep(v)))
                .collect_by_insertion(),
        ),
        _ => strip_nulls_deep(value),
    }
}

/// Whether a top-level field stays: not null, and not `status` unless kept.
fn kept_at_top(key: &str, value: &Value, keep_status: bool) -> bool {
    !value.is_null() && (keep_status || key != "status")
}

/// Whether a `metadata` field stays: not null, and not the server's.
fn kept_in_metadata(key: &str, value: &Value) -> bool {
    !value.is_null() && !SERVER_METADATA.contains(&key)
}

/// Nulls mean "absent" in a stored Kubernetes object; drop them from maps.
pub fn strip_nulls_deep(v: &Value) -> Value {
    // A copy, then the (rare) nulls removed: copying a map copies its
    // B-tree node by node, where filling a new one compares every key.
    let mut copy = v.clone();
    strip_nulls_in_place(&mut copy);
    copy
}

/// [`strip_nulls_deep`] on a value the caller owns, without copying it.
pub fn strip_nulls_in_place(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(strip_nulls_in_place);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_nulls_in_place),
        _ => {}
    }
}

/// `stringData` is write-only: the API server stores it base64-encoded in `data`.
pub(crate) fn normalize_secret(v: &mut Value) {
    let Some(map) = v.as_object_mut() else { return };
    let Some(Value::Object(string_data)) = map.remove("stringData") else {
        return;
    };
    let data = map
        .entry("data")
        .or_insert_with(|| Value::Object(Map::new()));
    if !data.is_object() {
        *data = Value::Object(Map::new());
    }
    if let Value::Object(d) = data {
        for (k, val) in string_data {
            let plain = match val {
                Value::String(s) => s,
                Value::Null => String::new(),
                other => other.to_string(),
            };
            d.insert(k, Value::String(base64_encode(plain.as_bytes())));
        }
    }
}

fn normalize_endpoints(v: &mut Value) {
    let Some(Value::Array(subsets)) = v.get_mut("subsets") else {
        return;
    };
    for subset in subsets.iter_mut() {
        if let Some(Value::Array(ports)) = subset.get_mut("ports") {
            for p in ports.iter_mut() {
                if let Value::Object(pm) = p {
                    pm.entry("protocol")
                        .or_insert_with(|| Value::String("TCP".into()));
                }
            }
        }
    }
    crate::sorting::sort_by_key(subsets, |s| s.to_string());
}

/// Standard base64 with padding, as Kubernetes writes Secret `data`.
pub fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_copy_without_nulls_drops_them_from_maps_at_every_depth_only() {
        let original = json!({
            "a": null,
            "b": {"c": null, "d": [null, {"e": null, "f": 1}], "g": {"h": null}},
            "i": [null],
            "j": "null"
        });
        let copy = strip_nulls_deep(&original);
        assert_eq!(
            copy,
            json!({"b": {"d": [null, {"f": 1}], "g": {}}, "i": [null], "j": "null"})
        );
        // The original is untouched, and stripping in place agrees.
        assert!(original["b"]
            .as_object()
            .is_some_and(|b| b.contains_key("c")));
        let mut in_place = original.clone();
        strip_nulls_in_place(&mut in_place);
        assert_eq!(in_place, copy);
    }

    /// The copy leaves out early what the in-place path drops later: both
    /// give the same object.
    #[test]
    fn the_copy_and_the_owned_object_normalise_alike() {
        let n = Normalizer {
            group: "apps",
            kind: "Deployment",
            ignore_aggregated_roles: false,
            keep_status: false,
        };
        for annotations in [
            json!({LAST_APPLIED: "{}", TRACKING_ANNOTATION: "app:apps/Deployment:ns/d"}),
            json!({LAST_APPLIED: "{}", "a": null, "b": "x", "c": {"d": null}}),
            json!({"a": null}),
            json!({}),
            json!(null),
            json!("text"),
            json!([LAST_APPLIED]),
        ] {
            let object = json!({
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "d", "uid": "u", "annotations": annotations},
                "spec": {"replicas": 1, "paused": null},
                "status": {"replicas": 1},
            });
            assert_eq!(
                n.normalize_keeping_zero_values(&object),
                n.normalize_owned_keeping_zero_values(object.clone()),
                "{annotations}"
            );
        }
    }

    #[test]
    fn secret_string_data_becomes_data() {
        let n = Normalizer {
            group: "",
            kind: "Secret",
            ignore_aggregated_roles: false,
            keep_status: false,
        };
        let v = n.normalize(&json!({"kind":"Secret","metadata":{"name":"s"},"stringData":{"a":"hi"},"data":{"b":"eA=="}}));
        assert_eq!(v["data"], json!({"a":"aGk=","b":"eA=="}));
        assert!(v.get("stringData").is_none());
    }

    #[test]
    fn server_metadata_and_status_are_dropped() {
        let n = Normalizer {
            group: "",
            kind: "ConfigMap",
            ignore_aggregated_roles: false,
            keep_status: false,
        };
        let v = n.normalize(&json!({"kind":"ConfigMap","metadata":{"name":"c","uid":"u","resourceVersion":"1",
            "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},"status":{"x":1}}));
        assert_eq!(v, json!({"kind":"ConfigMap","metadata":{"name":"c"}}));
    }

    #[test]
    fn templates_lose_the_creation_timestamp_a_client_wrote() {
        let n = |kind| Normalizer {
            group: "example.com",
            kind,
            ignore_aggregated_roles: false,
            keep_status: false,
        };
        let stamp = || json!({"creationTimestamp": "2024-01-01T00:00:00Z", "labels": {"a": "b"}});
        let stamped = json!({"kind": "Thing", "metadata": {"name": "t"}, "spec": {
            "template": {"metadata": stamp()},
            "jobTemplate": {"metadata": stamp(), "spec": {"template": {"metadata": stamp()}}},
            "volumeClaimTemplates": [{"metadata": stamp()}, {"metadata": {"creationTimestamp": null}}, 3],
            "other": {"metadata": {"creationTimestamp": "kept"}},
        }});
        let kept = || json!({"labels": {"a": "b"}});
        assert_eq!(
            n("Thing").normalize_keeping_zero_values(&stamped),
            json!({"kind": "Thing", "metadata": {"name": "t"}, "spec": {
                "template": {"metadata": kept()},
                "jobTemplate": {"metadata": kept(), "spec": {"template": {"metadata": kept()}}},
                "volumeClaimTemplates": [{"metadata": kept()}, {"metadata": {}}, 3],
                "other": {"metadata": {"creationTimestamp": "kept"}},
            }})
        );
        // A spec that is no object is left as it is.
        let odd = json!({"kind": "Thing", "spec": [{"template": {"metadata": {"creationTimestamp": "x"}}}]});
        assert_eq!(n("Thing").normalize(&odd), odd);
    }

    #[test]
    fn status_is_kept_only_when_asked() {
        let obj = json!({"kind":"ConfigMap","metadata":{"name":"c"},"status":{"x":1}});
        let keep = Normalizer {
            group: "",
            kind: "ConfigMap",
            ignore_aggregated_roles: false,
            keep_status: true,
        };
        assert_eq!(keep.normalize(&obj)["status"], json!({"x":1}));
        assert_eq!(
            keep.normalize_keeping_zero_values(&obj)["status"],
            json!({"x":1})
        );
    }

    #[test]
    fn normalize_role_nulls_aggregated_rules_only_when_asked() {
        let obj = json!({"kind":"ClusterRole","metadata":{"name":"r"},"aggregationRule":{},"rules":[{"verbs":["get"]}]});
        let keep = Normalizer {
            group: "rbac.authorization.k8s.io",
            kind: "ClusterRole",
            ignore_aggregated_roles: false,
            keep_status: false,
        };
        assert!(keep.normalize(&obj)["rules"].is_array());
        let drop = Normalizer {
            group: "rbac.authorization.k8s.io",
            kind: "ClusterRole",
            ignore_aggregated_roles: true,
            keep_status: false,
        };
        assert_eq!(drop.normalize(&obj).get("rules"), Some(&Value::Null));
    }
}
