//! The usual shape of common Kubernetes kinds, used to guess the parents of lines that a diff hunk
//! shows without their ancestors (plain `diff` output has no context at all).
//!
//! The table is data: each line names a node (dotted path, `[]` for "an item of this list") and the
//! keys its children usually have. `*` marks a free-form map (labels, annotations, data); `*text`
//! one whose values are often multi-line text; `~prefix` words are key prefixes that make the guess
//! likelier. `[name]` starts a fragment or kind section, `+fragment prefix` includes a fragment.

use std::collections::HashMap;
use std::sync::OnceLock;

const TABLE: &str = r#"
[common]
metadata: annotations creationTimestamp deletionGracePeriodSeconds deletionTimestamp finalizers generateName generation labels managedFields name namespace ownerReferences resourceVersion selfLink uid
metadata.annotations: *text ~argocd.argoproj.io/ ~kubectl.kubernetes.io/ ~deployment.kubernetes.io/ ~meta.helm.sh/ ~checksum/ ~prometheus.io/ ~reloader.stakater.com/ ~configmap.reloader ~secret.reloader ~sidecar.istio.io/ ~cert-manager.io/ ~kubernetes.io/ ~autoscaling.alpha ~field.cattle.io/ ~linkerd.io/ ~vault.hashicorp.com/ ~helm.sh/hook ~argocd-image-updater
metadata.labels: * ~app ~app.kubernetes.io/ ~helm.sh/chart ~release ~heritage ~chart ~component ~tier ~version ~environment ~argocd.argoproj.io/instance ~kubernetes.io/ ~pod-template-hash ~controller-uid ~job-name
metadata.ownerReferences[]: apiVersion blockOwnerDeletion controller kind name uid
metadata.managedFields[]: apiVersion fieldsType fieldsV1 manager operation subresource time
metadata.managedFields[].fieldsV1: * ~f: ~k: ~v: ~i: ~.
status: availableReplicas collisionCount conditions currentReplicas currentRevision loadBalancer numberAvailable numberMisscheduled numberReady numberUnavailable observedGeneration phase readyReplicas replicas updateRevision updatedNumberScheduled updatedReplicas unavailableReplicas desiredNumberScheduled currentNumberScheduled active succeeded failed startTime completionTime lastScheduleTime health sync
status.conditions[]: lastProbeTime lastTransitionTime lastUpdateTime message reason status type

[podtemplate]
: metadata spec
metadata: annotations creationTimestamp labels name namespace
metadata.annotations: *text ~kubectl.kubernetes.io/restartedAt ~checksum/ ~prometheus.io/ ~sidecar.istio.io/ ~vault.hashicorp.com/ ~linkerd.io/ ~cluster-autoscaler.kubernetes.io/
metadata.labels: * ~app ~app.kubernetes.io/ ~version ~release ~component ~tier

