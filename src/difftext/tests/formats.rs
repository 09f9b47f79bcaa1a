//! The formats the tools print (`argocd app diff` normal and unified,
//! `kubectl diff`); errors and detection.

#![allow(clippy::disallowed_methods)] // test code ships nowhere

use super::*;
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// argocd app diff, normal format
// ---------------------------------------------------------------------------------------------

#[test]
fn argo_normal_reads_every_resource_and_change() {
    assert_eq!(
        summary(ARGO_NORMAL),
        vec![
            "/ConfigMap default/app-config-7t2c5h8m9k ArgoNormal LiveOnly",
            "  ! / {..} -> -",
            "/Secret default/db-credentials ArgoNormal Both",
            "  ? /data/password \"++++++++\" -> \"++++++++++++\"",
            "/Service default/guestbook-canary ArgoNormal GitOnly",
            "  ! / - -> {..}",
            "/Service default/guestbook-ui ArgoNormal Both",
            "  ? /spec/ports/0/targetPort 80 -> 8080",
            "apps/Deployment default/guestbook-ui ArgoNormal Both",
            "  ? /metadata/labels/app.kubernetes.io/version - -> \"0.3\"",
            "  ! /spec/replicas 5 -> 2",
            "  ? /spec/template/spec/containers/0/env/0/value \"info\" -> \"debug\"",
            "  ? /spec/template/spec/containers/0/image \"gcr.io/heptio-images/ks-guestbook-demo:0.2\" -> \"gcr.io/heptio-images/ks-guestbook-demo:0.3\"",
            "  ? /spec/template/spec/containers/0/env/1[name=\"FEATURE_X\"] - -> {..}",
            "  ? /spec/template/spec/containers/1/resources/limits/memory \"256Mi\" -> \"512Mi\"",
        ]
    );
}

#[test]
fn replicas_at_two_spaces_is_spec_replicas() {
    let rs = parse_diff_text(ARGO_NORMAL).unwrap();
    let d = find(&rs, "Deployment", "guestbook-ui");
    let c = change(d, "/spec/replicas");
    assert_eq!(c.path, vec![key("spec"), key("replicas")]);
    assert_eq!(c.live, Some(json!(5)));
    assert_eq!(c.git, Some(json!(2)));
    assert!(c.certain);
    assert_eq!(c.note, None);
    // `31c32` is on line 59 of the fixture, the `<` line on 60.
    assert_eq!(ARGO_NORMAL.lines().nth(c.line - 1), Some("<   replicas: 5"));
}

#[test]
fn deeper_lines_without_parents_are_guessed() {
    let rs = parse_diff_text(ARGO_NORMAL).unwrap();
    let d = find(&rs, "Deployment", "guestbook-ui");
    let c = change(d, "/spec/template/spec/containers/0/image");
    assert!(!c.certain);
    let note = c.note.as_deref().unwrap_or("");
    assert!(
        note.contains("guessed") && note.contains("Deployment"),
        "{note}"
    );
    // The added env item is one change holding the whole item.
    let item = change(
        d,
        "/spec/template/spec/containers/0/env/1[name=\"FEATURE_X\"]",
    );
    assert_eq!(
        item.git,
        Some(json!({"name": "FEATURE_X", "value": "true"}))
    );
    assert_eq!(item.live, None);
    // A line at four spaces under an unknown parent.
    let label = change(d, "/metadata/labels/app.kubernetes.io/version");
    assert!(!label.certain);
    assert_eq!(label.git, Some(json!("0.3")));
}

