//! The test support's renderers of `argocd app diff` and `kubectl diff` text
//! and its YAML writer, read back by drift-doctor's diff-text reader: what
//! the tools print for given objects reads back into those objects.

use crate::common::diff_writer::go_yaml;
use crate::common::diff_writer::{render_argocd_diff, render_kubectl_diff, RenderResource};
use drift_doctor::difftext::{parse_diff_text, Presence, Seg, TextFormat, TextResource};
use serde_json::{json, Value};

fn find<'a>(rs: &'a [TextResource], kind: &str, name: &str) -> &'a TextResource {
    rs.iter()
        .find(|r| r.kind == kind && r.name == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

/// What drift-doctor's reader makes of YAML lines printed as an object that
/// exists only in Git (`0a1,N` in `argocd app diff`'s normal format).
fn read_back(yaml: &str) -> Value {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut text = format!(
        "\n===== /ConfigMap shop/written ======\n0a1,{}\n",
        lines.len()
    );
    for l in &lines {
        text.push_str("> ");
        text.push_str(l);
        text.push('\n');
    }
    let rs = parse_diff_text(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    rs[0].git_object.clone().expect("the written object")
}

/// The diff-text fixtures, by name.
fn fixtures() -> Vec<(String, String)> {
    let dir = crate::common::root().join("tests/fixtures/difftext");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/difftext")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// One resource to render.
fn res<'a>(
    group: &'a str,
    kind: &'a str,
    namespace: &'a str,
    name: &'a str,
    live: Option<&'a Value>,
    target: Option<&'a Value>,
) -> RenderResource<'a> {
    RenderResource {
        group,
        kind,
        namespace,
        name,
        live,
        target,
    }
}

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
    let web = [res(
        "apps",
        "Deployment",
        "shop",
        "web",
        Some(&live),
        Some(&git),
    )];
    let text = render_argocd_diff(&web, None);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[..2], ["", "===== apps/Deployment shop/web ======"]);
    assert!(lines[2].ends_with('c') || lines[2].contains('c'), "{text}");
    assert_eq!(lines[3..], ["<   replicas: 5", "---", ">   replicas: 2"]);

    let text = render_argocd_diff(&web, Some(3));
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
            res("", "Service", "a", "b", Some(&live), Some(&live)),
            res("", "Service", "a", "c", None, None),
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
        res("apps", "Deployment", "shop", "web", Some(&live), Some(&git)),
        res("", "ConfigMap", "shop", "new", None, Some(&created)),
        res("", "Service", "shop", "old", Some(&extra), None),
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
    let text = render_kubectl_diff(&[res(
        "rbac.authorization.k8s.io",
        "ClusterRole",
        "",
        "view-extra",
        None,
        Some(&cr),
    )]);
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("diff -u -N /tmp/LIVE-"), "{text}");
    assert!(
        first.ends_with("/rbac.authorization.k8s.io.v1.ClusterRole..view-extra"),
        "{text}"
    );
    assert!(text.contains("\n@@ -0,0 +1,5 @@\n"), "{text}");
}

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
    assert_eq!(go_yaml::to_yaml(&v), expected);
    assert_eq!(read_back(expected), v);
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
    let text = go_yaml::to_yaml(&v);
    assert!(text.lines().all(|l| l.chars().count() < 100), "{text}");
    assert!(text.lines().count() > 4, "{text}");
    assert_eq!(read_back(&text), v);
}

#[test]
fn go_key_order() {
    let mut keys = vec!["b", "a10", "a9", "A", "_x", "a-b", "ab", "z"];
    keys.sort_by(|a, b| go_yaml::go_key_cmp(a, b));
    assert_eq!(keys, ["_x", "A", "a-b", "a9", "a10", "ab", "b", "z"]);
}

/// A printed line without its diff marker (and, in the normal format, the
/// blank after it); `None` once a line lacks the marker.
fn strip_marker(line: &str, marker: char, normal: bool) -> Option<&str> {
    let rest = line.strip_prefix(marker)?;
    Some(if normal {
        rest.strip_prefix(' ').unwrap_or(rest)
    } else {
        rest
    })
}

#[test]
fn the_writer_reproduces_the_fixture_yaml() {
    // Every one-side object printed in the fixtures is written back line for line.
    let mut checked = 0;
    for (name, text) in &fixtures() {
        let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
        for r in parse_diff_text(text).unwrap() {
            if r.presence == Presence::Both {
                continue;
            }
            let Some(obj) = r.git_object.as_ref().or(r.live_object.as_ref()) else {
                continue;
            };
            let marker = lines[r.changes[0].line - 1].chars().next().unwrap_or(' ');
            let normal = r.format == TextFormat::ArgoNormal;
            let printed: Vec<&str> = lines[r.changes[0].line - 1..]
                .iter()
                .map_while(|l| strip_marker(l, marker, normal))
                .collect();
            let written = go_yaml::to_yaml(obj);
            assert_eq!(written.lines().collect::<Vec<_>>(), printed, "{name}");
            checked += 1;
        }
    }
    assert!(checked >= 7, "{checked}");
}
