//! Rebuilding full YAML paths for the lines of a hunk, and turning the changed lines into changes.
//!
//! Each side of a hunk (live = context + removed lines, desired = context + added lines) is walked
//! like a YAML document: indentation, keys and list markers give every line its place. When the
//! hunk starts below the top of the object, the missing ancestors are guessed first ("seeding"):
//! candidates come from the usual shape of the kind, from the previous hunk of the same resource and
//! from the text itself, and the one that explains the most lines wins.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use super::{Seg, TextChange};

use super::shape::{Hints, Shape};
use super::yaml::{
    self, dash_rest, indent_of, is_block_header, parse_block, parse_inline, split_key,
    trim_blanks_end,
};

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

// ---------------------------------------------------------------------------------------------
// Seeding
// ---------------------------------------------------------------------------------------------

/// The seed frames for a shape node: its ancestors as the walker would have built them.
fn chain_for(shape: &Shape, node: usize) -> Vec<Frame<'static>> {
    let mut frames = Vec::new();
    let mut cur = 0usize;
    let mut c = 0usize;
    for step in shape.path(node) {
        match step {
            Some(name) => {
                let Some(next) = shape.child(cur, name) else {
                    break;
                };
                let mut f = Frame::new(NKind::Key, c, c + 2);
                f.key = Some(Cow::Borrowed(name));
                f.shape = Some(next);
                frames.push(f);
                cur = next;
                c += 2;
            }
            None => {
                let Some(next) = shape.item(cur) else { break };
                let mut f = Frame::new(NKind::Item, c.saturating_sub(2), c);
                f.shape = Some(next);
                frames.push(f);
                cur = next;
            }
        }
    }
    for f in &mut frames {
        f.guessed = true;
        f.seeded = true;
    }
    frames
}

fn anon_chain(upto: usize) -> Vec<Frame<'static>> {
    let mut frames = Vec::new();
    let mut c = 0;
    while c + 2 <= upto && frames.len() < yaml::MAX_DEPTH {
        let mut f = Frame::new(NKind::Anon, c, c + 2);
        f.guessed = true;
        f.seeded = true;
        frames.push(f);
        c += 2;
    }
    frames
}

/// Whether two seed chains name the same ancestors.
fn same_chain(a: &[Frame<'_>], b: &[Frame<'_>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.kind == y.kind
                && x.col == y.col
                && x.child_col == y.child_col
                && x.key == y.key
                && x.open == y.open
        })
}

