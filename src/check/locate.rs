//! Where a field sits in the text it was read from: the line of a key in a
//! block-style YAML document, and the Helm template that rendered the
//! document (its `# Source:` comment). Flow style and JSON have no line per
//! field: the line of the nearest ancestor found is given instead.

/// One input's text as lines, for locating fields in it.
pub struct Lines<'t> {
    lines: Vec<&'t str>,
}

/// Leading spaces of a line.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// A line holding no content (blank or a comment).
fn is_blank(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// The key a line starts with at `column` (after any `- ` item markers), unquoted.
fn key_at(line: &str, column: usize) -> Option<&str> {
    let rest = line.get(column..)?;
    let end = rest
        .find(": ")
        .or_else(|| rest.strip_suffix(':').map(str::len))?;
    let key = &rest[..end];
    Some(
        key.strip_prefix('"')
            .and_then(|k| k.strip_suffix('"'))
            .or_else(|| key.strip_prefix('\'').and_then(|k| k.strip_suffix('\'')))
            .unwrap_or(key),
    )
}

/// The column of the content after a line's `- ` markers, and whether it had one.
fn content_column(line: &str) -> (usize, bool) {
    let mut col = indent(line);
    let mut dashed = false;
    while line
        .get(col..)
        .is_some_and(|rest| rest.starts_with("- ") || rest == "-")
    {
        dashed = true;
        col += 2;
        col += indent(line.get(col..).unwrap_or(""));
    }
    (col, dashed)
}

impl<'t> Lines<'t> {
    /// The text's lines.
    pub fn new(text: &'t str) -> Lines<'t> {
        Lines {
            lines: text.split('\n').map(|l| l.trim_end_matches('\r')).collect(),
        }
    }

    /// The 0-based index past the document that starts at `start` (0-based).
    fn document_end(&self, start: usize) -> usize {
        (start + 1..self.lines.len())
            .find(|&i| self.lines[i].starts_with("---") || self.lines[i].starts_with("..."))
            .unwrap_or(self.lines.len())
    }

    /// The template path of the `# Source:` comment above the document
    /// starting on `line` (1-based), as `helm template` writes it.
    pub fn helm_source(&self, line: usize) -> Option<String> {
        let mut i = line.checked_sub(1)?;
        while i > 0 {
            i -= 1;
            let l = self.lines.get(i)?.trim();
            if l.starts_with("---") {
                return None;
            }
            if let Some(path) = l.strip_prefix("# Source:") {
                return Some(path.trim().to_string());
            }
        }
        None
    }

    /// The 1-based line of the field at `tokens` (pointer tokens) in the
    /// document starting on `line`; the nearest ancestor's when the field
    /// is not written on a line of its own.
    pub fn field_line(&self, line: usize, tokens: &[String]) -> usize {
        let Some(start) = line.checked_sub(1).filter(|&s| s < self.lines.len()) else {
            return line;
        };
        let end = self.document_end(start);
        // The node found so far: its line and column, and whether it is a
        // list item (whose own line holds its first key).
        let mut node: Option<(usize, usize, bool)> = None;
        for token in tokens {
            // The node's lines: deeper than it (a key's list may sit at the
            // key's own column, `key:` then `- item`).
            let range: Vec<usize> = match node {
                None => (start..end).filter(|&i| !is_blank(self.lines[i])).collect(),
                Some((at, col, item)) => {
                    let belongs = |i: usize| {
                        let l = self.lines[i];
                        let ind = indent(l);
                        ind > col || (!item && ind == col && l[ind..].starts_with('-'))
                    };
                    let first = if item { at } else { at + 1 };
                    let mut out = Vec::new();
                    for i in first..end {
                        if is_blank(self.lines[i]) {
                            continue;
                        }
                        if i != at && !belongs(i) {
                            break;
                        }
                        out.push(i);
                    }
                    out
                }
            };
            let found = if let Ok(n) = token.parse::<usize>() {
                let items: Vec<usize> = range
                    .iter()
                    .copied()
                    .filter(|&i| {
                        let l = self.lines[i];
                        l[indent(l)..].starts_with('-')
                            && node.is_none_or(|(at, _, item)| !(item && i == at))
                    })
                    .collect();
                let marker = items.first().map(|&i| indent(self.lines[i]));
                items
                    .into_iter()
                    .filter(|&i| Some(indent(self.lines[i])) == marker)
                    .nth(n)
                    .map(|i| (i, indent(self.lines[i]), true))
            } else {
                let col = range.first().map(|&i| content_column(self.lines[i]).0);
                range.iter().copied().find_map(|i| {
                    let l = self.lines[i];
                    let c = content_column(l).0;
                    (Some(c) == col && key_at(l, c) == Some(token.as_str()))
                        .then_some((i, c, false))
                })
            };
            match found {
                Some(n) => node = Some(n),
                None => break,
            }
        }
        node.map_or(line, |(at, _, _)| at + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(p: &str) -> Vec<String> {
        crate::path::pointer_tokens(p).unwrap()
    }

    #[test]
    fn finds_keys_items_and_sources() {
        let text = "---\n# Source: chart/templates/deploy.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    \"a/b\": x\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: a\n        image: x\n      - name: b\n        image: y\n---\n# Source: chart/templates/cm.yaml\nkind: ConfigMap\nmetadata: {name: c}\n";
        let lines = Lines::new(text);
        assert_eq!(
            lines.helm_source(3).as_deref(),
            Some("chart/templates/deploy.yaml")
        );
        assert_eq!(lines.field_line(3, &toks("/spec/replicas")), 10);
        assert_eq!(lines.field_line(3, &toks("/metadata/annotations/a~1b")), 8);
        assert_eq!(
            lines.field_line(3, &toks("/spec/template/spec/containers/1/image")),
            17
        );
        assert_eq!(
            lines.field_line(3, &toks("/spec/template/spec/containers/0/name")),
            14
        );
        // Flow style: the ancestor's line.
        assert_eq!(lines.field_line(20, &toks("/metadata/name")), 21);
        assert_eq!(
            lines.helm_source(20).as_deref(),
            Some("chart/templates/cm.yaml")
        );
        // A key missing: the deepest ancestor found.
        assert_eq!(lines.field_line(3, &toks("/spec/nope")), 9);
    }

    #[test]
    fn odd_lines_never_panic() {
        let text = "-\n- -\n  - \n\t- x\n\"é\": -\n- é: ü\n---\n...\n";
        let lines = Lines::new(text);
        for start in 0..12 {
            for p in ["/0", "/0/0", "/é", "/0/é", "/x/y/0"] {
                let _ = lines.field_line(start, &toks(p));
            }
            let _ = lines.helm_source(start);
        }
    }

    #[test]
    fn indentless_lists_and_nested_items() {
        let text = "kind: X\nwebhooks:\n- name: a\n  clientConfig:\n    caBundle: Zm9v\n- name: b\n  clientConfig:\n    caBundle: YmFy\n";
        let lines = Lines::new(text);
        assert_eq!(
            lines.field_line(1, &toks("/webhooks/1/clientConfig/caBundle")),
            8
        );
        assert_eq!(lines.field_line(1, &toks("/webhooks/0/name")), 3);
    }
}
