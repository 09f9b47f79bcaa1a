//! `drift-doctor check`: the prevention checklist run on rendered manifests
//! before they ship, with no cluster and no live side. Each finding is a
//! check of the catalogue (`src/rules/checks.yaml`, code `CK…`) with the
//! document and line it is about, the Helm template that rendered it, why
//! it makes Argo CD loop and the fix. What a check finds is decided here, one
//! detector per code, from the facts the analysis already has (the input
//! context, the rules' predicates, the second render's kinds of generated
//! value, the audit of ignore rules, the security-relevant paths).

#![warn(missing_docs)]

pub mod format;
mod locate;

use crate::argocd_release::ArgoCdRelease;
use crate::audit::AuditSubject;
use crate::compare::CompareOptions;
use crate::context::InputContext;
use crate::identity::ResourceKey;
use crate::ignore::IgnoreRule;
use crate::input::{parse_side, InputError, Side};
use crate::model::{Cause, Change, Presence};
use crate::path::{PathPattern, Pointer, Seg};
use crate::rules::checks::{Check, Level};
use crate::rules::{predicates, Finding};
use locate::Lines;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The version of the check report (`tests/contract/report-v1.md`, "check").
pub const CHECK_REPORT_VERSION: u32 = 1;

/// Which input a finding points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Input {
    /// The render (`--git`).
    Git,
    /// The second render (`--git-again`).
    GitAgain,
    /// The Application (`--app`).
    App,
    /// The argocd-cm ConfigMap (`--argocd-cm`).
    ArgocdCm,
}

impl Input {
    /// The input's id, as the JSON report writes it.
    pub fn id(self) -> &'static str {
        match self {
            Input::Git => "git",
            Input::GitAgain => "git-again",
            Input::App => "app",
            Input::ArgocdCm => "argocd-cm",
        }
    }
}

/// What `check` reads.
#[derive(Debug, Clone, Default)]
pub struct CheckInput<'a> {
    /// The render.
    pub git: &'a str,
    /// A second render of the same commit.
    pub git_again: Option<&'a str>,
    /// The Application's settings (`spec.ignoreDifferences`, `syncPolicy`).
    pub app: Option<&'a str>,
    /// The argocd-cm ConfigMap.
    pub argocd_cm: Option<&'a str>,
    /// The Argo CD release whose comparison to imitate.
    pub release: ArgoCdRelease,
    /// The Application's destination namespace, for objects without one.
    pub namespace: Option<&'a str>,
}

/// An input that cannot be used: which one, and the located reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckError {
    /// The input at fault.
    pub input: Input,
    /// Where in it, and why.
    pub error: InputError,
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.input {
            Input::Git | Input::GitAgain => write!(f, "{}", self.error),
            other => {
                let e = &self.error;
                write!(f, "{}", other.id())?;
                if e.document > 0 {
                    write!(f, ", document {}", e.document)?;
                }
                if e.line > 0 {
                    write!(f, ", line {}, column {}", e.line, e.column.max(1))?;
                }
                write!(f, ": {}", e.message)
            }
        }
    }
}

impl std::error::Error for CheckError {}

/// One finding: a check that holds at a place of the input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckFinding {
    /// The check's code (`CK001`).
    pub rule: String,
    /// How serious it is.
    pub level: Level,
    /// The check's title.
    pub title: String,
    /// The cause the loop gets once synced.
    pub cause: Cause,
    /// The resource (`group/Kind/namespace/name`), when the finding is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The input it points into.
    pub input: Input,
    /// The 1-based document of that input (0 when not known).
    pub document: usize,
    /// The 1-based line.
    pub line: usize,
    /// The Helm template that rendered the document (`# Source:`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The field, as a JSON pointer, when the finding is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// What was found, and why it makes Argo CD loop.
    pub message: String,
    /// The fix.
    pub fix: String,
    /// A YAML snippet of the fix, to copy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    /// The analysis rules that explain the loop once it runs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loops_as: Vec<String>,
}

/// How many findings of each level.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CheckSummary {
    /// Objects of the render checked.
    pub objects: usize,
    /// Every finding.
    pub findings: usize,
    /// Findings of level error.
    pub errors: usize,
    /// Findings of level warning.
    pub warnings: usize,
    /// Findings of level note.
    pub notes: usize,
}

/// The result of `drift-doctor check`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckReport {
    /// The contract's version.
    pub version: u32,
    /// Always `"check"`: tells this report from an analysis report.
    pub report: &'static str,
    /// The Argo CD release imitated.
    pub argocd_version: String,
    /// The counts.
    pub summary: CheckSummary,
    /// Every finding, by input, line and code.
    pub findings: Vec<CheckFinding>,
    /// Problems that did not stop the check.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl CheckReport {
    /// Whether any finding is at `level` or above.
    pub fn fails(&self, level: Level) -> bool {
        self.findings.iter().any(|f| f.level >= level)
    }
}

