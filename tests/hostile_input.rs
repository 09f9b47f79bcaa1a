//! The hostile and malformed inputs of `tests/data/badinput` (see its
//! README): each gives a located error or a correct, inert report, quickly.

use crate::common;

use drift_doctor::render::{markdown, text};
use drift_doctor::{analyze, Options, Side, Status};
use std::process::{Command, Output};

fn bad(name: &str) -> String {
    common::read(format!("tests/data/badinput/{name}"))
}

fn path(name: &str) -> String {
    common::root()
        .join("tests/data/badinput")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_drift-doctor"))
        .args(args)
        .output()
        .expect("the CLI runs")
}

#[test]
fn the_same_object_twice_with_different_content_is_an_error_naming_both() {
    for live in ["dup_diff_live.yaml", "dup_diff_live2.yaml"] {
        let e = analyze(&bad("valid.yaml"), &bad(live), &Options::default()).unwrap_err();
        assert_eq!(
            (e.side, e.document, e.line),
            (Side::Live, 2, 9),
            "{live}: {e}"
        );
        assert!(
            e.message.contains("given twice") && e.message.contains("document 1 at line 1"),
            "{live}: {e}"
        );
        let out = cli(&[
            "analyze",
            "--git",
            &path("valid.yaml"),
            "--live",
            &path(live),
        ]);
        assert_eq!(out.status.code(), Some(2), "{live}");
    }
    // Identical copies (a file pasted twice) change nothing.
    let twice = format!("{0}---\n{0}", bad("valid.yaml"));
    let report = analyze(&bad("valid.yaml"), &twice, &Options::default()).unwrap();
    assert_eq!(report.summary.synced, 1);
}

#[test]
fn non_finite_numbers_are_kept_and_reported() {
    for live in ["dep_nan.yaml", "dep_inf.yaml"] {
        let report = analyze(&bad("dep_rep1.yaml"), &bad(live), &Options::default()).unwrap();
        let r = &report.resources[0];
        assert_eq!(r.status, Status::OutOfSync, "{live}");
        let d = r
            .differences
            .iter()
            .find(|d| d.pointer == "/spec/replicas")
            .unwrap_or_else(|| panic!("{live}: replicas differ"));
        assert!(d.visible, "{live}");
        let shown = d.live.as_ref().and_then(|v| v.as_str()).unwrap_or_default();
        assert!(shown == ".nan" || shown == ".inf", "{live}: {shown}");
    }
}

#[test]
fn shape_errors_name_the_field_and_its_line() {
    let cases: &[(&str, &str, usize)] = &[
        ("dupkeys.yaml", "the key `a` appears twice", 8),
        (
            "list_items_notarray.yaml",
            "`items` of a `kind: List` is a number",
            3,
        ),
        ("name_int.yaml", "`metadata.name` is the number 123", 4),
        ("tagged_key.yaml", "a mapping key is a list", 8),
        (
            "list_doc.yaml",
            "item 1 of the document's list is a string",
            1,
        ),
        (
            "billion_laughs.yaml",
            "aliases (`*name`) expand to too many values",
            10,
        ),
    ];
    for (name, message, line) in cases {
        let e = analyze(&bad("valid.yaml"), &bad(name), &Options::default()).unwrap_err();
        assert_eq!(e.side, Side::Live, "{name}: {e}");
        assert!(e.message.contains(message), "{name}: {e}");
        assert_eq!(e.line, *line, "{name}: {e}");
    }
}

#[test]
fn json_followed_by_yaml_documents_is_one_stream() {
    let report = analyze(
        &bad("json_then_yaml.json"),
        &bad("json_then_yaml.json"),
        &Options::default(),
    )
    .unwrap();
    assert_eq!(report.summary.resources, 2);
}

#[test]
fn deep_nesting_is_refused_at_once_with_the_limit_stated() {
    let header = bad("valid.yaml");
    for opener in ["[", "{a: "] {
        let live = format!("{header}x: {}\n", opener.repeat(100_000));
        let started = std::time::Instant::now();
        let e = analyze(&header, &live, &Options::default()).unwrap_err();
        assert!(e.message.contains("deeper than 128 levels"), "{e}");
        assert_eq!(e.line, 8, "{e}");
        // Not a timing test: a generous bound that only quadratic work misses.
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    }
    // Brackets inside quotes, comments and block scalars are not nesting.
    let literal = format!(
        "{header}  b: |\n    {}\n  c: \"{}\" # {}\n",
        "[".repeat(500),
        "{".repeat(500),
        "[".repeat(500)
    );
    assert!(analyze(&header, &literal, &Options::default()).is_ok());
}

