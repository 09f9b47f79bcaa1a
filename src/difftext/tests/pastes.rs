//! Pasted fragments: masks, multi-line values, copies from terminals and web
//! pages, several outputs together, hunks without headers.

use super::*;
use serde_json::json;

#[test]
fn secret_masks_stay_strings() {
    let rs = parse_diff_text(ARGO_NORMAL).unwrap();
    let s = find(&rs, "Secret", "db-credentials");
    let c = change(s, "/data/password");
    assert_eq!(
        (c.live.clone(), c.git.clone()),
        (Some(json!("++++++++")), Some(json!("++++++++++++")))
    );
}

#[test]
fn multi_line_values_are_one_change() {
    let rs = parse_diff_text(BLOCKS).unwrap();
    assert_eq!(rs.len(), 2);
    // Unified: the block scalar's key is shown, the whole certificate is one change.
    let u = &rs[1];
    let cert = change(u, "/data/ca.crt");
    assert!(cert.certain);
    let live = cert.live.as_ref().and_then(Value::as_str).unwrap();
    let git = cert.git.as_ref().and_then(Value::as_str).unwrap();
    assert!(
        live.starts_with("-----BEGIN CERTIFICATE-----\nMIIBdz")
            && live.ends_with("-----END CERTIFICATE-----\n")
    );
    assert!(
        git.starts_with("-----BEGIN CERTIFICATE-----\nMIIBeD")
            && git.ends_with("-----END CERTIFICATE-----\n")
    );
    assert_eq!(git.lines().count(), 6);
    // The config file's key is shown but not its end: one change, flagged as partial.
    let conf = change(u, "/data/nginx.conf");
    assert!(!conf.certain);
    let conf_git = text_of(&conf.git);
    assert!(conf_git.contains("worker_connections 4096;\n}\n\nhttp {"));
    // The last hunk is inside nginx.conf without showing its key: carried over from the hunk before.
    let carried: Vec<&TextChange> = u
        .changes
        .iter()
        .filter(|c| path_str(&c.path) == "/data/nginx.conf")
        .collect();
    assert_eq!(carried.len(), 2);
    let note = carried[1].note.as_deref().unwrap_or("");
    assert!(note.contains("previous hunk"));
    assert!(text_of(&carried[1].git).contains("proxy_read_timeout 120s;"));

    // Normal format: the key is never shown; the change stops at /data with the lines as text.
    let n = &rs[0];
    assert_eq!(n.changes.len(), 3);
    let pem = &n.changes[0];
    assert_eq!(pem.path, vec![key("data")]);
    assert!(!pem.certain);
    assert_eq!(
        pem.live
            .as_ref()
            .and_then(Value::as_str)
            .map(|s| s.lines().count()),
        Some(4)
    );
    assert_eq!(n.changes[2].git, Some(json!("proxy_read_timeout 120s;")));
}

#[test]
fn crlf_and_lost_whitespace_read_like_the_clean_text() {
    let rs = parse_diff_text(CRLF).unwrap();
    assert_eq!(rs.len(), 2);
    assert_eq!(
        change(&rs[0], "/data/password").git,
        Some(json!("++++++++++++"))
    );
    assert_eq!(
        change(&rs[1], "/spec/ports/0[port=80]/targetPort").git,
        Some(json!(8080))
    );
    // The trimmed copy (blank context lines inside a block scalar became empty lines, the header tab
    // became spaces) gives the same result as a clean diff -u of the same files.
    let rs = parse_diff_text(WS_LOST).unwrap();
    let cm = find(&rs, "ConfigMap", "nginx-config");
    assert_eq!(cm.format, TextFormat::ArgoUnified);
    let conf = change(cm, "/data/nginx.conf");
    assert!(text_of(&conf.live).contains("}\n\nhttp {"));
    let clean = parse_diff_text(&WS_LOST.replace("    2025-01-10", "\t2025-01-10")).unwrap();
    assert_eq!(clean, rs);
}

