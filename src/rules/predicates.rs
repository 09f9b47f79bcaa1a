//! Named predicates: the facts about the rest of the input, or about the
//! shape of a value, that rule data cannot express. Each returns the
//! evidence variables it found, or None when it does not hold.

use super::Finding;
use crate::path::glob;
use crate::path::Pointer;
use crate::text::value_text;
use serde_json::Value;

mod conventions;
mod history;
mod injectors;
mod ordering;

use injectors::{
    injected_by, injected_collection, AWS_IDENTITY, AZURE_IDENTITY, DATADOG, ISTIO, LINKERD,
    VAULT_AGENT,
};

pub(crate) use history::pending_git_change;

type Vars = Vec<(String, String)>;

/// A predicate: the evidence variables it found, or None when it does not hold.
pub type Predicate = fn(&Finding<'_>) -> Option<Vars>;

/// Every predicate a rule may name, with its implementation: one table, so
/// a name cannot exist without code (the catalogue refuses unknown names
/// when it loads, and a test checks each one is used).
pub const PREDICATES: &[(&str, Predicate)] = &[
    ("autoscaler_targets", autoscaler_targets),
    ("vpa_targets", vpa_targets),
    ("reloader_annotated", reloader_annotated),
    ("ca_injection_annotated", ca_injection_annotated),
    ("values_look_random", values_look_random),
    ("values_look_like_time", values_look_like_time),
    (
        "values_look_like_certificates",
        values_look_like_certificates,
    ),
    ("helm_rendered", helm_rendered),
    ("hashed_content_unchanged", hashed_content_unchanged),
    ("apply_refused", apply_refused),
    ("rendered_by", rendered_by),
    ("helm_rendered_certificate", helm_rendered_certificate),
    ("crd_in_git", ordering::crd_in_git),
    ("crd_missing_live", ordering::crd_missing_live),
    ("sync_wave_or_hook", ordering::sync_wave_or_hook),
    ("hashed_secrets_generated", hashed_secrets_generated),
    ("hook_on_pod_template", ordering::hook_on_pod_template),
    (
        "hook_without_delete_policy",
        ordering::hook_without_delete_policy,
    ),
    ("presync_hook_failed", ordering::presync_hook_failed),
    (
        "namespace_created_by_app",
        ordering::namespace_created_by_app,
    ),
    ("namespace_absent", ordering::namespace_absent),
    (
        "ca_and_secret_rendered_together",
        ca_and_secret_rendered_together,
    ),
    ("aggregation_rule", aggregation_rule),
    ("aggregated_shape_in_diff", aggregated_shape_in_diff),
    ("tracking_id_missing_live", tracking_id_missing_live),
    ("live_equals_server_default", live_equals_server_default),
    ("generator_hash_suffix", generator_hash_suffix),
    ("git_value_empty", git_value_empty),
    ("custom_field_pruned", custom_field_pruned),
    ("git_declares_empty_map", git_declares_empty_map),
    (
        "zero_value_outside_typed_scheme",
        zero_value_outside_typed_scheme,
    ),
    ("restart_stamped", restart_stamped),
    ("live_equals_crd_default", live_equals_crd_default),
    ("ignore_extraneous", ignore_extraneous),
    ("istio_injected", |f| injected_by(&ISTIO, f)),
    ("linkerd_injected", |f| injected_by(&LINKERD, f)),
    ("vault_agent_injected", |f| injected_by(&VAULT_AGENT, f)),
    ("datadog_injected", |f| injected_by(&DATADOG, f)),
    ("aws_identity_injected", |f| injected_by(&AWS_IDENTITY, f)),
    ("azure_identity_injected", |f| {
        injected_by(&AZURE_IDENTITY, f)
    }),
    ("istio_webhook", conventions::istio_webhook),
    ("aks_admissions_enforcer", aks_admissions_enforcer),
    ("autopilot_adjusted", autopilot_adjusted),
    ("git_holds_vault_reference", git_holds_vault_reference),
    ("same_quantity", same_quantity),
    ("list_reordered", list_reordered),
    ("controller_metadata", controller_metadata),
    ("kyverno_managed", kyverno_managed),
    (
        "too_large_for_client_side_apply",
        too_large_for_client_side_apply,
    ),
    ("service_account_token_secret", service_account_token_secret),
    ("immutable_object", immutable_object),
    ("secret_value_masked", secret_value_masked),
    ("masks_differ", masks_differ),
    ("image_resolved_to_digest", image_resolved_to_digest),
    ("injected_collection", injected_collection),
    ("openshift_image_trigger", openshift_image_trigger),
    (
        "differs_between_renders",
        super::second_render::differs_between_renders,
    ),
    ("git_as_last_applied", history::git_as_last_applied),
    ("written_by_person", history::written_by_person),
    ("written_by_program", history::written_by_program),
    ("written_by_argocd", history::written_by_argocd),
    ("written_by_scaler", history::written_by_scaler),
    ("written_by_resizer", history::written_by_resizer),
    ("render_moved_generated", history::render_moved_generated),
    ("stored_as_written", history::stored_as_written),
    ("webhooks_can_see", history::webhooks_can_see),
    ("since_last_sync", history::since_last_sync),
    ("drift_origin", history::drift_origin),
    ("live_tracking", history::live_tracking),
    ("created_by_program", history::created_by_program),
    (
        "kind_made_by_controllers",
        conventions::kind_made_by_controllers,
    ),
    (
        "schedule_from_render_time",
        conventions::schedule_from_render_time,
    ),
    (
        "random_roll_annotation",
        conventions::random_roll_annotation,
    ),
    ("key_renamed_by_uuid", conventions::key_renamed_by_uuid),
    (
        "differs_only_by_generated_tokens",
        differs_only_by_generated_tokens,
    ),
];

fn find(name: &str) -> Option<Predicate> {
    PREDICATES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, predicate)| *predicate)
}

