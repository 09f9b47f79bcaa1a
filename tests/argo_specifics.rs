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
    assert!(r
        .differences
        .iter()
        .any(|d| !d.visible && d.hidden_reason == Some(drift_doctor::HiddenReason::ArgoCdMask)));
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

/// An aggregated ClusterRole whose Git declares `rules`, with its last-applied
/// configuration and the rules the aggregation controller wrote live.
fn aggregated_role(git_rules: &str) -> (String, String) {
    let git = format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: view-all\naggregationRule:\n  clusterRoleSelectors:\n  - matchLabels: {{rbac.example.com/aggregate: 'true'}}\n{git_rules}"
    );
    let applied = serde_json::to_string(&serde_yaml::from_str::<serde_json::Value>(&git).unwrap())
        .unwrap()
        .replace('\'', "''");
    let live = format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: view-all\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{applied}'\naggregationRule:\n  clusterRoleSelectors:\n  - matchLabels: {{rbac.example.com/aggregate: 'true'}}\nrules:\n- apiGroups: ['']\n  resources: [pods]\n  verbs: [get]\n"
    );
    (git, live)
}

/// gitops-engine `normalizeRole` turns `rules: []` (and, with
/// ignoreAggregatedRoles, any aggregated rules) into `null` with the key kept;
/// `null` in the three-way strategic merge patch deletes the live rules.
#[test]
fn normalize_role_null_rules_delete_in_the_three_way_patch() {
    let cases = [
        // (Git's rules, ignoreAggregatedRoles, expected status)
        ("rules: []\n", false, Status::OutOfSync),
        ("rules: []\n", true, Status::Synced),
        ("", false, Status::Synced),
        (
            "rules:\n- apiGroups: ['']\n  resources: [pods]\n  verbs: [list]\n",
            true,
            Status::Synced,
        ),
    ];
    for (rules, ignore_aggregated_roles, expected) in cases {
        let (git, live) = aggregated_role(rules);
        let opts = Options {
            compare: CompareOptions {
                ignore_aggregated_roles,
                ..Default::default()
            },
            ..Default::default()
        };
        let report = analyze(&git, &live, &opts).unwrap();
        let r = &report.resources[0];
        assert_eq!(
            r.status, expected,
            "rules {rules:?}, ignoreAggregatedRoles {ignore_aggregated_roles}: {:?}",
            r.differences
        );
        if expected == Status::OutOfSync {
            assert!(r
                .differences
                .iter()
                .any(|d| d.visible && d.pointer == "/rules"));
        }
    }
}

/// gitops-engine `remarshal` drops `omitempty` zero values from desired and
/// live but not from the last-applied original (argo-cd #3150): an empty map
/// kept in last-applied is a key Git "removed", which the patch deletes live.
#[test]
fn remarshal_keeps_zero_values_only_in_the_last_applied_original() {
    let deployment = |template_annotations: &str, applied_annotations: &str| {
        let git = format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: n}}\nspec:\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata:\n      labels: {{app: web}}\n{template_annotations}    spec:\n      containers: [{{name: web, image: web:1}}]\n"
        );
        let applied = format!(
            r#"{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"web","namespace":"n"}},"spec":{{"selector":{{"matchLabels":{{"app":"web"}}}},"template":{{"metadata":{{{applied_annotations}"labels":{{"app":"web"}}}},"spec":{{"containers":[{{"name":"web","image":"web:1"}}]}}}}}}}}"#
        );
        let live = format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: n\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{applied}'\nspec:\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata:\n      labels: {{app: web}}\n      annotations: {{kubectl.kubernetes.io/restartedAt: '2026-11-20T08:12:44Z'}}\n    spec:\n      containers: [{{name: web, image: web:1}}]\n"
        );
        (git, live)
    };
    let opts = Options {
        compare: CompareOptions {
            include_hidden: true,
            ..Default::default()
        },
        ..Default::default()
    };
    // Git and last-applied both hold the empty map: the live map is deleted.
    let (git, live) = deployment("      annotations: {}\n", r#""annotations":{},"#);
    let r = &analyze(&git, &live, &opts).unwrap().resources[0];
    assert_eq!(r.status, Status::OutOfSync, "{:?}", r.differences);
    let d = r.differences.iter().find(|d| d.visible).unwrap();
    assert_eq!(d.pointer, "/spec/template/metadata/annotations");
    assert_eq!(d.rule, "RL008");
    // Without the empty map the stamp stays hidden, and the reason names the
    // part of the path that the last-applied configuration does hold.
    let (git, live) = deployment("", "");
    let r = &analyze(&git, &live, &opts).unwrap().resources[0];
    assert_eq!(r.status, Status::Synced, "{:?}", r.differences);
    let reason = r.differences[0].hidden_reason.as_ref().unwrap().to_string();
    assert!(
        reason.contains("has `/spec/template/metadata` but not this key"),
        "{reason}"
    );
}

