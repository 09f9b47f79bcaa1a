//! Injectors: the artefacts a mutating webhook adds to a pod template (or a
//! Pod). Each injector's names come from its own documentation and source.

use super::{name_in, seg_key, var, Vars};
use crate::rules::Finding;
use serde_json::Value;

/// What one injector adds. Keys ending in `*` are prefixes.
pub(super) struct Injector {
    name: &'static str,
    /// Annotation and label keys the injector writes (never the opt-in keys users set).
    keys: &'static [&'static str],
    /// Keys it rewrites that users also set: they count only when a strong
    /// artefact of the injector is present live too.
    weak_keys: &'static [&'static str],
    containers: &'static [&'static str],
    /// Volume names; volume mounts use the same names.
    volumes: &'static [&'static str],
    /// Env var names added to the application's containers.
    env: &'static [&'static str],
    /// Env names that count only when a strong artefact is present live too.
    weak_env: &'static [&'static str],
    /// Strings whose presence in the live object confirms the injector.
    strong: &'static [&'static str],
}

pub(super) const ISTIO: Injector = Injector {
    name: "Istio's sidecar injector (istiod)",
    keys: &[
        "sidecar.istio.io/status",
        "kubectl.kubernetes.io/default-container",
        "kubectl.kubernetes.io/default-logs-container",
        "security.istio.io/tlsMode",
        "service.istio.io/canonical-name",
        "service.istio.io/canonical-revision",
    ],
    weak_keys: &["prometheus.io/*"],
    containers: &["istio-proxy", "istio-init", "istio-validation"],
    volumes: &[
        "istio-envoy",
        "istio-data",
        "istio-podinfo",
        "istio-token",
        "istiod-ca-cert",
        "workload-socket",
        "credential-socket",
        "workload-certs",
    ],
    env: &[],
    weak_env: &[],
    strong: &["sidecar.istio.io/status", "\"istio-proxy\""],
};

pub(super) const LINKERD: Injector = Injector {
    name: "Linkerd's proxy injector",
    keys: &[
        "linkerd.io/created-by",
        "linkerd.io/proxy-version",
        "linkerd.io/trust-root-sha256",
        "linkerd.io/identity-mode",
        "linkerd.io/control-plane-ns",
        "linkerd.io/workload-ns",
        "linkerd.io/proxy-*",
        "viz.linkerd.io/tap-enabled",
    ],
    weak_keys: &[],
    containers: &["linkerd-proxy", "linkerd-init", "linkerd-network-validator"],
    volumes: &[
        "linkerd-identity-end-entity",
        "linkerd-proxy-init-xtables-lock",
        "linkerd-identity-token",
    ],
    env: &[],
    weak_env: &[],
    strong: &["linkerd.io/proxy-version", "\"linkerd-proxy\""],
};

pub(super) const VAULT_AGENT: Injector = Injector {
    name: "the Vault agent injector (vault-k8s)",
    keys: &["vault.hashicorp.com/agent-inject-status"],
    weak_keys: &[],
    containers: &["vault-agent", "vault-agent-init"],
    volumes: &["home-init", "home-sidecar", "vault-secrets"],
    env: &[],
    weak_env: &[],
    strong: &["vault.hashicorp.com/agent-inject-status", "\"vault-agent"],
};

pub(super) const DATADOG: Injector = Injector {
    name: "the Datadog admission controller",
    keys: &[
        "admission.datadoghq.com/injected*",
        "apm.datadoghq.com/injected*",
    ],
    weak_keys: &[],
    containers: &[
        "datadog-lib-*-init",
        "datadog-init-apm-inject",
        "datadog-apm-inject-preload",
    ],
    volumes: &[
        "datadog",
        "datadog-auto-instrumentation",
        "datadog-auto-instrumentation-etc",
        "datadog-dogstatsd",
        "datadog-trace-agent",
    ],
    env: &[
        "DD_AGENT_HOST",
        "DD_ENTITY_ID",
        "DD_DOGSTATSD_URL",
        "DD_TRACE_AGENT_URL",
        "DD_EXTERNAL_ENV",
        "DD_INSTRUMENTATION_*",
    ],
    weak_env: &[
        "DD_ENV",
        "DD_SERVICE",
        "DD_VERSION",
        "DD_TRACE_*",
        "DD_LOGS_INJECTION",
        "DD_RUNTIME_METRICS_ENABLED",
    ],
    strong: &[
        "admission.datadoghq.com/",
        "\"DD_AGENT_HOST\"",
        "\"DD_ENTITY_ID\"",
        "\"DD_TRACE_AGENT_URL\"",
        "\"DD_DOGSTATSD_URL\"",
    ],
};

