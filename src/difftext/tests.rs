//! Tests of the diff-text reader and writer.
//!
//! The fixtures in `tests/fixtures/difftext/` were produced by GNU diff 3.8 on sigs.k8s.io/yaml-style
//! files laid out as the tools lay them out (`/tmp/argocd-diffNNN/<name>-live.yaml` vs
//! `/tmp/argocd-diffNNN/<name>`; `/tmp/LIVE-…` vs `/tmp/MERGED-…` directories for kubectl), with the
//! headers the tools print around them:
//!
//! * `argo_normal.txt`: plain `diff`: a live-only ConfigMap (`1,13d0`), a masked Secret (`++++++++`),
//!   a Git-only Service (`0a1,20`), a Service port, a Deployment with `a` and `c` hunks (label,
//!   replicas, env value + added env item + image in one hunk, memory limit).
//! * `argo_unified_u3.txt`, `argo_unified_u1.txt`, `argo_unified_u0.txt`: the same objects with
//!   `diff -u`, `-U1`, `-U0` (one-side objects as `@@ -1,13 +0,0 @@` / `@@ -0,0 +1,20 @@`).
//! * `kubectl_diff.txt`: `kubectl diff` (`diff -u -N` over directories): a Deployment (core of the
//!   change set plus `generation` and the last-applied JSON block), a cluster-scoped ClusterRole
//!   (`..view-extra`), a core Secret with `'*** (before)'`/`'*** (after)'`, a new ServiceAccount.
//! * `block_scalars.txt`: a ConfigMap whose PEM certificate and nginx config (block scalars with a
//!   blank line) change, in normal and in unified form.
//! * `argo_crlf.txt`: a unified Service and Secret diff with CRLF line ends.
//! * `argo_trailing_ws_lost.txt`: unified output copied from a web page: trailing blanks stripped
//!   (the blank context line inside a block scalar became empty), header tabs turned into spaces.
//! * `multi_app_paste.txt`: three `argocd app diff` runs (one without differences) and a
//!   `kubectl diff` pasted one after another with their prompts.
//! * `sync_preview.txt`: `argocd app sync --preview-changes` with its wrapper lines, the question,
//!   the sync result tables, and a second app with `No Differences found`.

use serde_json::json;

use super::*;

const ARGO_NORMAL: &str = include_str!("../../tests/fixtures/difftext/argo_normal.txt");
const ARGO_U3: &str = include_str!("../../tests/fixtures/difftext/argo_unified_u3.txt");
const ARGO_U1: &str = include_str!("../../tests/fixtures/difftext/argo_unified_u1.txt");
const ARGO_U0: &str = include_str!("../../tests/fixtures/difftext/argo_unified_u0.txt");
const KUBECTL: &str = include_str!("../../tests/fixtures/difftext/kubectl_diff.txt");
const BLOCKS: &str = include_str!("../../tests/fixtures/difftext/block_scalars.txt");
const CRLF: &str = include_str!("../../tests/fixtures/difftext/argo_crlf.txt");
const WS_LOST: &str = include_str!("../../tests/fixtures/difftext/argo_trailing_ws_lost.txt");
const MULTI: &str = include_str!("../../tests/fixtures/difftext/multi_app_paste.txt");
const SYNC: &str = include_str!("../../tests/fixtures/difftext/sync_preview.txt");

const ALL: &[(&str, &str)] = &[
    ("argo_normal", ARGO_NORMAL),
    ("argo_unified_u3", ARGO_U3),
    ("argo_unified_u1", ARGO_U1),
    ("argo_unified_u0", ARGO_U0),
    ("kubectl_diff", KUBECTL),
    ("block_scalars", BLOCKS),
    ("argo_crlf", CRLF),
    ("argo_trailing_ws_lost", WS_LOST),
    ("multi_app_paste", MULTI),
    ("sync_preview", SYNC),
];

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// `/spec/template/spec/containers/0[name="web"]/image`-style rendering of a path.
fn path_str(p: &[Seg]) -> String {
    let mut s = String::new();
    for seg in p {
        s.push('/');
        match seg {
            Seg::Key(k) => s.push_str(k),
            Seg::Item { index, key } => {
                match index {
                    Some(i) => s.push_str(&i.to_string()),
                    None => s.push('?'),
                }
                if let Some((k, v)) = key {
                    s.push_str(&format!("[{k}={v}]"));
                }
            }
        }
    }
    if s.is_empty() {
        s.push('/');
    }
    s
}

fn short(v: &Option<Value>) -> String {
    match v {
        None => "-".into(),
        Some(Value::Object(_)) => "{..}".into(),
        Some(v) => v.to_string(),
    }
}

/// One line per resource and per change: `!` certain, `?` guessed; `live -> git`.
fn summary(text: &str) -> Vec<String> {
    let resources = parse_diff_text(text).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for r in &resources {
        out.push(format!(
            "{}/{} {}/{} {:?} {:?}",
            r.group, r.kind, r.namespace, r.name, r.format, r.presence
        ));
        for c in &r.changes {
            let mark = if c.certain { '!' } else { '?' };
            out.push(format!(
                "  {mark} {} {} -> {}",
                path_str(&c.path),
                short(&c.live),
                short(&c.git)
            ));
        }
    }
    out
}

fn find<'a>(rs: &'a [TextResource], kind: &str, name: &str) -> &'a TextResource {
    rs.iter()
        .find(|r| r.kind == kind && r.name == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

fn change<'a>(r: &'a TextResource, path: &str) -> &'a TextChange {
    r.changes
        .iter()
        .find(|c| path_str(&c.path) == path)
        .unwrap_or_else(|| panic!("no change at {path} in {:#?}", r.changes))
}

