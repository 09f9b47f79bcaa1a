//! Reading one side of the input: multi-document YAML, JSON, `kind: List`,
//! `argocd app manifests` output (with its `null` documents) and `kubectl get`.

#![warn(missing_docs)]

use crate::limits::MAX_NESTING;
use crate::strict_value::StrictValue;
use crate::text::type_name;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

mod block_yaml;
mod deferred;
mod lines;
mod object_shape;
mod preamble;
use object_shape::{check_object, locate_field};
mod preparsed;
pub(crate) use deferred::hydrate;
pub use deferred::{DeferredAt, DeferredField};
use lines::lines_with_breaks;
use preamble::after_preamble;
pub use preamble::{preamble, Preamble};
pub use preparsed::{parse_unit, yaml_units, Preparsed};

/// Which input a problem or an object comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The desired manifests, as rendered from Git.
    Git,
    /// The objects in the cluster.
    Live,
    /// A diff text (`argocd app diff`, `kubectl diff`, `diff -u`).
    Diff,
    /// A second render of the same commit (`--git-again`).
    SecondRender,
}

impl Side {
    /// The side's name as messages print it.
    pub fn name(self) -> &'static str {
        match self {
            Side::Git => "git",
            Side::Live => "live",
            Side::Diff => "diff",
            Side::SecondRender => "git-again",
        }
    }
}

/// A problem with the input: which side, which document, where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The input at fault.
    pub side: Side,
    /// 1-based document number within the side (0 when the side as a whole is at fault).
    pub document: usize,
    /// 1-based line and column in the side's text (0 when unknown).
    pub line: usize,
    /// 1-based column on that line (0 when unknown).
    pub column: usize,
    /// Why the input cannot be read.
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
    /// The object as JSON.
    pub object: Value,
    /// 1-based document number within the side.
    pub document: usize,
    /// 1-based line where the document starts.
    pub line: usize,
    /// Fields left out of `object` until asked for ([`parse_side_deferring`]);
    /// [`Document::hydrated`] is the object with them.
    pub deferred: Vec<DeferredField>,
}

