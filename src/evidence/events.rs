//! Kubernetes events as users paste them: `kubectl get events` as a table
//! (with or without `-o wide`, `-A`'s NAMESPACE column, the older layout
//! with KIND and NAME columns), `-o yaml|json` (`v1` Events and
//! `events.k8s.io/v1`), and the Events section of `kubectl describe`.
//!
//! Tables are read by the columns of their header: kubectl aligns every
//! cell under its header (text/tabwriter), and a message holds spaces, so
//! splitting on whitespace would cut it. A row that does not fit its header
//! (re-wrapped by a ticket system, cut short) is skipped with a warning.

use super::time::{age_seconds, rfc3339_seconds, When};
use super::{quote, ObjectRef, Origin, Read, ReadError, Said};
use serde_json::Value;

/// The column names of `kubectl get events` (k8s.io/kubernetes
/// `pkg/printers/internalversion` `eventColumnDefinitions`; the older
/// layout had KIND and NAME for the object).
const COLUMNS: &[&str] = &[
    "NAMESPACE",
    "LAST SEEN",
    "FIRST SEEN",
    "COUNT",
    "TYPE",
    "REASON",
    "OBJECT",
    "KIND",
    "SUBOBJECT",
    "SOURCE",
    "MESSAGE",
    "NAME",
];

/// Read one events input.
pub fn read(text: &str, input: usize) -> Result<Read, ReadError> {
    let name = format!("events {input}");
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.is_empty() || trimmed.starts_with("No resources found") {
        return Ok(Read::default());
    }
    if looks_structured(trimmed) {
        return structured(text, input, &name);
    }
    if text.lines().any(|l| l.trim_end().starts_with("Events:")) {
        return Ok(describe(text, input));
    }
    let read = table(text, input, &name)?;
    Ok(read)
}

fn looks_structured(t: &str) -> bool {
    t.starts_with('{')
        || t.starts_with('[')
        || t.lines().any(|l| {
            l.starts_with("apiVersion:") || l.starts_with("kind:") || l.starts_with("items:")
        })
}

/// A cell of a time column: `5m`, `5m (x3 over 10m)`, `<unknown>`.
struct Seen {
    last: Option<When>,
    first: Option<When>,
    count: Option<u64>,
    text: String,
}

fn seen(cell: &str) -> Seen {
    let cell = cell.trim();
    let (age, rest) = match cell.split_once(" (x") {
        Some((a, r)) => (a, Some(r)),
        None => (cell, None),
    };
    let mut out = Seen {
        last: age_seconds(age).map(When::Ago),
        first: None,
        count: None,
        text: age.to_string(),
    };
    if let Some((n, over)) = rest
        .and_then(|r| r.strip_suffix(')'))
        .and_then(|r| r.split_once(" over "))
    {
        out.count = n.trim().parse().ok();
        out.first = age_seconds(over).map(When::Ago);
    }
    out
}

/// `deployment/web`, `deployment.apps/web`, `Deployment/web`.
fn object_cell(cell: &str) -> Option<ObjectRef> {
    let (kind, name) = cell.trim().split_once('/')?;
    if kind.is_empty() || name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    let kind = kind.split('.').next().unwrap_or(kind);
    Some(ObjectRef {
        kind: kind.to_string(),
        name: name.to_string(),
        namespace: String::new(),
    })
}

/// The columns of a header line, with the character offset each starts at.
fn header(line: &str) -> Option<Vec<(&'static str, usize)>> {
    let chars: Vec<char> = line.chars().collect();
    let mut cols = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == ' ' {
            i += 1;
            continue;
        }
        let rest: String = chars[i..].iter().collect();
        let col = COLUMNS.iter().find(|c| {
            rest.starts_with(**c) && rest[c.len()..].chars().next().is_none_or(|n| n == ' ')
        })?;
        cols.push((*col, i));
        i += col.chars().count();
    }
    let has = |c: &str| cols.iter().any(|(n, _)| *n == c);
    (has("REASON") && has("MESSAGE") && (has("OBJECT") || has("NAME"))).then_some(cols)
}

