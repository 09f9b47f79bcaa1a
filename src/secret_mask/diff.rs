//! Diff text (unified, `kubectl diff`, `argocd app diff`): the old and new sides are scanned separately.

use super::*;
use crate::diff_headers::{
    argo_header, kubectl_ident, normal_header, unified_context, unified_header,
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum SecKind {
    Secret,
    Other,
    Unknown,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum DKind {
    Header,
    Ctx,
    Old,
    New,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct DLine {
    pub(super) kind: DKind,
    /// Where the content starts (after the diff marker).
    pub(super) cstart: usize,
    pub(super) hunk: usize,
}

impl DLine {
    /// A header line (or any line that holds no side's content), starting at `cstart`.
    fn header(cstart: usize, hunk: usize) -> DLine {
        DLine {
            kind: DKind::Header,
            cstart,
            hunk,
        }
    }
}

pub(super) struct DiffCtx {
    pub(super) hunk_context: Vec<Option<String>>,
    pub(super) hunk_section: Vec<usize>,
    pub(super) section_header: Vec<Option<SecKind>>,
    pub(super) section_kind: Vec<SecKind>,
}

impl DiffCtx {
    pub(super) fn section_kind(&self, hunk: usize) -> SecKind {
        self.hunk_section
            .get(hunk)
            .and_then(|&s| self.section_kind.get(s))
            .copied()
            .unwrap_or(SecKind::Unknown)
    }

    pub(super) fn hunk_context(&self, hunk: usize) -> Option<&str> {
        self.hunk_context.get(hunk).and_then(|c| c.as_deref())
    }

    /// Open a hunk of `section` with its context text; its index.
    fn new_hunk(&mut self, context: Option<String>, section: usize) -> usize {
        self.hunk_context.push(context);
        self.hunk_section.push(section);
        self.hunk_context.len() - 1
    }
}

/// `@@ -a[,b] +c[,d] @@ context`: counts of old and new lines (unbounded when they cannot be read) and the
/// context text.
pub(super) fn parse_unified_header(s: &str) -> Option<(usize, usize, Option<String>)> {
    if !s.starts_with("@@") {
        return None;
    }
    Some(match unified_header(s) {
        Some(h) => (h.old_len, h.new_len, unified_context(s).map(str::to_string)),
        None => (usize::MAX / 4, usize::MAX / 4, None),
    })
}

/// Kind of a resource named by an Argo CD header (`===== group/Kind ns/name ======`).
pub(super) fn argo_header_kind(s: &str) -> Option<SecKind> {
    let (_, kind, _, _) = argo_header(s)?;
    Some(if is_secret_kind(&kind) {
        SecKind::Secret
    } else {
        SecKind::Other
    })
}

/// Kind of a resource named by a kubectl diff file name (`v1.Secret.ns.name`, `apps.v1.Deployment.ns.name`).
pub(super) fn file_kind(path: &str) -> Option<SecKind> {
    let (_, kind, _, _) = kubectl_ident(path)?;
    Some(if is_secret_kind(&kind) {
        SecKind::Secret
    } else {
        SecKind::Other
    })
}

pub(super) fn looks_like_diff(text: &str, raws: &[RawLine]) -> bool {
    let line = |i: usize| -> &str { raws.get(i).map_or("", |r| &text[r.start..r.end]) };
    (0..raws.len()).any(|i| {
        let s = line(i);
        (s.starts_with("@@ -")
            && parse_unified_header(s).is_some_and(|(o, _, _)| o < usize::MAX / 4))
            || argo_header(s).is_some()
            || (normal_header(s).is_some()
                && (line(i + 1).starts_with('<') || line(i + 1).starts_with('>')))
    })
}

pub(super) fn classify_diff_lines(text: &str, raws: &[RawLine]) -> (Vec<DLine>, DiffCtx) {
    let mut out = Vec::with_capacity(raws.len());
    let mut ctx = DiffCtx {
        hunk_context: vec![None],
        hunk_section: vec![0],
        section_header: vec![None],
        section_kind: Vec::new(),
    };
    let mut hunk = 0usize;
    let mut section = 0usize;
    let (mut rem_old, mut rem_new) = (0usize, 0usize);
    let mut in_normal = false;
    let mut seen_unified = false;
    let mut file_header_open = false;
    let new_section =
        |ctx: &mut DiffCtx, kind: Option<SecKind>, section: &mut usize, hunk: &mut usize| {
            ctx.section_header.push(kind);
            *section = ctx.section_header.len() - 1;
            *hunk = ctx.new_hunk(None, *section);
        };
    for (k, r) in raws.iter().enumerate() {
        let s = &text[r.start..r.end];
        let mut push = |kind: DKind, skip: usize| {
            out.push(DLine {
                kind,
                cstart: (r.start + skip).min(r.end),
                hunk,
            });
        };
        if rem_old > 0 || rem_new > 0 {
            match s.as_bytes().first() {
                None | Some(b' ') => {
                    rem_old = rem_old.saturating_sub(1);
                    rem_new = rem_new.saturating_sub(1);
                    push(DKind::Ctx, 1);
                    continue;
                }
                Some(b'-') => {
                    rem_old = rem_old.saturating_sub(1);
                    push(DKind::Old, 1);
                    continue;
                }
                Some(b'+') => {
                    rem_new = rem_new.saturating_sub(1);
                    push(DKind::New, 1);
                    continue;
                }
                Some(b'\\') => {
                    push(DKind::Header, 0);
                    continue;
                }
                _ => {
                    rem_old = 0;
                    rem_new = 0;
                }
            }
        }
        let next = raws.get(k + 1).map_or("", |n| &text[n.start..n.end]);
        if s.starts_with("@@") {
            if let Some((o, n, c)) = parse_unified_header(s) {
                hunk = ctx.new_hunk(c, section);
                rem_old = o;
                rem_new = n;
                in_normal = false;
                seen_unified = true;
                file_header_open = false;
                out.push(DLine::header(r.start, hunk));
                continue;
            }
        }
        if s.starts_with("diff ") || s.starts_with("Index: ") || argo_header(s).is_some() {
            let kind = if argo_header(s).is_some() {
                argo_header_kind(s)
            } else {
                s.split_whitespace().last().and_then(file_kind)
            };
            new_section(&mut ctx, kind, &mut section, &mut hunk);
            in_normal = false;
            file_header_open = true;
            out.push(DLine::header(r.start, hunk));
            continue;
        }
        if s.starts_with("--- ") && next.starts_with("+++ ") {
            if !file_header_open {
                let kind = s[4..].split_whitespace().next().and_then(file_kind);
                new_section(&mut ctx, kind, &mut section, &mut hunk);
            }
            file_header_open = true;
            in_normal = false;
            out.push(DLine::header(r.start, hunk));
            continue;
        }
        if s.starts_with("+++ ") && file_header_open {
            out.push(DLine::header(r.start, hunk));
            continue;
        }
        if normal_header(s).is_some() {
            hunk = ctx.new_hunk(None, section);
            in_normal = true;
            file_header_open = false;
            out.push(DLine::header(r.start, hunk));
            continue;
        }
        if in_normal {
            let b = s.as_bytes();
            let skip = if b.get(1) == Some(&b' ') { 2 } else { 1 };
            match b.first() {
                Some(b'<') => push(DKind::Old, skip),
                Some(b'>') => push(DKind::New, skip),
                _ => {
                    if s != "---" {
                        in_normal = false;
                    }
                    push(DKind::Header, 0);
                }
            }
            continue;
        }
        if seen_unified {
            match s.as_bytes().first() {
                Some(b' ') => push(DKind::Ctx, 1),
                Some(b'-') => push(DKind::Old, 1),
                Some(b'+') => push(DKind::New, 1),
                _ => push(DKind::Header, 0),
            }
            continue;
        }
        push(DKind::Header, 0);
    }
    // The kind of each file: its header, else the `kind:` lines of its content.
    let mut seen: Vec<(bool, bool)> = vec![(false, false); ctx.section_header.len()];
    for (d, r) in out.iter().zip(raws) {
        if d.kind == DKind::Header {
            continue;
        }
        let s = text.get(d.cstart..r.end).unwrap_or("");
        let ind = indent(s);
        let mut col = ind;
        let b = s.as_bytes();
        while col < b.len() && b[col] == b'-' && b.get(col + 1) == Some(&b' ') {
            col += 2;
            while col < b.len() && b[col] == b' ' {
                col += 1;
            }
        }
        if let Some((key, after)) = parse_key(s, col) {
            if key == "kind" {
                let v = simple_scalar(s[after..].trim_start());
                let sec = ctx.hunk_section.get(d.hunk).copied().unwrap_or(0);
                if let Some(slot) = seen.get_mut(sec) {
                    if is_secret_kind(&v) {
                        slot.0 = true;
                    } else if col == 0 {
                        slot.1 = true;
                    }
                }
            }
        }
    }
    ctx.section_kind = ctx
        .section_header
        .iter()
        .zip(&seen)
        .map(|(h, &(secret, other))| match h {
            // a visible `kind: Secret` wins over a header naming another kind
            _ if secret => SecKind::Secret,
            Some(k) => *k,
            None if other => SecKind::Other,
            None => SecKind::Unknown,
        })
        .collect();
    (out, ctx)
}

/// A replacement on one raw line: content bytes `[start, end)` become `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct LineEdit {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) text: String,
    pub(super) count: usize,
}

pub(super) fn mask_diff(text: &str, raws: &[RawLine], masks: &Masks) -> (String, usize) {
    let (dlines, ctx) = classify_diff_lines(text, raws);
    let side = |want: DKind| -> Vec<SLine> {
        dlines
            .iter()
            .zip(raws)
            .enumerate()
            .filter(|(_, (d, _))| d.kind == DKind::Ctx || d.kind == want)
            .map(|(i, (d, r))| SLine {
                start: d.cstart,
                end: r.end.max(d.cstart),
                hunk: d.hunk,
                raw: i,
            })
            .collect()
    };
    let mut per_line: [Vec<Vec<LineEdit>>; 2] =
        [vec![Vec::new(); raws.len()], vec![Vec::new(); raws.len()]];
    for (si, want) in [DKind::Old, DKind::New].into_iter().enumerate() {
        let lines = side(want);
        let mut scan = Scan::new(text, &lines, masks);
        scan.run();
        for m in scan.decide(Some(&ctx)) {
            let r = m.region;
            let Some(first) = lines.get(r.first) else {
                continue;
            };
            let first_end = if r.first == r.last { r.vend } else { first.end };
            per_line[si][first.raw].push(LineEdit {
                start: r.vstart,
                end: first_end,
                text: m.text,
                count: m.count,
            });
            for l in lines.iter().take(r.last + 1).skip(r.first + 1) {
                per_line[si][l.raw].push(LineEdit {
                    start: l.start,
                    end: l.end,
                    text: String::new(),
                    count: 0,
                });
            }
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut total = 0;
    for (i, (d, r)) in dlines.iter().zip(raws).enumerate() {
        let apply = |edits: &[LineEdit]| -> (String, usize) {
            let mut e = edits.to_vec();
            crate::sorting::sort_by_key(&mut e, |x| (x.start, std::cmp::Reverse(x.end)));
            let mut s = String::new();
            let mut pos = d.cstart;
            let mut n = 0;
            for x in e {
                if x.start < pos || x.end < x.start || x.end > r.end {
                    continue;
                }
                let Some(before) = text.get(pos..x.start) else {
                    continue;
                };
                if text.get(x.start..x.end).is_none() {
                    continue;
                }
                s.push_str(before);
                s.push_str(&x.text);
                pos = x.end;
                n += x.count;
            }
            s.push_str(text.get(pos..r.end).unwrap_or(""));
            (s, n)
        };
        let prefix = text.get(r.start..d.cstart).unwrap_or("");
        let eol = text.get(r.end..r.next).unwrap_or("");
        let (old, new) = (&per_line[0][i], &per_line[1][i]);
        match d.kind {
            DKind::Header => out.push_str(text.get(r.start..r.next).unwrap_or("")),
            DKind::Old | DKind::New => {
                let edits = if d.kind == DKind::Old { old } else { new };
                if edits.is_empty() {
                    out.push_str(text.get(r.start..r.next).unwrap_or(""));
                } else {
                    let (content, n) = apply(edits);
                    total += n;
                    out.push_str(prefix);
                    out.push_str(&content);
                    out.push_str(eol);
                }
            }
            DKind::Ctx => {
                if old.is_empty() && new.is_empty() {
                    out.push_str(text.get(r.start..r.next).unwrap_or(""));
                } else if old == new {
                    let (content, n) = apply(old);
                    total += n;
                    out.push_str(prefix);
                    out.push_str(&content);
                    out.push_str(eol);
                } else {
                    // The two sides mask this shared line differently: show it as removed and added.
                    let eol = if eol.is_empty() { "\n" } else { eol };
                    let (a, na) = apply(old);
                    let (b, nb) = apply(new);
                    total += na + nb;
                    out.push('-');
                    out.push_str(&a);
                    out.push_str(eol);
                    out.push('+');
                    out.push_str(&b);
                    out.push_str(text.get(r.end..r.next).unwrap_or(""));
                }
            }
        }
    }
    (out, total)
}
