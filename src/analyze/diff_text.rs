//! The second entry of the pipeline: text that `argocd app diff` or
//! `kubectl diff` printed, read into changes (`difftext`) and given causes
//! and fixes as whole objects are.

use super::*;

/// What the pasted text tells about a change beyond the rule's verdict.
enum TextEvidence {
    /// Replaces the evidence (bookkeeping that is no difference).
    Instead(String),
    /// What Argo CD's Secret masks tell: replaces a drift verdict's evidence (the masked-value
    /// rule's, which they say more precisely), follows any other.
    Masks(String),
    /// Follows the evidence.
    More(String),
}

/// Evidence only diff text gives: `kubectl diff` bookkeeping, what Argo CD's Secret masks say,
/// and the changed Secret or ConfigMap of the same paste that a `checksum/` annotation follows.
fn diff_text_evidence(
    key: &ResourceKey,
    c: &crate::difftext::TextChange,
    changed_sources: &[ResourceKey],
) -> Option<TextEvidence> {
    if let Some(reason) = &c.hidden {
        return Some(TextEvidence::Instead(format!(
            "Not a difference: {reason}."
        )));
    }
    if key.group.is_empty() && key.kind == "Secret" {
        let masks = crate::difftext::mask_evidence(c.git.as_ref(), c.live.as_ref())?;
        return Some(TextEvidence::Masks(format!(
            "{} is masked on both sides. {masks}",
            path::dotted(&c.path)
        )));
    }
    let checksum = matches!(c.path.last(), Some(path::Seg::Key(k)) if k.starts_with("checksum/"));
    let sources: Vec<String> = changed_sources
        .iter()
        .filter(|s| checksum && s.namespace == key.namespace)
        .map(|s| format!("{} {}/{}", s.kind, s.namespace, s.name))
        .collect();
    (!sources.is_empty()).then(|| {
        TextEvidence::More(format!(
            "The same paste changes {}: a `checksum/` annotation is a hash of such content, so it follows that change; resolve it and this one goes with it.",
            sources.join(", ")
        ))
    })
}

/// One resource of pasted diff output: presence, changes, partial Git and live objects.
type TextResourceParts = (
    Presence,
    Vec<crate::difftext::TextChange>,
    Option<Value>,
    Option<Value>,
);

/// Analyse the text `argocd app diff` or `kubectl diff` printed: the same
/// report, built from the changed lines. Paths the hunks do not show fully get
/// a lower confidence and say so in the evidence. The user's ignoreDifferences
/// rules (`opts.compare.ignore_rules`) hide what their JSON pointers and jq
/// expressions cover; `managedFieldsManagers` cannot apply, since diff output
/// carries no `managedFields`.
pub fn analyze_diff(text: &str, opts: &Options) -> Result<Report, InputError> {
    analyze_diff_text(text, opts, None, None)
}

/// [`analyze_diff`] with the Application's sections (a second render needs
/// whole objects, which diff text does not hold).
pub fn analyze_diff_with(
    text: &str,
    opts: &Options,
    evidence: Evidence<'_>,
) -> Result<Report, InputError> {
    let named = evidence
        .application
        .map(|a| a.name())
        .filter(|n| !n.is_empty());
    let mut report = analyze_diff_text(text, opts, named, evidence.observed)?;
    if let Some(app) = evidence.application {
        with_application(&mut report, app, opts);
    }
    with_observed(&mut report, evidence.observed);
    Ok(report)
}

