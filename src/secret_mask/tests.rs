use super::*;
use proptest::prelude::*;
use serde_json::json;

fn b64(s: &str) -> String {
    STANDARD.encode(s)
}

/// The mask of a `data` value as written in masked text, decoded back to the mask string.
fn unb64(s: &str) -> String {
    String::from_utf8(STANDARD.decode(s.trim()).unwrap()).unwrap()
}

fn yaml(text: &str) -> Value {
    crate::input::yaml_to_json(serde_yaml::from_str::<serde_yaml::Value>(text).unwrap()).unwrap()
}

#[test]
fn masks_are_numbered_by_first_appearance() {
    let m = Masks::default();
    let first = m.mask(b"hunter2");
    assert_eq!(first, "<secret 1>");
    assert!(is_mask(&first));
    assert_eq!(m.mask(b"hunter2"), first);
    assert_eq!(m.mask(b"hunter3"), "<secret 2>");
    assert_eq!(m.mask(b""), "<secret 3>");
    // a mask stands for itself: masking twice changes nothing
    assert_eq!(m.mask(first.as_bytes()), first);
    assert!(is_already_masked(&b64(&first)));
    for not_a_mask in [
        "<secret x>",
        "<secret 0>",
        "<secret 1>>",
        "<secret 1",
        "<secret: 7 bytes, sha256 1a2b3c4d>",
    ] {
        assert!(!is_mask(not_a_mask), "{not_a_mask}");
    }
    // a numbering never shows its values
    assert!(!format!("{m:?}").contains("hunter"));
    // numbers already used in a text are never given to a new value
    let m = Masks::default();
    m.reserve_masks_in(&format!("a: <secret 4>\nb: {}\n", b64("<secret 9>")));
    assert_eq!(m.mask(b"new"), "<secret 10>");
}

#[test]
fn object_data_and_string_data_mask_alike() {
    let m = Masks::default();
    let mut s = json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "db", "annotations": {"a": "keep"}},
        "data": {"password": b64("hunter2"), "bad": "not base64!", "argo": "++++++++", "none": null},
        "stringData": {"password": "hunter2", "port": 5432}
    });
    let n = mask_secret_object(&mut s, &m);
    assert_eq!(n, 4);
    assert_eq!(s["data"]["password"], json!(m.mask(b"hunter2")));
    assert_eq!(s["stringData"]["password"], json!(m.mask(b"hunter2")));
    assert_eq!(s["data"]["bad"], json!(m.mask(b"not base64!")));
    assert_eq!(s["data"]["argo"], json!("++++++++"));
    assert_eq!(s["data"]["none"], Value::Null);
    assert_eq!(s["stringData"]["port"], json!(m.mask(b"5432")));
    assert_eq!(s["metadata"]["annotations"]["a"], json!("keep"));
    // Idempotent.
    assert_eq!(mask_secret_object(&mut s, &m), 0);
}

#[test]
fn object_other_kinds_untouched_and_lists_walked() {
    let m = Masks::default();
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}});
    let mut c = cm.clone();
    assert_eq!(mask_secret_object(&mut c, &m), 0);
    assert_eq!(c, cm);
    // The rule is by kind alone: a Secret of any group and letter case is masked.
    let mut o = json!({"apiVersion": "example.com/v1", "kind": "secret", "data": {"a": "b"}});
    assert_eq!(mask_secret_object(&mut o, &m), 1);
    assert_eq!(o["data"]["a"], json!(m.mask(b"b")));
    let mut list = json!({"apiVersion": "v1", "kind": "List", "items": [cm, {"kind": "Secret", "apiVersion": "v1", "data": {"k": b64("s3cr3t")}}]});
    assert_eq!(mask_secret_object(&mut list, &m), 1);
    assert_eq!(list["items"][1]["data"]["k"], json!(m.mask(b"s3cr3t")));
    assert_eq!(list["items"][0]["data"]["a"], json!("b"));
}

#[test]
fn object_last_applied() {
    let m = Masks::default();
    let inner =
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x"}, "data": {"k": b64("topsecret")}})
                .to_string()
                + "\n";
    let mut s = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"annotations": {LAST_APPLIED_ANNOTATION: inner}}, "data": {"k": b64("topsecret")}});
    assert_eq!(mask_secret_object(&mut s, &m), 2);
    let la = s["metadata"]["annotations"][LAST_APPLIED_ANNOTATION]
        .as_str()
        .unwrap();
    assert!(!la.contains(&b64("topsecret")));
    assert!(la.ends_with('\n'));
    let parsed: Value = serde_json::from_str(la).unwrap();
    assert_eq!(parsed["data"]["k"], json!(m.mask(b"topsecret")));
    // Not JSON: replaced whole.
    let mut g = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"annotations": {LAST_APPLIED_ANNOTATION: "garbage topsecret"}}});
    assert_eq!(mask_secret_object(&mut g, &m), 1);
    assert_eq!(
        g["metadata"]["annotations"][LAST_APPLIED_ANNOTATION],
        json!(m.mask(b"garbage topsecret"))
    );
}

