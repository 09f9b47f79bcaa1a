//! Fixes: the narrowest `ignoreDifferences` rule (Application and argocd-cm
//! forms), Git changes, sync-order changes and render fixes, built from the
//! rule that explained each difference. Real drift never gets an ignore fix,
//! and neither does a security-relevant field, whatever explained it.

#![warn(missing_docs)]

mod sensitive;
mod snippet;

pub use sensitive::{is_sensitive, sensitive_reason, SENSITIVE_PATHS};
pub use snippet::{annotation_form, ignore_snippet, snippet_forms};
pub(crate) use snippet::{write_entry_head, write_ignored, yaml_quote};

use crate::identity::ResourceKey;
use crate::model::*;
use crate::path::{self, Seg};
use crate::rules::{self, IgnoreTemplate, Rule};
use crate::text::fill;

/// The path an ignore rule should name for a difference: its own path, its
/// parent, or the rule's pattern (where `*` becomes "every item").
fn ignore_path(t: &IgnoreTemplate, diff_path: &[Seg]) -> Vec<Seg> {
    match t.path.as_str() {
        "self" => diff_path.to_vec(),
        "parent" => diff_path[..diff_path.len().saturating_sub(1)].to_vec(),
        pattern => {
            // Keep the difference's keyed items where the pattern has `*`,
            // so the ignore stays on the one webhook/container that differs.
            let toks = path::split_pattern(pattern);
            let mut out = Vec::new();
            for (i, t) in toks.iter().enumerate() {
                match (t.as_str(), diff_path.get(i)) {
                    ("*", Some(seg @ Seg::Item { key: Some(_), .. })) => out.push(seg.clone()),
                    ("*", _) => out.push(Seg::Item {
                        index: None,
                        key: None,
                    }),
                    (k, _) => out.push(Seg::Key(k.to_string())),
                }
            }
            out
        }
    }
}

/// The rule of an ignore fix for `paths` of the object `key`: exact paths
/// as `jsonPointers`, paths through list items by key as `jqPathExpressions`.
pub fn ignore_spec(
    key: &ResourceKey,
    paths: &[Vec<Seg>],
    respect: bool,
    trust_instead: &[String],
) -> IgnoreSpec {
    let mut spec = IgnoreSpec {
        group: key.group.clone(),
        kind: key.kind.clone(),
        name: key.name.clone(),
        namespace: key.namespace.clone(),
        trust_instead: trust_instead.to_vec(),
        respect,
        ..IgnoreSpec::default()
    };
    for p in paths {
        let (list, text) = if path::pointer_is_exact(p) {
            (&mut spec.json_pointers, path::pointer(p))
        } else {
            (&mut spec.jq_path_expressions, path::jq_with(p, true))
        };
        if !list.contains(&text) {
            list.push(text);
        }
    }
    spec
}

/// Every fix for one resource, in the order its rules first appear.
pub fn fixes_for(
    key: &ResourceKey,
    differences: &[Difference],
    release: crate::ArgoCdRelease,
) -> Vec<Fix> {
    let catalog = rules::catalog();
    let visible: Vec<&Difference> = differences.iter().filter(|d| d.visible).collect();
    let mut order: Vec<&str> = Vec::new();
    for d in &visible {
        if !order.contains(&d.rule.as_str()) {
            order.push(&d.rule);
        }
    }
    let mut fixes = Vec::new();
    for code in order {
        let Some(rule) = catalog.get(code) else {
            continue;
        };
        let diffs: Vec<&&Difference> = visible.iter().filter(|d| d.rule == code).collect();
        fixes.extend(fixes_for_rule(key, rule, &diffs, release));
    }
    fixes
}

fn vars_for(key: &ResourceKey, d: &Difference) -> Vec<(String, String)> {
    let text = |v: &Option<serde_json::Value>| crate::text::value_or_absent(v.as_ref());
    crate::rules::explain::template_vars(
        key,
        &d.segs,
        text(&d.git),
        text(&d.live),
        d.written_by.as_ref().map(|w| w.manager.as_str()),
    )
}

