//! The events' and logs' section of a report: Argo CD's automated syncs to
//! one revision counted into a loop and paired with the writer the
//! differences' own lines prove, and Argo CD's own errors (application
//! controller and repo server) classified by the sync-error catalogue.

use super::sync_errors;
use crate::evidence::sync_loop::syncs;
use crate::evidence::{Observed, Origin, Said};
use crate::model::{ObservedLoop, ObservedReport, Report, SyncError};

/// Syncs of one revision that make a loop, at the least (as in the history).
const MIN_SYNCS: u64 = 3;

/// The section for `report`, whose differences carry their lines already.
pub fn report(observed: &Observed, report: &Report) -> ObservedReport {
    ObservedReport {
        events: observed.events,
        log_lines: observed.log_lines,
        sync_loop: sync_loop(observed, report),
        argocd_errors: argocd_errors(observed),
    }
}

/// Whether Argo CD said it: its components' events, its Application's
/// events, its log lines (their fields name the app, or the repo server's
/// gRPC call).
fn argocd_said(s: &Said) -> bool {
    s.source.starts_with("argocd")
        || (s.origin == Origin::Event
            && s.object
                .as_ref()
                .is_some_and(|o| o.kind.eq_ignore_ascii_case("Application")))
}

/// The codes of the catalogue for Argo CD's own lines, which count even at
/// level info (a repo server logs a failed render as it answers).
const OWN_LINES: &[&str] = &["SE017", "SE018", "SE019", "SE020", "SE021"];

fn argocd_errors(observed: &Observed) -> Vec<SyncError> {
    let mut out: Vec<SyncError> = Vec::new();
    for s in &observed.said {
        let own = argocd_said(s);
        if !own && s.origin == Origin::Event {
            continue;
        }
        // gRPC's interceptor logs the call's outcome in `msg` and the error in its own field.
        let message = match s.field("error") {
            Some(err) => format!("{}: {err}", s.message),
            None => s.message.clone(),
        };
        let e = sync_errors::classify_message(&message, &s.location());
        // Argo CD's warnings and errors (an unrecognised one only from its
        // logs), and its own failures at any level.
        let counts = (own && s.warning && (e.code != "SE000" || s.origin == Origin::Log))
            || OWN_LINES.contains(&e.code.as_str());
        if !counts {
            continue;
        }
        if !out
            .iter()
            .any(|x| x.code == e.code && x.message == e.message)
        {
            out.push(e);
        }
    }
    out
}

fn sync_loop(observed: &Observed, report: &Report) -> Option<ObservedLoop> {
    let best = syncs(observed).into_iter().next()?;
    if best.syncs < MIN_SYNCS {
        return None;
    }
    let window = best.window();
    let interval = window.map(|w| w / (best.syncs - 1).max(1));
    // The fields whose own lines prove another writer: what each sync
    // restores and that writer changes back.
    let mut fields = Vec::new();
    let mut writer: Option<String> = None;
    let mut writes = 0u64;
    let mut values: Option<(String, String, String)> = None;
    for r in &report.resources {
        for d in r.differences.iter().filter(|d| d.visible) {
            let proving: Vec<_> = d.observed.iter().filter(|o| o.proves).collect();
            let Some(first) = proving.first() else {
                continue;
            };
            fields.push(format!("{} {}", r.id, d.pointer));
            if writer.is_none() {
                writer = Some(format!("{} ({})", first.writer, first.object));
                writes = proving.iter().map(|o| o.count.unwrap_or(1)).sum();
                values = Some((
                    crate::text::field_words(&d.segs),
                    crate::text::one_line(&crate::text::value_or_absent(d.git.as_ref()), 40),
                    crate::text::one_line(&crate::text::value_or_absent(d.live.as_ref()), 40),
                ));
            }
        }
    }
    let short: String = best.revision.chars().take(12).collect();
    let app = if best.application.namespace.is_empty() {
        best.application.name.clone()
    } else {
        format!("{}/{}", best.application.namespace, best.application.name)
    };
    let words = crate::evidence::time::duration_words;
    let mut message = format!(
        "Argo CD started {} automated syncs of {app} to revision {short}",
        best.syncs
    );
    if let (Some(w), Some(i)) = (window, interval) {
        message.push_str(&format!(
            " in {} (one every {} on average)",
            words(w),
            words(i)
        ));
    }
    message.push_str(&format!(
        " (first read at {}: {}).",
        best.location, best.quote
    ));
    match (&writer, &values) {
        (Some(who), Some((path, git, live))) => message.push_str(&format!(
            " Each sync sets {path} to {git} as Git says, and {who} sets it to {live} again ({} recorded): the sync restores Git, the other writer undoes it, again. Stop the loop by leaving the field to that writer (the fix below), not by syncing again.",
            crate::text::count(writes as usize, "write", "writes")
        )),
        _ => message.push_str(
            " No line of the events or logs names the writer that undoes each sync: look at the differences below.",
        ),
    }
    Some(ObservedLoop {
        application: app,
        revision: best.revision,
        syncs: best.syncs,
        window_seconds: window,
        interval_seconds: interval,
        other_writer: writer,
        other_writes: writes,
        fields,
        message,
    })
}