/// One object of a render, with where it starts.
struct Obj<'a> {
    key: ResourceKey,
    value: &'a Value,
    document: usize,
    line: usize,
}

/// A detector's result before the catalogue's texts are filled in.
struct Hit {
    key: Option<ResourceKey>,
    input: Input,
    document: usize,
    /// The document's first line (the field's line is found from `pointer`),
    /// or the line itself for settings.
    line: usize,
    pointer: Option<String>,
    vars: Vec<(String, String)>,
}

/// The user's ignore rules of one settings input, with its text.
struct SettingsInput<'a> {
    input: Input,
    text: &'a str,
    rules: Vec<IgnoreRule>,
    refused_jq: Vec<InputError>,
}

/// Everything the detectors look at.
struct Ctx<'a> {
    objects: Vec<Obj<'a>>,
    second: Option<BTreeMap<ResourceKey, Obj<'a>>>,
    input: InputContext,
    compare: CompareOptions,
    settings: Vec<SettingsInput<'a>>,
    /// `SkipDryRunOnMissingResource=true` in the Application's sync options.
    app_skips_dry_run: bool,
}

type Detector = fn(&Ctx<'_>, &Check) -> Vec<Hit>;

/// The codes that have a detector; `tests/check.rs` proves every check of
/// the catalogue has one and every detector a check.
pub fn detector_codes() -> impl Iterator<Item = &'static str> {
    DETECTORS.iter().map(|(code, _)| *code)
}

/// The detector of each check code.
const DETECTORS: &[(&str, Detector)] = &[
    ("CK001", replicas_pinned),
    ("CK002", renders_disagree),
    ("CK003", generated_value),
    ("CK004", custom_resource_with_its_crd),
    ("CK005", before_its_namespace),
    ("CK006", job_not_a_hook),
    ("CK007", hook_without_delete_policy),
    ("CK008", ca_bundle_injected),
    ("CK009", status_in_git),
    ("CK010", empty_value_dropped),
    ("CK011", rule_matches_nothing),
    ("CK012", rule_hides_security_field),
    ("CK013", jq_does_not_compile),
];

/// Run every check of the catalogue on a render. Fails (naming the input,
/// document, line and why) only when an input cannot be read.
pub fn check(input: &CheckInput<'_>) -> Result<CheckReport, CheckError> {
    let git_err = |error| CheckError {
        input: Input::Git,
        error,
    };
    let git_docs = parse_side(input.git, Side::Git).map_err(git_err)?;
    let again_docs = match input.git_again {
        Some(text) => Some(
            parse_side(text, Side::SecondRender).map_err(|error| CheckError {
                input: Input::GitAgain,
                error,
            })?,
        ),
        None => None,
    };
    let paired = crate::pairing::pair(&git_docs, &[], input.namespace).map_err(git_err)?;
    let second_paired = match &again_docs {
        Some(docs) => Some(
            crate::pairing::pair(docs, &[], input.namespace).map_err(|error| CheckError {
                input: Input::GitAgain,
                error,
            })?,
        ),
        None => None,
    };
    let mut compare = CompareOptions::for_release(input.release);
    let mut settings = Vec::new();
    for (which, text) in [(Input::App, input.app), (Input::ArgocdCm, input.argocd_cm)] {
        let Some(text) = text else { continue };
        let err = |error| CheckError {
            input: which,
            error,
        };
        let mut own = CompareOptions::for_release(input.release);
        let refused_jq =
            crate::settings::apply_user_settings_keeping_bad_jq(text, &mut own).map_err(err)?;
        // The status setting and the rules of both inputs apply together.
        crate::settings::apply_user_settings_keeping_bad_jq(text, &mut compare).map_err(err)?;
        settings.push(SettingsInput {
            input: which,
            text,
            rules: own.ignore_rules,
            refused_jq,
        });
    }
    let app_skips_dry_run = input.app.is_some_and(skips_dry_run_in_app);
    let mut ctx = Ctx {
        objects: paired
            .git
            .iter()
            .map(|(key, d)| Obj {
                key: key.clone(),
                value: &d.object,
                document: d.document,
                line: d.line,
            })
            .collect(),
        second: second_paired.as_ref().map(|p| {
            p.git
                .iter()
                .map(|(k, d)| {
                    let o = Obj {
                        key: k.clone(),
                        value: &d.object,
                        document: d.document,
                        line: d.line,
                    };
                    (k.clone(), o)
                })
                .collect()
        }),
        input: InputContext::default(),
        compare,
        settings,
        app_skips_dry_run,
    };
    let mut learnt = InputContext::default();
    for o in &ctx.objects {
        learnt.learn(&o.key, o.value, true);
    }
    ctx.input = learnt;
    let catalog = crate::rules::catalog().map_err(|e| CheckError {
        input: Input::Git,
        error: InputError {
            side: Side::Git,
            document: 0,
            line: 0,
            column: 0,
            message: e.to_string(),
        },
    })?;
    let git_lines = Lines::new(input.git);
    let mut findings = Vec::new();
    for c in &catalog.checks {
        let Some((_, detect)) = DETECTORS.iter().find(|(code, _)| *code == c.code) else {
            continue;
        };
        for hit in detect(&ctx, c) {
            findings.push(finding(c, hit, &git_lines));
        }
    }
    // A value both renders disagree on is not also "looks generated".
    let disagreeing: BTreeSet<(Option<String>, Option<String>)> = findings
        .iter()
        .filter(|f| f.rule == "CK002")
        .map(|f| (f.resource.clone(), f.pointer.clone()))
        .collect();
    findings.retain(|f| {
        f.rule != "CK003" || !disagreeing.contains(&(f.resource.clone(), f.pointer.clone()))
    });
    findings.sort_by(|a, b| {
        (a.input, a.line, &a.rule, &a.resource, &a.pointer).cmp(&(
            b.input,
            b.line,
            &b.rule,
            &b.resource,
            &b.pointer,
        ))
    });
    findings.dedup();
    let count = |l: Level| findings.iter().filter(|f| f.level == l).count();
    let summary = CheckSummary {
        objects: ctx.objects.len(),
        findings: findings.len(),
        errors: count(Level::Error),
        warnings: count(Level::Warning),
        notes: count(Level::Note),
    };
    Ok(CheckReport {
        version: CHECK_REPORT_VERSION,
        report: "check",
        argocd_version: input.release.to_string(),
        summary,
        findings,
        warnings: ctx.compare.jq.warnings(),
    })
}

