//! The terminal report: per resource, per difference, cause, evidence, fix.

use super::{inline_value, our_verdict, terminal_inert};
use crate::model::*;
use std::fmt::Write;

struct Style {
    color: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
    fn cause(&self, c: Cause) -> String {
        let code = match c {
            Cause::Drift => "1;31",
            Cause::Autoscaler => "36",
            Cause::MutatingWebhook => "35",
            Cause::ServerDefaults => "34",
            Cause::Reloader => "33",
            Cause::NondeterministicRender => "33;1",
            Cause::ControllerRewrite => "34;1",
            Cause::SyncOrdering => "31",
        };
        self.paint(code, c.id())
    }
    fn status(&self, s: Status) -> String {
        match s {
            Status::Synced => self.paint("32", "Synced"),
            Status::OutOfSync => self.paint("1;31", "OutOfSync"),
        }
    }
}

/// The report as terminal text, in ANSI colours when `color`; differences
/// Argo CD does not count are listed only with `include_hidden`.
pub fn render(report: &Report, color: bool, include_hidden: bool) -> String {
    let st = Style { color };
    let mut out = String::new();
    let s = &report.summary;
    let _ = write!(
        out,
        "{}: {}, {} synced, {} out of sync",
        st.bold("drift-doctor"),
        super::count(s.resources, "resource", "resources"),
        s.synced,
        s.out_of_sync
    );
    if s.skipped > 0 {
        let _ = write!(
            out,
            ", {} skipped (controller-created or not tracked by this app)",
            s.skipped
        );
    }
    out.push('\n');
    if let Some(app) = &s.application {
        let _ = writeln!(out, "application: {}", terminal_inert(app));
    }
    if !report.argocd_version.is_empty() {
        let _ = writeln!(
            out,
            "compared as Argo CD {} does",
            terminal_inert(&report.argocd_version)
        );
    }
    if !s.causes.is_empty() {
        let causes: Vec<String> = s
            .causes
            .iter()
            .map(|(c, n)| format!("{} {n}", st.cause(*c)))
            .collect();
        let _ = writeln!(out, "causes: {}", causes.join(", "));
    }
    for step in &report.emergency {
        let _ = writeln!(out, "\n{} {}", st.paint("1;33", "!"), terminal_inert(step));
    }
    for warning in &report.warnings {
        let _ = writeln!(
            out,
            "{} {}",
            st.paint("1;33", "warning:"),
            terminal_inert(warning)
        );
    }
    if let Some(status) = &report.argocd_status {
        argocd_status(&mut out, &st, status);
    }
    if let Some(o) = &report.observed {
        observed_section(&mut out, &st, o);
    }
    plan_section(&mut out, report, &st);
    audit_section(&mut out, report, &st);
    let mut ordered: Vec<&ResourceReport> = report.resources.iter().collect();
    crate::sorting::sort_by_key(&mut ordered, |r| r.status == Status::Synced);
    for r in ordered {
        let shown: Vec<&Difference> = r
            .differences
            .iter()
            .filter(|d| d.visible || include_hidden)
            .collect();
        if r.status == Status::Synced && shown.is_empty() {
            continue;
        }
        let presence = r
            .presence
            .words()
            .map_or_else(String::new, |w| format!("  ({w})"));
        let _ = writeln!(
            out,
            "\n{} {}{}",
            st.status(r.status),
            st.bold(&terminal_inert(&r.id)),
            presence
        );
        for d in shown {
            let head = format!(
                "  {} {}",
                terminal_inert(crate::text::field_label(&d.field)),
                d.change.id()
            );
            let _ = writeln!(
                out,
                "{}",
                if d.visible {
                    head
                } else {
                    st.dim(&format!("{head} (hidden)"))
                }
            );
            if !d.pointer.is_empty() {
                let _ = writeln!(
                    out,
                    "    git:  {}",
                    terminal_inert(&inline_value(d.git.as_ref(), 100))
                );
                let _ = writeln!(
                    out,
                    "    live: {}",
                    terminal_inert(&inline_value(d.live.as_ref(), 100))
                );
            }
            let _ = writeln!(
                out,
                "    {} {} {}: {}",
                st.cause(d.cause),
                st.dim(&d.rule),
                d.confidence.id(),
                terminal_inert(&d.evidence)
            );
            for o in &d.observed {
                let _ = writeln!(
                    out,
                    "    {} {} {}{}: {}",
                    st.dim(if o.proves { "seen (proves it)" } else { "seen" }),
                    st.dim(&o.code),
                    terminal_inert(&o.location),
                    o.time
                        .as_deref()
                        .map(|t| format!(", {}", terminal_inert(t)))
                        .unwrap_or_default(),
                    terminal_inert(&o.quote)
                );
            }
            if let Some(why) = &d.hidden_reason {
                let _ = writeln!(
                    out,
                    "    {}",
                    st.dim(&format!(
                        "not counted by Argo CD: {}",
                        terminal_inert(&why.to_string())
                    ))
                );
            }
        }
        for f in &r.fixes {
            let kind = match f.kind {
                FixKind::Ignore => "ignore",
                FixKind::Git => "git",
                FixKind::SyncOrder => "sync-order",
                FixKind::Render => "render",
            };
            let _ = writeln!(
                out,
                "  fix [{}] {}",
                kind,
                st.bold(&terminal_inert(&f.title))
            );
            let mark = if f.recommended { " (recommended)" } else { "" };
            let _ = writeln!(
                out,
                "    {}{mark}: {}",
                st.paint(verified_colour(f.verified), f.verified.id()),
                terminal_inert(&f.verification)
            );
            if let Some(w) = &f.warning {
                let _ = writeln!(
                    out,
                    "    {} {}",
                    st.paint("1;33", "warning:"),
                    terminal_inert(w)
                );
            }
            for e in f.sync_effects.iter().filter(|e| !e.kind.harms()) {
                let _ = writeln!(out, "    on the way: {}", terminal_inert(&e.message));
            }
            for c in &f.collateral {
                let _ = writeln!(
                    out,
                    "    also hides ({} form): {} {} [{}{}]",
                    c.form,
                    terminal_inert(&c.resource),
                    terminal_inert(crate::text::field_label(&c.field)),
                    c.cause.id(),
                    if c.visible { "" } else { ", already hidden" }
                );
            }
            if f.instance_wide > 0 {
                let _ = writeln!(
                    out,
                    "    the argocd-cm form also covers {} of this kind here (and every app on the instance), hiding {} there",
                    super::count(f.instance_wide, "other object", "other objects"),
                    super::count(f.instance_wide_hidden, "difference", "differences")
                );
            }
            for line in f.snippet.lines() {
                let _ = writeln!(out, "      {}", terminal_inert(line));
            }
        }
    }
    if report.resources.iter().all(|r| r.status == Status::Synced) {
        let _ = writeln!(
            out,
            "\n{}",
            if report.warnings.is_empty() {
                "Everything is Synced: Argo CD would show no difference."
            } else {
                "No difference found in what could be read; see the warnings above."
            }
        );
    }
    out
}

