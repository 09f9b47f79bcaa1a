//! Fixes: the narrowest `ignoreDifferences` rule (Application and argocd-cm
//! forms), Git changes, sync-order changes and render fixes, built from the
//! rule that explained each difference. Real drift never gets an ignore fix,
//! and neither does a security-relevant field, whatever explained it.

#![warn(missing_docs)]

use crate::identity::ResourceKey;
use crate::model::*;
use crate::path::{self, PathPattern, Seg};
use crate::rules::{self, IgnoreTemplate, Rule};
use crate::text::fill;
use std::sync::OnceLock;

/// Fields whose changes matter for security, each with why: an ignore rule
/// over them could hide a privilege escalation or a swapped workload, so
/// drift-doctor never proposes one. Every kind of container (regular, init,
/// ephemeral) is covered alike.
pub const SENSITIVE_PATHS: &[(&str, &str)] = &[
    (
        "**/securityContext",
        "privileges and user of a pod or container",
    ),
    (
        "**/securityContext/**",
        "privileges and user of a pod or container",
    ),
    ("**/privileged", "a privileged container owns the node"),
    (
        "**/allowPrivilegeEscalation",
        "lets a process gain more privileges than its parent",
    ),
    (
        "**/capabilities/**",
        "Linux capabilities granted to a container",
    ),
    (
        "**/hostNetwork",
        "the pod joins the node's network namespace",
    ),
    ("**/hostPID", "the pod sees the node's processes"),
    ("**/hostIPC", "the pod shares the node's IPC namespace"),
    ("**/hostPath", "the pod mounts the node's filesystem"),
    ("**/hostPath/**", "the pod mounts the node's filesystem"),
    ("**/serviceAccountName", "the identity the pod runs as"),
    ("**/serviceAccount", "the identity the pod runs as"),
    (
        "**/automountServiceAccountToken",
        "whether the pod gets an API token",
    ),
    ("**/containers/*/image", "which code runs"),
    ("**/initContainers/*/image", "which code runs"),
    ("**/ephemeralContainers/*/image", "which code runs"),
    ("**/containers/*/command", "what the container executes"),
    ("**/containers/*/command/**", "what the container executes"),
    ("**/containers/*/args", "what the container executes"),
    ("**/containers/*/args/**", "what the container executes"),
    ("**/initContainers/*/command", "what the container executes"),
    (
        "**/initContainers/*/command/**",
        "what the container executes",
    ),
    ("**/initContainers/*/args", "what the container executes"),
    ("**/initContainers/*/args/**", "what the container executes"),
    (
        "**/ephemeralContainers/*/command",
        "what the container executes",
    ),
    (
        "**/ephemeralContainers/*/command/**",
        "what the container executes",
    ),
    (
        "**/ephemeralContainers/*/args",
        "what the container executes",
    ),
    (
        "**/ephemeralContainers/*/args/**",
        "what the container executes",
    ),
];

/// Kinds whose every field is security-relevant (RBAC and network policy);
/// an aggregated ClusterRole's `rules` are the exception, since the
/// aggregation controller writes them.
const SENSITIVE_KINDS: &[(&str, &str)] = &[
    ("rbac.authorization.k8s.io/Role", "who may do what"),
    ("rbac.authorization.k8s.io/ClusterRole", "who may do what"),
    ("rbac.authorization.k8s.io/RoleBinding", "who gets a role"),
    (
        "rbac.authorization.k8s.io/ClusterRoleBinding",
        "who gets a role",
    ),
    (
        "networking.k8s.io/NetworkPolicy",
        "which traffic is allowed",
    ),
];

/// [`SENSITIVE_PATHS`], parsed once.
fn sensitive_patterns() -> &'static [(PathPattern, &'static str)] {
    static PATTERNS: OnceLock<Vec<(PathPattern, &'static str)>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        SENSITIVE_PATHS
            .iter()
            .map(|(p, why)| (PathPattern::parse(p), *why))
            .collect()
    })
}

/// Why ignoring this field could hide a security-relevant change, or None.
pub fn sensitive_reason(key: &ResourceKey, pointer: &str) -> Option<&'static str> {
    let gk = key.group_kind();
    if let Some((_, why)) = SENSITIVE_KINDS.iter().find(|(k, _)| *k == gk) {
        if !(pointer == "/rules" || pointer.starts_with("/rules/")) {
            return Some(why);
        }
    }
    if key.kind == "Secret" && key.group.is_empty() && pointer.is_empty() {
        return None;
    }
    let toks = path::split_pattern(pointer);
    sensitive_patterns()
        .iter()
        .find(|(p, _)| p.matches(&toks))
        .map(|(_, why)| *why)
}

/// Whether ignoring this field could hide a security-relevant change.
pub fn is_sensitive(key: &ResourceKey, pointer: &str) -> bool {
    sensitive_reason(key, pointer).is_some()
}

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

/// A YAML scalar: plain when it is safe to read back as the same string.
pub(crate) fn yaml_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && s.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null"
        );
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_default()
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

