//! Hostile and broken input: a clear error or a correct report, never a panic.

use drift_doctor::{analyze, Options, Side};

fn deployment(name: &str) -> String {
    format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: n\nspec:\n  replicas: 1\n")
}

#[test]
fn malformed_yaml_names_side_document_line_and_column() {
    let live = format!(
        "{}---\nkind: Deployment\nmetadata:\n  name: x\n  labels: {{a: b\n",
        deployment("a")
    );
    let e = analyze(&deployment("a"), &live, &Options::default()).unwrap_err();
    assert_eq!(e.side, Side::Live);
    assert_eq!(e.document, 2);
    assert!(e.line >= 10 && e.column > 0, "{e}");
}

#[test]
fn an_error_at_the_end_of_the_input_points_at_the_last_line_once() {
    // The file has five lines and a final newline; the `[` is never closed.
    let bad = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels: [a, b\n";
    let e = analyze(bad, bad, &Options::default()).unwrap_err();
    assert_eq!((e.side, e.document), (Side::Git, 1), "{e}");
    // Just after `b`, where the missing `]` belongs: not line 6 or 7, which
    // the file does not have.
    assert_eq!((e.line, e.column), (5, 16), "{e}");
    assert!(!e.message.contains(" at line "), "{e}");
    let shown = e.to_string();
    assert!(
        shown.starts_with("git side, document 1, line 5, column 16: invalid YAML: "),
        "{shown}"
    );
    assert_eq!(shown.matches("line").count(), 1, "{shown}");

    // Followed by another document: the end of this one, not the next `---`.
    let two = format!("{bad}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n");
    let e = analyze(&deployment("a"), &two, &Options::default()).unwrap_err();
    assert_eq!(
        (e.side, e.document, e.line, e.column),
        (Side::Live, 1, 5, 16),
        "{e}"
    );

    // JSON that stops before its closing brace, with blank lines after.
    let json = "{\"kind\": \"ConfigMap\",\n \"metadata\": {\"name\": \"x\"}\n\n\n";
    let e = analyze(json, &deployment("a"), &Options::default()).unwrap_err();
    assert_eq!((e.line, e.column), (2, 27), "{e}");
    assert!(!e.message.contains(" at line "), "{e}");
}

#[test]
fn malformed_json_names_line_and_column() {
    let e = analyze(
        "{\"kind\": \"ConfigMap\",\n \"metadata\": {\"name\": \"x\"},\n \"data\": {\"a\": }\n}",
        &deployment("a"),
        &Options::default(),
    )
    .unwrap_err();
    assert_eq!(e.side, Side::Git);
    assert_eq!(e.line, 3, "{e}");
    assert!(e.message.contains("JSON"), "{e}");
}

#[test]
fn yaml_alias_bomb_is_refused_quickly() {
    let mut bomb = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let prev = i - 1;
        bomb.push_str(&format!("  a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"));
    }
    let start = std::time::Instant::now();
    let result = analyze(&bomb, &deployment("a"), &Options::default());
    assert!(result.is_err(), "an alias bomb must be refused");
    assert!(start.elapsed().as_secs() < 10);
}