fn analyze_diff_text(
    text: &str,
    opts: &Options,
    named_app: Option<&str>,
    observed: Option<&crate::evidence::Observed>,
) -> Result<Report, InputError> {
    // Read the masked text, as a link carries it: the diff masker finds Secrets by their visible
    // `kind:` even under a header naming another kind, and sender and receiver see the same report.
    let masks = secret_mask::Masks::for_texts(&[text]);
    let (masked, _) = secret_mask::mask_secrets_in_text(text, &masks);
    let crate::difftext::DiffText {
        resources: parsed,
        warnings,
    } = crate::difftext::read_diff_text(&masked)?;
    let mut ctx = InputContext::default();
    ctx.observed = observed.map(|o| std::sync::Arc::new(o.clone()));
    ctx.partial_objects = true;
    ctx.whole_app_diff = !parsed.is_empty()
        && parsed.iter().all(|r| {
            matches!(
                r.format,
                crate::difftext::TextFormat::ArgoNormal | crate::difftext::TextFormat::ArgoUnified
            )
        });
    let mut merged: BTreeMap<ResourceKey, TextResourceParts> = BTreeMap::new();
    for r in parsed {
        let key = ResourceKey {
            group: crate::identity::canonical_group(&r.group, &r.kind),
            kind: r.kind.clone(),
            namespace: r.namespace.clone(),
            name: r.name.clone(),
        };
        if let Some(obj) = &r.git_object {
            ctx.learn(&key, obj, true);
        }
        if let Some(obj) = &r.live_object {
            ctx.learn(&key, obj, false);
        }
        let presence = r.presence;
        let entry = merged
            .entry(key)
            .or_insert((presence, Vec::new(), None, None));
        entry.1.extend(r.changes);
        entry.2 = entry.2.take().or(r.git_object);
        entry.3 = entry.3.take().or(r.live_object);
    }
    // Secrets and ConfigMaps whose content changed in this paste: a workload's `checksum/…`
    // annotation is a hash of such content and follows it.
    let changed_sources: Vec<ResourceKey> = merged
        .iter()
        .filter(|(k, (_, changes, ..))| {
            k.group.is_empty()
                && matches!(k.kind.as_str(), "Secret" | "ConfigMap")
                && changes.iter().any(|c| {
                    matches!(c.path.first(), Some(path::Seg::Key(f)) if f == "data" || f == "stringData" || f == "binaryData")
                })
        })
        .map(|(k, _)| k.clone())
        .collect();
    let catalog = rules::catalog();
    let mut resources = Vec::new();
    let mut remaining = Vec::new();
    for (key, (presence, changes, git_obj, live_obj)) in merged {
        let user_rules: Vec<&crate::ignore::IgnoreRule> = opts
            .compare
            .ignore_rules
            .iter()
            .filter(|r| r.applies_to(&key))
            .collect();
        let explain_change = |raw: RawDiff,
                              certain: bool,
                              extra: &Option<TextEvidence>,
                              note: &Option<String>,
                              refused: Option<&str>| {
            let mut d = classify(
                &key,
                presence,
                raw,
                git_obj.as_ref(),
                live_obj.as_ref(),
                &ctx,
                catalog,
                certain,
                &masks,
                refused,
            );
            match extra {
                Some(TextEvidence::Instead(text)) => d.evidence = text.clone(),
                Some(TextEvidence::Masks(text)) if d.cause == Cause::Drift => {
                    d.evidence = text.clone()
                }
                Some(TextEvidence::More(text) | TextEvidence::Masks(text)) => {
                    d.evidence = format!("{} {text}", d.evidence)
                }
                None => {}
            }
            if let Some(note) = note {
                d.evidence = format!("{} (Path partly inferred: {note})", d.evidence);
            }
            d
        };
        let mut differences = Vec::new();
        let mut text_facts = Vec::new();
        let mut any_hidden = false;
        for c in changes {
            let change = match (&c.git, &c.live) {
                (Some(_), Some(_)) => Change::Changed,
                (Some(_), None) => Change::Removed,
                (None, _) => Change::Added,
            };
            let note = c.note.clone();
            let extra = diff_text_evidence(&key, &c, &changed_sources);
            let hidden_reason = c
                .live
                .as_ref()
                .or(c.git.as_ref())
                .and_then(|v| crate::ignore::rule_hiding(&user_rules, &c.path, v))
                .map(|r| crate::HiddenReason::UserRule {
                    source: r.source.clone(),
                })
                .or_else(|| c.hidden.clone());
            if hidden_reason.is_some() {
                any_hidden = true;
                if !opts.compare.include_hidden {
                    continue;
                }
            }
            let raw = RawDiff {
                path: c.path,
                change,
                git: c.git,
                live: c.live,
                hidden_reason,
            };
            let d = explain_change(raw, c.certain, &extra, &note, None);
            differences.push(d);
            text_facts.push((c.certain, extra, note));
        }
        hold_back_by_refused_apply(&mut differences, catalog, |i, d, refused| {
            let (certain, extra, note) = &text_facts[i];
            explain_change(raw_of(d), *certain, extra, note, Some(refused))
        });
        // A resource whose every change your rules hide is Synced for Argo CD.
        if differences.is_empty() && !any_hidden {
            continue;
        }
        let mut resource = finish_resource(&key, presence, differences, opts.compare.release);
        let left = crate::verify::verify_text_resource(&mut resource, &opts.compare);
        if !left.is_empty() {
            remaining.push((resource.id.clone(), left));
        }
        resources.push(resource);
    }
    crate::verify::instance_wide(&mut resources, &opts.compare);
    let mut report = build_report(
        resources,
        0,
        ctx.application.clone(),
        named_app,
        opts.compare.release,
    );
    let app_name = fragment_app_name(&report, named_app);
    report.plan = crate::plan::build(&report, &remaining, &app_name);
    report.warnings = comparison_warnings(&opts.compare);
    report
        .warnings
        .extend(warnings.iter().map(ToString::to_string));
    Ok(report)
}
