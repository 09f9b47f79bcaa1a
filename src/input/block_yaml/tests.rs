use super::*;
use crate::strict_value::StrictValue;
use proptest::prelude::*;
use proptest::strategy::ValueTree;

fn strict(text: &str) -> Result<Value, String> {
    serde_yaml::from_str::<StrictValue>(text)
        .map(|v| v.0)
        .map_err(|e| e.to_string())
}

/// The reader's promise: whatever it reads, the strict reader reads the
/// same (and does not refuse).
fn agrees(text: &str) -> Result<bool, String> {
    match read(text) {
        None => Ok(false),
        Some(quick) => match strict(text) {
            Ok(v) if v == quick => Ok(true),
            Ok(v) => Err(format!(
                "{text:?}: read {quick} where the strict reader reads {v}"
            )),
            Err(e) => Err(format!(
                "{text:?}: read {quick} where the strict reader says: {e}"
            )),
        },
    }
}

#[track_caller]
fn reads_as_strict(text: &str) {
    let quick = read(text).unwrap_or_else(|| panic!("not read: {text:?}"));
    assert_eq!(Ok(quick), strict(text), "{text:?}");
}

#[test]
fn reads_what_kubectl_prints_as_the_strict_reader_does() {
    let text = r#"apiVersion: v1
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    annotations:
      deployment.kubernetes.io/revision: "3"
      kubectl.kubernetes.io/last-applied-configuration: "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"}\n"
    creationTimestamp: "2026-10-01T10:00:00Z"
    generation: 4
    labels:
      app: web
    managedFields:
      - apiVersion: apps/v1
        fieldsType: FieldsV1
        fieldsV1:
          "f:spec":
            "f:replicas": {}
        manager: kube-controller-manager
    name: web
  spec:
    replicas: 3
    template:
      spec:
        containers:
        - args: []
          image: nginx:1.27
          name: web
          ports:
          - containerPort: 80
            protocol: TCP
          resources:
            limits:
              cpu: 500m
              memory: 1.5Gi
          securityContext: {}
        terminationGracePeriodSeconds: 30
  status:
    conditions:
    - lastTransitionTime: null
      status: "True"
      type: Available
kind: List
metadata:
  resourceVersion: ""
"#;
    reads_as_strict(text);
}

#[test]
fn resolves_plain_scalars_as_serde_yaml_does() {
    for scalar in [
        "0",
        "-0",
        "+0",
        "7",
        "+7",
        "-7",
        "007",
        "-007",
        "+007",
        "0.5",
        "-0.5",
        ".5",
        "5.",
        "1e3",
        "1E-3",
        "+1.5",
        "++1",
        "+-1",
        "-+1",
        "1_000",
        "18446744073709551615",
        "-9223372036854775808",
        ".inf",
        "-.inf",
        "+.inf",
        ".Inf",
        ".NaN",
        ".nan",
        "+.nan",
        "inf",
        "nan",
        "NaN",
        "Infinity",
        "-inf",
        "1e400",
        "null",
        "Null",
        "NULL",
        "~",
        "nULL",
        "true",
        "True",
        "TRUE",
        "tRUE",
        "yes",
        "no",
        "on",
        "off",
        "y",
        "n",
        ".",
        "-.",
        "+",
        "1.2.3",
        "10:30",
        "v1",
        "1Gi",
        "500m",
        "0.0.0.0/0",
        "http://x:80/a#b",
        "a#b",
        "--",
        "-a",
        ":a",
        "?a",
        "a b  c",
        "é",
        "日本",
        "-1e5",
        "0e0",
    ] {
        reads_as_strict(&format!("k: {scalar}\n"));
        reads_as_strict(&format!("- {scalar}\n"));
        reads_as_strict(&format!("{scalar}: v\n"));
    }
}

#[test]
fn reads_quoted_scalars_and_their_escapes() {
    for scalar in [
        r#""""#,
        r#""a b""#,
        r#""a: b # c""#,
        r#""\"quoted\"\n\t\\ \/ \0 \a \b \e \f \r \v \  \N \_ \L \P""#,
        r#""\x41\u00e9\U0001F600""#,
        "''",
        "'it''s'",
        "'a \\n b'",
        "'# not a comment'",
        r#""x"   # a comment"#,
    ] {
        reads_as_strict(&format!("k: {scalar}\n"));
        reads_as_strict(&format!("- {scalar}\n"));
    }
    reads_as_strict("\"a: b\": 1\n'c''d': 2\n\"\": 3\n");
}

