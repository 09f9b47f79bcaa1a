//! Rule documentation as text: `drift-doctor explain` and the generated
//! catalogue (docs/rules.md).

use super::checks::Check;
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
    for (title, body) in rule.docs.sections() {
        let _ = writeln!(out, "\n{title}\n  {}", body.trim().replace('\n', "\n  "));
    }
    out
}

/// One check's documentation, as `drift-doctor explain CK001` prints it.
pub fn explain_check(check: &Check) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", check.code, check.title);
    let _ = writeln!(
        out,
        "check of `drift-doctor check`   level: {}   cause once synced: {}",
        check.level.id(),
        check.cause.id()
    );
    if !check.loops_as.is_empty() {
        let _ = writeln!(
            out,
            "explained once it loops by: {}",
            check.loops_as.join(", ")
        );
    }
    for (title, body) in check.docs.sections() {
        let _ = writeln!(out, "\n{title}\n  {}", body.trim().replace('\n', "\n  "));
    }
    out
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
        for (title, body) in r.docs.sections() {
            let _ = writeln!(out, "**{title}.** {}\n", body.trim());
        }
    }
    if !catalog.checks().is_empty() {
        out.push_str("\n# Checks of `drift-doctor check`\n\nGenerated from `src/rules/checks.yaml`. Each runs on rendered manifests alone, before they ship; the cause is the one the analysis gives the loop once synced.\n\n| Code | Level | Cause | Title |\n| --- | --- | --- | --- |\n");
        for c in catalog.checks() {
            let _ = writeln!(
                out,
                "| [{}](#{}) | {} | `{}` | {} |",
                c.code,
                c.code.to_lowercase(),
                c.level.id(),
                c.cause.id(),
                c.title
            );
        }
        for c in catalog.checks() {
            let _ = writeln!(
                out,
                "\n## {}\n\n**{}** · level {} · cause `{}`{}\n",
                c.code,
                c.title,
                c.level.id(),
                c.cause.id(),
                if c.loops_as.is_empty() {
                    String::new()
                } else {
                    format!(" · explained once it loops by {}", c.loops_as.join(", "))
                }
            );
            for (title, body) in c.docs.sections() {
                let _ = writeln!(out, "**{title}.** {}\n", body.trim());
            }
        }
    }
    out
}