/// The string value of one side ("" when missing or not a string).
fn text_of(v: &Option<Value>) -> &str {
    v.as_ref().and_then(Value::as_str).unwrap_or("")
}

fn key(k: &str) -> Seg {
    Seg::Key(k.to_string())
}

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
    // The object reads back into exactly the lines argocd printed.
    let printed: Vec<&str> = ARGO_NORMAL
        .lines()
        .filter_map(|l| l.strip_prefix("> "))
        .skip_while(|l| *l != "apiVersion: v1")
        .take(20)
        .collect();
    assert_eq!(yaml::to_yaml(git), printed.join("\n") + "\n");
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
    assert!(
        u1.contains(&"  ! /spec/replicas 5 -> 2".to_string()),
        "{u1:#?}"
    );
    assert!(u1.contains(&"  ? /spec/template/spec/containers/0/env/0[name=\"LOG_LEVEL\"]/value \"info\" -> \"debug\"".to_string()), "{u1:#?}");
    assert!(
        u1.contains(&"  ? /spec/ports/0/targetPort 80 -> 8080".to_string()),
        "{u1:#?}"
    );
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
    assert_eq!(
        kubectl_ident("/tmp/LIVE-1/apps.v1.Deployment.default.web"),
        Some((
            "apps".into(),
            "Deployment".into(),
            "default".into(),
            "web".into()
        ))
    );
    assert_eq!(
        kubectl_ident("/tmp/MERGED-2/v1.ConfigMap.kube-system.kube-root-ca.crt"),
        Some((
            "".into(),
            "ConfigMap".into(),
            "kube-system".into(),
            "kube-root-ca.crt".into()
        ))
    );
    assert_eq!(
        kubectl_ident("/tmp/LIVE-3/rbac.authorization.k8s.io.v1.ClusterRole..view-extra"),
        Some((
            "rbac.authorization.k8s.io".into(),
            "ClusterRole".into(),
            "".into(),
            "view-extra".into()
        ))
    );
    assert_eq!(
        kubectl_ident(
            "C:\\Users\\me\\AppData\\Local\\Temp\\LIVE-4\\networking.k8s.io.v1beta1.Ingress.prod.api"
        ),
        Some((
            "networking.k8s.io".into(),
            "Ingress".into(),
            "prod".into(),
            "api".into()
        ))
    );
    assert_eq!(kubectl_ident("/tmp/x/live.yaml"), None);
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
// Masks, multi-line values, damaged pastes
// ---------------------------------------------------------------------------------------------