/// Whether the catalogue may name this predicate.
pub fn exists(name: &str) -> bool {
    find(name).is_some()
}

/// Evaluate a named predicate; an unknown name never holds (and never
/// loads: [`super::Catalog::parse`] refuses it).
pub fn eval(name: &str, f: &Finding<'_>) -> Option<Vars> {
    find(name)?(f)
}

fn var(k: &str, v: impl Into<String>) -> (String, String) {
    (k.to_string(), v.into())
}

fn name_in(name: &str, set: &[&str]) -> bool {
    set.iter().any(|p| {
        if p.contains('*') {
            glob(p, name)
        } else {
            *p == name
        }
    })
}

fn seg_key(s: &crate::path::Seg) -> Option<&str> {
    match s {
        crate::path::Seg::Key(k) => Some(k.as_str()),
        _ => None,
    }
}

fn objects<'a>(f: &'a Finding<'_>) -> impl Iterator<Item = &'a Value> {
    f.git_obj.into_iter().chain(f.live_obj)
}

fn annotations(obj: &Value) -> impl Iterator<Item = (&String, &Value)> {
    let top = obj
        .at("/metadata/annotations")
        .and_then(Value::as_object)
        .into_iter()
        .flatten();
    let tpl = obj
        .at("/spec/template/metadata/annotations")
        .and_then(Value::as_object)
        .into_iter()
        .flatten();
    top.chain(tpl)
}

/// An HPA or KEDA ScaledObject in the input scales this workload.
fn autoscaler_targets(f: &Finding<'_>) -> Option<Vars> {
    let s = f.input.scalers_of(f.key).find(|s| !s.is_vpa)?;
    Some(vec![var("scaler", s.describe.clone())])
}

/// A VPA in the input changes this workload's resources (updateMode not Off).
fn vpa_targets(f: &Finding<'_>) -> Option<Vars> {
    let s = f
        .input
        .scalers_of(f.key)
        .find(|s| s.is_vpa && s.changes_resources)?;
    Some(vec![var("scaler", s.describe.clone())])
}

/// The workload opts in to Stakater Reloader (or a similar reloader).
fn reloader_annotated(f: &Finding<'_>) -> Option<Vars> {
    objects(f).flat_map(annotations).find_map(|(k, _)| {
        // The stamps the reloaders write themselves are not an opt-in.
        if k == "reloader.stakater.com/last-reloaded-from" || k == "wave.pusher.com/config-hash" {
            return None;
        }
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
    const KEYS: [&str; 3] = [
        "cert-manager.io/inject-ca-from",
        "cert-manager.io/inject-ca-from-secret",
        "cert-manager.io/inject-apiserver-ca",
    ];
    objects(f).find_map(|o| {
        let a = o.at("/metadata/annotations")?.as_object()?;
        KEYS.iter().find_map(|k| {
            a.get(*k)
                .map(|v| vec![var("annotation", format!("{k}: {}", value_text(v)))])
        })
    })
}

fn both_strings<'a>(f: &'a Finding<'_>) -> Option<(&'a str, &'a str)> {
    Some((f.git?.as_str()?, f.live?.as_str()?))
}

pub(super) fn looks_random(s: &str) -> bool {
    let s = s.trim_end_matches('=');
    if s.len() < 8 || s.len() > 4096 {
        return false;
    }
    let ok_chars = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"+/-_".contains(&b));
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

/// Git and live hold the same text but for generated tokens: UUIDs, or
/// random-looking words of one length (`uuidv4`, `randAlphaNum` inside a
/// script or a JSON document the template renders), inside text that
/// stays. `tokens` says which (the first differing pair).
fn differs_only_by_generated_tokens(f: &Finding<'_>) -> Option<Vars> {
    let (g, l) = both_strings(f)?;
    if g == l {
        return None;
    }
    let (gu, lu) = (
        conventions::without_uuids(g).unwrap_or_else(|| g.to_string()),
        conventions::without_uuids(l).unwrap_or_else(|| l.to_string()),
    );
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let split = |s: &str| -> Vec<(bool, String)> {
        // Words and the separators between them, in order.
        let mut out: Vec<(bool, String)> = Vec::new();
        for c in s.chars() {
            match out.last_mut() {
                Some((w, t)) if *w == word(c) => t.push(c),
                _ => out.push((word(c), c.to_string())),
            }
        }
        out
    };
    let (gt, lt) = (split(&gu), split(&lu));
    if gt.len() != lt.len() {
        return None;
    }
    let mut first: Option<(String, String)> = None;
    // The generated part sits inside text that stays: a value that is
    // wholly one random word (a password rotated by hand) is not this.
    let mut kept_words = 0;
    for ((gw, a), (_, b)) in gt.iter().zip(&lt) {
        if a == b {
            kept_words += usize::from(*gw);
            continue;
        }
        // A digest or commit id (lowercase hex) moves with its source, not
        // on every render: not a generated token.
        let generated = |t: &str| super::provenance::generated_text(t);
        if !gw || a.len() != b.len() || !generated(a) || !generated(b) {
            return None;
        }
        first.get_or_insert((a.clone(), b.clone()));
    }
    if kept_words == 0 {
        return None;
    }
    let tokens = match first {
        Some((a, b)) => format!("random-looking words of one length (`{a}` and `{b}`)"),
        // Only UUIDs differ.
        None => "a UUID".to_string(),
    };
    Some(vec![var("tokens", tokens)])
}

/// Both sides hold random-looking strings of the same length (Helm
/// `randAlphaNum`, generated passwords, tokens).
fn values_look_random(f: &Finding<'_>) -> Option<Vars> {
    let (g, l) = both_strings(f)?;
    (g != l && g.len() == l.len() && looks_random(g) && looks_random(l))
        .then(|| vec![var("length", g.len().to_string())])
}

pub(super) fn has_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.windows(10).any(|w| {
        w[0..4].iter().all(u8::is_ascii_digit)
            && w[4] == b'-'
            && w[5..7].iter().all(u8::is_ascii_digit)
            && w[7] == b'-'
            && w[8..10].iter().all(u8::is_ascii_digit)
    }) || (s.len() >= 9
        && s.len() <= 13
        && s.bytes().all(|c| c.is_ascii_digit())
        && s.starts_with('1'))
}