[pod]
: activeDeadlineSeconds affinity automountServiceAccountToken containers dnsConfig dnsPolicy enableServiceLinks ephemeralContainers hostAliases hostIPC hostNetwork hostPID hostUsers hostname imagePullSecrets initContainers nodeName nodeSelector os overhead preemptionPolicy priority priorityClassName readinessGates resourceClaims restartPolicy runtimeClassName schedulerName schedulingGates securityContext serviceAccount serviceAccountName setHostnameAsFQDN shareProcessNamespace subdomain terminationGracePeriodSeconds tolerations topologySpreadConstraints volumes
containers[]: args command env envFrom image imagePullPolicy lifecycle livenessProbe name ports readinessProbe resizePolicy resources restartPolicy securityContext startupProbe stdin stdinOnce terminationMessagePath terminationMessagePolicy tty volumeDevices volumeMounts workingDir
+container containers[]
initContainers[]: args command env envFrom image imagePullPolicy lifecycle livenessProbe name ports readinessProbe resizePolicy resources restartPolicy securityContext startupProbe stdin stdinOnce terminationMessagePath terminationMessagePolicy tty volumeDevices volumeMounts workingDir
+container initContainers[]
ephemeralContainers[]: args command env image imagePullPolicy name resources securityContext targetContainerName volumeMounts
securityContext: appArmorProfile fsGroup fsGroupChangePolicy runAsGroup runAsNonRoot runAsUser seLinuxOptions seccompProfile supplementalGroups supplementalGroupsPolicy sysctls windowsOptions
securityContext.seccompProfile: localhostProfile type
nodeSelector: * ~kubernetes.io/ ~node-role.kubernetes.io/ ~node.kubernetes.io/ ~topology.kubernetes.io/
tolerations[]: effect key operator tolerationSeconds value
imagePullSecrets[]: name
hostAliases[]: hostnames ip
dnsConfig: nameservers options searches
affinity: nodeAffinity podAffinity podAntiAffinity
affinity.nodeAffinity: preferredDuringSchedulingIgnoredDuringExecution requiredDuringSchedulingIgnoredDuringExecution
affinity.podAntiAffinity: preferredDuringSchedulingIgnoredDuringExecution requiredDuringSchedulingIgnoredDuringExecution
affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[]: podAffinityTerm weight
affinity.podAffinity: preferredDuringSchedulingIgnoredDuringExecution requiredDuringSchedulingIgnoredDuringExecution
topologySpreadConstraints[]: labelSelector matchLabelKeys maxSkew minDomains nodeAffinityPolicy nodeTaintsPolicy topologyKey whenUnsatisfiable
volumes[]: awsElasticBlockStore azureDisk azureFile cephfs cinder configMap csi downwardAPI emptyDir ephemeral fc flexVolume flocker gcePersistentDisk gitRepo glusterfs hostPath image iscsi name nfs persistentVolumeClaim photonPersistentDisk portworxVolume projected quobyte rbd scaleIO secret storageos vsphereVolume
volumes[].configMap: defaultMode items name optional
volumes[].configMap.items[]: key mode path
volumes[].secret: defaultMode items optional secretName
volumes[].secret.items[]: key mode path
volumes[].persistentVolumeClaim: claimName readOnly
volumes[].emptyDir: medium sizeLimit
volumes[].hostPath: path type
volumes[].projected: defaultMode sources
volumes[].projected.sources[]: clusterTrustBundle configMap downwardAPI secret serviceAccountToken
volumes[].csi: driver fsType nodePublishSecretRef readOnly volumeAttributes
volumes[].downwardAPI: defaultMode items

[container]
env[]: name value valueFrom
env[].valueFrom: configMapKeyRef fieldRef resourceFieldRef secretKeyRef
env[].valueFrom.secretKeyRef: key name optional
env[].valueFrom.configMapKeyRef: key name optional
env[].valueFrom.fieldRef: apiVersion fieldPath
env[].valueFrom.resourceFieldRef: containerName divisor resource
envFrom[]: configMapRef prefix secretRef
envFrom[].configMapRef: name optional
envFrom[].secretRef: name optional
ports[]: containerPort hostIP hostPort name protocol
volumeMounts[]: mountPath mountPropagation name readOnly recursiveReadOnly subPath subPathExpr
volumeDevices[]: devicePath name
resources: claims limits requests
resources.limits: * ~cpu ~memory ~ephemeral-storage ~nvidia.com/gpu ~hugepages-
resources.requests: * ~cpu ~memory ~ephemeral-storage ~nvidia.com/gpu ~hugepages-
securityContext: allowPrivilegeEscalation appArmorProfile capabilities privileged procMount readOnlyRootFilesystem runAsGroup runAsNonRoot runAsUser seLinuxOptions seccompProfile windowsOptions
securityContext.capabilities: add drop
securityContext.seccompProfile: localhostProfile type
lifecycle: postStart preStop
lifecycle.preStop: exec httpGet sleep tcpSocket
livenessProbe: exec failureThreshold grpc httpGet initialDelaySeconds periodSeconds successThreshold tcpSocket terminationGracePeriodSeconds timeoutSeconds
livenessProbe.httpGet: host httpHeaders path port scheme
livenessProbe.tcpSocket: host port
livenessProbe.exec: command
readinessProbe: exec failureThreshold grpc httpGet initialDelaySeconds periodSeconds successThreshold tcpSocket terminationGracePeriodSeconds timeoutSeconds
readinessProbe.httpGet: host httpHeaders path port scheme
readinessProbe.tcpSocket: host port
readinessProbe.exec: command
startupProbe: exec failureThreshold grpc httpGet initialDelaySeconds periodSeconds successThreshold tcpSocket terminationGracePeriodSeconds timeoutSeconds
startupProbe.httpGet: host httpHeaders path port scheme
startupProbe.tcpSocket: host port

