//! A ticket-ready Markdown summary: plain headings, tables and fenced code,
//! no HTML, so GitHub, GitLab and Jira render it alike.

use super::{inline_value, our_verdict};
use crate::fixes::prevention_checklist;
use crate::model::*;
use std::fmt::Write;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Backticks one more than the longest run of them in `s`, and than `shortest`.
fn fence(s: &str, shortest: usize) -> String {
    let longest_run = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest_run.max(shortest) + 1)
}

/// Input text as a code span that nothing inside can close: the fence is
/// one backtick longer than the longest run of backticks in the text
/// (CommonMark), padded with a space where the text starts or ends with one.
fn code(s: &str) -> String {
    let s = s.replace('\n', " ");
    let fence = fence(&s, 0);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// Free text that quotes input in backticks (evidence, titles) made inert:
/// outside its code spans every character that could start HTML, a link,
/// an image, emphasis or a table cell is escaped, and bare URLs are broken
/// so they do not become links. Whatever pairs of backticks the input adds,
/// a character lands either in a code span (shown as written) or escaped.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for (i, part) in s.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(part);
            continue;
        }
        for c in part.chars() {
            if matches!(
                c,
                '\\' | '<' | '>' | '[' | ']' | '(' | ')' | '!' | '*' | '_' | '|' | '&' | '#' | '~'
            ) {
                out.push('\\');
            }
            out.push(c);
        }
    }
    // An odd number of backticks would leave the last one open and the code
    // span to swallow what follows: escape the unpaired one.
    if s.matches('`').count() % 2 == 1 {
        if let Some(at) = out.rfind('`') {
            out.insert(at, '\\');
        }
    }
    out.replace("://", ":\\/\\/")
        .replace("www.", "www\\.")
        .replace('\n', " ")
}

/// The report as Markdown for a pull request or an issue, with a link to
/// open the analysis in drift-doctor when one is given.
pub fn render(report: &Report, link: Option<&str>) -> String {
    let mut out = String::new();
    let s = &report.summary;
    let _ = writeln!(out, "## drift-doctor report\n");
    if let Some(app) = &s.application {
        let _ = writeln!(out, "**Application:** {}  ", code(app));
    }
    if !report.argocd_version.is_empty() {
        let _ = writeln!(
            out,
            "**Compared as:** Argo CD {}  ",
            code(&report.argocd_version)
        );
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
        let _ = writeln!(out, "> **First:** {}\n", text(step));
    }
    for warning in &report.warnings {
        let _ = writeln!(out, "> **Warning:** {}\n", text(warning));
    }
    if let Some(status) = &report.argocd_status {
        argocd_status(&mut out, status);
    }
    if let Some(observed) = &report.observed {
        observed_section(&mut out, observed);
    }
    plan_section(&mut out, report.plan.as_ref());
    audit_section(&mut out, report);
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
        let presence = r
            .presence
            .words()
            .map_or_else(String::new, |w| format!(" ({w})"));
        let _ = writeln!(out, "### {}{presence}\n", code(&r.id));
        let _ = writeln!(out, "| Field | Git | Live | Cause | Rule | Confidence |");
        let _ = writeln!(out, "| --- | --- | --- | --- | --- | --- |");
        for d in r.differences.iter().filter(|d| d.visible) {
            let field = if d.field.is_empty() {
                crate::text::field_label(&d.field).to_string()
            } else {
                code(&d.field)
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | `{}` | {} | {} |",
                cell(&field),
                cell(&code(&inline_value(d.git.as_ref(), 40))),
                cell(&code(&inline_value(d.live.as_ref(), 40))),
                d.cause.id(),
                d.rule,
                d.confidence.id()
            );
        }
        out.push('\n');
        for d in r.differences.iter().filter(|d| d.visible) {
            let _ = writeln!(out, "- **{}**: {}", d.rule, text(&d.evidence));
            for o in &d.observed {
                let _ = writeln!(
                    out,
                    "  - {} {} {}{}: {}",
                    if o.proves {
                        "Seen, and it proves it:"
                    } else {
                        "Seen:"
                    },
                    o.code,
                    text(&o.location),
                    o.time
                        .as_deref()
                        .map(|t| format!(", {}", text(t)))
                        .unwrap_or_default(),
                    code(&o.quote)
                );
            }
        }
        out.push('\n');
        for f in &r.fixes {
            let _ = writeln!(out, "**Fix ({}):** {}\n", kind_name(f.kind), text(&f.title));
            let mark = if f.recommended {
                " · **recommended**"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "_{}_{mark}: {}\n",
                f.verified.id(),
                text(&f.verification)
            );
            if let Some(w) = &f.warning {
                let _ = writeln!(out, "> **Warning:** {}\n", text(w));
            }
            for e in f.sync_effects.iter().filter(|e| !e.kind.harms()) {
                let _ = writeln!(out, "_On the way:_ {}\n", text(&e.message));
            }
            for c in &f.collateral {
                let _ = writeln!(
                    out,
                    "- also hides ({} form): {} {} (`{}`)",
                    c.form,
                    code(&c.resource),
                    code(crate::text::field_label(&c.field)),
                    c.cause.id()
                );
            }
            if !f.collateral.is_empty() {
                out.push('\n');
            }
            fenced(&mut out, &f.snippet, f.kind == FixKind::Ignore);
        }
    }
    let mut causes: Vec<Cause> = report.summary.causes.keys().copied().collect();
    crate::sorting::sort(&mut causes);
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

