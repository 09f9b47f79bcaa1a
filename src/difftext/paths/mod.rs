//! Rebuilding full YAML paths for the lines of a hunk, and turning the changed lines into changes.
//!
//! Each side of a hunk (live = context + removed lines, desired = context + added lines) is walked
//! like a YAML document: indentation, keys and list markers give every line its place. When the
//! hunk starts below the top of the object, the missing ancestors are guessed first ("seeding"):
//! candidates come from the usual shape of the kind, from the previous hunk of the same resource and
//! from the text itself, and the one that explains the most lines wins.
//!
//! This module walks the lines; the guessing of ancestors is in `seed`, the placing of lines in
//! the objects and the pairing into changes in `changes`.

mod changes;
mod seed;

use std::borrow::Cow;

use serde_json::Value;

use super::shape::{Hints, Shape};
use super::yaml::{
    self, dash_rest, indent_of, is_block_header, parse_inline, split_key, trim_blanks_end,
};

pub(crate) use changes::{whole_object, Workspace};

/// One line of one side of a hunk.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ViewLine<'a> {
    /// The YAML text (diff marker removed).
    pub(crate) text: &'a str,
    /// Removed (live side) or added (desired side) rather than context.
    pub(crate) changed: bool,
    /// 1-based line in the pasted text.
    pub(crate) src: usize,
}

/// Lines looked at when comparing seeding candidates.
const SCORE_LINES: usize = 40;
const NONE: usize = usize::MAX;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum NKind {
    Root,
    Key,
    Item,
    /// An ancestor the hunk does not show and nothing could name.
    Anon,
    /// An unshown key whose multi-line value the hunk shows part of.
    Holder,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Open {
    /// Deeper lines are children.
    Children,
    /// Deeper lines continue a scalar.
    Scalar,
}

/// Where the guessed ancestors came from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum SeedSource {
    None,
    Table,
    Carry,
    Text,
    Anon,
}

#[derive(Clone, Debug)]
struct Frame<'a> {
    kind: NKind,
    key: Option<Cow<'a, str>>,
    col: usize,
    child_col: usize,
    index: Option<usize>,
    list_count: Option<usize>,
    guessed: bool,
    seeded: bool,
    misplaced: bool,
    shape: Option<usize>,
    open: Open,
    merge: Vec<(String, Value)>,
    parent: usize,
    own_line: Option<usize>,
    first: usize,
    last: usize,
    children: usize,
}

impl Frame<'_> {
    fn new(kind: NKind, col: usize, child_col: usize) -> Self {
        Frame {
            kind,
            key: None,
            col,
            child_col,
            index: None,
            list_count: None,
            guessed: false,
            seeded: false,
            misplaced: false,
            shape: None,
            open: Open::Children,
            merge: Vec::new(),
            parent: 0,
            own_line: None,
            first: NONE,
            last: NONE,
            children: 0,
        }
    }
}

struct Walker<'s, 'a> {
    shape: &'s Shape,
    allow_status: bool,
    nodes: Vec<Frame<'a>>,
    stack: Vec<usize>,
    node_of: Vec<usize>,
    score: i64,
    hits: usize,
    misses: usize,
    loose: usize,
    /// Keys placed under any map whose keys the shape knows: found there, or not.
    closed_hits: usize,
    closed_misses: usize,
    /// Record which lines belong to which node (not needed while only scoring seeds).
    track: bool,
}

