//! The partial-object builder: one resource's hunks turned into changes and partial live and
//! desired objects, then the changes regrouped (whole label and annotation maps split per key,
//! reordered lists joined, `kubectl diff` bookkeeping marked).
//!
//! Separate from the hunk reader (`hunks`): this part starts from hunks already read and works on
//! YAML paths and values.

use serde_json::Value;

use super::hunks::{RawHunk, Tag};
use super::paths::{self, ViewLine, Workspace};
use super::{shape, yaml, Presence, Seg, TextChange, TextFormat, TextResource};

pub(super) struct Builder<'a> {
    group: String,
    kind: String,
    namespace: String,
    name: String,
    pub(super) anonymous: bool,
    pub(super) format: TextFormat,
    pub(super) line: usize,
    pub(super) file_header: bool,
    pub(super) presence: Option<Presence>,
    pub(super) hunks: Vec<RawHunk<'a>>,
}

impl<'a> Builder<'a> {
    pub(super) fn new(
        group: String,
        kind: String,
        namespace: String,
        name: String,
        format: TextFormat,
        line: usize,
    ) -> Self {
        Builder {
            group,
            kind,
            namespace,
            name,
            anonymous: false,
            format,
            line,
            file_header: false,
            presence: None,
            hunks: Vec::new(),
        }
    }

    pub(super) fn anonymous(format: TextFormat, line: usize, name: Option<String>) -> Self {
        let mut b = Builder::new(
            String::new(),
            String::new(),
            String::new(),
            name.unwrap_or_default(),
            format,
            line,
        );
        b.anonymous = true;
        b
    }

    pub(super) fn describe(&self) -> String {
        if self.kind.is_empty() && self.name.is_empty() {
            "the diff above".to_string()
        } else {
            format!(
                "{}/{} {}/{}",
                self.group, self.kind, self.namespace, self.name
            )
        }
    }

    /// Fill in kind, name, … from the YAML when no header named the resource.
    fn identify_from_content(&mut self) {
        let mut top = "";
        for h in &self.hunks {
            for l in &h.lines {
                let t = l.text.trim_end();
                let col = yaml::indent_of(t);
                let Some((key, rest)) = yaml::split_key(&t[col..]) else {
                    continue;
                };
                let value = || match yaml::parse_inline(rest) {
                    Value::String(s) => s,
                    _ => String::new(),
                };
                if col == 0 {
                    match key.as_ref() {
                        "kind" if self.kind.is_empty() => self.kind = value(),
                        "apiVersion" if self.group.is_empty() => {
                            self.group = value()
                                .split_once('/')
                                .map(|(g, _)| g.to_string())
                                .unwrap_or_default()
                        }
                        "metadata" => top = "metadata",
                        _ => top = "",
                    }
                } else if col == 2 && top == "metadata" {
                    match key.as_ref() {
                        "name" if self.name.is_empty() => self.name = value(),
                        "namespace" if self.namespace.is_empty() => self.namespace = value(),
                        _ => {}
                    }
                }
            }
        }
    }