/// gitops-engine `remarshal` finds no client-go type for kinds served by
/// kube-aggregator or apiextensions-apiserver, so a zero value Git declares
/// stays in the JSON merge while the API server drops it; typed kinds lose it
/// in the round trip on both sides.
#[test]
fn remarshal_skips_kinds_outside_client_go_scheme() {
    let api_service = |skip: &str| {
        format!("apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {{name: v1beta1.metrics.k8s.io}}\nspec:\n  group: metrics.k8s.io\n  version: v1beta1\n  groupPriorityMinimum: 100\n  versionPriority: 100\n{skip}  service: {{name: metrics-server, namespace: kube-system, port: 443}}\n")
    };
    let report = analyze(
        &api_service("  insecureSkipTLSVerify: false\n"),
        &api_service(""),
        &Options::default(),
    )
    .unwrap();
    let r = &report.resources[0];
    assert_eq!(r.status, Status::OutOfSync);
    assert_eq!(r.differences[0].pointer, "/spec/insecureSkipTLSVerify");
    assert_eq!(r.differences[0].rule, "SD030");
    // `true` is a value the API server stores: its absence live is drift.
    let report = analyze(
        &api_service("  insecureSkipTLSVerify: true\n"),
        &api_service(""),
        &Options::default(),
    )
    .unwrap();
    assert_ne!(report.resources[0].differences[0].rule, "SD030");
    // The same zero value on a typed kind vanishes in the round trip.
    let pod = |read_only: &str| {
        format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: n}}\nspec:\n  containers:\n  - name: c\n    image: c:1\n    volumeMounts:\n    - name: v\n      mountPath: /v\n{read_only}  volumes:\n  - name: v\n    emptyDir: {{}}\n")
    };
    let report = analyze(
        &pod("      readOnly: false\n"),
        &pod(""),
        &Options::default(),
    )
    .unwrap();
    assert_eq!(report.resources[0].status, Status::Synced);
}

/// argo-cd `util/settings` `GetDefaultDiffOptions`: `ignoreResourceStatusField`
/// defaults to `all` since 3.0 and to `crd` before, also when argocd-cm gives
/// `resource.compareoptions` without it.
#[test]
fn ignore_resource_status_field_default_follows_the_release() {
    use drift_doctor::compare::IgnoreStatus;
    use drift_doctor::ArgoCdRelease;
    let cm = "data:\n  resource.compareoptions: |\n    ignoreAggregatedRoles: true\n";
    for (release, expected) in [
        (ArgoCdRelease::new(2, 14), IgnoreStatus::Crd),
        (ArgoCdRelease::new(3, 0), IgnoreStatus::All),
    ] {
        let mut compare = CompareOptions::for_release(release);
        assert_eq!(compare.ignore_resource_status_field, expected, "{release}");
        drift_doctor::settings::apply_user_settings(cm, &mut compare).unwrap();
        assert_eq!(compare.ignore_resource_status_field, expected, "{release}");
        assert!(compare.ignore_aggregated_roles);
    }
}

/// A Pod in namespace `n` with the given annotations, as YAML.
fn pod(name: &str, annotations: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: n\n  annotations: {{{annotations}}}\nspec:\n  containers:\n  - name: c\n    image: busybox\n"
    )
}

