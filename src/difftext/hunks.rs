//! The header and hunk reader: cleaning pasted lines, telling diff lines from the text around
//! them, and reading the lines of one hunk (unified or normal format) with their markers.
//!
//! Separate from the resource builder (`objects`): this part only knows diff syntax, never YAML
//! paths or objects.

use std::borrow::Cow;

use crate::diff_headers::{NormalHeader, UnifiedHeader};

/// Drop the `\r` of CRLF text, trailing blanks, terminal colour codes, and non-breaking spaces used as
/// indentation by web pages.
pub(super) fn clean_line(raw: &str) -> Cow<'_, str> {
    let trimmed = raw.trim_end_matches(['\r', ' ', '\t']);
    let mut s: Cow<'_, str> = Cow::Borrowed(trimmed);
    if s.contains('\u{1b}') {
        let mut out = String::with_capacity(s.len());
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                if chars.peek() == Some(&'[') {
                    chars.next();
                    for d in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&d) {
                            break;
                        }
                    }
                }
                continue;
            }
            out.push(c);
        }
        s = Cow::Owned(out.trim_end().to_string());
    }
    if s.contains('\u{a0}') {
        let mut out = String::with_capacity(s.len());
        let mut leading = true;
        for (k, c) in s.chars().enumerate() {
            if leading && c == '\u{a0}' {
                out.push(' ');
                continue;
            }
            if !(c == ' ' || (k == 0 && matches!(c, '<' | '>' | '+' | '-'))) {
                leading = false;
            }
            out.push(c);
        }
        s = Cow::Owned(out);
    }
    s
}

/// `argocd app sync --preview-changes` wrapper lines.
pub(super) fn is_wrapper(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("======")
        && (t.contains("Previewing differences between live and desired state")
            || t.contains("No Differences found"))
}

/// `diff [options] LEFT RIGHT`
pub(super) fn diff_command(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("diff ")?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    if words.len() < 2 {
        return None;
    }
    let left = words[words.len() - 2];
    let right = words[words.len() - 1];
    if left.starts_with('-') || right.starts_with('-') {
        return None;
    }
    Some((left, right))
}

/// The path on a `---`/`+++` line (a tab, or spaces where a paste lost it, precede the timestamp).
pub(super) fn file_token(rest: &str) -> &str {
    rest.split_whitespace().next().unwrap_or("")
}

/// The resource name in `/tmp/argocd-diffNNN/<name>-live.yaml`.
pub(super) fn argo_file_name(path: &str) -> Option<String> {
    let file = path.rsplit(['/', '\\']).next()?;
    let dir_ok = path.contains("argocd-diff");
    let name = file.strip_suffix("-live.yaml").unwrap_or(file);
    (dir_ok && !name.is_empty()).then(|| name.to_string())
}

/// `Only in /tmp/LIVE-123: apps.v1.Deployment.default.web`
pub(super) fn only_in(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("Only in ")?;
    let (dir, file) = rest.split_once(": ")?;
    Some((dir, file.trim()))
}

pub(super) enum Noise {
    No,
    /// Text that is not a diff and says nothing about it.
    Skip,
    /// A new command starts: what follows until the next diff may be any text.
    Prompt,
}

pub(super) fn noise(line: &str) -> Noise {
    let t = line.trim_start();
    if t.starts_with("$ ")
        || t == "$"
        || t.starts_with("% ")
        || t.starts_with('#')
        || t.starts_with("PS ")
        || t.starts_with("argocd ")
        || t.starts_with("kubectl ")
        || t.starts_with("KUBECTL_EXTERNAL_DIFF")
        || [
            "$ argocd",
            "$ kubectl",
            "> argocd",
            "> kubectl",
            "# argocd",
            "# kubectl",
            "% argocd",
            "% kubectl",
        ]
        .iter()
        .any(|p| t.contains(p))
        || t.starts_with("Please review changes to application")
    {
        return Noise::Prompt;
    }
    let skip_prefixes = [
        "\\ No newline",
        "```",
        "~~~",
        "Warning:",
        "warning:",
        "WARNING:",
        "error:",
        "Error:",
        "ERROR:",
        "time=\"",
        "command terminated with exit code",
        "exit status ",
        "Exit code",
        // `git diff` extended header lines.
        "index ",
        "new file mode",
        "deleted file mode",
        "old mode",
        "new mode",
        "similarity index",
        "rename from",
        "rename to",
    ];
    if skip_prefixes.iter().any(|p| t.starts_with(p))
        || matches!(t, "..." | "…" | "[...]" | "(...)" | "[…]")
    {
        return Noise::Skip;
    }
    let b = t.as_bytes();
    // logrus (`INFO[0001] …`) and klog (`W0110 10:00:00.000000 …`) lines.
    if b.len() > 5 && b[..4].iter().all(u8::is_ascii_uppercase) && b[4] == b'[' {
        return Noise::Skip;
    }
    if b.len() > 6
        && matches!(b[0], b'I' | b'W' | b'E' | b'F')
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5] == b' '
    {
        return Noise::Skip;
    }
    Noise::No
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Tag {
    Ctx,
    Del,
    Add,
}