#[test]
fn pointers() {
    // (kind, pointer, is a secret value, is or holds one)
    let la = "/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration";
    let la_unescaped = "/metadata/annotations/kubectl.kubernetes.io/last-applied-configuration";
    for (kind, pointer, value, holds) in [
        ("Secret", "/data/password", true, true),
        ("Secret", "/data", true, true),
        ("Secret", "/stringData", true, true),
        ("Secret", "/stringData/a~1b", true, true),
        ("Secret", la, true, true),
        ("Secret", la_unescaped, true, true),
        ("Secret", "#/data/x", true, true),
        // any letter case, any field but the non-secret ones
        ("secret", "/stringDada/x", true, true),
        ("SECRET", "/password", true, true),
        ("Secret", "/metadata/annotations/other", false, false),
        ("Secret", "/metadata/name", false, false),
        ("Secret", "/metadata/labels", false, false),
        ("Secret", "/type", false, false),
        ("Secret", "/metadata", false, true),
        ("Secret", "/metadata/annotations", false, true),
        ("Secret", "", false, true),
        ("ConfigMap", "/data/x", false, false),
        ("ConfigMap", "", false, false),
    ] {
        assert_eq!(is_secret_pointer(kind, pointer), value, "{kind} {pointer}");
        assert_eq!(may_contain_secret(kind, pointer), holds, "{kind} {pointer}");
    }
}

const SECRET_YAML: &str = "\
# leading comment
apiVersion: v1
kind: Secret # the kind
metadata:
  name: db   # name comment
  namespace: prod
type: Opaque
data:
  password: aHVudGVyMg==   # hunter2
  quoted: \"c2VjcmV0LXZhbHVl\"
  empty: \"\"
  argo: ++++++++
stringData:
  plain: hunter2
  single: 'it''s secret'
  block: |
    line one
    line two
  folded: >-
    folded
    text
  next:
    on-the-next-line
  nul: null
---
apiVersion: v1
kind: ConfigMap  # not a secret
metadata:
  name: cfg
data:
  password: aHVudGVyMg==
";

#[test]
fn yaml_secret_masked_in_place() {
    let m = Masks::default();
    let (out, n) = mask_secrets_in_text(SECRET_YAML, &m);
    assert_eq!(n, 8, "{out}");
    for plain in [
        "c2VjcmV0LXZhbHVl",
        "line one",
        "line two",
        "folded\n",
        "    text",
        "on-the-next-line",
        "it''s secret",
        "  plain: hunter2",
    ] {
        assert!(!out.contains(plain), "{plain} in {out}");
    }
    // Comments, keys, indentation and the ConfigMap are byte-identical.
    assert!(out.starts_with(
            "# leading comment\napiVersion: v1\nkind: Secret # the kind\nmetadata:\n  name: db   # name comment\n"
        ));
    assert!(out.contains("   # hunter2\n"));
    assert!(out.contains("  argo: ++++++++\n"));
    assert!(out.contains("  nul: null\n"));
    let cm = SECRET_YAML.split("---\n").nth(1).unwrap();
    assert!(out.ends_with(&format!("---\n{cm}")));
    // Still YAML, and equal values keep equal masks across data and stringData.
    let doc = out.split("---\n").next().unwrap();
    let v = yaml(doc);
    assert_eq!(
        unb64(v["data"]["password"].as_str().unwrap()),
        v["stringData"]["plain"].as_str().unwrap()
    );
    assert_eq!(v["stringData"]["plain"], json!(m.mask(b"hunter2")));
    assert_eq!(
        v["stringData"]["block"],
        json!(m.mask(b"line one\nline two\n"))
    );
    assert_eq!(v["stringData"]["folded"], json!(m.mask(b"folded text")));
    assert_eq!(v["stringData"]["single"], json!(m.mask(b"it's secret")));
    assert_eq!(v["stringData"]["next"], json!(m.mask(b"on-the-next-line")));
    assert_eq!(
        unb64(v["data"]["quoted"].as_str().unwrap()),
        m.mask(b"secret-value")
    );
    assert_eq!(unb64(v["data"]["empty"].as_str().unwrap()), m.mask(b""));
    // Masking again changes nothing.
    assert_eq!(mask_secrets_in_text(&out, &m), (out.clone(), 0));
}