/// The cells of a row under `cols`; None when a cell boundary falls inside
/// a word (the row is not aligned with its header).
fn cells(row: &str, cols: &[(&'static str, usize)]) -> Option<Vec<(&'static str, String)>> {
    let chars: Vec<char> = row.chars().collect();
    let mut out = Vec::new();
    for (i, (name, start)) in cols.iter().enumerate() {
        let end = cols
            .get(i + 1)
            .map_or(chars.len(), |c| c.1)
            .min(chars.len());
        if *start > 0 && *start < chars.len() && chars[*start - 1] != ' ' {
            return None;
        }
        let cell: String = chars
            .get(*start..end)
            .map_or(String::new(), |c| c.iter().collect());
        out.push((*name, cell.trim().to_string()));
    }
    Some(out)
}

/// A row split on whitespace, when only the last column (the message) may
/// hold spaces: what is left of a table whose alignment a paste lost.
fn split_cells(row: &str, cols: &[(&'static str, usize)]) -> Option<Vec<(&'static str, String)>> {
    if cols.last().map(|c| c.0) != Some("MESSAGE") {
        return None;
    }
    let mut rest = row.trim_start();
    let mut out = Vec::new();
    for (name, _) in &cols[..cols.len() - 1] {
        let end = rest.find(' ')?;
        out.push((*name, rest[..end].to_string()));
        rest = rest[end..].trim_start();
    }
    out.push(("MESSAGE", rest.trim_end().to_string()));
    Some(out)
}

fn table(text: &str, input: usize, name: &str) -> Result<Read, ReadError> {
    let mut read = Read::default();
    let mut cols: Option<Vec<(&'static str, usize)>> = None;
    let mut seen_header = false;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        // Concatenated outputs repeat their header.
        if let Some(h) = header(line) {
            cols = Some(h);
            seen_header = true;
            continue;
        }
        let Some(cols) = &cols else {
            return Err(ReadError {
                input: name.to_string(),
                line: n,
                message: "not events as kubectl prints them: no `kubectl get events` header (LAST SEEN … REASON … OBJECT … MESSAGE) above this line, no `-o yaml|json` object, no `Events:` section of `kubectl describe`".to_string(),
            });
        };
        let row = cells(line, cols)
            .filter(|c| valid_row(c))
            .or_else(|| split_cells(line, cols).filter(|c| valid_row(c)));
        let Some(row) = row else {
            read.warnings.push(format!(
                "{name}, line {n}: skipped: the row does not fit the table's header (its TYPE is not Normal or Warning, or it was cut or re-wrapped)"
            ));
            continue;
        };
        let get = |c: &str| {
            row.iter()
                .find(|(k, _)| *k == c)
                .map(|(_, v)| v.as_str())
                .unwrap_or("")
        };
        let object = object_cell(get("OBJECT")).or_else(|| {
            // The older layout: KIND and NAME of the object.
            (!get("KIND").is_empty() && !get("NAME").is_empty()).then(|| ObjectRef {
                kind: get("KIND").to_string(),
                name: get("NAME").to_string(),
                namespace: String::new(),
            })
        });
        let Some(mut object) = object else {
            read.warnings.push(format!(
                "{name}, line {n}: skipped: its OBJECT cell `{}` is not kind/name",
                crate::text::one_line(get("OBJECT"), 60)
            ));
            continue;
        };
        object.namespace = get("NAMESPACE").to_string();
        let last = seen(get("LAST SEEN"));
        let first = seen(get("FIRST SEEN"));
        let count = get("COUNT").parse::<u64>().ok().or(last.count).unwrap_or(1);
        read.said.push(Said {
            origin: Origin::Event,
            input,
            line: n,
            last: last.last,
            first: first.last.or(last.first),
            time_text: last.text,
            count: count.max(1),
            object: Some(object),
            reason: get("REASON").to_string(),
            source: get("SOURCE").to_string(),
            warning: get("TYPE") == "Warning",
            message: get("MESSAGE").to_string(),
            fields: Vec::new(),
            quote: quote(line),
        });
    }
    if !seen_header {
        return Err(ReadError {
            input: name.to_string(),
            line: 1,
            message: "not events as kubectl prints them".to_string(),
        });
    }
    Ok(read)
}

fn valid_row(cells: &[(&'static str, String)]) -> bool {
    let get = |c: &str| cells.iter().find(|(k, _)| *k == c).map(|(_, v)| v.as_str());
    matches!(get("TYPE"), Some("Normal" | "Warning"))
        && get("REASON").is_some_and(|r| !r.is_empty() && !r.contains(' '))
}

/// The Events sections of `kubectl describe` output (one or more objects).
fn describe(text: &str, input: usize) -> Read {
    let name = format!("events {input}");
    let mut read = Read::default();
    let mut object = ObjectRef::default();
    let mut facts: Vec<(String, String)> = Vec::new();
    let mut strategy = false;
    let mut min_replicas = false;
    let mut lines = text.lines().enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let line = line.trim_end_matches('\r');
        let top = |key: &str| {
            line.strip_prefix(key)
                .map(str::trim)
                .filter(|_| !line.starts_with(' '))
        };
        if let Some(v) = top("Name:") {
            object = ObjectRef {
                kind: String::new(),
                name: v.to_string(),
                namespace: String::new(),
            };
            facts.clear();
            strategy = false;
            min_replicas = false;
            continue;
        }
        if let Some(v) = top("Namespace:") {
            object.namespace = v.to_string();
            continue;
        }
        if let Some(v) = top("Kind:") {
            object.kind = v.to_string();
            continue;
        }
        if let Some(v) = top("Reference:") {
            facts.push(("reference".into(), v.to_string()));
            continue;
        }
        strategy |= line.starts_with("StrategyType:");
        min_replicas |= line.starts_with("Min replicas:");
        let Some(rest) = line.strip_prefix("Events:") else {
            continue;
        };
        if rest.trim() == "<none>" {
            continue;
        }
        if object.kind.is_empty() {
            // describe names no kind for built-in types; their layouts do.
            object.kind = if min_replicas {
                "HorizontalPodAutoscaler".into()
            } else if strategy {
                "Deployment".into()
            } else {
                String::new()
            };
        }
        // Header, dashes, rows.
        let Some((hi, head)) = lines.next() else {
            break;
        };
        let cols: Vec<(&str, usize)> = ["Type", "Reason", "Age", "From", "Message"]
            .iter()
            .filter_map(|c| {
                head.find(&format!("{c} "))
                    .or_else(|| head.find(c))
                    .map(|at| (*c, head[..at].chars().count()))
            })
            .collect();
        if cols.len() != 5 || !cols.windows(2).all(|w| w[0].1 < w[1].1) {
            read.warnings.push(format!(
                "{name}, line {}: skipped: an Events section without its Type Reason Age From Message header",
                hi + 1
            ));
            continue;
        }
        if lines
            .peek()
            .is_some_and(|(_, l)| l.trim_start().starts_with("----"))
        {
            lines.next();
        }
        while let Some((ri, row)) = lines.peek().copied() {
            let row = row.trim_end_matches('\r');
            if row.trim().is_empty() || !row.starts_with(' ') {
                break;
            }
            lines.next();
            let chars: Vec<char> = row.chars().collect();
            let cell = |k: usize| -> String {
                let start = cols[k].1.min(chars.len());
                let end = cols
                    .get(k + 1)
                    .map_or(chars.len(), |c| c.1)
                    .min(chars.len());
                chars[start..end.max(start)]
                    .iter()
                    .collect::<String>()
                    .trim()
                    .to_string()
            };
            let aligned = cols[1..]
                .iter()
                .all(|(_, at)| *at >= chars.len() || chars[at - 1] == ' ');
            let kind = cell(0);
            if !aligned || !matches!(kind.as_str(), "Normal" | "Warning") || cell(4).is_empty() {
                read.warnings.push(format!(
                    "{name}, line {}: skipped: the row does not fit its Events header (cut or re-wrapped)",
                    ri + 1
                ));
                continue;
            }
            let age = seen(&cell(2));
            read.said.push(Said {
                origin: Origin::Event,
                input,
                line: ri + 1,
                last: age.last,
                first: age.first,
                time_text: age.text,
                count: age.count.unwrap_or(1).max(1),
                object: Some(object.clone()),
                reason: cell(1),
                source: cell(3),
                warning: kind == "Warning",
                message: cell(4),
                fields: facts.clone(),
                quote: quote(row),
            });
        }
        let _ = i;
    }
    read
}

fn s<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// `kubectl get events -o yaml|json`: a List of Events, one Event, or
/// several documents.
fn structured(text: &str, input: usize, name: &str) -> Result<Read, ReadError> {
    let docs =
        crate::input::parse_values(text, crate::input::Side::Live).map_err(|e| ReadError {
            input: name.to_string(),
            line: e.line,
            message: e.message,
        })?;
    let mut read = Read::default();
    for (doc, _, line) in docs {
        let items: Vec<&Value> = match doc.get("items").and_then(Value::as_array) {
            Some(items) => items.iter().collect(),
            None => match &doc {
                Value::Array(items) => items.iter().collect(),
                Value::Null => Vec::new(),
                _ => vec![&doc],
            },
        };
        for (k, item) in items.into_iter().enumerate() {
            match one_event(item, input, line) {
                Some(said) => read.said.push(said),
                None => read.warnings.push(format!(
                    "{name}, line {line}: skipped item {}: not an Event (no involvedObject or regarding with a name, or no reason)",
                    k + 1
                )),
            }
        }
    }
    Ok(read)
}

fn one_event(v: &Value, input: usize, line: usize) -> Option<Said> {
    let kind = s(v, "/kind");
    if !kind.is_empty() && kind != "Event" {
        return None;
    }
    // v1 names the object `involvedObject`, events.k8s.io/v1 `regarding`.
    let obj = v.get("involvedObject").or_else(|| v.get("regarding"))?;
    let reason = s(v, "/reason");
    if s(obj, "/name").is_empty() || reason.is_empty() {
        return None;
    }
    let message = [s(v, "/message"), s(v, "/note")]
        .into_iter()
        .find(|m| !m.is_empty())
        .unwrap_or("");
    let time_of = |pointers: &[&str]| {
        pointers
            .iter()
            .map(|p| s(v, p))
            .find(|t| rfc3339_seconds(t).is_some())
            .map(str::to_string)
    };
    let last_text = time_of(&[
        "/lastTimestamp",
        "/series/lastObservedTime",
        "/deprecatedLastTimestamp",
        "/eventTime",
        "/metadata/creationTimestamp",
    ]);
    let first_text = time_of(&["/firstTimestamp", "/deprecatedFirstTimestamp", "/eventTime"]);
    let count = ["/count", "/series/count", "/deprecatedCount"]
        .iter()
        .find_map(|p| v.pointer(p).and_then(Value::as_u64))
        .unwrap_or(1);
    let source = [
        "/source/component",
        "/reportingComponent",
        "/reportingController",
        "/deprecatedSource/component",
    ]
    .iter()
    .map(|p| s(v, p))
    .find(|c| !c.is_empty())
    .unwrap_or("");
    let object = ObjectRef {
        kind: s(obj, "/kind").to_string(),
        name: s(obj, "/name").to_string(),
        namespace: s(obj, "/namespace").to_string(),
    };
    let quote_text = format!(
        "{} {} {} {}: {}",
        last_text.as_deref().unwrap_or(""),
        s(v, "/type"),
        reason,
        object.describe(),
        message
    );
    Some(Said {
        origin: Origin::Event,
        input,
        line,
        last: last_text.as_deref().and_then(rfc3339_seconds).map(When::At),
        first: first_text
            .as_deref()
            .and_then(rfc3339_seconds)
            .map(When::At),
        time_text: last_text.unwrap_or_default(),
        count: count.max(1),
        object: Some(object),
        reason: reason.to_string(),
        source: source.to_string(),
        warning: s(v, "/type") == "Warning",
        message: message.to_string(),
        fields: Vec::new(),
        quote: quote(&quote_text),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wide_table_keeps_a_message_with_spaces_in_the_middle() {
        let t = "\
LAST SEEN   TYPE     REASON              OBJECT                        SUBOBJECT   SOURCE                      MESSAGE                                                      FIRST SEEN   COUNT   NAME
2m          Normal   SuccessfulRescale   horizontalpodautoscaler/web               horizontal-pod-autoscaler   New size: 6; reason: cpu resource utilization above target   20m          4       web.17c1
";
        let r = read(t, 1).unwrap();
        assert_eq!(r.said.len(), 1, "{:?}", r.warnings);
        let e = &r.said[0];
        assert_eq!(e.count, 4);
        assert_eq!(e.reason, "SuccessfulRescale");
        assert!(e.message.starts_with("New size: 6; reason: cpu"));
        assert_eq!(e.first, Some(When::Ago(1200)));
        assert_eq!(e.object.as_ref().unwrap().kind, "horizontalpodautoscaler");
    }

    #[test]
    fn a_row_that_lost_its_alignment_is_read_or_skipped_with_its_line() {
        let t = "LAST SEEN   TYPE     REASON   OBJECT   MESSAGE\n5m Normal ScalingReplicaSet deployment/web Scaled up replica set web-7d to 6 from 2\n5m Normal\n";
        let r = read(t, 2).unwrap();
        assert_eq!(r.said.len(), 1);
        assert_eq!(
            r.said[0].message,
            "Scaled up replica set web-7d to 6 from 2"
        );
        assert_eq!(r.warnings.len(), 1);
        assert!(
            r.warnings[0].starts_with("events 2, line 3: skipped"),
            "{:?}",
            r.warnings
        );
    }

    #[test]
    fn text_of_no_known_shape_is_an_error_at_its_first_line() {
        let e = read("hello world\n", 1).unwrap_err();
        assert_eq!((e.input.as_str(), e.line), ("events 1", 1));
    }
}