[selector]
: matchExpressions matchLabels
matchLabels: * ~app ~app.kubernetes.io/ ~component ~release
matchExpressions[]: key operator values

[kind Deployment]
spec: minReadySeconds paused progressDeadlineSeconds replicas revisionHistoryLimit selector strategy template
+selector spec.selector
spec.strategy: rollingUpdate type
spec.strategy.rollingUpdate: maxSurge maxUnavailable
+podtemplate spec.template
+pod spec.template.spec

[kind StatefulSet]
spec: minReadySeconds ordinals persistentVolumeClaimRetentionPolicy podManagementPolicy replicas revisionHistoryLimit selector serviceName template updateStrategy volumeClaimTemplates
+selector spec.selector
spec.updateStrategy: rollingUpdate type
spec.updateStrategy.rollingUpdate: maxUnavailable partition
spec.persistentVolumeClaimRetentionPolicy: whenDeleted whenScaled
spec.volumeClaimTemplates[]: apiVersion kind metadata spec status
spec.volumeClaimTemplates[].metadata: annotations creationTimestamp labels name namespace
spec.volumeClaimTemplates[].spec: accessModes dataSource dataSourceRef resources selector storageClassName volumeAttributesClassName volumeMode volumeName
spec.volumeClaimTemplates[].spec.resources: limits requests
+podtemplate spec.template
+pod spec.template.spec

[kind DaemonSet]
spec: minReadySeconds revisionHistoryLimit selector template updateStrategy
+selector spec.selector
spec.updateStrategy: rollingUpdate type
spec.updateStrategy.rollingUpdate: maxSurge maxUnavailable
+podtemplate spec.template
+pod spec.template.spec

[kind ReplicaSet]
spec: minReadySeconds replicas selector template
+selector spec.selector
+podtemplate spec.template
+pod spec.template.spec

[kind Rollout]
spec: analysis minReadySeconds paused progressDeadlineAbort progressDeadlineSeconds replicas restartAt revisionHistoryLimit rollbackWindow selector strategy template workloadRef
+selector spec.selector
spec.strategy: blueGreen canary
spec.strategy.canary: analysis antiAffinity canaryMetadata canaryService dynamicStableScale maxSurge maxUnavailable stableMetadata stableService steps trafficRouting
spec.strategy.blueGreen: activeService autoPromotionEnabled autoPromotionSeconds previewService scaleDownDelaySeconds
+podtemplate spec.template
+pod spec.template.spec

[kind Job]
spec: activeDeadlineSeconds backoffLimit backoffLimitPerIndex completionMode completions managedBy manualSelector maxFailedIndexes parallelism podFailurePolicy podReplacementPolicy selector successPolicy suspend template ttlSecondsAfterFinished
+selector spec.selector
+podtemplate spec.template
+pod spec.template.spec

[kind CronJob]
spec: concurrencyPolicy failedJobsHistoryLimit jobTemplate schedule startingDeadlineSeconds successfulJobsHistoryLimit suspend timeZone
spec.jobTemplate: metadata spec
spec.jobTemplate.spec: activeDeadlineSeconds backoffLimit completionMode completions manualSelector parallelism podFailurePolicy selector suspend template ttlSecondsAfterFinished
+podtemplate spec.jobTemplate.spec.template
+pod spec.jobTemplate.spec.template.spec

[kind Pod]
+pod spec

[kind PodTemplate]
+podtemplate template
+pod template.spec

[kind Service]
spec: allocateLoadBalancerNodePorts clusterIP clusterIPs externalIPs externalName externalTrafficPolicy healthCheckNodePort internalTrafficPolicy ipFamilies ipFamilyPolicy loadBalancerClass loadBalancerIP loadBalancerSourceRanges ports publishNotReadyAddresses selector sessionAffinity sessionAffinityConfig trafficDistribution type
spec.ports[]: appProtocol name nodePort port protocol targetPort
spec.selector: * ~app ~app.kubernetes.io/ ~component ~release
status.loadBalancer: ingress

