//! Reading one side of the input: multi-document YAML, JSON, `kind: List`,
//! `argocd app manifests` output (with its `null` documents) and `kubectl get`.

use serde_json::Value;
use std::fmt;

/// Which input a problem or an object comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    Git,
    Live,
    Diff,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Git => "git",
            Side::Live => "live",
            Side::Diff => "diff",
        }
    }
}

/// A problem with the input: which side, which document, where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub side: Side,
    /// 1-based document number within the side (0 when the side as a whole is at fault).
    pub document: usize,
    /// 1-based line and column in the side's text (0 when unknown).
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} side", self.side.name())?;
        if self.document > 0 {
            write!(f, ", document {}", self.document)?;
        }
        if self.line > 0 {
            write!(f, ", line {}, column {}", self.line, self.column.max(1))?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for InputError {}

/// One Kubernetes object read from a side, with where it started.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub object: Value,
    /// 1-based document number within the side.
    pub document: usize,
    /// 1-based line where the document starts.
    pub line: usize,
}

/// Text bytes as UTF-8, or an error naming where the first invalid byte sits.
pub fn decode_text(bytes: &[u8], side: Side) -> Result<String, InputError> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => {
            let (line, column) = line_col(bytes, e.valid_up_to());
            Err(InputError {
                side,
                document: 0,
                line,
                column,
                message: "this is not UTF-8 text (binary data?): paste YAML or JSON manifests"
                    .into(),
            })
        }
    }
}

fn line_col(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (line, column)
}

/// Parse every object of one side.
pub fn parse_side(text: &str, side: Side) -> Result<Vec<Document>, InputError> {
    let mut docs = Vec::new();
    for (value, document, line) in parse_values(text, side)? {
        collect_objects(value, document, line, side, &mut docs)?;
    }
    Ok(docs)
}

/// Every document of a side as a value, with its number and first line,
/// before any check that it is a Kubernetes object (Argo CD settings also
/// come as fragments).
pub fn parse_values(text: &str, side: Side) -> Result<Vec<(Value, usize, usize)>, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(pos) = text.find('\0') {
        let (line, column) = line_col(text.as_bytes(), pos);
        return Err(InputError {
            side,
            document: 0,
            line,
            column,
            message: "the text contains a NUL byte (binary data?): paste YAML or JSON manifests"
                .into(),
        });
    }
    let trimmed = text.trim_start();
    if trimmed.is_empty() || only_comments(text) {
        return Err(InputError {
            side,
            document: 0,
            line: 0,
            column: 0,
            message: format!(
                "the {} side is empty: paste at least one manifest",
                side.name()
            ),
        });
    }
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        parse_json_stream(text, side)
    } else {
        parse_yaml_stream(text, side)
    }
}

fn only_comments(text: &str) -> bool {
    text.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#') || t == "---" || t == "..."
    })
}

fn parse_json_stream(text: &str, side: Side) -> Result<Vec<(Value, usize, usize)>, InputError> {
    let mut out = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let mut document = 0;
    loop {
        let start = stream.byte_offset();
        match stream.next() {
            None => break,
            Some(Ok(value)) => {
                document += 1;
                let skipped = text[start..].len() - text[start..].trim_start().len();
                let (line, _) = line_col(text.as_bytes(), start + skipped);
                out.push((value, document, line));
            }
            Some(Err(e)) => {
                let (line, column) = end_of_content(text, e.line(), e.column());
                return Err(InputError {
                    side,
                    document: document + 1,
                    line,
                    column,
                    message: format!("invalid JSON: {}", strip_position(&e.to_string())),
                });
            }
        }
    }
    Ok(out)
}

/// serde's messages say where, as " at line X column Y" (serde_yaml's also
/// where the construct it was reading started: ", while parsing a flow
/// sequence at line X column Y"), counted in the text serde was given. The
/// error reports the position itself, in the side's own lines, so every such
/// mark goes.
fn strip_position(message: &str) -> String {
    match regex_lite::Regex::new(r" at line \d+ column \d+") {
        Ok(re) => re.replace_all(message, "").into_owned(),
        Err(_) => message.to_string(),
    }
}

/// A parser's 1-based error position, moved to just after the last character
/// of `text` when it lies there or beyond (only whitespace follows). A
/// parser reaching the end of the input with something unclosed (`[`, `{`,
/// a quote) reports the end, which after a final newline is a line past the
/// last one, one editors do not show, or the next document's `---`; the end
/// of the last line that holds something is where the missing character
/// belongs.
fn end_of_content(text: &str, line: usize, column: usize) -> (usize, usize) {
    let last = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .last()
        .map(|(i, l)| (i + 1, l.trim_end().chars().count() + 1));
    match last {
        Some(end) if line > 0 && (line, column) > end => end,
        _ => (line, column),
    }
}