/// What the Application says about itself, above the resources.
fn argocd_status(out: &mut String, a: &ArgocdStatus) {
    let _ = write!(out, "### Argo CD's own status: {}", code(&a.name));
    if let Some(s) = &a.sync_status {
        let _ = write!(out, " ({})", code(s));
    }
    out.push_str("\n\n");
    for s in &a.settings {
        let _ = writeln!(out, "- Setting: {}", text(s));
    }
    if !a.settings.is_empty() {
        out.push('\n');
    }
    if let Some(l) = &a.sync_loop {
        let _ = writeln!(out, "> **Sync loop:** {}\n", text(&l.message));
    }
    if !a.sync_errors.is_empty() {
        let _ = writeln!(out, "#### Sync errors\n");
    }
    for e in &a.sync_errors {
        sync_error_item(
            out,
            e,
            &format!("on {}", code(e.resource.as_deref().unwrap_or("the app"))),
        );
    }
    if !a.sync_errors.is_empty() {
        out.push('\n');
    }
    if !a.verdicts.is_empty() {
        let _ = writeln!(out, "#### Where Argo CD's verdict differs\n");
        let _ = writeln!(out, "| Resource | Argo CD | drift-doctor | What it means |");
        let _ = writeln!(out, "| --- | --- | --- | --- |");
        for v in &a.verdicts {
            let ours = our_verdict(v.drift_doctor);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                cell(&code(&v.id)),
                cell(&code(v.argocd.as_deref().unwrap_or("not listed"))),
                ours,
                cell(&text(&v.message))
            );
        }
        out.push('\n');
    }
}

/// What the pasted events and logs say about the app: the sync loop and
/// Argo CD's own errors, quoted as code (user text, never markup).
fn observed_section(out: &mut String, o: &crate::model::ObservedReport) {
    let _ = writeln!(
        out,
        "### Events and logs\n\nRead: {} and {}.\n",
        crate::text::count(o.events, "event", "events"),
        crate::text::count(o.log_lines, "log line", "log lines")
    );
    if let Some(l) = &o.sync_loop {
        let _ = writeln!(out, "> **Sync loop:** {}\n", text(&l.message));
    }
    for e in &o.argocd_errors {
        sync_error_item(out, e, &format!("in {}", text(&e.source)));
    }
    if !o.argocd_errors.is_empty() {
        out.push('\n');
    }
}