/// A hit with the check's texts filled in and its line found.
fn finding(c: &Check, hit: Hit, git_lines: &Lines<'_>) -> CheckFinding {
    let mut vars = Vec::new();
    if let Some(k) = &hit.key {
        vars.extend([
            ("kind".to_string(), k.kind.clone()),
            ("name".to_string(), k.name.clone()),
            ("namespace".to_string(), k.namespace.clone()),
            ("id".to_string(), k.to_string()),
        ]);
    }
    if let Some(p) = &hit.pointer {
        vars.push(("field".into(), crate::text::pointer_code(p)));
    }
    vars.extend(hit.vars);
    let fill = |t: &str| crate::text::fill(t, &vars);
    let (line, source) = match hit.input {
        Input::Git => {
            let tokens = hit
                .pointer
                .as_deref()
                .and_then(crate::path::pointer_tokens)
                .unwrap_or_default();
            (
                git_lines.field_line(hit.line, &tokens),
                git_lines.helm_source(hit.line),
            )
        }
        _ => (hit.line, None),
    };
    CheckFinding {
        rule: c.code.clone(),
        level: c.level,
        title: c.title.clone(),
        cause: c.cause,
        resource: hit.key.map(|k| k.to_string()),
        input: hit.input,
        document: hit.document,
        line,
        source,
        pointer: hit.pointer,
        message: fill(&c.message),
        fix: fill(&c.fix),
        snippet: c.snippet.as_deref().map(fill),
        loops_as: c.loops_as.clone(),
    }
}

fn var(k: &str, v: impl Into<String>) -> (String, String) {
    (k.to_string(), v.into())
}