#[test]
fn secret_masks_stay_strings() {
    let rs = parse_diff_text(ARGO_NORMAL).unwrap();
    let s = find(&rs, "Secret", "db-credentials");
    let c = change(s, "/data/password");
    assert_eq!(
        (c.live.clone(), c.git.clone()),
        (Some(json!("++++++++")), Some(json!("++++++++++++")))
    );
    // kubectl's masks, quoted as kubectl prints them and unquoted as people retype them.
    let text = "===== /Secret ns/s ======\n3,4c3,4\n<   password: '*** (before)'\n<   token: ***\n---\n>   password: '*** (after)'\n>   token: *** (after)\n";
    let rs = parse_diff_text(text).unwrap();
    assert_eq!(
        change(&rs[0], "/data/password").git,
        Some(json!("*** (after)"))
    );
    let token = change(&rs[0], "/data/token");
    assert_eq!(
        (token.live.clone(), token.git.clone()),
        (Some(json!("***")), Some(json!("*** (after)")))
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
fn last_applied_json_without_its_key() {
    let text = "===== apps/Deployment default/web ======\n6c6\n<       {\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"replicas\":5}}\n---\n>       {\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"replicas\":2}}\n";
    let rs = parse_diff_text(text).unwrap();
    let c = &rs[0].changes[0];
    assert_eq!(
        path_str(&c.path),
        "/metadata/annotations/kubectl.kubernetes.io/last-applied-configuration"
    );
    assert!(!c.certain);
    assert_eq!(
        c.git,
        Some(json!(
            "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"replicas\":2}}"
        ))
    );
}

#[test]
fn config_file_lines_in_a_configmap() {
    // YAML-looking lines deeper than a ConfigMap's data keys are the text of a data value.
    let text =
        "===== /ConfigMap default/app ======\n12c12\n<       port: 8080\n---\n>       port: 9090\n";
    let rs = parse_diff_text(text).unwrap();
    let c = &rs[0].changes[0];
    assert_eq!(c.path, vec![key("data")]);
    assert_eq!(
        (c.live.clone(), c.git.clone()),
        (Some(json!("port: 8080")), Some(json!("port: 9090")))
    );
    assert!(!c.certain);
    // An annotation of the same ConfigMap is still an annotation.
    let text = "===== /ConfigMap default/app ======\n7c7\n<     argocd.argoproj.io/sync-wave: \"1\"\n---\n>     argocd.argoproj.io/sync-wave: \"2\"\n";
    let rs = parse_diff_text(text).unwrap();
    assert_eq!(
        path_str(&rs[0].changes[0].path),
        "/metadata/annotations/argocd.argoproj.io/sync-wave"
    );
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
fn prompts_fences_and_log_lines_are_tolerated() {
    let text = "Here is what I get:\n```\n$ argocd app diff web --refresh\nWARN[0000] Failed to invoke grpc call. Use flag --grpc-web\n\n===== apps/Deployment default/web ======\n\\ No newline at end of file\n31c31\n<   replicas: 5\n---\n>   replicas: 2\n```\n";
    let rs = parse_diff_text(text).unwrap();
    assert_eq!(rs.len(), 1);
    assert_eq!(change(&rs[0], "/spec/replicas").git, Some(json!(2)));
}

#[test]
fn terminal_and_web_copies() {
    // Colours from a terminal, non-breaking spaces from a web page, `diff -T` tabs after markers.
    let text = [
        "\u{1b}[1m===== apps/Deployment default/web ======\u{1b}[0m",
        "\u{1b}[36m@@ -30,3 +30,3 @@\u{1b}[0m",
        " spec:",
        "\u{1b}[31m-\u{a0}\u{a0}replicas: 5\u{1b}[0m",
        "\u{1b}[32m+\t  replicas: 2\u{1b}[0m",
        "   revisionHistoryLimit: 10",
    ]
    .join("\n");
    let rs = parse_diff_text(&text).unwrap();
    let c = change(&rs[0], "/spec/replicas");
    assert!(c.certain);
    assert_eq!(
        (c.live.clone(), c.git.clone()),
        (Some(json!(5)), Some(json!(2)))
    );
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
        .as_deref()
        .is_some_and(|h| h.contains("bookkeeping")));
}

#[test]
fn git_diff_of_manifests() {
    let text = "diff --git a/web.yaml b/web.yaml\nindex 3b18e51..a2c4f0e 100644\n--- a/web.yaml\n+++ b/web.yaml\n@@ -1,7 +1,7 @@\n apiVersion: apps/v1\n kind: Deployment\n metadata:\n   name: web\n spec:\n-  replicas: 5\n+  replicas: 2\n   template:\n";
    let rs = parse_diff_text(text).unwrap();
    assert_eq!(
        (rs[0].kind.as_str(), rs[0].name.as_str()),
        ("Deployment", "web")
    );
    // A hunk that shows neither kind nor name names no resource.
    let unnamed = "diff --git a/web.yaml b/web.yaml\n--- a/web.yaml\n+++ b/web.yaml\n@@ -5,3 +5,3 @@ metadata:\n spec:\n-  replicas: 5\n+  replicas: 2\n   template:\n";
    let err = parse_diff_text(unnamed).unwrap_err();
    assert_eq!(err.line, 1);
    assert!(
        err.message.starts_with("this diff names no resource"),
        "{err}"
    );
    assert_eq!(rs.len(), 1);
    assert_eq!(change(&rs[0], "/spec/replicas").git, Some(json!(2)));
}

#[test]
fn headerless_hunks_are_read_too() {
    // `diff -u live.yaml git.yaml` run by hand.
    let text = "--- live.yaml\t2025-01-10 10:00:00.000000000 +0000\n+++ git.yaml\t2025-01-10 10:00:00.000000000 +0000\n@@ -1,6 +1,6 @@\n apiVersion: apps/v1\n kind: Deployment\n metadata:\n   name: web\n-  generation: 4\n+  generation: 5\n";
    let rs = parse_diff_text(text).unwrap();
    assert_eq!(
        (
            rs[0].kind.as_str(),
            rs[0].group.as_str(),
            rs[0].name.as_str()
        ),
        ("Deployment", "apps", "web")
    );
    assert_eq!(change(&rs[0], "/metadata/generation").live, Some(json!(4)));
    // Just a normal hunk: nothing says which resource it is.
    let err = parse_diff_text("31c31\n<   replicas: 5\n---\n>   replicas: 2\n").unwrap_err();
    assert!(
        err.message.starts_with("this diff names no resource"),
        "{err}"
    );
}

#[test]
fn list_items_are_counted_when_the_list_start_is_shown() {
    let text = "===== apps/Deployment default/web ======\n@@ -40,9 +40,9 @@\n     spec:\n       containers:\n       - image: app:1\n         name: app\n       - image: proxy:1\n-        name: sidecar\n+        name: istio-proxy\n       dnsPolicy: ClusterFirst\n";
    let rs = parse_diff_text(text).unwrap();
    let c = &rs[0].changes[0];
    assert_eq!(
        c.path[4],
        Seg::Item {
            index: Some(1),
            key: Some(("name".into(), json!("sidecar")))
        }
    );
    assert_eq!(
        path_str(&c.path),
        "/spec/template/spec/containers/1[name=\"sidecar\"]/name"
    );
    assert_eq!(
        (c.live.clone(), c.git.clone()),
        (Some(json!("sidecar")), Some(json!("istio-proxy")))
    );
    // The template is guessed (the hunk starts at four spaces), so the path is not certain.
    assert!(!c.certain);
}

#[test]
fn added_map_block_is_one_change() {
    let text = "===== apps/Deployment default/web ======\n@@ -60,6 +60,11 @@\n         name: app\n-        resources: {}\n+        resources:\n+          limits:\n+            memory: 1Gi\n+          requests:\n+            cpu: 100m\n         terminationMessagePath: /dev/termination-log\n";
    let rs = parse_diff_text(text).unwrap();
    assert_eq!(rs[0].changes.len(), 1);
    let c = &rs[0].changes[0];
    assert_eq!(
        path_str(&c.path),
        "/spec/template/spec/containers/0[name=\"app\"]/resources"
    );
    assert_eq!(c.live, Some(json!({})));
    assert_eq!(
        c.git,
        Some(json!({"limits": {"memory": "1Gi"}, "requests": {"cpu": "100m"}}))
    );
}

#[test]
fn scalar_types() {
    let text = "===== /ConfigMap ns/c ======\n@@ -1,7 +1,7 @@\n apiVersion: v1\n data:\n-  A: \"5\"\n+  A: 5\n-  B: true\n+  B: \"true\"\n-  C: null\n+  C: 1.5\n kind: ConfigMap\n";
    let rs = parse_diff_text(text).unwrap();
    let v = |p: &str| {
        let c = change(&rs[0], p);
        (c.live.clone().unwrap(), c.git.clone().unwrap())
    };
    assert_eq!(v("/data/A"), (json!("5"), json!(5)));
    assert_eq!(v("/data/B"), (json!(true), json!("true")));
    assert_eq!(v("/data/C"), (json!(null), json!(1.5)));
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
    assert!(!looks_like_diff(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
    ));
    assert!(!looks_like_diff(
        "The sync failed again, see below.\n- step one\n- step two\n"
    ));
    assert!(!looks_like_diff(""));
}

#[test]
fn errors_name_the_line_and_the_formats() {
    let e = parse_diff_text("apiVersion: v1\nkind: ConfigMap\n").unwrap_err();
    assert_eq!((e.line, e.column), (1, 1));
    assert!(
        e.message.contains("argocd app diff") && e.message.contains("kubectl diff"),
        "{}",
        e.message
    );

    let text = "===== apps/Deployment default/web ======\n31c31\n<   replicas: 5\n---\n>   replicas: 2\nspec:\n  replicas: 3\n";
    let e = parse_diff_text(text).unwrap_err();
    assert_eq!((e.line, e.column), (6, 1));
    assert!(
        e.message.contains("apps/Deployment default/web"),
        "{}",
        e.message
    );

    let e = parse_diff_text("  \n\r\n").unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.to_string().contains("empty"));
}

// ---------------------------------------------------------------------------------------------
// Rendering and round trips
// ---------------------------------------------------------------------------------------------

fn deployment(replicas: i64, image: &str, env: Value) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "annotations": {"deployment.kubernetes.io/revision": "3"},
            "labels": {"app": "web"},
            "name": "web",
            "namespace": "shop"
        },
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {"env": env, "image": image, "name": "web",
                         "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                         "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}}},
                        {"image": "proxy:1.22", "name": "istio-proxy"}
                    ],
                    "dnsPolicy": "ClusterFirst",
                    "terminationGracePeriodSeconds": 30
                }
            }
        }
    })
}

