//! A check report as CI reads it: text for a log, GitHub workflow
//! annotations, and SARIF 2.1.0 for GitHub and GitLab code scanning. The
//! JSON form is the report itself (serde). Paths are the caller's: the
//! library names inputs, the shell knows their files.

use super::{CheckReport, Input};
use crate::rules::checks::{Check, Level};
use serde_json::{json, Value};
use std::fmt::Write;

/// The file each input was read from, as findings should name it.
pub trait InputNames {
    /// The path of `input` (as given on the command line).
    fn name(&self, input: Input) -> String;
}

impl<F: Fn(Input) -> String> InputNames for F {
    fn name(&self, input: Input) -> String {
        self(input)
    }
}

/// Plain text: one block per finding, then the counts (the shell makes it
/// inert for a terminal).
pub fn text(report: &CheckReport, names: &dyn InputNames) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let _ = write!(
            out,
            "{}:{}: {} {}",
            names.name(f.input),
            f.line,
            f.level.id(),
            f.rule
        );
        if let Some(r) = &f.resource {
            let _ = write!(out, " {r}");
        }
        let _ = writeln!(out, ": {}", f.title);
        if let Some(s) = &f.source {
            let _ = writeln!(out, "  template: {s}");
        }
        let _ = writeln!(out, "  {}", f.message);
        let _ = writeln!(out, "  fix: {}", f.fix);
        if let Some(snippet) = &f.snippet {
            for l in snippet.trim_end().lines() {
                let _ = writeln!(out, "    {l}");
            }
        }
    }
    let s = &report.summary;
    let _ = writeln!(
        out,
        "{} checked: {}, {}, {}.",
        crate::text::count(s.objects, "object", "objects"),
        crate::text::count(s.errors, "error", "errors"),
        crate::text::count(s.warnings, "warning", "warnings"),
        crate::text::count(s.notes, "note", "notes")
    );
    out
}

/// A workflow command's data, escaped as GitHub's runner reads it.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value, escaped as GitHub's runner reads it.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The GitHub annotation command of a level.
fn github_command(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "notice",
    }
}

/// GitHub workflow annotations, one line per finding:
/// `::warning file=…,line=…,title=…::message`.
pub fn github(report: &CheckReport, names: &dyn InputNames) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let title = format!("{} {}", f.rule, f.title);
        let mut message = f.message.clone();
        if let Some(s) = &f.source {
            message = format!("{message} (template {s})");
        }
        message = format!("{message}\nFix: {}", f.fix);
        let _ = writeln!(
            out,
            "::{} file={},line={},title={}::{}",
            github_command(f.level),
            escape_property(&names.name(f.input)),
            f.line,
            escape_property(&title),
            escape_data(&message)
        );
    }
    out
}

/// A path as a relative URI reference: the characters a URI cannot hold
/// percent-encoded, Windows separators turned round.
fn uri_reference(path: &str) -> String {
    let mut out = String::new();
    for b in path.replace('\\', "/").bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// A check's documentation as SARIF `help` text and Markdown.
fn help(c: &Check) -> Value {
    let sections = c.docs.sections();
    let text: Vec<String> = sections
        .iter()
        .map(|(t, b)| format!("{t}: {}", b.trim()))
        .collect();
    let markdown: Vec<String> = sections
        .iter()
        .map(|(t, b)| format!("**{t}.** {}", b.trim()))
        .collect();
    json!({"text": text.join("\n\n"), "markdown": markdown.join("\n\n")})
}

/// SARIF 2.1.0: one run, every check of the catalogue as a rule (with its
/// documentation as `help`, and `helpUri` when `docs_url` gives where
/// `docs/rules.md` is served), one result per finding.
pub fn sarif(
    report: &CheckReport,
    checks: &[Check],
    names: &dyn InputNames,
    docs_url: Option<&str>,
) -> Value {
    let rules: Vec<Value> = checks
        .iter()
        .map(|c| {
            let mut rule = json!({
                "id": c.code,
                "name": c.code,
                "shortDescription": {"text": c.title},
                "fullDescription": {"text": c.docs.meaning.trim()},
                "help": help(c),
                "defaultConfiguration": {"level": c.level.id()},
                "properties": {"cause": c.cause.id(), "loopsAs": c.loops_as},
            });
            if let Some(base) = docs_url {
                rule["helpUri"] = json!(format!("{base}#{}", c.code.to_lowercase()));
            }
            rule
        })
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            let mut text = f.message.clone();
            if let Some(s) = &f.source {
                text = format!("{text} (template {s})");
            }
            text = format!("{text} Fix: {}", f.fix);
            let mut result = json!({
                "ruleId": f.rule,
                "level": f.level.id(),
                "message": {"text": text},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri_reference(&names.name(f.input))},
                        "region": {"startLine": f.line.max(1)},
                    }
                }],
            });
            if let Some(i) = checks.iter().position(|c| c.code == f.rule) {
                result["ruleIndex"] = json!(i);
            }
            if let Some(r) = &f.resource {
                result["locations"][0]["logicalLocations"] =
                    json!([{"fullyQualifiedName": r, "kind": "resource"}]);
            }
            result
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "drift-doctor",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }]
    })
}
