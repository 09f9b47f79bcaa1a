//! API-server defaulting of built-in kinds, as a table of rules per schema type (so every place
//! a `PodSpec`, `Container`, `Probe`... appears gets them), and `default_for` to explain a
//! live-only value as "a server default".

use super::schema::{root, root_node, schema, walk_typed, TypeDef};
use super::MAX_DEPTH;
use serde_json::{Map, Value};
use std::sync::OnceLock;

type Path = &'static [&'static str];
type Obj = Map<String, Value>;

/// What the object being defaulted is (for version- or kind-dependent rules).
struct Ctx {
    api_version: String,
    kind: String,
}

/// The value a rule writes.
#[derive(Clone, Copy)]
enum Def {
    Str(&'static str),
    Int(i64),
    Bool(bool),
    EmptyObject,
    /// A JSON literal.
    Json(&'static str),
    /// Computed from the object the rule belongs to; None writes nothing.
    Fn(fn(&Obj, &Ctx) -> Option<Value>),
}

/// When a rule applies (evaluated on the object the rule belongs to, after earlier rules ran).
#[derive(Clone, Copy)]
enum When {
    Always,
    /// The field at this path is unset (missing, null or "").
    Unset(Path),
    /// The field at this path is set and is an object.
    IsObject(Path),
    /// The field at this path is the string.
    Eq(Path, &'static str),
    /// The field at this path is one of the strings.
    In(Path, &'static [&'static str]),
    Test(fn(&Obj, &Ctx) -> bool),
}

/// One defaulting rule: if the field at `at` (relative to an object of the rule's type) is
/// unset and `when` holds, write `def` there (creating missing parent objects).
#[derive(Clone, Copy)]
struct Rule {
    at: Path,
    def: Def,
    when: When,
    /// Go non-pointer field: the zero value ("", 0, false, [] or {}) also counts as unset.
    zero_is_unset: bool,
}

/// Rule for a Go pointer field (only missing / null counts as unset).
const fn ptr(at: Path, def: Def) -> Rule {
    Rule {
        at,
        def,
        when: When::Always,
        zero_is_unset: false,
    }
}

/// Rule for a Go value field (the zero value counts as unset too).
const fn val(at: Path, def: Def) -> Rule {
    Rule {
        at,
        def,
        when: When::Always,
        zero_is_unset: true,
    }
}

impl Rule {
    const fn when(self, when: When) -> Rule {
        Rule {
            at: self.at,
            def: self.def,
            when,
            zero_is_unset: self.zero_is_unset,
        }
    }
}

use Def::{Bool, EmptyObject, Int, Json, Str};

const RU: &str = "RollingUpdate";

const DEPLOYMENT_SPEC: &[Rule] = &[
    ptr(&["replicas"], Int(1)),
    val(&["strategy", "type"], Str(RU)),
    ptr(&["strategy", "rollingUpdate", "maxUnavailable"], Str("25%"))
        .when(When::Eq(&["strategy", "type"], RU)),
    ptr(&["strategy", "rollingUpdate", "maxSurge"], Str("25%"))
        .when(When::Eq(&["strategy", "type"], RU)),
    ptr(&["revisionHistoryLimit"], Int(10)),
    ptr(&["progressDeadlineSeconds"], Int(600)),
];

const STATEFULSET_SPEC: &[Rule] = &[
    val(&["podManagementPolicy"], Str("OrderedReady")),
    // rollingUpdate: {} is created only when the type itself was empty
    ptr(&["updateStrategy", "rollingUpdate"], EmptyObject)
        .when(When::Unset(&["updateStrategy", "type"])),
    val(&["updateStrategy", "type"], Str(RU)),
    ptr(&["updateStrategy", "rollingUpdate", "partition"], Int(0))
        .when(When::Test(sts_partition_applies)),
    val(
        &["persistentVolumeClaimRetentionPolicy", "whenDeleted"],
        Str("Retain"),
    ),
    val(
        &["persistentVolumeClaimRetentionPolicy", "whenScaled"],
        Str("Retain"),
    ),
    ptr(&["replicas"], Int(1)),
    ptr(&["revisionHistoryLimit"], Int(10)),
];

const DAEMONSET_SPEC: &[Rule] = &[
    val(&["updateStrategy", "type"], Str(RU)),
    ptr(
        &["updateStrategy", "rollingUpdate", "maxUnavailable"],
        Int(1),
    )
    .when(When::Eq(&["updateStrategy", "type"], RU)),
    ptr(&["updateStrategy", "rollingUpdate", "maxSurge"], Int(0))
        .when(When::Eq(&["updateStrategy", "type"], RU)),
    ptr(&["revisionHistoryLimit"], Int(10)),
];

const REPLICA_COUNT: &[Rule] = &[ptr(&["replicas"], Int(1))];

const REPLICATION_CONTROLLER: &[Rule] = &[
    val(&["spec", "selector"], Def::Fn(rc_template_labels)),
    val(&["metadata", "labels"], Def::Fn(rc_template_labels)),
];

const JOB: &[Rule] = &[
    ptr(&["spec", "completions"], Int(1)).when(When::Test(job_no_counts)),
    ptr(&["spec", "parallelism"], Int(1)),
    ptr(&["spec", "backoffLimit"], Def::Fn(job_backoff_limit)),
    val(&["metadata", "labels"], Def::Fn(job_template_labels)),
    ptr(&["spec", "completionMode"], Str("NonIndexed")),
    ptr(&["spec", "suspend"], Bool(false)),
    ptr(
        &["spec", "podReplacementPolicy"],
        Def::Fn(job_pod_replacement_policy),
    ),
    ptr(&["spec", "manualSelector"], Bool(false)),
];

const POD_FAILURE_POLICY_ON_POD_CONDITIONS: &[Rule] =
    &[val(&["status"], Str("True")).when(When::Test(root_is_job))];

const CRONJOB_SPEC: &[Rule] = &[
    val(&["concurrencyPolicy"], Str("Allow")),
    ptr(&["suspend"], Bool(false)),
    ptr(&["successfulJobsHistoryLimit"], Int(3)),
    ptr(&["failedJobsHistoryLimit"], Int(1)),
];

const POD_SPEC: &[Rule] = &[
    val(&["dnsPolicy"], Str("ClusterFirst")),
    val(&["restartPolicy"], Str("Always")),
    ptr(&["securityContext"], EmptyObject),
    ptr(&["terminationGracePeriodSeconds"], Int(30)),
    val(&["schedulerName"], Str("default-scheduler")),
];

const CONTAINER: &[Rule] = &[
    val(&["imagePullPolicy"], Def::Fn(container_pull_policy)),
    val(&["terminationMessagePath"], Str("/dev/termination-log")),
    val(&["terminationMessagePolicy"], Str("File")),
];

const PROTOCOL_TCP: &[Rule] = &[val(&["protocol"], Str("TCP"))];
const PROTOCOL_TCP_PTR: &[Rule] = &[ptr(&["protocol"], Str("TCP"))];

const OBJECT_FIELD_SELECTOR: &[Rule] = &[val(&["apiVersion"], Str("v1"))];

/// Not a SetDefaults function: the zero Quantity of this value field is always serialised.
const RESOURCE_FIELD_SELECTOR: &[Rule] = &[ptr(&["divisor"], Str("0"))];

const PROBE: &[Rule] = &[
    val(&["timeoutSeconds"], Int(1)),
    val(&["periodSeconds"], Int(10)),
    val(&["successThreshold"], Int(1)),
    val(&["failureThreshold"], Int(3)),
];

const HTTP_GET_ACTION: &[Rule] = &[val(&["path"], Str("/")), val(&["scheme"], Str("HTTP"))];

/// Declarative `+default=""` on GRPCAction.service.
const GRPC_ACTION: &[Rule] = &[ptr(&["service"], Str(""))];

const VOLUME: &[Rule] = &[
    ptr(&["emptyDir"], EmptyObject).when(When::Test(volume_has_no_source)),
    val(&["image", "pullPolicy"], Def::Fn(image_volume_pull_policy))
        .when(When::IsObject(&["image"])),
];

const DEFAULT_MODE_420: &[Rule] = &[ptr(&["defaultMode"], Int(420))];

const SERVICE_ACCOUNT_TOKEN_PROJECTION: &[Rule] = &[ptr(&["expirationSeconds"], Int(3600))];

const HOST_PATH: &[Rule] = &[ptr(&["type"], Str(""))];

const SERVICE_SPEC: &[Rule] = &[
    val(&["sessionAffinity"], Str("None")),
    ptr(
        &["sessionAffinityConfig", "clientIP", "timeoutSeconds"],
        Int(10800),
    )
    .when(When::Eq(&["sessionAffinity"], "ClientIP")),
    val(&["type"], Str("ClusterIP")),
    val(&["externalTrafficPolicy"], Str("Cluster")).when(When::Test(service_externally_accessible)),
    ptr(&["internalTrafficPolicy"], Str("Cluster")).when(When::In(
        &["type"],
        &["ClusterIP", "NodePort", "LoadBalancer"],
    )),
    ptr(&["allocateLoadBalancerNodePorts"], Bool(true)).when(When::Eq(&["type"], "LoadBalancer")),
];

const SERVICE_PORT: &[Rule] = &[
    val(&["protocol"], Str("TCP")),
    val(&["targetPort"], Def::Fn(service_target_port)),
];

/// StatefulSet volumeClaimTemplates are serialised with their TypeMeta.
const PERSISTENT_VOLUME_CLAIM: &[Rule] = &[
    val(&["apiVersion"], Str("v1")),
    val(&["kind"], Str("PersistentVolumeClaim")),
];

const VOLUME_MODE_FILESYSTEM: &[Rule] = &[ptr(&["volumeMode"], Str("Filesystem"))];

const PERSISTENT_VOLUME_SPEC: &[Rule] = &[
    val(&["persistentVolumeReclaimPolicy"], Str("Retain")),
    ptr(&["volumeMode"], Str("Filesystem")),
];

const SECRET: &[Rule] = &[val(&["type"], Str("Opaque"))];

const NAMESPACE: &[Rule] = &[val(
    &["metadata", "labels", "kubernetes.io/metadata.name"],
    Def::Fn(namespace_name),
)];

const INGRESS_CLASS_PARAMETERS: &[Rule] = &[ptr(&["scope"], Str("Cluster"))];

const NETWORK_POLICY_SPEC: &[Rule] = &[val(&["policyTypes"], Def::Fn(network_policy_types))];

const HPA_SPEC: &[Rule] = &[
    ptr(&["minReplicas"], Int(1)),
    val(&["metrics"], Json(r#"[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}]"#))
        .when(When::Test(hpa_defaults_metrics)),
];

const HPA_BEHAVIOR: &[Rule] = &[
    ptr(&["scaleUp", "stabilizationWindowSeconds"], Int(0)),
    ptr(&["scaleUp", "selectPolicy"], Str("Max")),
    ptr(
        &["scaleUp", "policies"],
        Json(
            r#"[{"type":"Pods","value":4,"periodSeconds":15},{"type":"Percent","value":100,"periodSeconds":15}]"#,
        ),
    ),
    ptr(&["scaleDown", "selectPolicy"], Str("Max")),
    ptr(
        &["scaleDown", "policies"],
        Json(r#"[{"type":"Percent","value":100,"periodSeconds":15}]"#),
    ),
];

const VALIDATING_WEBHOOK: &[Rule] = &[
    ptr(&["failurePolicy"], Def::Fn(webhook_failure_policy)),
    ptr(&["matchPolicy"], Def::Fn(webhook_match_policy)),
    ptr(&["namespaceSelector"], EmptyObject),
    ptr(&["objectSelector"], EmptyObject),
    ptr(&["sideEffects"], Def::Fn(webhook_side_effects)),
    ptr(&["timeoutSeconds"], Def::Fn(webhook_timeout)),
    val(
        &["admissionReviewVersions"],
        Def::Fn(webhook_review_versions),
    ),
];

const MUTATING_WEBHOOK: &[Rule] = &[
    ptr(&["failurePolicy"], Def::Fn(webhook_failure_policy)),
    ptr(&["matchPolicy"], Def::Fn(webhook_match_policy)),
    ptr(&["namespaceSelector"], EmptyObject),
    ptr(&["objectSelector"], EmptyObject),
    ptr(&["sideEffects"], Def::Fn(webhook_side_effects)),
    ptr(&["timeoutSeconds"], Def::Fn(webhook_timeout)),
    ptr(&["reinvocationPolicy"], Str("Never")),
    val(
        &["admissionReviewVersions"],
        Def::Fn(webhook_review_versions),
    ),
];

const RULE_SCOPE: &[Rule] = &[ptr(&["scope"], Str("*"))];

const PORT_443: &[Rule] = &[ptr(&["port"], Int(443))];

const FAILURE_POLICY_FAIL: &[Rule] = &[ptr(&["failurePolicy"], Str("Fail"))];

const MATCH_RESOURCES: &[Rule] = &[
    ptr(&["matchPolicy"], Str("Equivalent")),
    ptr(&["namespaceSelector"], EmptyObject),
    ptr(&["objectSelector"], EmptyObject),
];

const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

const ROLE_REF: &[Rule] = &[val(&["apiGroup"], Str(RBAC_GROUP))];

const RBAC_SUBJECT: &[Rule] =
    &[val(&["apiGroup"], Str(RBAC_GROUP)).when(When::In(&["kind"], &["User", "Group"]))];

const CRD_SPEC: &[Rule] = &[
    val(&["names", "singular"], Def::Fn(crd_singular)),
    val(&["names", "listKind"], Def::Fn(crd_list_kind)),
    ptr(&["conversion"], Json(r#"{"strategy":"None"}"#)),
];

const STORAGE_CLASS: &[Rule] = &[
    ptr(&["reclaimPolicy"], Str("Delete")),
    ptr(&["volumeBindingMode"], Str("Immediate")),
];

/// Defaulting rules per schema type (sources: argocd-semantics.md section 7, and
/// kubernetes pkg/apis/*/v1/defaults.go).
const DEFAULTS: &[(&str, &[Rule])] = &[
    ("io.k8s.api.apps.v1.DeploymentSpec", DEPLOYMENT_SPEC),
    ("io.k8s.api.apps.v1.StatefulSetSpec", STATEFULSET_SPEC),
    ("io.k8s.api.apps.v1.DaemonSetSpec", DAEMONSET_SPEC),
    ("io.k8s.api.apps.v1.ReplicaSetSpec", REPLICA_COUNT),
    (
        "io.k8s.api.core.v1.ReplicationControllerSpec",
        REPLICA_COUNT,
    ),
    (
        "io.k8s.api.core.v1.ReplicationController",
        REPLICATION_CONTROLLER,
    ),
    ("io.k8s.api.batch.v1.Job", JOB),
    (
        "io.k8s.api.batch.v1.PodFailurePolicyOnPodConditionsPattern",
        POD_FAILURE_POLICY_ON_POD_CONDITIONS,
    ),
    ("io.k8s.api.batch.v1.CronJobSpec", CRONJOB_SPEC),
    ("io.k8s.api.core.v1.PodSpec", POD_SPEC),
    ("io.k8s.api.core.v1.Container", CONTAINER),
    ("io.k8s.api.core.v1.EphemeralContainer", CONTAINER),
    ("io.k8s.api.core.v1.ContainerPort", PROTOCOL_TCP),
    (
        "io.k8s.api.core.v1.ObjectFieldSelector",
        OBJECT_FIELD_SELECTOR,
    ),
    (
        "io.k8s.api.core.v1.ResourceFieldSelector",
        RESOURCE_FIELD_SELECTOR,
    ),
    ("io.k8s.api.core.v1.Probe", PROBE),
    ("io.k8s.api.core.v1.HTTPGetAction", HTTP_GET_ACTION),
    ("io.k8s.api.core.v1.GRPCAction", GRPC_ACTION),
    ("io.k8s.api.core.v1.Volume", VOLUME),
    ("io.k8s.api.core.v1.SecretVolumeSource", DEFAULT_MODE_420),
    ("io.k8s.api.core.v1.ConfigMapVolumeSource", DEFAULT_MODE_420),
    (
        "io.k8s.api.core.v1.DownwardAPIVolumeSource",
        DEFAULT_MODE_420,
    ),
    ("io.k8s.api.core.v1.ProjectedVolumeSource", DEFAULT_MODE_420),
    (
        "io.k8s.api.core.v1.ServiceAccountTokenProjection",
        SERVICE_ACCOUNT_TOKEN_PROJECTION,
    ),
    ("io.k8s.api.core.v1.HostPathVolumeSource", HOST_PATH),
    ("io.k8s.api.core.v1.ServiceSpec", SERVICE_SPEC),
    ("io.k8s.api.core.v1.ServicePort", SERVICE_PORT),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaim",
        PERSISTENT_VOLUME_CLAIM,
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaimSpec",
        VOLUME_MODE_FILESYSTEM,
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeSpec",
        PERSISTENT_VOLUME_SPEC,
    ),
    ("io.k8s.api.core.v1.Secret", SECRET),
    ("io.k8s.api.core.v1.Namespace", NAMESPACE),
    ("io.k8s.api.core.v1.EndpointPort", PROTOCOL_TCP),
    (
        "io.k8s.api.networking.v1.IngressClassParametersReference",
        INGRESS_CLASS_PARAMETERS,
    ),
    (
        "io.k8s.api.networking.v1.NetworkPolicyPort",
        PROTOCOL_TCP_PTR,
    ),
    (
        "io.k8s.api.networking.v1.NetworkPolicySpec",
        NETWORK_POLICY_SPEC,
    ),
    (
        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec",
        HPA_SPEC,
    ),
    (
        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerBehavior",
        HPA_BEHAVIOR,
    ),
    (
        "io.k8s.api.admissionregistration.v1.ValidatingWebhook",
        VALIDATING_WEBHOOK,
    ),
    (
        "io.k8s.api.admissionregistration.v1.MutatingWebhook",
        MUTATING_WEBHOOK,
    ),
    (
        "io.k8s.api.admissionregistration.v1.RuleWithOperations",
        RULE_SCOPE,
    ),
    (
        "io.k8s.api.admissionregistration.v1.NamedRuleWithOperations",
        RULE_SCOPE,
    ),
    (
        "io.k8s.api.admissionregistration.v1.ServiceReference",
        PORT_443,
    ),
    (
        "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicySpec",
        FAILURE_POLICY_FAIL,
    ),
    (
        "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicySpec",
        FAILURE_POLICY_FAIL,
    ),
    (
        "io.k8s.api.admissionregistration.v1.MatchResources",
        MATCH_RESOURCES,
    ),
    ("io.k8s.api.rbac.v1.RoleRef", ROLE_REF),
    ("io.k8s.api.rbac.v1.Subject", RBAC_SUBJECT),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionSpec",
        CRD_SPEC,
    ),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ServiceReference",
        PORT_443,
    ),
    ("io.k8s.api.storage.v1.StorageClass", STORAGE_CLASS),
];

fn rules_for(type_name: &str) -> &'static [Rule] {
    DEFAULTS
        .iter()
        .find(|(t, _)| *t == type_name)
        .map(|(_, r)| *r)
        .unwrap_or(&[])
}

/// [`rules_for`] of every schema type, by its index: a walk visits a typed
/// value at nearly every level, and looks its rules up without comparing
/// names.
fn rules_of(t: &TypeDef) -> &'static [Rule] {
    static BY_INDEX: OnceLock<Vec<&'static [Rule]>> = OnceLock::new();
    BY_INDEX
        .get_or_init(|| {
            schema()
                .map(|s| s.types.iter().map(|t| rules_for(t.name)).collect())
                .unwrap_or_default()
        })
        .get(t.index as usize)
        .copied()
        .unwrap_or(&[])
}

// --- named conditions and computed defaults ---

fn get_in<'a>(obj: &'a Obj, path: &[&str]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let mut cur = obj.get(*first)?;
    for p in rest {
        cur = cur.as_object()?.get(*p)?;
    }
    Some(cur)
}

fn str_at<'a>(obj: &'a Obj, path: &[&str]) -> Option<&'a str> {
    get_in(obj, path)?.as_str()
}