/// argo-cd `controller/hook.go` `isHook` and `CompareAppState`: hooks (any
/// Argo CD hook value but a lone `Skip`, Helm hooks but `crd-install`,
/// PreDelete/PostDelete of either annotation) never count in the sync
/// status; `Skip` sets aside only a Git object, so a live-only one is
/// extraneous.
#[test]
fn hooks_are_set_apart_as_argo_cd_splits_them() {
    let other = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: n\n";
    let status = |git: &str, live: &str| {
        let report = analyze(git, live, &Options::default()).unwrap();
        (report.summary.out_of_sync, report.summary.resources)
    };
    for annotations in [
        "argocd.argoproj.io/hook: ''",
        "argocd.argoproj.io/hook: 'Skip, Sync'",
        "argocd.argoproj.io/hook: PostDelete",
        "helm.sh/hook: 'pre-delete'",
        "helm.sh/hook: 'crd-install,pre-install'",
        "argocd.argoproj.io/hook: Skip",
    ] {
        let git = format!("{other}---\n{}", pod("p", annotations));
        assert_eq!(status(&git, other), (0, 1), "Git pod with {annotations}");
    }
    let crd_install = format!("{other}---\n{}", pod("p", "helm.sh/hook: crd-install"));
    assert_eq!(
        status(&crd_install, other),
        (1, 2),
        "crd-install is applied"
    );
    // A bare Pod with no ownerReferences live only requires pruning...
    let bare = format!("{other}---\n{}", pod("p", ""));
    assert_eq!(status(other, &bare), (1, 2));
    // ...and so does a live-only `Skip` one; a live-only hook does not.
    let skip = format!("{other}---\n{}", pod("p", "argocd.argoproj.io/hook: Skip"));
    assert_eq!(status(other, &skip), (1, 2));
    let hook = format!(
        "{other}---\n{}",
        pod("p", "argocd.argoproj.io/hook: PreSync")
    );
    assert_eq!(status(other, &hook), (0, 1));
}

/// Argo CD's tracking annotation (argo-cd `SetAppInstance`): compared when
/// Git carries it or the Application is named, as the tracking method and
/// release decide.
#[test]
fn the_tracking_annotation_is_compared_when_the_input_says_what_argo_cd_writes() {
    use drift_doctor::application::Application;
    let object = |annotations: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\n{annotations}data:\n  a: b\n")
    };
    let untracked = object("");
    let tracked = object(
        "  annotations:\n    argocd.argoproj.io/tracking-id: shop:/ConfigMap:shop/settings\n",
    );
    let other_app = object(
        "  annotations:\n    argocd.argoproj.io/tracking-id: legacy:/ConfigMap:shop/settings\n",
    );
    let rule_of = |report: &drift_doctor::Report| {
        report.resources[0]
            .differences
            .iter()
            .map(|d| d.rule.clone())
            .collect::<Vec<_>>()
    };
    // Git as `argocd app manifests` prints it carries the id.
    let r = analyze(&tracked, &untracked, &Options::default()).unwrap();
    assert_eq!(rule_of(&r), ["DR016"]);
    let r = analyze(&tracked, &other_app, &Options::default()).unwrap();
    assert_eq!(rule_of(&r), ["DR017"]);
    let r = analyze(&tracked, &tracked, &Options::default()).unwrap();
    assert_eq!(r.resources[0].status, Status::Synced);
    // Without it and without the Application, the input does not say.
    let r = analyze(&untracked, &untracked, &Options::default()).unwrap();
    assert_eq!(r.resources[0].status, Status::Synced);

    // The Application named: Argo CD writes `<app>:<group>/<kind>:<ns>/<name>`.
    let with_app = |app_yaml: &str, settings: &str, release: &str, live: &str| {
        let app = Application::parse(app_yaml).unwrap();
        let mut opts = Options {
            namespace: None,
            compare: CompareOptions::for_release(
                drift_doctor::ArgoCdRelease::parse(release).unwrap(),
            ),
        };
        drift_doctor::settings::apply_user_settings(settings, &mut opts.compare).unwrap();
        app.apply_to(&mut opts.namespace, &mut opts.compare, false, false)
            .unwrap();
        let evidence = drift_doctor::Evidence {
            application: Some(&app),
            ..Default::default()
        };
        drift_doctor::analyze_with(&untracked, live, &opts, evidence).unwrap()
    };
    let app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\n  namespace: argocd\nspec:\n  destination:\n    namespace: shop\n";
    let r = with_app(app, "", "3.0", &untracked);
    assert_eq!(rule_of(&r), ["DR016"]);
    let d = &r.resources[0].differences[0];
    assert!(
        d.evidence
            .contains("argocd.argoproj.io/tracking-id: shop:/ConfigMap:shop/settings"),
        "{}",
        d.evidence
    );
    assert_eq!(
        with_app(app, "", "3.0", &tracked).resources[0].status,
        Status::Synced
    );
    // Label tracking: the default before 3.0, or argocd-cm's choice.
    assert_eq!(
        with_app(app, "", "2.14", &untracked).resources[0].status,
        Status::Synced
    );
    let label = "data:\n  application.resourceTrackingMethod: label\n";
    assert_eq!(
        with_app(app, label, "3.0", &untracked).resources[0].status,
        Status::Synced
    );
    // An Application outside Argo CD's namespace is named `<namespace>_<name>`.
    let r = with_app(
        &app.replace("namespace: argocd", "namespace: team-a"),
        "",
        "3.0",
        &untracked,
    );
    assert!(
        r.resources[0].differences[0]
            .evidence
            .contains("tracking-id: team-a_shop:/ConfigMap:shop/settings"),
        "{}",
        r.resources[0].differences[0].evidence
    );
}

