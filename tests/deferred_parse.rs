//! Reading live bookkeeping (`status`, `metadata.managedFields`) only when
//! the analysis asks for it changes nothing a user sees: every side reads
//! into the same objects and the same errors, and every report is the same
//! byte for byte, on every input file of the tests and on generated ones.

use crate::common;

use drift_doctor::analyze::{analyze_cached, analyze_with, Evidence, ParseCache};
use drift_doctor::input::{parse_side, parse_side_deferring, Document, InputError};
use drift_doctor::{ArgoCdRelease, CompareOptions, Options, Side, Strategy};
use proptest::prelude::*;
use proptest::strategy::Strategy as _;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A side's objects as the deferring read gives them once asked for every
/// field, or its error.
fn read_deferring(text: &str) -> Result<Vec<(Value, usize, usize)>, InputError> {
    parse_side_deferring(text, Side::Live).map(|docs| {
        docs.iter()
            .map(|d| (d.hydrated().into_owned(), d.document, d.line))
            .collect()
    })
}

fn read_whole(text: &str) -> Result<Vec<(Value, usize, usize)>, InputError> {
    parse_side(text, Side::Live).map(|docs| {
        docs.into_iter()
            .map(|d: Document| (d.object, d.document, d.line))
            .collect()
    })
}

/// How many fields the deferring read left out of the objects of `text`.
fn deferred_count(text: &str) -> usize {
    parse_side_deferring(text, Side::Live)
        .map_or(0, |docs| docs.iter().map(|d| d.deferred.len()).sum())
}

/// The settings each pair is analysed under: the strategies, with and
/// without hidden differences, and a release that still compares `status`.
fn option_matrix() -> Vec<Options> {
    let mut all = Vec::new();
    for strategy in [
        Strategy::Legacy,
        Strategy::ServerSideApply,
        Strategy::ServerSideDiff,
    ] {
        for include_hidden in [true, false] {
            all.push(Options {
                namespace: Some("default".into()),
                compare: CompareOptions {
                    strategy,
                    include_hidden,
                    ..Default::default()
                },
            });
        }
    }
    all.push(Options {
        namespace: None,
        compare: CompareOptions {
            include_hidden: true,
            ..CompareOptions::for_release(ArgoCdRelease::new(2, 14))
        },
    });
    all
}

/// The report's JSON with live bookkeeping deferred, and read whole (the
/// page's worker reads whole, through its parse cache).
fn reports(git: &str, live: &str, opts: &Options) -> (String, String) {
    let json = |r: Result<drift_doctor::Report, InputError>| match r {
        Ok(report) => serde_json::to_string(&report).unwrap(),
        Err(e) => format!("error: {e}"),
    };
    let deferred = json(analyze_with(git, live, opts, Evidence::default()));
    let mut cache = ParseCache::default();
    let whole = json(analyze_cached(
        &mut cache,
        git,
        live,
        opts,
        Evidence::default(),
    ));
    (deferred, whole)
}

/// Every file under `dir`, sorted.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn test_inputs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    files_under(&common::root().join("tests"), &mut files);
    files.retain(|p| {
        matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json" | "txt")
        )
    });
    files
}

#[test]
fn every_input_file_reads_alike_deferred_and_whole() {
    let mut deferred = 0;
    let files = test_inputs();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        assert_eq!(
            read_deferring(&text),
            read_whole(&text),
            "{}",
            path.display()
        );
        deferred += deferred_count(&text);
    }
    // The files hold bookkeeping the deferring read does leave out.
    assert!(deferred > 100, "only {deferred} fields deferred");
}