fn is_unset(v: Option<&Value>, zero_is_unset: bool) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(v) if zero_is_unset => match v {
            Value::Number(n) => n.as_f64() == Some(0.0),
            Value::Bool(b) => !*b,
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            _ => false,
        },
        Some(_) => false,
    }
}

fn sts_partition_applies(o: &Obj, _: &Ctx) -> bool {
    str_at(o, &["updateStrategy", "type"]) == Some(RU)
        && matches!(
            get_in(o, &["updateStrategy", "rollingUpdate"]),
            Some(Value::Object(_))
        )
}

fn non_empty_object(v: Option<&Value>) -> Option<Value> {
    match v {
        Some(Value::Object(m)) if !m.is_empty() => Some(Value::Object(m.clone())),
        _ => None,
    }
}

fn rc_template_labels(o: &Obj, _: &Ctx) -> Option<Value> {
    non_empty_object(get_in(o, &["spec", "template", "metadata", "labels"]))
}

fn job_template_labels(o: &Obj, _: &Ctx) -> Option<Value> {
    non_empty_object(get_in(o, &["spec", "template", "metadata", "labels"]))
}

fn job_no_counts(o: &Obj, _: &Ctx) -> bool {
    is_unset(get_in(o, &["spec", "completions"]), false)
        && is_unset(get_in(o, &["spec", "parallelism"]), false)
}

