//! Changes: the walked sides of a hunk placed into the partial live and desired objects (list
//! items by position, merge key or after the items already there), and the changed lines paired
//! into changes with their paths and how certain those are.
//!
//! Separate from the walk and the seeding, which only say where each line sits in the YAML; this
//! part decides what each change is and where it lands in the objects.

use std::collections::HashMap;

use serde_json::Value;

use super::seed::{choose_seed, Seeding};
use super::{merge_order, Frame, NKind, Open, SeedSource, ViewLine, Walker, NONE};
use crate::difftext::shape::Shape;
use crate::difftext::yaml::{
    self, dash_rest, indent_of, is_block_header, parse_block, parse_inline, split_key,
    trim_blanks_end,
};
use crate::difftext::{Seg, TextChange};

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
                // A multi-line value the hunk cuts off still names its key:
                // the lines shown stand for it until a fuller one arrives.
                let (value, partial) = self.value(id);
                let s = slot(obj, &here);
                if !partial || s.is_null() {
                    *s = value;
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
            alternatives: &seeding.alternatives,
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
    /// Other parents that fit the hunk's lines as well as the guessed ones.
    alternatives: &'k [String],
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
            _ if ctx.alternatives.is_empty() => format!("The hunk does not show this field's parents; they were guessed from the usual shape of a {kind}."),
            _ => format!(
                "The hunk does not show this field's parents, and nothing in the text tells which they are: the path shown is one guess from the usual shape of a {kind}, and these lines fit {} as well.",
                ctx.alternatives
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
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
    crate::sorting::sort_by_key(&mut out[start..], |c| c.line);
}

/// Whole-object value of one side (for resources present on one side only).
pub(crate) fn whole_object(view: &[ViewLine<'_>]) -> Value {
    let texts: Vec<&str> = view.iter().map(|l| l.text).collect();
    parse_block(&texts)
}