#[test]
fn render_argocd_matches_the_documented_shape() {
    let live = deployment(5, "web:1", json!([{"name": "A", "value": "1"}]));
    let git = deployment(2, "web:1", json!([{"name": "A", "value": "1"}]));
    let text = render_argocd_diff(
        &[RenderResource {
            group: "apps",
            kind: "Deployment",
            namespace: "shop",
            name: "web",
            live: Some(&live),
            target: Some(&git),
        }],
        None,
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[..2], ["", "===== apps/Deployment shop/web ======"]);
    assert!(lines[2].ends_with('c') || lines[2].contains('c'), "{text}");
    assert_eq!(lines[3..], ["<   replicas: 5", "---", ">   replicas: 2"]);

    let text = render_argocd_diff(
        &[RenderResource {
            group: "apps",
            kind: "Deployment",
            namespace: "shop",
            name: "web",
            live: Some(&live),
            target: Some(&git),
        }],
        Some(3),
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[2].starts_with("--- /tmp/argocd-diff") && lines[2].contains("/web-live.yaml\t"),
        "{text}"
    );
    assert!(
        lines[3].starts_with("+++ /tmp/argocd-diff") && lines[3].contains("/web\t"),
        "{text}"
    );
    assert!(lines[4].starts_with("@@ -"), "{text}");

    // Equal sides are not printed; both missing neither.
    let same = render_argocd_diff(
        &[
            RenderResource {
                group: "",
                kind: "Service",
                namespace: "a",
                name: "b",
                live: Some(&live),
                target: Some(&live),
            },
            RenderResource {
                group: "",
                kind: "Service",
                namespace: "a",
                name: "c",
                live: None,
                target: None,
            },
        ],
        None,
    );
    assert_eq!(same, "");
}