pub(super) const AWS_IDENTITY: Injector = Injector {
    name: "the EKS pod identity webhook (IRSA / EKS Pod Identity)",
    keys: &[],
    weak_keys: &[],
    containers: &[],
    volumes: &["aws-iam-token", "eks-pod-identity-token"],
    env: &[
        "AWS_ROLE_ARN",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
    ],
    weak_env: &[
        "AWS_STS_REGIONAL_ENDPOINTS",
        "AWS_DEFAULT_REGION",
        "AWS_REGION",
    ],
    strong: &[
        "\"AWS_WEB_IDENTITY_TOKEN_FILE\"",
        "\"AWS_CONTAINER_CREDENTIALS_FULL_URI\"",
        "\"aws-iam-token\"",
        "\"eks-pod-identity-token\"",
    ],
};

pub(super) const AZURE_IDENTITY: Injector = Injector {
    name: "the Azure Workload Identity webhook",
    keys: &[],
    weak_keys: &[],
    containers: &["azwi-proxy", "azwi-proxy-init"],
    volumes: &["azure-identity-token"],
    env: &["AZURE_FEDERATED_TOKEN_FILE"],
    weak_env: &["AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_AUTHORITY_HOST"],
    strong: &["\"AZURE_FEDERATED_TOKEN_FILE\"", "\"azure-identity-token\""],
};

fn item_name(v: &Value) -> Option<&str> {
    v.get("name").and_then(Value::as_str)
}

fn live_text(f: &Finding<'_>) -> std::sync::Arc<str> {
    match f.live_obj {
        Some(o) => f.input.json_text(f.key, false, o),
        None => std::sync::Arc::from(""),
    }
}

/// Whether the differing value (a key, a whole map, a list item or a whole
/// list that Git lacks) is something this injector adds.
/// How a pod injector's artefact reached an object of this kind. Pod
/// injectors register their webhooks for Pods, so they write a Pod at
/// admission, never a workload's pod template.
fn reached_through(kind: &str) -> String {
    if kind == "Pod" {
        String::new()
    } else {
        format!(" Its webhook registers for Pods, not for a {kind}, so it did not write this pod template itself: the manifests were run through the injector's command line (`istioctl kube-inject`, `linkerd inject`) before they were applied, or a webhook registered for workloads (a policy engine's mutation) copied it in.")
    }
}