#[test]
fn yaml_sorted_keys_and_lists() {
    let m = Masks::default();
    let text = "apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n    token: dG9rZW4tdmFsdWU=\n  kind: Secret\n  metadata:\n    name: a\n- apiVersion: v1\n  data:\n    token: dG9rZW4tdmFsdWU=\n  kind: ConfigMap\nkind: List\n";
    let (out, n) = mask_secrets_in_text(text, &m);
    assert_eq!(n, 1);
    assert_eq!(out.matches("dG9rZW4tdmFsdWU=").count(), 1, "{out}");
    assert!(out.contains("  kind: ConfigMap\n"));
    let v = yaml(&out);
    assert_eq!(
        unb64(v["items"][0]["data"]["token"].as_str().unwrap()),
        m.mask(b"token-value")
    );
}

#[test]
fn yaml_flow_style_and_fallback() {
    let m = Masks::default();
    let text = "kind: Secret\napiVersion: v1\ndata: {a: YWJj, b: \"ZGVm\"}\n";
    let (out, n) = mask_secrets_in_text(text, &m);
    assert_eq!(n, 2, "{out}");
    assert!(
        out.starts_with("kind: Secret\napiVersion: v1\ndata: {\""),
        "{out}"
    );
    assert!(!out.contains("YWJj") && !out.contains("ZGVm"));
    // A whole flow-style Secret is not followed by the line scanner: the document is rendered as masked JSON.
    let text =
        "# c\n{kind: Secret, apiVersion: v1, data: {a: YWJjZGVmZ2g=}}\n---\nkind: ConfigMap\n";
    let (out, n) = mask_secrets_in_text(text, &m);
    assert_eq!(n, 1, "{out}");
    assert!(!out.contains("YWJjZGVmZ2g="));
    assert!(out.ends_with("---\nkind: ConfigMap\n"));
    // Aliases: the value lives elsewhere.
    let text = "x: &pw c2VjcmV0\n---\nkind: Secret\ndata:\n  a: *pw\n  b: c2VjcmV0\n";
    let (out, _) = mask_secrets_in_text(text, &m);
    let second = out.split("---\n").nth(1).unwrap();
    assert!(!second.contains("c2VjcmV0"), "{out}");
}

#[test]
fn yaml_last_applied_annotation() {
    let m = Masks::default();
    let la = json!({"apiVersion":"v1","kind":"Secret","metadata":{"name":"db"},"data":{"password": b64("hunter22")},"stringData":{"x":"plainvalue"}}).to_string();
    let text = format!("apiVersion: v1\nkind: Secret\nmetadata:\n  annotations:\n    {LAST_APPLIED_ANNOTATION}: |\n      {la}\n    other: keep\n  name: db\ndata:\n  password: {}\n", b64("hunter22"));
    let (out, n) = mask_secrets_in_text(&text, &m);
    assert_eq!(n, 3, "{out}");
    assert!(
        !out.contains(&b64("hunter22")) && !out.contains("plainvalue"),
        "{out}"
    );
    assert!(out.contains("    other: keep\n  name: db\n"));
    let v = yaml(&out);
    let inner: Value = serde_json::from_str(
        v["metadata"]["annotations"][LAST_APPLIED_ANNOTATION]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(inner["data"]["password"], v["data"]["password"]);
    assert_eq!(inner["stringData"]["x"], json!(m.mask(b"plainvalue")));
}

#[test]
fn json_documents() {
    let m = Masks::default();
    let secret = json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "db", "annotations": {LAST_APPLIED_ANNOTATION: json!({"kind":"Secret","apiVersion":"v1","data":{"p": b64("hunter2")}}).to_string()}},
        "data": {"p": b64("hunter2")},
        "stringData": {"q": "hunter2"}
    });
    let pretty = serde_json::to_string_pretty(&json!({"apiVersion": "v1", "kind": "List", "items": [secret, {"kind": "ConfigMap", "data": {"p": "hunter2"}}]})).unwrap();
    let (out, n) = mask_secrets_in_text(&pretty, &m);
    assert_eq!(n, 3, "{out}");
    assert!(!out.contains(&b64("hunter2")));
    assert_eq!(out.matches("hunter2").count(), 1); // the ConfigMap's
    let v: Value = serde_json::from_str(&out).unwrap();
    let s = &v["items"][0];
    assert_eq!(
        unb64(s["data"]["p"].as_str().unwrap()),
        s["stringData"]["q"].as_str().unwrap()
    );
    // Only the values changed: same number of lines.
    assert_eq!(out.lines().count(), pretty.lines().count());
    // Compact, several values in a row.
    let compact = format!(
        "{}\n{}\n",
        json!({"kind":"Secret","data":{"a":b64("zzzzzz")}}),
        json!({"kind":"ConfigMap"})
    );
    let (out, n) = mask_secrets_in_text(&compact, &m);
    assert_eq!(n, 1);
    assert!(!out.contains(&b64("zzzzzz")));
    assert!(out.ends_with("\n{\"kind\":\"ConfigMap\"}\n"));
}