#[test]
fn deep_nesting_gives_an_error_or_a_report() {
    for depth in [64usize, 200, 5000] {
        let mut v = String::from("x");
        for _ in 0..depth {
            v = format!("{{a: {v}}}");
        }
        let git = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata: {v}\n");
        let _ = analyze(&git, &git, &Options::default());
        let json_nest = format!(
            "{{\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"d\"}},\"data\":{}{}}}",
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let _ = analyze(&json_nest, &json_nest, &Options::default());
    }
    let mut v = String::from("x");
    for _ in 0..64 {
        v = format!("{{a: {v}}}");
    }
    let git = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata: {v}\n");
    let report =
        analyze(&git, &git, &Options::default()).expect("64 levels is legal Kubernetes YAML");
    assert_eq!(report.summary.synced, 1);
}

#[test]
fn binary_garbage_and_empty_sides_are_clear_errors() {
    let garbage: String = (0u32..4000)
        .map(|i| char::from_u32((i * 7919) % 0xD7FF).unwrap_or('x'))
        .collect();
    assert!(analyze(&garbage, &deployment("a"), &Options::default()).is_err());
    assert!(
        analyze("\u{0}\u{1}\u{2}", &deployment("a"), &Options::default())
            .unwrap_err()
            .message
            .contains("NUL")
    );
    let e = analyze("", &deployment("a"), &Options::default()).unwrap_err();
    assert!(e.message.contains("empty"), "{e}");
    let e = analyze(
        &deployment("a"),
        "# only a comment\n---\n",
        &Options::default(),
    )
    .unwrap_err();
    assert_eq!(e.side, Side::Live);
    assert!(drift_doctor::input::decode_text(vec![0x66, 0xff, 0xfe], Side::Git).is_err());
}

#[test]
fn documents_that_are_not_kubernetes_objects_are_named() {
    let e = analyze("just a string\n", &deployment("a"), &Options::default()).unwrap_err();
    assert!(e.message.contains("not a Kubernetes object"), "{e}");
    let e = analyze(
        &deployment("a"),
        &format!("{}---\n- 1\n- 2\n", deployment("a")),
        &Options::default(),
    )
    .unwrap_err();
    assert_eq!((e.side, e.document), (Side::Live, 2), "{e}");
}

#[test]
fn a_twenty_megabyte_side_is_analysed() {
    let mut live = String::with_capacity(21 << 20);
    let mut i = 0;
    while live.len() < 20 << 20 {
        live.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: n\ndata:\n  payload: \"{}\"\n",
            "z".repeat(900)
        ));
        i += 1;
    }
    let report = analyze(&deployment("a"), &live, &Options::default()).expect("large input parses");
    assert_eq!(report.summary.resources, i + 1);
}

/// Files written by Windows PowerShell 5 (`>`) are UTF-16 with a byte order
/// mark and editors add a UTF-8 one; Argo CD reads both, so drift-doctor does.
#[test]
fn utf16_and_byte_order_marks_are_read_as_argo_cd_reads_them() {
    use drift_doctor::input::decode_text;
    let text = deployment("a");
    let le: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let be: Vec<u8> = [0xFE, 0xFF]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
        .collect();
    let utf8_bom: Vec<u8> = [0xEF, 0xBB, 0xBF].into_iter().chain(text.bytes()).collect();
    let plain = analyze(&text, &text, &Options::default()).unwrap();
    for bytes in [le, be, utf8_bom] {
        let decoded = decode_text(bytes, Side::Git).expect("decodes");
        let report = analyze(&decoded, &text, &Options::default()).expect("parses");
        assert_eq!(report.resources.len(), plain.resources.len());
        assert_eq!(report.summary.out_of_sync, 0);
    }
    // A cut-off UTF-16 file is refused with the reason and the fix.
    let mut odd: Vec<u8> = vec![0xFF, 0xFE];
    odd.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    odd.push(0x41);
    let e = decode_text(odd, Side::Live).unwrap_err();
    assert_eq!((e.side, e.line, e.column), (Side::Live, 1, 1));
    assert!(e.message.contains("UTF-16"), "{e}");
}

/// go-yaml, which Argo CD reads manifests with, expands YAML merge keys: a
/// chart's `<<: *defaults` is the keys it merges, never a key named `<<`.
#[test]
fn yaml_merge_keys_are_expanded_as_argo_cd_expands_them() {
    let git = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: shop}\n\
               x-defaults: &defaults {mode: fast, region: eu}\n\
               data:\n  <<: *defaults\n  region: us\n";
    let live = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: shop}\n\
                x-defaults: {mode: fast, region: eu}\ndata: {mode: fast, region: us}\n";
    let report = analyze(git, live, &Options::default()).unwrap();
    assert_eq!(
        report.summary.out_of_sync, 0,
        "{:?}",
        report.resources[0].differences
    );
    // A list of mappings: the earlier one wins; the map's own keys win over both.
    let git = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: shop}\n\
               data:\n  <<: [{mode: fast, tier: a}, {mode: slow, zone: z1}]\n  tier: b\n";
    let live = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: shop}\n\
                data: {mode: fast, tier: b, zone: z1}\n";
    let report = analyze(git, live, &Options::default()).unwrap();
    assert_eq!(
        report.summary.out_of_sync, 0,
        "{:?}",
        report.resources[0].differences
    );
    // A merge of a scalar is an error at its line, as in go-yaml.
    let git = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags}\ndata:\n  <<: 3\n";
    let e = analyze(git, live, &Options::default()).unwrap_err();
    assert_eq!(e.side, Side::Git);
    assert!(e.message.contains("merge key"), "{e}");
}