fn job_backoff_limit(o: &Obj, _: &Ctx) -> Option<Value> {
    if is_unset(get_in(o, &["spec", "backoffLimitPerIndex"]), false) {
        Some(Value::from(6))
    } else {
        Some(Value::from(i64::from(i32::MAX)))
    }
}

fn job_pod_replacement_policy(o: &Obj, _: &Ctx) -> Option<Value> {
    if is_unset(get_in(o, &["spec", "podFailurePolicy"]), false) {
        Some(Value::from("TerminatingOrFailed"))
    } else {
        Some(Value::from("Failed"))
    }
}

fn root_is_job(_: &Obj, ctx: &Ctx) -> bool {
    ctx.kind == "Job"
}

/// `parsers.ParseImageName`: the tag, "latest" when neither tag nor digest is given; None when
/// the reference does not parse (the API server then defaults IfNotPresent).
fn image_tag(image: &str) -> Option<String> {
    if image.is_empty() || image.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    if let Some(d) = digest {
        let (alg, hex) = d.split_once(':')?;
        if alg.is_empty() || hex.len() < 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
    }
    let last_slash = name.rfind('/');
    let (repo, tag) = match name.rfind(':') {
        Some(i) if last_slash.is_none_or(|s| i > s) => (&name[..i], Some(&name[i + 1..])),
        _ => (name, None),
    };
    if repo.is_empty() {
        return None;
    }
    // the path after the registry domain must be lowercase
    let remainder = match repo.split_once('/') {
        Some((first, rest))
            if first.contains('.')
                || first.contains(':')
                || first == "localhost"
                || first.to_lowercase() != first =>
        {
            rest
        }
        _ => repo,
    };
    if remainder.is_empty() || remainder.to_lowercase() != remainder {
        return None;
    }
    match tag {
        Some(t) => {
            let ok = !t.is_empty()
                && t.len() <= 128
                && t.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-')
                && !t.starts_with('.')
                && !t.starts_with('-');
            if ok {
                Some(t.to_string())
            } else {
                None
            }
        }
        None if digest.is_none() => Some("latest".to_string()),
        None => Some(String::new()),
    }
}

