//! The predicates, each with the facts that make it hold or not.

use super::*;
use crate::context::InputContext;
use crate::identity::ResourceKey;
use crate::model::{Change, Presence};
use crate::path::{parse_pointer, Seg};
use serde_json::json;

fn check(
    name: &str,
    kind: (&str, &str),
    pointer: &str,
    git: Option<Value>,
    live: Option<Value>,
    live_obj: Value,
) -> Option<Vars> {
    let key = ResourceKey {
        group: kind.0.into(),
        kind: kind.1.into(),
        namespace: "shop".into(),
        name: "web".into(),
    };
    let path: Vec<Seg> = parse_pointer(pointer);
    let change = match (&git, &live) {
        (None, Some(_)) => Change::Added,
        (Some(_), None) => Change::Removed,
        _ => Change::Changed,
    };
    let input = InputContext::default();
    let f = Finding {
        key: &key,
        path: &path,
        pointer,
        change,
        presence: Presence::Both,
        git: git.as_ref(),
        live: live.as_ref(),
        git_obj: None,
        live_obj: Some(&live_obj),
        manager: None,
        refused_with: None,
        provenance: Default::default(),
        input: &input,
    };
    eval(name, &f)
}

/// One predicate on one difference: whether it holds.
struct Case {
    why: &'static str,
    predicate: &'static str,
    kind: (&'static str, &'static str),
    pointer: &'static str,
    git: Option<Value>,
    live: Option<Value>,
    live_obj: Value,
    holds: bool,
}

#[test]
fn predicates_hold_exactly_on_their_evidence() {
    let deployment = ("apps", "Deployment");
    let webhook = (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
    );
    let env = "/spec/template/spec/containers/0/env/0";
    let region = json!({"name": "AWS_REGION", "value": "eu-west-1"});
    let expressions = "/webhooks/0/namespaceSelector/matchExpressions/1";
    let cases = [
        Case {
            why: "a render time newer in Git",
            predicate: "values_look_like_time",
            kind: ("", "ConfigMap"),
            pointer: "/data/at",
            git: Some(json!("2026-11-29T10:00:00Z")),
            live: Some(json!("2026-11-28T10:00:00Z")),
            live_obj: json!({}),
            holds: true,
        },
        Case {
            why: "a date moved forward live is not a render time",
            predicate: "values_look_like_time",
            kind: ("", "ConfigMap"),
            pointer: "/data/at",
            git: Some(json!("2026-11-27T10:00:00Z")),
            live: Some(json!("2026-11-28T10:00:00Z")),
            live_obj: json!({}),
            holds: false,
        },
        Case {
            why: "quantities compare by value",
            predicate: "same_quantity",
            kind: ("x.io", "Thing"),
            pointer: "/spec/cpu",
            git: Some(json!("1000m")),
            live: Some(json!("1")),
            live_obj: json!({}),
            holds: true,
        },
        Case {
            why: "durations compare by value",
            predicate: "same_quantity",
            kind: ("x.io", "Thing"),
            pointer: "/spec/ttl",
            git: Some(json!("8760h")),
            live: Some(json!("8760h0m0s")),
            live_obj: json!({}),
            holds: true,
        },
        Case {
            why: "different quantities",
            predicate: "same_quantity",
            kind: ("x.io", "Thing"),
            pointer: "/spec/cpu",
            git: Some(json!("1")),
            live: Some(json!("2")),
            live_obj: json!({}),
            holds: false,
        },
        Case {
            why: "a region alone is not IRSA",
            predicate: "aws_identity_injected",
            kind: deployment,
            pointer: env,
            git: None,
            live: Some(region.clone()),
            live_obj: json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "env": [{"name": "AWS_REGION", "value": "eu-west-1"}]}]}}}}),
            holds: false,
        },
        Case {
            why: "a region beside the web identity token is IRSA",
            predicate: "aws_identity_injected",
            kind: deployment,
            pointer: env,
            git: None,
            live: Some(region),
            live_obj: json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "env": [
                {"name": "AWS_REGION", "value": "eu-west-1"}, {"name": "AWS_WEB_IDENTITY_TOKEN_FILE", "value": "/var/run/token"}]}]}}}}),
            holds: true,
        },
        Case {
            why: "an added istio-proxy container is injected",
            predicate: "istio_injected",
            kind: deployment,
            pointer: "/spec/template/spec/containers/1",
            git: None,
            live: Some(json!({"name": "istio-proxy", "image": "istio/proxyv2:1.22.1"})),
            live_obj: json!({}),
            holds: true,
        },
        Case {
            why: "only items Git lacks count as injected",
            predicate: "istio_injected",
            kind: deployment,
            pointer: "/spec/template/spec/containers/1",
            git: Some(json!({"name": "istio-proxy"})),
            live: Some(json!({"name": "istio-proxy", "image": "x"})),
            live_obj: json!({}),
            holds: false,
        },
        Case {
            why: "AKS adds its control-plane expression",
            predicate: "aks_admissions_enforcer",
            kind: webhook,
            pointer: expressions,
            git: None,
            live: Some(json!({"key": "control-plane", "operator": "DoesNotExist"})),
            live_obj: json!({}),
            holds: true,
        },
        Case {
            why: "AKS expressions only",
            predicate: "aks_admissions_enforcer",
            kind: webhook,
            pointer: expressions,
            git: None,
            live: Some(json!({"key": "team", "operator": "Exists"})),
            live_obj: json!({}),
            holds: false,
        },
        Case {
            why: "a masked Secret value",
            predicate: "secret_value_masked",
            kind: ("", "Secret"),
            pointer: "/data/a",
            git: Some(json!("aGk=")),
            live: Some(json!("++++++++")),
            live_obj: json!({}),
            holds: true,
        },
        Case {
            why: "a changed Secret value is not a mask",
            predicate: "secret_value_masked",
            kind: ("", "Secret"),
            pointer: "/data/a",
            git: Some(json!("aGk=")),
            live: Some(json!("aGV5")),
            live_obj: json!({}),
            holds: false,
        },
    ];
    for c in cases {
        let held = check(c.predicate, c.kind, c.pointer, c.git, c.live, c.live_obj);
        assert_eq!(held.is_some(), c.holds, "{}: {}", c.predicate, c.why);
    }
}