#[test]
fn one_side_resources_carry_the_whole_object() {
    let rs = parse_diff_text(ARGO_NORMAL).unwrap();
    let cm = find(&rs, "ConfigMap", "app-config-7t2c5h8m9k");
    assert_eq!(cm.presence, Presence::LiveOnly);
    assert_eq!(cm.git_object, None);
    let live = cm.live_object.as_ref().unwrap();
    assert_eq!(live["data"], json!({"LOG_LEVEL": "info", "RETRIES": "3"}));
    assert_eq!(live["metadata"]["resourceVersion"], json!("170001"));
    assert_eq!(cm.changes.len(), 1);
    assert_eq!(cm.changes[0].path, Vec::<Seg>::new());
    assert_eq!(cm.changes[0].live.as_ref(), Some(live));

    let svc = find(&rs, "Service", "guestbook-canary");
    assert_eq!(svc.presence, Presence::GitOnly);
    let git = svc.git_object.as_ref().unwrap();
    assert_eq!(
        git["spec"]["ports"],
        json!([{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080}])
    );
    assert_eq!(
        git["spec"]["selector"],
        json!({"app": "guestbook-ui", "track": "canary"})
    );
}

#[test]
fn header_fields_and_lines() {
    let rs = parse_diff_text(ARGO_NORMAL).unwrap();
    let d = find(&rs, "Deployment", "guestbook-ui");
    assert_eq!(
        (d.group.as_str(), d.namespace.as_str()),
        ("apps", "default")
    );
    assert_eq!(
        ARGO_NORMAL.lines().nth(d.line - 1),
        Some("===== apps/Deployment default/guestbook-ui ======")
    );
    let svc = find(&rs, "Service", "guestbook-ui");
    assert_eq!(svc.group, "");
    // Input order is kept (argocd sorts by group/kind/namespace/name).
    let order: Vec<&str> = rs.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(
        order,
        ["ConfigMap", "Secret", "Service", "Service", "Deployment"]
    );
}

// ---------------------------------------------------------------------------------------------
// argocd app diff, unified format
// ---------------------------------------------------------------------------------------------

#[test]
fn argo_unified_context_3() {
    assert_eq!(
        summary(ARGO_U3),
        vec![
            "/ConfigMap default/app-config-7t2c5h8m9k ArgoUnified LiveOnly",
            "  ! / {..} -> -",
            "/Service default/guestbook-canary ArgoUnified GitOnly",
            "  ! / - -> {..}",
            "/Service default/guestbook-ui ArgoUnified Both",
            "  ? /spec/ports/0[port=80]/targetPort 80 -> 8080",
            "apps/Deployment default/guestbook-ui ArgoUnified Both",
            "  ! /metadata/labels/app.kubernetes.io/version - -> \"0.3\"",
            "  ! /spec/replicas 5 -> 2",
            "  ? /spec/template/spec/containers/0[name=\"guestbook-ui\"]/env/1[name=\"LOG_LEVEL\"]/value \"info\" -> \"debug\"",
            "  ? /spec/template/spec/containers/0[name=\"guestbook-ui\"]/image \"gcr.io/heptio-images/ks-guestbook-demo:0.2\" -> \"gcr.io/heptio-images/ks-guestbook-demo:0.3\"",
            "  ? /spec/template/spec/containers/0[name=\"guestbook-ui\"]/env/2[name=\"FEATURE_X\"] - -> {..}",
            "  ? /spec/template/spec/containers/1/resources/limits/memory \"256Mi\" -> \"512Mi\"",
        ]
    );
    let rs = parse_diff_text(ARGO_U3).unwrap();
    let d = find(&rs, "Deployment", "guestbook-ui");
    let c = change(
        d,
        "/spec/template/spec/containers/0[name=\"guestbook-ui\"]/image",
    );
    assert_eq!(
        c.path[4],
        Seg::Item {
            index: Some(0),
            key: Some(("name".to_string(), json!("guestbook-ui")))
        }
    );
    assert!(c.note.as_deref().is_some_and(|n| !n.is_empty()));
}