    pub(super) fn finish(mut self) -> TextResource {
        if self.anonymous {
            self.identify_from_content();
        }
        let mut res = TextResource {
            group: self.group.clone(),
            kind: self.kind.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            format: self.format,
            presence: self.presence.unwrap_or(Presence::Both),
            changes: Vec::new(),
            git_object: None,
            live_object: None,
            line: self.line,
        };
        if self.presence.is_some() {
            return res;
        }
        let shape = shape::shape_for_resource(&self.group, &self.kind);
        let allow_status = self.format == TextFormat::KubectlUnified;
        if let [only] = self.hunks.as_slice() {
            let whole_add = only.old_len == 0 && only.old_start == 0 && only.new_len > 0;
            let whole_del = only.new_len == 0 && only.new_start == 0 && only.old_len > 0;
            if whole_add || whole_del {
                let tag = if whole_add { Tag::Add } else { Tag::Del };
                let view: Vec<ViewLine<'_>> = only
                    .lines
                    .iter()
                    .filter(|l| l.tag == tag)
                    .map(|l| ViewLine {
                        text: l.text,
                        changed: true,
                        src: l.src,
                    })
                    .collect();
                let object = paths::whole_object(&view);
                let line = view.first().map(|l| l.src).unwrap_or(self.line);
                let change = TextChange {
                    path: Vec::new(),
                    git: whole_add.then(|| object.clone()),
                    live: whole_del.then(|| object.clone()),
                    certain: true,
                    note: None,
                    line,
                    hidden: None,
                };
                if whole_add {
                    res.presence = Presence::GitOnly;
                    res.git_object = Some(object);
                } else {
                    res.presence = Presence::LiveOnly;
                    res.live_object = Some(object);
                }
                res.changes.push(change);
                return res;
            }
        }
        let mut work = Workspace::new(shape, allow_status);
        let (mut old, mut new, mut all) = (Vec::new(), Vec::new(), Vec::new());
        let mut previous_end: Option<usize> = None;
        for hunk in &self.hunks {
            // Plain diff shows no context: a hunk starting at most two unseen lines after the
            // previous one most likely continues the same list item.
            let no_context = hunk.lines.iter().all(|l| l.tag != Tag::Ctx);
            let near = no_context
                && previous_end.is_some_and(|end| {
                    hunk.old_start > end && hunk.old_start <= end + 3 && hunk.old_len > 0
                });
            previous_end = Some(hunk.old_start + hunk.old_len.saturating_sub(1));
            old.clear();
            new.clear();
            all.clear();
            for l in &hunk.lines {
                let changed = l.tag != Tag::Ctx;
                let line = ViewLine {
                    text: l.text,
                    changed,
                    src: l.src,
                };
                all.push(line);
                if l.tag != Tag::Add {
                    old.push(line);
                }
                if l.tag != Tag::Del {
                    new.push(line);
                }
            }
            let first = res.changes.len();
            work.hunk(&old, &new, &all, &self.kind, near, &mut res.changes);
            if self.format == TextFormat::KubectlUnified {
                for c in &mut res.changes[first..] {
                    c.hidden = kubectl_bookkeeping(&c.path);
                }
            }
            if hunk.is_cut() {
                for c in &mut res.changes[first..] {
                    c.certain = false;
                    c.note.get_or_insert_with(|| {
                        "The hunk is cut off before its end, so this change may be incomplete."
                            .to_string()
                    });
                }
            }
        }
        res.changes = split_whole_maps(std::mem::take(&mut res.changes));
        res.changes = split_grown_items(std::mem::take(&mut res.changes));
        res.changes = join_reorderings(std::mem::take(&mut res.changes), &work.git, &work.live);
        let identity = |mut obj: Value| {
            if let Value::Object(m) = &mut obj {
                m.entry("kind")
                    .or_insert_with(|| Value::String(self.kind.clone()));
                let meta = m
                    .entry("metadata")
                    .or_insert_with(|| Value::Object(serde_json::Map::new()));
                if let Value::Object(meta) = meta {
                    meta.entry("name")
                        .or_insert_with(|| Value::String(self.name.clone()));
                    if !self.namespace.is_empty() {
                        meta.entry("namespace")
                            .or_insert_with(|| Value::String(self.namespace.clone()));
                    }
                }
            }
            obj
        };
        let (mut git, mut live) = (work.git, work.live);
        // The last-applied configuration a hunk shows is a whole earlier desired object: it fills
        // in what the lines around the changes do not show (labels, an HPA's target), never
        // overriding a line the text shows.
        let applied = [&live, &git].into_iter().find_map(crate::k8s::last_applied);
        if let Some(applied) = applied {
            fill_missing(&mut git, &applied, 0);
            fill_missing(&mut live, &applied, 0);
        }
        res.git_object = Some(identity(git));
        res.live_object = Some(identity(live));
        res
    }
}

/// The same items in another order (as the HPA controller stores `spec.metrics`).
fn is_reordering(git: &[Value], live: &[Value]) -> bool {
    if git.len() != live.len() || git.len() < 2 || git == live {
        return false;
    }
    let mut used = vec![false; live.len()];
    git.iter().all(|g| {
        match live
            .iter()
            .enumerate()
            .position(|(i, l)| !used[i] && l == g)
        {
            Some(i) => {
                used[i] = true;
                true
            }
            None => false,
        }
    })
}

/// Changes inside a list whose shown items are the same on both sides in another order are one
/// change of the list: a reordering, not edits of each item.
fn join_reorderings(changes: Vec<TextChange>, git: &Value, live: &Value) -> Vec<TextChange> {
    // Each list is judged once, however many changes it holds; very long lists are not judged
    // (comparing every item with every other would cost more than the answer is worth).
    const MAX_ITEMS: usize = 500;
    let mut judged: std::collections::HashMap<String, bool> = std::collections::HashMap::new();
    let mut reordered = |c: &TextChange| -> Option<usize> {
        (0..c.path.len()).find(|&i| {
            if !matches!(c.path[i], Seg::Item { .. }) {
                return false;
            }
            let ptr = crate::path::pointer(&c.path[..i]);
            *judged.entry(ptr).or_insert_with_key(|ptr| {
                matches!(
                    (git.pointer(ptr), live.pointer(ptr)),
                    (Some(Value::Array(g)), Some(Value::Array(l)))
                        if g.len() <= MAX_ITEMS && is_reordering(g, l)
                )
            })
        })
    };
    let mut out: Vec<TextChange> = Vec::with_capacity(changes.len());
    let mut joined_at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for c in changes {
        let Some(len) = reordered(&c) else {
            out.push(c);
            continue;
        };
        let list = c.path[..len].to_vec();
        let ptr = crate::path::pointer(&list);
        if let Some(joined) = joined_at.get(&ptr).and_then(|&i| out.get_mut(i)) {
            joined.line = joined.line.min(c.line);
            joined.certain &= c.certain;
            if joined.note.is_none() {
                joined.note = c.note;
            }
            continue;
        }
        joined_at.insert(ptr.clone(), out.len());
        out.push(TextChange {
            git: git.pointer(&ptr).cloned(),
            live: live.pointer(&ptr).cloned(),
            path: list,
            certain: c.certain,
            note: c.note,
            line: c.line,
            hidden: c.hidden,
        });
    }
    out
}