#[test]
fn kustomize_hash_suffix_uses_its_own_alphabet() {
    assert_eq!(hash_base("cart-config-7d5f8h2k9m"), Some("cart-config"));
    // No digit at all is still a possible hash.
    assert_eq!(hash_base("gateway-keys-bdfhkmtgcb"), Some("gateway-keys"));
    // 0, 1, 3, a and e never occur; ordinary words are not hashes.
    assert_eq!(hash_base("queue-0123456789"), None);
    assert_eq!(hash_base("my-deployment"), None);
    assert_eq!(hash_base("short-7d5f8h"), None);
}

#[test]
fn kyverno_paths_stand_for_every_item_of_the_rule() {
    assert!(covers(
        "/spec/containers/1/image",
        "/spec/containers/1/image",
        false
    ));
    assert!(covers(
        "/spec/containers/1",
        "/spec/containers/1/image",
        false
    ));
    assert!(!covers(
        "/spec/containers/1/image",
        "/spec/containers/0/image",
        false
    ));
    assert!(covers(
        "/spec/containers/1/image",
        "/spec/containers/0/image",
        true
    ));
    assert!(!covers(
        "/spec/containers/1/image",
        "/spec/volumes/0/name",
        true
    ));
}

#[test]
fn a_reencoded_quantity_is_the_api_servers_only_in_a_typed_field() {
    let rewriter = |kind: (&str, &str), pointer: &str| {
        check(
            "same_quantity",
            kind,
            pointer,
            Some(json!("3072Mi")),
            Some(json!("3Gi")),
            json!({}),
        )
        .and_then(|vars| vars.into_iter().find(|(k, _)| k == "rewriter"))
        .map(|(_, v)| v)
        .unwrap_or_default()
    };
    let typed = rewriter(
        ("apps", "Deployment"),
        "/spec/template/spec/containers/0/resources/limits/memory",
    );
    assert!(
        typed.contains("API server stores the quantities"),
        "{typed}"
    );
    for (kind, pointer) in [
        (("", "ConfigMap"), "/data/memory"),
        (
            ("monitoring.coreos.com", "Prometheus"),
            "/spec/resources/requests/memory",
        ),
    ] {
        let untyped = rewriter(kind, pointer);
        assert!(
            untyped.contains("a mutating webhook or a controller wrote it")
                && !untyped.contains("API server stores"),
            "{untyped}"
        );
    }
}

