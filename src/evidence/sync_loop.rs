//! Argo CD's syncs as its events and logs record them: `OperationStarted`
//! ("Initiated automated sync to '<rev>'") per revision, counted, with
//! their first and last time.

use super::patterns::{patterns, Target};
use super::{ObjectRef, Observed, Origin, When};
use std::collections::BTreeMap;

/// The automated syncs of one app to one revision.
#[derive(Debug, Clone, PartialEq)]
pub struct Syncs {
    /// The Application.
    pub application: ObjectRef,
    /// The revision synced.
    pub revision: String,
    /// How many syncs: the larger of what the events count and what the
    /// log lines count, since a paste often holds both for the same syncs.
    pub syncs: u64,
    /// When the first and the last were, on one line of time.
    pub first: Option<When>,
    /// See `first`.
    pub last: Option<When>,
    /// Where the first of them was read (`events 1, line 3`).
    pub location: String,
    /// That line, quoted.
    pub quote: String,
}

impl Syncs {
    /// Seconds from the first to the last.
    pub fn window(&self) -> Option<u64> {
        let (a, b) = (self.first?, self.last?);
        u64::try_from(a.until(b)?).ok()
    }
}

/// Every app's automated syncs per revision, most syncs first.
pub fn syncs(observed: &Observed) -> Vec<Syncs> {
    let Ok(list) = patterns() else {
        return Vec::new();
    };
    let Some(started) = list
        .iter()
        .find(|p| p.target == Target::Application && p.code_starts_sync())
    else {
        return Vec::new();
    };
    #[derive(Default)]
    struct Acc {
        events: u64,
        logs: u64,
        times: BTreeMap<(Origin, u8), (i64, i64, When, When)>,
        location: String,
        quote: String,
        application: ObjectRef,
    }
    let mut by: BTreeMap<(String, String), Acc> = BTreeMap::new();
    for said in &observed.said {
        let Some(vars) = started.recognise(said) else {
            continue;
        };
        let Some(revision) = vars
            .iter()
            .find(|(k, _)| k == "revision")
            .map(|(_, v)| v.clone())
        else {
            continue;
        };
        let app = said.object.clone().unwrap_or_default();
        let acc = by.entry((app.name.clone(), revision)).or_default();
        if acc.location.is_empty() {
            acc.location = said.location();
            acc.quote = said.quote.clone();
            acc.application = app;
        }
        match said.origin {
            Origin::Event => acc.events += said.count,
            Origin::Log => acc.logs += 1,
        }
        for w in [said.first, said.last].into_iter().flatten() {
            let (kind, at) = w.line();
            let e = acc
                .times
                .entry((said.origin, kind))
                .or_insert((at, at, w, w));
            if at < e.0 {
                e.0 = at;
                e.2 = w;
            }
            if at > e.1 {
                e.1 = at;
                e.3 = w;
            }
        }
    }
    let mut out: Vec<Syncs> = by
        .into_iter()
        .map(|((_, revision), acc)| {
            let origin = if acc.logs > acc.events {
                Origin::Log
            } else {
                Origin::Event
            };
            let span = acc
                .times
                .iter()
                .filter(|((o, _), _)| *o == origin)
                .map(|(_, t)| (t.2, t.3))
                .next();
            Syncs {
                application: acc.application,
                revision,
                syncs: acc.events.max(acc.logs),
                first: span.map(|s| s.0),
                last: span.map(|s| s.1),
                location: acc.location,
                quote: acc.quote,
            }
        })
        .collect();
    crate::sorting::sort_by(&mut out, |a, b| {
        b.syncs
            .cmp(&a.syncs)
            .then_with(|| a.revision.cmp(&b.revision))
    });
    out
}

/// The times Argo CD started a sync, on every line of time the input has.
pub fn sync_times(observed: &Observed) -> Vec<When> {
    let Ok(list) = patterns() else {
        return Vec::new();
    };
    let mut out: Vec<When> = observed
        .said
        .iter()
        .filter(|s| {
            list.iter().any(|p| {
                p.target == Target::Application && p.code_starts_sync() && p.recognise(s).is_some()
            })
        })
        .filter_map(|s| s.last)
        .collect();
    crate::sorting::sort(&mut out);
    out.dedup();
    out
}