#[test]
fn crlf_kept() {
    let m = Masks::default();
    let text = "kind: Secret\r\napiVersion: v1\r\ndata:\r\n  a: YWJjZA==\r\n  b: ZGVm\r\n";
    let (out, n) = mask_secrets_in_text(text, &m);
    assert_eq!(n, 2);
    assert_eq!(out.matches("\r\n").count(), 5);
    assert!(!out.contains("YWJjZA==") && !out.contains("ZGVm\r"));
}

#[test]
fn argo_normal_diff_masked() {
    let m = Masks::default();
    let text = "===== /Secret default/db ======\n9c9\n<   password: aHVudGVyMg==\n---\n>   password: aHVudGVyMw==\n===== apps/Deployment default/web ======\n20c20\n<         image: nginx:1.1\n---\n>         image: nginx:1.2\n";
    let (out, n) = mask_secrets_in_text(text, &m);
    assert_eq!(n, 2, "{out}");
    assert!(!out.contains("aHVudGVyMg==") && !out.contains("aHVudGVyMw=="));
    assert!(out.contains(&format!("<   password: {}\n", b64(&m.mask(b"hunter2")))));
    assert!(out.contains("<         image: nginx:1.1\n---\n>         image: nginx:1.2\n"));
}

#[test]
fn argo_unified_diff_uses_header_kind() {
    let m = Masks::default();
    let text = "===== /Secret prod/db ======\n--- /tmp/a/db-live.yaml\n+++ /tmp/a/db\n@@ -7,3 +7,3 @@\n   user: YWRtaW4=\n-  password: aHVudGVyMg==\n+  password: aHVudGVyMw==\n===== /ConfigMap prod/c ======\n--- /tmp/a/c-live.yaml\n+++ /tmp/a/c\n@@ -7,2 +7,2 @@\n-  password: aHVudGVyMg==\n+  password: aHVudGVyMw==\n";
    let (out, n) = mask_secrets_in_text(text, &m);
    assert_eq!(n, 3, "{out}");
    assert_eq!(out.matches("aHVudGVy").count(), 2, "{out}");
    assert!(!out.contains("YWRtaW4="));
    assert!(
        out.ends_with("@@ -7,2 +7,2 @@\n-  password: aHVudGVyMg==\n+  password: aHVudGVyMw==\n")
    );
}

#[test]
fn git_diff_masked() {
    let m = Masks::default();
    // kind is outside the hunk; the hunk shows `data:` as context.
    let text = "diff --git a/secret.yaml b/secret.yaml\nindex 1..2 100644\n--- a/secret.yaml\n+++ b/secret.yaml\n@@ -5,4 +5,4 @@ metadata:\n   namespace: prod\n data:\n-  password: aHVudGVyMg==\n+  password: aHVudGVyMw==\n   user: YWRtaW4=\n";
    let (out, n) = mask_secrets_in_text(text, &m);
    assert_eq!(n, 3, "{out}");
    assert!(!out.contains("aHVudGVy") && !out.contains("YWRtaW4="));
    assert!(out.contains("   namespace: prod\n data:\n"));
    // Cut-off lines with the hunk context naming `data:`.
    let text =
            "--- a/s.yaml\n+++ b/s.yaml\n@@ -9,2 +9,2 @@ data:\n-  password: aHVudGVyMg==\n+  password: aHVudGVyMw==\n";
    let (out, n) = mask_secrets_in_text(text, &m);
    assert_eq!(n, 2, "{out}");
}

#[test]
fn diff_context_line_split_when_sides_differ() {
    let m = Masks::default();
    let text = "--- a/s.yaml\n+++ b/s.yaml\n@@ -1,6 +1,6 @@\n apiVersion: v1\n kind: Secret\n stringData:\n   key: |\n-    old-secret-line\n+    new-secret-line\n";
    let (out, n) = mask_secrets_in_text(text, &m);
    assert!(
        !out.contains("old-secret-line") && !out.contains("new-secret-line"),
        "{out}"
    );
    assert_eq!(n, 2);
    let old_mask = m.mask(b"old-secret-line\n");
    let new_mask = m.mask(b"new-secret-line\n");
    assert!(
        out.contains(&format!(
            "-  key: \"{old_mask}\"\n+  key: \"{new_mask}\"\n-\n+\n"
        )),
        "{out}"
    );
    assert!(out.starts_with(
            "--- a/s.yaml\n+++ b/s.yaml\n@@ -1,6 +1,6 @@\n apiVersion: v1\n kind: Secret\n stringData:\n"
        ));
}