impl Obj<'_> {
    fn hit(&self, pointer: Option<String>, vars: Vec<(String, String)>) -> Hit {
        Hit {
            key: Some(self.key.clone()),
            input: Input::Git,
            document: self.document,
            line: self.line,
            pointer,
            vars,
        }
    }

    /// A predicate of the rules, asked about this object's field at `path`
    /// as the analysis would ask it of a Git-only object.
    fn predicate(&self, ctx: &Ctx<'_>, name: &str, path: &[Seg]) -> Option<Vec<(String, String)>> {
        let pointer = crate::path::pointer(path);
        let f = Finding {
            key: &self.key,
            path,
            pointer: &pointer,
            change: Change::Removed,
            presence: Presence::GitOnly,
            git: self.value.at(&pointer),
            live: None,
            git_obj: Some(self.value),
            live_obj: None,
            manager: None,
            input: &ctx.input,
            refused_with: None,
            provenance: Default::default(),
        };
        predicates::eval(name, &f)
    }

    fn annotation(&self, key: &str) -> Option<&str> {
        self.value.at("/metadata/annotations")?.get(key)?.as_str()
    }

    /// The Argo CD sync wave (0 when none, as Argo CD reads it).
    fn wave(&self) -> i64 {
        self.annotation("argocd.argoproj.io/sync-wave")
            .and_then(|w| w.trim().parse().ok())
            .unwrap_or(0)
    }

    /// The object's own sync options.
    fn has_sync_option(&self, option: &str) -> bool {
        self.annotation(crate::object_options::SYNC_OPTIONS)
            .is_some_and(|o| o.split(',').any(|t| t.trim() == option))
    }

    /// The hook phases its annotations name (Argo CD's, else Helm's), if any.
    fn hook(&self) -> Option<&str> {
        self.annotation("argocd.argoproj.io/hook")
            .or_else(|| self.annotation("helm.sh/hook"))
            .filter(|h| !h.trim().is_empty() && h.trim() != "Skip" && h.trim() != "crd-install")
    }
}

/// Every node of a value with its pointer tokens, the value itself first.
fn nodes<'v>(v: &'v Value, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, &'v Value)>) {
    out.push((path.clone(), v));
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                path.push(k.clone());
                nodes(x, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(i.to_string());
                nodes(x, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The nodes of `v` whose path matches one of the check's pointer patterns
/// (a path is copied only when it matches: renders hold many nodes).
fn matching<'v>(v: &'v Value, patterns: &Patterns) -> Vec<(String, &'v Value)> {
    fn walk<'v>(
        v: &'v Value,
        path: &mut Vec<String>,
        patterns: &Patterns,
        out: &mut Vec<(String, &'v Value)>,
    ) {
        if !path.is_empty() && patterns.0.iter().any(|p| p.matches(path)) {
            out.push((pointer_of(path), v));
        }
        if path.len() >= patterns.1 || !patterns.may_extend(path) {
            return;
        }
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    path.push(k.clone());
                    walk(x, path, patterns, out);
                    path.pop();
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    path.push(i.to_string());
                    walk(x, path, patterns, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), patterns, &mut out);
    out
}

/// A check's pointer patterns, compiled, the deepest path they can match,
/// and their segments (to stop at a node no pattern goes through).
struct Patterns(Vec<PathPattern>, usize, Vec<Vec<String>>);

impl Patterns {
    /// Whether some pattern may match `path` or a path below it.
    fn may_extend(&self, path: &[String]) -> bool {
        self.2.iter().any(|segs| {
            segs.iter().any(|s| s == "**")
                || (path.len() < segs.len()
                    && path
                        .iter()
                        .zip(segs)
                        .all(|(t, p)| p == "*" || crate::path::glob(p, t)))
        })
    }
}

fn patterns(c: &Check) -> Patterns {
    let depth = c
        .paths
        .iter()
        .map(|p| {
            if p.contains("**") {
                usize::MAX
            } else {
                p.matches('/').count()
            }
        })
        .max()
        .unwrap_or(0);
    let segs = c
        .paths
        .iter()
        .map(|p| p.split('/').skip(1).map(str::to_string).collect())
        .collect();
    Patterns(
        c.paths.iter().map(|p| PathPattern::parse(p)).collect(),
        depth,
        segs,
    )
}

fn pointer_of(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| format!("/{}", crate::path::escape_pointer_token(t)))
        .collect()
}

fn is_secret_value(key: &ResourceKey, obj: &Value, pointer: &str) -> (bool, bool) {
    let kind = crate::secret_mask::kind_for_masking(&key.kind, [Some(obj), None]);
    let secret = crate::secret_mask::is_secret_pointer(kind, pointer);
    (secret, secret && pointer.starts_with("/data/"))
}

fn short(v: Option<&Value>) -> String {
    crate::text::one_line(&crate::text::value_or_absent(v), 60)
}

// ---------------------------------------------------------------------------
// The detectors, in code order.
// ---------------------------------------------------------------------------

/// CK001: Git pins `spec.replicas` of a workload a scaler of the render targets.
fn replicas_pinned(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    let path = [Seg::key("spec"), Seg::key("replicas")];
    ctx.objects
        .iter()
        .filter_map(|o| {
            let replicas = o.value.at("/spec/replicas")?;
            let mut vars = o.predicate(ctx, "autoscaler_targets", &path)?;
            vars.push(var("replicas", crate::text::value_text(replicas)));
            Some(o.hit(Some("/spec/replicas".into()), vars))
        })
        .collect()
}

