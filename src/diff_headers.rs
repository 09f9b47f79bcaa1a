//! The header lines of diff output, read the same way by the diff reader ([`crate::difftext`]) and by Secret
//! masking ([`crate::secret_mask`]): Argo CD's `===== group/Kind ns/name ======`, the file names `kubectl diff`
//! writes, unified `@@` hunk headers and normal `NcM` hunk headers.

#![warn(missing_docs)]

/// `===== group/Kind namespace/name ======`
pub fn argo_header(line: &str) -> Option<(String, String, String, String)> {
    let t = line.trim();
    if !t.starts_with("=====") || !t.ends_with("=====") {
        return None;
    }
    let inner = t.trim_matches('=').trim();
    let mut parts = inner.split_whitespace();
    let (Some(gk), Some(nn), None) = (parts.next(), parts.next(), parts.next()) else {
        return None;
    };
    let (group, kind) = gk.split_once('/')?;
    let (ns, name) = nn.split_once('/')?;
    if kind.is_empty() || name.is_empty() || kind.contains('/') || name.contains('/') {
        return None;
    }
    Some((
        group.to_string(),
        kind.to_string(),
        ns.to_string(),
        name.to_string(),
    ))
}

/// `[group.]version.Kind.namespace.name`, the file names `kubectl diff` writes.
pub fn kubectl_ident(path: &str) -> Option<(String, String, String, String)> {
    let file = path.rsplit(['/', '\\']).next()?;
    let parts: Vec<&str> = file.split('.').collect();
    for i in 0..parts.len() {
        let p = parts[i];
        let is_version = p.len() >= 2
            && p.starts_with('v')
            && p.as_bytes()[1].is_ascii_digit()
            && p[1..]
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .chars()
                .all(|c| c.is_ascii_alphanumeric());
        let kind_next = parts
            .get(i + 1)
            .is_some_and(|k| k.starts_with(|c: char| c.is_ascii_uppercase()));
        if is_version && kind_next && parts.len() >= i + 4 {
            let name = parts[i + 3..].join(".");
            if name.is_empty() {
                return None;
            }
            return Some((
                parts[..i].join("."),
                parts[i + 1].to_string(),
                parts[i + 2].to_string(),
                name,
            ));
        }
    }
    None
}

/// Where a unified hunk starts and how many lines it has on each side.
#[derive(Clone, Copy, Debug)]
pub struct UnifiedHeader {
    /// First line of the hunk in the old file.
    pub old_start: usize,
    /// Number of old lines the hunk covers.
    pub old_len: usize,
    /// First line of the hunk in the new file.
    pub new_start: usize,
    /// Number of new lines the hunk covers.
    pub new_len: usize,
    /// Whether the header ends with its closing `@@`; one cut off before it
    /// may have lost digits of its counts too.
    pub closed: bool,
}

fn parse_range(s: &str) -> Option<(usize, usize)> {
    match s.split_once(',') {
        Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
        None => Some((s.parse().ok()?, 1)),
    }
}

/// The text after a unified hunk header's closing `@@` (diff's `-p` context, e.g. `data:`), if any.
pub fn unified_context(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("@@ -")?;
    let (_, after) = rest.split_once(" @@")?;
    let ctx = after.trim();
    (!ctx.is_empty()).then_some(ctx)
}

/// `@@ -115,7 +115,7 @@`
pub fn unified_header(line: &str) -> Option<UnifiedHeader> {
    let rest = line.strip_prefix("@@ -")?;
    let closing = rest.find(" @@");
    let end = closing.unwrap_or_else(|| rest.trim_end_matches('@').trim_end().len());
    let (old, new) = rest.get(..end)?.split_once(" +")?;
    let (old_start, old_len) = parse_range(old.trim())?;
    let (new_start, new_len) = parse_range(new.trim())?;
    Some(UnifiedHeader {
        old_start,
        old_len,
        new_start,
        new_len,
        closed: closing.is_some(),
    })
}

/// A normal diff hunk: lines `a1..=a2` of the old file, the command (`a`, `c`, `d`), lines `b1..=b2` of the new.
#[derive(Clone, Copy, Debug)]
pub struct NormalHeader {
    /// First old line.
    pub a1: usize,
    /// Last old line.
    pub a2: usize,
    /// `a` (add), `c` (change) or `d` (delete).
    pub cmd: char,
    /// First new line.
    pub b1: usize,
    /// Last new line.
    pub b2: usize,
}

/// `12c12`, `0a1,21`, `1,12d0`
pub fn normal_header(line: &str) -> Option<NormalHeader> {
    let t = line.trim();
    // Its first range starts with a digit: most lines are told at once.
    if !t.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let pos = t.find(['a', 'c', 'd'])?;
    let cmd = t[pos..].chars().next()?;
    let range = |s: &str| -> Option<(usize, usize)> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit() || b == b',') {
            return None;
        }
        match s.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => {
                let a = s.parse().ok()?;
                Some((a, a))
            }
        }
    };
    let (a1, a2) = range(&t[..pos])?;
    let (b1, b2) = range(&t[pos + 1..])?;
    Some(NormalHeader {
        a1,
        a2,
        cmd,
        b1,
        b2,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_read_and_refused() {
        let argo = |l: &str| argo_header(l).map(|(g, k, n, m)| format!("{g}|{k}|{n}|{m}"));
        for (line, want) in [
            (
                "===== apps/Deployment shop/web ======",
                Some("apps|Deployment|shop|web"),
            ),
            ("===== /Secret /db ======", Some("|Secret||db")),
            ("===== /Secret ======", None),
            ("===== Secret db ======", None),
        ] {
            assert_eq!(argo(line).as_deref(), want, "{line}");
        }
        for (line, want) in [
            ("@@ -1,5 +1,6 @@ data:", Some((5, 6, Some("data:")))),
            ("@@ -3 +3 @@", Some((1, 1, None))),
            ("@@ -x +1 @@", None),
        ] {
            let got = unified_header(line).map(|h| (h.old_len, h.new_len, unified_context(line)));
            assert_eq!(got, want, "{line}");
        }
        for (line, want) in [
            ("12c12", Some('c')),
            ("0a1,21", Some('a')),
            ("1,12d0", Some('d')),
            ("  3d2 ", Some('d')),
            ("abc", None),
            ("d1", None),
            (",1c1", None),
        ] {
            assert_eq!(normal_header(line).map(|h| h.cmd), want, "{line}");
        }
    }
}