#[test]
fn several_outputs_pasted_together() {
    let rs = parse_diff_text(MULTI).unwrap();
    let names: Vec<String> = rs
        .iter()
        .map(|r| format!("{}:{:?}", r.kind, r.format))
        .collect();
    assert_eq!(
        names,
        [
            "Secret:ArgoNormal",
            "Deployment:ArgoNormal",
            "ConfigMap:ArgoNormal",
            "Secret:KubectlUnified"
        ]
    );
}

#[test]
fn sync_preview_wrapper_and_sync_output_are_skipped() {
    assert_eq!(
        summary(SYNC)[..4],
        [
            "/Service default/guestbook-canary ArgoNormal GitOnly",
            "  ! / - -> {..}",
            "apps/Deployment default/guestbook-ui ArgoNormal Both",
            "  ? /metadata/labels/app.kubernetes.io/version - -> \"0.3\"",
        ]
    );
    let no_diff = "====== Previewing differences between live and desired state of application argocd/edge ======\n====== No Differences found ======\n";
    assert_eq!(parse_diff_text(no_diff), Ok(vec![]));
    assert!(looks_like_diff(no_diff));
}

#[test]
fn kubectl_with_a_normal_external_diff_and_bare_headers() {
    // KUBECTL_EXTERNAL_DIFF=diff prints normal hunks; a header whose body is empty (no diff program)
    // is a warning: the resource differs, but how is not shown.
    let text = "===== /Service default/web ======\n\n===== apps/Deployment default/web ======\n31c31\n<   replicas: 5\n---\n>   replicas: 2\n\
diff /tmp/LIVE-1/apps.v1.Deployment.default.web /tmp/MERGED-2/apps.v1.Deployment.default.web\n\
7c7\n<   generation: 7\n---\n>   generation: 8\n";
    let read = read_diff_text(text).unwrap();
    let rs = &read.resources;
    assert_eq!(rs.len(), 2);
    assert_eq!(read.warnings.len(), 1);
    assert_eq!(read.warnings[0].line, 1);
    assert!(read.warnings[0]
        .message
        .starts_with("no diff follows the header of /Service default/web"));
    assert_eq!(rs[1].format, TextFormat::KubectlUnified);
    let c = change(&rs[1], "/metadata/generation");
    assert!(c.certain);
    assert_eq!(c.git, Some(json!(8)));
    assert!(c
        .hidden
        .as_ref()
        .is_some_and(|h| matches!(h, crate::HiddenReason::DiffBookkeeping(_))));
}

/// An added map block under a shown key (`resources: {}` becoming a map).
const ADDED_MAP: &str = "===== apps/Deployment default/web ======\n@@ -60,6 +60,11 @@\n         name: app\n-        resources: {}\n+        resources:\n+          limits:\n+            memory: 1Gi\n+          requests:\n+            cpu: 100m\n         terminationMessagePath: /dev/termination-log\n";

