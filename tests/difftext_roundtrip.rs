//! Round trip against the YAML mode: for every Git/live scenario, print what
//! `argocd app diff` (normal and unified) and `kubectl diff` would print for
//! it (live on the left; the predicted live object, live with Git's visible
//! changes applied, on the right), analyse that text, and compare with the
//! two-sided report: the same resources with the same statuses, and the same
//! cause for at least 90% of the visible differences the text holds what
//! decides. The figure is printed
//! (`cargo test --test suite difftext_roundtrip -- --nocapture`) and stated in the
//! README. Differences only the YAML mode can know are listed, with why.

use crate::common;

use crate::common::diff_writer::{render_argocd_diff, render_kubectl_diff, RenderResource};
use drift_doctor::input::{parse_side, Side};
use drift_doctor::{analyze, analyze_diff, Change, Options, Presence, Report, Status};
use serde_json::Value;
use std::collections::BTreeMap;

fn set_pointer(obj: &mut Value, pointer: &str, value: Option<&Value>) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let last = drift_doctor::path::unescape_pointer_token(last);
    let Some(target) = (if parent.is_empty() {
        Some(&mut *obj)
    } else {
        obj.pointer_mut(parent)
    }) else {
        return;
    };
    match (target, value) {
        (Value::Object(m), Some(v)) => {
            m.insert(last, v.clone());
        }
        (Value::Object(m), None) => {
            m.remove(&last);
        }
        (Value::Array(a), Some(v)) => match last.parse::<usize>() {
            Ok(i) if i < a.len() => a[i] = v.clone(),
            _ => a.push(v.clone()),
        },
        (Value::Array(a), None) => {
            if let Ok(i) = last.parse::<usize>() {
                if i < a.len() {
                    a.remove(i);
                }
            }
        }
        _ => {}
    }
}

/// What the diff tools write for a live object: no status, no managedFields.
fn clean(obj: &Value) -> Value {
    let mut v = obj.clone();
    if let Some(m) = v.as_object_mut() {
        m.remove("status");
    }
    if let Some(Value::Object(meta)) = v.get_mut("metadata") {
        meta.remove("managedFields");
    }
    v
}

/// Differences the YAML mode decides from what the diff text does not hold, with why:
/// (scenario, format or "" for all three, pointer prefix, reason).
const ONLY_YAML_KNOWS: &[(&str, &str, &str, &str)] = &[
    ("autoscaler-hpa-replicas", "", "/spec/replicas", HPA_SYNCED),
    ("drift-next-to-mutations", "", "/spec/replicas", HPA_SYNCED),
    ("mixed-app", "", "/spec/replicas", HPA_SYNCED),
    ("drift-next-to-mutations", "", "/data/tls.", CERT_MANAGER_OWNER),
    ("helm-random-secret", "", "/data/redis-password", HELM_LABEL),
    ("several-causes-one-app", "", "/data/password", HELM_LABEL),
    (
        "several-causes-one-app",
        "",
        "/webhooks/0/failurePolicy",
        "the istio labels and service of the webhook configuration are on lines no hunk shows",
    ),
    (
        "aggregated-clusterrole",
        "",
        "/rules/",
        "the aggregationRule sits above the lines any hunk shows",
    ),
    (
        "drift-next-to-mutations",
        "",
        "/rules/0/verbs/",
        "the hunk shows only list items; the key they belong to (verbs, resources, apiGroups) is above it",
    ),
];
const HPA_SYNCED: &str =
    "the HPA that scales the Deployment is Synced, so no diff output prints it";
const CERT_MANAGER_OWNER: &str =
    "cert-manager's ownership shows only in managedFields, which diff output leaves out";
const HELM_LABEL: &str =
    "the helm.sh/chart label is on lines no hunk shows (and the tools mask Secret values)";

struct Rendered {
    group: String,
    kind: String,
    namespace: String,
    name: String,
    live: Option<Value>,
    target: Option<Value>,
    /// The Git object itself, for what `kubectl apply` records of it.
    git: Option<Value>,
}

/// The live and the target object of a resource, as printed.
type Sides = (Option<Value>, Option<Value>);

/// What to render: each resource with its printed sides.
fn to_render<'a>(objects: &'a [Rendered], sides: &'a [Sides]) -> Vec<RenderResource<'a>> {
    objects
        .iter()
        .zip(sides)
        .map(|(r, (live, target))| RenderResource {
            group: &r.group,
            kind: &r.kind,
            namespace: &r.namespace,
            name: &r.name,
            live: live.as_ref(),
            target: target.as_ref(),
        })
        .collect()
}