#[test]
fn reads_the_layouts_of_block_collections() {
    for text in [
        // A sequence under a key, at the key's indentation or deeper.
        "a:\n- 1\n- 2\nb:\n  - 3\n",
        // Entries of a sequence that are mappings, at any indentation.
        "-   a: 1\n    b: 2\n-\n  c: 3\n- d:\n  - e\n  f: g\n",
        // Empty values: null at the end, before a sibling and in lists.
        "a:\nb: 1\nc:\n",
        "- \n-\n- # nothing\n",
        // Comments and blank lines anywhere.
        "# head\n\na: 1 # one\n   # indented\nb: # below\n  c: 2\n\n",
        // A document indented as a whole, and keys with spaces.
        "  a b: 1\n  c  : 2\n",
        // Scalar keys become text.
        "1: a\n1.5: b\ntrue: c\nnull: d\n-2: e\n",
        // Nested sequences through mappings.
        "a:\n- b:\n  - c:\n    - 1\n",
    ] {
        reads_as_strict(text);
    }
}

#[test]
fn leaves_the_rest_of_yaml_to_the_strict_reader() {
    for text in [
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a: [1, 2]\n",
        "a: {b: 1}\n",
        "a: >-\n  text\n",
        "a: |+\n  text\n\n",
        "a: |2\n   text\n",
        "a: |\n\n  text\n",
        "a: |\nb: 1\n",
        "a: |\n  text\n   \n",
        "a: one\n  two\n",
        "a: \"one\n  two\"\n",
        "base: &b {x: 1}\nc:\n  <<: *b\n",
        "? a\n: b\n",
        "a: 0x1f\n",
        "a: 0o17\n",
        "a: 340282366920938463463374607431768211455\n",
        "%YAML 1.2\n---\na: 1\n",
        "a: 1\n---\nb: 2\n",
        "- - 1\n",
        "plain scalar\n",
        "",
        "# only a comment\n",
        "a: [] # trailing\n",
        // Tabs, other line breaks, a byte order mark, a root scalar and a
        // scalar over two lines (U+2028 is refused, below).
        "a:\tb\n",
        "a: b\r\n",
        "a: \u{85}\n",
        "a: \u{feff}\n",
        "a\n",
        "- a\n  b\n",
    ] {
        assert_eq!(read(text), None, "{text:?}");
    }
}

#[test]
fn never_reads_what_the_strict_reader_refuses() {
    for text in [
        "a: 1\na: 2\n",
        "1: x\n\"1\": y\n",
        "a: x\u{2028}y\n",
        "a: \u{1}\n",
        "a: b: c\n",
        "a: b:\n",
        "a: \"x\" y\n",
        "a: 'x\n",
        "a: \"\\q\"\n",
        "a: \"\\ud800\"\n",
        "a: \"\\x4\"\n",
        "a: - b\n",
        "a: 1\n b: 2\n",
        "a:\n  b: 1\n c: 2\n",
        "- a\nb: 1\n",
        "a: 1\n- b\n",
        "a: ,b\n",
        "a: @b\n",
        "a: `b\n",
        "a: 99999999999999999999\n",
        "  a: 1\nb: 2\n",
    ] {
        assert!(strict(text).is_err(), "{text:?} is YAML after all");
        assert_eq!(read(text), None, "{text:?}");
    }
}

#[test]
fn reads_literal_block_scalars() {
    for text in [
        "a: |\n  line one\n    deeper\n  # not a comment\n\n  after a blank\nb: 1\n",
        "a: |-\n  no final break\n\n\nb: |\n  clipped\n\n\n",
        "a: |\n  trailing spaces   \n",
        "a: | # a comment\n  x\n",
        "a: |\n  at the end without a break",
        "a: |-\n  x",
        "- |\n  item\n- |-\n   deeper item\n-   k: |\n      in a mapping\n    j: 2\n",
        "a:\n- |\n  indentless\n",
        "kubectl.kubernetes.io/last-applied-configuration: |\n  {\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}\nb: 1\n",
    ] {
        reads_as_strict(text);
    }
}

#[test]
fn a_long_key_is_the_strict_readers() {
    let key = "k".repeat(1100);
    assert_eq!(read(&format!("{key}: v\n")), None);
    assert!(read(&format!("{}: v\n", "k".repeat(900))).is_some());
}

#[test]
fn deep_nesting_is_the_strict_readers() {
    let mut text = String::new();
    for depth in 0..120 {
        text.push_str(&" ".repeat(depth));
        text.push_str("a:\n");
    }
    assert_eq!(read(&text), None);
    let shallow: String = (0..50).map(|d| format!("{}a:\n", " ".repeat(d))).collect();
    reads_as_strict(&shallow);
}

