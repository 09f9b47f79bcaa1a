//! Named predicates: the facts about the rest of the input, or about the
//! shape of a value, that rule data cannot express. Each returns the
//! evidence variables it found, or None when it does not hold.

use super::{value_text, Finding};
use crate::model::Presence;
use serde_json::Value;

type Vars = Vec<(String, String)>;

/// Every predicate a rule may name. A test checks each one is used.
pub const NAMES: &[&str] = &[
    "autoscaler_targets",
    "vpa_targets",
    "reloader_annotated",
    "ca_injection_annotated",
    "values_look_random",
    "values_look_like_time",
    "values_look_like_certificates",
    "helm_rendered",
    "helm_rendered_certificate",
    "crd_in_git",
    "crd_missing_live",
    "sync_wave_or_hook",
    "hook_without_delete_policy",
    "namespace_created_by_app",
    "aggregation_rule",
    "live_equals_server_default",
    "generator_hash_suffix",
    "git_value_empty",
    "ignore_extraneous",
];

pub fn exists(name: &str) -> bool {
    NAMES.contains(&name)
}

pub fn eval(name: &str, f: &Finding<'_>) -> Option<Vars> {
    match name {
        "autoscaler_targets" => autoscaler_targets(f),
        "vpa_targets" => vpa_targets(f),
        "reloader_annotated" => reloader_annotated(f),
        "ca_injection_annotated" => ca_injection_annotated(f),
        "values_look_random" => values_look_random(f),
        "values_look_like_time" => values_look_like_time(f),
        "values_look_like_certificates" => values_look_like_certificates(f),
        "helm_rendered" => helm_rendered(f),
        "helm_rendered_certificate" => helm_rendered_certificate(f),
        "crd_in_git" => crd_in_git(f),
        "crd_missing_live" => crd_missing_live(f),
        "sync_wave_or_hook" => sync_wave_or_hook(f),
        "hook_without_delete_policy" => hook_without_delete_policy(f),
        "namespace_created_by_app" => namespace_created_by_app(f),
        "aggregation_rule" => aggregation_rule(f),
        "live_equals_server_default" => live_equals_server_default(f),
        "generator_hash_suffix" => generator_hash_suffix(f),
        "git_value_empty" => git_value_empty(f),
        "ignore_extraneous" => ignore_extraneous(f),
        _ => None,
    }
}

fn var(k: &str, v: impl Into<String>) -> (String, String) {
    (k.to_string(), v.into())
}

fn objects<'a>(f: &'a Finding<'_>) -> impl Iterator<Item = &'a Value> {
    f.git_obj.into_iter().chain(f.live_obj)
}

fn annotations(obj: &Value) -> impl Iterator<Item = (&String, &Value)> {
    let top = obj.pointer("/metadata/annotations").and_then(Value::as_object).into_iter().flatten();
    let tpl = obj.pointer("/spec/template/metadata/annotations").and_then(Value::as_object).into_iter().flatten();
    top.chain(tpl)
}

/// An HPA or KEDA ScaledObject in the input scales this workload.
fn autoscaler_targets(f: &Finding<'_>) -> Option<Vars> {
    let s = f.input.scalers_of(f.key).find(|s| !s.is_vpa)?;
    Some(vec![var("scaler", s.describe.clone())])
}

/// A VPA in the input changes this workload's resources (updateMode not Off).
fn vpa_targets(f: &Finding<'_>) -> Option<Vars> {
    let s = f.input.scalers_of(f.key).find(|s| s.is_vpa && s.changes_resources)?;
    Some(vec![var("scaler", s.describe.clone())])
}

/// The workload opts in to Stakater Reloader (or a similar reloader).
fn reloader_annotated(f: &Finding<'_>) -> Option<Vars> {
    objects(f).flat_map(annotations).find_map(|(k, _)| {
        let hit = k.starts_with("reloader.stakater.com/")
            || k.starts_with("configmap.reloader.stakater.com/")
            || k.starts_with("secret.reloader.stakater.com/")
            || k.starts_with("configmap.fabric8.io/")
            || k.starts_with("wave.pusher.com/");
        hit.then(|| vec![var("annotation", k.clone())])
    })
}