#[test]
fn pasted_fragments_read_into_these_changes() {
    assert_summaries(&[
        (
            // kubectl's masks, quoted as kubectl prints them and unquoted as people retype them.
            "masks",
            "===== /Secret ns/s ======\n3,4c3,4\n<   password: '*** (before)'\n<   token: ***\n---\n>   password: '*** (after)'\n>   token: *** (after)\n".into(),
            &[
                "/Secret ns/s ArgoNormal Both",
                "  ? /data/password \"*** (before)\" -> \"*** (after)\"",
                "  ? /data/token \"***\" -> \"*** (after)\"",
            ],
        ),
        (
            "last-applied JSON without its key",
            "===== apps/Deployment default/web ======\n6c6\n<       {\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"replicas\":5}}\n---\n>       {\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"replicas\":2}}\n".into(),
            &[
                "apps/Deployment default/web ArgoNormal Both",
                "  ? /metadata/annotations/kubectl.kubernetes.io/last-applied-configuration \"{\\\"apiVersion\\\":\\\"apps/v1\\\",\\\"kind\\\":\\\"Deployment\\\",\\\"spec\\\":{\\\"replicas\\\":5}}\" -> \"{\\\"apiVersion\\\":\\\"apps/v1\\\",\\\"kind\\\":\\\"Deployment\\\",\\\"spec\\\":{\\\"replicas\\\":2}}\"",
            ],
        ),
        (
            // YAML-looking lines deeper than a ConfigMap's data keys are the text of a data value.
            "config file lines in a ConfigMap",
            "===== /ConfigMap default/app ======\n12c12\n<       port: 8080\n---\n>       port: 9090\n".into(),
            &[
                "/ConfigMap default/app ArgoNormal Both",
                "  ? /data \"port: 8080\" -> \"port: 9090\"",
            ],
        ),
        (
            // An annotation of the same ConfigMap is still an annotation.
            "an annotation of a ConfigMap",
            "===== /ConfigMap default/app ======\n7c7\n<     argocd.argoproj.io/sync-wave: \"1\"\n---\n>     argocd.argoproj.io/sync-wave: \"2\"\n".into(),
            &[
                "/ConfigMap default/app ArgoNormal Both",
                "  ? /metadata/annotations/argocd.argoproj.io/sync-wave \"1\" -> \"2\"",
            ],
        ),
        (
            "prompts, fences and log lines",
            "Here is what I get:\n```\n$ argocd app diff web --refresh\nWARN[0000] Failed to invoke grpc call. Use flag --grpc-web\n\n===== apps/Deployment default/web ======\n\\ No newline at end of file\n31c31\n<   replicas: 5\n---\n>   replicas: 2\n```\n".into(),
            &[
                "apps/Deployment default/web ArgoNormal Both",
                "  ! /spec/replicas 5 -> 2",
            ],
        ),
        (
            // Colours from a terminal, non-breaking spaces from a web page, `diff -T` tabs after markers.
            "terminal and web copies",
            [
                "\u{1b}[1m===== apps/Deployment default/web ======\u{1b}[0m",
                "\u{1b}[36m@@ -30,3 +30,3 @@\u{1b}[0m",
                " spec:",
                "\u{1b}[31m-\u{a0}\u{a0}replicas: 5\u{1b}[0m",
                "\u{1b}[32m+\t  replicas: 2\u{1b}[0m",
                "   revisionHistoryLimit: 10",
            ]
            .join("\n"),
            &[
                "apps/Deployment default/web ArgoUnified Both",
                "  ! /spec/replicas 5 -> 2",
            ],
        ),
        (
            "git diff of manifests",
            "diff --git a/web.yaml b/web.yaml\nindex 3b18e51..a2c4f0e 100644\n--- a/web.yaml\n+++ b/web.yaml\n@@ -1,7 +1,7 @@\n apiVersion: apps/v1\n kind: Deployment\n metadata:\n   name: web\n spec:\n-  replicas: 5\n+  replicas: 2\n   template:\n".into(),
            &["apps/Deployment /web ArgoUnified Both", "  ! /spec/replicas 5 -> 2"],
        ),
        (
            // `diff -u live.yaml git.yaml` run by hand.
            "headerless hunks",
            "--- live.yaml\t2025-01-10 10:00:00.000000000 +0000\n+++ git.yaml\t2025-01-10 10:00:00.000000000 +0000\n@@ -1,6 +1,6 @@\n apiVersion: apps/v1\n kind: Deployment\n metadata:\n   name: web\n-  generation: 4\n+  generation: 5\n".into(),
            &["apps/Deployment /web ArgoUnified Both", "  ? /metadata/generation 4 -> 5"],
        ),
        (
            // Items are counted when the list start is shown; the template is guessed (the hunk
            // starts at four spaces), so the path is not certain.
            "list items counted",
            "===== apps/Deployment default/web ======\n@@ -40,9 +40,9 @@\n     spec:\n       containers:\n       - image: app:1\n         name: app\n       - image: proxy:1\n-        name: sidecar\n+        name: istio-proxy\n       dnsPolicy: ClusterFirst\n".into(),
            &[
                "apps/Deployment default/web ArgoUnified Both",
                "  ? /spec/template/spec/containers/1[name=\"sidecar\"]/name \"sidecar\" -> \"istio-proxy\"",
            ],
        ),
        (
            "added map block",
            ADDED_MAP.into(),
            &[
                "apps/Deployment default/web ArgoUnified Both",
                "  ? /spec/template/spec/containers/0[name=\"app\"]/resources {..} -> {..}",
            ],
        ),
        (
            "scalar types",
            "===== /ConfigMap ns/c ======\n@@ -1,7 +1,7 @@\n apiVersion: v1\n data:\n-  A: \"5\"\n+  A: 5\n-  B: true\n+  B: \"true\"\n-  C: null\n+  C: 1.5\n kind: ConfigMap\n".into(),
            &[
                "/ConfigMap ns/c ArgoUnified Both",
                "  ? /data/A \"5\" -> 5",
                "  ? /data/B true -> \"true\"",
                "  ? /data/C null -> 1.5",
            ],
        ),
    ]);
}