/// Every YAML document under `tests/` (fixtures, corpus, bad input).
fn fixture_documents() -> Vec<String> {
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests"
    ))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(path);
            }
        }
    }
    crate::sorting::sort_by_key(&mut files, |p| p.clone());
    files
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .flat_map(|text| {
            text.split("\n---\n")
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// What the reader reads of every fixture document, the strict reader
/// reads the same; and it reads most of them.
#[test]
fn agrees_with_the_strict_reader_on_every_fixture() {
    let documents = fixture_documents();
    let mut read_quickly = 0;
    for document in &documents {
        match agrees(document) {
            Ok(true) => read_quickly += 1,
            Ok(false) => {}
            Err(e) => panic!("{e}"),
        }
    }
    assert!(documents.len() > 500, "{} documents", documents.len());
    assert!(
        read_quickly * 2 > documents.len(),
        "only {read_quickly} of {} documents read a line at a time",
        documents.len()
    );
}

/// Pieces of documents, many of them at the subset's edges.
fn token() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "a",
        "b",
        "key",
        "k b",
        "1",
        "-1",
        "007",
        "1.5",
        ".inf",
        ".nan",
        "null",
        "~",
        "true",
        "True",
        "yes",
        "0x1f",
        "\"q\"",
        "\"a: b\"",
        "\"\\n\\u00e9\"",
        "\"\\q\"",
        "'s'",
        "'it''s'",
        "''",
        "\"\"",
        "[]",
        "{}",
        "[a]",
        "{a: 1}",
        "&x a",
        "*x",
        "!t a",
        "|",
        ">",
        "a: b",
        "a:",
        "a #c",
        "a#c",
        "# c",
        "-",
        "- a",
        "-a",
        ":a",
        "?a",
        "? a",
        "http://h:1/p",
        "é",
        "<<",
        "a\tb",
        "a b ",
        "\"x\" y",
        "'x",
        "\"x",
        ",a",
        "@a",
        "%a",
        "`a",
    ])
    .prop_map(str::to_string)
}

/// A line: indentation, then a key and a value, a sequence entry, or a
/// token alone.
fn line() -> impl Strategy<Value = String> {
    (
        0usize..7,
        prop_oneof![
            (token(), token()).prop_map(|(k, v)| format!("{k}: {v}")),
            token().prop_map(|k| format!("{k}:")),
            token().prop_map(|v| format!("- {v}")),
            (token(), token()).prop_map(|(k, v)| format!("- {k}: {v}")),
            Just("-".to_string()),
            token(),
            Just(String::new()),
        ],
    )
        .prop_map(|(indent, text)| format!("{}{text}", " ".repeat(indent)))
}