/// The endpoints controller writes an Endpoints object for every Service:
/// live next to its Service it is not the app's, so it is not reported; one
/// with no Service of its name and namespace was made by someone else.
#[test]
fn a_services_endpoints_are_the_controllers_and_others_are_extraneous() {
    let service = |ns: &str, name: &str| {
        format!("apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n  namespace: {ns}\nspec:\n  ports:\n  - port: 80\n")
    };
    let endpoints = |ns: &str, name: &str| {
        format!("apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: {name}\n  namespace: {ns}\nsubsets: []\n")
    };
    let git = [service("a", "web"), service("b", "api")].join("---\n");
    let live = [
        service("a", "web"),
        service("b", "api"),
        endpoints("a", "web"),
        endpoints("b", "api"),
        // a Service of this name lives in another namespace only
        endpoints("b", "web"),
    ]
    .join("---\n");
    // Compared as before 3.0, whose argocd-cm excluded no Endpoints.
    let opts = Options {
        compare: drift_doctor::CompareOptions::for_release(
            drift_doctor::ArgoCdRelease::parse("2.14").unwrap(),
        ),
        ..Options::default()
    };
    let report = analyze(&git, &live, &opts).unwrap();
    let endpoints: Vec<&str> = report
        .resources
        .iter()
        .filter(|r| r.kind == "Endpoints")
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(endpoints, ["/Endpoints/b/web"]);
    assert_eq!(report.summary.skipped, 2);
}

/// From 3.0 the argocd-cm Argo CD installs with excludes high-churn kinds
/// (argo-cd PR #21635): a Git Endpoints is neither compared nor synced, and
/// the report says so; before 3.0 it is compared.
#[test]
fn stock_resource_exclusions_keep_endpoints_out_from_3_0() {
    use drift_doctor::{ArgoCdRelease, CompareOptions};
    let git = "apiVersion: v1\nkind: Endpoints\nmetadata: {name: legacy-db, namespace: data}\n\
               subsets:\n- addresses: [{ip: 10.0.0.7}]\n  ports: [{name: pg, port: 5432}]\n";
    let live = "apiVersion: v1\nkind: Endpoints\nmetadata: {name: legacy-db, namespace: data}\n\
                subsets:\n- addresses: [{ip: 10.0.0.8}]\n  ports: [{name: pg, port: 5432}]\n";
    let run = |release: &str| {
        let opts = drift_doctor::Options {
            compare: CompareOptions::for_release(ArgoCdRelease::parse(release).unwrap()),
            ..Default::default()
        };
        drift_doctor::analyze(git, live, &opts).unwrap()
    };
    let new = run("3.0");
    assert!(new.resources.is_empty(), "{:?}", new.resources);
    assert_eq!(new.summary.skipped, 1);
    assert!(
        new.warnings
            .iter()
            .any(|w| w.contains("/Endpoints/data/legacy-db")
                && w.contains("ExcludedResourceWarning")),
        "{:?}",
        new.warnings
    );
    let old = run("2.14");
    assert_eq!(old.summary.out_of_sync, 1);
    assert!(old.warnings.is_empty());
}

