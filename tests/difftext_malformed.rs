//! Malformed diff output is an error naming its line, or a warning in the
//! report when the rest can still be used: never an empty, "Synced" answer.

use crate::common;

use drift_doctor::{analyze_diff, Confidence, Options, Status};

fn read(name: &str) -> String {
    common::read(format!("tests/data/badinput/diff/{name}"))
}

#[test]
fn malformed_text_is_an_error_naming_its_line() {
    // (file, line of the error, words the message must hold)
    let cases = [
        ("truncated_header.txt", 2, "hunk header is cut off"),
        (
            "header_only.txt",
            1,
            "no diff follows the header of apps/Deployment default/web",
        ),
        ("header_weird.txt", 1, "this header names no resource"),
        ("kubectl_weird_path.txt", 1, "this diff names no resource"),
        (
            "secret_diff_wrong_header.txt",
            1,
            "names a ConfigMap but the lines below it show `kind: Secret`",
        ),
    ];
    for (file, line, words) in cases {
        let err = analyze_diff(&read(file), &Options::default())
            .err()
            .unwrap_or_else(|| panic!("{file}: read without an error"));
        assert_eq!(err.line, line, "{file}: {err}");
        assert!(err.message.contains(words), "{file}: {err}");
        // The error never quotes the pasted values.
        assert!(!err.message.contains("c2VudGluZWw"), "{file}: {err}");
    }
}

#[test]
fn a_cut_off_hunk_is_a_warning_and_its_changes_are_uncertain() {
    let report = analyze_diff(&read("truncated_hunk.txt"), &Options::default()).unwrap();
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    let w = &report.warnings[0];
    assert!(
        w.starts_with("line 2: ") && w.contains("says it spans 40 lines but the text holds 6"),
        "{w}"
    );
    let r = &report.resources[0];
    assert_eq!(
        (r.id.as_str(), r.status),
        ("apps/Deployment/default/web", Status::OutOfSync)
    );
    let d = &r.differences[0];
    assert_eq!(d.pointer, "/spec/replicas");
    assert_ne!(d.confidence, Confidence::High);
    assert!(d.evidence.contains("cut off"), "{}", d.evidence);
    let text = drift_doctor::render::text::render(&report, false, false);
    assert!(!text.contains("Everything is Synced"), "{text}");
}

#[test]
fn a_bare_header_next_to_a_usable_diff_is_a_warning() {
    let text = format!(
        "{}\n===== apps/Deployment default/api ======\n31c31\n<   replicas: 5\n---\n>   replicas: 2\n",
        read("header_only.txt")
    );
    let report = analyze_diff(&text, &Options::default()).unwrap();
    assert_eq!(report.resources.len(), 1);
    assert_eq!(report.resources[0].id, "apps/Deployment/default/api");
    assert_eq!(report.warnings.len(), 1);
    assert!(report.warnings[0]
        .starts_with("line 1: no diff follows the header of apps/Deployment default/web"));
}

#[test]
fn a_paste_cut_anywhere_is_never_an_empty_answer() {
    let mut cuts = 0;
    for dir in ["tests/fixtures/difftext", "tests/fixtures/difftext/real"] {
        for e in std::fs::read_dir(common::root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_none_or(|x| x != "txt") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for n in 1..lines.len() {
                let cut = lines[..n].join("\n");
                cuts += 1;
                if let Ok(report) = analyze_diff(&cut, &Options::default()) {
                    assert!(
                        !report.resources.is_empty() || !report.warnings.is_empty(),
                        "{} cut after line {n}: an empty answer",
                        p.display()
                    );
                }
            }
        }
    }
    assert!(cuts > 300, "{cuts}");
}