/// Unnamed ancestors for a hunk whose first line nothing explains.
fn anon_for(first: First) -> Vec<Frame<'static>> {
    match first {
        First::Key(c) => anon_chain(c),
        First::Dash(d) => {
            let mut a = anon_chain(d);
            let mut f = Frame::new(NKind::Anon, d, d + 2);
            f.guessed = true;
            f.seeded = true;
            a.push(f);
            a
        }
        First::Text(t) => {
            let hcol = t.saturating_sub(2);
            let mut a = anon_chain(hcol);
            let mut h = Frame::new(NKind::Holder, hcol, t);
            h.guessed = true;
            h.seeded = true;
            h.open = Open::Scalar;
            a.push(h);
            a
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum First {
    Key(usize),
    Dash(usize),
    Text(usize),
}

fn first_line(view: &[ViewLine<'_>]) -> Option<(First, String)> {
    let line = view.iter().find(|l| !l.text.trim().is_empty())?;
    let t = line.text.trim_end();
    let col = indent_of(t);
    let body = &t[col..];
    if dash_rest(body).is_some() {
        Some((First::Dash(col), String::new()))
    } else if let Some((k, _)) = split_key(body) {
        Some((First::Key(col), k.into_owned()))
    } else {
        Some((First::Text(col), body.to_string()))
    }
}

struct Seeding<'a> {
    frames: Vec<Frame<'a>>,
    source: SeedSource,
}

/// Choose the ancestors of the lines a hunk starts with.
///
/// `old` and `new` are the two sides; `all` is every line of the hunk once, in order (context,
/// removed and added lines), on which the candidates are scored.
fn choose_seed<'s, 'a>(
    w: &mut Walker<'s, 'a>,
    old: &[ViewLine<'a>],
    new: &[ViewLine<'a>],
    all: &[ViewLine<'a>],
    carry: Option<&[Frame<'a>]>,
) -> Seeding<'a> {
    let shape = w.shape;
    let allow_status = w.allow_status;
    let mut firsts = Vec::new();
    for view in [old, new] {
        let f =
            first_line(view).filter(|f| !firsts.iter().any(|(x, _): &(First, String)| *x == f.0));
        firsts.extend(f);
    }
    if firsts.is_empty() || firsts.iter().all(|(f, _)| matches!(f, First::Key(0))) {
        return Seeding {
            frames: Vec::new(),
            source: SeedSource::None,
        };
    }
    let mut candidates: Vec<(Vec<Frame<'a>>, SeedSource)> = Vec::new();
    let mut anon_firsts: Vec<(usize, First)> = Vec::new();
    let usable = |n: usize| allow_status || !shape.nodes.get(n).is_some_and(|x| x.in_status);
    for (first, text) in &firsts {
        match *first {
            First::Key(c) if c > 0 => {
                for &n in shape.at_child_col(c) {
                    // A parent whose known keys exclude the first key is not worth trying.
                    let fits = match &shape.nodes[n].hints {
                        Some(Hints::Closed(keys)) => keys.binary_search(&text.as_str()).is_ok(),
                        _ => true,
                    };
                    if usable(n) && fits {
                        candidates.push((chain_for(shape, n), SeedSource::Table));
                    }
                }
            }
            First::Dash(d) => {
                // Items at column `d` of a list whose key is at `d` (at 0: a top-level list such
                // as `webhooks`, `rules` or `subjects`).
                for &n in shape.at_child_col(d + 2) {
                    let nd = &shape.nodes[n];
                    if nd.is_item && usable(n) {
                        let mut chain = chain_for(shape, n);
                        chain.pop();
                        candidates.push((chain, SeedSource::Table));
                    }
                }
            }
            _ => {}
        }
        let tcol = match *first {
            First::Key(c) | First::Text(c) => c,
            First::Dash(d) => d,
        };
        if let Some(carry) = carry {
            let cut = match *first {
                First::Key(c) => carry
                    .iter()
                    .rposition(|f| f.child_col == c && f.kind != NKind::Holder),
                First::Dash(d) => carry
                    .iter()
                    .rposition(|f| f.col == d && matches!(f.kind, NKind::Key | NKind::Anon)),
                First::Text(t) => carry
                    .iter()
                    .rposition(|f| f.col < t && f.open == Open::Scalar),
            };
            if let Some(k) = cut {
                let chain = &carry[..=k];
                // Often the same as a shape candidate: no need to try it twice.
                if !candidates.iter().any(|(c, _)| same_chain(c, chain)) {
                    candidates.push((chain.to_vec(), SeedSource::Carry));
                }
            }
        }
        // Items of an unnamed list held by a known map whose keys are at `d` (`- pods` of
        // `rules[].resources` in a ClusterRole): only the keys after the list can name the map,
        // so these come after the previous hunk's ancestors.
        if let First::Dash(d @ 1..) = *first {
            for &n in shape.at_child_col(d) {
                let closed = matches!(shape.nodes[n].hints, Some(Hints::Closed(_)));
                if closed && usable(n) {
                    let mut chain = chain_for(shape, n);
                    let mut f = Frame::new(NKind::Anon, d, d + 2);
                    f.guessed = true;
                    f.seeded = true;
                    chain.push(f);
                    candidates.push((chain, SeedSource::Table));
                }
            }
        }
        // Multi-line text whose key is above the hunk (ConfigMap data, annotations, ...).
        for &n in &shape.text_nodes {
            let nd = &shape.nodes[n];
            // Key-shaped lines are taken for text only under ConfigMap/Secret data.
            let text_ok =
                matches!(first, First::Text(_)) || matches!(nd.name, Some("data" | "stringData"));
            if nd.child_col < tcol && usable(n) && text_ok {
                let mut chain = chain_for(shape, n);
                let mut h = Frame::new(NKind::Holder, nd.child_col, nd.child_col + 2);
                h.guessed = true;
                h.seeded = true;
                h.open = Open::Scalar;
                if matches!(first, First::Text(_))
                    && text.starts_with("{\"apiVersion\"")
                    && nd.name == Some("annotations")
                {
                    h.key = Some(Cow::Borrowed(
                        "kubectl.kubernetes.io/last-applied-configuration",
                    ));
                }
                chain.push(h);
                candidates.push((chain, SeedSource::Text));
            }
        }
        // The unnamed chain is built only if it wins.
        candidates.push((Vec::new(), SeedSource::Anon));
        anon_firsts.push((candidates.len() - 1, *first));
    }

    // Score every candidate on the first lines of the hunk; the first best one wins.
    let mut best: Option<(i64, usize, usize, usize, usize)> = None; // score, idx, hits, misses, loose
    let mut best_closed = (0usize, 0usize);
    let mut second = i64::MIN;
    for (idx, (frames, source)) in candidates.iter().enumerate() {
        let mut total = 0i64;
        let (mut hits, mut misses, mut loose) = (0, 0, 0);
        // Naming nothing is the last resort: a named guess must explain at least one line, so the
        // unnamed chain counts as 0 without being walked.
        if *source != SeedSource::Anon {
            let n = all.len().min(SCORE_LINES);
            w.reset(frames, n);
            for (j, l) in all.iter().take(n).enumerate() {
                w.line(j, l.text);
            }
            total = w.score;
            (hits, misses, loose) = (w.hits, w.misses, w.loose);
        }
        match best {
            Some((s, ..)) if total <= s => second = second.max(total),
            _ => {
                if let Some((s, ..)) = best {
                    second = second.max(s);
                }
                best = Some((total, idx, hits, misses, loose));
                best_closed = if *source == SeedSource::Anon {
                    (0, 0)
                } else {
                    (w.closed_hits, w.closed_misses)
                };
            }
        }
    }
    let Some((score, idx, hits, misses, loose)) = best else {
        return Seeding {
            frames: Vec::new(),
            source: SeedSource::None,
        };
    };
    // A guess from the kind's usual shape whose known keys the lines mostly contradict (a policy
    // rule's `match:` and `validate:` under `metadata.ownerReferences`) would invent a path: the
    // parents stay unnamed instead.
    let contradicted = candidates[idx].1 == SeedSource::Table && best_closed.1 > best_closed.0;
    let idx = match anon_firsts.last() {
        Some(&(anon, _)) if contradicted => anon,
        _ => idx,
    };
    let (mut frames, source) = candidates.swap_remove(idx);
    if let Some((_, first)) = anon_firsts
        .iter()
        .find(|(i, _)| *i == idx && source == SeedSource::Anon)
    {
        frames = anon_for(*first);
    }
    // A top-level parent named by keys that only it has is as good as shown.
    let sure = source == SeedSource::Table
        && frames.len() == 1
        && hits > 0
        && misses == 0
        && loose == 0
        && score > second;
    if sure {
        for f in &mut frames {
            f.guessed = false;
        }
    }
    Seeding { frames, source }
}

// ---------------------------------------------------------------------------------------------
// Changes
// ---------------------------------------------------------------------------------------------

/// Everything known about one side of a hunk after the walk.
struct Side<'w, 'v, 'a> {
    view: &'v [ViewLine<'a>],
    nodes: &'w [Frame<'a>],
    node_of: &'w [usize],
    changed_prefix: &'w [usize],
    /// For items whose list position the hunk does not show: where they were placed in the
    /// reconstructed object (by merge key, else after the items already there).
    placed: &'w [Option<usize>],
}

/// Items of a guessed chain that the previous hunk's chain also holds, under the same keys, are
/// taken to be the same items (for a hunk just below the previous one).
fn continue_carried_items(frames: &mut [Frame<'_>], carry: &[Frame<'_>]) {
    for (i, f) in frames.iter_mut().enumerate() {
        let Some(c) = carry.get(i) else {
            return;
        };
        match (f.kind, c.kind) {
            (NKind::Key, NKind::Key) if f.key == c.key => {}
            (NKind::Item, NKind::Item) => {
                if f.index.is_none() {
                    f.index = c.index;
                }
            }
            _ => return,
        }
    }
}

fn side_of<'w, 'v, 'a>(
    view: &'v [ViewLine<'a>],
    walker: &'w Walker<'_, 'a>,
    changed_prefix: &'w [usize],
    placed: &'w [Option<usize>],
) -> Side<'w, 'v, 'a> {
    Side {
        view,
        nodes: &walker.nodes,
        node_of: &walker.node_of,
        changed_prefix,
        placed,
    }
}