/// A YAML tree, to be written out as block YAML.
#[derive(Clone, Debug)]
enum Node {
    Scalar(&'static str),
    Map(Vec<(&'static str, Node)>),
    Seq(Vec<Node>),
}

fn tree() -> impl Strategy<Value = Node> {
    let scalar = prop::sample::select(vec![
        "v",
        "1",
        "-2",
        "1.5",
        "null",
        "~",
        "true",
        "\"s\"",
        "'s'",
        "[]",
        "{}",
        "a #c",
        "http://h:1",
        "007",
        ".inf",
        "\"\\u00e9\"",
        "x y",
        "2026-10-01T10:00:00Z",
    ])
    .prop_map(Node::Scalar);
    scalar.prop_recursive(5, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(
                (
                    prop::sample::select(vec!["k", "key two", "\"q: k\"", "'n'", "1", "f:x"]),
                    inner.clone()
                ),
                1..5
            )
            .prop_map(Node::Map),
            prop::collection::vec(inner, 1..4).prop_map(Node::Seq),
        ]
    })
}

/// Write `node` at `indent` (sequences under a key indented or not, by
/// `deep`), numbering keys so that most differ.
fn write_node(node: &Node, indent: usize, deep: bool, out: &mut String, keys: &mut usize) {
    let pad = " ".repeat(indent);
    match node {
        Node::Scalar(s) => out.push_str(&format!("{pad}{s}\n")),
        Node::Map(entries) => {
            for (key, value) in entries {
                *keys += 1;
                // Quoted keys stay as they are (and may repeat).
                let key = if key.starts_with(['"', '\'']) {
                    key.to_string()
                } else {
                    format!("{key}{keys}")
                };
                match value {
                    Node::Scalar(s) => out.push_str(&format!("{pad}{key}: {s}\n")),
                    Node::Map(_) => {
                        out.push_str(&format!("{pad}{key}:\n"));
                        write_node(value, indent + 2, deep, out, keys);
                    }
                    Node::Seq(_) => {
                        out.push_str(&format!("{pad}{key}: # list\n"));
                        write_node(value, indent + if deep { 2 } else { 0 }, deep, out, keys);
                    }
                }
            }
        }
        Node::Seq(items) => {
            for item in items {
                let mut inner = String::new();
                write_node(item, indent + 2, deep, &mut inner, keys);
                // The item's first line goes on its dash.
                out.push_str(&format!(
                    "{pad}- {}\n",
                    &inner[indent + 2..].trim_end_matches('\n')
                ));
            }
        }
    }
}

/// Block YAML documents as kubectl and Helm write them.
fn nested_document() -> impl Strategy<Value = String> {
    (tree(), any::<bool>(), any::<bool>()).prop_map(|(node, deep, blank)| {
        let node = match node {
            Node::Scalar(_) => Node::Map(vec![("k", node)]),
            other => other,
        };
        let mut text = String::new();
        write_node(&node, 0, deep, &mut text, &mut 0);
        if blank {
            text = text.replace(": # list\n", ":\n\n  # between\n");
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn what_it_reads_the_strict_reader_reads_the_same(lines in prop::collection::vec(line(), 1..12)) {
        let text = lines.join("\n");
        if let Err(e) = agrees(&text) {
            prop_assert!(false, "{}", e);
        }
    }

    #[test]
    fn nested_documents_read_as_the_strict_reader_reads_them(text in nested_document()) {
        if let Err(e) = agrees(&text) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// The generated nested documents are mostly read by this reader (so the
/// property above compares values, not only refusals).
#[test]
fn most_nested_documents_are_read_quickly() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = nested_document();
    let (mut read_quickly, total) = (0, 300);
    for _ in 0..total {
        let text = strategy.new_tree(&mut runner).unwrap().current();
        if agrees(&text).unwrap() {
            read_quickly += 1;
        }
    }
    assert!(read_quickly * 2 > total, "{read_quickly} of {total}");
}

/// The YAML documents under `tests/` that this reader reads.
fn read_fixture_documents() -> &'static [String] {
    static DOCUMENTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    DOCUMENTS.get_or_init(|| {
        fixture_documents()
            .into_iter()
            .filter(|d| read(d).is_some())
            .collect()
    })
}

/// One change to a text: a character put in, taken out or replaced, a
/// line indented or outdented, or a line removed.
#[derive(Clone, Debug)]
enum Edit {
    Insert(prop::sample::Index, char),
    Remove(prop::sample::Index),
    Replace(prop::sample::Index, char),
    Indent(prop::sample::Index, usize),
    Outdent(prop::sample::Index),
    DropLine(prop::sample::Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    let c = prop::sample::select(vec![
        ' ', ':', '-', '#', '"', '\'', '|', '\n', 'a', '0', '.', '[', '{', '&', '*', '!', '\\',
        '~', '>', '?', ',', '\t', 'é',
    ]);
    let i = any::<prop::sample::Index>;
    prop_oneof![
        (i(), c.clone()).prop_map(|(i, c)| Edit::Insert(i, c)),
        i().prop_map(Edit::Remove),
        (i(), c).prop_map(|(i, c)| Edit::Replace(i, c)),
        (i(), 1usize..4).prop_map(|(i, n)| Edit::Indent(i, n)),
        i().prop_map(Edit::Outdent),
        i().prop_map(Edit::DropLine),
    ]
}

fn apply(text: &str, edit: &Edit) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    match edit {
        Edit::Insert(at, c) => chars.insert(at.index(chars.len() + 1), *c),
        Edit::Remove(at) if !chars.is_empty() => {
            chars.remove(at.index(chars.len()));
        }
        Edit::Replace(at, c) if !chars.is_empty() => {
            let i = at.index(chars.len());
            chars[i] = *c;
        }
        Edit::Indent(at, n) => {
            let i = at.index(lines.len());
            lines[i].insert_str(0, &" ".repeat(*n));
            return lines.join("\n");
        }
        Edit::Outdent(at) => {
            let i = at.index(lines.len());
            if lines[i].starts_with(' ') {
                lines[i].remove(0);
            }
            return lines.join("\n");
        }
        Edit::DropLine(at) if lines.len() > 1 => {
            lines.remove(at.index(lines.len()));
            return lines.join("\n");
        }
        _ => {}
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Fixture documents the reader reads, changed a little: near its
    /// edges, what it still reads, the strict reader reads the same.
    #[test]
    fn altered_fixtures_read_as_the_strict_reader_reads_them(
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let documents = read_fixture_documents();
        let mut text = documents[pick.index(documents.len())].clone();
        for e in &edits {
            text = apply(&text, e);
        }
        if let Err(e) = agrees(&text) {
            prop_assert!(false, "{}", e);
        }
    }
}
