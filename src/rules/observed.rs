//! What the pasted events and logs say about one differing field: the
//! lines that name its object and explain it (`evidence::patterns`), and
//! the cause they prove. A line that names the writer outright is stronger
//! than the input's heuristics: it confirms a verdict of the same cause
//! (high confidence) or replaces a guess, taking the catalogue rule the
//! pattern names so the fixes fit. It never overrides `managedFields` that
//! show a person wrote the live value last (the later write wins).

use super::explain::Explanation;
use super::{Catalog, Finding};
use crate::evidence::patterns::{patterns, Pattern, Target};
use crate::evidence::{Observed, Said, When};
use crate::model::{Cause, Confidence, ManagerClass, Observation};
use serde_json::Value;

/// The most lines kept per difference.
const MAX_PER_FIELD: usize = 12;
/// A write this many seconds after a sync is stated as following it.
const AFTER_SYNC: i64 = 120;

/// One line that explains the field.
struct Hit<'a> {
    pattern: &'a Pattern,
    said: &'a Said,
    vars: Vec<(String, String)>,
    /// The line names the object itself (or the input links them), rather
    /// than the field's value matching what it says.
    certain: bool,
}

/// Attach the lines that explain this field, and let them decide the cause
/// where they prove the writer.
pub fn refine(catalog: &Catalog, f: &Finding<'_>, secret: bool, e: &mut Explanation) {
    let Some(observed) = f.input.observed.as_deref() else {
        return;
    };
    let Ok(list) = patterns() else {
        return;
    };
    let tokens = crate::path::tokens(f.path);
    let mut hits: Vec<Hit> = Vec::new();
    for said in &observed.said {
        // The first entry that recognises a line speaks for it.
        for p in list {
            if p.target == Target::Application || !p.explains(&tokens) {
                continue;
            }
            let vars = if p.target == Target::Field {
                field_line(said, f)
            } else {
                p.recognise(said)
            };
            let Some(vars) = vars else { continue };
            if let Some(certain) = leads_to(p, said, &vars, f) {
                hits.push(Hit {
                    pattern: p,
                    said,
                    vars,
                    certain,
                });
                break;
            }
        }
    }
    if hits.is_empty() {
        return;
    }
    let proving = hits
        .iter()
        .enumerate()
        .filter(|(_, h)| h.pattern.cause.is_some())
        // Certain links first, then the latest line.
        .max_by_key(|(i, h)| (h.certain, *i))
        .map(|(i, _)| i);
    let mut proved = None;
    if let Some(i) = proving {
        let h = &hits[i];
        let cause = h.pattern.cause.unwrap_or(Cause::Drift);
        let person = e
            .written_by
            .as_ref()
            .is_some_and(|w| w.class == ManagerClass::Person);
        let sentence = crate::text::fill(&h.pattern.evidence, &vars_for(h, f, secret));
        if e.cause == cause {
            e.confidence = if h.certain {
                Confidence::High
            } else {
                e.confidence.max(Confidence::Medium)
            };
            e.evidence = format!("{} {sentence}", e.evidence);
            proved = Some(h.pattern.code.as_str());
        } else if !person {
            if let Some(rule) = h
                .pattern
                .rule
                .as_deref()
                .and_then(|c| catalog.get(c))
                .filter(|r| r.cause == cause)
            {
                e.evidence = format!(
                    "{sentence} (The manifests alone gave {} `{}`: {})",
                    e.rule,
                    e.cause.id(),
                    crate::text::one_line(&e.evidence, 200)
                );
                e.rule = rule.code.clone();
                e.cause = cause;
                e.confidence = if h.certain {
                    Confidence::High
                } else {
                    Confidence::Medium
                };
                e.by_hand = false;
                proved = Some(h.pattern.code.as_str());
            }
        } else {
            e.evidence = format!(
                "{} The events and logs also show {} writing it, but managedFields record a person's tool as the last writer.",
                e.evidence, h.pattern.writer
            );
        }
    }
    if let Some(note) = after_sync(e, observed) {
        e.evidence = format!("{} {note}", e.evidence);
    }
    let start = hits.len().saturating_sub(MAX_PER_FIELD);
    e.observed = hits[start..]
        .iter()
        .map(|h| Observation {
            code: h.pattern.code.clone(),
            origin: h.said.origin.id().to_string(),
            location: h.said.location(),
            time: (!h.said.time_text.is_empty()).then(|| h.said.time_words()),
            count: (h.said.count > 1).then_some(h.said.count),
            writer: h.pattern.writer.clone(),
            object: h
                .said
                .object
                .as_ref()
                .map_or_else(|| "an object".to_string(), |o| o.describe()),
            quote: h.said.quote.clone(),
            proves: proved == Some(h.pattern.code.as_str()),
        })
        .collect();
}

/// The variables of a hit's evidence sentence.
fn vars_for(h: &Hit<'_>, f: &Finding<'_>, secret: bool) -> Vec<(String, String)> {
    // A Secret's values are never quoted.
    let short = |v: Option<&Value>| {
        if secret {
            "(secret value)".to_string()
        } else {
            crate::text::one_line(&crate::text::value_or_absent(v), 60)
        }
    };
    let mut vars = super::explain::template_vars(f.key, f.path, short(f.git), short(f.live), None);
    let object = h.said.object.clone().unwrap_or_default();
    vars.push(("object".into(), object.describe()));
    vars.push(("object_name".into(), object.name.clone()));
    vars.push(("time".into(), h.said.time_words()));
    vars.push((
        "times".into(),
        if h.said.count > 1 {
            format!("{} times, the last {}", h.said.count, h.said.time_words())
        } else {
            h.said.time_words()
        },
    ));
    vars.extend(h.vars.iter().cloned());
    vars
}