/// Server-side diff is a dry-run apply as `argocd-controller`, which removes
/// only the fields that manager owns through `Apply`. A label Git dropped
/// from an object Argo CD last applied client-side (`Update`) stays live and
/// shows no difference (argo-cd #25205, #23845); once Argo CD owns it
/// through `Apply`, the same removal is a difference.
#[test]
fn server_side_diff_misses_removals_of_fields_applied_client_side() {
    let git = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\n  namespace: shop\ndata:\n  mode: a\n";
    let live = |operation: &str| {
        format!(
            r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: flags
  namespace: shop
  labels: {{team: web}}
  managedFields:
  - manager: argocd-controller
    operation: {operation}
    apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1: {{"f:data": {{"f:mode": {{}}}}, "f:metadata": {{"f:labels": {{"f:team": {{}}}}}}}}
data:
  mode: a
"#
        )
    };
    let opts = Options {
        compare: CompareOptions {
            strategy: drift_doctor::Strategy::ServerSideDiff,
            include_hidden: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let r = analyze(git, &live("Update"), &opts).unwrap();
    assert_eq!(
        r.resources[0].status,
        Status::Synced,
        "{:?}",
        r.resources[0].differences
    );
    let label = r.resources[0]
        .differences
        .iter()
        .find(|d| d.pointer.starts_with("/metadata/labels"))
        .expect("the label stays as a hidden difference");
    assert!(
        matches!(
            label.hidden_reason,
            Some(drift_doctor::HiddenReason::AppliedClientSide { .. })
        ),
        "{:?}",
        label.hidden_reason
    );
    let r = analyze(git, &live("Apply"), &opts).unwrap();
    assert_eq!(r.resources[0].status, Status::OutOfSync);
    assert!(r.resources[0]
        .differences
        .iter()
        .any(|d| d.pointer.starts_with("/metadata/labels") && d.visible));
}

/// A chart that renders `clusterIP: null`: kubectl keeps the `null` in the
/// last-applied annotation, the typed round trip drops it from desired, and
/// the three-way patch then deletes the allocated address in Argo CD's
/// prediction (gitops-engine `ThreeWayDiff` reads the original as written):
/// OutOfSync for ever. Without the key in Git or the annotation, Synced.
#[test]
fn a_null_in_git_is_deleted_by_the_three_way_patch() {
    let git = |cluster_ip: &str| {
        format!("apiVersion: v1\nkind: Service\nmetadata: {{name: web, namespace: shop}}\nspec:\n{cluster_ip}  selector: {{app: web}}\n  ports:\n  - {{port: 80, targetPort: 8080}}\n")
    };
    let live = |applied: &str| {
        format!(
            r#"apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{{"apiVersion":"v1","kind":"Service","metadata":{{"name":"web","namespace":"shop"}},"spec":{{{applied}"ports":[{{"port":80,"targetPort":8080}}],"selector":{{"app":"web"}}}}}}'
spec:
  clusterIP: 10.96.12.7
  clusterIPs: [10.96.12.7]
  type: ClusterIP
  sessionAffinity: None
  selector: {{app: web}}
  ports:
  - {{port: 80, targetPort: 8080, protocol: TCP}}
"#
        )
    };
    let with_null = analyze(
        &git("  clusterIP: null\n"),
        &live(r#""clusterIP":null,"#),
        &Options::default(),
    )
    .unwrap();
    let service = &with_null.resources[0];
    assert_eq!(service.status, Status::OutOfSync);
    assert!(service
        .differences
        .iter()
        .any(|d| d.visible && d.pointer == "/spec/clusterIP"));
    let without = analyze(&git(""), &live(""), &Options::default()).unwrap();
    assert_eq!(
        without.resources[0].status,
        Status::Synced,
        "{:?}",
        without.resources[0].differences
    );
}

/// The release and options of one analysis, an Application applied as
/// `--application` does.
fn with_application(git: &str, live: &str, release: &str, app: &str) -> drift_doctor::Report {
    let app = drift_doctor::application::Application::parse(app).unwrap();
    let mut opts = Options {
        namespace: None,
        compare: CompareOptions {
            include_hidden: true,
            ..CompareOptions::for_release(drift_doctor::ArgoCdRelease::parse(release).unwrap())
        },
    };
    app.apply_to(&mut opts.namespace, &mut opts.compare, false, false)
        .unwrap();
    let evidence = drift_doctor::Evidence {
        application: Some(&app),
        ..Default::default()
    };
    drift_doctor::analyze_with(git, live, &opts, evidence).unwrap()
}

const DEPLOYMENT_GIT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: web, image: 'shop/web:2'}\n";

/// Before 3.2 server-side diff applied the ignore rules to desired before
/// the dry run (gitops-engine PR #747): a rule on a container's `image`
/// sent a pod template without one, the API server refused it, and the
/// app's comparison failed (`ComparisonError ... Required value`, Unknown).
/// The report says so instead of predicting a difference; from 3.2 the
/// rule hides the image and the other difference shows.
#[test]
fn an_ignore_rule_on_a_required_field_failed_server_side_diff_before_3_2() {
    let live = DEPLOYMENT_GIT
        .replace("replicas: 3", "replicas: 2")
        .replace("shop/web:2", "shop/web:1");
    let app = |rule: &str| {
        format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\n  namespace: argocd\n  annotations:\n    argocd.argoproj.io/compare-options: ServerSideDiff=true\nspec:\n  destination: {{namespace: shop}}\n  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    jsonPointers: [{rule}]\n"
        )
    };
    let image = app("/spec/template/spec/containers/0/image");
    let old = with_application(DEPLOYMENT_GIT, &live, "3.1", &image);
    let web = &old.resources[0];
    assert!(
        web.differences.iter().all(|d| !d.visible),
        "{:?}",
        web.differences
    );
    let replicas = web
        .differences
        .iter()
        .find(|d| d.pointer == "/spec/replicas")
        .expect("kept as a hidden difference");
    assert!(
        replicas.hidden_reason.as_ref().is_some_and(|r| r
            .to_string()
            .contains("spec.template.spec.containers[0].image: Required value")),
        "{:?}",
        replicas.hidden_reason
    );
    assert!(
        old.warnings.iter().any(|w| w.contains("ComparisonError")
            && w.contains("apps/Deployment/shop/web")
            && w.contains("gitops-engine PR #747")),
        "{:?}",
        old.warnings
    );
    let new = with_application(DEPLOYMENT_GIT, &live, "3.2", &image);
    assert!(new.warnings.iter().all(|w| !w.contains("ComparisonError")));
    assert!(new.resources[0]
        .differences
        .iter()
        .any(|d| d.visible && d.pointer == "/spec/replicas"));
    // A rule on a field the API server does not require compares as usual.
    let replicas_rule = with_application(DEPLOYMENT_GIT, &live, "3.1", &app("/spec/replicas"));
    assert!(replicas_rule
        .warnings
        .iter()
        .all(|w| !w.contains("ComparisonError")));
    // The legacy diff never asked the API server.
    let legacy = with_application(
        DEPLOYMENT_GIT,
        &live,
        "3.1",
        &image.replace("ServerSideDiff=true", "ServerSideDiff=false"),
    );
    assert!(legacy
        .warnings
        .iter()
        .all(|w| !w.contains("ComparisonError")));
}

/// Under server-side diff with `IncludeMutationWebhook=true`, releases
/// before 3.3.11 / 3.4.0 compared `metadata.resourceVersion` (argo-cd PR
/// #27406): whether it flaps depends on when the object is written, so the
/// report warns rather than predicting a difference.
#[test]
fn resource_version_flapped_under_server_side_diff_with_webhooks_before_3_4_0() {
    let app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\n  namespace: argocd\n  annotations:\n    argocd.argoproj.io/compare-options: ServerSideDiff=true,IncludeMutationWebhook=true\nspec:\n  destination: {namespace: shop}\n";
    let flaps = |release: &str, app: &str| {
        with_application(DEPLOYMENT_GIT, DEPLOYMENT_GIT, release, app)
            .warnings
            .iter()
            .any(|w| w.contains("metadata.resourceVersion") && w.contains("#27406"))
    };
    assert!(flaps("3.3.10", app));
    assert!(!flaps("3.3.11", app));
    assert!(!flaps("3.4", app));
    assert!(!flaps(
        "3.3.10",
        &app.replace(",IncludeMutationWebhook=true", "")
    ));
}

/// A ConfigMap of the app `shop` whose label Git dropped: the
/// last-applied annotation lists it, so the legacy three-way diff shows its removal, while the
/// structured-merge and server-side diffs (no managedFields of Argo CD's
/// apply) do not. It tells the three comparisons apart.
fn dropped_label(object_server_side_apply: bool) -> (String, String) {
    let (yaml, json) = if object_server_side_apply {
        (
            "    argocd.argoproj.io/sync-options: ServerSideApply=true\n",
            r#""argocd.argoproj.io/sync-options":"ServerSideApply=true""#,
        )
    } else {
        ("", "")
    };
    let git = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\n  namespace: shop\n  annotations:\n    note: kept\n{yaml}data:\n  mode: a\n"
    );
    let sep = if json.is_empty() { "" } else { "," };
    let live = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\n  namespace: shop\n  labels: {{team: web}}\n  annotations:\n    note: kept\n    argocd.argoproj.io/tracking-id: shop:/ConfigMap:shop/flags\n{yaml}    kubectl.kubernetes.io/last-applied-configuration: '{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"annotations\":{{\"note\":\"kept\"{sep}{json}}},\"labels\":{{\"team\":\"web\"}},\"name\":\"flags\",\"namespace\":\"shop\"}},\"data\":{{\"mode\":\"a\"}}}}'\ndata:\n  mode: a\n"
    );
    (git, live)
}

