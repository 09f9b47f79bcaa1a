//! The layout-preserving YAML line scanner: finds Secret values in YAML text (also in diff hunks) by their lines.

use super::*;

/// A line as the scanner sees it: content `[start, end)` of the text (after any diff marker), the hunk it belongs
/// to (structure never continues across hunks) and its index among the raw lines.
#[derive(Clone, Copy, Debug)]
pub(super) struct SLine {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) hunk: usize,
    pub(super) raw: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Shape {
    /// Nothing after the colon: a nested block (or null) follows.
    Empty,
    Scalar,
    Block,
    Flow,
}

/// Where a value's text is: from `vstart` on line `first` to `vend` on line `last` (line indices into the scan).
#[derive(Clone, Copy, Debug)]
pub(super) struct Region {
    pub(super) first: usize,
    pub(super) vstart: usize,
    pub(super) last: usize,
    pub(super) vend: usize,
}

pub(super) struct Entry {
    pub(super) key: String,
    pub(super) map: usize,
    pub(super) shape: Shape,
    pub(super) region: Option<Region>,
}

pub(super) struct MapNode {
    pub(super) col: usize,
    pub(super) parent: Option<usize>,
    pub(super) hunk: usize,
    pub(super) entries: Vec<usize>,
}

/// A value to replace.
pub(super) struct Masked {
    pub(super) region: Region,
    pub(super) text: String,
    pub(super) count: usize,
}

pub(super) struct Scan<'a> {
    pub(super) text: &'a str,
    pub(super) lines: &'a [SLine],
    pub(super) masks: &'a Masks,
    pub(super) entries: Vec<Entry>,
    pub(super) maps: Vec<MapNode>,
    /// For each entry, the mappings nested under it.
    pub(super) children: Vec<Vec<usize>>,
    /// Lines that are neither keys, nor sequence items, nor part of a value: in a diff, the rest of a value
    /// whose key is outside the hunk.
    pub(super) loose: Vec<usize>,
}

/// Parse a mapping key starting at byte `col` of `s`; returns the key and the offset just after its colon.
pub(super) fn parse_key(s: &str, col: usize) -> Option<(String, usize)> {
    let b = s.as_bytes();
    let first = *b.get(col)?;
    let colon_ok = |i: usize| {
        b.get(i) == Some(&b':') && matches!(b.get(i + 1), None | Some(b' ') | Some(b'\t'))
    };
    match first {
        b'"' | b'\'' => {
            let close = if first == b'"' {
                find_dq_end(b, col, b.len())
            } else {
                find_sq_end(b, col, b.len())
            }?;
            let inner = s.get(col + 1..close)?;
            let key = if first == b'"' {
                serde_json::from_str::<String>(s.get(col..=close)?)
                    .unwrap_or_else(|_| inner.to_string())
            } else {
                inner.replace("''", "'")
            };
            let mut p = close + 1;
            while p < b.len() && (b[p] == b' ' || b[p] == b'\t') {
                p += 1;
            }
            colon_ok(p).then_some((key, p + 1))
        }
        b'{' | b'[' | b'}' | b']' | b',' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%'
        | b'@' | b'`' => None,
        b'?' if matches!(b.get(col + 1), None | Some(b' ') | Some(b'\t')) => None,
        _ => {
            let mut i = col;
            while i < b.len() {
                if colon_ok(i) {
                    let key = s.get(col..i)?.trim_end();
                    return (!key.is_empty()).then(|| (key.to_string(), i + 1));
                }
                if b[i] == b'#' && i > col && (b[i - 1] == b' ' || b[i - 1] == b'\t') {
                    return None;
                }
                i += 1;
            }
            None
        }
    }
}