/// Text bytes as UTF-8 (taken as they are, not copied: a side can be tens
/// of megabytes), or an error naming where the first invalid byte sits.
pub fn decode_text(bytes: Vec<u8>, side: Side) -> Result<String, InputError> {
    // Windows PowerShell 5 redirection (`>`) writes UTF-16 with a byte
    // order mark; a UTF-8 one (editors add it) is dropped when parsing.
    let utf16 = match bytes.get(..2) {
        Some([0xFF, 0xFE]) => Some(u16::from_le_bytes as fn([u8; 2]) -> u16),
        Some([0xFE, 0xFF]) => Some(u16::from_be_bytes as fn([u8; 2]) -> u16),
        _ => None,
    };
    if let Some(unit) = utf16 {
        let body = &bytes[2..];
        let units: Vec<u16> = body.chunks_exact(2).map(|c| unit([c[0], c[1]])).collect();
        let decoded = String::from_utf16(&units)
            .ok()
            .filter(|_| body.len() % 2 == 0);
        return decoded.ok_or_else(|| InputError {
            side,
            document: 0,
            line: 1,
            column: 1,
            message: "this starts with a UTF-16 byte order mark but is not valid UTF-16 text: save it as UTF-8 (PowerShell: `Out-File -Encoding utf8`)".into(),
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let (line, column) = line_col(e.as_bytes(), e.utf8_error().valid_up_to());
        InputError {
            side,
            document: 0,
            line,
            column,
            message: "this is not UTF-8 text (binary data?): paste YAML or JSON manifests".into(),
        }
    })
}

fn line_col(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (line, column)
}

/// Parse every object of one side.
pub fn parse_side(text: &str, side: Side) -> Result<Vec<Document>, InputError> {
    parse_side_preparsed(text, side, &Preparsed::default())
}

/// [`parse_side`], taking the value of each YAML unit (see [`yaml_units`])
/// that `preparsed` holds instead of reading it again. A unit it does not
/// hold is read here, so the result, errors included, is the same.
pub fn parse_side_preparsed(
    text: &str,
    side: Side,
    preparsed: &Preparsed,
) -> Result<Vec<Document>, InputError> {
    parse_objects(text, side, preparsed, false)
}

/// [`parse_side`], leaving out of the objects the plain block-YAML
/// `status` and `metadata.managedFields` of kinds whose bookkeeping only a
/// differing object needs: each [`Document`] keeps them as text in
/// `deferred`, parsed by [`Document::hydrated`]. Errors are those of
/// [`parse_side`]; JSON is read whole.
pub fn parse_side_deferring(text: &str, side: Side) -> Result<Vec<Document>, InputError> {
    parse_objects(text, side, &Preparsed::default(), true)
}

fn parse_objects(
    text: &str,
    side: Side,
    preparsed: &Preparsed,
    deferring: bool,
) -> Result<Vec<Document>, InputError> {
    let mut docs = Vec::new();
    for (value, document, line, source, cut) in parse_documents(text, side, preparsed, deferring)? {
        collect_objects(value, document, line, side, &source, cut, &mut docs)?;
    }
    Ok(docs)
}

/// Every document of a side as a value, with its number and first line,
/// before any check that it is a Kubernetes object (Argo CD settings also
/// come as fragments).
pub fn parse_values(text: &str, side: Side) -> Result<Vec<(Value, usize, usize)>, InputError> {
    Ok(parse_documents(text, side, &Preparsed::default(), false)?
        .into_iter()
        .map(|(value, document, line, ..)| (value, document, line))
        .collect())
}

/// The documents of a side with their own text, for errors that point into it.
fn parse_documents<'t>(
    text: &'t str,
    side: Side,
    preparsed: &Preparsed,
    deferring: bool,
) -> Result<Vec<RawDocument<'t>>, InputError> {
    let text = without_bom(text);
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
    // A terminal's prompt and log lines above the manifests are skipped.
    let (body, lines_before) = after_preamble(text);
    if body.trim_start().is_empty() || only_comments(body) {
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
    let raw = if starts_as_json(body) {
        // YAML is a superset of JSON: a JSON document followed by YAML ones
        // after a `---` line is a YAML stream. Anything else stays JSON, so
        // broken JSON gets the JSON reader's error, not YAML's leniency.
        parse_json_stream(body, side, lines_before).or_else(|json_error| {
            let has_document_marker = body.lines().any(|l| l.trim_end() == "---");
            if has_document_marker {
                parse_yaml_stream(text, side, preparsed, deferring).map_err(|_| json_error)
            } else {
                Err(json_error)
            }
        })?
    } else {
        parse_yaml_stream(text, side, preparsed, deferring)?
    };
    Ok(raw)
}

/// The text after a byte order mark, if it starts with one.
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Whether the text is read as JSON first: it opens a mapping or a list.
fn starts_as_json(text: &str) -> bool {
    let trimmed = text.trim_start();
    trimmed.starts_with('{') || trimmed.starts_with('[')
}

fn only_comments(text: &str) -> bool {
    text.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#') || t == "---" || t == "..."
    })
}

/// A parsed document: its value, number, first line, and its own text (to
/// locate the fields an error names).
type RawDocument<'t> = (Value, usize, usize, DocumentText<'t>, Cut);

/// The fields [`deferred`] cut out of a document's objects.
#[derive(Default)]
enum Cut {
    #[default]
    Nothing,
    /// Of the document, one object.
    Object(Vec<DeferredField>),
    /// Of each item of the document's `kind: List`, by index.
    Items(Vec<Vec<DeferredField>>),
}

/// A document's text and the side line its text starts on. The text is the
/// side's own when the document's lines are kept as they are (the usual
/// case), so a big side is not held twice while it is parsed.
struct DocumentText<'t> {
    text: Cow<'t, str>,
    first_line: usize,
}

