//! The sync loop in an Application's history: many syncs of one revision in a
//! short time, and what drives them.

use super::Application;
use crate::model::SyncLoop;
use serde_json::Value;
use std::collections::BTreeMap;

/// Syncs of one revision that make a loop, at the least.
const MIN_SYNCS: usize = 3;
/// The longest mean time between those syncs that still makes a loop (seconds).
const MAX_MEAN_GAP: u64 = 15 * 60;

pub use crate::evidence::time::{duration_words, rfc3339_seconds};

/// The revision of a history entry (single source, or the first of several).
fn revision(entry: &Value) -> Option<&str> {
    entry
        .get("revision")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
        .or_else(|| {
            entry
                .get("revisions")
                .and_then(Value::as_array)?
                .first()?
                .as_str()
        })
}

/// The loop `status.history` shows, if any: the revision deployed most often,
/// when it was deployed at least [`MIN_SYNCS`] times at most
/// [`MAX_MEAN_GAP`] apart on average.
pub fn sync_loop(app: &Application) -> Option<SyncLoop> {
    let obj = app.object();
    let history = obj.pointer("/status/history")?.as_array()?;
    let mut by_revision: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for entry in history {
        let (Some(rev), Some(at)) = (
            revision(entry),
            entry
                .get("deployedAt")
                .and_then(Value::as_str)
                .and_then(rfc3339_seconds),
        ) else {
            continue;
        };
        by_revision.entry(rev).or_default().push(at);
    }
    let (rev, times) = by_revision
        .into_iter()
        .max_by(|a, b| a.1.len().cmp(&b.1.len()).then_with(|| b.0.cmp(a.0)))?;
    let syncs = times.len();
    let first = times.iter().min()?;
    let last = times.iter().max()?;
    let window = u64::try_from(last - first).unwrap_or(0);
    let mean = window / (syncs.saturating_sub(1).max(1)) as u64;
    if syncs < MIN_SYNCS || mean > MAX_MEAN_GAP {
        return None;
    }
    let (auto_sync, self_heal) = app.automated();
    let op = obj.pointer("/status/operationState");
    let retry_count = op.and_then(|o| o.get("retryCount")).and_then(Value::as_u64);
    let limit = obj
        .pointer("/spec/revisionHistoryLimit")
        .and_then(Value::as_u64)
        .unwrap_or(10);
    let short: String = rev.chars().take(12).collect();
    let mut message = format!(
        "Argo CD synced revision {short} {syncs} times in {} (one sync every {} on average){}",
        duration_words(window),
        duration_words(mean),
        if syncs as u64 >= limit {
            format!("; the history keeps only the last {limit} syncs, so there were likely more")
        } else {
            String::new()
        }
    );
    message.push_str(match (auto_sync, self_heal) {
        (true, true) => ". Auto-sync with selfHeal drives it: every time something changes a field live, Argo CD sees the app OutOfSync and applies Git again, and the writer changes it back. Find the writer in the differences below, then stop it or ignore the field (with `RespectIgnoreDifferences=true` so the sync stops overwriting it). To stop the loop first, turn selfHeal off for the app.",
        (true, false) => ". Auto-sync is on without selfHeal: Argo CD syncs again when a sync fails and is retried, or when the render changes on each refresh (a non-deterministic render); look at the sync errors and the differences below.",
        _ => ". Auto-sync is off: these syncs were started by hand or by an automation calling `argocd app sync`.",
    });
    if let Some(n) = retry_count.filter(|n| *n > 0) {
        let (base, cap) = retry_backoff(obj);
        message.push_str(&format!(
            " The current operation has been retried {}; Argo CD waits {base} before the first retry and doubles the wait up to {cap}.",
            crate::text::count(n as usize, "time", "times")
        ));
    }
    Some(SyncLoop {
        revision: rev.to_string(),
        syncs,
        window_seconds: window,
        auto_sync,
        self_heal,
        retry_count,
        message,
    })
}

/// `spec.syncPolicy.retry.backoff` duration and maxDuration, or Argo CD's defaults (5s, 3m).
pub(super) fn retry_backoff(obj: &Value) -> (String, String) {
    let b = obj.pointer("/spec/syncPolicy/retry/backoff");
    let get = |k: &str, d: &str| {
        b.and_then(|b| b.get(k))
            .and_then(Value::as_str)
            .unwrap_or(d)
            .to_string()
    };
    (get("duration", "5s"), get("maxDuration", "3m"))
}