[kind ConfigMap]
data: *text
binaryData: *

[kind Secret]
data: *
stringData: *text

[kind ServiceAccount]
imagePullSecrets[]: name
secrets[]: name namespace

[kind Ingress]
spec: defaultBackend ingressClassName rules tls
spec.rules[]: host http
spec.rules[].http: paths
spec.rules[].http.paths[]: backend path pathType
spec.rules[].http.paths[].backend: resource service
spec.rules[].http.paths[].backend.service: name port
spec.rules[].http.paths[].backend.service.port: name number
spec.tls[]: hosts secretName

[kind HorizontalPodAutoscaler]
spec: behavior maxReplicas metrics minReplicas scaleTargetRef targetCPUUtilizationPercentage
spec.scaleTargetRef: apiVersion kind name
spec.metrics[]: containerResource external object pods resource type
spec.metrics[].resource: name target
spec.metrics[].resource.target: averageUtilization averageValue type value
spec.metrics[].containerResource: container name target
spec.metrics[].containerResource.target: averageUtilization averageValue type value
spec.metrics[].pods: metric target
spec.metrics[].external: metric target
spec.metrics[].object: describedObject metric target
spec.behavior: scaleDown scaleUp
spec.behavior.scaleDown: policies selectPolicy stabilizationWindowSeconds
spec.behavior.scaleUp: policies selectPolicy stabilizationWindowSeconds

[kind PersistentVolumeClaim]
spec: accessModes dataSource dataSourceRef resources selector storageClassName volumeAttributesClassName volumeMode volumeName
spec.resources: limits requests
spec.resources.requests: * ~storage

[kind PodDisruptionBudget]
spec: maxUnavailable minAvailable selector unhealthyPodEvictionPolicy
+selector spec.selector

[kind NetworkPolicy]
spec: egress ingress podSelector policyTypes
+selector spec.podSelector
spec.ingress[]: from ports
spec.egress[]: ports to

[kind Role]
rules[]: apiGroups nonResourceURLs resourceNames resources verbs

[kind ClusterRole]
aggregationRule: clusterRoleSelectors
rules[]: apiGroups nonResourceURLs resourceNames resources verbs

[kind RoleBinding]
roleRef: apiGroup kind name
subjects[]: apiGroup kind name namespace

[kind ClusterRoleBinding]
roleRef: apiGroup kind name
subjects[]: apiGroup kind name namespace

[kind MutatingWebhookConfiguration]
webhooks[]: admissionReviewVersions clientConfig failurePolicy matchConditions matchPolicy name namespaceSelector objectSelector reinvocationPolicy rules sideEffects timeoutSeconds
webhooks[].clientConfig: caBundle service url
webhooks[].clientConfig.service: name namespace path port
webhooks[].rules[]: apiGroups apiVersions operations resources scope

[kind ValidatingWebhookConfiguration]
webhooks[]: admissionReviewVersions clientConfig failurePolicy matchConditions matchPolicy name namespaceSelector objectSelector rules sideEffects timeoutSeconds
webhooks[].clientConfig: caBundle service url
webhooks[].clientConfig.service: name namespace path port
webhooks[].rules[]: apiGroups apiVersions operations resources scope

[kind APIService]
spec: caBundle group groupPriorityMinimum insecureSkipTLSVerify service version versionPriority
spec.service: name namespace port

[kind CustomResourceDefinition]
spec: conversion group names preserveUnknownFields scope versions
spec.conversion: strategy webhook
spec.conversion.webhook: clientConfig conversionReviewVersions
spec.conversion.webhook.clientConfig: caBundle service url
spec.names: categories kind listKind plural shortNames singular
spec.versions[]: additionalPrinterColumns deprecated deprecationWarning name schema selectableFields served storage subresources

[kind ClusterPolicy]
spec: admission applyRules background emitWarning failurePolicy generateExisting mutateExistingOnPolicyUpdate rules schemaValidation useServerSideApply validationFailureAction validationFailureActionOverrides webhookConfiguration webhookTimeoutSeconds
spec.rules[]: celPreconditions context exclude generate imageExtractors match mutate name preconditions skipBackgroundRequests validate verifyImages
spec.rules[].match: all any resources subjects roles clusterRoles
spec.rules[].validate: allowExistingViolations anyPattern cel deny failureAction foreach manifests message pattern podSecurity