#[test]
fn argo_unified_context_1_and_0() {
    let u1 = summary(ARGO_U1);
    for line in [
        "  ! /spec/replicas 5 -> 2",
        "  ? /spec/template/spec/containers/0/env/0[name=\"LOG_LEVEL\"]/value \"info\" -> \"debug\"",
        "  ? /spec/ports/0/targetPort 80 -> 8080",
    ] {
        assert!(u1.iter().any(|l| l == line), "{line}\n{u1:#?}");
    }
    let u0 = summary(ARGO_U0);
    assert_eq!(
        u0,
        vec![
            "/Service default/guestbook-canary ArgoUnified GitOnly",
            "  ! / - -> {..}",
            "/Service default/guestbook-ui ArgoUnified Both",
            "  ? /spec/ports/0/targetPort 80 -> 8080",
            "apps/Deployment default/guestbook-ui ArgoUnified Both",
            "  ? /metadata/labels/app.kubernetes.io/version - -> \"0.3\"",
            "  ! /spec/replicas 5 -> 2",
            "  ? /spec/template/spec/containers/0/env/0/value \"info\" -> \"debug\"",
            "  ? /spec/template/spec/containers/0/image \"gcr.io/heptio-images/ks-guestbook-demo:0.2\" -> \"gcr.io/heptio-images/ks-guestbook-demo:0.3\"",
            "  ? /spec/template/spec/containers/0/env/1[name=\"FEATURE_X\"] - -> {..}",
            "  ? /spec/template/spec/containers/1/resources/limits/memory \"256Mi\" -> \"512Mi\"",
        ]
    );
}

#[test]
fn the_same_change_reads_the_same_in_every_format() {
    // Whatever the format, the changed values are the same.
    let values = |text: &str| -> Vec<(Option<Value>, Option<Value>)> {
        let rs = parse_diff_text(text).unwrap();
        let d = find(&rs, "Deployment", "guestbook-ui");
        d.changes
            .iter()
            .map(|c| (c.live.clone(), c.git.clone()))
            .collect()
    };
    let normal = values(ARGO_NORMAL);
    assert_eq!(normal.len(), 6);
    for text in [ARGO_U3, ARGO_U1, ARGO_U0, WS_LOST] {
        let mut got = values(text);
        let mut want = normal.clone();
        got.sort_by_key(|p| format!("{p:?}"));
        want.sort_by_key(|p| format!("{p:?}"));
        assert_eq!(got, want);
    }
}

// ---------------------------------------------------------------------------------------------
// kubectl diff
// ---------------------------------------------------------------------------------------------

