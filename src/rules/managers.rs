//! Who a field manager is. The API server records every write in
//! `metadata.managedFields` under a manager name: the client's
//! `fieldManager` when it sets one, otherwise the first word of its user
//! agent (the part before `/`). That name is the strongest evidence the input
//! carries of who wrote a field, so this table is the one place that reads
//! it: rules and the provenance stage ask [`class_of`], never a pattern of
//! their own.
//!
//! Sources: Kubernetes' "Server-Side Apply: field management" (the default
//! manager is the user agent's first word); kubectl's commands set
//! `kubectl-<verb>` managers (`kubectl-client-side-apply`, `kubectl-edit`,
//! `kubectl-patch`, ... in `staging/src/k8s.io/kubectl/pkg/cmd`) and `kubectl`
//! for `kubectl apply --server-side`; OpenShift's `oc` builds those same
//! commands and sends the user agent `oc/<version>` (openshift/oc); browsers send `Mozilla/5.0 ...`, which
//! web consoles (OpenShift's, the Kubernetes dashboard) pass through; Argo
//! CD's apply uses `argocd-controller` (gitops-engine's `sync.go`, older
//! releases `argocd-application-controller`); the HPA controller runs in
//! `kube-controller-manager` and writes replicas through the `scale`
//! subresource.

use crate::managed_fields::FieldWriter;

pub use crate::model::ManagerClass;

/// One row of the table: an exact manager name, or a prefix ending in `*`.
struct Row {
    name: &'static str,
    class: ManagerClass,
}

const fn row(name: &'static str, class: ManagerClass) -> Row {
    Row { name, class }
}

use ManagerClass::{ApiServer, ArgoCd, Person, Unknown};

/// The managers that are not programs. Everything not listed is a program.
const TABLE: &[Row] = &[
    // kubectl: `kubectl-<verb>` for each command that writes, `kubectl` for
    // server-side apply and old clients, `kubectl.exe` on Windows.
    row("kubectl", Person),
    row("kubectl-*", Person),
    row("kubectl.exe", Person),
    // OpenShift's CLI is kubectl's code under another name: its commands
    // that set no field manager are recorded under its user agent, `oc`.
    row("oc", Person),
    row("oc.exe", Person),
    // A web browser's user agent: the request came from a web console.
    row("Mozilla", Person),
    // Desktop and terminal consoles people edit objects with.
    row("k9s", Person),
    row("lens", Person),
    row("OpenLens", Person),
    row("headlamp", Person),
    row("kubernetes-dashboard", Person),
    row("dashboard", Person),
    row("octant", Person),
    row("rancher", Person),
    // Argo CD's live-manifest editor and `argocd app patch-resource`.
    row("argocd-server", Person),
    // `helm upgrade` run by hand against objects Argo CD manages.
    row("helm", Person),
    // Argo CD's application controller applying Git.
    row("argocd-controller", ArgoCd),
    row("argocd-application-controller", ArgoCd),
    row("kube-apiserver", ApiServer),
    row("before-first-apply", Unknown),
];

/// The class of a manager name.
pub fn class_of(manager: &str) -> ManagerClass {
    TABLE
        .iter()
        .find(|r| match r.name.strip_suffix('*') {
            Some(prefix) => manager.starts_with(prefix),
            None => r.name == manager,
        })
        .map_or(ManagerClass::Program, |r| r.class)
}

/// Whether this write was an autoscaler's: a program (the HPA controller in
/// `kube-controller-manager`, KEDA, a custom scaler) writing through the
/// `scale` subresource. `kubectl scale` uses the same subresource but is a
/// person's tool. Clusters before Kubernetes 1.22 record no subresource;
/// there `kube-controller-manager` writing a workload's `spec.replicas` is
/// still the HPA controller, the only one of its controllers that does
/// (the deployment controller writes its ReplicaSets' replicas instead).
/// A program whose managedFields entry holds `spec.replicas` and nothing
/// else of the spec scales the object too (schedule-based scalers such as
/// kube-downscaler update the object instead of its `scale`), unless a
/// progressive-delivery object drives the workload (`drives_rollout`): its
/// controller moves replicas between workloads as part of a rollout.
pub fn is_scaler(w: &FieldWriter, kind: &str, pointer: &str, drives_rollout: bool) -> bool {
    if class_of(&w.manager) != ManagerClass::Program {
        return false;
    }
    let replicas_only = pointer == "/spec/replicas" && w.spec_fields == ["replicas"];
    w.subresource.as_deref() == Some("scale")
        || (w.manager == "kube-controller-manager"
            && pointer == "/spec/replicas"
            && kind != "ReplicaSet")
        || (replicas_only && w.subresource.is_none() && !drives_rollout && kind != "ReplicaSet")
}