fn pull_policy_for(image: Option<&str>) -> Value {
    match image.and_then(image_tag) {
        Some(t) if t == "latest" => Value::from("Always"),
        _ => Value::from("IfNotPresent"),
    }
}

fn container_pull_policy(o: &Obj, _: &Ctx) -> Option<Value> {
    Some(pull_policy_for(str_at(o, &["image"])))
}

fn image_volume_pull_policy(o: &Obj, _: &Ctx) -> Option<Value> {
    Some(pull_policy_for(str_at(o, &["image", "reference"])))
}

fn volume_has_no_source(o: &Obj, _: &Ctx) -> bool {
    o.iter().all(|(k, v)| k == "name" || v.is_null())
}

fn service_externally_accessible(o: &Obj, _: &Ctx) -> bool {
    match str_at(o, &["type"]) {
        Some("LoadBalancer" | "NodePort") => true,
        Some("ClusterIP") => {
            matches!(get_in(o, &["externalIPs"]), Some(Value::Array(a)) if !a.is_empty())
        }
        _ => false,
    }
}

fn service_target_port(o: &Obj, _: &Ctx) -> Option<Value> {
    match o.get("port") {
        Some(Value::Number(n)) => Some(Value::Number(n.clone())),
        _ => None,
    }
}

fn namespace_name(o: &Obj, _: &Ctx) -> Option<Value> {
    match str_at(o, &["metadata", "name"]) {
        Some(n) if !n.is_empty() => Some(Value::from(n)),
        _ => None,
    }
}

