//! Input errors on the page.

use super::*;

/// Errors point at the cause: a tab used for indentation is named, with
/// its line; an unclosed quote is reported at the opening quote.
#[test]
fn page_errors_point_at_the_cause() {
    with_page("errors", |c, _| async move {
        let (git, live) = (fixture("mixed-app", "git"), fixture("mixed-app", "live"));
        let base = live.lines().count();
        for (extra, line, word) in [
            ("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: tabbed\n", 5, "tab"),
            (
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"quoted\ndata:\n  k: v\n",
                5,
                "quote",
            ),
        ] {
            let text = format!("{live}{extra}");
            let before = js(&c, "return document.getElementById('live-error').textContent;", vec![]).await;
            paste(&c, &git, &text, "insertFromPaste").await;
            wait_until(
                &c,
                &format!("document.getElementById('live-error').textContent !== '' && document.getElementById('live-error').textContent !== {before}"),
                "the live error",
                30,
            )
            .await;
            let shown = js(&c, "return document.getElementById('live-error').textContent;", vec![]).await;
            let shown = shown.as_str().unwrap();
            assert!(
                shown.starts_with(&format!("Line {},", base + line)) && shown.to_lowercase().contains(word),
                "{word}: the error names line {} and the {word}: {shown}",
                base + line
            );
        }
    });
}