/// argo-cd PR #29103 (3.6): an app's `ServerSideApply=true` selects
/// server-side diff, its `ServerSideDiff=false` the legacy diff (the
/// structured-merge diff before 3.6), and an object's own
/// `ServerSideApply=true` in an app without server-side diff falls back to
/// the legacy diff (structured merge before).
#[test]
fn server_side_apply_selects_its_comparison_as_each_release_does() {
    let app = |annotations: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\n  namespace: argocd\n{annotations}spec:\n  destination: {{namespace: shop}}\n  syncPolicy:\n    syncOptions: [ServerSideApply=true]\n")
    };
    let status = |report: &drift_doctor::Report| report.resources[0].status;
    let (git, live) = dropped_label(false);
    let ssd_off =
        app("  annotations:\n    argocd.argoproj.io/compare-options: ServerSideDiff=false\n");
    // 3.5: structured merge either way; 3.6: the legacy diff shows the removal.
    assert_eq!(
        status(&with_application(&git, &live, "3.5.1", &ssd_off)),
        Status::Synced
    );
    let r = with_application(&git, &live, "3.6", &ssd_off);
    assert_eq!(status(&r), Status::OutOfSync);
    let settings = &r.argocd_status.as_ref().unwrap().settings;
    assert!(
        settings
            .iter()
            .any(|s| s.contains("Compared as `legacy`") && s.contains("ServerSideDiff=false")),
        "{settings:?}"
    );
    // The app's server-side apply alone: server-side diff in 3.6.
    assert_eq!(
        status(&with_application(&git, &live, "3.6", &app(""))),
        Status::Synced
    );

    // An object's own option in an app without server-side apply.
    let plain = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\n  namespace: argocd\nspec:\n  destination: {namespace: shop}\n";
    let (git, live) = dropped_label(true);
    assert_eq!(
        status(&with_application(&git, &live, "3.5.1", plain)),
        Status::Synced
    );
    assert_eq!(
        status(&with_application(&git, &live, "3.6", plain)),
        Status::OutOfSync
    );
}

