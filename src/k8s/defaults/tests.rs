use super::*;
use crate::k8s::schema::schema;
use serde_json::json;

#[test]
fn every_defaults_type_exists() {
    let s = schema().unwrap();
    for (t, rules) in DEFAULTS {
        assert!(s.by_name.contains_key(t), "defaults for unknown type {t}");
        assert!(!rules.is_empty());
    }
}

fn defaulted(group: &str, kind: &str, mut v: Value) -> Value {
    apply_defaults(group, kind, &mut v);
    let once = v.clone();
    apply_defaults(group, kind, &mut v);
    assert_eq!(v, once, "apply_defaults must be idempotent for {kind}");
    v
}

fn minimal_pod_spec() -> Value {
    json!({"containers": [{"name": "app", "image": "nginx:1.25", "ports": [{"containerPort": 80}],
            "livenessProbe": {"httpGet": {"port": 80}},
            "env": [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}],
          "volumes": [{"name": "cfg", "configMap": {"name": "c"}}, {"name": "scratch"},
                      {"name": "hp", "hostPath": {"path": "/x"}}]})
}

#[test]
fn defaults_deployment() {
    let d = defaulted(
        "apps",
        "Deployment",
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                   "spec": {"selector": {"matchLabels": {"a": "b"}},
                            "template": {"metadata": {"labels": {"a": "b"}}, "spec": minimal_pod_spec()}}}),
    );
    let s = &d["spec"];
    assert_eq!(s["replicas"], json!(1));
    assert_eq!(s["revisionHistoryLimit"], json!(10));
    assert_eq!(s["progressDeadlineSeconds"], json!(600));
    assert_eq!(
        s["strategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
    );
    let p = &s["template"]["spec"];
    assert_eq!(p["dnsPolicy"], json!("ClusterFirst"));
    assert_eq!(p["restartPolicy"], json!("Always"));
    assert_eq!(p["securityContext"], json!({}));
    assert_eq!(p["terminationGracePeriodSeconds"], json!(30));
    assert_eq!(p["schedulerName"], json!("default-scheduler"));
    let c = &p["containers"][0];
    assert_eq!(c["imagePullPolicy"], json!("IfNotPresent"));
    assert_eq!(c["terminationMessagePath"], json!("/dev/termination-log"));
    assert_eq!(c["terminationMessagePolicy"], json!("File"));
    assert_eq!(c["ports"][0]["protocol"], json!("TCP"));
    assert_eq!(
        c["env"][0]["valueFrom"]["fieldRef"]["apiVersion"],
        json!("v1")
    );
    assert_eq!(
        c["livenessProbe"],
        json!({"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1,
                   "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3})
    );
    assert_eq!(p["volumes"][0]["configMap"]["defaultMode"], json!(420));
    assert_eq!(p["volumes"][1]["emptyDir"], json!({}));
    assert_eq!(p["volumes"][2]["hostPath"]["type"], json!(""));
    assert!(p["volumes"][0].get("emptyDir").is_none());

    // Recreate strategy: no rollingUpdate
    let d = defaulted(
        "apps",
        "Deployment",
        json!({"spec": {"strategy": {"type": "Recreate"}}}),
    );
    assert_eq!(d["spec"]["strategy"], json!({"type": "Recreate"}));
    // present values never change
    let d = defaulted(
        "apps",
        "Deployment",
        json!({"spec": {"replicas": 3, "strategy": {"rollingUpdate": {"maxSurge": 1}}}}),
    );
    assert_eq!(d["spec"]["replicas"], json!(3));
    assert_eq!(
        d["spec"]["strategy"]["rollingUpdate"],
        json!({"maxSurge": 1, "maxUnavailable": "25%"})
    );
}

#[test]
fn image_pull_policy() {
    for (image, policy) in [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("nginx:1.25", "IfNotPresent"),
        ("registry:5000/team/app", "Always"),
        ("registry:5000/team/app:v2", "IfNotPresent"),
        (
            "nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "IfNotPresent",
        ),
        (
            "nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "Always",
        ),
        ("", "IfNotPresent"),
        ("Nginx", "IfNotPresent"),
        ("localhost/app", "Always"),
    ] {
        let d = defaulted(
            "",
            "Pod",
            json!({"spec": {"containers": [{"name": "a", "image": image}]}}),
        );
        assert_eq!(
            d["spec"]["containers"][0]["imagePullPolicy"],
            json!(policy),
            "{image}"
        );
    }
    let d = defaulted("", "Pod", json!({"spec": {"containers": [{"name": "a"}]}}));
    assert_eq!(
        d["spec"]["containers"][0]["imagePullPolicy"],
        json!("IfNotPresent")
    );
}

#[test]
fn defaults_service() {
    let s = defaulted(
        "",
        "Service",
        json!({"spec": {"ports": [{"port": 80}, {"port": 443, "targetPort": "https"}]}}),
    );
    assert_eq!(s["spec"]["type"], json!("ClusterIP"));
    assert_eq!(s["spec"]["sessionAffinity"], json!("None"));
    assert_eq!(s["spec"]["internalTrafficPolicy"], json!("Cluster"));
    assert!(s["spec"].get("externalTrafficPolicy").is_none());
    assert!(s["spec"].get("allocateLoadBalancerNodePorts").is_none());
    assert!(s["spec"].get("sessionAffinityConfig").is_none());
    assert_eq!(
        s["spec"]["ports"][0],
        json!({"port": 80, "protocol": "TCP", "targetPort": 80})
    );
    assert_eq!(s["spec"]["ports"][1]["targetPort"], json!("https"));

    let s = defaulted(
        "",
        "Service",
        json!({"spec": {"type": "LoadBalancer", "sessionAffinity": "ClientIP", "ports": [{"port": 80, "targetPort": 0}]}}),
    );
    assert_eq!(s["spec"]["externalTrafficPolicy"], json!("Cluster"));
    assert_eq!(s["spec"]["internalTrafficPolicy"], json!("Cluster"));
    assert_eq!(s["spec"]["allocateLoadBalancerNodePorts"], json!(true));
    assert_eq!(
        s["spec"]["sessionAffinityConfig"],
        json!({"clientIP": {"timeoutSeconds": 10800}})
    );
    assert_eq!(s["spec"]["ports"][0]["targetPort"], json!(80));

    let s = defaulted(
        "",
        "Service",
        json!({"spec": {"type": "ExternalName", "externalName": "x.example"}}),
    );
    assert!(s["spec"].get("internalTrafficPolicy").is_none());
    assert!(s["spec"].get("externalTrafficPolicy").is_none());
    let s = defaulted("", "Service", json!({"spec": {"externalIPs": ["1.2.3.4"]}}));
    assert_eq!(s["spec"]["externalTrafficPolicy"], json!("Cluster"));
}

#[test]
fn defaults_cronjob_and_job() {
    let cj = defaulted(
        "batch",
        "CronJob",
        json!({"spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}}}}}),
    );
    let s = &cj["spec"];
    assert_eq!(s["concurrencyPolicy"], json!("Allow"));
    assert_eq!(s["suspend"], json!(false));
    assert_eq!(s["successfulJobsHistoryLimit"], json!(3));
    assert_eq!(s["failedJobsHistoryLimit"], json!(1));
    let p = &s["jobTemplate"]["spec"]["template"]["spec"];
    assert_eq!(p["restartPolicy"], json!("OnFailure"));
    assert_eq!(p["dnsPolicy"], json!("ClusterFirst"));
    assert_eq!(p["containers"][0]["imagePullPolicy"], json!("Always"));
    // Job-level defaults are not applied to the job template of a CronJob
    assert!(s["jobTemplate"]["spec"].get("backoffLimit").is_none());

    let j = defaulted(
        "batch",
        "Job",
        json!({"spec": {"template": {"metadata": {"labels": {"app": "x"}}, "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}),
    );
    assert_eq!(j["spec"]["completions"], json!(1));
    assert_eq!(j["spec"]["parallelism"], json!(1));
    assert_eq!(j["spec"]["backoffLimit"], json!(6));
    assert_eq!(j["spec"]["completionMode"], json!("NonIndexed"));
    assert_eq!(j["spec"]["suspend"], json!(false));
    assert_eq!(j["spec"]["manualSelector"], json!(false));
    assert_eq!(
        j["spec"]["podReplacementPolicy"],
        json!("TerminatingOrFailed")
    );
    assert_eq!(j["metadata"]["labels"], json!({"app": "x"}));

    let j = defaulted(
        "batch",
        "Job",
        json!({"spec": {"parallelism": 3, "backoffLimitPerIndex": 1,
                   "podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}}}),
    );
    assert!(j["spec"].get("completions").is_none());
    assert_eq!(j["spec"]["parallelism"], json!(3));
    assert_eq!(j["spec"]["backoffLimit"], json!(2147483647));
    assert_eq!(j["spec"]["podReplacementPolicy"], json!("Failed"));
    assert_eq!(
        j["spec"]["podFailurePolicy"]["rules"][0]["onPodConditions"][0]["status"],
        json!("True")
    );
}

#[test]
fn defaults_statefulset() {
    let s = defaulted(
        "apps",
        "StatefulSet",
        json!({"spec": {"serviceName": "s", "template": {"spec": minimal_pod_spec()},
                   "volumeClaimTemplates": [{"metadata": {"name": "data"},
                       "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}}),
    );
    let sp = &s["spec"];
    assert_eq!(sp["replicas"], json!(1));
    assert_eq!(sp["podManagementPolicy"], json!("OrderedReady"));
    assert_eq!(sp["revisionHistoryLimit"], json!(10));
    assert_eq!(
        sp["updateStrategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
    );
    assert_eq!(
        sp["persistentVolumeClaimRetentionPolicy"],
        json!({"whenDeleted": "Retain", "whenScaled": "Retain"})
    );
    let vct = &sp["volumeClaimTemplates"][0];
    assert_eq!(vct["apiVersion"], json!("v1"));
    assert_eq!(vct["kind"], json!("PersistentVolumeClaim"));
    assert_eq!(vct["spec"]["volumeMode"], json!("Filesystem"));
    assert!(vct.get("status").is_none());
    assert_eq!(
        sp["template"]["spec"]["containers"][0]["imagePullPolicy"],
        json!("IfNotPresent")
    );

    // type given without rollingUpdate: no rollingUpdate, no partition
    let s = defaulted(
        "apps",
        "StatefulSet",
        json!({"spec": {"updateStrategy": {"type": "RollingUpdate"}}}),
    );
    assert_eq!(
        s["spec"]["updateStrategy"],
        json!({"type": "RollingUpdate"})
    );
    let s = defaulted(
        "apps",
        "StatefulSet",
        json!({"spec": {"updateStrategy": {"type": "OnDelete"}}}),
    );
    assert_eq!(s["spec"]["updateStrategy"], json!({"type": "OnDelete"}));
}

#[test]
fn defaults_daemonset_and_others() {
    let d = defaulted("apps", "DaemonSet", json!({"spec": {}}));
    assert_eq!(
        d["spec"]["updateStrategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}})
    );
    assert_eq!(d["spec"]["revisionHistoryLimit"], json!(10));
    let d = defaulted("extensions", "ReplicaSet", json!({"spec": {}}));
    assert_eq!(d["spec"]["replicas"], json!(1));
    let rc = defaulted(
        "",
        "ReplicationController",
        json!({"spec": {"template": {"metadata": {"labels": {"a": "b"}}}}}),
    );
    assert_eq!(rc["spec"]["replicas"], json!(1));
    assert_eq!(rc["spec"]["selector"], json!({"a": "b"}));
    assert_eq!(rc["metadata"]["labels"], json!({"a": "b"}));
    let hpa = defaulted(
        "autoscaling",
        "HorizontalPodAutoscaler",
        json!({"apiVersion": "autoscaling/v2", "spec": {"maxReplicas": 3, "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}}),
    );
    assert_eq!(hpa["spec"]["minReplicas"], json!(1));
    assert_eq!(
        hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
        json!(80)
    );
    assert_eq!(
        hpa["spec"]["behavior"]["scaleUp"]["policies"][0]["value"],
        json!(4)
    );
    assert_eq!(
        hpa["spec"]["behavior"]["scaleUp"]["stabilizationWindowSeconds"],
        json!(0)
    );
    assert_eq!(
        hpa["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"],
        json!(60)
    );
    assert_eq!(
        hpa["spec"]["behavior"]["scaleDown"]["selectPolicy"],
        json!("Max")
    );
    let hpa1 = defaulted(
        "autoscaling",
        "HorizontalPodAutoscaler",
        json!({"apiVersion": "autoscaling/v1", "spec": {"maxReplicas": 3}}),
    );
    assert!(hpa1["spec"].get("metrics").is_none());
    assert!(hpa1["spec"].get("behavior").is_none());
    let rb = defaulted(
        "rbac.authorization.k8s.io",
        "RoleBinding",
        json!({"roleRef": {"kind": "Role", "name": "r"},
            "subjects": [{"kind": "ServiceAccount", "name": "sa"}, {"kind": "User", "name": "u"}]}),
    );
    assert_eq!(
        rb["roleRef"]["apiGroup"],
        json!("rbac.authorization.k8s.io")
    );
    assert!(rb["subjects"][0].get("apiGroup").is_none());
    assert_eq!(
        rb["subjects"][1]["apiGroup"],
        json!("rbac.authorization.k8s.io")
    );
    let crd = defaulted(
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        json!({"spec": {"group": "x.io", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced"}}),
    );
    assert_eq!(crd["spec"]["names"]["singular"], json!("widget"));
    assert_eq!(crd["spec"]["names"]["listKind"], json!("WidgetList"));
    assert_eq!(crd["spec"]["conversion"], json!({"strategy": "None"}));
    let ns = defaulted("", "Namespace", json!({"metadata": {"name": "team"}}));
    assert_eq!(
        ns["metadata"]["labels"]["kubernetes.io/metadata.name"],
        json!("team")
    );
    let sec = defaulted("", "Secret", json!({"data": {}}));
    assert_eq!(sec["type"], json!("Opaque"));
    let np = defaulted(
        "networking.k8s.io",
        "NetworkPolicy",
        json!({"spec": {"egress": [{"ports": [{"port": 53}]}]}}),
    );
    assert_eq!(np["spec"]["policyTypes"], json!(["Ingress", "Egress"]));
    assert_eq!(
        np["spec"]["egress"][0]["ports"][0]["protocol"],
        json!("TCP")
    );
    let pvc = defaulted(
        "",
        "PersistentVolumeClaim",
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "spec": {}}),
    );
    assert_eq!(pvc["spec"]["volumeMode"], json!("Filesystem"));
    let cm = defaulted("", "ConfigMap", json!({"data": {"a": "b"}}));
    assert_eq!(cm, json!({"data": {"a": "b"}}));
    let mut cr = json!({"spec": {}});
    apply_defaults("example.com", "Widget", &mut cr);
    assert_eq!(cr, json!({"spec": {}}));
}

#[test]
fn defaults_webhooks() {
    let m = defaulted(
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        json!({"apiVersion": "admissionregistration.k8s.io/v1", "webhooks": [{
                "name": "w.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                "clientConfig": {"service": {"name": "s", "namespace": "n"}},
                "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}]}]}),
    );
    let w = &m["webhooks"][0];
    assert_eq!(w["failurePolicy"], json!("Fail"));
    assert_eq!(w["matchPolicy"], json!("Equivalent"));
    assert_eq!(w["namespaceSelector"], json!({}));
    assert_eq!(w["objectSelector"], json!({}));
    assert_eq!(w["timeoutSeconds"], json!(10));
    assert_eq!(w["reinvocationPolicy"], json!("Never"));
    assert_eq!(w["sideEffects"], json!("None"));
    assert_eq!(w["admissionReviewVersions"], json!(["v1"]));
    assert_eq!(w["rules"][0]["scope"], json!("*"));
    assert_eq!(w["clientConfig"]["service"]["port"], json!(443));

    let v = defaulted(
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        json!({"apiVersion": "admissionregistration.k8s.io/v1beta1", "webhooks": [{"name": "v", "clientConfig": {"url": "https://x"}}]}),
    );
    let w = &v["webhooks"][0];
    assert_eq!(w["failurePolicy"], json!("Ignore"));
    assert_eq!(w["matchPolicy"], json!("Exact"));
    assert_eq!(w["sideEffects"], json!("Unknown"));
    assert_eq!(w["timeoutSeconds"], json!(30));
    assert_eq!(w["admissionReviewVersions"], json!(["v1beta1"]));
    assert!(w.get("reinvocationPolicy").is_none());
}

#[test]
fn default_for_explains() {
    let live = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replicas": 3, "progressDeadlineSeconds": 600,
                     "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
                     "template": {"spec": {"containers": [{"name": "a", "image": "nginx", "imagePullPolicy": "Always",
                         "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}}}});
    let g = |p: &str| default_for("apps", "Deployment", &live, p);
    assert_eq!(g("/spec/replicas"), Some(json!(1)));
    assert_eq!(g("/spec/progressDeadlineSeconds"), Some(json!(600)));
    assert_eq!(
        g("/spec/strategy/rollingUpdate/maxSurge"),
        Some(json!("25%"))
    );
    assert_eq!(
        g("/spec/strategy"),
        Some(
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}})
        )
    );
    assert_eq!(
        g("/spec/template/spec/containers/0/imagePullPolicy"),
        Some(json!("Always"))
    );
    assert_eq!(
        g("/spec/template/spec/containers/0/ports/0/protocol"),
        Some(json!("TCP"))
    );
    assert_eq!(
        g("/spec/template/spec/dnsPolicy"),
        Some(json!("ClusterFirst"))
    );
    assert_eq!(g("/spec/template/spec/containers/0/image"), None);
    assert_eq!(g("/spec/template/spec/containers/0"), None);
    assert_eq!(g("/spec/template/spec/containers"), None);
    assert_eq!(g("/metadata/name"), None);
    assert_eq!(g("/spec/template/spec/securityContext/runAsUser"), None);
    assert_eq!(g(""), None);
    assert_eq!(g("spec/replicas"), None);
    assert_eq!(g("/nope/deeper/still"), None);
    assert_eq!(
        default_for("example.com", "Widget", &live, "/spec/replicas"),
        None
    );

    let svc = json!({"spec": {"type": "ClusterIP", "ports": [{"port": 8080, "targetPort": 8080, "protocol": "TCP"}]}});
    assert_eq!(
        default_for("", "Service", &svc, "/spec/ports/0/targetPort"),
        Some(json!(8080))
    );
    assert_eq!(
        default_for("", "Service", &svc, "/spec/sessionAffinity"),
        Some(json!("None"))
    );
    assert_eq!(default_for("", "Service", &svc, "/spec/clusterIP"), None);

    let job = json!({"spec": {"completions": 1, "parallelism": 1, "template": {}}});
    assert_eq!(
        default_for("batch", "Job", &job, "/spec/completions"),
        Some(json!(1))
    );
    let job = json!({"spec": {"completions": 1, "parallelism": 4, "template": {}}});
    assert_eq!(default_for("batch", "Job", &job, "/spec/completions"), None);

    let hpa = json!({"apiVersion": "autoscaling/v2", "spec": {"metrics": [{"type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]}});
    assert_eq!(
        default_for(
            "autoscaling",
            "HorizontalPodAutoscaler",
            &hpa,
            "/spec/metrics/0/resource/target/averageUtilization"
        ),
        Some(json!(80))
    );
    let ns =
        json!({"metadata": {"name": "team", "labels": {"kubernetes.io/metadata.name": "team"}}});
    assert_eq!(
        default_for(
            "",
            "Namespace",
            &ns,
            "/metadata/labels/kubernetes.io~1metadata.name"
        ),
        Some(json!("team"))
    );
}