/// Split a YAML stream into documents ourselves so that each document's first
/// line is known exactly, then parse each one.
fn parse_yaml_stream(text: &str, side: Side) -> Result<Vec<(Value, usize, usize)>, InputError> {
    let mut chunks: Vec<(usize, String)> = Vec::new();
    let mut current = String::new();
    let mut current_start = 1;
    let mut seen_content = false;
    // Each line keeps its own line break, or none: a document's last line
    // break is content for `|+` block scalars.
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let line_no = i + 1;
        let line_break = raw.ends_with('\n');
        let bare = raw.trim_end_matches('\n').trim_end_matches('\r');
        let is_marker =
            bare == "---" || bare.starts_with("--- ") || bare.starts_with("---\t") || bare == "...";
        if is_marker {
            if seen_content {
                chunks.push((current_start, std::mem::take(&mut current)));
            } else {
                current.clear();
            }
            seen_content = false;
            current_start = line_no + 1;
            // `--- value` puts the document's content on the marker line.
            if let Some(rest) = bare.strip_prefix("--- ") {
                if !rest.trim().is_empty() && !rest.trim_start().starts_with('#') {
                    current.push_str(rest);
                    current.push('\n');
                    seen_content = true;
                    current_start = line_no;
                }
            }
            continue;
        }
        if !seen_content {
            let t = bare.trim();
            if t.is_empty() || t.starts_with('#') {
                current_start = line_no + 1;
                continue;
            }
            if t.starts_with('%') {
                // YAML directives (%YAML 1.2) carry no content.
                current_start = line_no + 1;
                continue;
            }
            seen_content = true;
        }
        current.push_str(bare);
        if line_break {
            current.push('\n');
        }
    }
    if seen_content {
        chunks.push((current_start, current));
    }

    let mut out = Vec::with_capacity(chunks.len());
    for (index, (start, chunk)) in chunks.iter().enumerate() {
        let document = index + 1;
        let value = parse_yaml_document(chunk).map_err(|(line, column, message)| InputError {
            side,
            document,
            line: if line > 0 { start + line - 1 } else { *start },
            column,
            message,
        })?;
        out.push((value, document, *start));
    }
    Ok(out)
}

/// YAML into JSON values the way Kubernetes reads YAML: keys become strings.
fn parse_yaml_document(chunk: &str) -> Result<Value, (usize, usize, String)> {
    match serde_yaml::from_str::<Value>(chunk) {
        Ok(v) => Ok(v),
        Err(first) => {
            // Non-string keys (`80: http`) fail the direct route; go through
            // serde_yaml's own value and stringify keys as Kubernetes does.
            match serde_yaml::from_str::<serde_yaml::Value>(chunk) {
                Ok(v) => yaml_to_json(v, 0).ok_or_else(|| {
                    (0, 0, "the document nests deeper than 128 levels or holds values JSON cannot carry".to_string())
                }),
                Err(_) => {
                    let (line, column) = first.location().map(|l| end_of_content(chunk, l.line(), l.column())).unwrap_or((0, 0));
                    Err((line, column, format!("invalid YAML: {}", strip_position(&first.to_string()))))
                }
            }
        }
    }
}

fn yaml_to_json(v: serde_yaml::Value, depth: usize) -> Option<Value> {
    if depth > 128 {
        return None;
    }
    Some(match v {
        serde_yaml::Value::Null => Value::Null,
        serde_yaml::Value::Bool(b) => Value::Bool(b),
        serde_yaml::Value::Number(n) => serde_json::to_value(n).ok()?,
        serde_yaml::Value::String(s) => Value::String(s),
        serde_yaml::Value::Sequence(seq) => Value::Array(
            seq.into_iter()
                .map(|x| yaml_to_json(x, depth + 1))
                .collect::<Option<Vec<_>>>()?,
        ),
        serde_yaml::Value::Mapping(m) => {
            let mut map = serde_json::Map::new();
            for (k, v) in m {
                let key = match k {
                    serde_yaml::Value::String(s) => s,
                    serde_yaml::Value::Bool(b) => b.to_string(),
                    serde_yaml::Value::Number(n) => n.to_string(),
                    serde_yaml::Value::Null => "null".to_string(),
                    _ => return None,
                };
                map.insert(key, yaml_to_json(v, depth + 1)?);
            }
            Value::Object(map)
        }
        serde_yaml::Value::Tagged(t) => yaml_to_json(t.value, depth + 1)?,
    })
}