pub(super) struct HLine<'a> {
    pub(super) tag: Tag,
    pub(super) text: &'a str,
    pub(super) src: usize,
}

pub(super) struct RawHunk<'a> {
    pub(super) old_start: usize,
    pub(super) old_len: usize,
    pub(super) new_start: usize,
    pub(super) new_len: usize,
    pub(super) lines: Vec<HLine<'a>>,
    /// 1-based line of the hunk header.
    pub(super) header_line: usize,
}

impl RawHunk<'_> {
    /// Lines of the old and new side shown.
    fn shown(&self) -> (usize, usize) {
        let old = self.lines.iter().filter(|l| l.tag != Tag::Add).count();
        let new = self.lines.iter().filter(|l| l.tag != Tag::Del).count();
        (old, new)
    }

    /// The longer side shown, to set against the longer side announced.
    pub(super) fn shown_span(&self) -> usize {
        let (old, new) = self.shown();
        old.max(new)
    }

    /// The text ends (or the next output starts) before the lines the header announced.
    pub(super) fn is_cut(&self) -> bool {
        let (old, new) = self.shown();
        old < self.old_len || new < self.new_len
    }
}

/// The YAML after a one-character diff marker (and the space or tab some diffs put after it).
fn after_marker(line: &str, space: bool) -> &str {
    let rest = line.get(1..).unwrap_or("");
    if space {
        rest.strip_prefix([' ', '\t']).unwrap_or(rest)
    } else {
        rest.strip_prefix('\t').unwrap_or(rest)
    }
}

pub(super) fn read_unified<'a>(
    lines: &'a [Cow<'a, str>],
    i: usize,
    h: UnifiedHeader,
) -> (RawHunk<'a>, usize) {
    let mut out = Vec::new();
    let (mut ro, mut rn) = (h.old_len, h.new_len);
    let mut j = i + 1;
    while j < lines.len() && (ro > 0 || rn > 0) {
        let l: &str = &lines[j];
        let src = j + 1;
        match l.as_bytes().first() {
            Some(b'\\') => {}
            // An empty context line (a blank YAML line whose marker space was trimmed), unless only
            // blank lines follow: then the text simply ends there.
            None if ro > 0
                && rn > 0
                && lines[j + 1..].iter().take(ro + rn).any(|l| !l.is_empty()) =>
            {
                out.push(HLine {
                    tag: Tag::Ctx,
                    text: "",
                    src,
                });
                ro -= 1;
                rn -= 1;
            }
            Some(b' ') if ro > 0 && rn > 0 => {
                out.push(HLine {
                    tag: Tag::Ctx,
                    text: &l[1..],
                    src,
                });
                ro -= 1;
                rn -= 1;
            }
            Some(b'-') if ro > 0 => {
                out.push(HLine {
                    tag: Tag::Del,
                    text: after_marker(l, false),
                    src,
                });
                ro -= 1;
            }
            Some(b'+') if rn > 0 => {
                out.push(HLine {
                    tag: Tag::Add,
                    text: after_marker(l, false),
                    src,
                });
                rn -= 1;
            }
            _ => break,
        }
        j += 1;
    }
    while lines.get(j).is_some_and(|l| l.starts_with('\\')) {
        j += 1;
    }
    let hunk = RawHunk {
        old_start: h.old_start,
        old_len: h.old_len,
        new_start: h.new_start,
        new_len: h.new_len,
        lines: out,
        header_line: i + 1,
    };
    (hunk, j)
}

pub(super) fn read_normal<'a>(
    lines: &'a [Cow<'a, str>],
    i: usize,
    h: NormalHeader,
) -> (RawHunk<'a>, usize) {
    let mut out = Vec::new();
    let mut j = i + 1;
    if h.cmd != 'a' {
        while let Some(l) = lines.get(j) {
            if l.starts_with('<') {
                out.push(HLine {
                    tag: Tag::Del,
                    text: after_marker(l, true),
                    src: j + 1,
                });
            } else if !l.starts_with('\\') {
                break;
            }
            j += 1;
        }
    }
    if h.cmd == 'c' && lines.get(j).is_some_and(|l| l.as_ref() == "---") {
        j += 1;
    }
    if h.cmd != 'd' {
        while let Some(l) = lines.get(j) {
            if l.starts_with('>') {
                out.push(HLine {
                    tag: Tag::Add,
                    text: after_marker(l, true),
                    src: j + 1,
                });
            } else if !l.starts_with('\\') {
                break;
            }
            j += 1;
        }
    }
    let span = |a: usize, b: usize| b.saturating_sub(a) + 1;
    let (old_start, old_len) = if h.cmd == 'a' {
        (h.a1, 0)
    } else {
        (h.a1, span(h.a1, h.a2))
    };
    let (new_start, new_len) = if h.cmd == 'd' {
        (h.b1, 0)
    } else {
        (h.b1, span(h.b1, h.b2))
    };
    (
        RawHunk {
            old_start,
            old_len,
            new_start,
            new_len,
            lines: out,
            header_line: i + 1,
        },
        j,
    )
}
