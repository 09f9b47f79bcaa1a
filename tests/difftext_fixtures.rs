//! Diff output shaped like what users paste (`tests/fixtures/difftext/real/`): each fixture's
//! paths, causes and what is hidden.

use crate::common;

use drift_doctor::{analyze_diff, Cause, Options, Report, Status};

fn report(name: &str) -> Report {
    let text = common::read(format!("tests/fixtures/difftext/real/{name}.txt"));
    let mut opts = Options::default();
    opts.compare.include_hidden = true;
    let r = analyze_diff(&text, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(r.warnings.is_empty(), "{name}: {:?}", r.warnings);
    common::assert_valid(&r);
    common::assert_invariants(&r);
    r
}

/// Every difference of the report as (resource id, pointer, visible, cause).
fn rows(r: &Report) -> Vec<(String, String, bool, Cause)> {
    r.resources
        .iter()
        .flat_map(|res| {
            res.differences
                .iter()
                .map(move |d| (res.id.clone(), d.pointer.clone(), d.visible, d.cause))
        })
        .collect()
}

fn evidence<'a>(r: &'a Report, pointer: &str) -> &'a str {
    r.resources
        .iter()
        .flat_map(|res| &res.differences)
        .find(|d| d.pointer == pointer)
        .map(|d| d.evidence.as_str())
        .unwrap_or_else(|| panic!("no difference at {pointer}"))
}

#[test]
fn real_shaped_diffs_give_their_paths_and_causes() {
    use Cause::*;
    let webhook = "admissionregistration.k8s.io/MutatingWebhookConfiguration//payments-webhook";
    // (fixture, [(resource id, pointer, visible, cause)])
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str, bool, Cause)]);
    let cases: &[Case] = &[
        (
            // kubectl diff: cainjector's CA live, the chart's placeholder merged; the annotation
            // naming the injector is a context line. Bookkeeping is hidden and is the API
            // server's and kubectl's, never drift.
            "kubectl_webhook_cabundle",
            &[
                (
                    webhook,
                    "/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration",
                    false,
                    ServerDefaults,
                ),
                (webhook, "/metadata/generation", false, ServerDefaults),
                (webhook, "/metadata/resourceVersion", false, ServerDefaults),
                (
                    webhook,
                    "/webhooks/0/clientConfig/caBundle",
                    true,
                    MutatingWebhook,
                ),
            ],
        ),
        (
            // The API server's stored order of metrics against Git's: one reordering of the list. The
            // same paste shows the HPA's scaleTargetRef, so it explains the Deployment's replicas.
            "argo_hpa_metrics_reordered",
            &[
                (
                    "apps/Deployment/shop/cart",
                    "/spec/replicas",
                    true,
                    Autoscaler,
                ),
                (
                    "autoscaling/HorizontalPodAutoscaler/shop/cart",
                    "/spec/metrics",
                    true,
                    ServerDefaults,
                ),
            ],
        ),
        (
            // A pod-template annotations map that holds only the restart stamp: reported on the key.
            "argo_restart_stamp_removed_map",
            &[(
                "apps/Deployment/shop/storefront",
                "/spec/template/metadata/annotations/kubectl.kubernetes.io~1restartedAt",
                true,
                Reloader,
            )],
        ),
        (
            "argo_secret_masks_checksum",
            &[
                // A password whose masks differ: most often a value the
                // chart generates per render (NR013, low confidence).
                (
                    "/Secret/shop/orders-db",
                    "/data/password",
                    true,
                    NondeterministicRender,
                ),
                // The checksum over that Secret follows it: the only
                // configuration the paste changes is that generated
                // credential (NR016).
                (
                    "apps/Deployment/shop/orders",
                    "/spec/template/metadata/annotations/checksum~1secret",
                    true,
                    NondeterministicRender,
                ),
            ],
        ),
        (
            "kubectl_deployment_generation",
            &[
                (
                    "apps/Deployment/shop/checkout",
                    "/metadata/generation",
                    false,
                    ServerDefaults,
                ),
                (
                    "apps/Deployment/shop/checkout",
                    "/spec/template/spec/containers/0/env/0/value",
                    true,
                    Drift,
                ),
            ],
        ),
        (
            // Kyverno before 1.10 writes autogen rules into the live policy's spec.rules.
            "argo_kyverno_autogen",
            &[
                (
                    "kyverno.io/ClusterPolicy//require-team-label",
                    "/spec/rules/0",
                    true,
                    MutatingWebhook,
                ),
                (
                    "kyverno.io/ClusterPolicy//require-team-label",
                    "/spec/rules/1",
                    true,
                    MutatingWebhook,
                ),
            ],
        ),
    ];
    for (name, want) in cases {
        let r = report(name);
        let want: Vec<(String, String, bool, Cause)> = want
            .iter()
            .map(|(id, p, v, c)| (id.to_string(), p.to_string(), *v, *c))
            .collect();
        assert_eq!(rows(&r), want, "{name}");
        assert!(
            r.resources
                .iter()
                .all(|res| res.status == Status::OutOfSync),
            "{name}"
        );
    }
}