/// The paths where two values differ: maps key by key, lists of one length
/// item by item, anything else whole.
fn differing(a: Option<&Value>, b: Option<&Value>, path: &mut Vec<String>, out: &mut Vec<String>) {
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                path.push(k.clone());
                differing(x.get(k), y.get(k), path, out);
                path.pop();
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                path.push(i.to_string());
                differing(Some(p), Some(q), path, out);
                path.pop();
            }
        }
        (a, b) if a != b => out.push(pointer_of(path)),
        _ => {}
    }
}

/// CK002: the two renders of the same commit disagree on a field, or hold
/// an object the other lacks (a generated name).
fn renders_disagree(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    let Some(second) = &ctx.second else {
        return Vec::new();
    };
    let mut hits = Vec::new();
    for o in &ctx.objects {
        let Some(other) = second.get(&o.key) else {
            hits.push(o.hit(
                None,
                vec![
                    var("field", "the whole object"),
                    var("first", "present"),
                    var("second", "absent (its name differs between the renders?)"),
                    var(
                        "functions",
                        "a generated name (`randAlphaNum` or `now` in `metadata.name`)",
                    ),
                    var("git_fix", "Give the object a fixed name in the template."),
                ],
            ));
            continue;
        };
        let other = other.value;
        let mut out = Vec::new();
        differing(Some(o.value), Some(other), &mut Vec::new(), &mut out);
        for pointer in out {
            let (a, b) = (o.value.at(&pointer), other.at(&pointer));
            let (secret, secret_data) = is_secret_value(&o.key, o.value, &pointer);
            let (functions, git_fix) =
                crate::rules::second_render::generated_kind(a, b, secret, secret_data);
            // A Secret's values are never shown: only that they differ.
            let (first, second) = if secret {
                ("a secret value".to_string(), "a different one".to_string())
            } else {
                (short(a), short(b))
            };
            hits.push(o.hit(
                Some(pointer),
                vec![
                    var("first", first),
                    var("second", second),
                    var("functions", functions),
                    var("git_fix", git_fix),
                ],
            ));
        }
    }
    // Objects only the second render holds, named where that render has them.
    let first: BTreeSet<&ResourceKey> = ctx.objects.iter().map(|o| &o.key).collect();
    for (key, o) in second {
        if first.contains(key) {
            continue;
        }
        let mut h = o.hit(
            None,
            vec![
                var("field", "the whole object"),
                var("first", "absent (its name differs between the renders?)"),
                var("second", "present"),
                var(
                    "functions",
                    "a generated name (`randAlphaNum` or `now` in `metadata.name`)",
                ),
                var("git_fix", "Give the object a fixed name in the template."),
            ],
        );
        h.input = Input::GitAgain;
        hits.push(h);
    }
    hits
}

/// Whether a CronJob schedule names one minute and one hour, the minute
/// not a round one: what a schedule rendered from `now` looks like.
fn schedule_looks_rendered(s: &str) -> bool {
    let fields: Vec<&str> = s.split_whitespace().collect();
    let number = |t: &str| t.parse::<u32>().ok();
    match fields.as_slice() {
        [minute, hour, "*", "*", "*"] => {
            matches!((number(minute), number(hour)), (Some(m), Some(h)) if m < 60 && h < 24 && m % 5 != 0)
        }
        _ => false,
    }
}

/// CK003: a value of one render looks generated at render time.
fn generated_value(ctx: &Ctx<'_>, c: &Check) -> Vec<Hit> {
    let patterns = patterns(c);
    let mut hits = Vec::new();
    for o in &ctx.objects {
        for (pointer, v) in matching(o.value, &patterns) {
            let Some(text) = v.as_str() else { continue };
            if text.is_empty() {
                continue;
            }
            let (secret, secret_data) = is_secret_value(&o.key, o.value, &pointer);
            let shape = if pointer == "/spec/schedule" {
                schedule_looks_rendered(text).then_some((
                    "a time of day",
                    "`now` (or `date`) formatted into the schedule",
                    "Write the schedule as a fixed value in Git or a values file.",
                ))
            } else {
                crate::rules::second_render::looks_generated(v, secret, secret_data).map(
                    |(shape, functions, fix)| {
                        let what = match shape {
                            "certificate" => "a certificate or key",
                            "random" => "a high-entropy secret value",
                            "uuid" => "a UUID",
                            _ => "a timestamp",
                        };
                        (what, functions, fix)
                    },
                )
            };
            let Some((what, functions, git_fix)) = shape else {
                continue;
            };
            hits.push(o.hit(
                Some(pointer),
                vec![
                    var("shape", what),
                    var("functions", functions),
                    var("git_fix", git_fix),
                ],
            ));
        }
    }
    hits
}

