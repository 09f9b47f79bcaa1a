//! The matrix of https://github.com/gitops-examples/what-the-diff (its
//! `manual-edit` and `git-changes` tables): which change Argo CD's legacy
//! diff, its server-side diff and its structured-merge diff (apps synced with
//! `ServerSideApply=true`, before 3.6) show. Each row is rebuilt here as
//! the objects each column's app leaves live: the legacy and server-side
//! diff apps apply client-side (`argocd-controller` with `operation: Update`
//! and the last-applied annotation), the server-side apply app applies with
//! `operation: Apply`; a hand edit is `kubectl edit` (`kubectl-edit`,
//! `Update`), with `--save-config` also rewriting the annotation.

use crate::common;

use drift_doctor::{analyze, ArgoCdRelease, CompareOptions, Options, Status, Strategy};
use serde_json::{json, Map, Value};

const COLUMNS: [Strategy; 3] = [
    Strategy::Legacy,
    Strategy::ServerSideDiff,
    Strategy::ServerSideApply,
];

fn deployment() -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "hello", "namespace": "matrix", "labels": {"tier": "web"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "hello"}},
            "template": {
                "metadata": {"labels": {"app": "hello"}},
                "spec": {"containers": [{
                    "name": "hello",
                    "image": "busybox:1.36",
                    "command": ["sh", "-c", "sleep 3600"],
                    "env": [{"name": "GREETING", "value": "hi"}],
                    "envFrom": [{"configMapRef": {"name": "hello-config"}}]
                }]}
            }
        }
    })
}

fn config_map() -> Value {
    json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "hello-config", "namespace": "matrix", "labels": {"tier": "web"}},
        "data": {"MESSAGE": "hello", "PORT": "8080"}
    })
}

/// `managedFields`' `fieldsV1` for the fields of `v`: containers and env
/// entries keyed by name (their merge key), other lists whole.
fn fields_v1(v: &Value) -> Value {
    let Value::Object(m) = v else {
        return json!({});
    };
    let mut out = Map::new();
    for (k, child) in m {
        if matches!(k.as_str(), "apiVersion" | "kind" | "status") {
            continue;
        }
        let entry = match child {
            Value::Array(items) if matches!(k.as_str(), "containers" | "env") => {
                let mut list = Map::new();
                for item in items {
                    let mut owned = fields_v1(item);
                    owned[".".to_string()] = json!({});
                    let name = item["name"].as_str().unwrap_or_default();
                    list.insert(format!("k:{{\"name\":\"{name}\"}}"), owned);
                }
                Value::Object(list)
            }
            Value::Object(_) => fields_v1(child),
            _ => json!({}),
        };
        out.insert(format!("f:{k}"), entry);
    }
    Value::Object(out)
}

fn managed(manager: &str, operation: &str, fields: Value) -> Value {
    json!({"manager": manager, "operation": operation, "apiVersion": "v1",
        "time": "2026-11-30T06:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": fields})
}

/// Remove the field at a `fieldsV1` path (ownership moved or the field gone).
fn disown(fields: &mut Value, path: &[&str]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = fields;
    for p in parents {
        match at.get_mut(*p) {
            Some(next) => at = next,
            None => return,
        }
    }
    if let Value::Object(m) = at {
        m.remove(*last);
    }
}

/// `fields` without the fields `live` no longer has: `f:<key>` of a map,
/// `k:{"name":…}` of a list keyed by name.
fn present_in(fields: Value, live: &Value) -> Value {
    let Value::Object(m) = fields else {
        return fields;
    };
    let kept = m.into_iter().filter_map(|(k, sub)| {
        let at = if let Some(key) = k.strip_prefix("f:") {
            live.get(key)
        } else if let Some(item) = k.strip_prefix("k:") {
            let item: Value = serde_json::from_str(item).ok()?;
            live.as_array()?.iter().find(|x| x["name"] == item["name"])
        } else {
            Some(live)
        };
        at.map(|at| {
            let sub = present_in(sub, at);
            (k, sub)
        })
    });
    Value::Object(kept.collect())
}