fn network_policy_types(o: &Obj, _: &Ctx) -> Option<Value> {
    let mut types = vec![Value::from("Ingress")];
    if matches!(o.get("egress"), Some(Value::Array(a)) if !a.is_empty()) {
        types.push(Value::from("Egress"));
    }
    Some(Value::Array(types))
}

fn hpa_defaults_metrics(_: &Obj, ctx: &Ctx) -> bool {
    // autoscaling/v1 has no metrics; v2beta1 defaulted a differently shaped metric
    !matches!(
        ctx.api_version.as_str(),
        "autoscaling/v1" | "autoscaling/v2beta1"
    )
}

fn webhook_is_v1beta1(ctx: &Ctx) -> bool {
    ctx.api_version == "admissionregistration.k8s.io/v1beta1"
}

fn webhook_failure_policy(_: &Obj, ctx: &Ctx) -> Option<Value> {
    Some(Value::from(if webhook_is_v1beta1(ctx) {
        "Ignore"
    } else {
        "Fail"
    }))
}

fn webhook_match_policy(_: &Obj, ctx: &Ctx) -> Option<Value> {
    Some(Value::from(if webhook_is_v1beta1(ctx) {
        "Exact"
    } else {
        "Equivalent"
    }))
}

fn webhook_side_effects(_: &Obj, ctx: &Ctx) -> Option<Value> {
    webhook_is_v1beta1(ctx).then(|| Value::from("Unknown"))
}