/// The JSON documents of `text`, whose first line is the side's line
/// `lines_before + 1`.
fn parse_json_stream(
    text: &str,
    side: Side,
    lines_before: usize,
) -> Result<Vec<RawDocument<'_>>, InputError> {
    let mut out = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<StrictValue>();
    let mut document = 0;
    loop {
        let start = stream.byte_offset();
        match stream.next() {
            None => break,
            Some(Ok(StrictValue(value))) => {
                document += 1;
                let skipped = text[start..].len() - text[start..].trim_start().len();
                let (line, _) = line_col(text.as_bytes(), start + skipped);
                let line = line + lines_before;
                let source = DocumentText {
                    text: Cow::Borrowed(
                        text.get(start + skipped..stream.byte_offset())
                            .unwrap_or(""),
                    ),
                    first_line: line,
                };
                out.push((value, document, line, source, Cut::Nothing));
            }
            Some(Err(e)) => {
                let (line, column) = end_of_content(text, e.line(), e.column());
                return Err(InputError {
                    side,
                    document: document + 1,
                    line: if line > 0 { line + lines_before } else { 0 },
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

/// Below this many bytes a stream is parsed on one thread.
const PARALLEL_PARSE_BYTES: usize = 256 * 1024;

/// Split a YAML stream into documents ourselves so that each document's first
/// line is known exactly, then parse each one.
fn parse_yaml_stream<'t>(
    text: &'t str,
    side: Side,
    preparsed: &Preparsed,
    deferring: bool,
) -> Result<Vec<RawDocument<'t>>, InputError> {
    let chunks = yaml_chunks(text);
    // Documents parse independently, so a large stream uses every core.
    let parsed = crate::parallel::map_ordered(
        chunks,
        PARALLEL_PARSE_BYTES,
        |(_, chunk)| chunk.len(),
        |(start, chunk)| {
            let (value, cut) = match parse_list_items(&chunk, preparsed, deferring) {
                Some((value, cut)) => (Ok(value), cut),
                None => match preparsed.take(&chunk) {
                    Some(value) => (Ok(value), Cut::Nothing),
                    None => match deferring
                        .then(|| deferred::parse_deferring(&chunk))
                        .flatten()
                    {
                        Some((value, fields)) => (Ok(value), Cut::Object(fields)),
                        None => (parse_yaml_document(&chunk), Cut::Nothing),
                    },
                },
            };
            (start, chunk, value, cut)
        },
    );
    let mut out = Vec::with_capacity(parsed.len());
    for (index, (start, chunk, value, cut)) in parsed.into_iter().enumerate() {
        let document = index + 1;
        let value = value.map_err(|(line, column, message)| InputError {
            side,
            document,
            line: if line > 0 { start + line - 1 } else { start },
            column,
            message,
        })?;
        let source = DocumentText {
            text: chunk,
            first_line: start,
        };
        out.push((value, document, start, source, cut));
    }
    Ok(out)
}

/// The documents of a YAML stream: each one's first line and its text.
fn yaml_chunks(text: &str) -> Vec<(usize, Cow<'_, str>)> {
    let mut chunks: Vec<(usize, Cow<'_, str>)> = Vec::new();
    let mut current = Chunk::default();
    let mut current_start = 1;
    let mut seen_content = false;
    let mut offset = 0;
    let skip_to = preamble(text).map_or(0, |p| p.end_line);
    // Each line keeps its own line break, or none: a document's last line
    // break is content for `|+` block scalars.
    for (i, raw) in lines_with_breaks(text).enumerate() {
        let line_no = i + 1;
        let at = offset;
        offset += raw.len();
        // Most lines are a document's content, kept as they are: no marker
        // (which starts with `-` or `.`), no carriage return.
        if seen_content
            && !matches!(raw.as_bytes().first(), Some(b'-' | b'.'))
            && !matches!(raw.as_bytes(), [.., b'\r', b'\n'] | [.., b'\r'])
        {
            current.push_line(text, at, raw.len());
            continue;
        }
        if line_no <= skip_to {
            // A terminal's lines above the manifests, as if comments.
            current_start = line_no + 1;
            continue;
        }
        let line_break = raw.ends_with('\n');
        let bare = raw.trim_end_matches('\n').trim_end_matches('\r');
        let is_marker =
            bare == "---" || bare.starts_with("--- ") || bare.starts_with("---\t") || bare == "...";
        if is_marker {
            if seen_content {
                chunks.push((current_start, std::mem::take(&mut current).text(text)));
            } else {
                current = Chunk::default();
            }
            seen_content = false;
            current_start = line_no + 1;
            // `--- value` puts the document's content on the marker line.
            if let Some(rest) = bare.strip_prefix("--- ") {
                if !rest.trim().is_empty() && !rest.trim_start().starts_with('#') {
                    current.push_owned(text, rest, true);
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
        // A line is kept as it is unless a carriage return ends it.
        if bare.len() + usize::from(line_break) == raw.len() {
            current.push_line(text, at, raw.len());
        } else {
            current.push_owned(text, bare, line_break);
        }
    }
    if seen_content {
        chunks.push((current_start, current.text(text)));
    }
    chunks
}

/// One document's text while the stream is split: a range of the side's
/// text while its lines are kept as they are, its own text once one is not.
#[derive(Default)]
struct Chunk {
    start: usize,
    end: usize,
    owned: Option<String>,
}

impl Chunk {
    /// The side's line at `at..at + len`, kept as it is.
    fn push_line(&mut self, text: &str, at: usize, len: usize) {
        match &mut self.owned {
            Some(own) => own.push_str(text.get(at..at + len).unwrap_or("")),
            None if self.start == self.end => {
                self.start = at;
                self.end = at + len;
            }
            None => self.end = at + len,
        }
    }

    /// A line whose text differs from the side's (no carriage return, or
    /// content after a `---` marker).
    fn push_owned(&mut self, text: &str, line: &str, line_break: bool) {
        let own = self
            .owned
            .get_or_insert_with(|| text.get(self.start..self.end).unwrap_or("").to_string());
        own.push_str(line);
        if line_break {
            own.push('\n');
        }
    }

    fn text(self, text: &str) -> Cow<'_, str> {
        match self.owned {
            Some(own) => Cow::Owned(own),
            None => Cow::Borrowed(text.get(self.start..self.end).unwrap_or("")),
        }
    }
}

/// A large `kind: List` document (what `kubectl get -o yaml` and
/// `argocd app manifests --source live` print) read item by item, on every
/// core and without holding the whole document's parse events at once.
/// None when the document is not such a list, or when anything does not
/// read item by item (an anchor used across items, a duplicate key): the
/// caller then reads the document whole, with its exact error position.
fn parse_list_items(chunk: &str, preparsed: &Preparsed, deferring: bool) -> Option<(Value, Cut)> {
    let items = list_items(chunk)?;
    let Ok(Value::Object(mut list)) = parse_yaml_document(&items.head) else {
        return None;
    };
    if !list
        .get("kind")
        .and_then(Value::as_str)
        .is_some_and(|k| k.ends_with("List"))
    {
        return None;
    }
    let parsed = crate::parallel::map_ordered(
        items.items,
        PARALLEL_PARSE_BYTES,
        |&(from, to, _)| to.saturating_sub(from),
        |item| {
            let item = list_item_text(chunk, item)?;
            if let Some(value) = preparsed.take(&item) {
                return Some((value, Vec::new()));
            }
            if let Some(read) = deferring
                .then(|| deferred::parse_deferring(&item))
                .flatten()
            {
                return Some(read);
            }
            parse_yaml_document(&item)
                .ok()
                .map(|value| (value, Vec::new()))
        },
    );
    let read: Option<Vec<(Value, Vec<DeferredField>)>> = parsed.into_iter().collect();
    let (values, fields): (Vec<Value>, Vec<Vec<DeferredField>>) = read?.into_iter().unzip();
    list.insert("items".into(), Value::Array(values));
    let cut = if fields.iter().any(|f| !f.is_empty()) {
        Cut::Items(fields)
    } else {
        Cut::Nothing
    };
    Some((Value::Object(list), cut))
}

/// A large list document cut into its items: the document with `items: []`,
/// and each item as (where its text starts after the dash, where it ends,
/// the dash's column).
struct ListItems {
    head: String,
    items: Vec<(usize, usize, usize)>,
}

/// `chunk`'s items when it is large and looks like a `kind: List` (whether
/// it is one, its head's parse tells).
fn list_items(chunk: &str) -> Option<ListItems> {
    if chunk.len() < PARALLEL_PARSE_BYTES {
        return None;
    }
    // Lines with their byte offsets; the items are ranges of `chunk`, each
    // written out only when its own parse starts.
    let mut lines = lines_with_breaks(chunk)
        .scan(0, |at, l| {
            let start = *at;
            *at += l.len();
            Some((start, l))
        })
        .peekable();
    let indent_of = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let is_content = |l: &str| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#')
    };
    let (items_at, _) = lines
        .by_ref()
        .find(|(_, l)| l.trim_end() == "items:" && !l.starts_with(char::is_whitespace))?;
    while lines.next_if(|(_, l)| !is_content(l)).is_some() {}
    let &(_, first) = lines.peek()?;
    let seq_indent = indent_of(first);
    let is_entry = |l: &str| {
        let rest = &l[indent_of(l)..];
        indent_of(l) == seq_indent && (rest.starts_with("- ") || rest.trim_end() == "-")
    };
    if !is_entry(first) {
        return None;
    }
    // Each item: where its text starts (after the dash) and the dash's column.
    let mut items: Vec<(usize, usize, usize)> = Vec::new();
    let mut end = chunk.len();
    // The sequence ends at the first content line outside it.
    for (at, l) in lines {
        // Deeper than the items (or blank): neither an item nor the end.
        if l.as_bytes()
            .get(..=seq_indent)
            .is_some_and(|b| b.iter().all(|&c| c == b' '))
        {
            continue;
        }
        if is_content(l)
            && (indent_of(l) < seq_indent || (indent_of(l) == seq_indent && !is_entry(l)))
        {
            end = at;
            break;
        }
        if is_entry(l) {
            if let Some(last) = items.last_mut() {
                last.1 = at;
            }
            let dash = indent_of(l);
            items.push((at + dash + 1, at, dash));
        }
    }
    if let Some(last) = items.last_mut() {
        last.1 = end;
    }
    let head = format!("{}items: []\n{}", chunk.get(..items_at)?, chunk.get(end..)?);
    Some(ListItems { head, items })
}

/// One list item's text as a document of its own: `- key: v` becomes
/// `  key: v`, the item's mapping, indented alike.
fn list_item_text(chunk: &str, (from, to, dash): (usize, usize, usize)) -> Option<String> {
    let body = chunk.get(from..to)?;
    let mut item = String::with_capacity(dash + 1 + body.len());
    item.extend(std::iter::repeat_n(' ', dash + 1));
    item.push_str(body);
    Some(item)
}

/// The value the line-at-a-time reader gives one YAML document, or `None`
/// where it leaves the document to `serde_yaml`: for the fuzz target that
/// compares the two readers (`fuzz/fuzz_targets/block_yaml.rs`).
#[doc(hidden)]
pub fn read_block_yaml(text: &str) -> Option<Value> {
    block_yaml::read(text)
}

/// YAML into JSON values the way Kubernetes reads YAML (keys become
/// strings), strictly: see [`StrictValue`].
fn parse_yaml_document(chunk: &str) -> Result<Value, (usize, usize, String)> {
    // Most documents are plain block YAML, read a line at a time; the
    // strict reader takes the rest and reports every error.
    if let Some(value) = block_yaml::read(chunk) {
        return Ok(value);
    }
    if let Some((line, column)) = flow_nesting_beyond(chunk, MAX_NESTING) {
        return Err((line, column, nesting_message()));
    }
    match serde_yaml::from_str::<StrictValue>(chunk) {
        Ok(StrictValue(v)) => Ok(v),
        Err(e) => {
            let message = e.to_string();
            let (line, column) = e
                .location()
                .map(|l| end_of_content(chunk, l.line(), l.column()))
                .unwrap_or((0, 0));
            if message.contains("recursion limit exceeded") {
                return Err((line, column, nesting_message()));
            }
            if message.contains("repetition limit exceeded") {
                let (line, column) = first_alias(chunk).unwrap_or((line, column));
                return Err((
                    line,
                    column,
                    "aliases (`*name`) expand to too many values (a \"billion laughs\" document); \
                     write the values out or use fewer nested aliases"
                        .to_string(),
                ));
            }
            if message.contains("appears twice") || message.contains("a mapping key is") {
                return Err((line, column, strip_position(&message)));
            }
            if let Some(at) = tab_indentation(chunk, &message) {
                return Err((
                    at,
                    1,
                    "a tab is used for indentation here; YAML indents with spaces only".to_string(),
                ));
            }
            if let Some((l, c)) = unclosed_quote(&message) {
                return Err((
                    l,
                    c,
                    "this quoted string is never closed: add the closing quote".to_string(),
                ));
            }
            Err((
                line,
                column,
                format!("invalid YAML: {}", strip_position(&message)),
            ))
        }
    }
}

/// A YAML value already parsed by serde_yaml, as Kubernetes reads it (the
/// same conversion as [`StrictValue`]); `None` for what JSON cannot carry
/// (a mapping or list as a key).
pub(crate) fn yaml_to_json(v: serde_yaml::Value) -> Option<Value> {
    use serde::Deserialize;
    StrictValue::deserialize(v).ok().map(|StrictValue(v)| v)
}

/// The line whose indentation holds a tab, when libyaml stopped on one.
fn tab_indentation(chunk: &str, message: &str) -> Option<usize> {
    if !message.contains("cannot start any token") && !message.contains("tab") {
        return None;
    }
    chunk
        .lines()
        .position(|l| {
            let indent_end = l.len() - l.trim_start_matches([' ', '\t']).len();
            l[..indent_end].contains('\t')
        })
        .map(|i| i + 1)
}

/// Where an unclosed quoted string opens: libyaml reports the end of the
/// text, and names the opening only inside its message ("while scanning a
/// quoted scalar at line L column C").
fn unclosed_quote(message: &str) -> Option<(usize, usize)> {
    let rest = message
        .split("while scanning a quoted scalar at line ")
        .nth(1)?;
    let (line, rest) = rest.split_once(" column ")?;
    let column: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((line.trim().parse().ok()?, column.parse().ok()?))
}

fn nesting_message() -> String {
    format!("the document nests deeper than {MAX_NESTING} levels, more than any manifest needs (drift-doctor reads at most {MAX_NESTING})")
}

/// Where flow collections (`[`, `{`) first nest deeper than `limit`, counted
/// without a YAML parser. libyaml's work grows with the square of the flow
/// depth before any limit of the reader applies, so a 200 KB line of `[`
/// would take minutes; this linear scan refuses it first. It skips quoted
/// text, comments and block scalars, and in block context only counts a
/// bracket that starts a value, so it never counts more than the parser
/// would; a few uncounted brackets only leave the reader's own limit to act.
pub(crate) fn flow_nesting_beyond(text: &str, limit: usize) -> Option<(usize, usize)> {
    // The depth only grows at a `[` or `{`: a text with no more of them than
    // the limit (nearly every manifest) cannot pass it, and counting them
    // costs a fraction of the scan below (many bytes at a time).
    let openers = memchr::memchr2_iter(b'[', b'{', text.as_bytes()).count();
    if openers <= limit {
        return None;
    }
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut block_scalar_indent: Option<usize> = None;
    let all = text.as_bytes();
    let mut next_line = 0;
    // The 0-based number of the line starting at `next_line`.
    let mut next_index = 0;
    while next_line < all.len() {
        let mut start = next_line;
        let mut i = next_index;
        if quote.is_none() && depth == 0 && block_scalar_indent.is_none() {
            // Outside quotes, brackets and block scalars only a line with one
            // of these characters changes anything: go straight to the next.
            let rest = all.get(start..).unwrap_or_default();
            let found = rest
                .iter()
                .position(|b| matches!(b, b'[' | b'{' | b'"' | b'\'' | b'|' | b'>'))?;
            let skipped = rest.get(..found).unwrap_or_default();
            let line_start = skipped
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |n| n + 1);
            i += skipped
                .get(..line_start)
                .unwrap_or_default()
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            start += line_start;
        }
        let rest = all.get(start..).unwrap_or_default();
        let (end, with_break) = match rest.iter().position(|&b| b == b'\n') {
            Some(n) => (start + n, true),
            None => (all.len(), false),
        };
        next_line = end + 1;
        next_index = i + 1;
        // As `str::lines` gives it: without its line break, and without a
        // carriage return before one.
        let mut line = text.get(start..end).unwrap_or("");
        if with_break {
            line = line.strip_suffix('\r').unwrap_or(line);
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(parent) = block_scalar_indent {
            if line.trim().is_empty() || indent > parent {
                continue;
            }
            block_scalar_indent = None;
        }
        let bytes = line.as_bytes();
        // Most lines (`key: value`) hold nothing that changes the state:
        // skip them without looking at each character. Every character the
        // scan reacts to is ASCII, so bytes serve (a multi-byte character
        // never starts a token, which only ever counts less).
        if quote.is_none()
            && depth == 0
            && !bytes
                .iter()
                .any(|b| matches!(b, b'[' | b'{' | b'"' | b'\'' | b'|' | b'>'))
        {
            continue;
        }
        let mut previous = b' ';
        let mut at = 0;
        while at < bytes.len() {
            // Inside quotes only the closing quote (and in double quotes an
            // escape) matters: go straight to it.
            if let Some(q) = quote {
                let rest = bytes.get(at..).unwrap_or_default();
                match rest
                    .iter()
                    .position(|&b| b == q || (q == b'"' && b == b'\\'))
                {
                    Some(n) => at += n,
                    None => break,
                }
            }
            let c = bytes[at];
            match quote {
                Some(b'"') => match c {
                    b'\\' => at += 1,
                    b'"' => quote = None,
                    _ => {}
                },
                Some(_) => {
                    if c == b'\'' {
                        if bytes.get(at + 1) == Some(&b'\'') {
                            at += 1;
                        } else {
                            quote = None;
                        }
                    }
                }
                None => {
                    let starts_token =
                        previous.is_ascii_whitespace() || matches!(previous, b'[' | b'{' | b',');
                    match c {
                        b'#' if previous.is_ascii_whitespace() => break,
                        b'"' | b'\'' if starts_token => quote = Some(c),
                        b'[' | b'{' if starts_token || depth > 0 => {
                            depth += 1;
                            if depth > limit {
                                return Some((i + 1, line[..at].chars().count() + 1));
                            }
                        }
                        b']' | b'}' if depth > 0 => depth -= 1,
                        b'|' | b'>' if starts_token && depth == 0 => {
                            block_scalar_indent = Some(indent);
                            break;
                        }
                        _ => {}
                    }
                }
            }
            previous = c;
            at += 1;
        }
    }
    None
}

/// The position of the first alias (`*name`) outside quotes, for errors
/// about alias expansion.
fn first_alias(text: &str) -> Option<(usize, usize)> {
    text.lines().enumerate().find_map(|(i, line)| {
        let bytes = line.as_bytes();
        (0..bytes.len())
            .find(|&at| {
                bytes[at] == b'*'
                    && bytes.get(at + 1).is_some_and(|b| b.is_ascii_alphanumeric())
                    && (at == 0 || matches!(bytes[at - 1], b' ' | b'[' | b'{' | b','))
            })
            .map(|at| (i + 1, at + 1))
    })
}

fn collect_objects(
    value: Value,
    document: usize,
    line: usize,
    side: Side,
    source: &DocumentText,
    cut: Cut,
    out: &mut Vec<Document>,
) -> Result<(), InputError> {
    // A shape error points at the field it names when the text shows it,
    // else at the document's first line.
    let not_object = |message: String, field: &[&str]| {
        let (line, column) = locate_field(source, field).unwrap_or((line, 1));
        InputError {
            side,
            document,
            line,
            column,
            message,
        }
    };
    match value {
        // `argocd app manifests` prints `null` for an object missing on that side.
        Value::Null => Ok(()),
        Value::Array(items) => {
            for (i, item) in items.into_iter().enumerate() {
                if item.is_null() {
                    continue;
                }
                if !item.is_object() {
                    return Err(not_object(
                        format!(
                            "not a Kubernetes object: item {} of the document's list is a {} rather than a mapping with `kind` and `metadata.name`",
                            i + 1,
                            type_name(&item)
                        ),
                        &[],
                    ));
                }
                collect_objects(item, document, line, side, source, Cut::Nothing, out)?;
            }
            Ok(())
        }
        Value::Object(mut map) => {
            let kind = map
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let is_list = kind == "List"
                || (kind.ends_with("List") && map.get("items").is_some_and(Value::is_array));
            if is_list {
                let items = match map.remove("items") {
                    Some(Value::Array(items)) => items,
                    None | Some(Value::Null) => Vec::new(),
                    Some(other) => {
                        return Err(not_object(
                            format!(
                                "`items` of a `kind: {kind}` is a {} rather than a list of objects",
                                type_name(&other)
                            ),
                            &["items"],
                        ))
                    }
                };
                for (i, item) in items.iter().enumerate() {
                    if item.is_null() {
                        continue;
                    }
                    check_object(item).map_err(|(why, _)| {
                        not_object(format!("item {} of the List: {why}", i + 1), &["items"])
                    })?;
                }
                let mut fields = match cut {
                    Cut::Items(fields) => fields,
                    Cut::Nothing | Cut::Object(_) => Vec::new(),
                }
                .into_iter();
                for object in items {
                    let deferred = fields.next().unwrap_or_default();
                    if !object.is_null() {
                        out.push(Document {
                            object,
                            document,
                            line,
                            deferred,
                        });
                    }
                }
                return Ok(());
            }
            let object = Value::Object(map);
            check_object(&object).map_err(|(why, field)| not_object(why, field))?;
            let deferred = match cut {
                Cut::Object(fields) => fields,
                Cut::Nothing | Cut::Items(_) => Vec::new(),
            };
            out.push(Document {
                object,
                document,
                line,
                deferred,
            });
            Ok(())
        }
        other => Err(not_object(
            format!(
                "not a Kubernetes object: the document is a {} rather than a mapping with `kind` and `metadata.name`",
                type_name(&other)
            ),
            &[],
        )),
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
    fn a_tab_and_an_unclosed_quote_are_named_where_they_are() {
        let tab = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: tabbed\n";
        let e = parse_side(tab, Side::Live).unwrap_err();
        assert_eq!(e.line, 4, "{e}");
        assert!(e.message.contains("a tab is used for indentation"), "{e}");
        let quote = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"quoted\ndata:\n  k: v\n";
        let e = parse_side(quote, Side::Live).unwrap_err();
        assert_eq!((e.line, e.column), (4, 9), "{e}");
        assert!(e.message.contains("never closed"), "{e}");
    }

    #[test]
    fn non_string_keys_become_strings() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  80: http\n";
        let docs = parse_side(text, Side::Git).unwrap();
        assert_eq!(docs[0].object["data"]["80"], "http");
    }

    /// The scan as it read every line, to check the one that skips ahead.
    fn line_by_line(text: &str, limit: usize) -> Option<(usize, usize)> {
        let mut depth = 0usize;
        let mut quote: Option<u8> = None;
        let mut block_scalar_indent: Option<usize> = None;
        for (i, line) in text.lines().enumerate() {
            let indent = line.len() - line.trim_start_matches(' ').len();
            if let Some(parent) = block_scalar_indent {
                if line.trim().is_empty() || indent > parent {
                    continue;
                }
                block_scalar_indent = None;
            }
            let bytes = line.as_bytes();
            // Most lines (`key: value`) hold nothing that changes the state:
            // skip them without looking at each character. Every character the
            // scan reacts to is ASCII, so bytes serve (a multi-byte character
            // never starts a token, which only ever counts less).
            if quote.is_none()
                && depth == 0
                && !bytes
                    .iter()
                    .any(|b| matches!(b, b'[' | b'{' | b'"' | b'\'' | b'|' | b'>'))
            {
                continue;
            }
            let mut previous = b' ';
            let mut at = 0;
            while at < bytes.len() {
                let c = bytes[at];
                match quote {
                    Some(b'"') => match c {
                        b'\\' => at += 1,
                        b'"' => quote = None,
                        _ => {}
                    },
                    Some(_) => {
                        if c == b'\'' {
                            if bytes.get(at + 1) == Some(&b'\'') {
                                at += 1;
                            } else {
                                quote = None;
                            }
                        }
                    }
                    None => {
                        let starts_token = previous.is_ascii_whitespace()
                            || matches!(previous, b'[' | b'{' | b',');
                        match c {
                            b'#' if previous.is_ascii_whitespace() => break,
                            b'"' | b'\'' if starts_token => quote = Some(c),
                            b'[' | b'{' if starts_token || depth > 0 => {
                                depth += 1;
                                if depth > limit {
                                    return Some((i + 1, line[..at].chars().count() + 1));
                                }
                            }
                            b']' | b'}' if depth > 0 => depth -= 1,
                            b'|' | b'>' if starts_token && depth == 0 => {
                                block_scalar_indent = Some(indent);
                                break;
                            }
                            _ => {}
                        }
                    }
                }
                previous = c;
                at += 1;
            }
        }
        None
    }

    proptest::proptest! {
        #[test]
        fn skipping_to_the_next_bracket_or_quote_counts_as_reading_every_line(
            text in "[ a:#\\[\\]{}\"'|>\\\\\r\n-]{0,120}",
            limit in 0usize..4,
        ) {
            proptest::prop_assert_eq!(flow_nesting_beyond(&text, limit), line_by_line(&text, limit));
        }
    }
}