#[test]
fn kubectl_diff_headers_and_changes() {
    assert_eq!(
        summary(KUBECTL),
        vec![
            "apps/Deployment default/web KubectlUnified Both",
            "  ! /metadata/annotations/kubectl.kubernetes.io/last-applied-configuration \"{\\\"apiVersion\\\":\\\"apps/v1\\\",\\\"kind\\\":\\\"Deployment\\\",\\\"metadata\\\":{\\\"annotations\\\":{},\\\"name\\\":\\\"web\\\",\\\"namespace\\\":\\\"default\\\"},\\\"spec\\\":{\\\"replicas\\\":5,\\\"selector\\\":{\\\"matchLabels\\\":{\\\"app\\\":\\\"guestbook-ui\\\"}},\\\"template\\\":{\\\"metadata\\\":{\\\"labels\\\":{\\\"app\\\":\\\"guestbook-ui\\\"}},\\\"spec\\\":{\\\"containers\\\":[{\\\"image\\\":\\\"gcr.io/heptio-images/ks-guestbook-demo:0.2\\\",\\\"name\\\":\\\"guestbook-ui\\\"}]}}}}\\n\" -> \"{\\\"apiVersion\\\":\\\"apps/v1\\\",\\\"kind\\\":\\\"Deployment\\\",\\\"metadata\\\":{\\\"annotations\\\":{},\\\"name\\\":\\\"web\\\",\\\"namespace\\\":\\\"default\\\"},\\\"spec\\\":{\\\"replicas\\\":2,\\\"selector\\\":{\\\"matchLabels\\\":{\\\"app\\\":\\\"guestbook-ui\\\"}},\\\"template\\\":{\\\"metadata\\\":{\\\"labels\\\":{\\\"app\\\":\\\"guestbook-ui\\\"}},\\\"spec\\\":{\\\"containers\\\":[{\\\"image\\\":\\\"gcr.io/heptio-images/ks-guestbook-demo:0.3\\\",\\\"name\\\":\\\"guestbook-ui\\\"}]}}}}\\n\"",
            "  ! /metadata/generation 7 -> 8",
            "  ! /spec/replicas 5 -> 2",
            "  ? /spec/template/spec/containers/0[name=\"guestbook-ui\"]/image \"gcr.io/heptio-images/ks-guestbook-demo:0.2\" -> \"gcr.io/heptio-images/ks-guestbook-demo:0.3\"",
            "rbac.authorization.k8s.io/ClusterRole /view-extra KubectlUnified Both",
            "  ! /metadata/annotations/kubectl.kubernetes.io/last-applied-configuration \"{\\\"apiVersion\\\":\\\"rbac.authorization.k8s.io/v1\\\",\\\"kind\\\":\\\"ClusterRole\\\",\\\"metadata\\\":{\\\"annotations\\\":{},\\\"name\\\":\\\"view-extra\\\"},\\\"rules\\\":[{\\\"apiGroups\\\":[\\\"apps\\\"],\\\"resources\\\":[\\\"deployments\\\"],\\\"verbs\\\":[\\\"get\\\",\\\"list\\\"]}]}\\n\" -> \"{\\\"apiVersion\\\":\\\"rbac.authorization.k8s.io/v1\\\",\\\"kind\\\":\\\"ClusterRole\\\",\\\"metadata\\\":{\\\"annotations\\\":{},\\\"name\\\":\\\"view-extra\\\"},\\\"rules\\\":[{\\\"apiGroups\\\":[\\\"apps\\\"],\\\"resources\\\":[\\\"deployments\\\"],\\\"verbs\\\":[\\\"get\\\",\\\"list\\\",\\\"watch\\\"]}]}\\n\"",
            "  ? /rules/0/verbs/2 - -> \"watch\"",
            "/Secret default/db-credentials KubectlUnified Both",
            "  ! /data/password \"*** (before)\" -> \"*** (after)\"",
            "/ServiceAccount default/guestbook-ui KubectlUnified GitOnly",
            "  ! / - -> {..}",
        ]
    );
    let rs = parse_diff_text(KUBECTL).unwrap();
    let cr = find(&rs, "ClusterRole", "view-extra");
    assert_eq!(
        (cr.group.as_str(), cr.namespace.as_str()),
        ("rbac.authorization.k8s.io", "")
    );
    let watch = change(cr, "/rules/0/verbs/2");
    assert_eq!(
        watch.path[3],
        Seg::Item {
            index: Some(2),
            key: None
        }
    );
    let sa = find(&rs, "ServiceAccount", "guestbook-ui");
    assert_eq!(
        sa.git_object.as_ref().unwrap()["metadata"]["labels"],
        json!({"app.kubernetes.io/name": "guestbook-ui"})
    );
}

#[test]
fn kubectl_file_names() {
    for (file, want) in [
        (
            "/tmp/LIVE-1/apps.v1.Deployment.default.web",
            Some(("apps", "Deployment", "default", "web")),
        ),
        (
            "/tmp/MERGED-2/v1.ConfigMap.kube-system.kube-root-ca.crt",
            Some(("", "ConfigMap", "kube-system", "kube-root-ca.crt")),
        ),
        (
            "/tmp/LIVE-3/rbac.authorization.k8s.io.v1.ClusterRole..view-extra",
            Some(("rbac.authorization.k8s.io", "ClusterRole", "", "view-extra")),
        ),
        (
            "C:\\Users\\me\\AppData\\Local\\Temp\\LIVE-4\\networking.k8s.io.v1beta1.Ingress.prod.api",
            Some(("networking.k8s.io", "Ingress", "prod", "api")),
        ),
        ("/tmp/x/live.yaml", None),
    ] {
        let want = want.map(|(g, k, n, m)| (g.into(), k.into(), n.into(), m.into()));
        assert_eq!(kubectl_ident(file), want, "{file}");
    }
}

