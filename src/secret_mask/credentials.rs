//! Credentials in free text (log lines, event messages): a bearer or basic
//! token, the password of a URL (`https://user:pass@host`), and the value
//! after a key that names a secret (`password=`, `token:`, `apiKey=`,
//! `client_secret=`). Masked as Secret values are, with the same numbered
//! masks, so a quote tells two equal tokens apart from two different ones
//! and never shows either.

use super::{Masks, MASK_PREFIX};
use regex_lite::{Captures, Regex};
use std::sync::OnceLock;

fn rules() -> &'static [(Regex, usize)] {
    static CELL: OnceLock<Vec<(Regex, usize)>> = OnceLock::new();
    CELL.get_or_init(|| {
        [
            // Authorization schemes (RFC 6750 bearer, RFC 7617 basic).
            (r"(?i)(\b(?:bearer|basic)\s+)([A-Za-z0-9\-._~+/]{6,}=*)", 2),
            // userinfo of a URL (RFC 3986): scheme://user:password@host
            (r#"([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@'"<>]*:)([^\s@/'"<>]+)(@)"#, 2),
            // key=value or key: value where the key names a secret.
            (
                r#"(?i)(\b[A-Za-z0-9_.-]*(?:password|passwd|pwd|token|secret|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)["']?\s*[=:]\s*["']?)([^\s"'&,;)}\]<>]+)"#,
                2,
            ),
        ]
        .into_iter()
        .filter_map(|(src, group)| Regex::new(src).ok().map(|re| (re, group)))
        .collect()
    })
}

/// `text` with every credential replaced by its mask; masks already in it
/// stay as they are (so masking twice changes nothing).
pub fn mask_credentials(text: &str, masks: &Masks) -> String {
    let mut out = text.to_string();
    for (re, group) in rules() {
        if !re.is_match(&out) {
            continue;
        }
        out = re
            .replace_all(&out, |c: &Captures<'_>| {
                let whole = c.get(0).map_or("", |m| m.as_str());
                let Some(value) = c.get(*group) else {
                    return whole.to_string();
                };
                let start = value.start() - c.get(0).map_or(0, |m| m.start());
                let end = value.end() - c.get(0).map_or(0, |m| m.start());
                // A mask is not masked again, nor a placeholder that already hides the value.
                let v = value.as_str();
                if v.starts_with(MASK_PREFIX.trim_end())
                    || v.chars().all(|ch| ch == '*' || ch == 'x' || ch == 'X')
                {
                    return whole.to_string();
                }
                format!(
                    "{}{}{}",
                    &whole[..start],
                    masks.mask(v.as_bytes()),
                    &whole[end..]
                )
            })
            .into_owned();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_passwords_are_masked_once() {
        let masks = Masks::default();
        let text = "msg=\"GET https://bot:hunter2@git.example.com/repo.git\" Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc password=s3cret token: s3cret";
        let m = mask_credentials(text, &masks);
        for plain in ["hunter2", "eyJhbGciOiJIUzI1NiJ9", "s3cret"] {
            assert!(!m.contains(plain), "{m}");
        }
        assert!(m.contains("https://bot:<secret 2>@git.example.com"), "{m}");
        // The same value, the same mask.
        assert_eq!(m.matches("<secret 3>").count(), 2, "{m}");
        assert_eq!(mask_credentials(&m, &masks), m);
    }
}