#[test]
fn a_restart_time_stamp_is_named_so_and_holds_a_time() {
    let stamped = |k: &str, v: Value| restart_time_stamp(k, &v);
    assert!(stamped(
        "vso.secrets.hashicorp.com/restartedAt",
        json!("2025-09-25T13:04:41Z")
    ));
    assert!(stamped(
        "cattle.io/timestamp",
        json!("2024-02-01T10:00:00Z")
    ));
    assert!(stamped("example.org/redeployed-at", json!("1764400000")));
    // A time under another name, or a restart setting that is no time.
    assert!(!stamped(
        "build.example.org/date",
        json!("2025-09-25T13:04:41Z")
    ));
    assert!(!stamped("example.org/restart-policy", json!("always")));
    assert!(!stamped("example.org/restartedAt", json!(true)));
}

#[test]
fn hook_annotations_on_a_pod_template_are_found_only_when_the_object_has_none() {
    let job = |meta: Value| {
        json!({"apiVersion": "batch/v1", "kind": "Job",
               "metadata": meta,
               "spec": {"template": {"metadata": {"annotations": {"argocd.argoproj.io/hook": "Sync"}}}}})
    };
    let holds = |obj: &Value| {
        let key = ResourceKey {
            group: "batch".into(),
            kind: "Job".into(),
            namespace: "shop".into(),
            name: "web".into(),
        };
        let input = InputContext::default();
        let f = Finding {
            key: &key,
            path: &[],
            pointer: "",
            change: Change::Removed,
            presence: Presence::GitOnly,
            git: Some(obj),
            live: None,
            git_obj: Some(obj),
            live_obj: None,
            manager: None,
            refused_with: None,
            provenance: Default::default(),
            input: &input,
        };
        ordering::hook_on_pod_template(&f).is_some()
    };
    assert!(holds(&job(json!({"name": "web"}))));
    assert!(!holds(&job(
        json!({"name": "web", "annotations": {"argocd.argoproj.io/hook": "Sync"}})
    )));
}

#[test]
fn a_custom_field_is_pruned_only_where_live_adds_nothing_beside_it() {
    let key = ResourceKey {
        group: "backup.example.org".into(),
        kind: "Schedule".into(),
        namespace: "ops".into(),
        name: "nightly".into(),
    };
    let pointer = "/spec/retention/keepWeekly";
    let path = parse_pointer(pointer);
    let input = InputContext::default();
    let git_obj = json!({"spec": {"retention": {"keepDaily": 7, "keepWeekly": 4}}});
    let holds = |live_obj: &Value, key: &ResourceKey| {
        let f = Finding {
            key,
            path: &path,
            pointer,
            change: Change::Removed,
            presence: Presence::Both,
            git: git_obj.at(pointer),
            live: None,
            git_obj: Some(&git_obj),
            live_obj: Some(live_obj),
            manager: None,
            refused_with: None,
            provenance: Default::default(),
            input: &input,
        };
        eval("custom_field_pruned", &f).is_some()
    };
    // Only taken away: what an older CRD's schema prunes.
    assert!(holds(
        &json!({"spec": {"retention": {"keepDaily": 7}}}),
        &key
    ));
    // Rewritten into another shape (a conversion, a webhook): not pruning.
    assert!(!holds(
        &json!({"spec": {"retention": {"keepDaily": 7, "weekly": {"keep": 4}}}}),
        &key
    ));
    // A built-in kind has no CRD to prune it.
    let deployment = ResourceKey {
        group: "apps".into(),
        kind: "Deployment".into(),
        ..key.clone()
    };
    assert!(!holds(
        &json!({"spec": {"retention": {"keepDaily": 7}}}),
        &deployment
    ));
}