[kind Policy]
spec: admission applyRules background emitWarning failurePolicy generateExisting mutateExistingOnPolicyUpdate rules schemaValidation useServerSideApply validationFailureAction validationFailureActionOverrides webhookConfiguration webhookTimeoutSeconds
spec.rules[]: celPreconditions context exclude generate imageExtractors match mutate name preconditions skipBackgroundRequests validate verifyImages
spec.rules[].match: all any resources subjects roles clusterRoles
spec.rules[].validate: allowExistingViolations anyPattern cel deny failureAction foreach manifests message pattern podSecurity

[kind Namespace]
spec: finalizers

[kind Application]
spec: destination ignoreDifferences info project revisionHistoryLimit source sourceHydrator sources syncPolicy
spec.destination: name namespace server
spec.source: chart directory helm kustomize path plugin ref repoURL targetRevision
spec.sources[]: chart directory helm kustomize name path plugin ref repoURL targetRevision
spec.syncPolicy: automated managedNamespaceMetadata retry syncOptions
spec.syncPolicy.automated: allowEmpty enabled prune selfHeal
spec.syncPolicy.retry: backoff limit
spec.syncPolicy.retry.backoff: duration factor maxDuration
spec.ignoreDifferences[]: group jqPathExpressions jsonPointers kind managedFieldsManagers name namespace

[kind ~crossplane-managed-resource]
spec: deletionPolicy forProvider initProvider managementPolicies providerConfigRef publishConnectionDetailsTo writeConnectionSecretToRef
spec.forProvider: *
spec.initProvider: *
spec.providerConfigRef: name policy
spec.writeConnectionSecretToRef: name namespace
"#;

/// What the children of a node usually are.
#[derive(Debug)]
pub(crate) enum Hints {
    /// The keys such a node has (sorted).
    Closed(Vec<&'static str>),
    /// A free-form map: `likely` key prefixes, `text` when values are often multi-line.
    Any {
        likely: Vec<&'static str>,
        text: bool,
    },
}

#[derive(Debug)]
pub(crate) struct Node {
    /// Child nodes by key, sorted by key.
    pub(crate) keys: Vec<(&'static str, usize)>,
    /// The node for items when this node is a list.
    pub(crate) item: Option<usize>,
    pub(crate) parent: Option<usize>,
    /// Key of this node in its parent (`None` for the root and list items).
    pub(crate) name: Option<&'static str>,
    pub(crate) hints: Option<Hints>,
    /// Column where this node's children are written (2 per key level).
    pub(crate) child_col: usize,
    pub(crate) is_item: bool,
    /// Under `/status` (Argo CD never shows those).
    pub(crate) in_status: bool,
}

/// The shape of one kind: a tree of nodes, node 0 the object root.
#[derive(Debug)]
pub(crate) struct Shape {
    pub(crate) nodes: Vec<Node>,
    /// Nodes with hints, in the table's order of preference.
    pub(crate) declared: Vec<usize>,
    /// Declared nodes by the column of their children (index = column / 2), in declaration order.
    pub(crate) by_child_col: Vec<Vec<usize>>,
    /// Declared nodes whose values are often multi-line text.
    pub(crate) text_nodes: Vec<usize>,
}

impl Shape {
    /// Declared nodes whose children are written at column `col`.
    pub(crate) fn at_child_col(&self, col: usize) -> &[usize] {
        if col % 2 != 0 {
            return &[];
        }
        self.by_child_col
            .get(col / 2)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    fn index(&mut self) {
        self.by_child_col.clear();
        self.text_nodes.clear();
        for &n in &self.declared {
            let node = &self.nodes[n];
            let slot = node.child_col / 2;
            if self.by_child_col.len() <= slot {
                self.by_child_col.resize_with(slot + 1, Vec::new);
            }
            self.by_child_col[slot].push(n);
            if matches!(node.hints, Some(Hints::Any { text: true, .. })) {
                self.text_nodes.push(n);
            }
        }
    }

    pub(crate) fn child(&self, node: usize, key: &str) -> Option<usize> {
        let keys = &self.nodes.get(node)?.keys;
        keys.binary_search_by(|(k, _)| (*k).cmp(key))
            .ok()
            .map(|i| keys[i].1)
    }

    pub(crate) fn item(&self, node: usize) -> Option<usize> {
        self.nodes.get(node)?.item
    }

    pub(crate) fn hints(&self, node: usize) -> Option<&Hints> {
        self.nodes.get(node)?.hints.as_ref()
    }

    /// The path of a node, root first: `Some(key)` for keys, `None` for list items.
    pub(crate) fn path(&self, node: usize) -> Vec<Option<&'static str>> {
        let mut out = Vec::new();
        let mut cur = Some(node);
        while let Some(n) = cur {
            let Some(nd) = self.nodes.get(n) else { break };
            if nd.parent.is_none() {
                break;
            }
            out.push(if nd.is_item { None } else { nd.name });
            cur = nd.parent;
        }
        out.reverse();
        out
    }