#[test]
fn texts_left_untouched() {
    let m = Masks::default();
    let cm_la = json!({"kind":"ConfigMap","data":{"a":"visible"}}).to_string();
    for (what, text) in [
        ("empty", String::new()),
        ("a newline", "\n".into()),
        ("a ConfigMap-like mapping", "hello: world\n".into()),
        ("the word Secret", "Secret\n---\n...\n".into()),
        ("a list", "- a\n- b: c\n".into()),
        (
            "a ConfigMap's last-applied annotation",
            format!("kind: ConfigMap\nmetadata:\n  annotations:\n    {LAST_APPLIED_ANNOTATION}: '{cm_la}'\n"),
        ),
        (
            "kubectl diff's masks",
            "diff -u -N /tmp/LIVE-1/v1.Secret.default.db /tmp/MERGED-2/v1.Secret.default.db\n--- /tmp/LIVE-1/v1.Secret.default.db\t2024-01-01\n+++ /tmp/MERGED-2/v1.Secret.default.db\t2024-01-01\n@@ -1,6 +1,6 @@\n apiVersion: v1\n data:\n-  password: '*** (before)'\n+  password: '*** (after)'\n   user: '***'\n kind: Secret\n metadata:\n".into(),
        ),
        (
            "Argo CD's masks",
            "===== /Secret default/db ======\n9c9\n<   password: ++++++++\n---\n>   password: ++++++++++++\n".into(),
        ),
        (
            "a Deployment's diff",
            "--- a/d.yaml\n+++ b/d.yaml\n@@ -1,4 +1,4 @@\n kind: Deployment\n spec:\n-  replicas: 2\n+  replicas: 3\n   paused: false\n".into(),
        ),
        (
            "a ConfigMap whose kind is visible elsewhere in the file",
            "--- a/c.yaml\n+++ b/c.yaml\n@@ -1,2 +1,2 @@\n apiVersion: v1\n kind: ConfigMap\n@@ -8,2 +8,2 @@\n data:\n-  a: one\n+  a: two\n".into(),
        ),
    ] {
        assert_eq!(mask_secrets_in_text(&text, &m), (text.clone(), 0), "{what}");
    }
}

#[test]
fn unreadable_secret_documents_are_masked_whole() {
    let m = Masks::default();
    for (t, kept) in [
        ("just some words\nkind: Secret\n", ""),
        (
            "kind: Secret\ndata:\n\tpassword: hunter2\n---\nkind: ConfigMap\n",
            "---\nkind: ConfigMap\n",
        ),
        (
            "{\"kind\": \"secret\", \"data\": {\"a\": \"hunter2\" \"b\": 1}}",
            "",
        ),
    ] {
        let (out, n) = mask_secrets_in_text(t, &m);
        assert_eq!(out, format!("{UNREADABLE_SECRET}{kept}"), "{t}");
        assert!(n >= 1);
    }
    // In a diff, a Secret on one JSON line is masked and keeps its marker.
    let diff = "@@ -1 +1 @@\n-{\"kind\":\"Secret\",\"data\":{\"a\":\"hunter2\" 1}}\n+{\"kind\":\"Secret\",\"stringData\":{\"a\":\"hunter3\"}}\n";
    let (out, _) = mask_secrets_in_text(diff, &m);
    assert!(!out.contains("hunter"), "{out}");
    assert_eq!(
        out.lines().map(|l| &l[..1]).collect::<String>(),
        "@-+",
        "{out}"
    );
}

// --- properties -----------------------------------------------------------------------------------------

fn word() -> impl Strategy<Value = String> {
    "[a-z][a-zA-Z0-9]{0,10}"
}

/// Values that cannot be confused with anything else in the text: 12+ alphanumerics.
fn secret_value() -> impl Strategy<Value = String> {
    "[A-Za-z0-9]{12,30}"
}

fn comment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[ -~]{0,20}".prop_map(|c| format!("  # {c}"))
    ]
}