/// Whether an Application's sync options hold `SkipDryRunOnMissingResource=true`.
fn skips_dry_run_in_app(text: &str) -> bool {
    let Ok(docs) = crate::input::parse_values(text, Side::Git) else {
        return false;
    };
    docs.iter().any(|(v, _, _)| {
        ["/spec/syncPolicy/syncOptions", "/syncPolicy/syncOptions"]
            .iter()
            .filter_map(|p| v.at(p).and_then(Value::as_array))
            .flatten()
            .any(|o| o.as_str() == Some("SkipDryRunOnMissingResource=true"))
    })
}

/// CK004: a custom resource in the same sync step as its CRD, with no
/// `SkipDryRunOnMissingResource=true` and no later wave.
fn custom_resource_with_its_crd(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    if ctx.app_skips_dry_run {
        return Vec::new();
    }
    ctx.objects
        .iter()
        .filter_map(|o| {
            let vars = o.predicate(ctx, "crd_in_git", &[])?;
            let crd_wave: i64 = vars
                .iter()
                .find(|(k, _)| k == "crd_wave")
                .and_then(|(_, w)| w.trim().parse().ok())
                .unwrap_or(0);
            // A hook runs outside the waves: before the CRD when PreSync.
            let pre_sync = o.hook().is_some_and(is_pre_sync);
            let later = o.hook().is_none() && o.wave() > crd_wave;
            if later || o.has_sync_option("SkipDryRunOnMissingResource=true") {
                return None;
            }
            if o.hook().is_some() && !pre_sync {
                return None;
            }
            let step = if pre_sync {
                "a PreSync hook, which runs before the CRD is applied".to_string()
            } else {
                format!("wave {}", o.wave())
            };
            let mut vars = vars;
            vars.push(var("step", step));
            Some(o.hit(None, vars))
        })
        .collect()
}

/// Whether hook phases (Argo CD's or Helm's) run before the sync phase.
fn is_pre_sync(hook: &str) -> bool {
    hook.split(',')
        .any(|t| matches!(t.trim(), "PreSync" | "pre-install" | "pre-upgrade"))
}

/// CK005: a namespaced object synced before the Namespace the render creates.
fn before_its_namespace(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    let namespaces: BTreeMap<&str, &Obj<'_>> = ctx
        .objects
        .iter()
        .filter(|o| o.key.group.is_empty() && o.key.kind == "Namespace")
        .map(|o| (o.key.name.as_str(), o))
        .collect();
    let pre_sync = |o: &Obj<'_>| o.hook().is_some_and(is_pre_sync);
    ctx.objects
        .iter()
        .filter_map(|o| {
            let ns = namespaces.get(o.key.namespace.as_str())?;
            let earlier = o.wave() < ns.wave() || (pre_sync(o) && !pre_sync(ns));
            earlier.then(|| {
                o.hit(
                    None,
                    vec![
                        var("ns", ns.key.name.clone()),
                        var("wave", o.wave().to_string()),
                        var("ns_wave", ns.wave().to_string()),
                        var(
                            "step",
                            if pre_sync(o) {
                                "a PreSync hook, which runs before any resource".to_string()
                            } else {
                                format!("in wave {}", o.wave())
                            },
                        ),
                    ],
                )
            })
        })
        .collect()
}

/// CK006: a Job applied as a resource rather than run as a hook.
fn job_not_a_hook(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    ctx.objects
        .iter()
        .filter(|o| o.key.group == "batch" && o.key.kind == "Job" && o.hook().is_none())
        .filter(|o| {
            o.annotation("argocd.argoproj.io/hook")
                .is_none_or(|h| h.trim() != "Skip")
        })
        .map(|o| o.hit(Some("/spec/template".into()), Vec::new()))
        .collect()
}

/// CK007: a hook with a fixed name and no delete policy.
fn hook_without_delete_policy(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    ctx.objects
        .iter()
        .filter(|o| o.hook().is_some() && o.value.at("/metadata/name").is_some())
        .filter_map(|o| {
            let vars = o.predicate(ctx, "hook_without_delete_policy", &[])?;
            Some(o.hit(Some("/metadata/annotations".into()), vars))
        })
        .collect()
}

/// CK008: a `caBundle` rendered where cert-manager's CA injector fills it.
fn ca_bundle_injected(ctx: &Ctx<'_>, c: &Check) -> Vec<Hit> {
    let patterns = patterns(c);
    let mut hits = Vec::new();
    for o in &ctx.objects {
        let found = matching(o.value, &patterns);
        if found.is_empty() {
            continue;
        }
        let Some(vars) = o.predicate(ctx, "ca_injection_annotated", &[]) else {
            continue;
        };
        for (pointer, v) in found {
            let mut vars = vars.clone();
            vars.push(var(
                "value",
                if v.as_str() == Some("") {
                    "an empty string"
                } else {
                    "a value"
                },
            ));
            hits.push(o.hit(Some(pointer), vars));
        }
    }
    hits
}

