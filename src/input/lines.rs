//! Line splitting for the input scans.

/// A text's lines, each with its line break (as `split_inclusive('\n')`
/// gives them): the stream, list and bookkeeping scans each walk every
/// line of both sides, and `memchr` finds the breaks many bytes at a time.
pub(super) fn lines_with_breaks(text: &str) -> impl Iterator<Item = &str> + '_ {
    let mut breaks = memchr::memchr_iter(b'\n', text.as_bytes());
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end = breaks.next().map_or(text.len(), |i| i + 1);
        let line = &text[start..end];
        start = end;
        Some(line)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_with_breaks_splits_as_split_inclusive_does() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "\n\nä\r\n€\n",
            "x\n\n  y: 1\n",
        ] {
            let ours: Vec<&str> = lines_with_breaks(text).collect();
            let std: Vec<&str> = text.split_inclusive('\n').collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }
}