#[test]
fn round_trip_through_every_rendering() {
    let env_live = json!([{"name": "A", "value": "1"}, {"name": "LOG", "value": "info"}]);
    let env_git = json!([{"name": "A", "value": "1"}, {"name": "LOG", "value": "debug"}, {"name": "NEW", "value": "x"}]);
    let live = deployment(5, "web:1", env_live);
    let git = deployment(2, "web:2", env_git);
    let created = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new", "namespace": "shop"}, "data": {"k": "line1\nline2\n"}});
    let extra = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "old", "namespace": "shop"}, "spec": {"ports": [{"port": 80}]}});
    let resources = [
        RenderResource {
            group: "apps",
            kind: "Deployment",
            namespace: "shop",
            name: "web",
            live: Some(&live),
            target: Some(&git),
        },
        RenderResource {
            group: "",
            kind: "ConfigMap",
            namespace: "shop",
            name: "new",
            live: None,
            target: Some(&created),
        },
        RenderResource {
            group: "",
            kind: "Service",
            namespace: "shop",
            name: "old",
            live: Some(&extra),
            target: None,
        },
    ];
    let outputs = [
        (render_argocd_diff(&resources, None), TextFormat::ArgoNormal),
        (
            render_argocd_diff(&resources, Some(3)),
            TextFormat::ArgoUnified,
        ),
        (
            render_argocd_diff(&resources, Some(1)),
            TextFormat::ArgoUnified,
        ),
        (
            render_argocd_diff(&resources, Some(0)),
            TextFormat::ArgoUnified,
        ),
        (render_kubectl_diff(&resources), TextFormat::KubectlUnified),
    ];
    for (text, format) in outputs {
        let rs = parse_diff_text(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(rs.len(), 3, "{text}");
        assert!(rs.iter().all(|r| r.format == format));
        let cm = find(&rs, "ConfigMap", "new");
        assert_eq!(
            (cm.presence, cm.git_object.as_ref()),
            (Presence::GitOnly, Some(&created)),
            "{text}"
        );
        let svc = find(&rs, "Service", "old");
        assert_eq!(
            (svc.presence, svc.live_object.as_ref()),
            (Presence::LiveOnly, Some(&extra)),
            "{text}"
        );
        let d = find(&rs, "Deployment", "web");
        assert_eq!((d.group.as_str(), d.namespace.as_str()), ("apps", "shop"));
        let mut got: Vec<(String, Option<Value>, Option<Value>)> = d
            .changes
            .iter()
            .map(|c| {
                // Compare the keys of the path; indices and merge keys depend on the context shown.
                let keys: Vec<String> = c
                    .path
                    .iter()
                    .map(|s| match s {
                        Seg::Key(k) => k.clone(),
                        Seg::Item { .. } => "*".into(),
                    })
                    .collect();
                (keys.join("/"), c.live.clone(), c.git.clone())
            })
            .collect();
        got.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            got,
            vec![
                ("spec/replicas".into(), Some(json!(5)), Some(json!(2))),
                (
                    "spec/template/spec/containers/*/env/*".into(),
                    None,
                    Some(json!({"name": "NEW", "value": "x"}))
                ),
                (
                    "spec/template/spec/containers/*/env/*/value".into(),
                    Some(json!("info")),
                    Some(json!("debug"))
                ),
                (
                    "spec/template/spec/containers/*/image".into(),
                    Some(json!("web:1")),
                    Some(json!("web:2"))
                ),
            ],
            "{text}"
        );
    }
}

#[test]
fn kubectl_rendering_names_files_like_kubectl() {
    let cr = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "view-extra"}, "rules": []});
    let text = render_kubectl_diff(&[RenderResource {
        group: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        namespace: "",
        name: "view-extra",
        live: None,
        target: Some(&cr),
    }]);
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("diff -u -N /tmp/LIVE-"), "{text}");
    assert!(
        first.ends_with("/rbac.authorization.k8s.io.v1.ClusterRole..view-extra"),
        "{text}"
    );
    assert!(text.contains("\n@@ -0,0 +1,5 @@\n"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// The YAML writer
// ---------------------------------------------------------------------------------------------

#[test]
fn yaml_writer_quotes_like_go_yaml() {
    let v = json!({
        "a-str-number": "5",
        "bool-str": "true",
        "empty": "",
        "time": "2024-12-01T09:00:00Z",
        "mask": "*** (before)",
        "plus": "++++++++",
        "colon": "a: b",
        "yes": "yes",
        "int": 5,
        "float": 0.5,
        "big": 1000000.0,
        "null": null,
        "list": ["x", {"k": "v", "j": 1}, []],
        "map": {},
        "multi": "line1\nline2\n",
        "multi-strip": "a\nb",
    });
    let expected = "\
a-str-number: \"5\"
big: 1e+06
bool-str: \"true\"
colon: 'a: b'
empty: \"\"
float: 0.5
int: 5
list:
- x
- j: 1
  k: v
- []
map: {}
mask: '*** (before)'
multi: |
  line1
  line2
multi-strip: |-
  a
  b
\"null\": null
plus: ++++++++
time: \"2024-12-01T09:00:00Z\"
\"yes\": \"yes\"
";
    assert_eq!(yaml::to_yaml(&v), expected);
    assert_eq!(yaml::parse_block(&expected.lines().collect::<Vec<_>>()), v);
}

#[test]
fn yaml_writer_folds_long_strings_and_reads_them_back() {
    let long = "Deployment does not have minimum availability because the rollout is still waiting for new pods to become ready";
    let quoted = format!(
        "{long}: and it needs quotes, with  two spaces and 'quotes' near the fold point ok"
    );
    let escaped =
        format!("{long}\twith a tab, so double quotes, and  two spaces   three spaces at the end");
    let v = json!({"status": {"conditions": [{"message": long, "type": "Available", "q": quoted, "e": escaped}]}});
    let text = yaml::to_yaml(&v);
    assert!(text.lines().all(|l| l.chars().count() < 100), "{text}");
    assert!(text.lines().count() > 4, "{text}");
    assert_eq!(yaml::parse_block(&text.lines().collect::<Vec<_>>()), v);
}

#[test]
fn go_key_order() {
    let mut keys = vec!["b", "a10", "a9", "A", "_x", "a-b", "ab", "z"];
    keys.sort_by(|a, b| yaml::go_key_cmp(a, b));
    assert_eq!(keys, ["_x", "A", "a-b", "a9", "a10", "ab", "b", "z"]);
}

#[test]
fn the_writer_reproduces_the_fixture_yaml() {
    // Every one-side object printed in the fixtures is written back line for line.
    let mut checked = 0;
    for (name, text) in ALL {
        let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
        for r in parse_diff_text(text).unwrap() {
            if r.presence == Presence::Both {
                continue;
            }
            let Some(obj) = r.git_object.as_ref().or(r.live_object.as_ref()) else {
                continue;
            };
            let marker = lines[r.changes[0].line - 1].chars().next().unwrap_or(' ');
            let strip = |l: &'static str| -> Option<&'static str> {
                let rest = l.strip_prefix(marker)?;
                Some(if r.format == TextFormat::ArgoNormal {
                    rest.strip_prefix(' ').unwrap_or(rest)
                } else {
                    rest
                })
            };
            let printed: Vec<&str> = lines[r.changes[0].line - 1..]
                .iter()
                .map_while(|l| strip(l))
                .collect();
            let written = yaml::to_yaml(obj);
            assert_eq!(written.lines().collect::<Vec<_>>(), printed, "{name}");
            checked += 1;
        }
    }
    assert!(checked >= 7, "{checked}");
}

// ---------------------------------------------------------------------------------------------
// Robustness
// ---------------------------------------------------------------------------------------------

/// A small deterministic generator (no dependency needed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() as usize) % n
        }
    }
}