/// `wrote it 4s after Argo CD's sync at …`, when the live value's
/// `managedFields` time follows one of the syncs the events or logs record.
fn after_sync(e: &Explanation, observed: &Observed) -> Option<String> {
    let w = e.written_by.as_ref()?;
    if w.class == ManagerClass::ArgoCd {
        return None;
    }
    let at = crate::evidence::time::rfc3339_seconds(w.time.as_deref()?)?;
    let syncs = crate::evidence::sync_loop::sync_times(observed);
    let last_sync = syncs
        .iter()
        .filter_map(|s| match s {
            When::At(t) if *t <= at => Some(*t),
            _ => None,
        })
        .max()?;
    let after = at - last_sync;
    (after <= AFTER_SYNC).then(|| {
        let n = syncs.iter().filter(|s| matches!(s, When::At(_))).count();
        format!(
            "`{}` wrote it {after}s after the last of Argo CD's {}, at {}: it rewrites the field right after each sync.",
            w.manager,
            crate::text::count(n, "recorded sync", "recorded syncs"),
            w.time.as_deref().unwrap_or("")
        )
    })
}

fn var<'v>(vars: &'v [(String, String)], key: &str) -> Option<&'v str> {
    vars.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())
}

/// Whether the line leads to this field's resource: Some(certain) when it
/// does.
fn leads_to(p: &Pattern, said: &Said, vars: &[(String, String)], f: &Finding<'_>) -> Option<bool> {
    let key = f.key;
    let object = said.object.as_ref();
    let names_key = |o: &crate::evidence::ObjectRef| o.names(&key.kind, &key.namespace, &key.name);
    match p.target {
        Target::Own => object.filter(|o| names_key(o)).map(|_| true),
        // `field_line` found the object named in the message.
        Target::Field => Some(true),
        Target::Named => {
            let name = var(vars, "target_name")?;
            let kind = var(vars, "target_kind").unwrap_or("");
            let ns = var(vars, "target_namespace")
                .or_else(|| said.field("namespace"))
                .unwrap_or("");
            let o = crate::evidence::ObjectRef {
                kind: kind.to_string(),
                name: name.to_string(),
                namespace: ns.to_string(),
            };
            names_key(&o).then_some(true)
        }
        Target::Scaler => {
            let (name, ns) = match object {
                Some(o) if said.origin == crate::evidence::Origin::Event => {
                    (o.name.as_str(), o.namespace.as_str())
                }
                _ => (var(vars, "scaler_name")?, ""),
            };
            let in_ns = ns.is_empty() || ns == key.namespace;
            // The input's HPA names its target.
            let by_input = f.input.scalers.iter().find(|s| {
                !s.is_vpa
                    && {
                        let id = format!(" {}/{name}", s.namespace);
                        s.describe.match_indices(&id).any(|(i, _)| {
                            s.describe[i + id.len()..]
                                .chars()
                                .next()
                                .is_none_or(|c| c == ' ')
                        })
                    }
                    && (ns.is_empty() || s.namespace == ns)
            });
            if let Some(s) = by_input {
                return (s.namespace == key.namespace
                    && s.target_name == key.name
                    && s.target_kind.eq_ignore_ascii_case(&key.kind))
                .then_some(true);
            }
            // describe's `Reference: Deployment/web`.
            if let Some(r) = said.field("reference") {
                let (kind, target) = r.split_once('/')?;
                return (in_ns && target == key.name && kind.eq_ignore_ascii_case(&key.kind))
                    .then_some(true);
            }
            // Without the HPA: its new size is the live count.
            let size: i64 = var(vars, "size")?.parse().ok()?;
            (in_ns && f.live.and_then(Value::as_i64) == Some(size)).then_some(false)
        }
        Target::Certificate => {
            let o = object?;
            let cert = f
                .live_obj?
                .pointer("/metadata/annotations/cert-manager.io~1certificate-name")?
                .as_str()?;
            (key.group.is_empty()
                && key.kind == "Secret"
                && cert == o.name
                && (o.namespace.is_empty() || o.namespace == key.namespace))
                .then_some(true)
        }
        Target::Owner => {
            let o = object?;
            if names_key(o) {
                return Some(true);
            }
            // A ReplicaSet is named `<deployment>-<pod-template-hash>` by the deployment controller.
            let owner = o.name.rsplit_once('-').map(|(d, _)| d)?;
            (o.kind.eq_ignore_ascii_case("ReplicaSet")
                && key.kind == "Deployment"
                && owner == key.name
                && (o.namespace.is_empty() || o.namespace == key.namespace))
                .then_some(true)
        }
        Target::Application => None,
    }
}

/// A program's log line that names the object and the field's whole path
/// (`spec.replicas`), not Argo CD's own.
fn field_line(said: &Said, f: &Finding<'_>) -> Option<Vec<(String, String)>> {
    if said.origin != crate::evidence::Origin::Log
        || said.source.starts_with("argocd")
        || f.path.is_empty()
    {
        return None;
    }
    let m = &said.message;
    let dotted = crate::path::dotted(f.path);
    let word = |w: &str| {
        m.match_indices(w).any(|(i, _)| {
            let before = m[..i].chars().next_back();
            let after = m[i + w.len()..].chars().next();
            let edge =
                |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '-' || c == '_'));
            edge(before) && edge(after)
        })
    };
    let key = f.key;
    let names_object = word(&format!("{}/{}", key.namespace, key.name))
        || (word(&key.name)
            && m.to_ascii_lowercase()
                .contains(&key.kind.to_ascii_lowercase()));
    (names_object && dotted.contains('.') && word(&dotted)).then(|| {
        vec![(
            "message".to_string(),
            crate::text::one_line(&said.message, 200),
        )]
    })
}