/// The first date (`YYYY-MM-DD...`) or epoch-seconds run in a string, as a
/// sortable key.
fn timestamp_key(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let date = b.windows(10).position(|w| {
        w[0..4].iter().all(u8::is_ascii_digit)
            && w[4] == b'-'
            && w[5..7].iter().all(u8::is_ascii_digit)
            && w[7] == b'-'
            && w[8..10].iter().all(u8::is_ascii_digit)
    });
    if let Some(i) = date {
        // Date, then the time digits that follow, ignoring separators.
        let tail: String = s[i..]
            .chars()
            .take(25)
            .filter(char::is_ascii_digit)
            .collect();
        return Some(format!("d{tail:0<17}"));
    }
    (s.len() >= 9 && s.len() <= 13 && s.bytes().all(|c| c.is_ascii_digit()))
        .then(|| format!("e{s:0>13}"))
}

/// Both sides hold (or embed) timestamps (`now`, `date`, epoch seconds) and
/// Git's is the later one: a value rendered at refresh time is always newer
/// than the one written at the last sync, while a hand-edited date can go
/// either way.
fn values_look_like_time(f: &Finding<'_>) -> Option<Vars> {
    let (g, l) = both_strings(f)?;
    if g == l || !has_timestamp(g) || !has_timestamp(l) {
        return None;
    }
    let (gk, lk) = (timestamp_key(g)?, timestamp_key(l)?);
    (gk[..1] == lk[..1] && gk > lk).then(|| vec![var("value", l.to_string())])
}

pub(super) fn is_certificate(s: &str) -> bool {
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
        let labels = o.at("/metadata/labels")?.as_object()?;
        if let Some(chart) = labels.get("helm.sh/chart").and_then(Value::as_str) {
            return Some(vec![var("chart", chart)]);
        }
        (labels
            .get("app.kubernetes.io/managed-by")
            .and_then(Value::as_str)
            == Some("Helm"))
        .then(|| vec![var("chart", "a Helm chart")])
    })
}

/// What a checksum annotation can hash changed only in generated
/// credentials: every ConfigMap and Secret of the input that differs is a
/// Secret whose differing keys are passwords, keys, tokens or certificates.
/// A checksum over such a Secret moves with each render that generates them.
fn hashed_secrets_generated(f: &Finding<'_>) -> Option<Vars> {
    let secrets = f.input.hashed_changes_generated()?;
    let names: Vec<String> = secrets
        .iter()
        .take(3)
        .map(|k| format!("`{}/{}`", k.namespace, k.name))
        .collect();
    let more = secrets.len().saturating_sub(names.len());
    let mut list = names.join(", ");
    if more > 0 {
        list.push_str(&format!(" and {more} more"));
    }
    Some(vec![var("secrets", list)])
}

