//! Rule documentation as text: `drift-doctor explain` and the generated
//! catalogue (docs/rules.md).

use super::{Catalog, Rule};
use std::fmt::Write;

/// One rule's documentation with its fixed sections.
pub fn explain(rule: &Rule) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", rule.code, rule.title);
    let _ = writeln!(
        out,
        "cause: {}   confidence: {}",
        rule.cause.id(),
        rule.confidence.id()
    );
    if let Some(why) = &rule.retired {
        let _ = writeln!(out, "retired: {why}");
    }
    for (title, body) in sections(rule) {
        let _ = writeln!(out, "\n{title}\n  {}", body.trim().replace('\n', "\n  "));
    }
    out
}

fn sections(rule: &Rule) -> [(&'static str, &str); 6] {
    let d = &rule.docs;
    [
        ("What it means", d.meaning.as_str()),
        ("Who changes it", d.who.as_str()),
        ("Why it loops", d.why_loops.as_str()),
        ("How to fix it in Git", d.git_fix.as_str()),
        ("How to ignore it safely", d.ignore.as_str()),
        ("What the ignore could hide", d.risk.as_str()),
    ]
}

/// The whole catalogue as Markdown, kept in step with the data by a test.
pub fn catalogue_markdown(catalog: &Catalog) -> String {
    let mut out = String::from("# drift-doctor rule catalogue\n\nGenerated from `src/rules/catalog.yaml`; `drift-doctor explain CODE` prints the same text.\nRules are tried in this order; the first that matches decides the cause.\n\n| Code | Cause | Title |\n| --- | --- | --- |\n");
    for r in &catalog.rules {
        let title = if r.retired.is_some() {
            format!("{} (retired)", r.title)
        } else {
            r.title.clone()
        };
        let _ = writeln!(
            out,
            "| [{}](#{}) | `{}` | {} |",
            r.code,
            r.code.to_lowercase(),
            r.cause.id(),
            title
        );
    }
    for r in &catalog.rules {
        let _ = writeln!(
            out,
            "\n## {}\n\n**{}** · cause `{}` · confidence {}\n",
            r.code,
            r.title,
            r.cause.id(),
            r.confidence.id()
        );
        if let Some(why) = &r.retired {
            let _ = writeln!(out, "Retired: {why}\n");
        }
        for (title, body) in sections(r) {
            let _ = writeln!(out, "**{title}.** {}\n", body.trim());
        }
    }
    out
}
