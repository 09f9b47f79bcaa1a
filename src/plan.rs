//! One plan per app: every recommended fix of a report combined (one
//! Application `spec.ignoreDifferences` block, merged and deduplicated, with
//! the `syncOptions` it needs; the Git, render and sync-order changes), and
//! what is left once they are applied together: drift, which needs a sync
//! or a change in Git, and anything no verified fix resolves.

#![warn(missing_docs)]

use crate::fixes::{write_entry_head, write_ignored, yaml_quote};
use crate::ignore::IgnoreRule;
use crate::model::*;
use crate::sorting::CollectByInsertion;
use crate::verify::{fix_rule, FixForm};
use crate::CompareOptions;
use std::collections::{BTreeMap, BTreeSet};

/// The name the Application fragment carries when the input does not say
/// which app it belongs to.
pub const APP_PLACEHOLDER: &str = "my-app";

/// The plan of a report, given what still differs in each resource once its
/// recommended fixes are applied. None when nothing differs.
pub fn build(report: &Report, remaining: &[(String, Vec<Difference>)], app: &str) -> Option<Plan> {
    if report.summary.out_of_sync == 0 {
        return None;
    }
    // The fixes' rules are only written out here, never run: any options do.
    let copts = CompareOptions::default();
    let mut rules: Vec<IgnoreRule> = Vec::new();
    let mut respect = false;
    let mut git = Vec::new();
    let mut later = Vec::new();
    let mut render = Vec::new();
    let mut sync_order: Vec<PlanStep> = Vec::new();
    let mut sync_order_listed: BTreeSet<(&str, &str)> = BTreeSet::new();
    for r in &report.resources {
        for f in &r.fixes {
            let step = || PlanStep {
                resource: r.id.clone(),
                title: f.title.clone(),
                snippet: f.snippet.clone(),
                verified: f.verified,
            };
            match f.kind {
                FixKind::Ignore if f.recommended => {
                    respect |= f.ignore.as_ref().is_some_and(|s| s.respect);
                    rules.extend(fix_rule(f, FixForm::Application, &copts));
                }
                FixKind::Git if f.recommended => git.push(step()),
                FixKind::Git if safe_after_ignore(r, f) => later.push(PlanStep {
                    snippet: format!(
                        "{} Only once the ignore rule above is in place: without it, {}",
                        f.snippet,
                        first_harm(f).unwrap_or_default()
                    ),
                    ..step()
                }),
                FixKind::Render if f.recommended => render.push(step()),
                // Sync order cannot be checked offline, so it is never
                // recommended; the plan lists each such change once.
                FixKind::SyncOrder if sync_order_listed.insert((&r.id, &f.title)) => {
                    sync_order.push(step())
                }
                _ => {}
            }
        }
    }
    let mut drift = Vec::new();
    let mut unresolved = Vec::new();
    let by_id: BTreeMap<&str, &ResourceReport> = report
        .resources
        .iter()
        .map(|r| (r.id.as_str(), r))
        .collect_by_insertion();
    for (id, left) in remaining {
        let resource = by_id.get(id.as_str()).copied();
        for d in left {
            let field = PlanField {
                resource: id.clone(),
                pointer: d.pointer.clone(),
                field: d.field.clone(),
                cause: d.cause,
                note: String::new(),
                needs_pruning: false,
            };
            if d.cause == Cause::Drift {
                let note = resource
                    .and_then(|r| drift_fix(r, &d.pointer))
                    .unwrap_or_else(|| "A real change: sync to restore Git's value, or change Git if the live value is right.".into());
                let needs_pruning = resource.is_some_and(|r| r.presence == Presence::LiveOnly);
                drift.push(PlanField {
                    note,
                    needs_pruning,
                    ..field
                });
            } else {
                let note = resource
                    .map(|r| why_unresolved(r, &d.pointer))
                    .unwrap_or_default();
                unresolved.push(PlanField { note, ..field });
            }
        }
    }
    let resolves = unresolved.is_empty();
    let waiting = unresolved
        .iter()
        .filter(|f| f.cause == Cause::SyncOrdering)
        .count();
    let mut left = Vec::new();
    if !drift.is_empty() {
        // A plain sync leaves a live-only object in place: only pruning ends it.
        let prune = drift.iter().any(|f| f.needs_pruning);
        left.push(format!(
            "{} of real drift, which a sync{} or a change in Git ends",
            count(drift.len(), "field"),
            if prune { " with pruning" } else { "" }
        ));
    }
    if waiting > 0 {
        left.push(format!(
            "{} waiting on a sync-order change that only the next sync can confirm",
            count(waiting, "field")
        ));
    }
    if unresolved.len() > waiting {
        left.push(format!(
            "{} no verified fix resolves",
            count(unresolved.len() - waiting, "field")
        ));
    }
    // Only steps are applied and compared again; without any, the plan
    // says what is left as it is.
    let steps = !rules.is_empty()
        || [&git, &later, &render, &sync_order]
            .iter()
            .any(|s| !s.is_empty());
    let done = if steps {
        "Compared again with every step applied"
    } else {
        "No step to apply"
    };
    let verification = if left.is_empty() {
        format!(
            "{done}: every resource is Synced ({}).",
            count(report.summary.resources, "resource")
        )
    } else {
        format!("{done}; still differing: {}.", left.join("; "))
    };
    Some(Plan {
        verified: if resolves {
            Verified::Resolves
        } else {
            Verified::Partial
        },
        verification,
        application: application_fragment(app, &rules, respect),
        git,
        sync_order,
        render,
        later,
        drift,
        unresolved,
    })
}