#[test]
fn kubectl_bookkeeping_is_hidden_with_its_reason() {
    let r = report("kubectl_deployment_generation");
    let e = evidence(&r, "/metadata/generation");
    assert!(
        e.starts_with("Not a difference: kubectl diff bookkeeping"),
        "{e}"
    );
    let hidden = &r.resources[0].differences[0];
    assert!(hidden
        .hidden_reason
        .as_ref()
        .is_some_and(|h| h.to_string().contains("dry-run")));
}

#[test]
fn a_kubectl_hunk_inside_managed_fields_is_bookkeeping_even_without_its_parents() {
    // The hunk starts below `fieldsV1` and moves a field between two managers' entries: the
    // FieldsV1 keys (`f:...`) place it in `metadata.managedFields`, and nothing else changes.
    let text = "diff -u -N /tmp/LIVE-1/v1.ResourceQuota.shop.compute /tmp/MERGED-2/v1.ResourceQuota.shop.compute\n\
--- /tmp/LIVE-1/v1.ResourceQuota.shop.compute\t2024-03-02 10:00:00.000000000 +0000\n\
+++ /tmp/MERGED-2/v1.ResourceQuota.shop.compute\t2024-03-02 10:00:00.000000000 +0000\n\
@@ -14,10 +14,16 @@\n           .: {}\n           f:team: {}\n-      f:spec:\n-        f:hard: {}\n     manager: quota-bootstrap\n     operation: Update\n     time: \"2024-03-01T08:00:00Z\"\n+  - apiVersion: v1\n+    fieldsType: FieldsV1\n+    fieldsV1:\n+      f:spec:\n+        f:hard: {}\n+    manager: kubectl-client-side-apply\n+    operation: Update\n+    time: \"2024-03-02T10:00:00Z\"\n   name: compute\n   namespace: shop\n";
    let r = analyze_diff(text, &Options::default()).unwrap();
    assert_eq!(r.summary.out_of_sync, 0, "{:?}", rows(&r));
    for d in &r.resources[0].differences {
        assert!(
            d.pointer.starts_with("/metadata/managedFields"),
            "{}",
            d.pointer
        );
    }
}

#[test]
fn secret_masks_of_different_lengths_mean_different_values_and_explain_the_checksum() {
    let r = report("argo_secret_masks_checksum");
    let e = evidence(&r, "/data/password");
    assert!(e.contains("masks differ in length (8 and 12"), "{e}");
    assert!(!e.contains("cannot tell"), "{e}");
    let e = evidence(&r, "/spec/template/metadata/annotations/checksum~1secret");
    assert!(
        e.contains("The same paste changes Secret shop/orders-db"),
        "{e}"
    );
}