#[test]
fn damaged_input_never_panics() {
    let mut rng = Lcg(7);
    let pieces = [
        "<",
        ">",
        "-",
        "+",
        " ",
        "@@ -1,3 +1,3 @@",
        "---",
        "- ",
        "key: ",
        "\t",
        "|",
        "'",
        "\"",
        "\u{e9}",
        "\r",
        "  ",
        "- - - -",
        "0a1,3",
        "===== a/B c/d ======",
        "***",
        "{",
        "[",
    ];
    for (_, text) in ALL {
        let lines: Vec<&str> = text.lines().collect();
        for _ in 0..60 {
            let mut out: Vec<String> = Vec::new();
            for l in &lines {
                match rng.below(12) {
                    0 => continue,
                    1 => out.push(l.chars().take(rng.below(l.len() + 1)).collect()),
                    2 => out.push(format!("{}{}", pieces[rng.below(pieces.len())], l)),
                    3 => {
                        let mut s = l.to_string();
                        let at = s
                            .char_indices()
                            .nth(rng.below(s.chars().count() + 1))
                            .map_or(s.len(), |(i, _)| i);
                        s.insert_str(at, pieces[rng.below(pieces.len())]);
                        out.push(s);
                    }
                    4 => out.push(l.replacen("  ", "", 1)),
                    _ => out.push(l.to_string()),
                }
            }
            let damaged = out.join("\n");
            let _ = parse_diff_text(&damaged);
            let _ = looks_like_diff(&damaged);
        }
    }
    // Pathological shapes.
    let deep: String = (0..5000)
        .map(|i| format!("+{}k{i}:\n", " ".repeat(i * 2)))
        .collect();
    let _ = parse_diff_text(&format!(
        "===== /ConfigMap a/b ======\n@@ -0,0 +1,5000 @@\n{deep}"
    ));
    let dashes = format!(
        "===== /ConfigMap a/b ======\n1a2\n> {}x\n",
        "- ".repeat(20000)
    );
    let _ = parse_diff_text(&dashes);
    let nested = format!(
        "===== /ConfigMap a/b ======\n1c1\n< a: {}\n---\n> a: 1\n",
        "[".repeat(100000)
    );
    let _ = parse_diff_text(&nested);
    let _ = parse_diff_text("@@ -99999999999999999999999,1 +1 @@\n-x\n");
    let _ = parse_diff_text("99999999999999999999999c1\n< a\n---\n> b\n");
}

#[test]
fn large_paste_is_fast() {
    // Release builds read 20 MB (the fixtures repeated: about 30 000 resources) in under a second
    // on an idle machine; the bound leaves room for a busy one. Debug builds are ~20 times slower,
    // so they check a tenth of it for runaway (superlinear) work.
    let (size, limit_ms) = if cfg!(debug_assertions) {
        (2_000_000, 20_000)
    } else {
        (20_000_000, 5_000)
    };
    let mut text = String::new();
    while text.len() < size {
        text.push_str(ARGO_U3);
        text.push_str(KUBECTL);
        text.push_str(ARGO_NORMAL);
    }
    let start = std::time::Instant::now();
    let rs = parse_diff_text(&text).unwrap();
    let took = start.elapsed();
    assert!(rs.len() > size / 1000, "{}", rs.len());
    assert!(took.as_millis() < limit_ms, "{took:?}");
}

// ---------------------------------------------------------------------------------------------
// Lists whose key the hunk does not show
// ---------------------------------------------------------------------------------------------

/// Diff text from its lines (string continuations would eat the leading blanks of context lines).
fn lines(l: &[&str]) -> String {
    let mut s = l.join("\n");
    s.push('\n');
    s
}

/// The pointer the analysis prints for a text path.
fn pointer_of(c: &TextChange) -> String {
    crate::path::pointer(&c.path)
}