/// One classified error of Argo CD's as a list item: where it was read,
/// what it means, the fix and its snippet.
fn sync_error_item(out: &mut String, e: &crate::model::SyncError, place: &str) {
    let cause = e
        .cause
        .map_or_else(|| "unrecognised".to_string(), |c| format!("`{}`", c.id()));
    let _ = writeln!(
        out,
        "- **{}** {} {}: {}",
        e.code,
        cause,
        place,
        text(&e.title)
    );
    let _ = writeln!(out, "  - Message: {}", code(&e.message));
    let _ = writeln!(out, "  - Why: {}", text(&e.evidence));
    let _ = writeln!(out, "  - Fix: {}", text(&e.fix));
    if let Some(r) = &e.risk {
        let _ = writeln!(out, "  - Risk: {}", text(r));
    }
    let snippet = e.snippet.trim_end();
    if !snippet.is_empty() {
        let fence = fence(snippet, 2);
        let indented: String = snippet.lines().map(|l| format!("  {l}\n")).collect();
        let _ = writeln!(out, "\n  {fence}yaml\n{indented}  {fence}");
    }
}

/// A snippet in a fence no backtick run inside can close early.
fn fenced(out: &mut String, snippet: &str, yaml: bool) {
    let lang = if yaml || snippet.contains(":\n") {
        "yaml"
    } else {
        "text"
    };
    let snippet = snippet.trim_end();
    let fence = fence(snippet, 2);
    let _ = writeln!(out, "{fence}{lang}\n{snippet}\n{fence}\n");
}

fn plan_section(out: &mut String, plan: Option<&Plan>) {
    let Some(plan) = plan else {
        return;
    };
    let _ = writeln!(out, "### Plan ({})\n", plan.outcome());
    let _ = writeln!(out, "{}\n", text(&plan.verification));
    if !plan.application.is_empty() {
        let _ = writeln!(out, "**Add to the Application:**\n");
        fenced(out, &plan.application, true);
    }
    let steps = crate::plan::step_groups(plan);
    for (what, list) in steps {
        for step in list.iter() {
            let _ = writeln!(
                out,
                "- **{what}** in {} (_{}_): {}",
                code(&step.resource),
                step.verified.id(),
                text(&step.snippet)
            );
        }
    }
    for f in plan.drift.iter().chain(&plan.unresolved) {
        let label = if f.cause == Cause::Drift {
            "Drift"
        } else {
            "Unresolved"
        };
        let _ = writeln!(
            out,
            "- **{label}** {} {}: {}",
            code(&f.resource),
            code(crate::text::field_label(&f.field)),
            text(&f.note)
        );
    }
    out.push('\n');
}

fn audit_section(out: &mut String, report: &Report) {
    if report.audit.is_empty() {
        return;
    }
    let _ = writeln!(out, "### Your ignore rules\n");
    for a in &report.audit {
        let _ = writeln!(
            out,
            "- {}: hides {}{}",
            text(&a.rule),
            super::count(a.hides, "difference", "differences"),
            if a.findings.is_empty() {
                ", no finding"
            } else {
                ""
            }
        );
        for f in &a.findings {
            let _ = writeln!(out, "  - `{}`: {}", f.kind.id(), text(&f.message));
        }
    }
    out.push('\n');
    for a in report.audit.iter().filter(|a| a.corrected.is_some()) {
        let _ = writeln!(out, "Corrected {}:\n", text(&a.rule));
        fenced(out, a.corrected.as_deref().unwrap_or_default(), true);
    }
}

/// Only the plan and the audit, for `drift-doctor plan --format markdown`.
pub fn render_plan(report: &Report) -> String {
    render_plan_with(report, report.plan.as_ref())
}

/// The plan section of `report` with `plan` in place of its own: the page
/// holds a long plan's lists cut, and the whole plan beside them.
pub fn render_plan_with(report: &Report, plan: Option<&Plan>) -> String {
    let mut out = String::from("## drift-doctor plan\n\n");
    plan_section(&mut out, plan);
    audit_section(&mut out, report);
    if plan.is_none() {
        out.push_str("Everything is Synced: there is nothing to plan.\n");
    }
    out
}