/// The objects the diff tools would compare for a scenario's OutOfSync resources.
fn rendered_objects(report: &Report, git: &str, live: &str) -> Vec<Rendered> {
    let live_docs = parse_side(live, Side::Live).unwrap();
    let git_docs = parse_side(git, Side::Git).unwrap();
    let find = |docs: &[drift_doctor::input::Document], r: &drift_doctor::ResourceReport| {
        docs.iter()
            .map(|d| &d.object)
            .find(|o| {
                o.pointer("/metadata/name").and_then(Value::as_str) == Some(r.name.as_str())
                    && o["kind"] == r.kind.as_str()
            })
            .cloned()
    };
    let printed = |docs, r| find(docs, r).map(|o| clean(&o));
    let mut out = Vec::new();
    for r in report
        .resources
        .iter()
        .filter(|r| r.status == Status::OutOfSync)
    {
        let (live, target) = match r.presence {
            Presence::Both => {
                let live_obj = printed(&live_docs, r).expect("live object");
                let mut target = live_obj.clone();
                for d in r.differences.iter().filter(|d| d.visible) {
                    let v = if d.change == Change::Added {
                        None
                    } else {
                        d.git.as_ref()
                    };
                    set_pointer(&mut target, &d.pointer, v);
                }
                (Some(live_obj), Some(target))
            }
            Presence::GitOnly => (None, printed(&git_docs, r)),
            Presence::LiveOnly => (printed(&live_docs, r), None),
        };
        out.push(Rendered {
            group: r.group.clone(),
            kind: r.kind.clone(),
            namespace: r.namespace.clone(),
            name: r.name.clone(),
            live,
            target,
            git: find(&git_docs, r),
        });
    }
    out
}

/// Mask Secret `data` as the tools print it: Argo CD (`HideSecretData`) gives each distinct value a
/// run of `+`, 8 long and 4 longer for each next value, the same on both sides; `kubectl diff`
/// writes `***`, or `*** (before)` and `*** (after)` for a changed value.
fn mask_secret(r: &Rendered, argo: bool) -> Sides {
    let (mut live, mut target) = (r.live.clone(), r.target.clone());
    if !(r.group.is_empty() && r.kind == "Secret") {
        return (live, target);
    }
    let data = |o: &Option<Value>| -> Vec<(String, Value)> {
        o.as_ref()
            .and_then(|o| o.get("data"))
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    };
    let (live_data, target_data) = (data(&live), data(&target));
    let mut distinct: Vec<Value> = Vec::new();
    for (_, v) in live_data.iter().chain(&target_data) {
        if !distinct.contains(v) {
            distinct.push(v.clone());
        }
    }
    let argo_mask = |v: &Value| {
        let i = distinct.iter().position(|d| d == v).unwrap_or(0);
        Value::String("+".repeat(8 + 4 * i))
    };
    let changed = |k: &str| {
        live_data.iter().find(|(lk, _)| lk == k).map(|(_, v)| v)
            != target_data.iter().find(|(tk, _)| tk == k).map(|(_, v)| v)
    };
    for (obj, after) in [(&mut live, false), (&mut target, true)] {
        let Some(Value::Object(m)) = obj.as_mut().and_then(|o| o.get_mut("data")) else {
            continue;
        };
        for (k, v) in m.iter_mut() {
            *v = if argo {
                argo_mask(v)
            } else if changed(k) {
                Value::String(if after { "*** (after)" } else { "*** (before)" }.into())
            } else {
                Value::String("***".into())
            };
        }
    }
    (live, target)
}

/// kubectl's right side is the API server's answer to a dry-run apply: a spec change bumps
/// `metadata.generation`, and client-side apply records the applied file in the last-applied
/// annotation (of objects that carry one).
fn kubectl_merged(r: &Rendered) -> Option<Value> {
    let (live, target) = (r.live.as_ref()?, r.target.as_ref()?);
    let mut t = target.clone();
    if live.get("spec") != target.get("spec") {
        if let Some(g) = live.pointer("/metadata/generation").and_then(Value::as_i64) {
            t["metadata"]["generation"] = Value::from(g + 1);
        }
    }
    const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
    let applied = live
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(LAST_APPLIED));
    if let (Some(_), Some(git)) = (applied, &r.git) {
        let mut file = git.clone();
        if let Some(Value::Object(a)) = file.pointer_mut("/metadata/annotations") {
            a.remove(LAST_APPLIED);
        }
        t["metadata"]["annotations"][LAST_APPLIED] = Value::String(format!("{file}\n"));
    }
    Some(t)
}

#[derive(Default)]
struct Tally {
    same: usize,
    total: usize,
    /// Counting the differences only the YAML mode can know too.
    all_same: usize,
    all: usize,
    left_out: usize,
    misses: Vec<String>,
}