/// A random non-Secret document: kinds, keys and values of every style, comments.
fn other_doc() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            Just("ConfigMap"),
            Just("Deployment"),
            Just("SealedSecret"),
            Just("Service")
        ],
        prop::collection::vec((word(), "[ -~]{0,20}", 0..4usize, comment()), 0..8),
    )
        .prop_map(|(kind, entries)| {
            let mut s = format!("apiVersion: v1\nkind: {kind}\nmetadata:\n  name: x\ndata:\n");
            for (k, v, style, c) in entries {
                let v = v.replace('\'', "''");
                match style {
                    0 => s.push_str(&format!("  {k}: '{v}'{c}\n")),
                    1 => s.push_str(&format!("  {k}: |\n    {}\n", v.trim())),
                    2 => s.push_str(&format!("  # {v}\n")),
                    _ => s.push_str(&format!("  {k}: \"{}\"{c}\n", v.replace(['\\', '"'], ""))),
                }
            }
            s
        })
}

/// A random Secret: values in random fields and styles, random key order. Returns the text and the values.
fn secret_doc() -> impl Strategy<Value = (String, Vec<String>)> {
    (
        prop::collection::vec(
            (word(), secret_value(), 0..5usize, any::<bool>(), comment()),
            1..6,
        ),
        any::<bool>(),
        prop_oneof![Just(""), Just("- "),],
    )
        .prop_map(|(entries, data_first, dash)| {
            let pad = if dash.is_empty() { "" } else { "  " };
            let mut data = format!("{pad}data:\n");
            let mut string_data = format!("{pad}stringData:\n");
            let mut values = Vec::new();
            let mut keys = std::collections::BTreeSet::new();
            for (k, v, style, in_data, c) in entries {
                // A key twice in one map is not YAML a cluster would hold.
                if !keys.insert((in_data, k.clone())) {
                    continue;
                }
                values.push(v.clone());
                let target = if in_data { &mut data } else { &mut string_data };
                let shown = if in_data { b64(&v) } else { v.clone() };
                match style {
                    0 => target.push_str(&format!("{pad}  {k}: {shown}{c}\n")),
                    1 => target.push_str(&format!("{pad}  {k}: \"{shown}\"{c}\n")),
                    2 => target.push_str(&format!("{pad}  {k}: '{shown}'{c}\n")),
                    3 => target.push_str(&format!("{pad}  {k}: |-{c}\n{pad}    {shown}\n")),
                    _ => target.push_str(&format!("{pad}  {k}:\n{pad}    {shown}\n")),
                }
            }
            let head = format!("{dash}apiVersion: v1\n{pad}metadata:\n{pad}  name: s\n");
            let kind = format!("{pad}kind: Secret\n");
            let body = if data_first {
                format!("{data}{kind}{string_data}")
            } else {
                format!("{kind}{string_data}{data}")
            };
            let text = if dash.is_empty() {
                format!("{head}{body}")
            } else {
                format!("kind: List\nitems:\n{head}{body}")
            };
            (text, values)
        })
}

/// The same Secret with every value changed (reversed, plus a letter).
fn changed(text: &str, values: &[String]) -> (String, Vec<String>) {
    let mut out = text.to_string();
    let mut new_values = Vec::new();
    for v in values {
        let nv: String = v.chars().rev().chain(std::iter::once('Q')).collect();
        out = out.replace(&b64(v), &b64(&nv)).replace(v.as_str(), &nv);
        new_values.push(nv);
    }
    (out, new_values)
}

/// Diffs of two texts with the same lines but changed values, in three styles.
fn diffs(old: &str, new: &str) -> Vec<String> {
    let o: Vec<&str> = old.lines().collect();
    let n: Vec<&str> = new.lines().collect();
    let mut full = format!(
        "--- a/s.yaml\n+++ b/s.yaml\n@@ -1,{} +1,{} @@\n",
        o.len(),
        n.len()
    );
    let mut normal = String::from("===== /Secret ns/s ======\n");
    let mut zero = String::from("diff -u -N /tmp/LIVE-1/v1.Secret.ns.s /tmp/MERGED-2/v1.Secret.ns.s\n--- /tmp/LIVE-1/v1.Secret.ns.s\n+++ /tmp/MERGED-2/v1.Secret.ns.s\n");
    for (k, (a, b)) in o.iter().zip(&n).enumerate() {
        if a == b {
            full.push_str(&format!(" {a}\n"));
        } else {
            full.push_str(&format!("-{a}\n+{b}\n"));
            normal.push_str(&format!("{0}c{0}\n< {a}\n---\n> {b}\n", k + 1));
            zero.push_str(&format!("@@ -{0} +{0} @@\n-{a}\n+{b}\n", k + 1));
        }
    }
    vec![full, normal, zero]
}