/// CK009: `status` rendered in Git where the release compares it.
fn status_in_git(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    let mode = ctx.compare.ignore_resource_status_field;
    ctx.objects
        .iter()
        .filter(|o| {
            o.value.get("status").is_some_and(|s| {
                !(s.is_null() || s.as_object().is_some_and(serde_json::Map::is_empty))
            })
        })
        .filter(|o| !mode.ignores(&o.key.group, &o.key.kind))
        .map(|o| {
            o.hit(
                Some("/status".into()),
                vec![
                    var("setting", mode.id()),
                    var("release", ctx.compare.release.to_string()),
                ],
            )
        })
        .collect()
}

/// Remove the field at `pointer` from `obj` (nothing when it is not there).
fn remove_at(obj: &mut Value, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let key = last.replace("~1", "/").replace("~0", "~");
    match obj.at_mut(parent) {
        Some(Value::Object(m)) => {
            m.remove(&key);
        }
        Some(Value::Array(a)) => {
            if let Ok(i) = key.parse::<usize>() {
                if i < a.len() {
                    a.remove(i);
                }
            }
        }
        _ => {}
    }
}

/// CK010: an empty value the API server does not store, where the release
/// compares it. Whether Argo CD sees the difference is not guessed: the
/// object is compared, as the analysis compares it, with the same object
/// without its empty values (what the API server keeps), and only the
/// fields that still differ are named (Argo CD's own round trip of a
/// built-in kind already drops some, such as an `env` value `""`).
fn empty_value_dropped(ctx: &Ctx<'_>, c: &Check) -> Vec<Hit> {
    let patterns = patterns(c);
    let opts = crate::analyze::Options {
        namespace: None,
        compare: CompareOptions::for_release(ctx.compare.release),
    };
    let mut hits = Vec::new();
    for o in &ctx.objects {
        let empties: Vec<(String, &Value)> = matching(o.value, &patterns)
            .into_iter()
            .filter(|(_, v)| match v {
                Value::String(s) => s.is_empty(),
                Value::Array(a) => a.is_empty(),
                Value::Object(m) => m.is_empty(),
                Value::Null => true,
                _ => false,
            })
            .collect();
        if empties.is_empty() {
            continue;
        }
        let mut stored = o.value.clone();
        // From the last, so that list positions stay right.
        for (pointer, _) in empties.iter().rev() {
            remove_at(&mut stored, pointer);
        }
        let doc = |object: Value| crate::input::Document {
            object,
            document: o.document,
            line: o.line,
        };
        let Ok(report) =
            crate::analyze::analyze_documents(&[doc(o.value.clone())], &[doc(stored)], &opts)
        else {
            continue;
        };
        let differing: BTreeSet<&str> = report
            .resources
            .iter()
            .flat_map(|r| &r.differences)
            .filter(|d| d.visible)
            .map(|d| d.pointer.as_str())
            .collect();
        for (pointer, v) in empties {
            if differing.contains(pointer.as_str()) {
                hits.push(o.hit(
                    Some(pointer),
                    vec![
                        var("value", crate::text::value_text(v)),
                        var("release", ctx.compare.release.to_string()),
                    ],
                ));
            }
        }
    }
    hits
}

/// Where a rule sits in its settings text: the pointer tokens of the rule
/// its `source` names (`Application shop spec.ignoreDifferences[1]`,
/// `ignoreDifferences[0]`, `argocd-cm resource.customizations...`).
fn rule_tokens(source: &str) -> Vec<Vec<String>> {
    let owned = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (path, index) = match source.rsplit_once('[') {
        Some((head, tail)) => match tail.strip_suffix(']').and_then(|n| n.parse::<usize>().ok()) {
            Some(n) => (head, Some(n.to_string())),
            None => (source, None),
        },
        None => (source, None),
    };
    let last = path.rsplit(' ').next().unwrap_or(path);
    let with_index = |mut t: Vec<String>| {
        t.extend(index.clone());
        t
    };
    if last.starts_with("resource.") {
        return vec![owned(&["data", last]), owned(&[last])];
    }
    match last {
        "spec.ignoreDifferences" => vec![with_index(owned(&["spec", "ignoreDifferences"]))],
        "ignoreDifferences" => vec![
            with_index(owned(&["ignoreDifferences"])),
            with_index(Vec::new()),
        ],
        _ => Vec::new(),
    }
}