/// A Git fix whose own sync would harm (`Fix::sync_effects`) but whose
/// fields a recommended ignore rule with `RespectIgnoreDifferences=true`
/// keeps at their live values in every sync: safe once that rule is in place.
fn safe_after_ignore(r: &ResourceReport, f: &crate::model::Fix) -> bool {
    !f.recommended
        && first_harm(f).is_some()
        && r.fixes.iter().any(|i| {
            i.kind == FixKind::Ignore
                && i.recommended
                && i.ignore.as_ref().is_some_and(|s| s.respect)
                && f.pointers.iter().all(|p| i.pointers.contains(p))
        })
}

/// The first harmful effect of a fix's sync, lowercased to follow "without it,".
fn first_harm(f: &crate::model::Fix) -> Option<String> {
    let e = f.sync_effects.iter().find(|e| e.kind.harms())?;
    let mut m = e.message.clone();
    if let Some(first) = m.get(..1) {
        m.replace_range(..1, &first.to_lowercase());
    }
    Some(m)
}

/// The plan's steps besides the Application fragment, each list with what
/// it asks, in the order to take them (renderers and the page share it).
pub fn step_groups(plan: &Plan) -> [(&'static str, &[PlanStep]); 4] {
    [
        ("Change Git", &plan.git),
        ("Make the render deterministic", &plan.render),
        (
            "Change the sync order (only the next sync can confirm it)",
            &plan.sync_order,
        ),
        (
            "Then, with the ignore rule in place, change Git",
            &plan.later,
        ),
    ]
}

/// `1 field`, `2 fields`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// What ends the drift of a live object Git lacks: the fix its card shows
/// (prune it, or add it back to Git), so the card and the plan name one
/// fix. None for other drift, which a sync ends.
fn drift_fix(r: &ResourceReport, pointer: &str) -> Option<String> {
    if r.presence != Presence::LiveOnly {
        return None;
    }
    r.fixes
        .iter()
        .find(|f| f.cause == Cause::Drift && f.pointers.iter().any(|p| p == pointer))
        .map(|f| f.snippet.clone())
}

/// Why no fix of a resource is recommended for a field.
fn why_unresolved(r: &ResourceReport, pointer: &str) -> String {
    let fixes: Vec<&Fix> = r
        .fixes
        .iter()
        .filter(|f| f.pointers.iter().any(|p| p == pointer))
        .collect();
    if let Some(f) = fixes.iter().find(|f| f.warning.is_some()) {
        return format!("{} {}", f.title, f.warning.as_deref().unwrap_or_default());
    }
    if let Some(f) = fixes
        .iter()
        .find(|f| f.verified == Verified::Partial && !f.verification.is_empty())
    {
        return f.verification.clone();
    }
    if let Some(f) = fixes.iter().find(|f| f.kind == FixKind::SyncOrder) {
        return format!("{}: {}", f.title, f.verification);
    }
    match fixes.first() {
        Some(f) if !f.verification.is_empty() => format!("{}: {}", f.title, f.verification),
        _ => "No fix drift-doctor knows resolves it: read its evidence.".into(),
    }
}

/// One `spec.ignoreDifferences` entry per object, its pointers and jq
/// paths merged in their order.
struct Entry {
    group: String,
    kind: String,
    name: Option<String>,
    namespace: Option<String>,
    pointers: Vec<String>,
    jq: Vec<String>,
    managers: Vec<String>,
}

/// The Application fragment `analyze --app` reads back; empty when there
/// is no rule to write.
pub fn application_fragment(app: &str, rules: &[IgnoreRule], respect: bool) -> String {
    if rules.is_empty() {
        return String::new();
    }
    let mut entries: BTreeMap<(String, String, String, String), Entry> = BTreeMap::new();
    for r in rules {
        let k = (
            r.group.clone(),
            r.kind.clone(),
            r.namespace.clone().unwrap_or_default(),
            r.name.clone().unwrap_or_default(),
        );
        let e = entries.entry(k).or_insert_with(|| Entry {
            group: r.group.clone(),
            kind: r.kind.clone(),
            name: r.name.clone(),
            namespace: r.namespace.clone(),
            pointers: Vec::new(),
            jq: Vec::new(),
            managers: Vec::new(),
        });
        let add = |into: &mut Vec<String>, from: &[String]| {
            for x in from {
                if !into.contains(x) {
                    into.push(x.clone());
                }
            }
        };
        add(&mut e.pointers, &r.json_pointers);
        add(&mut e.jq, &r.jq_path_expressions);
        add(&mut e.managers, &r.managed_fields_managers);
    }
    let mut out = String::new();
    out.push_str("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n");
    out.push_str(&format!("  name: {}\n", yaml_quote(app)));
    out.push_str("spec:\n  ignoreDifferences:\n");
    for e in entries.values() {
        write_entry_head(
            &mut out,
            &e.group,
            &e.kind,
            e.name.as_deref(),
            e.namespace.as_deref(),
        );
        write_ignored(&mut out, "      ", &e.pointers, &e.jq, &e.managers);
    }
    if respect {
        out.push_str("  syncPolicy:\n    syncOptions:\n      # keep the owners' live values when syncing (add to your existing options)\n      - RespectIgnoreDifferences=true\n");
    }
    out
}
