//! Seeding: guessing the ancestors a hunk does not show, from the usual shape of the kind, from
//! the previous hunk of the same resource and from the text itself, each candidate scored by how
//! many of the hunk's first lines it explains.
//!
//! Separate from the walk in the parent module, which only places lines below the ancestors it is
//! given.

use std::borrow::Cow;

use super::{Frame, NKind, Open, SeedSource, ViewLine, Walker, SCORE_LINES};
use crate::difftext::shape::{Hints, Shape};
use crate::difftext::yaml::{self, dash_rest, indent_of, split_key};

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

/// The `spec` node of a shape that knows nothing of it (an unknown kind's free-form spec).
fn free_form_spec(shape: &Shape) -> Option<usize> {
    let spec = shape.child(0, "spec")?;
    matches!(shape.nodes[spec].hints, Some(Hints::Any { .. })).then_some(spec)
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

pub(super) struct Seeding<'a> {
    pub(super) frames: Vec<Frame<'a>>,
    pub(super) source: SeedSource,
    /// Other ancestors from the kind's usual shape that explain the hunk's lines exactly as well
    /// (`readinessProbe` beside the chosen `livenessProbe`), by their keys.
    pub(super) alternatives: Vec<String>,
}

/// A seed chain's keys, dotted, `[]` for list items (`spec.template.spec.containers[]`).
fn chain_words(frames: &[Frame<'_>]) -> String {
    let mut out = String::new();
    for f in frames {
        match (&f.kind, &f.key) {
            (NKind::Item, _) => out.push_str("[]"),
            (_, Some(k)) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            _ => {}
        }
    }
    out
}

/// Choose the ancestors of the lines a hunk starts with.
///
/// `old` and `new` are the two sides; `all` is every line of the hunk once, in order (context,
/// removed and added lines), on which the candidates are scored.
pub(super) fn choose_seed<'s, 'a>(
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
            alternatives: Vec::new(),
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
        // Lines nested below a free-form map whose keys carry one of its known prefixes
        // (`f:annotations` under `f:metadata` of a managedFields entry's `fieldsV1`, whose
        // FieldsV1 encoding nests): the map's own ancestors, then unnamed levels down to the key.
        if let First::Key(c) = *first {
            for &n in &shape.declared {
                let nd = &shape.nodes[n];
                let Some(Hints::Any { likely, .. }) = &nd.hints else {
                    continue;
                };
                if nd.child_col >= c || !usable(n) || !likely.iter().any(|p| text.starts_with(p)) {
                    continue;
                }
                let mut chain = chain_for(shape, n);
                let mut col = nd.child_col;
                while col < c {
                    let mut f = Frame::new(NKind::Anon, col, col + 2);
                    f.guessed = true;
                    f.seeded = true;
                    chain.push(f);
                    col += 2;
                }
                if !candidates.iter().any(|(x, _)| same_chain(x, &chain)) {
                    candidates.push((chain, SeedSource::Table));
                }
            }
        }
        // A custom resource's lines below the top level whose parents the hunk does not show
        // (`  - api.example.org` of a Certificate's `dnsNames`, then `  duration:`): not in
        // `metadata` nor `status` by their keys, so in the free-form `spec` of an unknown kind.
        if let Some(spec) = free_form_spec(shape) {
            let mut chain = anon_for(*first);
            if chain.first().is_some_and(|f| f.col == 0) {
                chain[0] = chain_for(shape, spec).remove(0);
                if !candidates.iter().any(|(c, _)| same_chain(c, &chain)) {
                    candidates.push((chain, SeedSource::Table));
                }
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
    let mut totals = Vec::with_capacity(candidates.len());
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
        totals.push(total);
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
            alternatives: Vec::new(),
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
    let chosen = chain_words(&candidates[idx].0);
    let mut alternatives: Vec<String> = candidates
        .iter()
        .zip(&totals)
        .enumerate()
        .filter(|(i, ((_, src), total))| {
            *i != idx && *src == SeedSource::Table && **total == score && score > 0
        })
        .map(|(_, ((frames, _), _))| chain_words(frames))
        .filter(|words| !words.is_empty() && *words != chosen)
        .collect();
    crate::sorting::sort(&mut alternatives);
    alternatives.dedup();
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
    if source != SeedSource::Table {
        alternatives.clear();
    }
    Seeding {
        frames,
        source,
        alternatives,
    }
}
