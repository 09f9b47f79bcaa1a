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

/// Seconds since 1970 of an RFC 3339 time (`2024-05-01T10:00:00Z`,
/// fractions and offsets allowed); None when it is not one.
pub fn rfc3339_seconds(s: &str) -> Option<i64> {
    let b = s.trim().as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0')))
    };
    let sep = |at: usize, c: &[u8]| b.get(at).is_some_and(|x| c.contains(x));
    if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"Tt ") && sep(13, b":") && sep(16, b":")) {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, mi, sec) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    if sep(i, b".") {
        i += 1;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(c @ (b'+' | b'-')) if i + 6 == b.len() && sep(i + 3, b":") => {
            let o = num(i + 1, 2)? * 3600 + num(i + 4, 2)? * 60;
            if *c == b'+' {
                o
            } else {
                -o
            }
        }
        _ => return None,
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + mi * 60 + sec - offset)
}

/// A duration as people say it (`9m30s`, `45s`, `2h5m`).
pub fn duration_words(seconds: u64) -> String {
    let (h, m, s) = (seconds / 3600, seconds % 3600 / 60, seconds % 60);
    match (h, m, s) {
        (0, 0, s) => format!("{s}s"),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m{s}s"),
        (h, m, _) => format!("{h}h{m}m"),
    }
}

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
            " The current operation has been retried {n} time(s); Argo CD waits {base} before the first retry and doubles the wait up to {cap}."
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times() {
        assert_eq!(rfc3339_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(rfc3339_seconds("2024-03-01T00:00:00Z"), Some(1_709_251_200));
        assert_eq!(
            rfc3339_seconds("2024-03-01T01:00:00.123+01:00"),
            Some(1_709_251_200)
        );
        assert_eq!(rfc3339_seconds("2024-03-01"), None);
        assert_eq!(rfc3339_seconds("2024-13-01T00:00:00Z"), None);
        assert_eq!(rfc3339_seconds("２０２４-03-01T00:00:00Z"), None);
    }

    #[test]
    fn durations() {
        assert_eq!(duration_words(45), "45s");
        assert_eq!(duration_words(570), "9m30s");
        assert_eq!(duration_words(600), "10m");
        assert_eq!(duration_words(7500), "2h5m");
    }
}
