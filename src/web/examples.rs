//! The embedded example inputs: one per cause, `mixed-app` first.

pub struct Example {
    pub name: &'static str,
    pub title: &'static str,
    pub git: &'static str,
    pub live: &'static str,
}

macro_rules! example {
    ($name:literal, $title:literal) => {
        Example {
            name: $name,
            title: $title,
            git: include_str!(concat!(
                "../../tests/fixtures/scenarios/",
                $name,
                "/git.yaml"
            )),
            live: include_str!(concat!(
                "../../tests/fixtures/scenarios/",
                $name,
                "/live.yaml"
            )),
        }
    };
}

pub const DEFAULT: &str = "mixed-app";

pub static EXAMPLES: &[Example] = &[
    example!(
        "mixed-app",
        "Mixed app: HPA, webhook caBundle, restart, real drift"
    ),
    example!(
        "autoscaler-hpa-replicas",
        "Autoscaler: an HPA owns spec.replicas"
    ),
    example!(
        "webhook-cabundle-cainjector",
        "Mutating webhook: cainjector fills caBundle"
    ),
    example!("restart-annotation", "Reloader: a rollout restart stamp"),
    example!(
        "helm-random-secret",
        "Non-deterministic render: random Helm Secret"
    ),
    example!(
        "aggregated-clusterrole",
        "Controller rewrite: aggregated ClusterRole"
    ),
    example!(
        "crd-and-cr-same-sync",
        "Sync ordering: CRD and CR in one sync"
    ),
    example!("real-drift", "Real drift: hand edits in the cluster"),
    example!(
        "all-synced-server-noise",
        "Server defaults only: all Synced"
    ),
];

pub fn find(name: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.name == name)
}

/// The examples as the worker's warm-up runs them.
pub fn warm_up_pairs() -> Vec<super::protocol::WarmUpPair> {
    EXAMPLES
        .iter()
        .map(|ex| super::protocol::WarmUpPair {
            git: ex.git.to_string(),
            live: ex.live.to_string(),
        })
        .collect()
}
