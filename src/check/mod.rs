//! `drift-doctor check`: the prevention checklist run on rendered manifests
//! before they ship, with no cluster and no live side. Each finding is a
//! check of the catalogue (`src/rules/checks.yaml`, code `CK…`) with the
//! document and line it is about, the Helm template that rendered it, why
//! it makes Argo CD loop and the fix. What a check finds is decided here, one
//! detector per code, from the facts the analysis already has (the input
//! context, the rules' predicates, the second render's kinds of generated
//! value, the audit of ignore rules, the security-relevant paths).

#![warn(missing_docs)]

mod detectors;
pub mod format;
use crate::sorting::CollectByInsertion;
use detectors::*;
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
    /// The destination namespace the Application creates first
    /// (`CreateNamespace=true`).
    app_creates_namespace: Option<String>,
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
    ("CK014", hook_on_pod_template),
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
                .collect_by_insertion()
        }),
        input: InputContext::default(),
        compare,
        settings,
        app_skips_dry_run,
        app_creates_namespace: input.app.and_then(namespace_created_by_app),
    };
    let mut learnt = InputContext::default();
    for o in &ctx.objects {
        learnt.learn(&o.key, o.value, true);
    }
    ctx.input = learnt;
    let catalog = crate::rules::catalog();
    let git_lines = Lines::new(input.git);
    let mut findings = Vec::new();
    for c in catalog.checks() {
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
        .collect_by_insertion();
    findings.retain(|f| {
        f.rule != "CK003" || !disagreeing.contains(&(f.resource.clone(), f.pointer.clone()))
    });
    crate::sorting::sort_by(&mut findings, |a, b| {
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