#[test]
fn added_map_block_is_one_change() {
    let rs = parse_diff_text(ADDED_MAP).unwrap();
    let c = &rs[0].changes[0];
    assert_eq!(c.live, Some(json!({})));
    assert_eq!(
        c.git,
        Some(json!({"limits": {"memory": "1Gi"}, "requests": {"cpu": "100m"}}))
    );
}

#[test]
fn a_cut_multi_line_value_keeps_its_key_in_the_partial_objects() {
    // A key renamed above a multi-line value the hunk does not show to its end.
    let text = "===== /ConfigMap chat/relay-config ======
--- /tmp/argocd-diff1/relay-config-live.yaml
+++ /tmp/argocd-diff1/relay-config
@@ -1,6 +1,6 @@
 apiVersion: v1
 data:
-  relay-7c2e1d9a.yaml: |
+  relay-0b4f8e2c.yaml: |
     routes:
       default:
         target: inbox
";
    let rs = parse_diff_text(text).unwrap();
    let keys = |obj: &Option<Value>| -> Vec<String> {
        obj.as_ref().unwrap()["data"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    assert_eq!(keys(&rs[0].git_object), ["relay-0b4f8e2c.yaml"]);
    assert_eq!(keys(&rs[0].live_object), ["relay-7c2e1d9a.yaml"]);
}

#[test]
fn a_key_that_opens_a_list_is_never_placed_among_annotations() {
    // An unknown kind's hunk that starts two levels deep: the keys are not
    // metadata's, and one of them holds a list, which no annotation can.
    let text = "===== orders.example.net/Route /checkout ======
--- /tmp/argocd-diff2/checkout-live.yaml
+++ /tmp/argocd-diff2/checkout
@@ -12,8 +12,6 @@
     mode: strict
     overrides:
-    - weightId: 7d1c2e4f
-      weightRef:
-        name: heavy
+    - weightSelector:
         matchLabels:
           tier: gold
     retries: 3
";
    let rs = parse_diff_text(text).unwrap();
    let r = find(&rs, "Route", "checkout");
    assert!(!r.changes.is_empty());
    for c in &r.changes {
        let words = path_str(&c.path);
        assert!(!words.contains("annotations"), "{words}");
    }
}

#[test]
fn a_crossplane_managed_resources_deep_lines_sit_in_its_for_provider() {
    // A provider's managed resource keeps its settings in spec.forProvider:
    // lines two levels deep whose parents the hunk does not show sit there.
    let text = "===== s3.aws.upbound.io/BucketLifecycleConfiguration /archive-rules ======
--- /tmp/argocd-diff3/archive-rules-live.yaml
+++ /tmp/argocd-diff3/archive-rules
@@ -9,7 +9,5 @@
     region: eu-central-1
     rule:
-    - bucketId: archive-0c1d
-      bucketRef:
-        name: archive
+    - bucketSelector:
         matchLabels:
           purpose: archive
";
    let rs = parse_diff_text(text).unwrap();
    let r = find(&rs, "BucketLifecycleConfiguration", "archive-rules");
    let c = change(r, "/spec/forProvider/rule/0/bucketId");
    assert_eq!(c.git, None);
    // Another group's deep lines stay where their own shape puts them.
    let other = text.replace("s3.aws.upbound.io", "storage.example.com");
    let rs = parse_diff_text(&other).unwrap();
    let r = find(&rs, "BucketLifecycleConfiguration", "archive-rules");
    assert!(r
        .changes
        .iter()
        .all(|c| !path_str(&c.path).contains("forProvider")));
}
