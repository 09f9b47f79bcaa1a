//! Log lines as `kubectl logs` prints them: Argo CD's logrus text
//! (`time="…" level=info msg="…" application=…`) and JSON (`--logformat
//! json`), klog (`I0501 10:00:00.123456  1 file.go:12] …`, the HPA
//! controller's), and free text. `kubectl logs --timestamps` and
//! `--prefix` additions are read off first.

use super::time::{klog_clock, rfc3339_seconds, When};
use super::{quote, ObjectRef, Origin, Read, ReadError, Said};
use serde_json::Value;

/// Read one logs input.
pub fn read(text: &str, input: usize) -> Result<Read, ReadError> {
    let name = format!("logs {input}");
    let mut read = Read::default();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let raw = raw.trim_end_matches('\r').trim_start_matches('\u{feff}');
        if raw.trim().is_empty() {
            continue;
        }
        match line(raw, input, n) {
            Ok(said) => read.said.push(said),
            Err(why) => read
                .warnings
                .push(format!("{name}, line {n}: skipped: {why}")),
        }
    }
    if read.said.is_empty() && !read.warnings.is_empty() {
        return Err(ReadError {
            input: name,
            line: 1,
            message: format!(
                "no line could be read as a log line ({} skipped, the first: {})",
                read.warnings.len(),
                read.warnings[0]
            ),
        });
    }
    Ok(read)
}

/// `[pod/name/container] ` that `kubectl logs --prefix` adds.
fn strip_prefix(l: &str) -> &str {
    if let Some(rest) = l.strip_prefix("[pod/") {
        if let Some(end) = rest.find("] ") {
            return &rest[end + 2..];
        }
    }
    l
}

fn line(raw: &str, input: usize, n: usize) -> Result<Said, String> {
    let mut l = strip_prefix(raw.trim());
    // `kubectl logs --timestamps`: an RFC 3339 time, then the line.
    let mut stamp: Option<&str> = None;
    if let Some((first, rest)) = l.split_once(' ') {
        if rfc3339_seconds(first).is_some() {
            stamp = Some(first);
            l = rest.trim_start();
        }
    }
    let mut said = if l.starts_with('{') {
        json_line(l)?
    } else if l.contains("msg=") && (l.starts_with("time=") || l.contains(" level=")) {
        logfmt_line(l)?
    } else if let Some(s) = klog_line(l) {
        s
    } else {
        Parsed {
            message: l.to_string(),
            ..Parsed::default()
        }
    };
    if said.time.is_none() {
        if let Some(t) = stamp {
            said.time = rfc3339_seconds(t).map(When::At);
            said.time_text = t.to_string();
        }
    }
    let fields = said.fields;
    let field = |k: &str| {
        fields
            .iter()
            .find(|(f, _)| f == k)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    };
    let object = object_of(&fields);
    let source = if field("grpc.service").is_some_and(|s| s.contains("repository"))
        || field("grpc.method").is_some_and(|m| m.contains("Manifest"))
    {
        "argocd-repo-server".to_string()
    } else if field("application").is_some() || field("app").is_some() {
        "argocd-application-controller".to_string()
    } else {
        said.source
    };
    Ok(Said {
        origin: Origin::Log,
        input,
        line: n,
        last: said.time,
        first: None,
        time_text: said.time_text,
        count: 1,
        object,
        reason: String::new(),
        source,
        warning: matches!(
            said.level.to_ascii_lowercase().as_str(),
            "warn" | "warning" | "error" | "fatal" | "panic" | "e" | "w" | "f"
        ),
        message: said.message,
        fields,
        quote: quote(raw),
    })
}

#[derive(Default)]
struct Parsed {
    time: Option<When>,
    time_text: String,
    level: String,
    message: String,
    source: String,
    fields: Vec<(String, String)>,
}

/// The object Argo CD's fields name: a resource (`kind`, `name`,
/// `namespace`) or the Application (`application`, `app-namespace`).
fn object_of(fields: &[(String, String)]) -> Option<ObjectRef> {
    let get = |k: &str| {
        fields
            .iter()
            .find(|(f, _)| f == k)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    };
    if !get("kind").is_empty() && !get("name").is_empty() {
        return Some(ObjectRef {
            kind: get("kind").into(),
            name: get("name").into(),
            namespace: get("namespace").into(),
        });
    }
    let app = [get("application"), get("app")]
        .into_iter()
        .find(|a| !a.is_empty())?;
    // `argocd/my-app` since apps in any namespace, else the bare name.
    let (ns, name) = match app.split_once('/') {
        Some((ns, name)) => (ns.to_string(), name.to_string()),
        None => (get("app-namespace").to_string(), app.to_string()),
    };
    Some(ObjectRef {
        kind: "Application".into(),
        name,
        namespace: ns,
    })
}