fn collect_objects(
    value: Value,
    document: usize,
    line: usize,
    side: Side,
    out: &mut Vec<Document>,
) -> Result<(), InputError> {
    let not_object = |message: String| InputError {
        side,
        document,
        line,
        column: 1,
        message,
    };
    match value {
        // `argocd app manifests` prints `null` for an object missing on that side.
        Value::Null => Ok(()),
        Value::Array(items) => {
            for item in items {
                collect_objects(item, document, line, side, out)?;
            }
            Ok(())
        }
        Value::Object(map) => {
            let kind = map.get("kind").and_then(Value::as_str).unwrap_or("");
            let is_list = kind == "List" || (kind.ends_with("List") && map.get("items").map_or(false, Value::is_array));
            if is_list {
                if let Some(Value::Array(items)) = map.get("items") {
                    for (i, item) in items.iter().enumerate() {
                        if item.is_null() {
                            continue;
                        }
                        check_object(item).map_err(|why| not_object(format!("item {} of the List: {why}", i + 1)))?;
                    }
                }
                if let Some(Value::Array(items)) = map.into_iter().find(|(k, _)| k == "items").map(|(_, v)| v) {
                    for item in items.into_iter().filter(|i| !i.is_null()) {
                        out.push(Document { object: item, document, line });
                    }
                }
                return Ok(());
            }
            let object = Value::Object(map);
            check_object(&object).map_err(not_object)?;
            out.push(Document { object, document, line });
            Ok(())
        }
        other => Err(not_object(format!(
            "not a Kubernetes object: the document is a {} rather than a mapping with `kind` and `metadata.name`",
            type_name(&other)
        ))),
    }
}

fn check_object(v: &Value) -> Result<(), String> {
    let Some(map) = v.as_object() else {
        return Err(format!(
            "not a Kubernetes object: a {} rather than a mapping",
            type_name(v)
        ));
    };
    match map.get("kind") {
        Some(Value::String(k)) if !k.is_empty() => {}
        Some(_) => return Err("not a Kubernetes object: `kind` is not a non-empty string".into()),
        None => return Err("not a Kubernetes object: it has no `kind`".into()),
    }
    match map.get("apiVersion") {
        Some(Value::String(_)) | None => {}
        Some(_) => return Err("`apiVersion` is not a string".into()),
    }
    match map.get("metadata").and_then(|m| m.get("name")) {
        Some(Value::String(n)) if !n.is_empty() => Ok(()),
        _ => Err("not a Kubernetes object: it has no `metadata.name`".into()),
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "mapping",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_multi_document_yaml_with_comments_and_nulls() {
        let text = "# Source: chart/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\nnull\n---\n\n---\n# Source: b\napiVersion: v1\nkind: Service\nmetadata:\n  name: b\n";
        let docs = parse_side(text, Side::Git).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].line, 2);
        assert_eq!(docs[1].document, 3);
        assert_eq!(docs[1].line, 12);
    }

    #[test]
    fn keep_chomping_block_scalars_keep_exactly_their_line_breaks() {
        let data = |text: &str| {
            let docs = parse_side(text, Side::Git).unwrap();
            docs.last().unwrap().object["data"]["a"].clone()
        };
        let doc =
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: |+\n    foo\n";
        assert_eq!(data(doc), "foo\n");
        assert_eq!(data(doc.trim_end_matches('\n')), "foo");
        assert_eq!(data(&doc.replace('\n', "\r\n")), "foo\n");
        // Before a document marker, the marker's line is not content.
        assert_eq!(data(&format!("{doc}---\n{doc}")), "foo\n");
        let first = parse_side(&format!("{doc}---\n{doc}"), Side::Git).unwrap();
        assert_eq!(first[0].object["data"]["a"], "foo\n");
    }

    #[test]
    fn reads_lists_and_json() {
        let text = r#"{"apiVersion":"v1","kind":"List","items":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"}}]}"#;
        assert_eq!(parse_side(text, Side::Live).unwrap().len(), 1);
        let yaml = "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\nkind: List\nmetadata:\n  resourceVersion: \"\"\n";
        assert_eq!(parse_side(yaml, Side::Live).unwrap().len(), 1);
    }

    #[test]
    fn errors_name_side_document_and_line() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n";
        let e = parse_side(text, Side::Live).unwrap_err();
        assert_eq!(e.side, Side::Live);
        assert_eq!(e.document, 2);
        assert!(e.line >= 9, "{e}");
        let e = parse_side("apiVersion: v1\nmetadata:\n  name: a\n", Side::Git).unwrap_err();
        assert!(e.message.contains("no `kind`"), "{e}");
        assert_eq!(
            e.to_string(),
            "git side, document 1, line 1, column 1: not a Kubernetes object: it has no `kind`"
        );
    }

    #[test]
    fn non_string_keys_become_strings() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  80: http\n";
        let docs = parse_side(text, Side::Git).unwrap();
        assert_eq!(docs[0].object["data"]["80"], "http");
    }
}
