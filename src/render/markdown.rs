//! A ticket-ready Markdown summary: plain headings, tables and fenced code,
//! no HTML, so GitHub, GitLab and Jira render it alike.

use super::inline_value;
use crate::fixes::prevention_checklist;
use crate::model::*;
use std::fmt::Write;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A warning names things from the pasted text: write every Markdown
/// control character literally so none can open a link, a span or HTML.
fn escape_warning(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '<' | '>' | '[' | ']' | '(' | ')' | '#' | '|' | '!' | '&'
        ) {
            out.push('\\');
        }
        out.push(if c == '\n' { ' ' } else { c });
    }
    out
}

pub fn render(report: &Report, link: Option<&str>) -> String {
    let mut out = String::new();
    let s = &report.summary;
    let _ = writeln!(out, "## drift-doctor report\n");
    if let Some(app) = &s.application {
        let _ = writeln!(out, "**Application:** `{app}`  ");
    }
    let _ = writeln!(
        out,
        "**Resources:** {} · **Synced:** {} · **OutOfSync:** {}{}\n",
        s.resources,
        s.synced,
        s.out_of_sync,
        if s.skipped > 0 {
            format!(" · **Skipped:** {}", s.skipped)
        } else {
            String::new()
        }
    );
    if !s.causes.is_empty() {
        let causes: Vec<String> = s
            .causes
            .iter()
            .map(|(c, n)| format!("`{}` {n}", c.id()))
            .collect();
        let _ = writeln!(out, "**Causes:** {}\n", causes.join(", "));
    }
    if let Some(link) = link {
        let _ = writeln!(out, "[Open this analysis in drift-doctor]({link})\n");
    }
    for step in &report.emergency {
        let _ = writeln!(out, "> **First:** {step}\n");
    }
    for warning in &report.warnings {
        let _ = writeln!(out, "> **Warning:** {}\n", escape_warning(warning));
    }
    let out_of_sync: Vec<&ResourceReport> = report
        .resources
        .iter()
        .filter(|r| r.status == Status::OutOfSync)
        .collect();
    if out_of_sync.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            if report.warnings.is_empty() {
                "Everything is Synced: Argo CD would show no difference."
            } else {
                "No difference found in what could be read; see the warnings above."
            }
        );
    }
    for r in out_of_sync {
        let presence = match r.presence {
            Presence::Both => String::new(),
            Presence::GitOnly => " (in Git only)".into(),
            Presence::LiveOnly => " (live only)".into(),
        };
        let _ = writeln!(out, "### `{}`{presence}\n", r.id);
        let _ = writeln!(out, "| Field | Git | Live | Cause | Rule | Confidence |");
        let _ = writeln!(out, "| --- | --- | --- | --- | --- | --- |");
        for d in r.differences.iter().filter(|d| d.visible) {
            let field = if d.pointer.is_empty() {
                "(whole object)".to_string()
            } else {
                format!("`{}`", d.pointer)
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | `{}` | {} | {} |",
                cell(&field),
                cell(&format!("`{}`", inline_value(&d.git, 40))),
                cell(&format!("`{}`", inline_value(&d.live, 40))),
                d.cause.id(),
                d.rule,
                d.confidence.id()
            );
        }
        out.push('\n');
        for d in r.differences.iter().filter(|d| d.visible) {
            let _ = writeln!(out, "- **{}**: {}", d.rule, d.evidence);
        }
        out.push('\n');
        for f in &r.fixes {
            let _ = writeln!(out, "**Fix ({}):** {}\n", kind_name(f.kind), f.title);
            let lang = if matches!(f.kind, FixKind::Ignore) || f.snippet.contains(":\n") {
                "yaml"
            } else {
                "text"
            };
            let _ = writeln!(out, "```{lang}\n{}\n```\n", f.snippet.trim_end());
        }
    }
    let mut causes: Vec<Cause> = report.summary.causes.keys().copied().collect();
    causes.sort();
    let checklist = prevention_checklist(&causes);
    if !checklist.is_empty() {
        let _ = writeln!(out, "### Prevention checklist\n");
        for item in checklist {
            let _ = writeln!(out, "- [ ] {item}");
        }
    }
    out
}

fn kind_name(k: FixKind) -> &'static str {
    match k {
        FixKind::Ignore => "ignoreDifferences",
        FixKind::Git => "Git",
        FixKind::SyncOrder => "sync order",
        FixKind::Render => "render",
    }
}