impl<'s, 'a> Walker<'s, 'a> {
    fn new(shape: &'s Shape, seed: &[Frame<'a>], allow_status: bool, lines: usize) -> Self {
        let mut w = Walker {
            shape,
            allow_status,
            nodes: Vec::with_capacity(seed.len() + 2 * lines + 4),
            stack: Vec::new(),
            node_of: Vec::new(),
            score: 0,
            hits: 0,
            misses: 0,
            loose: 0,
            closed_hits: 0,
            closed_misses: 0,
            track: true,
        };
        w.reset(seed, lines);
        w
    }

    /// Start again with another seed (reusing the buffers: seeding tries many candidates).
    fn reset(&mut self, seed: &[Frame<'a>], lines: usize) {
        self.nodes.clear();
        self.stack.clear();
        self.node_of.clear();
        self.node_of.resize(lines, NONE);
        self.score = 0;
        self.hits = 0;
        self.misses = 0;
        self.loose = 0;
        self.closed_hits = 0;
        self.closed_misses = 0;
        let mut root = Frame::new(NKind::Root, 0, 0);
        root.shape = Some(0);
        root.list_count = Some(0);
        self.nodes.push(root);
        self.stack.push(0);
        for f in seed {
            let mut f = f.clone();
            f.parent = self.top();
            f.first = NONE;
            f.last = NONE;
            f.own_line = None;
            f.children = 0;
            self.nodes.push(f);
            let id = self.nodes.len() - 1;
            self.stack.push(id);
        }
    }

    fn top(&self) -> usize {
        *self.stack.last().unwrap_or(&0)
    }

    fn push(&mut self, mut f: Frame<'a>, j: usize) -> usize {
        let parent = self.top();
        f.parent = parent;
        f.own_line = Some(j);
        if let Some(p) = self.nodes.get_mut(parent) {
            p.children += 1;
        }
        self.nodes.push(f);
        let id = self.nodes.len() - 1;
        self.stack.push(id);
        id
    }

    /// The line belongs to the node on top of the stack (and so to all nodes below it).
    fn assign(&mut self, j: usize) {
        if !self.track {
            return;
        }
        let top = self.top();
        if let Some(slot) = self.node_of.get_mut(j) {
            *slot = top;
        }
        for &id in &self.stack {
            let n = &mut self.nodes[id];
            if n.first == NONE {
                n.first = j;
            }
            n.last = j;
        }
    }

    fn line(&mut self, j: usize, text: &'a str) {
        let t = trim_blanks_end(text);
        let col = indent_of(t);
        let body = &t[col..];
        let top = self.top();
        if body.is_empty() {
            if top != 0 && self.nodes[top].open == Open::Scalar {
                self.assign(j);
            }
            return;
        }
        if top != 0 && self.nodes[top].open == Open::Scalar && col > self.nodes[top].col {
            if self.nodes[top].seeded {
                // Text explained by a guessed parent (a carried-over scalar or a text holder).
                self.score += 1;
            }
            self.assign(j);
            return;
        }
        if self.stack.len() > yaml::MAX_DEPTH {
            self.assign(j);
            return;
        }
        if let Some((off, rest)) = dash_rest(body) {
            self.dash(j, col, off, rest, 0);
        } else if let Some((key, rest)) = split_key(body) {
            self.key(j, col, key, rest);
        } else {
            self.text(j, col);
        }
    }

    fn pop_while(&mut self, mut f: impl FnMut(&Frame<'a>) -> bool) {
        while self.stack.len() > 1 {
            let top = self.top();
            if f(&self.nodes[top]) {
                self.stack.pop();
            } else {
                break;
            }
        }
    }

    /// Ancestors the text skips (deeper indentation than the parent allows): unnamed frames.
    fn fill_gap(&mut self, upto: usize) {
        let mut guard = 0;
        loop {
            let top = self.top();
            let cc = self.nodes[top].child_col;
            if cc >= upto || guard > yaml::MAX_DEPTH {
                break;
            }
            guard += 1;
            let mut f = Frame::new(NKind::Anon, cc, cc + 2);
            f.guessed = true;
            f.seeded = true;
            self.nodes.push(f);
            let id = self.nodes.len() - 1;
            self.nodes[id].parent = top;
            self.stack.push(id);
        }
    }

    fn key(&mut self, j: usize, col: usize, key: Cow<'a, str>, rest: &'a str) {
        self.pop_while(|n| n.col >= col);
        self.fill_gap(col);
        let parent = self.top();
        let child = self.nodes[parent]
            .shape
            .and_then(|s| self.shape.child(s, &key));
        self.score_key(parent, &key, child);
        if rest.is_empty() && self.holds_strings(parent) {
            // Labels and annotations hold strings: a key that opens a map or
            // a list below it is not one of them.
            self.score -= 2;
            if self.nodes[parent].seeded {
                self.misses += 1;
            }
        }
        let scalar_rest = !rest.is_empty() && !is_block_header(rest);
        if self.nodes[parent].kind == NKind::Item && scalar_rest && is_merge_key(&key) {
            let v = parse_inline(rest);
            if !v.is_object() && !v.is_array() {
                self.nodes[parent].merge.push((key.to_string(), v));
            }
        }
        let mut f = Frame::new(NKind::Key, col, col + 2);
        f.shape = child;
        f.key = Some(key);
        f.misplaced = self.nodes[parent].child_col != col;
        if rest.is_empty() {
            f.list_count = Some(0);
        } else {
            f.open = Open::Scalar;
        }
        self.push(f, j);
        self.assign(j);
    }

    fn dash(&mut self, j: usize, col: usize, off: usize, rest: &'a str, depth: usize) {
        self.pop_while(|n| {
            if n.kind == NKind::Item {
                n.col >= col
            } else {
                n.col > col
            }
        });
        let top = self.top();
        let t = &self.nodes[top];
        let is_list =
            matches!(t.kind, NKind::Key | NKind::Anon) && t.col <= col && t.child_col >= col;
        // A Kubernetes object is a map, so items at column 0 belong to a top-level list whose key
        // is above the hunk (sigs.k8s.io/yaml writes list items at their key's column); they are
        // never items of the object itself.
        if !is_list {
            // The list's key is not shown: an unnamed list frame at this column.
            self.fill_gap(col);
            let parent = self.top();
            let mut f = Frame::new(NKind::Anon, col, col + 2);
            f.guessed = true;
            f.seeded = true;
            f.parent = parent;
            self.nodes.push(f);
            let id = self.nodes.len() - 1;
            self.stack.push(id);
        }
        let parent = self.top();
        self.score_dash(parent, rest);
        let index = match self.nodes[parent].list_count {
            Some(n) => {
                self.nodes[parent].list_count = Some(n + 1);
                Some(n)
            }
            None => None,
        };
        let mut f = Frame::new(NKind::Item, col, col + off);
        f.index = index;
        f.list_count = Some(0);
        f.shape = self.nodes[parent].shape.and_then(|s| self.shape.item(s));
        self.push(f, j);
        self.assign(j);
        if rest.is_empty() || depth > yaml::MAX_DEPTH {
            return;
        }
        if let Some((off2, rest2)) = dash_rest(rest) {
            self.dash(j, col + off, off2, rest2, depth + 1);
        } else if let Some((key, r)) = split_key(rest) {
            self.key(j, col + off, key, r);
        } else {
            let top = self.top();
            self.nodes[top].open = Open::Scalar;
        }
    }

    fn text(&mut self, j: usize, col: usize) {
        let top = self.top();
        if top != 0
            && self.nodes[top].open == Open::Children
            && self.nodes[top].children == 0
            && col > self.nodes[top].col
            && matches!(self.nodes[top].kind, NKind::Key | NKind::Item)
        {
            // `key:` followed by its scalar on the next line.
            self.nodes[top].open = Open::Scalar;
            self.assign(j);
            return;
        }
        self.pop_while(|n| n.col >= col);
        self.score -= 1;
        let hcol = col.saturating_sub(2);
        self.fill_gap(hcol);
        let mut f = Frame::new(NKind::Holder, hcol, col);
        f.guessed = true;
        f.open = Open::Scalar;
        self.push(f, j);
        self.assign(j);
    }

    /// Whether the map `parent` stands for holds string values only: labels,
    /// and the free-form maps of text (annotations, a ConfigMap's data).
    fn holds_strings(&self, parent: usize) -> bool {
        self.nodes[parent].shape.is_some_and(|sn| {
            self.shape.nodes[sn].name == Some("labels")
                || matches!(self.shape.hints(sn), Some(Hints::Any { text: true, .. }))
        })
    }

    /// Score a key placed under `parent`; `child` is its shape node.
    fn score_key(&mut self, parent: usize, key: &str, child: Option<usize>) {
        let seeded = self.nodes[parent].seeded;
        let Some(sn) = self.nodes[parent].shape else {
            return;
        };
        let hidden = |c: usize| self.shape.nodes.get(c).is_some_and(|n| n.in_status);
        if !self.allow_status && child.is_some_and(hidden) {
            // Argo CD never shows `/status`.
            self.score -= 3;
            return;
        }
        match self.shape.hints(sn) {
            Some(Hints::Closed(keys)) => {
                if keys.binary_search(&key).is_ok() {
                    self.score += 3;
                    self.closed_hits += 1;
                    if seeded {
                        self.hits += 1;
                    }
                } else {
                    self.score -= 2;
                    self.closed_misses += 1;
                    if seeded {
                        self.misses += 1;
                    }
                }
            }
            Some(Hints::Any { likely, .. }) => {
                if likely.iter().any(|p| key.starts_with(p)) {
                    self.score += 2;
                } else if key.contains('/') || key.contains('.') {
                    self.score += 1;
                }
                if seeded {
                    self.loose += 1;
                }
            }
            None => {
                if child.is_some() {
                    self.score += 2;
                }
            }
        }
    }

    /// Score an item placed under `parent`; `rest` is what follows its `- `.
    fn score_dash(&mut self, parent: usize, rest: &str) {
        let Some(sn) = self.nodes[parent].shape else {
            return;
        };
        match self.shape.item(sn) {
            Some(item) => {
                // A plain scalar item in a list whose items are maps (`- get` under
                // `ownerReferences`) is a list of another key.
                let maps = matches!(self.shape.hints(item), Some(Hints::Closed(_)));
                let scalar = !rest.is_empty()
                    && !rest.starts_with(['{', '&', '*', '!'])
                    && dash_rest(rest).is_none()
                    && split_key(rest).is_none();
                if maps && scalar {
                    self.score -= 3;
                } else {
                    self.score += 2;
                }
            }
            None if self.shape.hints(sn).is_some() => self.score -= 2,
            None => {}
        }
    }

    /// The ancestors open at the end, as a seed for the next hunk.
    /// Items keep the place they were given in the reconstructed object, so that the next hunk
    /// adds to the same item.
    fn carry_into(&self, out: &mut Vec<Frame<'a>>, placed: &[Option<usize>]) {
        out.clear();
        out.extend(self.stack.iter().skip(1).map(|&id| {
            let mut f = self.nodes[id].clone();
            f.guessed = true;
            f.seeded = true;
            f.index = f.index.or(placed.get(id).copied().flatten());
            f.list_count = None;
            f
        }));
    }
}

/// Keys that identify list items (Kubernetes merge keys and their usual stand-ins).
fn is_merge_key(key: &str) -> bool {
    matches!(
        key,
        "name"
            | "containerPort"
            | "port"
            | "mountPath"
            | "key"
            | "devicePath"
            | "ip"
            | "topologyKey"
            | "type"
    )
}

/// Preferred merge keys for the items of a list called `list`.
fn merge_order(list: Option<&str>) -> &'static [&'static str] {
    match list {
        Some("ports") => &["containerPort", "port", "name"],
        Some("volumeMounts") => &["mountPath", "name"],
        Some("volumeDevices") => &["devicePath", "name"],
        Some("hostAliases") => &["ip"],
        Some("tolerations") => &["key", "name"],
        Some("topologySpreadConstraints") => &["topologyKey"],
        Some("conditions") => &["type"],
        _ => &["name", "containerPort", "port", "mountPath", "key"],
    }
}