/// Nothing a checksum annotation can hash differs: every ConfigMap and
/// Secret of the input is the same in Git and live, or `argocd app diff`
/// (which prints every differing resource of the app) shows none. A
/// checksum that changes anyway hashes something generated at render time
/// (`.Release.Time`, a random value, a template that renders one).
fn hashed_content_unchanged(f: &Finding<'_>) -> Option<Vars> {
    use crate::context::HashedContent;
    let seen = match f.input.hashed_content() {
        HashedContent::Unchanged(1) => {
            "the input's one ConfigMap or Secret holds the same content in Git and live".to_string()
        }
        HashedContent::Unchanged(n) => {
            format!("the input's {n} ConfigMaps and Secrets hold the same content in Git and live")
        }
        HashedContent::NoneInWholeAppDiff => {
            "`argocd app diff`, which prints every resource of the app that differs, shows no ConfigMap or Secret changing".to_string()
        }
        HashedContent::Unknown => return None,
    };
    Some(vec![var("hashed_seen", seen)])
}

/// The API server refuses the apply of this object because of another of
/// its fields (an immutable field Git changed): `refused_field` names it.
fn apply_refused(f: &Finding<'_>) -> Option<Vars> {
    let refused = f.refused_with?;
    (refused != crate::text::field_words(f.path)).then(|| vec![var("refused_field", refused)])
}

/// Always holds; `chart` names what rendered the object: its Helm chart when
/// its labels say, else the chart or generator that rendered it.
fn rendered_by(f: &Finding<'_>) -> Option<Vars> {
    helm_rendered(f).or_else(|| Some(vec![var("chart", "the chart or generator that renders it")]))
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

fn annotation<'a>(obj: &'a Value, key: &str) -> Option<&'a str> {
    obj.at("/metadata/annotations")?.get(key)?.as_str()
}

/// A webhook's CA bundle and a TLS Secret both differ, Git holding a
/// value for each: the render generated a new CA and serving certificate
/// together (an injector would change the bundle alone, and the Secret it
/// reads is not rendered from Git). `other` names the object on the other
/// side of the pair.
fn ca_and_secret_rendered_together(f: &Finding<'_>) -> Option<Vars> {
    let on_secret = f.key.group.is_empty() && f.key.kind == "Secret";
    let field = match f.path.last()? {
        crate::path::Seg::Key(k) => k.as_str(),
        _ => return None,
    };
    let own = if on_secret {
        crate::context::is_certificate_key(field)
    } else {
        field == "caBundle"
    };
    if !own || f.git.is_none() || f.live.is_none() {
        return None;
    }
    let others: Vec<String> = f
        .input
        .changed_certificates(!on_secret)
        .map(|k| {
            if k.namespace.is_empty() {
                format!("{} {}", k.kind, k.name)
            } else {
                format!("{} {}/{}", k.kind, k.namespace, k.name)
            }
        })
        .collect();
    if others.is_empty() {
        return None;
    }
    let other = if on_secret {
        format!("the CA bundle of {} differs too", others.join(", "))
    } else {
        format!("the certificates of {} differ too", others.join(", "))
    };
    Some(vec![var("other", other)])
}

/// The role aggregates other roles, so the controller fills its rules.
fn aggregation_rule(f: &Finding<'_>) -> Option<Vars> {
    objects(f)
        .find(|o| o.get("aggregationRule").is_some())
        .map(|o| {
            let labels = o
                .pointer("/aggregationRule/clusterRoleSelectors")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|sel| sel.get("matchLabels").and_then(Value::as_object))
                .flat_map(|m| m.keys().cloned())
                .collect::<Vec<_>>()
                .join(", ");
            vec![var("selector", labels)]
        })
}

/// From diff output, where an `aggregationRule` above the hunks stays
/// unseen: Git gives the role no rules, as Kubernetes' RBAC documentation
/// declares an aggregated ClusterRole (`rules: []`, "the control plane
/// automatically fills in the rules"; Argo CD's typed round trip drops the
/// empty list, so the diff shows the rules removed whole), and the cluster
/// holds rules.
fn aggregated_shape_in_diff(f: &Finding<'_>) -> Option<Vars> {
    let declared_empty = match f.git_obj?.get("rules") {
        Some(Value::Array(rules)) => rules.is_empty(),
        // The hunk shows the rules live and none in Git.
        None => true,
        Some(_) => false,
    };
    let live_has_rules = f
        .live_obj?
        .get("rules")
        .and_then(Value::as_array)
        .is_some_and(|r| !r.is_empty());
    (f.input.partial_objects && declared_empty && live_has_rules).then(Vec::new)
}

/// Git (as Argo CD writes it) carries the tracking annotation and live has
/// none: the difference is that key, or an annotation map live lacks that
/// holds only that key.
fn tracking_id_missing_live(f: &Finding<'_>) -> Option<Vars> {
    const KEY: &str = crate::normalize::TRACKING_ANNOTATION;
    if f.live.is_some() {
        return None;
    }
    let id = match f.git? {
        Value::String(id) if f.pointer.ends_with("/argocd.argoproj.io~1tracking-id") => id,
        Value::Object(m) if m.len() == 1 => m.get(KEY)?.as_str()?,
        _ => return None,
    };
    Some(vec![var("id", id.to_string())])
}

/// The live value is the API server's default for this field.
fn live_equals_server_default(f: &Finding<'_>) -> Option<Vars> {
    let live = f.live?;
    let obj = f.live_obj?;
    let default = crate::k8s::default_for(&f.key.group, &f.key.kind, obj, f.pointer)?;
    crate::compare::json_eq(live, &default).then(|| vec![var("default", value_text(&default))])
}