pub(super) fn injected_by(inj: &Injector, f: &Finding<'_>) -> Option<Vars> {
    let live = f.live?;
    let n = f.path.len();
    let last = f.path.last()?;
    let parent = if n >= 2 {
        seg_key(&f.path[n - 2])
    } else {
        None
    };
    let strong_present = || {
        let text = live_text(f);
        inj.strong.iter().any(|s| text.contains(s))
    };
    let env_ok =
        |name: &str| name_in(name, inj.env) || (name_in(name, inj.weak_env) && strong_present());
    let key_ok =
        |key: &str| name_in(key, inj.keys) || (name_in(key, inj.weak_keys) && strong_present());
    let found = |what: String| {
        Some(vec![
            var("injector", inj.name),
            var("artefact", what),
            var("reached", reached_through(&f.key.kind)),
        ])
    };
    match (parent, last) {
        // One annotation or label key.
        (Some("annotations" | "labels"), crate::path::Seg::Key(k)) => {
            if key_ok(k) {
                return found(format!(
                    "{} `{k}`",
                    if parent == Some("labels") {
                        "label"
                    } else {
                        "annotation"
                    }
                ));
            }
            None
        }
        // One list item: a container, a volume, a mount or an env var.
        (Some(list), crate::path::Seg::Item { .. }) if f.git.is_none() => {
            let name = item_name(live)?;
            let hit = match list {
                "containers" | "initContainers" => name_in(name, inj.containers),
                "volumes" | "volumeMounts" => name_in(name, inj.volumes),
                "env" => env_ok(name),
                _ => false,
            };
            if hit {
                found(format!("{} `{name}`", singular(list)))
            } else {
                None
            }
        }
        // A whole map or list Git does not have.
        (_, crate::path::Seg::Key(k)) if f.git.is_none() => match (k.as_str(), live) {
            ("annotations" | "labels", Value::Object(m)) if !m.is_empty() => {
                if m.keys().all(|key| key_ok(key)) && m.keys().any(|key| name_in(key, inj.keys)) {
                    found(format!(
                        "{k} {}",
                        m.keys().cloned().collect::<Vec<_>>().join(", ")
                    ))
                } else {
                    None
                }
            }
            (
                list @ ("containers" | "initContainers" | "volumes" | "volumeMounts" | "env"),
                Value::Array(items),
            ) if !items.is_empty() => {
                let all = items.iter().all(|it| {
                    item_name(it).is_some_and(|name| match list {
                        "containers" | "initContainers" => name_in(name, inj.containers),
                        "volumes" | "volumeMounts" => name_in(name, inj.volumes),
                        _ => env_ok(name),
                    })
                });
                let names: Vec<&str> = items.iter().filter_map(item_name).collect();
                if all {
                    found(format!("{list} {}", names.join(", ")))
                } else {
                    None
                }
            }
            _ => None,
        },
        _ => None,
    }
}

fn singular(list: &str) -> &str {
    match list {
        "containers" => "container",
        "initContainers" => "init container",
        "volumes" => "volume",
        "volumeMounts" => "volume mount",
        "env" => "env var",
        other => other,
    }
}

const INJECTORS: [&Injector; 6] = [
    &ISTIO,
    &LINKERD,
    &VAULT_AGENT,
    &DATADOG,
    &AWS_IDENTITY,
    &AZURE_IDENTITY,
];

/// A whole map or list Git lacks whose every key or item was added by the
/// known injectors (one or several on the same pod template).
pub(super) fn injected_collection(f: &Finding<'_>) -> Option<Vars> {
    let live = f.live?;
    if f.git.is_some() {
        return None;
    }
    let list = seg_key(f.path.last()?)?;
    let text = live_text(f);
    let strong = |inj: &Injector| inj.strong.iter().any(|s| text.contains(s));
    let owner_of_item = |name: &str| -> Option<&'static str> {
        INJECTORS.iter().find_map(|inj| {
            let hit = match list {
                "containers" | "initContainers" => name_in(name, inj.containers),
                "volumes" | "volumeMounts" => name_in(name, inj.volumes),
                "env" => name_in(name, inj.env) || (name_in(name, inj.weak_env) && strong(inj)),
                "annotations" | "labels" => {
                    name_in(name, inj.keys) || (name_in(name, inj.weak_keys) && strong(inj))
                }
                _ => false,
            };
            hit.then_some(inj.name)
        })
    };
    let names: Vec<String> = match live {
        Value::Array(items) => items
            .iter()
            .map(|it| item_name(it).map(str::to_string))
            .collect::<Option<Vec<_>>>()?,
        Value::Object(m) if matches!(list, "annotations" | "labels") => m.keys().cloned().collect(),
        _ => return None,
    };
    if names.is_empty() {
        return None;
    }
    let mut owners: Vec<&str> = Vec::new();
    for n in &names {
        let o = owner_of_item(n)?;
        if !owners.contains(&o) {
            owners.push(o);
        }
    }
    Some(vec![
        var("injectors", owners.join(" and ")),
        var("artefact", format!("{list} {}", names.join(", "))),
    ])
}