#[test]
fn terminal_output_is_inert() {
    let report = analyze(
        &bad("esc_git.yaml"),
        &bad("esc_live.yaml"),
        &Options::default(),
    )
    .unwrap();
    for color in [false, true] {
        let out = text::render(&report, color, true);
        for c in out.chars() {
            let ours = color && c == '\u{1b}';
            assert!(
                ours || !(c.is_control() && c != '\n' && c != '\t'),
                "control {:?} in {out}",
                c
            );
            assert!(
                !('\u{202a}'..='\u{202e}').contains(&c),
                "bidi override in {out}"
            );
        }
        assert!(
            out.contains("\\u{1b}"),
            "the escape is shown as text: {out}"
        );
    }
    // Our own colour codes are the only escapes, and only when asked.
    let plain = cli(&[
        "analyze",
        "--git",
        &path("esc_git.yaml"),
        "--live",
        &path("esc_live.yaml"),
        "--color",
        "never",
    ]);
    assert!(!plain.stdout.iter().any(|&b| b == 0x1b || b == 0x07));
}

#[test]
fn markdown_output_cannot_close_a_code_span_or_start_a_link() {
    let report = analyze(
        &bad("md_git.yaml"),
        &bad("md_live.yaml"),
        &Options::default(),
    )
    .unwrap();
    let md = markdown::render(&report, None);
    // The value with backticks sits in a code span with a longer fence, where
    // HTML and links are shown as written.
    assert!(
        md.contains("```a\\|b`c`` <b>x</b> [l](http://e)```"),
        "{md}"
    );
    // In free text (the evidence) they are escaped.
    for line in md.lines().filter(|l| l.starts_with("- **")) {
        assert!(!line.contains("<b>") && !line.contains("](http"), "{line}");
    }
}

#[test]
fn inputs_above_the_size_limit_are_refused_before_reading() {
    let dir = std::env::temp_dir().join(format!("dd-size-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.yaml");
    let one = bad("valid.yaml");
    let copies = 2 * 1024 * 1024 / one.len() + 1;
    let text: String = (0..copies)
        .map(|i| one.replace("name: cm", &format!("name: cm{i}")) + "---\n")
        .collect();
    std::fs::write(&big, text).unwrap();
    let big = big.to_string_lossy().into_owned();
    let out = cli(&[
        "analyze",
        "--git",
        &path("valid.yaml"),
        "--live",
        &big,
        "--max-input-mib",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("live side") && err.contains("more than the 1 MiB"),
        "{err}"
    );
    assert!(err.contains("--max-input-mib"), "{err}");

    // `link` refuses a link the page would not take, and writes a share file when asked.
    let share = dir.join("state.json").to_string_lossy().into_owned();
    let out = cli(&[
        "link",
        "--git",
        &path("valid.yaml"),
        "--live",
        &big,
        "--share-file",
        &share,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("holds the share file"), "{err}");
    let state = drift_doctor::share::decode_share_file(&std::fs::read_to_string(&share).unwrap())
        .expect("the share file opens");
    assert!(state.live.contains("name: cm7"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// With several objects given twice, the error is the first differing copy
/// in the side's order (not in the order of the objects' names), compared
/// with the object's first copy.
#[test]
fn the_first_differing_copy_in_the_side_is_the_error() {
    let cm = |name: &str, value: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: n\ndata:\n  k: {value}\n")
    };
    let git = [cm("a", "1"), cm("b", "1")].join("---\n");
    let live = [cm("a", "1"), cm("b", "1"), cm("b", "2"), cm("a", "2")].join("---\n");
    let e = analyze(&git, &live, &Options::default()).unwrap_err();
    assert_eq!((e.side, e.document, e.line), (Side::Live, 3, 17), "{e}");
    assert!(
        e.message.contains("ConfigMap/n/b") && e.message.contains("document 2 at line 9"),
        "{e}"
    );
    // An identical copy first, then a differing one: the first copy is named.
    let live = [cm("a", "1"), cm("b", "1"), cm("a", "1"), cm("a", "3")].join("---\n");
    let e = analyze(&git, &live, &Options::default()).unwrap_err();
    assert_eq!((e.document, e.line), (4, 25), "{e}");
    assert!(e.message.contains("document 1 at line 1"), "{e}");
    // The same on the Git side.
    let e = analyze(&live, &git, &Options::default()).unwrap_err();
    assert_eq!((e.side, e.document), (Side::Git, 4), "{e}");
}