/// argo-cd PR #29616 (closing #12686), in the 3.6 development line: an
/// object's own `argocd.argoproj.io/ignore-differences-json-pointers`
/// annotation is merged with the Application's ignore rules. Releases
/// before it compare the field.
#[test]
fn an_objects_ignore_annotation_hides_its_pointers_from_3_6() {
    let object = |config: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dynamic\n  namespace: shop\n  annotations:\n    argocd.argoproj.io/ignore-differences-json-pointers: /data/config, /data/absent\ndata:\n  config: '{config}'\n  mode: a\n")
    };
    let (git, live) = (object(""), object("written-by-a-controller"));
    let run = |release: &str| {
        let opts = Options {
            compare: CompareOptions {
                include_hidden: true,
                ..CompareOptions::for_release(drift_doctor::ArgoCdRelease::parse(release).unwrap())
            },
            ..Options::default()
        };
        analyze(&git, &live, &opts).unwrap()
    };
    let old = run("3.5.1");
    assert_eq!(old.resources[0].status, Status::OutOfSync);
    let new = run("3.6");
    assert_eq!(new.resources[0].status, Status::Synced);
    let config = new.resources[0]
        .differences
        .iter()
        .find(|d| d.pointer == "/data/config")
        .expect("kept as a hidden difference");
    assert!(
        config
            .hidden_reason
            .as_ref()
            .is_some_and(|r| r.to_string().contains("ignore-differences-json-pointers")),
        "{:?}",
        config.hidden_reason
    );
    // Another field of the same object is still compared.
    let other = analyze(
        &git,
        &live.replace("mode: a", "mode: b"),
        &Options {
            compare: CompareOptions::for_release(drift_doctor::ArgoCdRelease::new(3, 6)),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(other.resources[0].status, Status::OutOfSync);
}

/// gitops-engine `remarshal` drops the `omitempty` zero values of every type
/// in client-go's scheme (the table generated from k8s.io/api), and of none
/// outside it: a CRD's `shortNames: []` stays a difference.
#[test]
fn remarshal_drops_omitempty_zero_values_of_every_typed_kind() {
    let status = |git: &str, live: &str| {
        let report = analyze(git, live, &Options::default()).unwrap();
        let r = &report.resources[0];
        // Every difference, hidden ones too: a dropped zero leaves none.
        let pointers: Vec<String> = r.differences.iter().map(|d| d.pointer.clone()).collect();
        (r.status, pointers)
    };
    let binding = |api_group: &str| {
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: b, namespace: n}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}}\nsubjects:\n- {{kind: ServiceAccount, name: web, namespace: n{api_group}}}\n")
    };
    assert_eq!(
        status(&binding(", apiGroup: ''"), &binding("")),
        (Status::Synced, vec![])
    );
    let service = |name: &str| {
        format!("apiVersion: v1\nkind: Service\nmetadata: {{name: s, namespace: n}}\nspec:\n  selector: {{app: web}}\n  ports:\n  - {{port: 80, targetPort: 8080, protocol: TCP{name}}}\n")
    };
    assert_eq!(
        status(&service(", name: ''"), &service("")),
        (Status::Synced, vec![])
    );
    let pod = |extra: &str| {
        format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: n}}\nspec:\n{extra}  containers:\n  - name: c\n    image: c:1\n")
    };
    assert_eq!(
        status(&pod("  hostNetwork: false\n  nodeSelector: {}\n"), &pod("")),
        (Status::Synced, vec![])
    );
    let pod_wd = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: n}\nspec:\n  containers:\n  - {name: c, image: 'c:1', workingDir: ''}\n";
    assert_eq!(status(pod_wd, &pod("")), (Status::Synced, vec![]));
    let policy = |ingress: &str| {
        format!("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {{name: np, namespace: n}}\nspec:\n  podSelector: {{}}\n  policyTypes: [Ingress]\n  ingress:\n  - {{{ingress}ports: [{{port: 80, protocol: TCP}}]}}\n")
    };
    assert_eq!(
        status(&policy("from: [], "), &policy("")),
        (Status::Synced, vec![])
    );
    let crd = |short: &str| {
        format!("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: things.example.com}}\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {{kind: Thing, listKind: ThingList, plural: things, singular: thing{short}}}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}\n")
    };
    let (s, pointers) = status(&crd(", shortNames: []"), &crd(""));
    assert_eq!(s, Status::OutOfSync);
    assert_eq!(pointers, ["/spec/names/shortNames"]);
}