#[test]
fn top_level_list_items_keep_their_key() {
    // sigs.k8s.io/yaml writes the items of `webhooks:` at column 0; the hunk starts below the key.
    let text = lines(&[
        "===== admissionregistration.k8s.io/MutatingWebhookConfiguration /payments-webhook ======",
        "--- /tmp/argocd-diff1/payments-webhook-live.yaml",
        "+++ /tmp/argocd-diff1/payments-webhook",
        "@@ -15,7 +15,7 @@",
        " - admissionReviewVersions:",
        "   - v1",
        "   clientConfig:",
        "-    caBundle: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMvRENDQWVTZ0F3SUJBZ0lSQUw0YQ==",
        "+    caBundle: ''",
        "     service:",
        "       name: payments-webhook",
        "       namespace: payments",
    ]);
    let rs = parse_diff_text(&text).unwrap();
    assert_eq!(rs[0].format, TextFormat::ArgoUnified);
    assert_eq!(rs[0].changes.len(), 1, "{:#?}", rs[0].changes);
    let c = &rs[0].changes[0];
    assert_eq!(
        c.path,
        vec![
            key("webhooks"),
            Seg::Item {
                index: Some(0),
                key: None
            },
            key("clientConfig"),
            key("caBundle"),
        ]
    );
    assert_eq!(pointer_of(c), "/webhooks/0/clientConfig/caBundle");
    assert_eq!(
        c.live,
        Some(json!(
            "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMvRENDQWVTZ0F3SUJBZ0lSQUw0YQ=="
        ))
    );
    assert_eq!(c.git, Some(json!("")));
    assert!(!c.certain);
    assert!(c.note.as_deref().is_some_and(|n| !n.is_empty()));
    assert_eq!(
        text.lines().nth(c.line - 1).map(|l| &l[..10]),
        Some("-    caBun")
    );

    // When the hunk shows the list's key, the index is known and nothing is guessed.
    let text = lines(&[
        "===== admissionregistration.k8s.io/MutatingWebhookConfiguration /payments-webhook ======",
        "@@ -12,6 +12,6 @@",
        " webhooks:",
        " - admissionReviewVersions:",
        "   - v1",
        "   clientConfig:",
        "-    caBundle: abc",
        "+    caBundle: ''",
        "     service:",
    ]);
    let rs = parse_diff_text(&text).unwrap();
    let c = change(&rs[0], "/webhooks/0/clientConfig/caBundle");
    assert!(c.certain, "{c:?}");

    // Plain diff: the item's keys or its deeper lines name the list.
    let text = lines(&[
        "===== admissionregistration.k8s.io/ValidatingWebhookConfiguration /v ======",
        "17c17",
        "<     caBundle: abc",
        "---",
        ">     caBundle: ''",
        "30a31,33",
        "> - admissionReviewVersions:",
        ">   - v1",
        ">   name: b.example.com",
    ]);
    let rs = parse_diff_text(&text).unwrap();
    assert_eq!(
        summary(&text)[1..],
        [
            "  ? /webhooks/0/clientConfig/caBundle \"abc\" -> \"\"",
            "  ? /webhooks/1[name=\"b.example.com\"] - -> {..}",
        ]
    );
    assert_eq!(
        rs[0].changes[1].git,
        Some(json!({"admissionReviewVersions": ["v1"], "name": "b.example.com"}))
    );
}

#[test]
fn other_top_level_lists_keep_their_key() {
    let rules = lines(&[
        "===== rbac.authorization.k8s.io/ClusterRole /view-extra ======",
        "@@ -8,6 +8,7 @@",
        " - apiGroups:",
        "   - \"\"",
        "   resources:",
        "   - pods",
        "   verbs:",
        "   - get",
        "+  - list",
    ]);
    assert_eq!(summary(&rules)[1..], ["  ? /rules/0/verbs/1 - -> \"list\""]);
    let added_rule = lines(&[
        "===== rbac.authorization.k8s.io/Role ns/r ======",
        "12a13,16",
        "> - apiGroups:",
        ">   - apps",
        ">   resources:",
        ">   - deployments",
    ]);
    assert_eq!(summary(&added_rule)[1..], ["  ? /rules/0 - -> {..}"]);
    // The hunk starts inside a rule, at the items of one of its lists.
    let inside = lines(&[
        "===== rbac.authorization.k8s.io/ClusterRole /monitoring-view ======",
        "@@ -18,9 +18,7 @@",
        "   - monitoring.coreos.com",
        "   resources:",
        "   - prometheuses",
        "-  - alertmanagers",
        "   - servicemonitors",
        "   verbs:",
        "   - get",
        "   - list",
        "-  - watch",
    ]);
    assert_eq!(
        summary(&inside)[1..],
        [
            "  ? /rules/0/resources/1 \"alertmanagers\" -> -",
            "  ? /rules/0/verbs/2 \"watch\" -> -",
        ]
    );
    // A later hunk in the same list: the previous hunk named it.
    let two_hunks = lines(&[
        "===== rbac.authorization.k8s.io/ClusterRole /view-extra ======",
        "@@ -8,6 +8,7 @@",
        " - apiGroups:",
        "   - \"\"",
        "   resources:",
        "   - pods",
        "   verbs:",
        "   - get",
        "+  - list",
        "@@ -20,2 +21,3 @@",
        "   - watch",
        "   - update",
        "+  - patch",
    ]);
    let rs = parse_diff_text(&two_hunks).unwrap();
    let c = &rs[0].changes[1];
    assert_eq!(path_str(&c.path), "/rules/0/verbs/4");
    assert_eq!(
        (c.live.clone(), c.git.clone()),
        (None, Some(json!("patch")))
    );
    assert!(c.note.as_deref().unwrap_or("").contains("previous hunk"));
    let subjects = lines(&[
        "===== rbac.authorization.k8s.io/RoleBinding ns/rb ======",
        "@@ -12,3 +12,3 @@",
        " - kind: ServiceAccount",
        "-  name: old",
        "+  name: new",
        "   namespace: ns",
    ]);
    assert_eq!(
        summary(&subjects)[1..],
        ["  ? /subjects/0[name=\"old\"]/name \"old\" -> \"new\""]
    );
    let removed = lines(&[
        "===== rbac.authorization.k8s.io/ClusterRoleBinding /crb ======",
        "14,16d13",
        "< - kind: ServiceAccount",
        "<   name: old",
        "<   namespace: ns",
    ]);
    assert_eq!(
        summary(&removed)[1..],
        ["  ? /subjects/0[name=\"old\"] {..} -> -"]
    );
    // A kind the table does not know: the list stays unnamed rather than the object being a list.
    let unknown = lines(&[
        "===== example.com/Widget ns/w ======",
        "@@ -20,2 +20,2 @@",
        " - name: a",
        "-  size: 1",
        "+  size: 2",
    ]);
    let rs = parse_diff_text(&unknown).unwrap();
    let c = &rs[0].changes[0];
    // Its place is unknown: it stays on the whole object, and the note says where below.
    assert_eq!(path_str(&c.path), "/");
    assert!(!c.certain);
    assert!(c.note.as_deref().unwrap_or("").contains("size`"), "{c:?}");
    assert!(c
        .note
        .as_deref()
        .unwrap_or("")
        .contains("does not show the key at column"));
}