/// The 1-based line of a rule (or of its field `sub`, such as `group` or
/// `jsonPointers/0`) in its settings text; 1 when it cannot be placed.
fn rule_line(s: &SettingsInput<'_>, rule: &IgnoreRule, sub: &[&str]) -> usize {
    let Ok(docs) = crate::input::parse_values(s.text, Side::Git) else {
        return 1;
    };
    let lines = Lines::new(s.text);
    for tokens in rule_tokens(&rule.source) {
        for (value, _, line) in &docs {
            let pointer = pointer_of(&tokens);
            if !tokens.is_empty() && value.at(&pointer).is_none() {
                continue;
            }
            let mut deeper = tokens.clone();
            deeper.extend(sub.iter().map(|t| t.to_string()));
            return lines.field_line(*line, &deeper);
        }
    }
    1
}

fn settings_hit(s: &SettingsInput<'_>, line: usize, vars: Vec<(String, String)>) -> Hit {
    Hit {
        key: None,
        input: s.input,
        document: 0,
        line,
        pointer: None,
        vars,
    }
}

fn subjects<'c>(ctx: &'c Ctx<'_>) -> Vec<AuditSubject<'c>> {
    ctx.objects
        .iter()
        .map(|o| AuditSubject {
            key: &o.key,
            git: Some(o.value),
            live: None,
        })
        .collect()
}

/// CK011: an ignore rule that cannot match the render (a version in
/// `group`, a kind spelt differently, a `/` not written `~1`).
fn rule_matches_nothing(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    let subjects = subjects(ctx);
    let mut hits = Vec::new();
    for s in &ctx.settings {
        for rule in &s.rules {
            let applies = subjects.iter().any(|x| rule.applies_to(x.key));
            if !applies {
                // A rule for a kind the render lacks may serve another
                // state of the app; only the known mistakes are named.
                let (why, corrected) = crate::audit::why_no_object(rule, &subjects);
                if corrected.is_none() {
                    continue;
                }
                let field = if why.contains("group") {
                    "group"
                } else {
                    "kind"
                };
                let line = rule_line(s, rule, &[field]);
                hits.push(settings_hit(
                    s,
                    line,
                    vec![var("rule", rule.source.clone()), var("why", why)],
                ));
                continue;
            }
            let matched: Vec<&AuditSubject<'_>> =
                subjects.iter().filter(|x| rule.applies_to(x.key)).collect();
            let objects: Vec<&Value> = matched.iter().filter_map(|x| x.git).collect();
            for (i, p) in rule.json_pointers.iter().enumerate() {
                if let Some((why, _)) =
                    crate::audit::pointer_problem(p, &objects, matched.iter().copied())
                {
                    let index = i.to_string();
                    hits.push(settings_hit(
                        s,
                        rule_line(s, rule, &["jsonPointers", &index]),
                        vec![var("rule", rule.source.clone()), var("why", why)],
                    ));
                }
            }
        }
    }
    hits
}

/// CK012: an ignore rule that hides a security-relevant field of an object
/// of the render (judged by applying the rule, as Argo CD would).
fn rule_hides_security_field(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    let mut hits = Vec::new();
    for s in &ctx.settings {
        for rule in &s.rules {
            let found = ctx
                .objects
                .iter()
                .filter(|o| rule.applies_to(&o.key))
                .find_map(|o| {
                    let mut after = o.value.clone();
                    rule.apply(&mut after);
                    let mut all = Vec::new();
                    nodes(o.value, &mut Vec::new(), &mut all);
                    all.iter().find_map(|(toks, _)| {
                        let pointer = pointer_of(toks);
                        if toks.is_empty() || after.at(&pointer).is_some() {
                            return None;
                        }
                        let why = crate::fixes::sensitive_reason(&o.key, &pointer)?;
                        Some((o, pointer, why))
                    })
                });
            if let Some((o, pointer, why)) = found {
                hits.push(settings_hit(
                    s,
                    rule_line(s, rule, &[]),
                    vec![
                        var("rule", rule.source.clone()),
                        var("field", crate::text::pointer_code(&pointer)),
                        var("id", o.key.to_string()),
                        var("why", why),
                    ],
                ));
            }
        }
    }
    hits
}

/// CK013: a jq expression of an ignore rule that does not compile.
fn jq_does_not_compile(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    ctx.settings
        .iter()
        .flat_map(|s| {
            s.refused_jq.iter().map(|e| {
                let mut h = settings_hit(s, e.line.max(1), vec![var("why", e.message.clone())]);
                h.document = e.document;
                h
            })
        })
        .collect()
}