proptest! {
    // PROPTEST_CASES raises the number of cases for a longer run.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(128),
        ..ProptestConfig::default()
    })]

    #[test]
    fn secret_values_never_survive_in_diffs((secret, values) in secret_doc()) {
        let m = Masks::default();
        let (new, new_values) = changed(&secret, &values);
        for d in diffs(&secret, &new) {
            let (out, _) = mask_secrets_in_text(&d, &m);
            for v in values.iter().chain(&new_values) {
                prop_assert!(!out.contains(v.as_str()), "{} survived in {}", v, out);
                prop_assert!(!out.contains(&b64(v)), "{} survived in {}", v, out);
            }
            prop_assert_eq!(out.lines().filter(|l| l.starts_with("@@") || l.starts_with("=====")).count(),
                d.lines().filter(|l| l.starts_with("@@") || l.starts_with("=====")).count());
        }
    }

    #[test]
    fn never_panics(s in any::<String>()) {
        let m = Masks::default();
        let _ = mask_secrets_in_text(&s, &m);
    }

    #[test]
    fn never_panics_yamlish(s in "(kind: Secret\n|data:\n|stringData:\n|  [a-z]: [\"'|>{}\\[\\]a-z0-9+/= #-]{0,8}\n|---\n|@@ -1 \\+1 @@\n|[-+ ]|  |\t|\"|'|[{}\\[\\]]|#|\n){0,40}") {
        let m = Masks::default();
        let (out, _) = mask_secrets_in_text(&s, &m);
        let _ = mask_secrets_in_text(&out, &m);
    }

    #[test]
    fn never_panics_on_damaged_manifests(
        base in prop_oneof![Just(0usize), Just(1), Just(2)],
        edits in prop::collection::vec((any::<prop::sample::Index>(), "[ -~\n\t\r\u{e9}\u{1F600}]{0,6}", 0..4usize), 1..12),
    ) {
        let samples = [
            SECRET_YAML.to_string(),
            "--- a/s.yaml\n+++ b/s.yaml\n@@ -1,6 +1,6 @@\n apiVersion: v1\n kind: Secret\n stringData:\n   key: |\n-    old\n+    new\n   x: 'y'\n".to_string(),
            serde_json::to_string_pretty(&json!({"kind": "Secret", "apiVersion": "v1", "metadata": {"annotations": {LAST_APPLIED_ANNOTATION: "{\"kind\":\"Secret\",\"data\":{\"a\":\"YQ==\"}}"}}, "data": {"a": "YWJj"}})).unwrap(),
        ];
        let m = Masks::default();
        let mut text = samples[base].clone();
        for (at, insert, cut) in edits {
            let mut pos = at.index(text.len() + 1);
            while !text.is_char_boundary(pos) { pos -= 1; }
            let mut end = (pos + cut).min(text.len());
            while !text.is_char_boundary(end) { end += 1; }
            text.replace_range(pos..end, &insert);
        }
        let (out, _) = mask_secrets_in_text(&text, &m);
        let _ = mask_secrets_in_text(&out, &m);
    }

    #[test]
    fn non_secret_documents_byte_identical(docs in prop::collection::vec(other_doc(), 1..4)) {
        let m = Masks::default();
        let text = docs.join("---\n");
        let (out, n) = mask_secrets_in_text(&text, &m);
        prop_assert_eq!(n, 0);
        prop_assert_eq!(out, text);
    }

    #[test]
    fn secret_values_never_survive((secret, values) in secret_doc(), before in other_doc(), after in other_doc()) {
        let m = Masks::default();
        let text = format!("{before}---\n{secret}---\n{after}");
        let (out, n) = mask_secrets_in_text(&text, &m);
        prop_assert_eq!(n, values.len(), "{}", out);
        for v in &values {
            prop_assert!(!out.contains(v.as_str()), "{} survived in {}", v, out);
            prop_assert!(!out.contains(&b64(v)), "{} survived in {}", v, out);
        }
        // Everything but the Secret is byte-identical.
        let head = format!("{before}---\n");
        let tail = format!("---\n{after}");
        prop_assert!(out.starts_with(&head));
        prop_assert!(out.ends_with(&tail));
        // Idempotent.
        prop_assert_eq!(mask_secrets_in_text(&out, &m), (out.clone(), 0));
        // Still YAML; data masks decode to the stringData mask of the same value.
        let doc = out.split("---\n").nth(1).unwrap();
        let v = yaml(doc);
        let obj = if v["kind"] == json!("List") { v["items"][0].clone() } else { v };
        for field in ["data", "stringData"] {
            if let Some(entries) = obj[field].as_object() {
                for val in entries.values() {
                    let s = val.as_str().unwrap();
                    let mask = if field == "data" { unb64(s) } else { s.to_string() };
                    prop_assert!(is_mask(&mask), "{}", mask);
                    prop_assert!(values.iter().any(|p| m.mask(p.as_bytes()) == mask));
                }
            }
        }
    }
}

