//! Facts from well-known tools' own conventions: the labels and names their
//! charts give the objects they render.

use super::{var, Vars};
use crate::rules::Finding;
use serde_json::Value;

fn label<'a>(obj: &'a Value, key: &str) -> Option<&'a str> {
    obj.pointer("/metadata/labels")?.get(key)?.as_str()
}

/// The CronJob's chart derives its schedule from the render time. Linkerd's
/// control-plane chart renders its heartbeat CronJob, labelled
/// `linkerd.io/control-plane-component: heartbeat`, with
/// `dateInZone "04 15 * * *" (now | mustDateModify "+10m")` unless
/// `heartbeatSchedule` is set (linkerd2
/// `charts/linkerd-control-plane/templates/heartbeat.yaml`); the label, not
/// the name, survives name prefixes and other namespaces, and the chart's
/// name `linkerd-heartbeat` serves where a diff does not show the labels.
pub(super) fn schedule_from_render_time(f: &Finding<'_>) -> Option<Vars> {
    // The chart's label, or the name it gives the CronJob when a diff's
    // hunk does not reach the labels.
    let obj = super::objects(f).find(|o| {
        label(o, "linkerd.io/control-plane-component") == Some("heartbeat")
            || o.pointer("/metadata/name").and_then(Value::as_str) == Some("linkerd-heartbeat")
    })?;
    let chart = label(obj, "helm.sh/chart").map_or_else(
        || "Linkerd's control-plane chart".to_string(),
        |c| format!("Linkerd's control-plane chart ({c})"),
    );
    Some(vec![var("chart", chart)])
}

/// The webhook configuration belongs to Istio (istiod manages it): Istio's
/// labels, its charts' names (`istio-validator[-<rev>]-<ns>` from
/// istio-discovery, `istiod-default-validator` from base), an `istiod`
/// service, or webhooks named `*validation.istio.io`.
pub(super) fn istio_webhook(f: &Finding<'_>) -> Option<Vars> {
    for obj in super::objects(f) {
        let labels = obj.pointer("/metadata/labels").and_then(Value::as_object);
        if let Some(l) = labels {
            for key in [
                "istio.io/rev",
                "istio",
                "app",
                "operator.istio.io/component",
                "istio.io/owned-by",
            ] {
                if let Some(v) = l.get(key).and_then(Value::as_str) {
                    let istio =
                        key.contains("istio") || v.starts_with("istio") || v == "sidecar-injector";
                    if istio {
                        return Some(vec![var("evidence", format!("label {key}: {v}"))]);
                    }
                }
            }
        }
        let services = obj
            .get("webhooks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for w in services {
            if let Some(wname) = w.get("name").and_then(Value::as_str) {
                if wname.ends_with("validation.istio.io") {
                    return Some(vec![var(
                        "evidence",
                        format!("its webhook `{wname}` is Istio's"),
                    )]);
                }
            }
            if let Some(svc) = w
                .pointer("/clientConfig/service/name")
                .and_then(Value::as_str)
            {
                if svc.starts_with("istiod") {
                    return Some(vec![var(
                        "evidence",
                        format!("its webhooks call the `{svc}` service"),
                    )]);
                }
            }
        }
    }
    let name = &f.key.name;
    (name.starts_with("istio-validator") || name.starts_with("istiod-default-validator")).then(
        || {
            vec![var(
                "evidence",
                format!("its name `{name}` is the one Istio's charts give it"),
            )]
        },
    )
}