#[test]
fn every_fixture_pair_reports_alike_deferred_and_whole() {
    let mut pairs = 0;
    for live_path in test_inputs() {
        let name = live_path.file_name().unwrap().to_string_lossy().to_string();
        let Some(git_name) = ["live", "current"]
            .iter()
            .find_map(|side| name.contains(side).then(|| name.replace(side, "git")))
        else {
            continue;
        };
        let git_path = [git_name.clone(), name.replace("live", "config")]
            .into_iter()
            .map(|n| live_path.with_file_name(n))
            .find(|p| p.is_file() && *p != live_path);
        let Some(git_path) = git_path else { continue };
        let (Ok(git), Ok(live)) = (
            std::fs::read_to_string(&git_path),
            std::fs::read_to_string(&live_path),
        ) else {
            continue;
        };
        pairs += 1;
        for opts in option_matrix() {
            let (deferred, whole) = reports(&git, &live, &opts);
            assert!(
                deferred == whole,
                "{} under {:?}/{}: the reports differ",
                live_path.display(),
                opts.compare.strategy,
                opts.compare.include_hidden
            );
        }
    }
    assert!(pairs > 100, "only {pairs} pairs found");
}

/// A live object in kubectl's shape whose bookkeeping lines come from
/// `bookkeeping` (some plain, some odd or broken) and whose spec differs
/// from Git's when `drifted`.
fn live_object(kind: &str, name: &str, drifted: bool, managed: &[&str], status: &[&str]) -> String {
    annotated_live_object(kind, name, drifted, &[], managed, status)
}