/// What the Application says about itself, above the resources.
/// What the events and logs say about the app: the loop and Argo CD's own errors.
fn observed_section(out: &mut String, st: &Style, o: &crate::model::ObservedReport) {
    let _ = writeln!(
        out,
        "\n{} {}, {}",
        st.bold("Events and logs:"),
        super::count(o.events, "event", "events"),
        super::count(o.log_lines, "log line", "log lines")
    );
    if let Some(l) = &o.sync_loop {
        sync_loop_line(out, st, &l.message);
    }
    for e in &o.argocd_errors {
        sync_error(out, st, "Argo CD error", &e.source, e);
    }
}

/// The sync loop, in one line.
fn sync_loop_line(out: &mut String, st: &Style, message: &str) {
    let _ = writeln!(
        out,
        "  {} {}",
        st.paint("1;33", "sync loop:"),
        terminal_inert(message)
    );
}

/// One classified error of Argo CD's: where it was read, what it means, the fix.
fn sync_error(out: &mut String, st: &Style, label: &str, place: &str, e: &crate::model::SyncError) {
    let t = |s: &str| terminal_inert(s).into_owned();
    let cause = e
        .cause
        .map_or_else(|| "unrecognised".to_string(), |c| st.cause(c));
    let _ = writeln!(
        out,
        "  {} {} {} {}: {}",
        st.paint("1;31", label),
        st.dim(&e.code),
        cause,
        t(place),
        t(&e.title)
    );
    let _ = writeln!(out, "    message: {}", t(&e.message));
    let _ = writeln!(out, "    {}", t(&e.evidence));
    let _ = writeln!(out, "    fix: {}", t(&e.fix));
    if let Some(r) = &e.risk {
        let _ = writeln!(out, "    risk: {}", t(r));
    }
    for line in e.snippet.lines() {
        let _ = writeln!(out, "      {}", t(line));
    }
}