/// One step of a place in the reconstructed object.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// The value at `steps`, made (as maps, lists padded with nulls) where missing; a value of
/// another type on the way is replaced.
fn slot<'v>(obj: &'v mut Value, steps: &[Step]) -> &'v mut Value {
    let mut cur = obj;
    for step in steps {
        cur = match step {
            Step::Key(k) => {
                if !cur.is_object() {
                    *cur = Value::Object(serde_json::Map::new());
                }
                match cur {
                    Value::Object(m) => m.entry(k.clone()).or_insert(Value::Null),
                    other => other,
                }
            }
            Step::Index(i) => {
                if !cur.is_array() {
                    *cur = Value::Array(Vec::new());
                }
                match cur {
                    Value::Array(a) => {
                        if a.len() <= *i {
                            a.resize(*i + 1, Value::Null);
                        }
                        // In bounds: the list was just lengthened to hold it.
                        &mut a[*i]
                    }
                    other => other,
                }
            }
        };
    }
    cur
}

impl Side<'_, '_, '_> {
    /// Add what this side of the hunk shows (context and changed lines) to the partial object,
    /// and say where items of unknown position went. Lines under an ancestor nothing could name
    /// are left out: their place is unknown.
    fn reconstruct(&self, obj: &mut Value, placed: &mut Vec<Option<usize>>) {
        let n = self.nodes.len();
        placed.clear();
        placed.resize(n, None);
        let mut loc: Vec<Option<Vec<Step>>> = vec![None; n];
        if n > 0 {
            loc[0] = Some(Vec::new());
        }
        for id in 1..n {
            let node = &self.nodes[id];
            if node.parent >= id {
                continue;
            }
            let Some(parent) = loc[node.parent].clone() else {
                continue;
            };
            let step = match node.kind {
                NKind::Key => Step::Key(node.key.as_deref().unwrap_or_default().to_string()),
                NKind::Item => {
                    let index = match node.index {
                        Some(i) => i,
                        None => {
                            let list_name = self.nodes[node.parent].key.as_deref();
                            let key = merge_order(list_name)
                                .iter()
                                .find_map(|mk| node.merge.iter().find(|(k, _)| k == mk));
                            let list = slot(obj, &parent);
                            if !list.is_array() {
                                *list = Value::Array(Vec::new());
                            }
                            let items = list.as_array_mut().map(|a| a.len()).unwrap_or(0);
                            let found = key.and_then(|(k, v)| {
                                list.as_array()?.iter().position(|e| e.get(k) == Some(v))
                            });
                            let i = found.unwrap_or(items);
                            placed[id] = Some(i);
                            i
                        }
                    };
                    Step::Index(index)
                }
                NKind::Root | NKind::Anon | NKind::Holder => continue,
            };
            let mut here = parent;
            here.push(step);
            let leaf = node.own_line.is_some() && node.children == 0;
            if leaf {
                let (value, partial) = self.value(id);
                if !partial {
                    *slot(obj, &here) = value;
                }
            } else {
                slot(obj, &here);
            }
            loc[id] = Some(here);
        }
    }
}

