//! What the whole input says about each object: who autoscales it, which
//! CRDs are being installed, which app tracks it. Rules read this to name
//! the owner of a change rather than guess from a path alone.

use crate::identity::{api_group, ResourceKey};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// An object that scales another: HPA, KEDA ScaledObject or VPA.
#[derive(Debug, Clone, PartialEq)]
pub struct Scaler {
    /// e.g. "HorizontalPodAutoscaler shop/cart"
    pub describe: String,
    pub namespace: String,
    pub target_group: String,
    pub target_kind: String,
    pub target_name: String,
    /// VPA only: whether it changes resources (updateMode other than Off).
    pub changes_resources: bool,
    /// VPA only: it is a VPA, which never owns replicas.
    pub is_vpa: bool,
}

#[derive(Debug, Clone, Default)]
pub struct InputContext {
    pub scalers: Vec<Scaler>,
    /// Group/kind pairs whose CRD is defined in the Git input, with its sync wave.
    pub crds_in_git: BTreeMap<(String, String), Option<String>>,
    /// Group/kinds whose CRD exists live.
    pub crds_live: BTreeSet<(String, String)>,
    /// Namespaces defined in Git (name → present live).
    pub namespaces_in_git: BTreeMap<String, bool>,
    /// The Argo CD app the input belongs to, from tracking metadata.
    pub application: Option<String>,
}

fn scale_target(obj: &Value, field: &str) -> Option<(String, String, String)> {
    let t = obj.pointer(&format!("/spec/{field}"))?;
    let kind = t
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("Deployment");
    let name = t.get("name").and_then(Value::as_str)?;
    let group = api_group(
        t.get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("apps/v1"),
    );
    let group = crate::identity::canonical_group(group, kind);
    Some((group, kind.to_string(), name.to_string()))
}

impl InputContext {
    pub fn learn(&mut self, key: &ResourceKey, obj: &Value, from_git: bool) {
        let ns = key.namespace.clone();
        let push = |ctx: &mut InputContext, what: &str, field: &str, is_vpa: bool| {
            if let Some((g, k, n)) = scale_target(obj, field) {
                let describe = format!("{what} {}/{}", ns, key.name);
                if ctx.scalers.iter().any(|s| s.describe == describe) {
                    return;
                }
                let mode = obj
                    .pointer("/spec/updatePolicy/updateMode")
                    .and_then(Value::as_str)
                    .unwrap_or("Auto");
                ctx.scalers.push(Scaler {
                    describe,
                    namespace: ns.clone(),
                    target_group: g,
                    target_kind: k,
                    target_name: n,
                    changes_resources: is_vpa && mode != "Off",
                    is_vpa,
                });
            }
        };
        match (key.group.as_str(), key.kind.as_str()) {
            ("autoscaling", "HorizontalPodAutoscaler") => {
                push(self, "HorizontalPodAutoscaler", "scaleTargetRef", false)
            }
            ("keda.sh", "ScaledObject") => push(self, "KEDA ScaledObject", "scaleTargetRef", false),
            ("autoscaling.k8s.io", "VerticalPodAutoscaler") => {
                push(self, "VerticalPodAutoscaler", "targetRef", true)
            }
            ("apiextensions.k8s.io", "CustomResourceDefinition") => {
                let g = obj
                    .pointer("/spec/group")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let k = obj
                    .pointer("/spec/names/kind")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                if from_git {
                    let wave = obj
                        .pointer("/metadata/annotations/argocd.argoproj.io~1sync-wave")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    self.crds_in_git.insert((g, k), wave);
                } else {
                    self.crds_live.insert((g, k));
                }
            }
            ("", "Namespace") => {
                let present = self
                    .namespaces_in_git
                    .entry(key.name.clone())
                    .or_insert(false);
                if !from_git {
                    *present = true;
                }
            }
            _ => {}
        }
        if !from_git && self.application.is_none() {
            if let Some(id) = obj
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(crate::normalize::TRACKING_ANNOTATION))
                .and_then(Value::as_str)
            {
                if let Some((app, _)) = id.split_once(':') {
                    self.application = Some(app.rsplit('_').next().unwrap_or(app).to_string());
                }
            }
        }
    }

    /// Scalers that target this object (same namespace, kind and name).
    pub fn scalers_of<'a>(&'a self, key: &'a ResourceKey) -> impl Iterator<Item = &'a Scaler> + 'a {
        self.scalers.iter().filter(move |s| {
            s.namespace == key.namespace && s.target_kind == key.kind && s.target_name == key.name
        })
    }
}

/// The app named by an object's tracking annotation, if any.
pub fn tracked_app(obj: &Value) -> Option<String> {
    let id = obj
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(crate::normalize::TRACKING_ANNOTATION))
        .and_then(Value::as_str)?;
    let (app, _) = id.split_once(':')?;
    Some(app.rsplit('_').next().unwrap_or(app).to_string())
}