fn json_line(l: &str) -> Result<Parsed, String> {
    let v: Value = serde_json::from_str(l)
        .map_err(|e| format!("a JSON log line that does not parse (cut?): {e}"))?;
    let Value::Object(map) = v else {
        return Err("a JSON log line that is not an object".into());
    };
    let mut p = Parsed::default();
    for (k, v) in &map {
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => continue,
        };
        match k.as_str() {
            "msg" | "message" => p.message = text,
            "level" | "severity" => p.level = text,
            "time" | "ts" | "timestamp" => {
                p.time = rfc3339_seconds(&text).map(When::At).or_else(|| {
                    // zap writes epoch seconds as a float.
                    v.as_f64().map(|f| When::At(f as i64))
                });
                p.time_text = text;
            }
            "logger" => p.source = text,
            _ => p.fields.push((k.clone(), text)),
        }
    }
    if p.message.is_empty() {
        return Err("a JSON log line without `msg`".into());
    }
    Ok(p)
}

/// logrus's text format: `key=value` pairs, values quoted (Go `%q`) when
/// they hold spaces or quotes.
fn logfmt_line(l: &str) -> Result<Parsed, String> {
    let mut p = Parsed::default();
    let mut rest = l.trim();
    while !rest.is_empty() {
        let Some(eq) = rest.find('=') else {
            return Err(format!(
                "`{}` is not key=value",
                crate::text::one_line(rest, 40)
            ));
        };
        let key = rest[..eq].trim().to_string();
        rest = &rest[eq + 1..];
        let value;
        if let Some(q) = rest.strip_prefix('"') {
            let mut out = String::new();
            let mut chars = q.char_indices();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => match chars.next() {
                        Some((_, 'n')) => out.push('\n'),
                        Some((_, 't')) => out.push('\t'),
                        Some((_, e)) => out.push(e),
                        None => break,
                    },
                    '"' => {
                        end = Some(i);
                        break;
                    }
                    c => out.push(c),
                }
            }
            let Some(end) = end else {
                return Err(format!(
                    "the quoted value of `{key}` does not end (a cut line?)"
                ));
            };
            value = out;
            rest = q[end + 1..].trim_start();
        } else {
            let end = rest.find(' ').unwrap_or(rest.len());
            value = rest[..end].to_string();
            rest = rest[end..].trim_start();
        }
        match key.as_str() {
            "msg" => p.message = value,
            "level" => p.level = value,
            "time" => {
                p.time = rfc3339_seconds(&value).map(When::At);
                p.time_text = value;
            }
            _ => p.fields.push((key, value)),
        }
    }
    Ok(p)
}

/// klog's header: `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg`.
fn klog_line(l: &str) -> Option<Parsed> {
    let level = l.chars().next().filter(|c| "IWEF".contains(*c))?;
    let (head, message) = l.split_once("] ")?;
    let mut parts = head[1..].split_whitespace();
    let mmdd = parts.next()?;
    let clock = parts.next()?;
    let _thread = parts.next()?;
    let file = parts.next()?;
    let time = klog_clock(mmdd, clock)?;
    Some(Parsed {
        time: Some(When::Clock(time)),
        time_text: format!("{mmdd} {clock}"),
        level: level.to_string(),
        message: message.to_string(),
        source: file.split(':').next().unwrap_or("").to_string(),
        fields: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logrus_text_json_klog_and_free_text() {
        let text = r#"time="2024-05-01T10:00:00Z" level=info msg="Initiated automated sync to 'abc'" application=argocd/shop dest-namespace=shop
{"application":"shop","level":"error","msg":"Failed to sync","time":"2024-05-01T10:00:05Z"}
I0501 10:00:30.123456       1 horizontal.go:870] Successful rescale of web, old size: 2, new size: 6, reason: cpu resource utilization (percentage of request) above target
operator: reconciled Cluster shop/db: set spec.instances
"#;
        let r = read(text, 1).unwrap();
        assert_eq!(r.said.len(), 4, "{:?}", r.warnings);
        assert_eq!(r.said[0].message, "Initiated automated sync to 'abc'");
        assert_eq!(
            r.said[0].object.as_ref().map(|o| (
                o.kind.as_str(),
                o.namespace.as_str(),
                o.name.as_str()
            )),
            Some(("Application", "argocd", "shop"))
        );
        assert_eq!(r.said[0].source, "argocd-application-controller");
        assert!(r.said[1].warning);
        assert_eq!(
            r.said[2].last,
            klog_clock("0501", "10:00:30").map(When::Clock)
        );
        assert_eq!(
            r.said[3].message,
            "operator: reconciled Cluster shop/db: set spec.instances"
        );
    }

    #[test]
    fn a_cut_line_is_skipped_with_its_line_and_nothing_readable_is_an_error() {
        let text = "time=\"2024-05-01T10:00:00Z\" level=info msg=\"Initiated automated\n{\"msg\": \"ok\"}\n";
        let r = read(text, 3).unwrap();
        assert_eq!(r.said.len(), 1);
        assert!(
            r.warnings[0].starts_with("logs 3, line 1: skipped"),
            "{:?}",
            r.warnings
        );
        let e = read("{\"msg\": \"cut\n", 2).unwrap_err();
        assert_eq!((e.input.as_str(), e.line), ("logs 2", 1));
    }
}