/// cert-manager's CA injector fills this object's caBundle.
fn ca_injection_annotated(f: &Finding<'_>) -> Option<Vars> {
    const KEYS: [&str; 3] =
        ["cert-manager.io/inject-ca-from", "cert-manager.io/inject-ca-from-secret", "cert-manager.io/inject-apiserver-ca"];
    objects(f).find_map(|o| {
        let a = o.pointer("/metadata/annotations")?.as_object()?;
        KEYS.iter().find_map(|k| a.get(*k).map(|v| vec![var("annotation", format!("{k}: {}", value_text(v)))]))
    })
}

fn both_strings<'a>(f: &'a Finding<'_>) -> Option<(&'a str, &'a str)> {
    Some((f.git?.as_str()?, f.live?.as_str()?))
}

fn looks_random(s: &str) -> bool {
    let s = s.trim_end_matches('=');
    if s.len() < 8 || s.len() > 4096 {
        return false;
    }
    let ok_chars = s.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/-_".contains(&b));
    if !ok_chars {
        return false;
    }
    let mut seen = [false; 256];
    for b in s.bytes() {
        seen[b as usize] = true;
    }
    let distinct = seen.iter().filter(|x| **x).count();
    let has_digit = s.bytes().any(|b| b.is_ascii_digit());
    let has_upper = s.bytes().any(|b| b.is_ascii_uppercase());
    let has_lower = s.bytes().any(|b| b.is_ascii_lowercase());
    distinct * 3 >= s.len().min(60) && (has_digit as u8 + has_upper as u8 + has_lower as u8) >= 2
}

/// Both sides hold random-looking strings of the same length (Helm
/// `randAlphaNum`, generated passwords, tokens).
fn values_look_random(f: &Finding<'_>) -> Option<Vars> {
    let (g, l) = both_strings(f)?;
    (g != l && g.len() == l.len() && looks_random(g) && looks_random(l)).then(|| vec![var("length", g.len().to_string())])
}

fn has_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.windows(10).any(|w| {
        w[0..4].iter().all(u8::is_ascii_digit)
            && w[4] == b'-'
            && w[5..7].iter().all(u8::is_ascii_digit)
            && w[7] == b'-'
            && w[8..10].iter().all(u8::is_ascii_digit)
    }) || (s.len() >= 9 && s.len() <= 13 && s.bytes().all(|c| c.is_ascii_digit()) && s.starts_with('1'))
}

/// Both sides hold (or embed) timestamps: `now`, `date`, epoch seconds.
fn values_look_like_time(f: &Finding<'_>) -> Option<Vars> {
    let (g, l) = both_strings(f)?;
    (g != l && has_timestamp(g) && has_timestamp(l)).then(|| vec![var("value", l.to_string())])
}

fn is_certificate(s: &str) -> bool {
    // "LS0tLS1CRUdJTi" is "-----BEGIN" in base64.
    s.contains("-----BEGIN") || s.starts_with("LS0tLS1CRUdJTi")
}

/// Both sides hold PEM certificates or keys (raw or base64).
fn values_look_like_certificates(f: &Finding<'_>) -> Option<Vars> {
    let (g, l) = both_strings(f)?;
    (g != l && is_certificate(g) && is_certificate(l)).then(Vec::new)
}

/// The manifest was rendered by Helm.
fn helm_rendered(f: &Finding<'_>) -> Option<Vars> {
    objects(f).find_map(|o| {
        let labels = o.pointer("/metadata/labels")?.as_object()?;
        if let Some(chart) = labels.get("helm.sh/chart").and_then(Value::as_str) {
            return Some(vec![var("chart", chart)]);
        }
        (labels.get("app.kubernetes.io/managed-by").and_then(Value::as_str) == Some("Helm"))
            .then(|| vec![var("chart", "a Helm chart")])
    })
}

/// A Helm chart renders a new certificate each time (genCA / genSignedCert):
/// both sides hold different certificates and Git came from Helm.
fn helm_rendered_certificate(f: &Finding<'_>) -> Option<Vars> {
    let mut vars = values_look_like_certificates(f)?;
    let git_cert = f.git.and_then(Value::as_str).is_some_and(|s| !s.is_empty());
    if !git_cert {
        return None;
    }
    vars.extend(helm_rendered(f)?);
    Some(vars)
}