fn webhook_timeout(_: &Obj, ctx: &Ctx) -> Option<Value> {
    Some(Value::from(if webhook_is_v1beta1(ctx) { 30 } else { 10 }))
}

fn webhook_review_versions(_: &Obj, ctx: &Ctx) -> Option<Value> {
    webhook_is_v1beta1(ctx).then(|| Value::Array(vec![Value::from("v1beta1")]))
}

fn crd_singular(o: &Obj, _: &Ctx) -> Option<Value> {
    match str_at(o, &["names", "kind"]) {
        Some(k) if !k.is_empty() => Some(Value::from(k.to_lowercase())),
        _ => None,
    }
}

fn crd_list_kind(o: &Obj, _: &Ctx) -> Option<Value> {
    match str_at(o, &["names", "kind"]) {
        Some(k) if !k.is_empty() => Some(Value::from(format!("{k}List"))),
        _ => None,
    }
}

// --- the walker ---

impl When {
    fn holds(&self, o: &Obj, ctx: &Ctx) -> bool {
        match self {
            When::Always => true,
            When::Unset(p) => is_unset(get_in(o, p), false),
            When::IsObject(p) => matches!(get_in(o, p), Some(Value::Object(_))),
            When::Eq(p, s) => str_at(o, p) == Some(*s),
            When::In(p, set) => str_at(o, p).is_some_and(|v| set.contains(&v)),
            When::Test(f) => f(o, ctx),
        }
    }
}