/// Kustomize's generator suffix: the first ten hex digits of a sha256 with
/// `0 1 3 a e` replaced by `g h k m t` (kustomize `encodeHash`), so only
/// these sixteen characters occur.
fn hash_base(name: &str) -> Option<&str> {
    const ALPHABET: &[u8] = b"2456789bcdfghkmt";
    let (base, suffix) = name.rsplit_once('-')?;
    (suffix.len() == 10 && suffix.bytes().all(|b| ALPHABET.contains(&b))).then_some(base)
}

/// The name ends in a Kustomize generator hash (`name-<10 chars>`).
fn generator_hash_suffix(f: &Finding<'_>) -> Option<Vars> {
    let base = hash_base(&f.key.name)?;
    Some(vec![var("base", base)])
}

/// A custom resource's field Git declares and live lacks, below its top
/// level, where the input holds no CRD for the kind: the API server prunes
/// what the installed CRD's schema does not declare. A CRD in the input
/// would say whether it declares the field, so with one this says nothing.
fn custom_field_pruned(f: &Finding<'_>) -> Option<Vars> {
    let (group, kind) = (f.key.group.as_str(), f.key.kind.as_str());
    let custom = crate::k8s::root(group, kind).is_none();
    if !custom || f.git.is_none() || f.live.is_some() || f.path.len() < 2 {
        return None;
    }
    if !matches!(f.pointer.split('/').nth(1), Some(top) if top != "metadata" && top != "status") {
        return None;
    }
    // Pruning only takes away: where live holds keys beside it that Git
    // lacks, something rewrote the object (a conversion, a webhook).
    let parent = &f.pointer[..f.pointer.rfind('/')?];
    let (Some(Value::Object(git)), Some(Value::Object(live))) =
        (f.git_obj?.at(parent), f.live_obj?.at(parent))
    else {
        return None;
    };
    if live.keys().any(|k| !git.contains_key(k)) {
        return None;
    }
    f.input.crd(group, kind).is_none().then(Vec::new)
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

/// Git's own object declares an empty map at the difference's path (which
/// Argo CD's typed round trip then drops).
fn git_declares_empty_map(f: &Finding<'_>) -> Option<Vars> {
    let declared = f.git_obj?.at(f.pointer)?;
    declared
        .as_object()
        .is_some_and(serde_json::Map::is_empty)
        .then(Vec::new)
}

/// The live map holds a restart stamp (kubectl's `restartedAt`, a
/// reloader's, or any tool's restart time), named as `stamp`.
fn restart_stamped(f: &Finding<'_>) -> Option<Vars> {
    const STAMPS: [&str; 3] = [
        "kubectl.kubernetes.io/restartedAt",
        "reloader.stakater.com/last-reloaded-from",
        "wave.pusher.com/config-hash",
    ];
    let live = f.live?.as_object()?;
    STAMPS
        .iter()
        .find(|k| live.contains_key(**k))
        .map(|k| k.to_string())
        .or_else(|| {
            live.iter()
                .find(|(k, v)| restart_time_stamp(k, v))
                .map(|(k, _)| k.clone())
        })
        .map(|k| vec![var("stamp", format!("`{k}`"))])
}

/// A pod-template annotation that records when a tool restarted the pods:
/// its name says so (`restartedAt`, `restarted-at`, `redeployedAt`, or a
/// bare `timestamp`, as `kubectl rollout restart`, secret operators that
/// restart their targets and consoles' redeploy buttons write) and its
/// value is a time. Changing the pod template is the only way to make a
/// workload roll its pods, so every such tool writes a new time there.
fn restart_time_stamp(key: &str, value: &Value) -> bool {
    let name = key.rsplit('/').next().unwrap_or(key).to_ascii_lowercase();
    let named = name.contains("restart") || name.contains("redeploy") || name == "timestamp";
    named && value.as_str().is_some_and(has_timestamp)
}

/// Git declares a zero value (`false`, `0`, `""`) that live lacks, on a
/// built-in kind Argo CD compares as JSON: the API server dropped it.
fn zero_value_outside_typed_scheme(f: &Finding<'_>) -> Option<Vars> {
    if f.live.is_some() || !crate::k8s::built_in_outside_client_go_scheme(&f.key.group, &f.key.kind)
    {
        return None;
    }
    let zero = match f.git? {
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        _ => false,
    };
    zero.then(Vec::new)
}

/// The live value is the `default:` that the custom resource's CRD (given
/// in the input) declares at this path, for the version live is served at.
fn live_equals_crd_default(f: &Finding<'_>) -> Option<Vars> {
    let live = f.live?;
    let crd = f.input.crd(&f.key.group, &f.key.kind)?;
    let version = crd.served(&[Some(f.live_obj?)])?;
    let default = crate::k8s::schema_default_at(version.schema.as_ref()?, f.path)?;
    crate::compare::json_eq(live, &default).then(|| {
        vec![
            var("crd", crd.name.clone()),
            var("version", version.name.clone()),
        ]
    })
}

/// The live-only object asks Argo CD not to count it (`IgnoreExtraneous`).
fn ignore_extraneous(f: &Finding<'_>) -> Option<Vars> {
    let obj = f.live_obj?;
    annotation(obj, "argocd.argoproj.io/compare-options")?
        .contains("IgnoreExtraneous")
        .then(Vec::new)
}

const AKS_KEYS: [&str; 2] = ["control-plane", "kubernetes.azure.com/managedby"];

fn aks_expression(v: &Value) -> bool {
    v.get("key")
        .and_then(Value::as_str)
        .is_some_and(|k| AKS_KEYS.contains(&k))
}

/// AKS's Admissions Enforcer added its namespace exclusions to a webhook.
fn aks_admissions_enforcer(f: &Finding<'_>) -> Option<Vars> {
    let in_selector = f
        .path
        .iter()
        .any(|s| seg_key(s) == Some("namespaceSelector"));
    if !in_selector || f.git.is_some() {
        return None;
    }
    let live = f.live?;
    let ok = match live {
        Value::Array(items) => !items.is_empty() && items.iter().all(aks_expression),
        Value::Object(m) if m.contains_key("key") => aks_expression(live),
        Value::Object(m) => {
            m.keys().all(|k| k == "matchExpressions")
                && m.get("matchExpressions")
                    .and_then(Value::as_array)
                    .is_some_and(|a| !a.is_empty() && a.iter().all(aks_expression))
        }
        _ => false,
    };
    ok.then(|| vec![var("keys", AKS_KEYS.join(", "))])
}

/// GKE Autopilot annotated the workload after adjusting its resources. For
/// a resource quantity, the live value must also be one Autopilot recorded
/// in its annotations (its `resource-adjustment` output).
fn autopilot_adjusted(f: &Finding<'_>) -> Option<Vars> {
    let obj = f.live_obj?;
    let mut found = annotations(obj).filter(|(k, _)| k.starts_with("autopilot.gke.io/"));
    let (first, _) = found.next()?;
    let in_resources = f.path.iter().any(|s| seg_key(s) == Some("resources"));
    if in_resources {
        if let Some(live @ Value::String(_)) = f.live {
            let needle = format!("\"{}\"", value_text(live));
            let recorded = annotations(obj)
                .filter(|(k, _)| k.starts_with("autopilot.gke.io/"))
                .any(|(_, v)| value_text(v).contains(&needle));
            if !recorded {
                return None;
            }
        }
    }
    Some(vec![var("annotation", first.clone())])
}

/// Git's Secret value is a Bank-Vaults reference (`vault:path#key`) that
/// the secrets webhook replaces with the secret itself.
fn git_holds_vault_reference(f: &Finding<'_>) -> Option<Vars> {
    use base64::Engine;
    let g = f.git?.as_str()?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(g.as_bytes())
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_else(|| g.to_string());
    let t = decoded.trim();
    let is_ref = t.starts_with("vault:") || t.starts_with(">>vault:") || t.contains("${vault:");
    is_ref.then(|| {
        let path = t
            .trim_start_matches(">>")
            .trim_start_matches("${")
            .split(['#', '}'])
            .next()
            .unwrap_or("")
            .to_string();
        vec![var("reference", path)]
    })
}

/// Both sides are the same quantity or duration written differently
/// (`1000m`/`1`, `0.5`/`500m`, `3072Mi`/`3Gi`, `8760h`/`8760h0m0s`).
fn same_quantity(f: &Finding<'_>) -> Option<Vars> {
    let (g, l) = (f.git?, f.live?);
    if crate::compare::json_eq(g, l) {
        return None;
    }
    if let (Some(a), Some(b)) = (
        crate::k8s::canonical_quantity(g),
        crate::k8s::canonical_quantity(l),
    ) {
        if a == b {
            return Some(vec![
                var("canonical", a),
                var("rewriter", history::reencoded_by(f)),
            ]);
        }
    }
    let (Some(gs), Some(ls)) = (g.as_str(), l.as_str()) else {
        return None;
    };
    let looks_like_duration = |s: &str| {
        s.ends_with(['h', 'm', 's']) && s.bytes().next().is_some_and(|b| b.is_ascii_digit())
    };
    if !looks_like_duration(gs) || !looks_like_duration(ls) {
        return None;
    }
    let (mut a, mut b) = (g.clone(), l.clone());
    crate::k8s::normalize_as_type("meta/v1/Duration", &mut a);
    crate::k8s::normalize_as_type("meta/v1/Duration", &mut b);
    (a == b).then(|| {
        vec![
            var("canonical", value_text(&a)),
            var("rewriter", history::reencoded_by(f)),
        ]
    })
}

/// The list that holds the difference has the same items on both sides in
/// another order.
fn list_reordered(f: &Finding<'_>) -> Option<Vars> {
    let (git_obj, live_obj) = (f.git_obj?, f.live_obj?);
    for n in (1..=f.path.len()).rev() {
        let prefix = &f.path[..n];
        let ptr = crate::path::pointer(prefix);
        let (Some(Value::Array(g)), Some(Value::Array(l))) = (git_obj.at(&ptr), live_obj.at(&ptr))
        else {
            continue;
        };
        if g.len() != l.len()
            || g.len() < 2
            || crate::compare::json_eq(&Value::Array(g.clone()), &Value::Array(l.clone()))
        {
            return None;
        }
        let mut used = vec![false; l.len()];
        for item in g {
            match l
                .iter()
                .enumerate()
                .position(|(i, x)| !used[i] && crate::compare::json_eq(item, x))
            {
                Some(i) => used[i] = true,
                None => return None,
            }
        }
        return Some(vec![var("list", crate::path::dotted(prefix))]);
    }
    None
}

/// Annotation keys Kubernetes' own controllers write on the objects they manage.
const CONTROLLER_KEYS: &[&str] = &[
    "deployment.kubernetes.io/revision",
    "deployment.kubernetes.io/desired-replicas",
    "deployment.kubernetes.io/max-replicas",
    "deprecated.daemonset.template.generation",
    "pv.kubernetes.io/bind-completed",
    "pv.kubernetes.io/bound-by-controller",
    "pv.kubernetes.io/provisioned-by",
    "pv.kubernetes.io/migrated-to",
    "volume.beta.kubernetes.io/storage-provisioner",
    "volume.kubernetes.io/storage-provisioner",
    "volume.kubernetes.io/selected-node",
    "batch.kubernetes.io/job-tracking",
    "batch.kubernetes.io/cronjob-scheduled-timestamp",
    "endpoints.kubernetes.io/last-change-trigger-time",
    "control-plane.alpha.kubernetes.io/leader",
    "kubernetes.io/service-account.uid",
];

/// Annotation keys other well-known controllers write on objects they manage.
const OTHER_CONTROLLER_KEYS: &[&str] = &[
    "cert-manager.io/*",
    "reconcile.external-secrets.io/*",
    "ingress.kubernetes.io/*",
    "cloud.google.com/neg-status",
    "field.cattle.io/publicEndpoints",
    "argo-rollouts.argoproj.io/*",
    "crossplane.io/*",
    "openshift.io/sa.scc.*",
    "policies.kyverno.io/last-applied-patches",
    "gatekeeper.sh/mutation*",
];

/// The differing annotation is one Kubernetes' controllers write, or the
/// difference is a whole annotation map Git lacks made only of keys that
/// Kubernetes or other well-known controllers write.
fn controller_metadata(f: &Finding<'_>) -> Option<Vars> {
    let live = f.live?;
    let n = f.path.len();
    let last = seg_key(f.path.last()?)?;
    let parent = if n >= 2 {
        seg_key(&f.path[n - 2])
    } else {
        None
    };
    if parent == Some("annotations") && name_in(last, CONTROLLER_KEYS) {
        return Some(vec![var("keys", last)]);
    }
    if last == "annotations" && f.git.is_none() {
        let m = live.as_object()?;
        if !m.is_empty()
            && m.keys()
                .all(|k| name_in(k, CONTROLLER_KEYS) || name_in(k, OTHER_CONTROLLER_KEYS))
        {
            return Some(vec![var(
                "keys",
                m.keys().cloned().collect::<Vec<_>>().join(", "),
            )]);
        }
    }
    None
}

/// Kyverno recorded a mutation of this field: the difference is the
/// `policies.kyverno.io/last-applied-patches` annotation itself, or a path
/// that annotation lists (or lies under).
fn kyverno_managed(f: &Finding<'_>) -> Option<Vars> {
    const KEYS: [&str; 2] = [
        "policies.kyverno.io/last-applied-patches",
        "policies.kyverno.io/patches",
    ];
    let last = f.path.last().and_then(seg_key);
    if last.is_some_and(|k| KEYS.contains(&k)) {
        return Some(vec![var(
            "patch",
            format!("the annotation {}", last.unwrap_or_default()),
        )]);
    }
    let obj = f.live_obj?;
    let (_, value) = annotations(obj).find(|(k, _)| KEYS.contains(&k.as_str()))?;
    let text = value_text(value);
    let pointer = f.pointer;
    let exact = text.lines().find_map(|line| {
        let listed = listed_of(line)?;
        covers(listed, pointer, false).then(|| vec![var("patch", line.trim().to_string())])
    });
    // Kyverno keeps one entry per rule and a later patch of the same rule
    // overwrites the earlier one, so a rule that rewrote every item of a list
    // lists only the last item's path.
    exact.or_else(|| {
        text.lines().find_map(|line| {
            let listed = listed_of(line)?;
            covers(listed, pointer, true).then(|| {
                vec![var(
                    "patch",
                    format!(
                        "{}, the same rule's patch of another item of the list: Kyverno keeps one path per rule",
                        line.trim()
                    ),
                )]
            })
        })
    })
}

/// The pointer a line of Kyverno's patch record names.
fn listed_of(line: &str) -> Option<&str> {
    line.split_whitespace().find(|w| w.starts_with('/'))
}

/// Whether the listed pointer is `pointer`, one of its ancestors or one of
/// its descendants; with `any_index`, list indices may differ.
fn covers(listed: &str, pointer: &str, any_index: bool) -> bool {
    let a: Vec<&str> = listed.split('/').collect();
    let b: Vec<&str> = pointer.split('/').collect();
    let n = a.len().min(b.len());
    let index = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    a[..n]
        .iter()
        .zip(&b[..n])
        .all(|(x, y)| x == y || (any_index && index(x) && index(y)))
}

/// Git's object is too large for client-side apply: its last-applied
/// annotation would exceed the 262144-byte limit on annotations.
fn too_large_for_client_side_apply(f: &Finding<'_>) -> Option<Vars> {
    let size = f.input.json_text(f.key, true, f.git_obj?).len();
    (size > 262_144).then(|| vec![var("size", size.to_string())])
}

/// The Secret is a service-account token Secret, which the token
/// controller fills with `token`, `ca.crt` and `namespace`.
fn service_account_token_secret(f: &Finding<'_>) -> Option<Vars> {
    let sa = objects(f).find_map(|o| {
        (o.get("type").and_then(Value::as_str) == Some("kubernetes.io/service-account-token")).then(
            || {
                annotation(o, "kubernetes.io/service-account.name")
                    .unwrap_or("its service account")
                    .to_string()
            },
        )
    })?;
    Some(vec![var("sa", sa)])
}

/// The live ConfigMap or Secret is marked `immutable: true`.
fn immutable_object(f: &Finding<'_>) -> Option<Vars> {
    (f.live_obj?.get("immutable")? == &Value::Bool(true)).then(Vec::new)
}

/// One side holds Argo CD's mask for Secret values (a run of `+`).
fn secret_value_masked(f: &Finding<'_>) -> Option<Vars> {
    let masked = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .is_some_and(|s| s.len() >= 3 && s.bytes().all(|b| b == b'+'))
    };
    (masked(f.git) || masked(f.live)).then(Vec::new)
}