/// Buffers reused for every hunk of a resource, and what one hunk tells about the next.
pub(crate) struct Workspace<'s, 'a> {
    scorer: Walker<'s, 'a>,
    old: Walker<'s, 'a>,
    new: Walker<'s, 'a>,
    old_prefix: Vec<usize>,
    new_prefix: Vec<usize>,
    carry: Vec<Frame<'a>>,
    has_carry: bool,
    notes: Vec<(Reason, SeedSource, String)>,
    old_placed: Vec<Option<usize>>,
    new_placed: Vec<Option<usize>>,
    /// The live object as far as the hunks show it (context and removed lines).
    pub(crate) live: Value,
    /// The desired object as far as the hunks show it (context and added lines).
    pub(crate) git: Value,
}

fn walk_into<'a>(
    w: &mut Walker<'_, 'a>,
    seeding: &Seeding<'a>,
    view: &[ViewLine<'a>],
    prefix: &mut Vec<usize>,
) {
    w.reset(&seeding.frames, view.len());
    for (j, l) in view.iter().enumerate() {
        w.line(j, l.text);
    }
    prefix.clear();
    prefix.push(0);
    let mut acc = 0;
    for l in view {
        if l.changed {
            acc += 1;
        }
        prefix.push(acc);
    }
}

impl<'s, 'a> Workspace<'s, 'a> {
    pub(crate) fn new(shape: &'s Shape, allow_status: bool) -> Self {
        let mut scorer = Walker::new(shape, &[], allow_status, 0);
        scorer.track = false;
        Workspace {
            scorer,
            old: Walker::new(shape, &[], allow_status, 0),
            new: Walker::new(shape, &[], allow_status, 0),
            old_prefix: Vec::new(),
            new_prefix: Vec::new(),
            carry: Vec::new(),
            has_carry: false,
            notes: Vec::new(),
            old_placed: Vec::new(),
            new_placed: Vec::new(),
            live: Value::Object(serde_json::Map::new()),
            git: Value::Object(serde_json::Map::new()),
        }
    }