impl Def {
    fn value(&self, o: &Obj, ctx: &Ctx) -> Option<Value> {
        match self {
            Def::Str(s) => Some(Value::from(*s)),
            Def::Int(i) => Some(Value::from(*i)),
            Def::Bool(b) => Some(Value::Bool(*b)),
            Def::EmptyObject => Some(Value::Object(Map::new())),
            Def::Json(j) => serde_json::from_str(j).ok(),
            Def::Fn(f) => f(o, ctx),
        }
    }
}

/// Writes `v` at `path` below `o`, creating missing (or null) parent objects.
fn set_in(o: &mut Obj, path: &[&str], v: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = o;
    for p in parents {
        let slot = cur.entry(p.to_string()).or_insert(Value::Null);
        if slot.is_null() {
            *slot = Value::Object(Map::new());
        }
        match slot {
            Value::Object(m) => cur = m,
            _ => return,
        }
    }
    cur.insert(last.to_string(), v);
}

fn apply_rules(rules: &[Rule], o: &mut Obj, ctx: &Ctx) {
    for rule in rules {
        if !is_unset(get_in(o, rule.at), rule.zero_is_unset) {
            continue;
        }
        // a non-object where a parent object is needed: leave the garbage alone
        if let Some((_, parents)) = rule.at.split_last() {
            let blocked = (1..=parents.len()).any(
                |n| matches!(get_in(o, &parents[..n]), Some(v) if !v.is_object() && !v.is_null()),
            );
            if blocked {
                continue;
            }
        }
        if !rule.when.holds(o, ctx) {
            continue;
        }
        if let Some(v) = rule.def.value(o, ctx) {
            set_in(o, rule.at, v);
        }
    }
}