fn compare(
    tally: &mut Tally,
    scenario: &str,
    format: &str,
    yaml: &Report,
    text: &Report,
    text_src: &str,
) {
    let out_of_sync = |r: &Report| -> BTreeMap<String, Status> {
        r.resources
            .iter()
            .filter(|r| r.status == Status::OutOfSync)
            .map(|r| (r.id.clone(), r.status))
            .collect()
    };
    assert_eq!(
        out_of_sync(yaml),
        out_of_sync(text),
        "{scenario} ({format}): resources and statuses differ\n{text_src}"
    );
    for r in yaml
        .resources
        .iter()
        .filter(|r| r.status == Status::OutOfSync)
    {
        let t = text.resources.iter().find(|t| t.id == r.id).unwrap();
        for d in r.differences.iter().filter(|d| d.visible) {
            let yaml_only = ONLY_YAML_KNOWS.iter().any(|(s, f, p, _)| {
                *s == scenario && (f.is_empty() || *f == format) && d.pointer.starts_with(p)
            });
            tally.all += 1;
            let visible = || t.differences.iter().filter(|x| x.visible);
            let found = visible()
                .find(|x| {
                    // A reordering is one difference of the list holding the YAML mode's fields.
                    let list = x.git.as_ref().is_some_and(Value::is_array)
                        && d.pointer.starts_with(&format!("{}/", x.pointer));
                    x.pointer == d.pointer || list
                })
                .or_else(|| {
                    // A map added or removed whole is reported key by key from
                    // text (an ignore on the map would hide its other keys):
                    // the same when every key has the YAML mode's cause.
                    let under = format!("{}/", d.pointer);
                    let keys: Vec<_> = visible()
                        .filter(|x| x.pointer.starts_with(&under))
                        .collect();
                    keys.iter()
                        .all(|x| x.cause == d.cause)
                        .then(|| keys.first().copied())
                        .flatten()
                });
            if yaml_only {
                tally.left_out += 1;
                if found.is_some_and(|x| x.cause == d.cause) {
                    tally.all_same += 1;
                }
                continue;
            }
            tally.total += 1;
            match found {
                Some(x) if x.cause == d.cause => {
                    tally.same += 1;
                    tally.all_same += 1;
                }
                Some(x) => tally.misses.push(format!(
                    "{scenario} ({format}) {} {}: {} {:?} from the text, {} {:?} from YAML",
                    r.id, d.pointer, x.rule, x.cause, d.rule, d.cause
                )),
                None => tally.misses.push(format!(
                    "{scenario} ({format}) {} {}: not found in the text's report (has {:?})",
                    r.id,
                    d.pointer,
                    t.differences
                        .iter()
                        .map(|x| x.pointer.as_str())
                        .collect::<Vec<_>>()
                )),
            }
        }
    }
}

#[test]
fn diff_text_gives_the_yaml_mode_report() {
    let mut tally = Tally::default();
    for name in common::scenario_names() {
        let dir = format!("tests/fixtures/scenarios/{name}");
        let git = common::read(format!("{dir}/git.yaml"));
        let live = common::read(format!("{dir}/live.yaml"));
        let yaml = analyze(&git, &live, &Options::default()).unwrap();
        let objects = rendered_objects(&yaml, &git, &live);
        let argo_masked: Vec<Sides> = objects.iter().map(|r| mask_secret(r, true)).collect();
        let resources = to_render(&objects, &argo_masked);
        let kubectl_objects: Vec<Sides> = objects
            .iter()
            .map(|r| {
                let (live, target) = mask_secret(r, false);
                let bumped = kubectl_merged(r).and_then(|b| {
                    let mut t = target.clone()?;
                    t["metadata"] = b["metadata"].clone();
                    Some(t)
                });
                (live, bumped.or(target))
            })
            .collect();
        let kubectl_resources = to_render(&objects, &kubectl_objects);
        let texts = [
            ("argocd normal", render_argocd_diff(&resources, None)),
            ("argocd unified", render_argocd_diff(&resources, Some(3))),
            ("kubectl", render_kubectl_diff(&kubectl_resources)),
        ];
        for (format, text) in texts {
            if resources.is_empty() {
                assert!(text.trim().is_empty());
                continue;
            }
            let from_text = analyze_diff(&text, &Options::default())
                .unwrap_or_else(|e| panic!("{name} ({format}): {e}\n{text}"));
            assert!(from_text.warnings.is_empty(), "{:?}", from_text.warnings);
            compare(&mut tally, &name, format, &yaml, &from_text, &text);
        }
    }
    let percent = 100.0 * tally.same as f64 / tally.total.max(1) as f64;
    let all_percent = 100.0 * tally.all_same as f64 / tally.all.max(1) as f64;
    println!(
        "diff text round trip: the same cause for {}/{} visible differences ({percent:.1}%); \
         {}/{} ({all_percent:.1}%) counting the {} the text does not hold what decides",
        tally.same, tally.total, tally.all_same, tally.all, tally.left_out
    );
    for m in &tally.misses {
        println!("  {m}");
    }
    for (s, f, p, why) in ONLY_YAML_KNOWS {
        let f = if f.is_empty() { "all formats" } else { f };
        println!("  left out: {s} ({f}) {p}: {why}");
    }
    assert!(
        percent >= 90.0,
        "only {percent:.1}% of the visible differences get the YAML mode's cause"
    );
}