/// Index of the closing `"` of a double-quoted scalar opened at `open`, before `end`.
pub(super) fn find_dq_end(b: &[u8], open: usize, end: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < end {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Index of the closing `'` of a single-quoted scalar opened at `open` (`''` is an escaped quote), before `end`.
pub(super) fn find_sq_end(b: &[u8], open: usize, end: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < end {
        if b[i] == b'\'' {
            if i + 1 < end && b[i + 1] == b'\'' {
                i += 2;
                continue;
            }
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The value of a simple one-line scalar such as `Secret`, `"v1"` or `'v1' # comment`.
pub(super) fn simple_scalar(v: &str) -> String {
    let b = v.as_bytes();
    match b.first() {
        Some(b'"') => {
            if let Some(close) = find_dq_end(b, 0, b.len()) {
                if let Some(lit) = v.get(..=close) {
                    return serde_json::from_str::<String>(lit)
                        .unwrap_or_else(|_| v[1..close].to_string());
                }
            }
            v.to_string()
        }
        Some(b'\'') => match find_sq_end(b, 0, b.len()) {
            Some(close) => v[1..close].replace("''", "'"),
            None => v.to_string(),
        },
        _ => {
            let end = comment_start(v).unwrap_or(v.len());
            v[..end].trim().trim_end_matches(',').trim().to_string()
        }
    }
}

/// Offset of a ` #` comment in a plain scalar's line.
pub(super) fn comment_start(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    (1..b.len()).find(|&i| b[i] == b'#' && (b[i - 1] == b' ' || b[i - 1] == b'\t'))
}

/// The logical value of a scalar's source text (`None` for null).
pub(super) fn scalar_value(raw: &str) -> Option<String> {
    let t = raw.trim();
    if t.is_empty() || matches!(t, "~" | "null" | "Null" | "NULL") {
        return None;
    }
    if !raw.contains('\n')
        && t.bytes().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'-' | b'_' | b'.')
        })
    {
        return Some(t.to_string());
    }
    // The region ends at the end of its last line's text: give back the line break a block scalar keeps.
    let snippet = format!("v: {raw}\n");
    match yaml_parse(&snippet) {
        Some(serde_yaml::Value::Mapping(m)) => match m.get("v") {
            Some(v) => yaml_scalar_string(v),
            None => Some(t.to_string()),
        },
        _ => Some(t.to_string()),
    }
}

/// A YAML double-quoted scalar for `s`, escaping what YAML would not keep as is.
pub(super) fn yaml_dq(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20
                || (0x7f..=0x9f).contains(&(c as u32))
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') =>
            {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub(super) const METADATA_PAIRS: [(&str, &str); 2] =
    [("name", "namespace"), ("resourceVersion", "uid")];
/// Nested blocks that only metadata has.
pub(super) const METADATA_BLOCKS: [&str; 5] = [
    "labels",
    "annotations",
    "managedFields",
    "ownerReferences",
    "finalizers",
];

impl<'a> Scan<'a> {
    pub(super) fn new(text: &'a str, lines: &'a [SLine], masks: &'a Masks) -> Self {
        Scan {
            text,
            lines,
            masks,
            entries: Vec::new(),
            maps: Vec::new(),
            children: Vec::new(),
            loose: Vec::new(),
        }
    }

    pub(super) fn content(&self, i: usize) -> &'a str {
        let l = self.lines[i];
        self.text.get(l.start..l.end).unwrap_or("")
    }

    pub(super) fn run(&mut self) {
        let mut frames: Vec<(usize, usize)> = Vec::new(); // (key column, map)
        let mut cur_hunk = usize::MAX;
        let mut i = 0;
        while i < self.lines.len() {
            let l = self.lines[i];
            if l.hunk != cur_hunk {
                frames.clear();
                cur_hunk = l.hunk;
            }
            let s = self.content(i);
            if is_doc_marker(s) {
                frames.clear();
                i += 1;
                continue;
            }
            if is_blank_or_comment(s) {
                i += 1;
                continue;
            }
            let b = s.as_bytes();
            let mut col = indent(s);
            let mut dash = None;
            while col < b.len()
                && b[col] == b'-'
                && matches!(b.get(col + 1), None | Some(b' ') | Some(b'\t'))
            {
                dash.get_or_insert(col);
                col += 1;
                while col < b.len() && (b[col] == b' ' || b[col] == b'\t') {
                    col += 1;
                }
            }
            if let Some(d) = dash {
                while frames.last().is_some_and(|f| f.0 > d) {
                    frames.pop();
                }
            }
            let Some((key, after)) = parse_key(s, col) else {
                if dash.is_none() {
                    self.loose.push(i);
                }
                i += 1;
                continue;
            };
            if dash.is_none() {
                while frames.last().is_some_and(|f| f.0 > col) {
                    frames.pop();
                }
            }
            let map = match frames.last() {
                Some(&(c, m)) if dash.is_none() && c == col => m,
                top => {
                    let parent = top
                        .and_then(|&(_, m)| self.maps[m].entries.last().copied())
                        .filter(|&e| self.entries[e].shape == Shape::Empty);
                    let m = self.maps.len();
                    self.maps.push(MapNode {
                        col,
                        parent,
                        hunk: l.hunk,
                        entries: Vec::new(),
                    });
                    if let Some(p) = parent {
                        self.children[p].push(m);
                    }
                    frames.push((col, m));
                    m
                }
            };
            let (shape, region, last) = self.value_at(i, col, l.start + after);
            let e = self.entries.len();
            self.entries.push(Entry {
                key,
                map,
                shape,
                region,
            });
            self.children.push(Vec::new());
            self.maps[map].entries.push(e);
            i = last.max(i) + 1;
        }
    }

    /// The next line of the same hunk that is neither blank nor a comment (`None` at a document marker).
    pub(super) fn next_content_line(&self, i: usize) -> Option<usize> {
        let hunk = self.lines[i].hunk;
        let mut j = i + 1;
        while j < self.lines.len() && self.lines[j].hunk == hunk {
            let s = self.content(j);
            if is_doc_marker(s) {
                return None;
            }
            if !is_blank_or_comment(s) {
                return Some(j);
            }
            j += 1;
        }
        None
    }

    /// The last line that continues a value whose key is at column `kc` (more indented lines and blanks).
    pub(super) fn extent(&self, i: usize, kc: usize) -> usize {
        let hunk = self.lines[i].hunk;
        let mut last = i;
        let mut j = i + 1;
        while j < self.lines.len() && self.lines[j].hunk == hunk {
            let s = self.content(j);
            if is_doc_marker(s) {
                break;
            }
            if is_blank(s) {
                j += 1;
                continue;
            }
            if indent(s) > kc {
                last = j;
                j += 1;
                continue;
            }
            break;
        }
        last
    }

    pub(super) fn trimmed_end(&self, i: usize) -> usize {
        let l = self.lines[i];
        let s = self.content(i);
        l.start + s.trim_end().len()
    }

    /// Classify the value after a key's colon (`after` is a byte offset into the text).
    pub(super) fn value_at(
        &self,
        i: usize,
        kc: usize,
        after: usize,
    ) -> (Shape, Option<Region>, usize) {
        let l = self.lines[i];
        let b = self.text.as_bytes();
        let mut p = after;
        while p < l.end && (b[p] == b' ' || b[p] == b'\t') {
            p += 1;
        }
        let vstart = p;
        // Anchors and tags before the value.
        while p < l.end && (b[p] == b'&' || b[p] == b'!') {
            while p < l.end && b[p] != b' ' && b[p] != b'\t' {
                p += 1;
            }
            while p < l.end && (b[p] == b' ' || b[p] == b'\t') {
                p += 1;
            }
        }
        if p >= l.end || b[p] == b'#' {
            // A nested block follows, or a scalar on the next line(s), or nothing (null).
            if let Some(j) = self.next_content_line(i) {
                let s = self.content(j);
                let ind = indent(s);
                let rest = &s[ind..];
                let structural = rest.starts_with("- ")
                    || rest == "-"
                    || rest.starts_with("-\t")
                    || parse_key(s, ind).is_some();
                if ind > kc && !structural {
                    let (shape, region, last) = self.value_from(j, self.lines[j].start + ind, kc);
                    return (
                        if shape == Shape::Flow {
                            Shape::Flow
                        } else {
                            Shape::Scalar
                        },
                        region,
                        last,
                    );
                }
            }
            return (Shape::Empty, None, i);
        }
        let (shape, region, last) = self.value_from(i, p, kc);
        (shape, region.map(|r| Region { vstart, ..r }), last)
    }

    /// The region of a value that starts at byte `p` of line `i`.
    pub(super) fn value_from(
        &self,
        i: usize,
        p: usize,
        kc: usize,
    ) -> (Shape, Option<Region>, usize) {
        let b = self.text.as_bytes();
        let l = self.lines[i];
        let whole = |last: usize| Region {
            first: i,
            vstart: p,
            last,
            vend: self.trimmed_end(last),
        };
        match b[p] {
            b'|' | b'>' => {
                let last = self.extent(i, kc);
                let region = if last == i {
                    let s = self.text.get(p..l.end).unwrap_or("");
                    let hdr = comment_start(s).unwrap_or(s.len());
                    Region {
                        first: i,
                        vstart: p,
                        last: i,
                        vend: p + s[..hdr].trim_end().len(),
                    }
                } else {
                    whole(last)
                };
                (Shape::Block, Some(region), last)
            }
            open @ (b'"' | b'\'' | b'{' | b'[') => {
                let (shape, closed) = if matches!(open, b'"' | b'\'') {
                    (Shape::Scalar, self.scan_quoted(i, p, kc))
                } else {
                    (Shape::Flow, self.scan_flow(i, p, kc))
                };
                // Unclosed: the value runs over the lines that continue it.
                let (last, region) = match closed {
                    Some((last, vend)) => (
                        last,
                        Region {
                            first: i,
                            vstart: p,
                            last,
                            vend,
                        },
                    ),
                    None => {
                        let last = self.extent(i, kc);
                        (last, whole(last))
                    }
                };
                (shape, Some(region), last)
            }
            _ => {
                let last = self.extent(i, kc);
                if last == i {
                    let s = self.text.get(p..l.end).unwrap_or("");
                    let end = comment_start(s).unwrap_or(s.len());
                    let vend = p + s[..end].trim_end().len();
                    (
                        Shape::Scalar,
                        Some(Region {
                            first: i,
                            vstart: p,
                            last: i,
                            vend,
                        }),
                        i,
                    )
                } else {
                    (Shape::Scalar, Some(whole(last)), last)
                }
            }
        }
    }

    /// May the scan of a multi-line quoted or flow value go on to line `j`?
    pub(super) fn continues(&self, from: usize, j: usize, kc: usize, closers: bool) -> bool {
        if j >= self.lines.len() || self.lines[j].hunk != self.lines[from].hunk {
            return false;
        }
        let s = self.content(j);
        if is_doc_marker(s) {
            return false;
        }
        let t = s.trim_start();
        t.is_empty() || indent(s) > kc || (closers && (t.starts_with('}') || t.starts_with(']')))
    }

    /// End of a quoted scalar opened at byte `p` of line `i`: (last line, byte after the closing quote).
    pub(super) fn scan_quoted(&self, i: usize, p: usize, kc: usize) -> Option<(usize, usize)> {
        let b = self.text.as_bytes();
        let q = b[p];
        let mut li = i;
        let mut pos = p + 1;
        loop {
            let end = self.lines[li].end;
            while pos < end {
                let c = b[pos];
                if q == b'"' && c == b'\\' {
                    pos += 2;
                    continue;
                }
                if c == q {
                    if q == b'\'' && pos + 1 < end && b[pos + 1] == b'\'' {
                        pos += 2;
                        continue;
                    }
                    return Some((li, pos + 1));
                }
                pos += 1;
            }
            if !self.continues(i, li + 1, kc, false) {
                return None;
            }
            li += 1;
            pos = self.lines[li].start;
        }
    }

    /// End of a flow collection opened at byte `p` of line `i`: (last line, byte after the closing bracket).
    pub(super) fn scan_flow(&self, i: usize, p: usize, kc: usize) -> Option<(usize, usize)> {
        let b = self.text.as_bytes();
        let mut depth = 0usize;
        let mut quote: Option<u8> = None;
        let mut prev = b'{';
        let mut li = i;
        let mut pos = p;
        loop {
            let l = self.lines[li];
            while pos < l.end {
                let c = b[pos];
                match quote {
                    Some(q) => {
                        if q == b'"' && c == b'\\' {
                            pos += 2;
                            continue;
                        }
                        if c == q {
                            if q == b'\'' && pos + 1 < l.end && b[pos + 1] == b'\'' {
                                pos += 2;
                                continue;
                            }
                            quote = None;
                        }
                    }
                    None => match c {
                        b'"' | b'\'' if matches!(prev, b'{' | b'[' | b',' | b':') => {
                            quote = Some(c)
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                return Some((li, pos + 1));
                            }
                        }
                        b'#' if pos > l.start && (b[pos - 1] == b' ' || b[pos - 1] == b'\t') => {
                            pos = l.end;
                            continue;
                        }
                        _ => {}
                    },
                }
                if !c.is_ascii_whitespace() {
                    prev = c;
                }
                pos += 1;
            }
            if !self.continues(i, li + 1, kc, true) {
                return None;
            }
            li += 1;
            pos = self.lines[li].start;
        }
    }

    /// The source text of a region; continuation lines keep their indentation.
    pub(super) fn region_text(&self, r: &Region) -> String {
        let t = self.text;
        if r.first == r.last {
            return t
                .get(r.vstart..r.vend.max(r.vstart))
                .unwrap_or("")
                .to_string();
        }
        let mut out = t
            .get(r.vstart..self.lines[r.first].end)
            .unwrap_or("")
            .to_string();
        for li in r.first + 1..=r.last {
            let l = self.lines[li];
            let end = if li == r.last {
                r.vend.max(l.start)
            } else {
                l.end
            };
            out.push('\n');
            out.push_str(t.get(l.start..end).unwrap_or(""));
        }
        out
    }

    pub(super) fn map_scalar(&self, m: usize, key: &str) -> Option<String> {
        self.maps[m]
            .entries
            .iter()
            .rev()
            .map(|&e| &self.entries[e])
            .find(|e| e.key == key && e.shape == Shape::Scalar)
            .and_then(|e| e.region.map(|r| simple_scalar(&self.region_text(&r))))
    }

    /// Some(true): a Secret (any letter case, any apiVersion); Some(false): another kind; None: no kind visible.
    pub(super) fn map_is_secret(&self, m: usize) -> Option<bool> {
        let kind = self.map_scalar(m, "kind")?;
        if !is_secret_kind(&kind) {
            return Some(false);
        }
        // A rule selecting Secrets (an ignoreDifferences entry: kind, name,
        // jsonPointers) names the kind but holds no Secret value.
        let has = |keys: &[&str]| keys.iter().any(|k| self.has_key(m, k));
        Some(!has(&RULE_FIELDS) || has(&OBJECT_FIELDS))
    }

    pub(super) fn has_key(&self, m: usize, key: &str) -> bool {
        self.maps[m]
            .entries
            .iter()
            .any(|&e| self.entries[e].key == key)
    }

    /// Keys that only the top of an object has (so a cut-off mapping holding them is an object, not `data`).
    pub(super) fn looks_like_object(&self, m: usize) -> bool {
        self.maps[m].entries.iter().any(|&e| {
            let en = &self.entries[e];
            match en.key.as_str() {
                "apiVersion" | "kind" => en.shape == Shape::Scalar,
                "metadata" | "data" | "stringData" => en.shape != Shape::Scalar,
                _ => false,
            }
        })
    }

    /// A cut-off mapping that is visibly not `data`: it nests blocks (data values never do) or has metadata pairs.
    pub(super) fn looks_like_metadata(&self, m: usize) -> bool {
        self.maps[m].entries.iter().any(|&e| {
            !self.children[e].is_empty() && METADATA_BLOCKS.contains(&self.entries[e].key.as_str())
        }) || METADATA_PAIRS
            .iter()
            .any(|(a, b)| self.has_key(m, a) && self.has_key(m, b))
    }

    /// Mask an entry's value, or every value nested under it.
    pub(super) fn mask_subtree(&self, e: usize, field: Field, out: &mut Vec<Masked>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        if self.entries[e].shape != Shape::Empty {
            self.mask_leaf(e, field, out);
            return;
        }
        for &cm in &self.children[e] {
            for &c in &self.maps[cm].entries {
                self.mask_subtree(c, field, out, depth + 1);
            }
        }
    }

    /// In a diff, lines cut off from their key: mask them whole when they sit in a Secret's values.
    pub(super) fn decide_loose(&self, d: &DiffCtx, out: &mut Vec<Masked>) {
        for &i in &self.loose {
            let l = self.lines[i];
            let s = self.content(i);
            let field = match (d.section_kind(l.hunk), d.hunk_context(l.hunk)) {
                (SecKind::Other, _) => continue,
                (_, Some(c)) if c.starts_with("data:") => Field::Data,
                (_, Some(c)) if c.starts_with("stringData:") => Field::StringData,
                (SecKind::Secret, _) => Field::Guess,
                _ if s.contains("\"kind\":\"Secret\"") => Field::StringData,
                _ => continue,
            };
            let value = s.trim();
            let Some((masked, is_b64)) = masked_for(self.masks, field, value, Style::Manifest)
            else {
                continue;
            };
            let text = if is_b64 {
                masked
            } else {
                format!("\"{masked}\"")
            };
            let vstart = l.start + indent(s);
            out.push(Masked {
                region: Region {
                    first: i,
                    vstart,
                    last: i,
                    vend: self.trimmed_end(i),
                },
                text,
                count: 1,
            });
        }
    }

    /// Decide what to mask.
    pub(super) fn decide(&self, diff: Option<&DiffCtx>) -> Vec<Masked> {
        let mut out = Vec::new();
        for (mi, m) in self.maps.iter().enumerate() {
            let role = match self.map_is_secret(mi) {
                Some(true) => Role::Secret,
                Some(false) => Role::None,
                None => match diff {
                    Some(d) if m.parent.is_none() => {
                        let sec = d.section_kind(m.hunk);
                        if m.col == 0 || self.looks_like_object(mi) {
                            match sec {
                                SecKind::Other => Role::None,
                                _ => Role::Secret,
                            }
                        } else {
                            match (sec, d.hunk_context(m.hunk)) {
                                (SecKind::Other, _) => Role::None,
                                (_, Some(c)) if c.starts_with("data:") => Role::Fields(Field::Data),
                                (_, Some(c)) if c.starts_with("stringData:") => {
                                    Role::Fields(Field::StringData)
                                }
                                (_, Some(_)) => Role::None,
                                (SecKind::Secret, None) if !self.looks_like_metadata(mi) => {
                                    Role::Fields(Field::Guess)
                                }
                                _ => Role::None,
                            }
                        }
                    }
                    _ => Role::None,
                },
            };
            match role {
                Role::None => {}
                Role::Secret => {
                    for &e in &m.entries {
                        match self.entries[e].key.as_str() {
                            "data" => self.mask_field_entry(e, Field::Data, &mut out),
                            "stringData" => self.mask_field_entry(e, Field::StringData, &mut out),
                            k if NON_SECRET_FIELDS.contains(&k) => {}
                            // a misspelt or misplaced field still holds the Secret's values
                            _ => self.mask_subtree(e, Field::Guess, &mut out, 0),
                        }
                    }
                }
                Role::Fields(field) => {
                    for &e in &m.entries {
                        if self.entries[e].key != LAST_APPLIED_ANNOTATION {
                            self.mask_subtree(e, field, &mut out, 0);
                        }
                    }
                }
            }
        }
        if let Some(d) = diff {
            self.decide_loose(d, &mut out);
        }
        for (ei, e) in self.entries.iter().enumerate() {
            if e.key == LAST_APPLIED_ANNOTATION {
                let force = self.last_applied_owner_is_secret(ei)
                    || diff
                        .is_some_and(|d| d.section_kind(self.maps[e.map].hunk) == SecKind::Secret);
                self.mask_last_applied(ei, force, &mut out);
            }
        }
        out
    }

    /// Whether `annotations` → `metadata` above this entry belong to a visible Secret.
    pub(super) fn last_applied_owner_is_secret(&self, e: usize) -> bool {
        let up = |e: usize, key: &str| -> Option<usize> {
            let p = self.maps[self.entries[e].map].parent?;
            (self.entries[p].key == key).then_some(p)
        };
        let Some(ann) = up(e, "annotations") else {
            return false;
        };
        let Some(meta) = up(ann, "metadata") else {
            return false;
        };
        self.map_is_secret(self.entries[meta].map) == Some(true)
    }

    pub(super) fn mask_field_entry(&self, e: usize, field: Field, out: &mut Vec<Masked>) {
        let en = &self.entries[e];
        match en.shape {
            Shape::Empty => {
                for &cm in &self.children[e] {
                    for &c in &self.maps[cm].entries {
                        self.mask_leaf(c, field, out);
                    }
                }
            }
            Shape::Flow => {
                let Some(r) = en.region else { return };
                let raw = self.region_text(&r);
                match mask_flow_mapping(&raw, field, self.masks) {
                    Some((text, n)) if n > 0 => out.push(Masked {
                        region: r,
                        text,
                        count: n,
                    }),
                    Some(_) => {}
                    None => self.mask_leaf(e, field, out),
                }
            }
            _ => self.mask_leaf(e, field, out),
        }
    }

    pub(super) fn mask_leaf(&self, e: usize, field: Field, out: &mut Vec<Masked>) {
        let en = &self.entries[e];
        let Some(r) = en.region else { return };
        let raw = self.region_text(&r);
        let Some(value) = scalar_value(&raw) else {
            return;
        };
        let Some((masked, is_b64)) = masked_for(self.masks, field, &value, Style::Manifest) else {
            return;
        };
        let text = match raw.as_bytes().first() {
            Some(b'\'') => format!("'{masked}'"),
            Some(b'"') => format!("\"{masked}\""),
            _ if is_b64 => masked,
            _ => format!("\"{masked}\""),
        };
        out.push(Masked {
            region: r,
            text,
            count: 1,
        });
    }

    pub(super) fn mask_last_applied(&self, e: usize, force: bool, out: &mut Vec<Masked>) {
        let Some(r) = self.entries[e].region else {
            return;
        };
        let raw = self.region_text(&r);
        let Some(value) = scalar_value(&raw) else {
            return;
        };
        if let Some((new, n)) = mask_last_applied_text(&value, force, Style::Manifest, self.masks) {
            out.push(Masked {
                region: r,
                text: yaml_dq(&new),
                count: n,
            });
        }
    }
}

pub(super) enum Role {
    None,
    /// A Secret object: mask its `data` and `stringData`.
    Secret,
    /// The entries themselves are Secret values (a cut-off `data` block in a diff).
    Fields(Field),
}

/// Mask the values of a flow mapping such as `{a: YWJj, b: "x"}`; written back as one-line JSON.
pub(super) fn mask_flow_mapping(raw: &str, field: Field, masks: &Masks) -> Option<(String, usize)> {
    let snippet = format!("v: {raw}");
    let v = yaml_parse(&snippet)?;
    let serde_yaml::Value::Mapping(outer) = v else {
        return None;
    };
    let serde_yaml::Value::Mapping(m) = outer.get("v")? else {
        return None;
    };
    let mut out = Map::new();
    let mut n = 0;
    for (k, val) in m {
        let key = yaml_key_string(k);
        let new = match yaml_scalar_string(val) {
            None => Value::Null,
            Some(text) => match masked_for(masks, field, &text, Style::Manifest) {
                Some((masked, _)) => {
                    n += 1;
                    Value::String(masked)
                }
                None => Value::String(text),
            },
        };
        out.insert(key, new);
    }
    Some((serde_json::to_string(&Value::Object(out)).ok()?, n))
}