/// A `fieldsV1` holding the given paths.
fn owning(paths: &[&[&str]]) -> Value {
    let mut out = json!({});
    for path in paths {
        let mut at = &mut out;
        for p in *path {
            at = at
                .as_object_mut()
                .unwrap()
                .entry(p.to_string())
                .or_insert_with(|| json!({}));
        }
    }
    out
}

/// The live object the column's app leaves after syncing `applied`.
fn synced(applied: &Value, column: Strategy) -> Value {
    let mut live = applied.clone();
    let kind = live["kind"].as_str().unwrap().to_string();
    let group = if kind == "Deployment" { "apps" } else { "" };
    drift_doctor::k8s::apply_defaults(group, &kind, &mut live);
    let mut fields = fields_v1(applied);
    if column == Strategy::ServerSideApply {
        live["metadata"]["managedFields"] = json!([managed("argocd-controller", "Apply", fields)]);
    } else {
        let text = serde_json::to_string(applied).unwrap();
        live["metadata"]["annotations"] =
            json!({"kubectl.kubernetes.io/last-applied-configuration": text});
        fields["f:metadata"]["f:annotations"] =
            json!({".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}});
        live["metadata"]["managedFields"] = json!([managed("argocd-controller", "Update", fields)]);
    }
    live
}

/// One row: how `kubectl edit` changes the live object, which fields it
/// then owns, and whether each column (legacy, server-side diff,
/// server-side apply) shows a difference (`None`: the matrix records none).
struct Edit {
    case: &'static str,
    object: fn() -> Value,
    edit: fn(&mut Value),
    owns: &'static [&'static [&'static str]],
    save_config: bool,
    manager: &'static str,
    shows: [Option<bool>; 3],
}

const LABEL_NEW: &[&str] = &["f:metadata", "f:labels", "f:owner"];
const LABEL_TIER: &[&str] = &["f:metadata", "f:labels", "f:tier"];
const DATA_NEW: &[&str] = &["f:data", "f:EXTRA"];
const DATA_MESSAGE: &[&str] = &["f:data", "f:MESSAGE"];
const CONTAINER: [&str; 5] = [
    "f:spec",
    "f:template",
    "f:spec",
    "f:containers",
    "k:{\"name\":\"hello\"}",
];
const ENV_NEW: &[&str] = &[
    CONTAINER[0],
    CONTAINER[1],
    CONTAINER[2],
    CONTAINER[3],
    CONTAINER[4],
    "f:env",
    "k:{\"name\":\"EXTRA\"}",
];
const ENV_GREETING_VALUE: &[&str] = &[
    CONTAINER[0],
    CONTAINER[1],
    CONTAINER[2],
    CONTAINER[3],
    CONTAINER[4],
    "f:env",
    "k:{\"name\":\"GREETING\"}",
    "f:value",
];
const REPLICAS: &[&str] = &["f:spec", "f:replicas"];
const HISTORY: &[&str] = &["f:spec", "f:revisionHistoryLimit"];
const PAUSED: &[&str] = &["f:spec", "f:paused"];

fn env(live: &mut Value) -> &mut Vec<Value> {
    live["spec"]["template"]["spec"]["containers"][0]["env"]
        .as_array_mut()
        .unwrap()
}

const MANUAL_EDITS: &[Edit] = &[
    Edit {
        case: "edit the number of replicas",
        object: deployment,
        edit: |l| l["spec"]["replicas"] = json!(3),
        owns: &[REPLICAS],
        save_config: false,
        manager: "kubectl-edit",
        shows: [Some(true), Some(true), Some(true)],
    },
    Edit {
        case: "add a new label",
        object: deployment,
        edit: |l| l["metadata"]["labels"]["owner"] = json!("team-a"),
        owns: &[LABEL_NEW],
        save_config: false,
        manager: "kubectl-edit",
        shows: [Some(false), Some(false), Some(false)],
    },
    Edit {
        case: "add a new label (--save-config)",
        object: deployment,
        edit: |l| l["metadata"]["labels"]["owner"] = json!("team-a"),
        owns: &[LABEL_NEW],
        save_config: true,
        manager: "kubectl-edit",
        shows: [Some(true), Some(false), Some(false)],
    },
    Edit {
        case: "add a new label (--field-manager=argocd-controller)",
        object: deployment,
        edit: |l| l["metadata"]["labels"]["owner"] = json!("team-a"),
        owns: &[LABEL_NEW],
        save_config: false,
        manager: "argocd-controller",
        shows: [None, Some(false), Some(false)],
    },
    Edit {
        case: "delete a label",
        object: deployment,
        edit: |l| {
            l["metadata"]["labels"]
                .as_object_mut()
                .unwrap()
                .remove("tier");
        },
        owns: &[],
        save_config: false,
        manager: "kubectl-edit",
        shows: [Some(true), Some(true), Some(true)],
    },
    Edit {
        case: "change an existing label",
        object: deployment,
        edit: |l| l["metadata"]["labels"]["tier"] = json!("backend"),
        owns: &[LABEL_TIER],
        save_config: false,
        manager: "kubectl-edit",
        shows: [Some(true), Some(true), Some(true)],
    },
    Edit {
        case: "add a data item to a ConfigMap",
        object: config_map,
        edit: |l| l["data"]["EXTRA"] = json!("yes"),
        owns: &[DATA_NEW],
        save_config: false,
        manager: "kubectl-edit",
        shows: [Some(false), Some(false), Some(false)],
    },
    Edit {
        case: "add a data item to a ConfigMap (--save-config)",
        object: config_map,
        edit: |l| l["data"]["EXTRA"] = json!("yes"),
        owns: &[DATA_NEW],
        save_config: true,
        manager: "kubectl-edit",
        shows: [Some(true), Some(false), Some(false)],
    },
    Edit {
        case: "change an existing data item in a ConfigMap",
        object: config_map,
        edit: |l| l["data"]["MESSAGE"] = json!("bonjour"),
        owns: &[DATA_MESSAGE],
        save_config: false,
        manager: "kubectl-edit",
        shows: [Some(true), Some(true), Some(true)],
    },
    Edit {
        case: "add an env var",
        object: deployment,
        edit: |l| env(l).push(json!({"name": "EXTRA", "value": "yes"})),
        owns: &[ENV_NEW],
        save_config: false,
        manager: "kubectl-edit",
        shows: [Some(false), Some(false), Some(false)],
    },
    Edit {
        case: "change an env var",
        object: deployment,
        edit: |l| env(l)[0]["value"] = json!("hello"),
        owns: &[ENV_GREETING_VALUE],
        save_config: false,
        manager: "kubectl-edit",
        shows: [Some(true), Some(true), Some(true)],
    },
    Edit {
        case: "delete an env var",
        object: deployment,
        edit: |l| {
            let container = l["spec"]["template"]["spec"]["containers"][0]
                .as_object_mut()
                .unwrap();
            container.remove("env");
        },
        owns: &[],
        save_config: false,
        manager: "kubectl-edit",
        shows: [Some(true), Some(true), Some(true)],
    },
    Edit {
        case: "change a default value (revisionHistoryLimit to 11)",
        object: deployment,
        edit: |l| l["spec"]["revisionHistoryLimit"] = json!(11),
        owns: &[HISTORY],
        save_config: false,
        manager: "kubectl-edit",
        shows: [Some(false), Some(false), Some(false)],
    },
    Edit {
        case: "change a default value (--save-config)",
        object: deployment,
        edit: |l| l["spec"]["revisionHistoryLimit"] = json!(11),
        owns: &[HISTORY],
        save_config: true,
        manager: "kubectl-edit",
        shows: [Some(true), Some(false), Some(false)],
    },
    Edit {
        case: "add the paused field to a Deployment",
        object: deployment,
        edit: |l| l["spec"]["paused"] = json!(true),
        owns: &[PAUSED],
        save_config: false,
        manager: "kubectl-edit",
        shows: [Some(false), Some(false), Some(false)],
    },
];

fn status(git: &Value, live: &Value, column: Strategy) -> Status {
    let opts = Options {
        namespace: None,
        compare: CompareOptions {
            strategy: column,
            // The matrix's server-side apply column is the structured-merge
            // diff, which Argo CD replaced by server-side diff in 3.6.
            ..CompareOptions::for_release(ArgoCdRelease::new(3, 5))
        },
    };
    let text = |v: &Value| serde_yaml::to_string(v).unwrap();
    let report = analyze(&text(git), &text(live), &opts).unwrap();
    common::assert_valid(&report);
    assert_eq!(report.resources.len(), 1, "{report:#?}");
    report.resources[0].status
}

#[test]
fn manual_edits_show_as_the_matrix_records() {
    let mut wrong = Vec::new();
    for row in MANUAL_EDITS {
        let git = (row.object)();
        for (column, shows) in COLUMNS.iter().zip(row.shows) {
            let Some(shows) = shows else { continue };
            let mut live = synced(&git, *column);
            (row.edit)(&mut live);
            let entries = live["metadata"]["managedFields"].as_array_mut().unwrap();
            for path in row.owns {
                disown(&mut entries[0]["fieldsV1"], path);
            }
            // A deleted field is no one's any more.
            let fields = live["metadata"]["managedFields"][0]["fieldsV1"].take();
            live["metadata"]["managedFields"][0]["fieldsV1"] = present_in(fields, &live);
            if !row.owns.is_empty() {
                let entries = live["metadata"]["managedFields"].as_array_mut().unwrap();
                entries.push(managed(row.manager, "Update", owning(row.owns)));
            }
            if row.save_config {
                // `--save-config` records the edited configuration.
                let mut config = git.clone();
                (row.edit)(&mut config);
                live["metadata"]["annotations"]
                    ["kubectl.kubernetes.io/last-applied-configuration"] =
                    json!(serde_json::to_string(&config).unwrap());
            }
            let got = status(&git, &live, *column) == Status::OutOfSync;
            if got != shows {
                wrong.push(format!(
                    "{} under {}: {} (the matrix: {})",
                    row.case,
                    column.id(),
                    if got { "OutOfSync" } else { "Synced" },
                    if shows { "OutOfSync" } else { "Synced" }
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// A row of the `git-changes` table: the object, and how Git changes it.
type Removal = (&'static str, fn() -> Value, fn(&mut Value));

/// The `git-changes` table: a field removed from Git shows under the legacy
/// diff (the annotation still holds it) and under the structured-merge diff
/// (Argo CD applied it), but not under server-side diff of an object
/// applied client-side (argo-cd #25205).
#[test]
fn removals_from_git_show_as_the_matrix_records() {
    let rows: [Removal; 2] = [
        ("remove a data item from a ConfigMap", config_map, |g| {
            g["data"].as_object_mut().unwrap().remove("PORT");
        }),
        ("remove a label", deployment, |g| {
            g["metadata"]["labels"]
                .as_object_mut()
                .unwrap()
                .remove("tier");
        }),
    ];
    for (case, object, change) in rows {
        let before = object();
        let mut git = before.clone();
        change(&mut git);
        for (column, shows) in COLUMNS.iter().zip([true, false, true]) {
            let live = synced(&before, *column);
            let got = status(&git, &live, *column) == Status::OutOfSync;
            assert_eq!(got, shows, "{case} under {}", column.id());
        }
    }
}