/// [`live_object`] with `annotations` lines under `metadata.annotations`.
fn annotated_live_object(
    kind: &str,
    name: &str,
    drifted: bool,
    annotations: &[&str],
    managed: &[&str],
    status: &[&str],
) -> String {
    let (group_version, body) = match kind {
        "Deployment" => (
            "apps/v1",
            format!("spec:\n  replicas: {}\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n      containers:\n      - name: app\n        image: app:1\n", if drifted { 3 } else { 2 }),
        ),
        "Secret" => ("v1", format!("data:\n  key: {}\n", if drifted { "Yg==" } else { "YQ==" })),
        _ => ("v1", format!("data:\n  key: {}\n", if drifted { "b" } else { "a" })),
    };
    let mut text = format!(
        "apiVersion: {group_version}\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: default\n"
    );
    if !annotations.is_empty() {
        text.push_str("  annotations:\n");
        for line in annotations {
            text.push_str(line);
            text.push('\n');
        }
    }
    if !managed.is_empty() {
        text.push_str("  managedFields:\n");
        for line in managed {
            text.push_str(line);
            text.push('\n');
        }
    }
    text.push_str("  uid: 1234\n");
    text.push_str(&body);
    if !status.is_empty() {
        text.push_str("status:\n");
        for line in status {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

fn git_object(kind: &str, name: &str) -> String {
    let live = live_object(kind, name, false, &[], &[]);
    live.replace("  uid: 1234\n", "")
}

/// Lines of `managedFields` as kubectl prints them, and lines no tool
/// prints: anchors, comments, tabs, duplicates, block and multi-line
/// scalars, odd indentation.
const MANAGED_LINES: &[&str] = &[
    "  - manager: kubectl-edit",
    "  - manager: argocd-controller",
    "    operation: Update",
    "    operation: Apply",
    "    apiVersion: v1",
    "    time: \"2026-10-01T10:00:00Z\"",
    "    fieldsType: FieldsV1",
    "    fieldsV1:",
    "      f:spec:",
    "        f:replicas: {}",
    "      f:data:",
    "        f:key: {}",
    "        .: {}",
    "      k:{\"type\":\"Ready\"}:",
    "      \"f:metadata\":",
    "        \"f:labels\": {}",
    "    - x",
    "    a: &anchor 1",
    "    b: *anchor",
    "    # a comment",
    "\tmanager: tab",
    "    note: |",
    "      block text",
    "    msg: \"quoted: text\"",
    "    esc: \"\\x41\"",
    "     odd: 1",
    "  manager: flat",
    "",
    "    True: 1",
    "    true: 2",
    "    multi: one",
    "      two",
];

const STATUS_LINES: &[&str] = &[
    "  replicas: 2",
    "  observedGeneration: 3",
    "  conditions:",
    "  - type: Available",
    "    status: \"True\"",
    "    message: Deployment has minimum availability.",
    "    reason: 'it''s fine'",
    "  phase: Active",
    "  phase: Again",
    "  loadBalancer: {}",
    "  ready: [a, b]",
    "  - stray",
    "  # note",
    "    deeper: 1",
    "",
    "  text: >",
    "    folded",
];

/// Lines from `pool` in any order (odd YAML often, broken sometimes), or
/// whole entries of `entries` as a tool prints them (plain YAML).
fn lines_from(
    pool: &'static [&'static str],
    entries: &'static [&'static [&'static str]],
) -> impl proptest::strategy::Strategy<Value = Vec<&'static str>> {
    prop_oneof![
        proptest::collection::vec(proptest::sample::select(pool), 0..8),
        proptest::collection::vec(proptest::sample::select(entries), 0..4).prop_map(|e| e.concat()),
    ]
}

/// Annotation lines: the last-applied annotation as kubectl writes it (a
/// JSON text in one double-quoted line, which the JSON parser reads), and
/// lines that only YAML reads alike or not at all: `\u`, `\x` and `\/`
/// escapes, raw non-ASCII and tabs, a comment after the string, a string
/// that goes on, the annotation twice, another annotation.
const ANNOTATION_LINES: &[&str] = &[
    "    kubectl.kubernetes.io/last-applied-configuration: \"{\\\"apiVersion\\\":\\\"v1\\\",\\\"data\\\":{\\\"key\\\":\\\"a\\\"}}\\n\"",
    "    kubectl.kubernetes.io/last-applied-configuration: \"{\\\"data\\\":{\\\"key\\\":\\\"\\\\u00e9\\\"}}\"  ",
    "    kubectl.kubernetes.io/last-applied-configuration: \"{\\\"data\\\":{\\\"k\\\":\\\"\\u00e9\\\"}}\"",
    "    kubectl.kubernetes.io/last-applied-configuration: \"{\\\"data\\\":{\\\"k\\\":\\\"\\ud83d\\\"}}\"",
    "    kubectl.kubernetes.io/last-applied-configuration: \"{\\\"k\\\":\\\"é\\\"}\"",
    "    kubectl.kubernetes.io/last-applied-configuration: \"{\\x41}\"",
    "    kubectl.kubernetes.io/last-applied-configuration: \"{\\/}\"",
    "    kubectl.kubernetes.io/last-applied-configuration: \"{\t}\"",
    "    kubectl.kubernetes.io/last-applied-configuration: \"{\\t}\"",
    "    kubectl.kubernetes.io/last-applied-configuration: \"{} \" # note",
    "    kubectl.kubernetes.io/last-applied-configuration: \"{\\\"a\\\":",
    "      1}\"",
    "    kubectl.kubernetes.io/last-applied-configuration: '{\"a\":1}'",
    "    kubectl.kubernetes.io/last-applied-configuration: \"{\\\"",
    "    deployment.kubernetes.io/revision: \"3\"",
    "      deeper: 1",
];

/// Annotations as kubectl prints them.
const ANNOTATION_ENTRIES: &[&[&str]] = &[
    &["    kubectl.kubernetes.io/last-applied-configuration: \"{\\\"apiVersion\\\":\\\"v1\\\",\\\"kind\\\":\\\"ConfigMap\\\",\\\"data\\\":{\\\"key\\\":\\\"a\\\",\\\"gone\\\":\\\"x\\\"}}\\n\""],
    &["    deployment.kubernetes.io/revision: \"3\""],
];

/// Entries of `managedFields` as kubectl prints them.
const MANAGED_ENTRIES: &[&[&str]] = &[
    &[
        "  - manager: kubectl-edit",
        "    operation: Update",
        "    fieldsV1:",
        "      f:spec:",
        "        f:replicas: {}",
    ],
    &[
        "  - manager: argocd-controller",
        "    operation: Apply",
        "    time: \"2026-10-01T10:00:00Z\"",
        "    fieldsV1:",
        "      f:data:",
        "        .: {}",
        "        f:key: {}",
    ],
    &[
        "  - apiVersion: v1",
        "    fieldsType: FieldsV1",
        "    fieldsV1:",
        "      \"f:metadata\":",
        "        \"f:labels\": {}",
        "      k:{\"type\":\"Ready\"}:",
        "        .: {}",
    ],
];

/// Parts of a `status` as controllers write it (a part drawn twice is a
/// duplicate key, which both reads must refuse alike).
const STATUS_ENTRIES: &[&[&str]] = &[
    &["  replicas: 2", "  observedGeneration: 3"],
    &[
        "  conditions:",
        "  - type: Available",
        "    status: \"True\"",
        "    reason: 'it''s fine'",
        "  - type: Progressing",
        "    message: Deployment has minimum availability.",
    ],
    &["  loadBalancer: {}"],
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn generated_sides_read_and_report_alike_deferred_and_whole(
        objects in proptest::collection::vec(
            (
                proptest::sample::select(&["Deployment", "ConfigMap", "Secret", "Service"][..]),
                any::<bool>(),
                lines_from(ANNOTATION_LINES, ANNOTATION_ENTRIES),
                lines_from(MANAGED_LINES, MANAGED_ENTRIES),
                lines_from(STATUS_LINES, STATUS_ENTRIES),
            ),
            1..5,
        ),
        strategy in proptest::sample::select(&[Strategy::Legacy, Strategy::ServerSideDiff][..]),
    ) {
        let mut git = String::new();
        let mut live = String::new();
        for (i, (kind, drifted, annotations, managed, status)) in objects.iter().enumerate() {
            let name = format!("o{i}");
            git.push_str(&git_object(kind, &name));
            git.push_str("---\n");
            live.push_str(&annotated_live_object(kind, &name, *drifted, annotations, managed, status));
            live.push_str("---\n");
        }
        prop_assert_eq!(read_deferring(&live), read_whole(&live));
        let opts = Options {
            namespace: None,
            compare: CompareOptions { strategy, include_hidden: true, ..Default::default() },
        };
        let (deferred, whole) = reports(&git, &live, &opts);
        prop_assert_eq!(deferred, whole);
    }
}

/// `kubectl get -o yaml`'s one `kind: List`, large enough to be read item
/// by item, with bookkeeping on every item and a few drifted objects.
#[test]
fn a_large_list_reads_and_reports_alike_deferred_and_whole() {
    let managed: Vec<&str> = [
        0, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 1, 2, 7, 10, 11,
    ]
    .iter()
    .map(|&i| MANAGED_LINES[i])
    .collect();
    let status = &STATUS_LINES[..8];
    let mut git = String::new();
    let mut live = String::from("apiVersion: v1\nitems:\n");
    for i in 0..600 {
        let kind = ["Deployment", "ConfigMap", "Service"][i % 3];
        let name = format!("o{i}");
        git.push_str(&git_object(kind, &name));
        git.push_str("---\n");
        let status: &[&str] = if i % 7 == 0 {
            &STATUS_LINES[8..10]
        } else {
            status
        };
        let object = live_object(kind, &name, i % 10 == 0, &managed, status);
        for (j, line) in object.lines().enumerate() {
            live.push_str(if j == 0 {
                "- "
            } else if line.is_empty() {
                ""
            } else {
                "  "
            });
            live.push_str(line);
            live.push('\n');
        }
    }
    live.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
    assert!(live.len() > 256 * 1024);
    assert!(deferred_count(&live) > 300);
    assert_eq!(read_deferring(&live), read_whole(&live));
    for opts in option_matrix() {
        let (deferred, whole) = reports(&git, &live, &opts);
        assert!(
            deferred == whole,
            "{:?}: the reports differ",
            opts.compare.strategy
        );
    }
}

#[test]
fn plain_bookkeeping_of_common_kinds_waits_and_the_rest_is_read_at_once() {
    let managed = MANAGED_ENTRIES.concat();
    let status = STATUS_ENTRIES.concat();
    let config_map = live_object("ConfigMap", "c", false, &managed, &status);
    assert_eq!(deferred_count(&config_map), 2);
    // A Secret's every field is masked from the start: read whole.
    let secret = live_object("Secret", "s", false, &managed, &status);
    assert_eq!(deferred_count(&secret), 0);
    // An anchor in `status` keeps it in the text the parser reads.
    let anchored = live_object("ConfigMap", "c", false, &managed, &["  a: &x 1", "  b: *x"]);
    assert_eq!(deferred_count(&anchored), 1);
    assert_eq!(read_deferring(&anchored), read_whole(&anchored));
}