/// Whether a value mentions "secret" is the word in any case anywhere in a
/// key or a string, at the start, the end, after a false start or after a
/// multi-byte character; never in a number or a near miss.
#[test]
fn a_mention_of_secret_is_found_wherever_it_stands() {
    for (value, mentions) in [
        (json!("Secret"), true),
        (json!("xxSECRETxx"), true),
        (json!("s sec secr secre sEcReT"), true),
        (json!("ssecret"), true),
        (json!("\u{e9}secret"), true),
        (json!({"data": {"my-secret-key": 1}}), true),
        (json!([1, ["a", {"k": "top-SeCrEt"}]]), true),
        (json!("secre"), false),
        (json!("s\u{e9}cret s"), false),
        (json!({"sec": "ret", "s": "ecret"}), false),
        (json!(7), false),
        (json!(""), false),
    ] {
        assert_eq!(mentions_secret(&value), mentions, "{value}");
    }
}

proptest! {
    /// The search agrees with lower-casing the text and looking for the
    /// word, on texts made mostly of its letters in either case.
    #[test]
    fn the_mention_search_agrees_with_lower_casing(text in "[sSeEcCrRtT \u{e9}x]{0,40}") {
        let lowered = text.to_ascii_lowercase().contains("secret");
        prop_assert_eq!(mentions_secret(&Value::String(text.clone())), lowered);
    }
}

/// A text spells "secret" when it holds the word in any case, or an escape
/// that writes a letter by its code or joins two lines; other escapes and
/// tags leave every letter as it is written.
#[test]
fn a_text_that_could_spell_secret_is_told_from_one_that_cannot() {
    for (text, could) in [
        ("kind: Secret\n", true),
        ("env:\n- valueFrom:\n    secretKeyRef: {}\n", true),
        ("k: \"\\x73ecret\"\n", true),
        ("k: \"\\u0053ECRET\"\n", true),
        ("k: \"\\U00000073ecret\"\n", true),
        ("k: \"sec\\\nret\"\n", true),
        ("k: \"sec\\\r\nret\"\n", true),
        ("k: \"sec\\\u{85}ret\"\n", true),
        ("k: \"sec\\\u{2028}ret\"\n", true),
        ("k: \"sec\\\u{2029}ret\"\n", true),
        ("k: \"sec\u{2028}ret\"\n", false),
        ("k: secre\n", false),
        ("k: \"a\\\"b\\n\\t\\\\\"\n", false),
        ("k: a\\", false),
        ("SECRET", true),
        ("cret: c\n", false),
        ("k: '\\\\'\n", false),
        ("k: !!binary c2VjcmV0\n", false),
        ("k: sec ret\n", false),
        ("", false),
    ] {
        assert_eq!(may_spell_secret(text), could, "{text:?}");
    }
    // The word or an escape at the end of a long text counts; cut short,
    // it does not.
    for before in [0, 1, 2, 3, 64 * 1024] {
        for spelling in ["SeCrEt", "\\u", "\\\n"] {
            let text = format!("{}{spelling}", "a".repeat(before));
            assert!(may_spell_secret(&text), "{before} {spelling:?}");
            assert!(!may_spell_secret(&text[..text.len() - 1]), "{before}");
        }
    }
}

proptest! {
    /// Whatever a text's objects mention, the text could spell: a string
    /// made of the word's pieces, escapes and line breaks, read as YAML.
    #[test]
    fn what_an_object_mentions_its_text_could_spell(
        pieces in proptest::collection::vec(
            proptest::sample::select(vec![
                "s", "S", "ec", "ecret", "ECRET", "r", "et", "\\x73", "\\x53", "\\u0073",
                "\\U00000053", "\\\n  ", "\\\u{85}", "\\\u{2028}", "\\n", "\\\"", " ",
                "\n  ", "x",
            ]),
            0..8,
        ),
        quoted in proptest::bool::ANY,
    ) {
        let value = pieces.concat();
        let text = if quoted {
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: \"{value}\"\n")
        } else {
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  {value}: v\n")
        };
        if let Ok(docs) = crate::input::parse_side(&text, crate::input::Side::Git) {
            if docs.iter().any(|d| mentions_secret(&d.object)) {
                prop_assert!(may_spell_secret(&text), "{text:?}");
            }
        }
        if !text.contains('\\') {
            let lowered = text.to_ascii_lowercase().contains("secret");
            prop_assert_eq!(may_spell_secret(&text), lowered);
        }
    }
}