/// Both sides hold Argo CD's mask and the masks differ in length: Argo CD
/// gives each distinct value its own mask (gitops-engine `HideSecretData`),
/// so the values differ though neither is shown.
fn masks_differ(f: &Finding<'_>) -> Option<Vars> {
    let mask = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .filter(|s| s.len() >= 3 && s.bytes().all(|b| b == b'+'))
            .map(str::len)
    };
    let (git, live) = (mask(f.git)?, mask(f.live)?);
    (git != live).then(Vec::new)
}

/// Git names an image by tag and the live image is the same repository
/// pinned to a digest (`repo@sha256:…` or `repo:tag@sha256:…`): what image
/// policy webhooks write when they resolve a tag (Kyverno's `mutateDigest`,
/// sigstore's policy-controller, Connaisseur, Gatekeeper mutations). The
/// API server and the workload controllers never rewrite a spec's image.
fn image_resolved_to_digest(f: &Finding<'_>) -> Option<Vars> {
    let git = f.git?.as_str()?;
    let live = f.live?.as_str()?;
    if git.contains('@') {
        return None;
    }
    let (live_name, digest) = live.split_once('@')?;
    if !digest.starts_with("sha256:") {
        return None;
    }
    // (repository, tag): a tag follows the last `:` after the last `/` (a
    // registry's port comes before it); Docker Hub's default names are one.
    let parts = |image: &str| -> (String, Option<String>) {
        let (name, tag) = match image.rfind(':') {
            Some(i) if !image[i..].contains('/') => (&image[..i], Some(image[i + 1..].to_string())),
            _ => (image, None),
        };
        let name = name
            .strip_prefix("docker.io/")
            .or_else(|| name.strip_prefix("index.docker.io/"))
            .unwrap_or(name);
        (
            name.strip_prefix("library/").unwrap_or(name).to_string(),
            tag,
        )
    };
    let (git_repository, git_tag) = parts(git);
    let (live_repository, live_tag) = parts(live_name);
    // The live side may keep the tag beside the digest; a different tag is
    // another version, not a resolution.
    let same_tag = live_tag.is_none() || live_tag == git_tag;
    (git_repository == live_repository && same_tag).then(|| vec![var("digest", digest)])
}

/// OpenShift's image trigger controller resolves this container's image: the
/// workload carries `image.openshift.io/triggers` (or is a DeploymentConfig
/// with an ImageChange trigger) and the live image is a resolved reference.
fn openshift_image_trigger(f: &Finding<'_>) -> Option<Vars> {
    let live = f.live?.as_str()?;
    let resolved = live.contains("@sha256:")
        || live.starts_with("image-registry.openshift-image-registry.svc");
    if !resolved {
        return None;
    }
    objects(f).find_map(|o| {
        if annotation(o, "image.openshift.io/triggers").is_some() {
            return Some(vec![var(
                "trigger",
                "an `image.openshift.io/triggers` annotation".to_string(),
            )]);
        }
        let dc_trigger = o
            .at("/spec/triggers")
            .and_then(Value::as_array)
            .is_some_and(|ts| {
                ts.iter()
                    .any(|t| t.get("type").and_then(Value::as_str) == Some("ImageChange"))
            });
        dc_trigger.then(|| vec![var("trigger", "an ImageChange trigger".to_string())])
    })
}

#[cfg(test)]
mod tests;