fn ctx_of(kind: &str, obj: &Value) -> Ctx {
    Ctx {
        api_version: obj
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        kind: kind.to_string(),
    }
}

/// Fill, in place, the fields the Kubernetes API server defaults when they are absent, for
/// built-in kinds (no-op for others). Only adds missing (or null / empty-string) fields, never
/// changes present ones. The rules live in a table per schema type, so every place a type
/// appears (PodSpec in all pod templates, Container, Probe, ServicePort, webhooks...) gets them.
pub fn apply_defaults(group: &str, kind: &str, obj: &mut Value) {
    if let Some(node) = root_node(group, kind) {
        let ctx = ctx_of(kind, obj);
        walk_typed(node, obj, 0, &mut |t, v| {
            if let Value::Object(m) = v {
                apply_rules(rules_of(t), m, &ctx);
            }
            true
        });
    }
}

// --- explaining a value as a default ---

fn get_tokens<'a>(v: &'a Value, tokens: &[String]) -> Option<&'a Value> {
    let mut cur = v;
    for t in tokens {
        cur = match cur {
            Value::Object(m) => m.get(t.as_str())?,
            Value::Array(a) => a.get(array_index(t)?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn array_index(t: &str) -> Option<usize> {
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) || (t.len() > 1 && t.starts_with('0'))
    {
        return None;
    }
    t.parse().ok()
}

/// Removes the value at `tokens` (an object member only); returns whether it was there.
fn remove_tokens(v: &mut Value, tokens: &[String]) -> bool {
    let Some((last, parents)) = tokens.split_last() else {
        return false;
    };
    let mut cur = v;
    for t in parents {
        cur = match cur {
            Value::Object(m) => match m.get_mut(t.as_str()) {
                Some(x) => x,
                None => return false,
            },
            Value::Array(a) => match array_index(t).and_then(|i| a.get_mut(i)) {
                Some(x) => x,
                None => return false,
            },
            _ => return false,
        };
    }
    match cur {
        Value::Object(m) => m.remove(last.as_str()).is_some(),
        _ => false,
    }
}

/// The default the API server would write at `tokens` given the rest of `obj`.
fn default_at(group: &str, kind: &str, obj: &Value, tokens: &[String]) -> Option<Value> {
    let (_, parents) = tokens.split_last()?;
    // positions of list items shift when removed; their list is explained as a whole instead
    if matches!(get_tokens(obj, parents), Some(Value::Array(_))) {
        return None;
    }
    let mut probe = obj.clone();
    remove_tokens(&mut probe, tokens);
    // Job: completions and parallelism are defaulted together when both are unset
    if root(group, kind).map(|c| c.type_name()) == Some("io.k8s.api.batch.v1.Job")
        && tokens.len() == 2
        && tokens[0] == "spec"
        && tokens[1] == "completions"
        && get_tokens(&probe, &["spec".to_string(), "parallelism".to_string()])
            == Some(&Value::from(1))
    {
        remove_tokens(&mut probe, &["spec".to_string(), "parallelism".to_string()]);
    }
    apply_defaults(group, kind, &mut probe);
    get_tokens(&probe, tokens).cloned()
}

/// Whether a field at this JSON pointer (RFC 6901, list indices numeric) of this kind is one
/// apply_defaults can fill, and the default it would write given the object (None if not a
/// defaulted field). `obj` is the live object (for conditional defaults such as
/// imagePullPolicy). A position inside a defaulted object or list (e.g. `/spec/strategy/type`,
/// `/spec/metrics/0/resource/name`) is answered from the default of its nearest defaulted
/// ancestor.
pub fn default_for(group: &str, kind: &str, obj: &Value, pointer: &str) -> Option<Value> {
    root_node(group, kind)?;
    let tokens = crate::path::pointer_tokens(pointer)?;
    if tokens.is_empty() || tokens.len() > MAX_DEPTH {
        return None;
    }
    if let Some(dv) = default_at(group, kind, obj, &tokens) {
        return Some(dv);
    }
    // An ancestor counts only when its whole live value is exactly its default.
    for n in (1..tokens.len()).rev() {
        let prefix = &tokens[..n];
        match default_at(group, kind, obj, prefix) {
            Some(dv) if get_tokens(obj, prefix) == Some(&dv) => {
                return get_tokens(&dv, &tokens[n..]).cloned()
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests;