#[test]
fn scalar_items_of_an_unshown_key_are_not_put_in_a_list_of_maps() {
    // `- get` at two spaces in a ClusterRole is in `rules[].verbs` (or another list of the rule),
    // not in `metadata.ownerReferences`, whose items are maps. The key is not shown, so the change
    // stays on the whole object.
    let text = lines(&[
        "===== rbac.authorization.k8s.io/ClusterRole /view-extra ======",
        "14c14",
        "<   - get",
        "---",
        ">   - list",
    ]);
    let rs = parse_diff_text(&text).unwrap();
    let c = &rs[0].changes[0];
    assert_eq!(path_str(&c.path), "/");
    assert_eq!(
        (c.live.clone(), c.git.clone()),
        (Some(json!("get")), Some(json!("list")))
    );
    assert!(!c.certain);
}

#[test]
fn nested_list_items_without_their_key() {
    // Unified: the hunk starts at a container.
    let text = lines(&[
        "===== apps/Deployment default/web ======",
        "@@ -40,4 +40,4 @@",
        "       - name: app",
        "         image: app:1",
        "-        imagePullPolicy: Always",
        "+        imagePullPolicy: IfNotPresent",
        "         ports:",
    ]);
    assert_eq!(
        summary(&text)[1..],
        ["  ? /spec/template/spec/containers/0[name=\"app\"]/imagePullPolicy \"Always\" -> \"IfNotPresent\""]
    );
    // Plain diff of an item's first line: the image changed, not the whole container (the
    // container goes on below the hunk).
    let text = lines(&[
        "===== batch/Job shop/migrate ======",
        "38c38",
        "<       - image: registry.example.com/shop/migrate:3.3.2",
        "---",
        ">       - image: registry.example.com/shop/migrate:3.4.0",
    ]);
    let rs = parse_diff_text(&text).unwrap();
    let c = &rs[0].changes[0];
    assert_eq!(pointer_of(c), "/spec/template/spec/containers/0/image");
    assert_eq!(
        c.git,
        Some(json!("registry.example.com/shop/migrate:3.4.0"))
    );
    // A changed merge key is another item: one change holding both.
    let text = lines(&[
        "===== apps/Deployment default/web ======",
        "50,51c50,51",
        "<         - name: OLD",
        "<           value: a",
        "---",
        ">         - name: NEW",
        ">           value: b",
    ]);
    let rs = parse_diff_text(&text).unwrap();
    assert_eq!(rs[0].changes.len(), 1, "{:#?}", rs[0].changes);
    let c = &rs[0].changes[0];
    assert_eq!(
        path_str(&c.path),
        "/spec/template/spec/containers/0/env/0[name=\"OLD\"]"
    );
    assert_eq!(c.live, Some(json!({"name": "OLD", "value": "a"})));
    assert_eq!(c.git, Some(json!({"name": "NEW", "value": "b"})));
}

#[test]
fn a_shown_last_applied_configuration_fills_the_partial_objects() {
    let text = lines(&[
        "===== apps/Deployment shop/orders ======",
        "@@ -4,6 +4,6 @@",
        "   annotations:",
        "     kubectl.kubernetes.io/last-applied-configuration: |",
        "       {\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"labels\":{\"helm.sh/chart\":\"orders-2.3.0\"},\"name\":\"orders\"},\"spec\":{\"replicas\":3}}",
        "   labels:",
        "-    team: a",
        "+    team: b",
    ]);
    let rs = parse_diff_text(&text).unwrap();
    let git = rs[0].git_object.as_ref().unwrap();
    let live = rs[0].live_object.as_ref().unwrap();
    // Lines shown win; what they do not show comes from the last-applied object.
    assert_eq!(git["metadata"]["labels"]["team"], json!("b"));
    assert_eq!(live["metadata"]["labels"]["team"], json!("a"));
    assert_eq!(
        live["metadata"]["labels"]["helm.sh/chart"],
        json!("orders-2.3.0")
    );
    assert_eq!(git["spec"]["replicas"], json!(3));
    assert_eq!(git["metadata"]["namespace"], json!("shop"));
}
