//! JSON documents: a span-keeping parser, so values are replaced in place without reformatting.

use super::*;

pub(super) struct JVal {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) node: JNode,
}

pub(super) enum JNode {
    Obj(Vec<(String, JVal)>),
    Arr(Vec<JVal>),
    Str(String),
    Null,
    /// A number or boolean.
    Other,
}

/// A JSON parser that keeps the byte span of every value (serde_json decodes the strings and numbers).
pub(super) struct JsonSpans<'a> {
    pub(super) s: &'a str,
    pub(super) b: &'a [u8],
    pub(super) pos: usize,
}

impl JsonSpans<'_> {
    pub(super) fn ws(&mut self) {
        while self.pos < self.b.len() && matches!(self.b[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    pub(super) fn value(&mut self, depth: usize) -> Option<JVal> {
        if depth > crate::limits::MAX_WALK_DEPTH {
            return None;
        }
        self.ws();
        let start = self.pos;
        let node = match *self.b.get(self.pos)? {
            b'{' => {
                self.pos += 1;
                let mut members = Vec::new();
                self.ws();
                if self.b.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        let key = self.string()?;
                        self.ws();
                        if self.b.get(self.pos) != Some(&b':') {
                            return None;
                        }
                        self.pos += 1;
                        let v = self.value(depth + 1)?;
                        members.push((key, v));
                        self.ws();
                        match *self.b.get(self.pos)? {
                            b',' => self.pos += 1,
                            b'}' => {
                                self.pos += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                JNode::Obj(members)
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                } else {
                    loop {
                        items.push(self.value(depth + 1)?);
                        self.ws();
                        match *self.b.get(self.pos)? {
                            b',' => self.pos += 1,
                            b']' => {
                                self.pos += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                JNode::Arr(items)
            }
            b'"' => JNode::Str(self.string()?),
            b't' | b'f' | b'n' | b'-' | b'0'..=b'9' => {
                while self.pos < self.b.len()
                    && (self.b[self.pos].is_ascii_alphanumeric()
                        || matches!(self.b[self.pos], b'+' | b'-' | b'.'))
                {
                    self.pos += 1;
                }
                match self.s.get(start..self.pos)? {
                    "null" => JNode::Null,
                    "true" | "false" => JNode::Other,
                    lit => {
                        serde_json::from_str::<serde_json::Number>(lit).ok()?;
                        JNode::Other
                    }
                }
            }
            _ => return None,
        };
        Some(JVal {
            start,
            end: self.pos,
            node,
        })
    }

    pub(super) fn string(&mut self) -> Option<String> {
        if self.b.get(self.pos) != Some(&b'"') {
            return None;
        }
        let start = self.pos;
        self.pos += 1;
        loop {
            match *self.b.get(self.pos)? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    break;
                }
                c if c < 0x20 => return None,
                _ => self.pos += 1,
            }
        }
        serde_json::from_str::<String>(self.s.get(start..self.pos)?).ok()
    }
}

/// Edits for a document made of JSON values; `None` when it is not JSON.
pub(super) fn json_edits(doc: &str, masks: &Masks) -> Option<Vec<Edit>> {
    let mut p = JsonSpans {
        s: doc,
        b: doc.as_bytes(),
        pos: 0,
    };
    let mut vals = Vec::new();
    loop {
        p.ws();
        if p.pos >= doc.len() {
            break;
        }
        vals.push(p.value(0)?);
    }
    if vals.is_empty() {
        return None;
    }
    let mut edits = Vec::new();
    for v in &vals {
        json_collect(doc, v, &mut edits, 0, masks);
    }
    Some(edits)
}

pub(super) fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

pub(super) fn jget<'v>(members: &'v [(String, JVal)], key: &str) -> Option<&'v JVal> {
    members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
}

pub(super) fn json_collect(doc: &str, v: &JVal, out: &mut Vec<Edit>, depth: usize, masks: &Masks) {
    if depth > MAX_DEPTH {
        return;
    }
    match &v.node {
        JNode::Obj(members) => {
            let secret = matches!(jget(members, "kind").map(|k| &k.node), Some(JNode::Str(k)) if is_secret_kind(k));
            if secret {
                for (key, fv) in members {
                    let field = match key.as_str() {
                        "data" => Field::Data,
                        "stringData" => Field::StringData,
                        k if NON_SECRET_FIELDS.contains(&k) => continue,
                        _ => Field::Guess,
                    };
                    json_values(doc, fv, field, out, masks, 0);
                }
            }
            if let Some(JNode::Obj(meta)) = jget(members, "metadata").map(|m| &m.node) {
                if let Some(JNode::Obj(ann)) = jget(meta, "annotations").map(|a| &a.node) {
                    for (k, la) in ann {
                        if k != LAST_APPLIED_ANNOTATION {
                            continue;
                        }
                        match &la.node {
                            JNode::Str(s) => {
                                if let Some((new, n)) =
                                    mask_last_applied_text(s, secret, Style::Manifest, masks)
                                {
                                    out.push(Edit {
                                        start: la.start,
                                        end: la.end,
                                        text: json_str(&new),
                                        count: n,
                                    });
                                }
                            }
                            JNode::Null => {}
                            _ if secret => {
                                let raw = doc.get(la.start..la.end).unwrap_or("");
                                out.push(Edit {
                                    start: la.start,
                                    end: la.end,
                                    text: json_str(&masks.mask(raw.as_bytes())),
                                    count: 1,
                                });
                            }
                            _ => {}
                        }
                    }
                }
            }
            if !secret {
                for (_, c) in members {
                    json_collect(doc, c, out, depth + 1, masks);
                }
            }
        }
        JNode::Arr(items) => {
            for c in items {
                json_collect(doc, c, out, depth + 1, masks);
            }
        }
        _ => {}
    }
}

/// Mask every scalar under a Secret's field (the entries of `data`, a misspelt field's value...).
fn json_values(
    doc: &str,
    v: &JVal,
    field: Field,
    out: &mut Vec<Edit>,
    masks: &Masks,
    depth: usize,
) {
    match &v.node {
        JNode::Null => {}
        JNode::Obj(entries) if depth < MAX_DEPTH => {
            for (_, x) in entries {
                json_values(doc, x, field, out, masks, depth + 1);
            }
        }
        JNode::Arr(items) if depth < MAX_DEPTH => {
            for x in items {
                json_values(doc, x, field, out, masks, depth + 1);
            }
        }
        _ => json_leaf(doc, v, field, out, masks),
    }
}

pub(super) fn json_leaf(doc: &str, leaf: &JVal, field: Field, out: &mut Vec<Edit>, masks: &Masks) {
    let text = match &leaf.node {
        JNode::Null => return,
        JNode::Str(s) => s.clone(),
        _ => doc.get(leaf.start..leaf.end).unwrap_or("").to_string(),
    };
    if let Some((masked, _)) = masked_for(masks, field, &text, Style::Manifest) {
        out.push(Edit {
            start: leaf.start,
            end: leaf.end,
            text: json_str(&masked),
            count: 1,
        });
    }
}