#[test]
fn a_kind_without_a_known_shape_gets_no_invented_parent() {
    // The same policy under a kind the shape table does not know: its rules at two spaces must not
    // land in `metadata.ownerReferences` (a list of maps whose keys they contradict).
    let text = common::read("tests/fixtures/difftext/real/argo_kyverno_autogen.txt")
        .replace("kyverno.io/ClusterPolicy", "policy.example.com/TeamPolicy");
    let r = analyze_diff(&text, &Options::default()).unwrap();
    for d in &r.resources[0].differences {
        assert!(!d.pointer.starts_with("/metadata"), "{}", d.pointer);
        assert_ne!(d.confidence, drift_doctor::Confidence::High);
    }
}

#[test]
fn defaults_on_inferred_list_paths_come_from_the_schema() {
    // (diff text, pointers that must be server defaults): list positions the hunks do not show
    // are placed, and the schema's defaults are looked up on those paths.
    let cases = [
        (
            "===== apps/Deployment shop/api ======\n@@ -58,6 +58,5 @@\n         - name: CPU_LIMIT\n           valueFrom:\n             resourceFieldRef:\n               containerName: api\n-              divisor: \"0\"\n               resource: limits.cpu\n",
            vec!["/spec/template/spec/containers/0/env/0/valueFrom/resourceFieldRef/divisor"],
        ),
        (
            "===== apps/Deployment shop/api ======\n61d60\n<               divisor: \"0\"\n",
            vec!["/spec/template/spec/containers/0/env/0/valueFrom/resourceFieldRef/divisor"],
        ),
        (
            "===== apps/Deployment shop/api ======\n@@ -70,7 +70,5 @@\n         livenessProbe:\n           httpGet:\n             path: /healthz\n             port: 8080\n-            scheme: HTTP\n-          timeoutSeconds: 1\n           periodSeconds: 10\n",
            vec![
                "/spec/template/spec/containers/0/livenessProbe/httpGet/scheme",
                "/spec/template/spec/containers/0/livenessProbe/timeoutSeconds",
            ],
        ),
    ];
    for (text, want) in cases {
        let r = analyze_diff(text, &Options::default()).unwrap();
        let got: Vec<(&str, Cause)> = r.resources[0]
            .differences
            .iter()
            .map(|d| (d.pointer.as_str(), d.cause))
            .collect();
        let want: Vec<(&str, Cause)> = want
            .into_iter()
            .map(|p| (p, Cause::ServerDefaults))
            .collect();
        assert_eq!(got, want, "{text}");
        // The list positions were inferred: never high confidence.
        assert!(r.resources[0]
            .differences
            .iter()
            .all(|d| d.confidence != drift_doctor::Confidence::High));
    }
}