impl TextChange {
    /// The change of one field `key` under this change's path, with its
    /// value on one side (Git when `on_git`), as sure as this one.
    fn field(&self, key: String, value: Value, on_git: bool) -> TextChange {
        let mut path = self.path.clone();
        path.push(Seg::Key(key));
        TextChange {
            path,
            git: on_git.then(|| value.clone()),
            live: (!on_git).then_some(value),
            certain: self.certain,
            note: self.note.clone(),
            line: self.line,
            hidden: self.hidden.clone(),
        }
    }
}

/// A whole `annotations` or `labels` map added or removed is one change per key: each key has its
/// own writer (a restart stamp next to a team label), and an ignore rule on the whole map would
/// hide every other key.
fn split_whole_maps(changes: Vec<TextChange>) -> Vec<TextChange> {
    let mut out = Vec::with_capacity(changes.len());
    for c in changes {
        let free_form = matches!(
            c.path.last(),
            Some(Seg::Key(k)) if k == "annotations" || k == "labels"
        );
        let map = match (&c.git, &c.live) {
            (Some(Value::Object(m)), None) | (None, Some(Value::Object(m))) if free_form => {
                Some(m.clone())
            }
            _ => None,
        };
        let Some(map) = map.filter(|m| !m.is_empty()) else {
            out.push(c);
            continue;
        };
        let on_git = c.git.is_some();
        for (k, v) in map {
            out.push(c.field(k, v, on_git));
        }
    }
    out
}

/// A list item shown changed whose one side holds every field of the other,
/// with the same values, only grew or shrank by those fields (an empty value
/// written before the item's first key moves that line, so the item looks
/// changed as a whole): one change per field it gained or lost. A line
/// removed and written again the same (that moved first key) is no change.
fn split_grown_items(changes: Vec<TextChange>) -> Vec<TextChange> {
    let mut out = Vec::with_capacity(changes.len());
    for c in changes {
        if c.git.is_some() && c.git == c.live {
            continue;
        }
        let item = matches!(c.path.last(), Some(Seg::Item { .. }));
        let (Some(Value::Object(git)), Some(Value::Object(live))) = (&c.git, &c.live) else {
            out.push(c);
            continue;
        };
        let within = |a: &serde_json::Map<String, Value>, b: &serde_json::Map<String, Value>| {
            a.iter().all(|(k, v)| b.get(k) == Some(v))
        };
        if !item || git == live || !(within(git, live) || within(live, git)) {
            out.push(c);
            continue;
        }
        let extra = |from: &serde_json::Map<String, Value>,
                     other: &serde_json::Map<String, Value>| {
            from.iter()
                .filter(|(k, _)| !other.contains_key(*k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Vec<_>>()
        };
        let (git_only, live_only) = (extra(git, live), extra(live, git));
        for (k, v, on_git) in git_only
            .into_iter()
            .map(|(k, v)| (k, v, true))
            .chain(live_only.into_iter().map(|(k, v)| (k, v, false)))
        {
            out.push(c.field(k, v, on_git));
        }
    }
    out
}

/// Add the keys of `from` that `to` lacks, recursively through maps (lists are taken whole only
/// when missing: their items' order and count are not known to match).
fn fill_missing(to: &mut Value, from: &Value, depth: usize) {
    if depth > yaml::MAX_DEPTH {
        return;
    }
    let (Value::Object(to), Value::Object(from)) = (to, from) else {
        return;
    };
    for (k, v) in from {
        match to.get_mut(k) {
            // A key shown without its value (`annotations:` as the last line of a hunk) is missing too.
            None | Some(Value::Null) => {
                to.insert(k.clone(), v.clone());
            }
            Some(existing) => fill_missing(existing, v, depth + 1),
        }
    }
}

/// Why a change `kubectl diff` prints is bookkeeping rather than a difference: its right side is the API
/// server's dry-run answer, which bumps `metadata.generation` on every spec change and writes a new
/// `resourceVersion` and new `managedFields` times. Argo CD compares none of them.
fn kubectl_bookkeeping(path: &[Seg]) -> Option<crate::HiddenReason> {
    use crate::Bookkeeping;
    let key = |i: usize| match path.get(i) {
        Some(Seg::Key(k)) => Some(k.as_str()),
        _ => None,
    };
    if key(0) != Some("metadata") {
        return None;
    }
    let field = match key(1)? {
        "generation" if path.len() == 2 => Bookkeeping::Generation,
        "resourceVersion" if path.len() == 2 => Bookkeeping::ResourceVersion,
        "managedFields" => Bookkeeping::ManagedFields,
        "annotations" if matches!(path.get(2), Some(Seg::Key(k)) if k == "kubectl.kubernetes.io/last-applied-configuration") => {
            Bookkeeping::LastApplied
        }
        _ => return None,
    };
    Some(crate::HiddenReason::DiffBookkeeping(field))
}
