//! Argo CD behaviours that raw Git vs live comparisons get wrong.

use drift_doctor::{analyze, CompareOptions, Options, Status};

#[test]
fn the_tracking_label_argo_cd_adds_is_not_drift() {
    let git =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: n\ndata:\n  a: b\n";
    let live = r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  namespace: n
  labels: {app.kubernetes.io/instance: shop}
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"app.kubernetes.io/instance":"shop"},"name":"c","namespace":"n"},"data":{"a":"b"}}'
data:
  a: b
"#;
    let report = analyze(git, live, &Options::default()).unwrap();
    assert_eq!(
        report.resources[0].status,
        Status::Synced,
        "{:?}",
        report.resources[0].differences
    );
    // A chart that sets the same label to another value clashes for real.
    let clash = git.replace(
        "  namespace: n\n",
        "  namespace: n\n  labels: {app.kubernetes.io/instance: release-a}\n",
    );
    let report = analyze(&clash, live, &Options::default()).unwrap();
    assert_eq!(report.resources[0].status, Status::OutOfSync);
}

#[test]
fn secret_values_masked_by_argo_cd_cannot_be_drift() {
    let git = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: n\ndata:\n  token: c2VjcmV0\n";
    let live = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: n\ndata:\n  token: '++++++++'\n";
    let opts = Options {
        compare: CompareOptions {
            include_hidden: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let report = analyze(git, live, &opts).unwrap();
    let r = &report.resources[0];
    assert_eq!(r.status, Status::Synced);
    assert!(r.differences.iter().any(|d| !d.visible
        && d.hidden_reason
            .as_deref()
            .unwrap_or("")
            .contains("masked by Argo CD")));
    // A real change between two plain values still shows.
    let changed = live.replace("'++++++++'", "b3RoZXI=");
    assert_eq!(
        analyze(git, &changed, &Options::default())
            .unwrap()
            .resources[0]
            .status,
        Status::OutOfSync
    );
}
