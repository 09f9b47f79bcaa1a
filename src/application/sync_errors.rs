//! Sync errors classified: the messages of an Application's last operation
//! (`status.operationState`, each resource of its `syncResult`) and its error
//! conditions, matched against the catalogue `sync_errors.yaml`.

use crate::identity::canonical_group;
use crate::model::{Cause, SyncError};
use regex_lite::{Regex, RegexBuilder};
use serde::Deserialize;
use serde_json::Value;
use std::sync::OnceLock;

/// The longest message quoted in a report, in characters.
const MAX_MESSAGE: usize = 400;

/// One recognised kind of sync error.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pattern {
    /// Stable code, `SE` and three digits.
    pub code: String,
    /// What it is, in a few words.
    pub title: String,
    /// The cause it gives.
    pub cause: Cause,
    /// The kinds it applies to (the resource's, or the one the message names).
    #[serde(default)]
    pub kinds: Vec<String>,
    /// A regex on the message (case-insensitive); named groups are evidence variables.
    #[serde(default)]
    pub pattern: Option<String>,
    /// The hook phases it applies to (the resource must be a hook in one of them).
    #[serde(default)]
    pub hook_phases: Vec<String>,
    /// Another cause when an evidence variable matches (first match wins).
    #[serde(default)]
    pub cause_when: Vec<CauseWhen>,
    /// The evidence template.
    pub evidence: String,
    /// The fix.
    pub fix: String,
    /// Text ready to paste.
    #[serde(default)]
    pub snippet: String,
    /// The fix's risk.
    #[serde(default)]
    pub risk: Option<String>,
    /// What the message means.
    pub docs: String,
    /// A message it must recognise.
    pub example: String,
    #[serde(skip)]
    regex: Option<Regex>,
}

/// A cause decided by what the message names (the field manager, the webhook).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CauseWhen {
    /// The evidence variable looked at.
    pub var: String,
    /// A regex on its value (case-insensitive).
    pub pattern: String,
    /// The cause when it matches.
    pub cause: Cause,
    #[serde(skip)]
    regex: Option<Regex>,
}

fn compile(src: &str, code: &str) -> Result<Regex, String> {
    RegexBuilder::new(src)
        .case_insensitive(true)
        .build()
        .map_err(|e| format!("sync_errors.yaml {code}: {e}"))
}

/// The catalogue, or why it does not load.
pub fn patterns() -> Result<&'static [Pattern], String> {
    static CELL: OnceLock<Result<Vec<Pattern>, String>> = OnceLock::new();
    CELL.get_or_init(|| {
        let mut list: Vec<Pattern> = serde_yaml::from_str(include_str!("sync_errors.yaml"))
            .map_err(|e| format!("sync_errors.yaml: {e}"))?;
        for p in &mut list {
            if let Some(src) = &p.pattern {
                p.regex = Some(compile(src, &p.code)?);
            }
            for w in &mut p.cause_when {
                w.regex = Some(compile(&w.pattern, &p.code)?);
            }
        }
        Ok(list)
    })
    .as_ref()
    .map(Vec::as_slice)
    .map_err(Clone::clone)
}