    /// The changes of one hunk: `old`/`new` are its two sides, `all` every line once in order.
    pub(crate) fn hunk(
        &mut self,
        old: &[ViewLine<'a>],
        new: &[ViewLine<'a>],
        all: &[ViewLine<'a>],
        kind: &str,
        near: bool,
        out: &mut Vec<TextChange>,
    ) {
        let carry = self.has_carry.then_some(self.carry.as_slice());
        let mut seeding = choose_seed(&mut self.scorer, old, new, all, carry);
        if near && seeding.source == SeedSource::Table {
            if let Some(carry) = carry {
                continue_carried_items(&mut seeding.frames, carry);
            }
        }
        walk_into(&mut self.old, &seeding, old, &mut self.old_prefix);
        walk_into(&mut self.new, &seeding, new, &mut self.new_prefix);
        let ctx = PathContext {
            kind,
            source: seeding.source,
        };
        side_of(old, &self.old, &self.old_prefix, &[])
            .reconstruct(&mut self.live, &mut self.old_placed);
        side_of(new, &self.new, &self.new_prefix, &[])
            .reconstruct(&mut self.git, &mut self.new_placed);
        let old_side = side_of(old, &self.old, &self.old_prefix, &self.old_placed);
        let new_side = side_of(new, &self.new, &self.new_prefix, &self.new_placed);
        changes(&old_side, &new_side, &ctx, &mut self.notes, out);
        let (last, placed) = if old.is_empty() {
            (&self.new, &self.new_placed)
        } else {
            (&self.old, &self.old_placed)
        };
        last.carry_into(&mut self.carry, placed);
        self.has_carry = true;
    }
}

impl Side<'_, '_, '_> {
    fn fully_changed(&self, id: usize) -> bool {
        let n = &self.nodes[id];
        if n.first == NONE || n.last == NONE || n.last < n.first {
            return false;
        }
        let changed = self.changed_prefix[n.last + 1] - self.changed_prefix[n.first];
        changed == n.last - n.first + 1
    }

    /// The outermost nodes whose lines changed: a whole added/removed map or item is one unit.
    ///
    /// `alone`: the other side of the hunk changes nothing (lines only added or only removed).
    /// Otherwise an item whose changed lines run to the end of this side may go on below the
    /// hunk (plain `diff` shows no context), so it is a unit only when a later line closes it or
    /// when its merge key changed (another item): `- image: app:1` replaced by `- image: app:2`
    /// changes the image, not the whole container; `- name: A` replaced by `- name: B` is
    /// another item.
    fn units(&self, alone: bool) -> Vec<usize> {
        let mut order = Vec::new();
        let mut seen = vec![false; self.nodes.len()];
        // The last line with text: a node ending before it is closed by a later line.
        let last_text = self
            .view
            .iter()
            .rposition(|l| !l.text.trim().is_empty())
            .unwrap_or(0);
        for (j, l) in self.view.iter().enumerate() {
            if !l.changed {
                continue;
            }
            let Some(&n) = self.node_of.get(j) else {
                continue;
            };
            if n == NONE || n == 0 {
                continue;
            }
            let mut u = n;
            loop {
                let p = self.nodes[u].parent;
                if p == 0 || p == u {
                    break;
                }
                let pn = &self.nodes[p];
                if pn.own_line.is_none() || pn.guessed || !self.fully_changed(p) {
                    break;
                }
                let closed = pn.last != NONE && pn.last < last_text;
                let keyed = pn.kind == NKind::Item && !pn.merge.is_empty();
                if !alone && !closed && !keyed {
                    break;
                }
                u = p;
            }
            if !seen[u] {
                seen[u] = true;
                order.push(u);
            }
        }
        order
            .into_iter()
            .filter(|&u| {
                let mut p = self.nodes[u].parent;
                let mut guard = 0;
                while p != 0 && guard <= yaml::MAX_DEPTH + 2 {
                    if seen.get(p).copied().unwrap_or(false) {
                        return false;
                    }
                    p = self.nodes[p].parent;
                    guard += 1;
                }
                true
            })
            .collect()
    }

    fn value(&self, id: usize) -> (Value, bool) {
        let n = &self.nodes[id];
        if n.first == NONE || n.last == NONE || n.last < n.first || n.last >= self.view.len() {
            return (Value::Null, true);
        }
        let lines = &self.view[n.first..=n.last];
        if n.first == n.last && n.own_line.is_some() && matches!(n.kind, NKind::Key | NKind::Item) {
            // One line: `key: value` or `- value` (most changes).
            let t = trim_blanks_end(lines[0].text);
            let body = t.get(n.col.min(t.len())..).unwrap_or("");
            let rest = match n.kind {
                NKind::Key => split_key(body).map(|(_, r)| r),
                _ => dash_rest(body).map(|(_, r)| r),
            };
            let simple =
                |r: &&str| !is_block_header(r) && split_key(r).is_none() && dash_rest(r).is_none();
            if let Some(rest) = rest.filter(simple) {
                return (parse_inline(rest), false);
            }
        }
        match n.kind {
            NKind::Key | NKind::Item if n.own_line.is_some() => {
                let mut texts: Vec<String> = Vec::with_capacity(lines.len());
                for (k, l) in lines.iter().enumerate() {
                    if k == 0 {
                        let t = l.text;
                        let start = n.col.min(t.len());
                        let body = t.get(start..).unwrap_or("");
                        let mut s = " ".repeat(n.col);
                        s.push_str(body);
                        texts.push(s);
                    } else {
                        texts.push(l.text.to_string());
                    }
                }
                let v = parse_block(&texts);
                let v = match (n.kind, v) {
                    (NKind::Key, Value::Object(m)) => {
                        m.into_iter().next().map(|(_, v)| v).unwrap_or(Value::Null)
                    }
                    (NKind::Item, Value::Array(a)) => a.into_iter().next().unwrap_or(Value::Null),
                    (_, other) => other,
                };
                let multi = n.last > n.first;
                let partial = n.open == Open::Scalar
                    && multi
                    && n.last + 1 == self.view.len()
                    && !self.view[n.last].changed;
                (v, partial)
            }
            NKind::Holder | NKind::Key | NKind::Item => {
                // A value whose first line the hunk does not show: the lines shown, as text.
                let min = lines
                    .iter()
                    .filter(|l| !l.text.trim().is_empty())
                    .map(|l| indent_of(l.text))
                    .min()
                    .unwrap_or(0);
                let text: Vec<&str> = lines
                    .iter()
                    .map(|l| {
                        let t = l.text.trim_end();
                        t.get(min.min(indent_of(t))..).unwrap_or("")
                    })
                    .collect();
                (Value::String(text.join("\n")), true)
            }
            _ => (Value::Null, true),
        }
    }

    fn first_changed_src(&self, id: usize) -> usize {
        let n = &self.nodes[id];
        if n.first != NONE && n.last != NONE {
            for l in self.view.iter().take(n.last + 1).skip(n.first) {
                if l.changed {
                    return l.src;
                }
            }
            if let Some(l) = self.view.get(n.first) {
                return l.src;
            }
        }
        0
    }

    fn path(&self, id: usize) -> Unit {
        // Walk up from the node; segments and identities are built leaf first, then reversed.
        let mut segs = Vec::new();
        let mut reason: Option<Reason> = None;
        let mut note = |r: Reason| {
            if reason.is_none_or(|cur| r.rank() < cur.rank()) {
                reason = Some(r);
            }
        };
        let mut full_id = FNV_OFFSET;
        let mut pos_id = FNV_OFFSET;
        let mut holder = false;
        let mut relative: Option<String> = None;
        let mut cur = id;
        let mut guard = 0;
        while cur != 0 && guard <= yaml::MAX_DEPTH * 2 + 4 {
            guard += 1;
            let n = &self.nodes[cur];
            let placed = self.placed.get(cur).copied().flatten();
            cur = n.parent;
            if n.misplaced {
                note(Reason::Misplaced);
            }
            match n.kind {
                NKind::Root => {}
                NKind::Key => {
                    let k = n.key.as_deref().unwrap_or_default();
                    if n.guessed {
                        note(Reason::Guessed);
                    }
                    push_id(&mut full_id, b'K', k.as_bytes());
                    push_id(&mut pos_id, b'K', k.as_bytes());
                    segs.push(Seg::Key(k.to_string()));
                }
                NKind::Item => {
                    let list = self.nodes.get(n.parent).and_then(|p| p.key.as_deref());
                    let key = merge_order(list)
                        .iter()
                        .find_map(|mk| n.merge.iter().find(|(k, _)| k == mk))
                        .cloned();
                    if n.index.is_none() {
                        note(Reason::Index);
                    }
                    if n.guessed {
                        note(Reason::Guessed);
                    }
                    match (&key, n.index) {
                        (Some((k, v)), _) => {
                            push_id(&mut full_id, b'M', k.as_bytes());
                            push_id(&mut full_id, b'=', v.to_string().as_bytes());
                        }
                        (None, Some(i)) => push_id(&mut full_id, b'I', &i.to_le_bytes()),
                        (None, None) => push_id(&mut full_id, b'?', b""),
                    }
                    match n.index {
                        Some(i) => push_id(&mut pos_id, b'I', &i.to_le_bytes()),
                        None => push_id(&mut pos_id, b'?', b""),
                    }
                    segs.push(Seg::Item {
                        index: n.index.or(placed),
                        key,
                    });
                }
                NKind::Anon => {
                    // Nothing above an unnamed ancestor can be placed, and a path starting below
                    // it would name a place that is not in the object: the change stays on the
                    // whole object (the root is the one place known), with the lines as its value.
                    note(Reason::Anon(n.col));
                    let mut below: Vec<Seg> = std::mem::take(&mut segs);
                    below.reverse();
                    if below.iter().any(|s| matches!(s, Seg::Key(_))) {
                        relative = Some(crate::path::dotted(&below));
                    }
                    break;
                }
                NKind::Holder => {
                    holder = true;
                    match &n.key {
                        Some(k) => {
                            note(Reason::HolderGuessed);
                            push_id(&mut full_id, b'K', k.as_bytes());
                            push_id(&mut pos_id, b'K', k.as_bytes());
                            segs.push(Seg::Key(k.to_string()));
                        }
                        None => {
                            note(Reason::HolderUnknown);
                            push_id(&mut full_id, b'H', b"");
                            push_id(&mut pos_id, b'H', b"");
                        }
                    }
                }
            }
        }
        segs.reverse();
        let (value, partial) = self.value(id);
        if partial && !holder {
            note(Reason::Partial);
        }
        Unit {
            segs,
            full_id,
            pos_id,
            value,
            reason,
            line: self.first_changed_src(id),
            relative,
        }
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// Fold one path step into an identity hash (FNV-1a): paths are compared, never shown.
fn push_id(id: &mut u64, tag: u8, bytes: &[u8]) {
    let mut h = *id;
    for &b in [0x01u8, tag].iter().chain(bytes) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    *id = h;
}

/// Why a path is uncertain; when several apply, the first in this order is told.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Reason {
    Anon(usize),
    HolderUnknown,
    Guessed,
    HolderGuessed,
    Misplaced,
    Index,
    Partial,
}

impl Reason {
    fn rank(self) -> u8 {
        match self {
            Reason::Anon(_) => 0,
            Reason::HolderUnknown => 1,
            Reason::Guessed => 2,
            Reason::HolderGuessed => 3,
            Reason::Misplaced => 4,
            Reason::Index => 5,
            Reason::Partial => 6,
        }
    }
}

struct PathContext<'k> {
    kind: &'k str,
    source: SeedSource,
}

fn note_for(r: Reason, ctx: &PathContext<'_>) -> String {
    let kind = if ctx.kind.is_empty() {
        "Kubernetes object"
    } else {
        ctx.kind
    };
    match r {
        Reason::Anon(col) => format!(
            "The hunk does not show the key at column {} that holds these lines, so where they sit in the object is unknown and the change is reported on the whole object.",
            col + 1
        ),
        Reason::HolderUnknown => {
            "The key holding this multi-line value is not shown, so the path stops at its parent and the value holds only the lines shown.".to_string()
        }
        Reason::Guessed => match ctx.source {
            SeedSource::Carry => {
                "The hunk does not show this field's parents; they were carried over from the previous hunk of the same resource.".to_string()
            }
            _ => format!("The hunk does not show this field's parents; they were guessed from the usual shape of a {kind}."),
        },
        Reason::HolderGuessed => {
            "The key holding this multi-line value is not shown; it was guessed from the value.".to_string()
        }
        Reason::Misplaced => "The indentation does not match the lines above it, so the path may be wrong.".to_string(),
        Reason::Index => "The list index is not shown because the hunk does not start at the top of the list.".to_string(),
        Reason::Partial => "Only part of this multi-line value is shown.".to_string(),
    }
}

#[derive(Default)]
struct Unit {
    segs: Vec<Seg>,
    full_id: u64,
    pos_id: u64,
    value: Value,
    reason: Option<Reason>,
    line: usize,
    /// For a change that cannot be placed: its place below the keys the hunk does not show.
    relative: Option<String>,
}

/// Pair the changed nodes of the two sides into changes.
fn changes(
    old: &Side<'_, '_, '_>,
    new: &Side<'_, '_, '_>,
    ctx: &PathContext<'_>,
    notes: &mut Vec<(Reason, SeedSource, String)>,
    out: &mut Vec<TextChange>,
) {
    let old_alone = !new.view.iter().any(|l| l.changed);
    let new_alone = !old.view.iter().any(|l| l.changed);
    let mut old_units: Vec<Unit> = old
        .units(old_alone)
        .into_iter()
        .map(|u| old.path(u))
        .collect();
    let mut new_units: Vec<Unit> = new
        .units(new_alone)
        .into_iter()
        .map(|u| new.path(u))
        .collect();
    let mut new_used = vec![false; new_units.len()];
    let mut pairs: Vec<(Option<usize>, Option<usize>)> = Vec::new();
    let mut old_used = vec![false; old_units.len()];
    for pass in 0..2 {
        let id = |u: &Unit| if pass == 0 { u.full_id } else { u.pos_id };
        let mut by_id: HashMap<u64, Vec<usize>> = HashMap::new();
        let small = old_units.len() * new_units.len() <= 64;
        if !small {
            for (k, u) in new_units.iter().enumerate().rev() {
                if !new_used[k] {
                    by_id.entry(id(u)).or_default().push(k);
                }
            }
        }
        for (i, u) in old_units.iter().enumerate() {
            if old_used[i] {
                continue;
            }
            let want = id(u);
            let found = if small {
                // Few units (the usual hunk): a direct search beats hashing.
                new_units
                    .iter()
                    .enumerate()
                    .position(|(k, v)| !new_used[k] && id(v) == want)
            } else {
                by_id.get_mut(&want).and_then(|v| v.pop())
            };
            if let Some(k) = found {
                old_used[i] = true;
                new_used[k] = true;
                pairs.push((Some(i), Some(k)));
            }
        }
    }
    for (i, used) in old_used.iter().enumerate() {
        if !used {
            pairs.push((Some(i), None));
        }
    }
    for (k, used) in new_used.iter().enumerate() {
        if !used {
            pairs.push((None, Some(k)));
        }
    }
    let start = out.len();
    for (o, n) in pairs {
        let ou = o.and_then(|i| old_units.get_mut(i)).map(std::mem::take);
        let nu = n.and_then(|k| new_units.get_mut(k)).map(std::mem::take);
        let line = match (&ou, &nu) {
            (Some(a), Some(b)) => a.line.min(b.line),
            (Some(a), None) => a.line,
            (None, Some(b)) => b.line,
            (None, None) => continue,
        };
        let relative = ou
            .as_ref()
            .and_then(|u| u.relative.clone())
            .or_else(|| nu.as_ref().and_then(|u| u.relative.clone()));
        let (path, reason, live) = match ou {
            Some(u) => (u.segs, u.reason, Some(u.value)),
            None => (Vec::new(), None, None),
        };
        let (path, reason, git) = match nu {
            Some(u) => {
                let reason = match (reason, u.reason) {
                    (Some(a), Some(b)) => Some(if b.rank() < a.rank() { b } else { a }),
                    (a, b) => a.or(b),
                };
                (
                    if live.is_some() { path } else { u.segs },
                    reason,
                    Some(u.value),
                )
            }
            None => (path, reason, None),
        };
        // The same few sentences repeat: write each once per resource.
        let note = reason.map(|r| {
            match notes
                .iter()
                .find(|(x, src, _)| *x == r && *src == ctx.source)
            {
                Some((_, _, text)) => text.clone(),
                None => {
                    let text = note_for(r, ctx);
                    notes.push((r, ctx.source, text.clone()));
                    text
                }
            }
        });
        let note = match (note, relative) {
            (Some(n), Some(rel)) if !rel.is_empty() => Some(format!(
                "{n} Below the keys not shown, its place reads `{rel}`."
            )),
            (n, _) => n,
        };
        out.push(TextChange {
            path,
            git,
            live,
            certain: note.is_none(),
            note,
            line,
            hidden: None,
        });
    }
    out[start..].sort_by_key(|c| c.line);
}

/// Whole-object value of one side (for resources present on one side only).
pub(crate) fn whole_object(view: &[ViewLine<'_>]) -> Value {
    let texts: Vec<&str> = view.iter().map(|l| l.text).collect();
    parse_block(&texts)
}