    fn ensure(&mut self, parts: &[&'static str]) -> usize {
        let mut cur = 0usize;
        for part in parts
            .iter()
            .flat_map(|p| p.split('.'))
            .filter(|p| !p.is_empty())
        {
            let (name, items) = match part.strip_suffix("[]") {
                Some(n) => (n, true),
                None => (part, false),
            };
            cur = self.ensure_key(cur, name);
            if items {
                cur = self.ensure_item(cur);
            }
        }
        cur
    }

    fn ensure_key(&mut self, parent: usize, name: &'static str) -> usize {
        if let Some(n) = self.child(parent, name) {
            return n;
        }
        let child_col = self.nodes[parent].child_col + 2;
        let in_status = self.nodes[parent].in_status || (parent == 0 && name == "status");
        self.nodes.push(Node {
            keys: Vec::new(),
            item: None,
            parent: Some(parent),
            name: Some(name),
            hints: None,
            child_col,
            is_item: false,
            in_status,
        });
        let id = self.nodes.len() - 1;
        let keys = &mut self.nodes[parent].keys;
        let at = keys.partition_point(|(k, _)| *k < name);
        keys.insert(at, (name, id));
        id
    }

    fn ensure_item(&mut self, parent: usize) -> usize {
        if let Some(n) = self.nodes[parent].item {
            return n;
        }
        let child_col = self.nodes[parent].child_col;
        let in_status = self.nodes[parent].in_status;
        self.nodes.push(Node {
            keys: Vec::new(),
            item: None,
            parent: Some(parent),
            name: None,
            hints: None,
            child_col,
            is_item: true,
            in_status,
        });
        let id = self.nodes.len() - 1;
        self.nodes[parent].item = Some(id);
        id
    }
}

enum Entry {
    /// `pattern: hints`
    Node(&'static str, &'static str),
    /// `+fragment prefix`
    Include(&'static str, &'static str),
}

type Section = Vec<Entry>;
/// Fragments by name, and kind sections with the kinds they describe.
type Sections = (
    HashMap<&'static str, Section>,
    Vec<(Vec<&'static str>, Section)>,
);

fn sections() -> Sections {
    let mut fragments: HashMap<&'static str, Section> = HashMap::new();
    let mut kinds: Vec<(Vec<&'static str>, Section)> = Vec::new();
    // (is a kind section, names, entries)
    let mut current: Option<(bool, Vec<&'static str>, Section)> = None;
    fn flush(
        cur: Option<(bool, Vec<&'static str>, Section)>,
        fragments: &mut HashMap<&'static str, Section>,
        kinds: &mut Vec<(Vec<&'static str>, Section)>,
    ) {
        if let Some((is_kind, names, entries)) = cur {
            if is_kind {
                kinds.push((names, entries));
            } else if let Some(n) = names.first() {
                fragments.insert(n, entries);
            }
        }
    }
    for line in TABLE.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(head) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            flush(current.take(), &mut fragments, &mut kinds);
            let mut words = head.split_whitespace();
            let first = words.next().unwrap_or("");
            current = if first == "kind" {
                Some((true, words.collect(), Vec::new()))
            } else {
                Some((false, vec![first], Vec::new()))
            };
            continue;
        }
        let Some((_, _, entries)) = current.as_mut() else {
            continue;
        };
        if let Some(inc) = line.strip_prefix('+') {
            let (frag, prefix) = inc.split_once(' ').unwrap_or((inc, ""));
            entries.push(Entry::Include(frag, prefix.trim()));
        } else if let Some((pattern, hints)) = line.split_once(':') {
            entries.push(Entry::Node(pattern.trim(), hints.trim()));
        }
    }
    flush(current.take(), &mut fragments, &mut kinds);
    (fragments, kinds)
}

fn apply(
    shape: &mut Shape,
    fragments: &HashMap<&'static str, Section>,
    section: &Section,
    prefix: &[&'static str],
    depth: usize,
) {
    for entry in section {
        match entry {
            Entry::Include(frag, at) => {
                if let (Some(entries), true) = (fragments.get(frag), depth < 4) {
                    let mut inner = prefix.to_vec();
                    inner.push(at);
                    apply(shape, fragments, entries, &inner, depth + 1);
                }
            }
            Entry::Node(pattern, hints) => {
                let mut parts = prefix.to_vec();
                parts.push(pattern);
                let node = shape.ensure(&parts);
                let words: Vec<&'static str> = hints.split_whitespace().collect();
                let parsed = if words.first().is_some_and(|w| w.starts_with('*')) {
                    Hints::Any {
                        likely: words.iter().filter_map(|w| w.strip_prefix('~')).collect(),
                        text: words.first() == Some(&"*text"),
                    }
                } else {
                    let mut words = words;
                    crate::sorting::sort(&mut words);
                    Hints::Closed(words)
                };
                if shape.nodes[node].hints.is_none() {
                    shape.declared.push(node);
                }
                shape.nodes[node].hints = Some(parsed);
            }
        }
    }
}

fn new_shape() -> Shape {
    Shape {
        nodes: vec![Node {
            keys: Vec::new(),
            item: None,
            parent: None,
            name: None,
            hints: None,
            child_col: 0,
            is_item: false,
            in_status: false,
        }],
        declared: Vec::new(),
        by_child_col: Vec::new(),
        text_nodes: Vec::new(),
    }
}

struct Shapes {
    by_kind: HashMap<&'static str, Shape>,
    generic: Shape,
}

fn shapes() -> &'static Shapes {
    static SHAPES: OnceLock<Shapes> = OnceLock::new();
    SHAPES.get_or_init(|| {
        let (fragments, kinds) = sections();
        let empty = Vec::new();
        let common = fragments.get("common").unwrap_or(&empty);
        let mut by_kind = HashMap::new();
        for (names, section) in &kinds {
            for name in names {
                let mut shape = new_shape();
                apply(&mut shape, &fragments, section, &[], 0);
                apply(&mut shape, &fragments, common, &[], 0);
                shape.index();
                by_kind.insert(*name, shape);
            }
        }
        let mut generic = new_shape();
        apply(&mut generic, &fragments, common, &[], 0);
        // Unknown kinds (custom resources): a free-form spec.
        let spec = generic.ensure(&["spec"]);
        generic.nodes[spec].hints = Some(Hints::Any {
            likely: Vec::new(),
            text: false,
        });
        generic.declared.push(spec);
        generic.index();
        Shapes { by_kind, generic }
    })
}

/// The shape for a kind (the common part only for kinds the table does not know).
pub(crate) fn shape_for(kind: &str) -> &'static Shape {
    let s = shapes();
    s.by_kind.get(kind).unwrap_or(&s.generic)
}

/// The shape for a resource: a Crossplane managed resource's, by the API
/// groups Crossplane providers serve them from (every managed resource keeps
/// its settings in `spec.forProvider`), else the kind's.
pub(crate) fn shape_for_resource(group: &str, kind: &str) -> &'static Shape {
    let provider_group = [".upbound.io", ".crossplane.io", ".crossplane-contrib.io"]
        .iter()
        .any(|suffix| group.ends_with(suffix));
    // Crossplane's own kinds (compositions, packages) are no managed resources.
    let own = [
        "apiextensions.crossplane.io",
        "pkg.crossplane.io",
        "ops.crossplane.io",
    ]
    .contains(&group);
    if provider_group && !own {
        if let Some(shape) = shapes().by_kind.get("~crossplane-managed-resource") {
            return shape;
        }
    }
    shape_for(kind)
}