/// One pattern's documentation, as `drift-doctor explain SE001` prints it.
pub fn explain(p: &Pattern) -> String {
    let mut out = format!(
        "## {}: {}

",
        p.code, p.title
    );
    out.push_str(&format!("Cause: `{}`", p.cause.id()));
    for w in &p.cause_when {
        out.push_str(&format!(
            "; `{}` when {} matches `{}`",
            w.cause.id(),
            w.var,
            w.pattern
        ));
    }
    out.push_str(
        ".

",
    );
    out.push_str(&format!(
        "{}

",
        p.docs
    ));
    if let Some(pattern) = &p.pattern {
        out.push_str(&format!("Message: `{pattern}`"));
    }
    if !p.hook_phases.is_empty() {
        if p.pattern.is_some() {
            out.push_str("; ");
        }
        out.push_str(&format!("a hook in phase {}", p.hook_phases.join(", ")));
    }
    if !p.kinds.is_empty() {
        out.push_str(&format!("; kinds: {}", p.kinds.join(", ")));
    }
    out.push_str(&format!(
        ".

Fix: {}

",
        p.fix
    ));
    if !p.snippet.is_empty() {
        out.push_str(&format!(
            "```yaml
{}```

",
            p.snippet
        ));
    }
    if let Some(risk) = &p.risk {
        out.push_str(&format!(
            "Risk: {risk}

"
        ));
    }
    out.push_str(&format!(
        "Example: `{}`
",
        p.example
    ));
    out
}

/// The whole catalogue as Markdown (`docs/sync-errors.md`).
pub fn catalogue_markdown() -> String {
    let mut out = String::from(
        "# Sync errors drift-doctor recognises

Generated from `src/application/sync_errors.yaml`; `drift-doctor explain SE001` prints one.
Read from an Application's `status.operationState` and `status.conditions` (`--application`); tried in this order, the first that matches decides.

",
    );
    match patterns() {
        Ok(list) => {
            out.push_str(
                "| Code | Cause | What |
| --- | --- | --- |
",
            );
            for p in list {
                out.push_str(&format!(
                    "| {} | `{}` | {} |
",
                    p.code,
                    p.cause.id(),
                    p.title
                ));
            }
            for p in list {
                out.push('\n');
                out.push_str(&explain(p));
            }
        }
        Err(e) => out.push_str(&e),
    }
    out
}

/// The resource an error is about.
#[derive(Debug, Default, Clone)]
struct Named {
    group: String,
    kind: String,
    namespace: String,
    name: String,
}

impl Named {
    fn id(&self) -> Option<String> {
        (!self.kind.is_empty() && !self.name.is_empty()).then(|| {
            format!(
                "{}/{}/{}/{}",
                self.group, self.kind, self.namespace, self.name
            )
        })
    }
}

/// The resource a Kubernetes message names (`Job.batch "x" is invalid`,
/// `no matches for kind "X" in version "g/v1"`).
fn named_in(message: &str) -> Named {
    static RES: OnceLock<Option<(Regex, Regex)>> = OnceLock::new();
    let Some((object, kind)) = RES
        .get_or_init(|| {
            Some((
                Regex::new(
                    r#"([A-Z][A-Za-z0-9]*)(?:\.([a-z0-9.-]+))? "([^"]+)" is (?:invalid|forbidden)"#,
                )
                .ok()?,
                Regex::new(r#"no matches for kind "([^"]+)" in version "(?:([^"/]+)/)?[^"]*""#)
                    .ok()?,
            ))
        })
        .as_ref()
    else {
        return Named::default();
    };
    if let Some(c) = object.captures(message) {
        let kind = c.get(1).map_or("", |m| m.as_str());
        return Named {
            group: canonical_group(c.get(2).map_or("", |m| m.as_str()), kind),
            kind: kind.to_string(),
            namespace: String::new(),
            name: c.get(3).map_or("", |m| m.as_str()).to_string(),
        };
    }
    if let Some(c) = kind.captures(message) {
        let kind = c.get(1).map_or("", |m| m.as_str());
        return Named {
            group: canonical_group(c.get(2).map_or("", |m| m.as_str()), kind),
            kind: kind.to_string(),
            ..Named::default()
        };
    }
    Named::default()
}

/// The message on one line, cut, with what could be a Secret's value masked:
/// Kubernetes quotes the refused value after `Invalid value:`.
fn masked_message(message: &str, kind: &str) -> String {
    static INVALID: OnceLock<Option<Regex>> = OnceLock::new();
    let secret = kind.eq_ignore_ascii_case("secret")
        || message.contains("Secret \"")
        || message.to_ascii_lowercase().contains("kind\":\"secret");
    let text = match INVALID
        .get_or_init(|| Regex::new(r#"Invalid value: (?:"(?:[^"\\]|\\.)*"|\S+)"#).ok())
        .as_ref()
    {
        Some(re) if secret => re
            .replace_all(message, "Invalid value: (masked)")
            .into_owned(),
        _ => message.to_string(),
    };
    // A Secret's data could be quoted anywhere else in an apply error: keep only the words before it.
    let text = if secret {
        match text.find("\"data\"").or_else(|| text.find("data:")) {
            Some(at) => format!("{} (rest masked)", &text[..at]),
            None => text,
        }
    } else {
        text
    };
    let words: Vec<&str> = text.split_whitespace().collect();
    crate::text::one_line(&words.join(" "), MAX_MESSAGE)
}

/// What one message is read with.
struct Seen<'a> {
    message: &'a str,
    named: Named,
    hook: Option<(&'a str, &'a str)>,
    source: String,
}

fn classify_one(seen: &Seen<'_>, patterns: &[Pattern]) -> SyncError {
    let hit = patterns.iter().find_map(|p| {
        if !p.kinds.is_empty() && !p.kinds.contains(&seen.named.kind) {
            return None;
        }
        if !p.hook_phases.is_empty() {
            let (_, phase) = seen.hook?;
            if !p.hook_phases.iter().any(|h| h == phase) {
                return None;
            }
        }
        let mut vars: Vec<(String, String)> = Vec::new();
        if let Some(re) = &p.regex {
            let c = re.captures(seen.message)?;
            for name in re.capture_names().flatten() {
                if let Some(m) = c.name(name) {
                    vars.push((name.to_string(), m.as_str().to_string()));
                }
            }
        } else if p.hook_phases.is_empty() {
            return None;
        }
        Some((p, vars))
    });
    let resource = seen.named.id();
    let mut vars = vec![
        (
            "resource".to_string(),
            resource.clone().unwrap_or_else(|| "the app".into()),
        ),
        ("kind".to_string(), seen.named.kind.clone()),
        ("name".to_string(), seen.named.name.clone()),
    ];
    if let Some((phase, hook_phase)) = seen.hook {
        vars.push(("phase".into(), phase.to_string()));
        vars.push(("hook_phase".into(), hook_phase.to_string()));
    }
    let message = masked_message(seen.message, &seen.named.kind);
    match hit {
        Some((p, found)) => {
            vars.extend(found.into_iter().map(|(k, v)| {
                let v = crate::text::one_line(&v, 120);
                (k, v)
            }));
            let fill = |t: &str| crate::text::fill(t, &vars);
            let cause = p
                .cause_when
                .iter()
                .find(|w| {
                    let value = vars.iter().rev().find(|(k, _)| *k == w.var);
                    matches!((value, &w.regex), (Some((_, v)), Some(re)) if re.is_match(v))
                })
                .map_or(p.cause, |w| w.cause);
            SyncError {
                code: p.code.clone(),
                title: p.title.clone(),
                cause: Some(cause),
                resource,
                source: seen.source.clone(),
                message,
                evidence: fill(&p.evidence),
                fix: fill(&p.fix),
                snippet: fill(&p.snippet),
                risk: p.risk.as_deref().map(fill),
            }
        }
        None => SyncError {
            code: "SE000".into(),
            title: "A sync error drift-doctor does not recognise".into(),
            cause: None,
            resource,
            source: seen.source.clone(),
            message,
            evidence: "The message matches none of the known sync failures; it is shown as Argo CD wrote it.".into(),
            fix: "Read the message and the per-resource results (`argocd app get APP --show-operation`).".into(),
            snippet: String::new(),
            risk: None,
        },
    }
}

/// One message Argo CD wrote elsewhere than in the Application (a log
/// line, an event), classified; `source` says where it was read.
pub fn classify_message(message: &str, source: &str) -> SyncError {
    let patterns = patterns().unwrap_or(&[]);
    classify_one(
        &Seen {
            message,
            named: named_in(message),
            hook: None,
            source: source.to_string(),
        },
        patterns,
    )
}

/// The kind and name of a `group/Kind/namespace/name` id.
fn kind_and_name(id: &str) -> (Option<&str>, Option<&str>) {
    let p: Vec<&str> = id.split('/').collect();
    (p.get(1).copied(), p.get(3).copied())
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Every error the Application's status records, classified, without repeats
/// (the operation's message usually repeats a resource's).
pub fn classify(app: &Value) -> Vec<SyncError> {
    // Without the catalogue every message is still listed, as not recognised.
    let patterns = patterns().unwrap_or(&[]);
    let op = app.pointer("/status/operationState");
    let op_phase = op.map_or("", |o| s(o, "phase"));
    let op_ended = !matches!(op_phase, "" | "Running");
    let mut seen: Vec<Seen> = Vec::new();
    if let Some(results) = op
        .and_then(|o| o.pointer("/syncResult/resources"))
        .and_then(Value::as_array)
    {
        for (i, r) in results.iter().enumerate() {
            let status = s(r, "status");
            let hook_phase = s(r, "hookPhase");
            let hook_type = s(r, "hookType");
            let is_hook = !hook_type.is_empty();
            let hook_failed = is_hook && matches!(hook_phase, "Failed" | "Error");
            let hook_stuck =
                is_hook && op_ended && matches!(hook_phase, "Running" | "Pending" | "Terminating");
            if status != "SyncFailed" && !hook_failed && !hook_stuck {
                continue;
            }
            let kind = s(r, "kind");
            seen.push(Seen {
                message: s(r, "message"),
                named: Named {
                    group: canonical_group(s(r, "group"), kind),
                    kind: kind.to_string(),
                    namespace: s(r, "namespace").to_string(),
                    name: s(r, "name").to_string(),
                },
                hook: is_hook.then_some((hook_type, hook_phase)),
                source: format!("operationState.syncResult.resources[{i}]"),
            });
        }
    }
    if let Some(o) = op {
        let message = s(o, "message");
        if !message.is_empty() && op_phase != "Succeeded" {
            seen.push(Seen {
                message,
                named: named_in(message),
                hook: None,
                source: format!("operationState.message (phase {op_phase})"),
            });
        }
    }
    if let Some(conditions) = app.pointer("/status/conditions").and_then(Value::as_array) {
        for c in conditions {
            let kind = s(c, "type");
            let message = s(c, "message");
            if !kind.ends_with("Error") || message.is_empty() {
                continue;
            }
            seen.push(Seen {
                message,
                named: named_in(message),
                hook: None,
                source: format!("conditions[{kind}]"),
            });
        }
    }
    let retries = op
        .and_then(|o| o.get("retryCount"))
        .and_then(Value::as_u64)
        .filter(|n| *n > 0)
        .map(|n| {
            let (base, cap) = super::history::retry_backoff(app);
            let times = crate::text::count(n as usize, "time", "times");
            format!(" Argo CD has retried the operation {times}, waiting {base} before the first retry and doubling the wait up to {cap}; a retry cannot pass until the cause is fixed.")
        });
    let mut out: Vec<SyncError> = Vec::new();
    for one in &seen {
        let mut e = classify_one(one, patterns);
        if let Some(r) = retries
            .as_deref()
            .filter(|_| one.source.starts_with("operationState"))
        {
            if e.cause.is_some() {
                e.evidence.push_str(r);
            }
        }
        // The same failure read twice: once on the resource, once in the operation's message.
        let same_name = |a: &Option<String>, b: &Option<String>| match (a, b) {
            (Some(a), Some(b)) => kind_and_name(a) == kind_and_name(b),
            _ => true,
        };
        let repeat = out.iter().any(|x| {
            (x.code == e.code && e.code != "SE000" && same_name(&x.resource, &e.resource))
                || (x.message == e.message)
        });
        if !repeat {
            out.push(e);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_pattern_recognises_its_example() {
        let patterns = patterns().expect("sync_errors.yaml loads");
        let mut codes = std::collections::BTreeSet::new();
        for p in patterns {
            assert!(codes.insert(p.code.clone()), "{} twice", p.code);
            assert!(
                p.pattern.is_some() || !p.hook_phases.is_empty(),
                "{}",
                p.code
            );
            let kind = p.kinds.first().map_or("Job", String::as_str);
            let app = json!({"status": {"operationState": {"phase": "Failed", "syncResult": {"resources": [{
                "group": "", "kind": kind, "namespace": "ns", "name": "x", "status": "SyncFailed",
                "hookType": if p.hook_phases.is_empty() { "" } else { "PreSync" },
                "hookPhase": p.hook_phases.first().map_or("", String::as_str),
                "message": p.example,
            }]}}}});
            let found = classify(&app);
            assert_eq!(
                found.first().map(|e| e.code.as_str()),
                Some(p.code.as_str()),
                "{}: {found:?}",
                p.code
            );
        }
    }

    #[test]
    fn a_secret_value_in_a_message_is_masked() {
        let m = masked_message(
            r#"Secret "db" is invalid: data[password]: Invalid value: "hunter2hunter2": bad"#,
            "Secret",
        );
        assert!(!m.contains("hunter2"), "{m}");
    }
}