#[test]
fn every_path_is_a_place_in_the_reconstructed_objects() {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["tests/fixtures/difftext", "tests/fixtures/difftext/real"] {
        for e in std::fs::read_dir(common::root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "txt") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 16, "{files:?}");
    let mut checked = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for r in drift_doctor::difftext::parse_diff_text(&text).unwrap() {
            for c in &r.changes {
                let pointer = drift_doctor::path::pointer(&c.path);
                assert!(!pointer.contains('*'), "{}: {pointer}", f.display());
                for (side, obj) in [(&c.git, &r.git_object), (&c.live, &r.live_object)] {
                    if side.is_some() {
                        let obj = obj.as_ref().expect("the side's object");
                        assert!(
                            obj.pointer(&pointer).is_some(),
                            "{}: {} {pointer} is not in {obj}",
                            f.display(),
                            r.name
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 50, "{checked}");
}

#[test]
fn an_hpa_in_the_same_paste_explains_the_replicas_it_scales() {
    let r = report("argo_hpa_metrics_reordered");
    let e = evidence(&r, "/spec/replicas");
    assert!(e.contains("HorizontalPodAutoscaler shop/cart"), "{e}");
    // Without the HPA's lines, nothing in the text names a scaler.
    let text = common::read("tests/fixtures/difftext/real/argo_hpa_metrics_reordered.txt");
    let deployment_only = &text[text.find("===== apps/Deployment").unwrap()..];
    let alone = analyze_diff(deployment_only, &Options::default()).unwrap();
    assert_eq!(alone.resources[0].differences[0].cause, Cause::Drift);
}

#[test]
fn plain_diff_hunks_just_below_each_other_continue_the_same_item() {
    // Plain diff of the HPA controller's reordering: each changed line is its own hunk. Lines two
    // apart belong to the same metric, so the two metrics come out swapped: one reordering.
    let text = "===== autoscaling/HorizontalPodAutoscaler shop/orders ======\n17c17\n<       name: memory\n---\n>       name: cpu\n19c19\n<         averageUtilization: 80\n---\n>         averageUtilization: 70\n23c23\n<       name: cpu\n---\n>       name: memory\n25c25\n<         averageUtilization: 70\n---\n>         averageUtilization: 80\n";
    let r = analyze_diff(text, &Options::default()).unwrap();
    let d = &r.resources[0].differences;
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(
        (d[0].pointer.as_str(), d[0].cause),
        ("/spec/metrics", Cause::ServerDefaults)
    );
    assert_ne!(d[0].confidence, drift_doctor::Confidence::High);
}

#[test]
fn an_hpa_whose_target_no_hunk_shows_is_taken_to_scale_the_workload_of_its_name() {
    // The HPA's hunk stops above its scaleTargetRef: `kubectl autoscale` and most charts give
    // the HPA its target's name, so the same-named Deployment's replicas are the autoscaler's,
    // and the evidence says the target was inferred.
    let hpa = |name: &str| {
        format!(
            "===== autoscaling/HorizontalPodAutoscaler shop/{name} ======\n21c21\n<   maxReplicas: 12\n---\n>   maxReplicas: 10\n"
        )
    };
    let deployment =
        "===== apps/Deployment shop/cart ======\n20c20\n<   replicas: 6\n---\n>   replicas: 2\n";
    // The replicas difference when the paste holds the HPA `name`.
    let replicas = |name: &str| {
        let r = analyze_diff(&format!("{}{deployment}", hpa(name)), &Options::default()).unwrap();
        let d = r
            .resources
            .iter()
            .flat_map(|res| &res.differences)
            .find(|d| d.pointer == "/spec/replicas")
            .cloned();
        d.unwrap()
    };
    let d = replicas("cart");
    assert_eq!(d.cause, Cause::Autoscaler);
    assert!(
        d.evidence.contains("its target is not in the diff"),
        "{}",
        d.evidence
    );
    // An HPA of another name says nothing about this Deployment.
    assert_eq!(replicas("orders").cause, Cause::Drift);
}

#[test]
fn a_cluster_role_that_git_gives_no_rules_reads_as_aggregated_with_a_check_to_run() {
    // Git's `rules: []` (dropped by Argo CD's typed round trip, so the hunk removes the rules
    // whole) is how an aggregated ClusterRole is declared; the aggregationRule is above the hunk.
    let removed = "===== rbac.authorization.k8s.io/ClusterRole /audit-view ======\n9,12d8\n< rules:\n< - apiGroups: [audit.example.com]\n<   resources: [events]\n<   verbs: [get, list]\n";
    let r = analyze_diff(removed, &Options::default()).unwrap();
    let d = &r.resources[0].differences[0];
    assert_eq!(
        (d.pointer.as_str(), d.cause),
        ("/rules", Cause::ControllerRewrite)
    );
    assert_eq!(d.confidence, drift_doctor::Confidence::Medium);
    assert!(
        d.evidence
            .contains("kubectl get clusterrole audit-view -o jsonpath='{.aggregationRule}'"),
        "{}",
        d.evidence
    );
    assert!(r.resources[0]
        .fixes
        .iter()
        .all(|f| f.kind != drift_doctor::FixKind::Ignore));
    // Rules Git does declare, changed live, stay drift.
    let changed = "===== rbac.authorization.k8s.io/ClusterRole /audit-view ======\n12c12\n<   verbs: [get, list, delete]\n---\n>   verbs: [get, list]\n";
    let r = analyze_diff(changed, &Options::default()).unwrap();
    assert!(
        r.resources[0]
            .differences
            .iter()
            .all(|d| d.cause == Cause::Drift),
        "{:#?}",
        r.resources[0].differences
    );
}