fn argocd_status(out: &mut String, st: &Style, a: &ArgocdStatus) {
    let t = |s: &str| terminal_inert(s).into_owned();
    let _ = write!(out, "\n{} {}", st.bold("Argo CD's own status:"), t(&a.name));
    if let Some(s) = &a.sync_status {
        let _ = write!(out, " ({})", t(s));
    }
    out.push('\n');
    for s in &a.settings {
        let _ = writeln!(out, "  setting: {}", t(s));
    }
    if let Some(l) = &a.sync_loop {
        sync_loop_line(out, st, &l.message);
    }
    for e in &a.sync_errors {
        sync_error(
            out,
            st,
            "sync error",
            e.resource.as_deref().unwrap_or("(the app)"),
            e,
        );
    }
    for v in &a.verdicts {
        let ours = our_verdict(v.drift_doctor);
        let _ = writeln!(
            out,
            "  {} {}: Argo CD {}, drift-doctor {}: {}",
            st.paint("33", "verdict differs"),
            st.bold(&t(&v.id)),
            t(v.argocd.as_deref().unwrap_or("does not list it")),
            ours,
            t(&v.message)
        );
    }
}

fn verified_colour(v: Verified) -> &'static str {
    match v {
        Verified::Resolves => "32",
        Verified::Partial => "33",
        Verified::Unverifiable => "2",
    }
}

/// The plan: every recommended fix together, and what is left.
fn plan_section(out: &mut String, report: &Report, st: &Style) {
    let Some(plan) = &report.plan else {
        return;
    };
    let _ = writeln!(
        out,
        "\n{} ({}): {}",
        st.bold("plan"),
        st.paint(
            if plan.drift_left() {
                verified_colour(Verified::Partial)
            } else {
                verified_colour(plan.verified)
            },
            plan.outcome()
        ),
        terminal_inert(&plan.verification)
    );
    if !plan.application.is_empty() {
        let _ = writeln!(
            out,
            "  - add to the Application (drift-doctor plan --format yaml prints it):"
        );
        for line in plan.application.lines() {
            let _ = writeln!(out, "       {}", terminal_inert(line));
        }
    }
    let steps = crate::plan::step_groups(plan);
    for (what, list) in steps {
        for step in list.iter() {
            let _ = writeln!(
                out,
                "  - {what}: {} [{}]",
                terminal_inert(&step.resource),
                step.verified.id()
            );
            for line in step.snippet.lines() {
                let _ = writeln!(out, "       {}", terminal_inert(line));
            }
        }
    }
    for f in &plan.drift {
        let _ = writeln!(
            out,
            "  - {} {} {}: {}",
            st.cause(f.cause),
            terminal_inert(&f.resource),
            terminal_inert(crate::text::field_label(&f.field)),
            terminal_inert(&f.note)
        );
    }
    for f in &plan.unresolved {
        let _ = writeln!(
            out,
            "  - unresolved {} {} ({}): {}",
            terminal_inert(&f.resource),
            terminal_inert(crate::text::field_label(&f.field)),
            f.cause.id(),
            terminal_inert(&f.note)
        );
    }
}

/// The audit of the user's own rules.
fn audit_section(out: &mut String, report: &Report, st: &Style) {
    if report.audit.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{}", st.bold("your ignore rules"));
    for a in &report.audit {
        let verdict = if a.findings.is_empty() { "ok" } else { "check" };
        let _ = writeln!(
            out,
            "  {} {}: hides {}",
            verdict,
            terminal_inert(&a.rule),
            super::count(a.hides, "difference", "differences")
        );
        for f in &a.findings {
            let _ = writeln!(out, "    {}: {}", f.kind.id(), terminal_inert(&f.message));
        }
        if let Some(c) = &a.corrected {
            let _ = writeln!(out, "    corrected (checked by comparing again):");
            for line in c.lines() {
                let _ = writeln!(out, "       {}", terminal_inert(line));
            }
        }
    }
}

/// Only the plan and the audit, for `drift-doctor plan`.
pub fn render_plan(report: &Report, color: bool) -> String {
    let st = Style { color };
    let mut out = String::new();
    plan_section(&mut out, report, &st);
    audit_section(&mut out, report, &st);
    if report.plan.is_none() {
        out.push_str("Everything is Synced: there is nothing to plan.\n");
    }
    out.trim_start_matches('\n').to_string()
}