fn fixes_for_rule(
    key: &ResourceKey,
    rule: &Rule,
    diffs: &[&&Difference],
    release: crate::ArgoCdRelease,
) -> Vec<Fix> {
    let mut out = Vec::new();
    let Some(first) = diffs.first() else {
        return out;
    };
    let vars = vars_for(key, first);
    let pointers: Vec<String> = diffs.iter().map(|d| d.pointer.clone()).collect();
    let t = &rule.fix;
    if let (Some(ig), false) = (&t.ignore, rule.cause == Cause::Drift) {
        let eligible: Vec<&&&Difference> = diffs
            .iter()
            .filter(|d| !is_sensitive(key, &d.pointer) && !d.pointer.is_empty())
            .collect();
        if !eligible.is_empty() {
            let mut paths: Vec<Vec<Seg>> = Vec::new();
            for d in &eligible {
                let p = ignore_path(ig, &d.segs);
                if !paths.contains(&p) {
                    paths.push(p);
                }
            }
            let title = format!(
                "Ignore {}: {}",
                paths
                    .iter()
                    .map(|p| path::dotted(p))
                    .collect::<Vec<_>>()
                    .join(", "),
                rule.title
            );
            let has_better_fix = t.git.is_some() || t.render.is_some() || t.sync_order.is_some();
            let managers: Vec<String> = ig
                .managers
                .iter()
                .map(|m| fill(m, &vars))
                .filter(|m| !m.contains('{'))
                .collect();
            let mut spec = ignore_spec(key, &paths, ig.respect, &managers);
            // The object's own annotation takes JSON pointers only (argo-cd
            // PR #29616).
            spec.annotation = spec.jq_path_expressions.is_empty()
                && !spec.json_pointers.is_empty()
                && release.has(crate::argocd_release::Behaviour::ResourceIgnoreAnnotation);
            let snippet = ignore_snippet(&spec, has_better_fix, &title);
            let mut fix = Fix::new(
                rule.cause,
                FixKind::Ignore,
                title,
                eligible.iter().map(|d| d.pointer.clone()).collect(),
                snippet,
            );
            fix.ignore = Some(spec);
            out.push(fix);
        }
    }
    // Values that differ per cluster or per pod (a probe an injector
    // rewrote for its agent, an injected container, a CA bundle) do not
    // belong in Git: the rule names them in `git_not_for`.
    let git_offered = t.git_change != Some(GitChange::WriteLive)
        || diffs.iter().all(|d| rule.git_fix_fits(&d.segs));
    if let (Some(git), true) = (&t.git, git_offered) {
        let title = if rule.cause == Cause::Drift {
            "Sync, or fix Git".to_string()
        } else {
            format!("Fix in Git: {}", rule.title)
        };
        let mut fix = Fix::new(
            rule.cause,
            FixKind::Git,
            title,
            pointers.clone(),
            fill(git, &vars),
        );
        fix.git_change = t.git_change;
        if let Some(ig) = &t.ignore {
            for d in diffs {
                let p = ignore_path(ig, &d.segs);
                if !fix.git_paths.contains(&p) {
                    fix.git_paths.push(p);
                }
            }
        }
        out.push(fix);
    }
    if let Some(sync) = &t.sync_order {
        let mut snippet = fill(sync, &vars);
        if let Some(extra) = &t.sync_order_snippet {
            snippet.push_str("\n\n");
            snippet.push_str(&fill(extra, &vars));
        }
        out.push(Fix::new(
            rule.cause,
            FixKind::SyncOrder,
            format!("Change sync order: {}", rule.title),
            pointers.clone(),
            snippet,
        ));
    }
    if let Some(render) = &t.render {
        out.push(Fix::new(
            rule.cause,
            FixKind::Render,
            format!("Make rendering deterministic: {}", rule.title),
            pointers,
            fill(render, &vars),
        ));
    }
    out
}

/// What to do first when the findings show a sync loop.
pub fn emergency_steps(resources: &[ResourceReport], app: Option<&str>) -> Vec<String> {
    let looping: Vec<&Difference> = resources
        .iter()
        .flat_map(|r| r.differences.iter())
        .filter(|d| d.visible && d.cause != Cause::Drift)
        .collect();
    // A forced sync overwrites only live values of objects on both sides;
    // an object only in Git is created. The warning names only values the
    // input shows a person changed (`Difference::by_hand`): not a value
    // Argo CD or a program wrote, a masked value that may not differ, the
    // value of the last sync that Git has changed since, nor one whose
    // writer the input does not show.
    let drift: Vec<(&ResourceReport, &Difference)> = resources
        .iter()
        .filter(|r| r.presence == crate::model::Presence::Both)
        .flat_map(|r| r.differences.iter().map(move |d| (r, d)))
        .filter(|(_, d)| {
            d.visible
                && d.cause == Cause::Drift
                && !rules::catalog()
                    .get(&d.rule)
                    .is_some_and(|r| r.not_a_hand_edit)
                && d.by_hand
        })
        .collect();
    let mut steps = Vec::new();
    if !looping.is_empty() {
        let app_name = app.unwrap_or("<app>");
        // Offer the ignore rule only when the report proposes one.
        let ignore_offered = resources
            .iter()
            .any(|r| r.fixes.iter().any(|f| f.kind == FixKind::Ignore));
        let or_ignore = if ignore_offered {
            ", or take only the affected field out of comparison with the ignore rule below"
        } else {
            ""
        };
        steps.push(format!(
            "Stop the loop first: turn auto-sync off while you fix it with `argocd app set {app_name} --sync-policy none`{or_ignore}; turn auto-sync back on once the fix is in Git."
        ));
    }
    if let Some((r, d)) = drift.first() {
        let what = crate::text::field_code(&d.segs);
        let values = if drift.len() == 1 {
            "a live value".to_string()
        } else {
            format!("{} live values", drift.len())
        };
        steps.push(format!(
            "Do not force `argocd app sync` before checking: it would push Git over {values} someone changed by hand (for example {what} of {}), and the live value may be the right one. If it is, change Git instead.",
            r.id
        ));
    }
    steps
}

/// Prevention checklist items that match the causes found.
pub fn prevention_checklist(causes: &[Cause]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for c in causes {
        let item = match c {
            Cause::Autoscaler => "Workloads scaled by an HPA or KEDA have no `replicas` in Git (or ignore it with `RespectIgnoreDifferences=true`).",
            Cause::MutatingWebhook => "Decide a drift policy for fields injected by webhooks (sidecars, annotations, caBundle) and ignore them by exact key, never whole maps.",
            Cause::NondeterministicRender => "CI renders the manifests twice (`helm template`, `kustomize build`) and fails when the two outputs differ.",
            Cause::ControllerRewrite => "Document which fields each operator or controller normalises, and write them in Git in the normalised form.",
            Cause::ServerDefaults => "Write API-server defaults explicitly in Git where Argo CD compares them (custom resources, server-side apply).",
            Cause::Reloader => "Ignore restart and reload stamps (`restartedAt`, reloader annotations) by exact key; never ignore whole annotation maps.",
            Cause::SyncOrdering => "Design sync waves and hooks for failure: CRDs and Namespaces in an earlier wave, hooks with a delete policy, immutable fields changed by replacement.",
            Cause::Drift => "Changes to the cluster go through Git; alert on manual edits rather than ignoring them.",
        };
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}