/// The CRD that defines this kind is in the same Git input.
fn crd_in_git(f: &Finding<'_>) -> Option<Vars> {
    let wave = f.input.crds_in_git.get(&(f.key.group.clone(), f.key.kind.clone()))?;
    Some(vec![var("crd", format!("{}.{}", f.key.kind.to_lowercase(), f.key.group)), var("crd_wave", wave.clone().unwrap_or_else(|| "0".into()))])
}

/// No live object of this kind's CRD is in the input (and the kind is not built in).
fn crd_missing_live(f: &Finding<'_>) -> Option<Vars> {
    if crate::k8s::root(&f.key.group, &f.key.kind).is_some() || f.key.group.is_empty() || !f.key.group.contains('.') {
        return None;
    }
    (!f.input.crds_live.contains(&(f.key.group.clone(), f.key.kind.clone()))).then(Vec::new)
}

fn annotation<'a>(obj: &'a Value, key: &str) -> Option<&'a str> {
    obj.pointer("/metadata/annotations")?.get(key)?.as_str()
}

/// The object carries an Argo CD sync wave or hook annotation (or a Helm hook).
fn sync_wave_or_hook(f: &Finding<'_>) -> Option<Vars> {
    let obj = f.git_obj.or(f.live_obj)?;
    for key in ["argocd.argoproj.io/hook", "helm.sh/hook", "argocd.argoproj.io/sync-wave", "helm.sh/hook-weight"] {
        if let Some(v) = annotation(obj, key) {
            return Some(vec![var("annotation", format!("{key}: {v}"))]);
        }
    }
    None
}

/// A hook without a delete policy: the old hook object blocks the next run.
fn hook_without_delete_policy(f: &Finding<'_>) -> Option<Vars> {
    let obj = f.git_obj.or(f.live_obj)?;
    let hook = annotation(obj, "argocd.argoproj.io/hook").or_else(|| annotation(obj, "helm.sh/hook"))?;
    let policy = annotation(obj, "argocd.argoproj.io/hook-delete-policy").or_else(|| annotation(obj, "helm.sh/hook-delete-policy"));
    policy.is_none().then(|| vec![var("hook", hook)])
}

/// The resource's namespace is created by the same app and is not live yet.
fn namespace_created_by_app(f: &Finding<'_>) -> Option<Vars> {
    let present = f.input.namespaces_in_git.get(&f.key.namespace)?;
    (!present && f.presence == Presence::GitOnly).then(|| vec![var("ns", f.key.namespace.clone())])
}

/// The role aggregates other roles, so the controller fills its rules.
fn aggregation_rule(f: &Finding<'_>) -> Option<Vars> {
    objects(f).find(|o| o.get("aggregationRule").is_some()).map(|o| {
        let labels = o
            .pointer("/aggregationRule/clusterRoleSelectors/0/matchLabels")
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        vec![var("selector", labels)]
    })
}

/// The live value is the API server's default for this field.
fn live_equals_server_default(f: &Finding<'_>) -> Option<Vars> {
    let live = f.live?;
    let obj = f.live_obj?;
    let default = crate::k8s::default_for(&f.key.group, &f.key.kind, obj, f.pointer)?;
    crate::compare::json_eq(live, &default).then(|| vec![var("default", value_text(&default))])
}

fn hash_base(name: &str) -> Option<&str> {
    let (base, suffix) = name.rsplit_once('-')?;
    (suffix.len() == 10 && suffix.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) && suffix.bytes().any(|b| b.is_ascii_digit()))
        .then_some(base)
}

/// The name ends in a Kustomize generator hash (`name-<10 chars>`).
fn generator_hash_suffix(f: &Finding<'_>) -> Option<Vars> {
    let base = hash_base(&f.key.name)?;
    Some(vec![var("base", base)])
}

/// Git writes an empty value (`""`, `{}`, `[]`) or leaves the field out.
fn git_value_empty(f: &Finding<'_>) -> Option<Vars> {
    let empty = match f.git {
        None => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Object(m)) => m.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Null) => true,
        _ => false,
    };
    empty.then(Vec::new)
}

/// The live-only object asks Argo CD not to count it (`IgnoreExtraneous`).
fn ignore_extraneous(f: &Finding<'_>) -> Option<Vars> {
    let obj = f.live_obj?;
    annotation(obj, "argocd.argoproj.io/compare-options")?.contains("IgnoreExtraneous").then(Vec::new)
}