/// The snippet of an ignore fix: its Application form, then after a `---`
/// line its argocd-cm form, and, when the spec offers it, after another
/// `---` line the object's own annotation. The only writer of that text.
pub fn ignore_snippet(spec: &IgnoreSpec, stop_gap: bool, title: &str) -> String {
    let mut out = String::new();
    out.push_str(&format!("# {title}\n"));
    if stop_gap {
        out.push_str("# Stop-gap: open a ticket for the Git fix and set a review date before merging this.\n");
    }
    out.push_str("# Application (this resource only):\nspec:\n  ignoreDifferences:\n");
    write_entry_head(
        &mut out,
        &spec.group,
        &spec.kind,
        Some(&spec.name),
        Some(&spec.namespace),
    );
    write_ignored(
        &mut out,
        "      ",
        &spec.json_pointers,
        &spec.jq_path_expressions,
        &[],
    );
    if !spec.trust_instead.is_empty() {
        out.push_str(&format!(
            "      # Or trust the field's owner instead of naming paths:\n      # managedFieldsManagers: [{}]\n",
            spec.trust_instead.join(", ")
        ));
    }
    if spec.respect {
        out.push_str("  syncPolicy:\n    syncOptions:\n      # keep the owner's live value when syncing\n      - RespectIgnoreDifferences=true\n");
    }
    let (cm_key, every) = if spec.group.is_empty() {
        (spec.kind.clone(), spec.kind.clone())
    } else {
        (
            format!("{}_{}", spec.group, spec.kind),
            format!("{}/{}", spec.group, spec.kind),
        )
    };
    out.push_str(&format!(
        "---\n# argocd-cm (every {every} in every app):\ndata:\n  resource.customizations.ignoreDifferences.{cm_key}: |\n"
    ));
    write_ignored(
        &mut out,
        "    ",
        &spec.json_pointers,
        &spec.jq_path_expressions,
        &[],
    );
    if spec.annotation {
        out.push_str(ANNOTATION_FORM_HEAD);
        out.push_str(&format!(
            "metadata:\n  annotations:\n    {}: {}\n",
            crate::ignore::RESOURCE_IGNORE_ANNOTATION,
            yaml_quote(&spec.json_pointers.join(","))
        ));
        if spec.respect {
            out.push_str("# The Application still needs RespectIgnoreDifferences=true (above) for a sync to keep the live value.\n");
        }
    }
    out
}

/// The line that starts the annotation form of an ignore fix's snippet.
const ANNOTATION_FORM_HEAD: &str =
    "---\n# Or the object's own annotation, in Git (Argo CD 3.6 and later; this object only):\n";

/// The two forms of an ignore fix's snippet as [`ignore_snippet`] writes
/// them, for showing them apart: the Application form, and the argocd-cm
/// form after the `---` line (without the annotation form, which
/// [`annotation_form`] gives).
pub fn snippet_forms(snippet: &str) -> (&str, Option<&str>) {
    let settings = annotation_form_at(snippet).map_or(snippet, |at| &snippet[..at + 1]);
    match settings.split_once("\n---\n") {
        Some((application, cm)) => (application, Some(cm)),
        None => (settings, None),
    }
}

/// The annotation form of an ignore fix's snippet, when it has one: the
/// object's own `argocd.argoproj.io/ignore-differences-json-pointers`.
pub fn annotation_form(snippet: &str) -> Option<&str> {
    annotation_form_at(snippet).map(|at| &snippet[at + "\n---\n".len()..])
}

fn annotation_form_at(snippet: &str) -> Option<usize> {
    snippet.find(&format!("\n{ANNOTATION_FORM_HEAD}"))
}

/// The resource lines of one entry of an Application's `ignoreDifferences`
/// (`    - group: …`), as the fixes and the plan write them.
pub(crate) fn write_entry_head(
    out: &mut String,
    group: &str,
    kind: &str,
    name: Option<&str>,
    namespace: Option<&str>,
) {
    out.push_str(&format!(
        "    - group: {}\n      kind: {}\n",
        yaml_quote(group),
        yaml_quote(kind)
    ));
    for (field, value) in [("name", name), ("namespace", namespace)] {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            out.push_str(&format!("      {field}: {}\n", yaml_quote(v)));
        }
    }
}

/// What an ignore rule ignores, as the YAML lists of its entry at `indent`.
pub(crate) fn write_ignored(
    out: &mut String,
    indent: &str,
    pointers: &[String],
    jqs: &[String],
    managers: &[String],
) {
    type Quote = fn(&str) -> String;
    let lists: [(&str, &[String], Quote); 3] = [
        ("jsonPointers", pointers, yaml_quote_pointer),
        ("jqPathExpressions", jqs, single_quoted),
        ("managedFieldsManagers", managers, yaml_quote),
    ];
    for (field, items, quote) in lists {
        if !items.is_empty() {
            out.push_str(&format!("{indent}{field}:\n"));
            for item in items {
                out.push_str(&format!("{indent}  - {}\n", quote(item)));
            }
        }
    }
}

/// A JSON pointer as a YAML scalar: plain where YAML reads it back as the
/// same string.
fn yaml_quote_pointer(p: &str) -> String {
    let plain = p.starts_with('/')
        && p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-~".contains(&b));
    if plain {
        p.to_string()
    } else {
        serde_json::to_string(p).unwrap_or_default()
    }
}

/// jq expressions hold double quotes and pipes: write them single-quoted.
pub(crate) fn single_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
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
