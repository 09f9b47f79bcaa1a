//! The report as people read it: the terminal text, the Markdown and every
//! fix snippet of a few scenario fixtures, snapshotted so that any change to
//! their wording or layout shows in review.

use crate::common;

use drift_doctor::render::{markdown, text};
use drift_doctor::{analyze, Options, Report};
use std::fmt::Write;

/// Scenarios analysed with default options: one cause, a Secret (masked
/// values), and several causes in one Application.
const SCENARIOS: &[&str] = &["autoscaler-hpa-replicas", "helm-random-secret", "mixed-app"];

fn report(name: &str) -> Report {
    let dir = format!("tests/fixtures/scenarios/{name}");
    analyze(
        &common::read(format!("{dir}/git.yaml")),
        &common::read(format!("{dir}/live.yaml")),
        &Options::default(),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every fix of every resource: which resource, which cause, its title and
/// its snippet as printed.
fn fix_snippets(report: &Report) -> String {
    let mut out = String::new();
    for resource in &report.resources {
        for fix in &resource.fixes {
            let _ = writeln!(
                out,
                "## {} [{}] {}\n{}\n",
                resource.id,
                fix.cause.id(),
                fix.title,
                fix.snippet.trim_end()
            );
        }
    }
    out
}

#[test]
fn text_markdown_and_fix_snippets_match_their_snapshots() {
    for name in SCENARIOS {
        let report = report(name);
        let snippets = fix_snippets(&report);
        assert!(!snippets.is_empty(), "{name}: the scenario proposes fixes");
        insta::with_settings!({snapshot_suffix => *name, prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!("text", text::render(&report, false, false));
            insta::assert_snapshot!("markdown", markdown::render(&report, None));
            insta::assert_snapshot!("fixes", snippets);
        });
    }
}