/// Whether this write was a resource sizer's: a program whose managedFields
/// entry holds the pod template's container `resources` and nothing else
/// of the spec, writing one of them. That is how vertical autoscalers and
/// request right-sizers work (they set requests and limits from observed
/// usage); an operator that owns the workload writes the rest of its spec
/// too.
pub fn is_resizer(w: &FieldWriter, pointer: &str) -> bool {
    class_of(&w.manager) == ManagerClass::Program
        && w.resources_only
        && pointer.split('/').any(|s| s == "resources")
}

/// Words for a manager's class in evidence sentences.
pub fn describe(class: ManagerClass) -> &'static str {
    match class {
        Person => {
            "a tool people use by hand (kubectl, a console or Argo CD's live-manifest editor)"
        }
        ArgoCd => "Argo CD's own apply",
        ApiServer => "the API server itself",
        Unknown => "no writer the API server recorded",
        ManagerClass::Program => "a program (a controller, an operator or a script), not a person",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn people_argo_cd_and_programs_are_told_apart() {
        for m in [
            "kubectl",
            "kubectl-edit",
            "kubectl-scale",
            "kubectl-client-side-apply",
            "Mozilla",
            "argocd-server",
            "oc",
        ] {
            assert_eq!(class_of(m), Person, "{m}");
        }
        assert_eq!(class_of("argocd-controller"), ArgoCd);
        assert_eq!(class_of("kube-apiserver"), ApiServer);
        for m in [
            "flagger",
            "kube-controller-manager",
            "manager",
            "kubectlish",
        ] {
            // `kubectlish` is not `kubectl-*`: only the documented names count.
            assert_eq!(class_of(m), ManagerClass::Program, "{m}");
        }
    }

    #[test]
    fn a_scaler_is_a_program_writing_through_the_scale_subresource() {
        let w = |manager: &str, sub: Option<&str>| FieldWriter {
            manager: manager.into(),
            operation: Some("Update".into()),
            subresource: sub.map(str::to_string),
            time: None,
            exact: true,
            spec_fields: vec!["replicas".into(), "template".into()],
            resources_only: false,
        };
        let scaler = |m, sub, kind| is_scaler(&w(m, sub), kind, "/spec/replicas", false);
        assert!(scaler(
            "kube-controller-manager",
            Some("scale"),
            "Deployment"
        ));
        assert!(scaler("keda-operator", Some("scale"), "StatefulSet"));
        assert!(!scaler("kubectl-scale", Some("scale"), "Deployment"));
        // `oc scale` on a cluster that records no subresource: a person.
        assert!(!is_scaler(
            &FieldWriter {
                spec_fields: vec!["replicas".into()],
                ..w("oc", None)
            },
            "Deployment",
            "/spec/replicas",
            false
        ));
        assert!(!scaler("flagger", None, "Deployment"));
        // Before 1.22: no subresource recorded, still the HPA controller.
        assert!(scaler("kube-controller-manager", None, "Deployment"));
        assert!(!scaler("kube-controller-manager", None, "ReplicaSet"));
        // A program that holds only the replica count scales, unless a
        // progressive-delivery object drives the workload.
        let only_replicas = FieldWriter {
            spec_fields: vec!["replicas".into()],
            ..w("kube-downscaler", None)
        };
        assert!(is_scaler(
            &only_replicas,
            "Deployment",
            "/spec/replicas",
            false
        ));
        assert!(!is_scaler(
            &only_replicas,
            "Deployment",
            "/spec/replicas",
            true
        ));
        assert!(!is_scaler(
            &only_replicas,
            "Deployment",
            "/spec/template",
            false
        ));
        assert!(!scaler("my-operator", None, "Deployment"));
    }

    #[test]
    fn a_program_writing_only_container_resources_sizes_them() {
        let w = |manager: &str, resources_only| FieldWriter {
            manager: manager.into(),
            operation: Some("Update".into()),
            subresource: None,
            time: None,
            exact: true,
            spec_fields: vec!["template".into()],
            resources_only,
        };
        let requests = "/spec/template/spec/containers/0/resources/requests/cpu";
        assert!(is_resizer(&w("rightsizer", true), requests));
        // A person's tool is never a sizer, nor a program that writes more.
        assert!(!is_resizer(&w("kubectl-edit", true), requests));
        assert!(!is_resizer(&w("rightsizer", false), requests));
        assert!(!is_resizer(
            &w("rightsizer", true),
            "/spec/template/spec/containers/0/image"
        ));
    }
}