/// A pod-template annotation whose only job is to change on every render:
/// `rollme`, the key of Helm's documented "roll deployments on every
/// upgrade" tip (`rollme: {{ randAlphaNum 5 | quote }}`), or any other key of
/// a Helm-rendered object holding a `randAlphaNum`-shaped value (letters and
/// digits, the same length on both sides, two character classes or more).
pub(super) fn random_roll_annotation(f: &Finding<'_>) -> Option<Vars> {
    let key = match f.path.last()? {
        crate::path::Seg::Key(k) => k.as_str(),
        _ => return None,
    };
    let (g, l) = (f.git?.as_str()?, f.live?.as_str()?);
    let shaped = |s: &str| {
        (5..=32).contains(&s.len())
            && s.bytes().all(|b| b.is_ascii_alphanumeric())
            && [
                s.bytes().any(|b| b.is_ascii_digit()),
                s.bytes().any(|b| b.is_ascii_uppercase()),
                s.bytes().any(|b| b.is_ascii_lowercase()),
            ]
            .iter()
            .filter(|x| **x)
            .count()
                >= 2
    };
    if key == "rollme" {
        return Some(vec![var("key", key), var("source", "the chart")]);
    }
    let source = super::helm_rendered(f)?
        .into_iter()
        .find(|(k, _)| k == "chart")
        .map_or_else(|| "the chart".to_string(), |(_, v)| v);
    (g != l && g.len() == l.len() && shaped(g) && shaped(l))
        .then(|| vec![var("key", key), var("source", source)])
}

/// The name with every UUID (8-4-4-4-12 hex digits) replaced by `*`, when
/// it holds one.
pub(super) fn without_uuids(name: &str) -> Option<String> {
    let b = name.as_bytes();
    let groups = [8, 4, 4, 4, 12];
    let at = |i: usize| -> Option<usize> {
        let mut j = i;
        for (n, len) in groups.iter().enumerate() {
            if n > 0 {
                if b.get(j) != Some(&b'-') {
                    return None;
                }
                j += 1;
            }
            let part = b.get(j..j + len)?;
            if !part.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            j += len;
        }
        Some(j)
    };
    let (mut out, mut i, mut found) = (String::new(), 0, false);
    while i < b.len() {
        match at(i) {
            Some(end) => {
                out.push('*');
                i = end;
                found = true;
            }
            None => {
                let ch = name[i..].chars().next()?;
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    found.then_some(out)
}

/// This map key's name holds a UUID, only one side has it, and the other
/// side has, in its place, the same name with another UUID (and not this
/// one): a template that calls `uuidv4` renamed the key at render time.
pub(super) fn key_renamed_by_uuid(f: &Finding<'_>) -> Option<Vars> {
    let (Some(crate::path::Seg::Key(name)), parent) =
        (f.path.last(), &f.path[..f.path.len().saturating_sub(1)])
    else {
        return None;
    };
    let (this, other) = match (f.git.is_some(), f.live.is_some()) {
        (true, false) => (f.git_obj?, f.live_obj?),
        (false, true) => (f.live_obj?, f.git_obj?),
        _ => return None,
    };
    let at = crate::path::pointer(parent);
    let shape = without_uuids(name)?;
    let this_map = this.pointer(&at)?.as_object()?;
    let renamed = other.pointer(&at)?.as_object()?.keys().find(|k| {
        *k != name
            && !this_map.contains_key(*k)
            && without_uuids(k).as_deref() == Some(shape.as_str())
    })?;
    Some(vec![var("other_key", renamed.clone())])
}

/// The object Git does not declare is of a kind the cluster's controllers
/// make from other objects (identities, reports, requests, endpoints: the
/// kinds Argo CD's stock settings exclude from 3.0, argo-cd PR #21635), and
/// it carries the app's tracking label, which its creator copied from the
/// objects it derives from (a pod's labels, a policy's, a certificate's).
pub(super) fn kind_made_by_controllers(f: &Finding<'_>) -> Option<Vars> {
    let live = f.live_obj?;
    let instance = label(live, "app.kubernetes.io/instance")?;
    crate::pairing::made_by_controllers(&f.key.group, &f.key.kind)
        .then(|| vec![var("instance", instance)])
}

#[cfg(test)]
mod uuid_tests {
    use super::without_uuids;

    #[test]
    fn uuids_in_names_are_found_and_only_they() {
        assert_eq!(
            without_uuids("cfg-0f8e2a1c-3b4d-4e5f-8a9b-0c1d2e3f4a5b.yaml").as_deref(),
            Some("cfg-*.yaml")
        );
        assert_eq!(without_uuids("cfg-0f8e2a1c.yaml"), None);
        assert_eq!(without_uuids("plain"), None);
        assert_eq!(without_uuids("ünïcode-name"), None);
    }
}