/// A `data:` left empty in Git is a `null` the last-applied annotation keeps
/// at the top of the object: the three-way patch deletes the live data, so
/// what a controller wrote there is a difference (and the sync empties it).
#[test]
fn a_top_level_null_in_the_last_applied_original_deletes_the_live_field() {
    let opts = Options {
        compare: CompareOptions {
            include_hidden: true,
            ..Default::default()
        },
        ..Default::default()
    };
    for kind in ["ConfigMap", "Secret"] {
        let git = format!(
            "apiVersion: v1\nkind: {kind}\nmetadata: {{name: mirror, namespace: n}}\ndata:\n"
        );
        let applied = format!(
            r#"{{"apiVersion":"v1","data":null,"kind":"{kind}","metadata":{{"name":"mirror","namespace":"n"}}}}"#
        );
        let live = format!(
            "apiVersion: v1\nkind: {kind}\nmetadata:\n  name: mirror\n  namespace: n\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{applied}'\ndata: {{copied: Y29waWVk}}\n"
        );
        let r = &analyze(&git, &live, &opts).unwrap().resources[0];
        assert_eq!(r.status, Status::OutOfSync, "{kind}: {:?}", r.differences);
        assert!(r
            .differences
            .iter()
            .any(|d| d.visible && d.pointer == "/data"));
        // Without the key in the last apply, the copied data stays hidden.
        let live = live.replace(r#""data":null,"#, "");
        let r = &analyze(&git, &live, &opts).unwrap().resources[0];
        assert_eq!(r.status, Status::Synced, "{kind}: {:?}", r.differences);
    }
}