#[test]
fn kubectl_only_in_lines() {
    // KUBECTL_EXTERNAL_DIFF="diff -u" drops -N: objects on one side are named by `Only in`.
    let text = "diff -u /tmp/LIVE-1/apps.v1.Deployment.default.web /tmp/MERGED-2/apps.v1.Deployment.default.web\n\
--- /tmp/LIVE-1/apps.v1.Deployment.default.web\t2025-01-10 10:00:00.000000000 +0000\n\
+++ /tmp/MERGED-2/apps.v1.Deployment.default.web\t2025-01-10 10:00:00.000000000 +0000\n\
@@ -1,3 +1,3 @@\n kind: Deployment\n metadata:\n-  generation: 1\n+  generation: 2\n\
Only in /tmp/MERGED-2: v1.ConfigMap.default.new-config\n\
Only in /tmp/LIVE-1: batch.v1.Job.default.old-job\n";
    let rs = parse_diff_text(text).unwrap();
    assert_eq!(rs.len(), 3);
    assert_eq!(change(&rs[0], "/metadata/generation").git, Some(json!(2)));
    assert_eq!(
        (rs[1].kind.as_str(), rs[1].presence),
        ("ConfigMap", Presence::GitOnly)
    );
    assert_eq!(
        (rs[2].kind.as_str(), rs[2].group.as_str(), rs[2].presence),
        ("Job", "batch", Presence::LiveOnly)
    );
}

// ---------------------------------------------------------------------------------------------
// Errors and detection
// ---------------------------------------------------------------------------------------------

#[test]
fn every_fixture_looks_like_a_diff() {
    for (name, text) in ALL {
        assert!(looks_like_diff(text), "{name}");
        assert!(parse_diff_text(text).is_ok(), "{name}");
    }
    for text in [
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
        "The sync failed again, see below.\n- step one\n- step two\n",
        "",
    ] {
        assert!(!looks_like_diff(text), "{text:?}");
    }
}

/// A named text, where its error is, how the message starts and what it names.
type ErrorCase = (
    &'static str,
    &'static str,
    (usize, usize),
    &'static str,
    &'static [&'static str],
);

#[test]
fn errors_name_the_line_and_the_formats() {
    let cases: &[ErrorCase] = &[
        (
            "manifests",
            "apiVersion: v1\nkind: ConfigMap\n",
            (1, 1),
            "no diff found",
            &["argocd app diff", "kubectl diff"],
        ),
        (
            "YAML after a hunk",
            "===== apps/Deployment default/web ======\n31c31\n<   replicas: 5\n---\n>   replicas: 2\nspec:\n  replicas: 3\n",
            (6, 1),
            "this line does not continue",
            &["apps/Deployment default/web"],
        ),
        ("blank", "  \n\r\n", (1, 1), "the text is empty", &[]),
        (
            "git diff of a hunk that shows neither kind nor name",
            "diff --git a/web.yaml b/web.yaml\n--- a/web.yaml\n+++ b/web.yaml\n@@ -5,3 +5,3 @@ metadata:\n spec:\n-  replicas: 5\n+  replicas: 2\n   template:\n",
            (1, 1),
            "this diff names no resource",
            &[],
        ),
        (
            "just a normal hunk",
            "31c31\n<   replicas: 5\n---\n>   replicas: 2\n",
            (1, 1),
            "this diff names no resource",
            &[],
        ),
    ];
    for (name, text, at, starts, names) in cases {
        let e = parse_diff_text(text).unwrap_err();
        assert_eq!((e.line, e.column), *at, "{name}: {e}");
        assert!(e.message.starts_with(starts), "{name}: {e}");
        for n in *names {
            assert!(e.message.contains(n), "{name}: {e}");
        }
    }
}
