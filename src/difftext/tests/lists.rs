//! Lists whose key the hunk does not show: where their items go, and what
//! stays unplaced.

use super::*;
use serde_json::json;

/// sigs.k8s.io/yaml writes the items of `webhooks:` at column 0; the hunk starts below the key.
fn webhooks_below_the_key() -> String {
    lines(&[
        "===== admissionregistration.k8s.io/MutatingWebhookConfiguration /payments-webhook ======",
        "--- /tmp/argocd-diff1/payments-webhook-live.yaml",
        "+++ /tmp/argocd-diff1/payments-webhook",
        "@@ -15,7 +15,7 @@",
        " - admissionReviewVersions:",
        "   - v1",
        "   clientConfig:",
        "-    caBundle: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMvRENDQWVTZ0F3SUJBZ0lSQUw0YQ==",
        "+    caBundle: ''",
        "     service:",
        "       name: payments-webhook",
        "       namespace: payments",
    ])
}

/// Plain diff: the item's keys or its deeper lines name the list.
fn webhooks_in_plain_diff() -> String {
    lines(&[
        "===== admissionregistration.k8s.io/ValidatingWebhookConfiguration /v ======",
        "17c17",
        "<     caBundle: abc",
        "---",
        ">     caBundle: ''",
        "30a31,33",
        "> - admissionReviewVersions:",
        ">   - v1",
        ">   name: b.example.com",
    ])
}

/// A verb added to a rule whose list the hunk shows.
const VERB_ADDED: &[&str] = &[
    "===== rbac.authorization.k8s.io/ClusterRole /view-extra ======",
    "@@ -8,6 +8,7 @@",
    " - apiGroups:",
    "   - \"\"",
    "   resources:",
    "   - pods",
    "   verbs:",
    "   - get",
    "+  - list",
];

/// A later hunk in the same list: the previous hunk named it.
fn verbs_in_two_hunks() -> String {
    let later = [
        "@@ -20,2 +21,3 @@",
        "   - watch",
        "   - update",
        "+  - patch",
    ];
    lines(&[VERB_ADDED, &later].concat())
}

/// A kind the table does not know: the list stays unnamed rather than the object being a list.
fn unknown_kind() -> String {
    lines(&[
        "===== example.com/Widget ns/w ======",
        "@@ -20,2 +20,2 @@",
        " - name: a",
        "-  size: 1",
        "+  size: 2",
    ])
}

/// A changed merge key is another item: one change holding both.
fn changed_merge_key() -> String {
    lines(&[
        "===== apps/Deployment default/web ======",
        "50,51c50,51",
        "<         - name: OLD",
        "<           value: a",
        "---",
        ">         - name: NEW",
        ">           value: b",
    ])
}

#[test]
fn list_items_read_into_these_changes() {
    assert_summaries(&[
        (
            "webhooks below their key",
            webhooks_below_the_key(),
            &[
                "admissionregistration.k8s.io/MutatingWebhookConfiguration /payments-webhook ArgoUnified Both",
                "  ? /webhooks/0/clientConfig/caBundle \"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMvRENDQWVTZ0F3SUJBZ0lSQUw0YQ==\" -> \"\"",
            ],
        ),
        (
            // When the hunk shows the list's key, the index is known and nothing is guessed.
            "webhooks with their key",
            lines(&[
                "===== admissionregistration.k8s.io/MutatingWebhookConfiguration /payments-webhook ======",
                "@@ -12,6 +12,6 @@",
                " webhooks:",
                " - admissionReviewVersions:",
                "   - v1",
                "   clientConfig:",
                "-    caBundle: abc",
                "+    caBundle: ''",
                "     service:",
            ]),
            &[
                "admissionregistration.k8s.io/MutatingWebhookConfiguration /payments-webhook ArgoUnified Both",
                "  ! /webhooks/0/clientConfig/caBundle \"abc\" -> \"\"",
            ],
        ),
        (
            "webhooks in plain diff",
            webhooks_in_plain_diff(),
            &[
                "admissionregistration.k8s.io/ValidatingWebhookConfiguration /v ArgoNormal Both",
                "  ? /webhooks/0/clientConfig/caBundle \"abc\" -> \"\"",
                "  ? /webhooks/1[name=\"b.example.com\"] - -> {..}",
            ],
        ),
        (
            "a verb added to a rule",
            lines(VERB_ADDED),
            &[
                "rbac.authorization.k8s.io/ClusterRole /view-extra ArgoUnified Both",
                "  ? /rules/0/verbs/1 - -> \"list\"",
            ],
        ),
        (
            "an added rule",
            lines(&[
                "===== rbac.authorization.k8s.io/Role ns/r ======",
                "12a13,16",
                "> - apiGroups:",
                ">   - apps",
                ">   resources:",
                ">   - deployments",
            ]),
            &[
                "rbac.authorization.k8s.io/Role ns/r ArgoNormal Both",
                "  ? /rules/0 - -> {..}",
            ],
        ),
        (
            // The hunk starts inside a rule, at the items of one of its lists.
            "inside a rule",
            lines(&[
                "===== rbac.authorization.k8s.io/ClusterRole /monitoring-view ======",
                "@@ -18,9 +18,7 @@",
                "   - monitoring.coreos.com",
                "   resources:",
                "   - prometheuses",
                "-  - alertmanagers",
                "   - servicemonitors",
                "   verbs:",
                "   - get",
                "   - list",
                "-  - watch",
            ]),
            &[
                "rbac.authorization.k8s.io/ClusterRole /monitoring-view ArgoUnified Both",
                "  ? /rules/0/resources/1 \"alertmanagers\" -> -",
                "  ? /rules/0/verbs/2 \"watch\" -> -",
            ],
        ),
        (
            "two hunks of one list",
            verbs_in_two_hunks(),
            &[
                "rbac.authorization.k8s.io/ClusterRole /view-extra ArgoUnified Both",
                "  ? /rules/0/verbs/1 - -> \"list\"",
                "  ? /rules/0/verbs/4 - -> \"patch\"",
            ],
        ),
        (
            "a subject renamed",
            lines(&[
                "===== rbac.authorization.k8s.io/RoleBinding ns/rb ======",
                "@@ -12,3 +12,3 @@",
                " - kind: ServiceAccount",
                "-  name: old",
                "+  name: new",
                "   namespace: ns",
            ]),
            &[
                "rbac.authorization.k8s.io/RoleBinding ns/rb ArgoUnified Both",
                "  ? /subjects/0[name=\"old\"]/name \"old\" -> \"new\"",
            ],
        ),
        (
            "a subject removed",
            lines(&[
                "===== rbac.authorization.k8s.io/ClusterRoleBinding /crb ======",
                "14,16d13",
                "< - kind: ServiceAccount",
                "<   name: old",
                "<   namespace: ns",
            ]),
            &[
                "rbac.authorization.k8s.io/ClusterRoleBinding /crb ArgoNormal Both",
                "  ? /subjects/0[name=\"old\"] {..} -> -",
            ],
        ),
        (
            // Its place is unknown: it stays on the whole object.
            "a kind the table does not know",
            unknown_kind(),
            &["example.com/Widget ns/w ArgoUnified Both", "  ? / 1 -> 2"],
        ),
        (
            // `- get` at two spaces in a ClusterRole is in `rules[].verbs` (or another list of the
            // rule), not in `metadata.ownerReferences`, whose items are maps. The key is not
            // shown, so the change stays on the whole object.
            "scalar items of an unshown key",
            lines(&[
                "===== rbac.authorization.k8s.io/ClusterRole /view-extra ======",
                "14c14",
                "<   - get",
                "---",
                ">   - list",
            ]),
            &[
                "rbac.authorization.k8s.io/ClusterRole /view-extra ArgoNormal Both",
                "  ? / \"get\" -> \"list\"",
            ],
        ),
        (
            // Unified: the hunk starts at a container.
            "a container's field",
            lines(&[
                "===== apps/Deployment default/web ======",
                "@@ -40,4 +40,4 @@",
                "       - name: app",
                "         image: app:1",
                "-        imagePullPolicy: Always",
                "+        imagePullPolicy: IfNotPresent",
                "         ports:",
            ]),
            &[
                "apps/Deployment default/web ArgoUnified Both",
                "  ? /spec/template/spec/containers/0[name=\"app\"]/imagePullPolicy \"Always\" -> \"IfNotPresent\"",
            ],
        ),
        (
            // Plain diff of an item's first line: the image changed, not the whole container (the
            // container goes on below the hunk).
            "an item's first line",
            lines(&[
                "===== batch/Job shop/migrate ======",
                "38c38",
                "<       - image: registry.example.com/shop/migrate:3.3.2",
                "---",
                ">       - image: registry.example.com/shop/migrate:3.4.0",
            ]),
            &[
                "batch/Job shop/migrate ArgoNormal Both",
                "  ? /spec/template/spec/containers/0/image \"registry.example.com/shop/migrate:3.3.2\" -> \"registry.example.com/shop/migrate:3.4.0\"",
            ],
        ),
        (
            "a changed merge key",
            changed_merge_key(),
            &[
                "apps/Deployment default/web ArgoNormal Both",
                "  ? /spec/template/spec/containers/0/env/0[name=\"OLD\"] {..} -> {..}",
            ],
        ),
    ]);
}

#[test]
fn a_guessed_list_item_says_so_and_keeps_its_line() {
    let text = webhooks_below_the_key();
    let rs = parse_diff_text(&text).unwrap();
    let c = &rs[0].changes[0];
    assert_eq!(
        c.path,
        vec![
            key("webhooks"),
            Seg::Item {
                index: Some(0),
                key: None
            },
            key("clientConfig"),
            key("caBundle"),
        ]
    );
    assert_eq!(pointer_of(c), "/webhooks/0/clientConfig/caBundle");
    assert!(c.note.as_deref().is_some_and(|n| !n.is_empty()));
    assert_eq!(
        text.lines().nth(c.line - 1).map(|l| &l[..10]),
        Some("-    caBun")
    );
}

#[test]
fn whole_items_and_carried_lists_keep_their_values() {
    let rs = parse_diff_text(&webhooks_in_plain_diff()).unwrap();
    assert_eq!(
        rs[0].changes[1].git,
        Some(json!({"admissionReviewVersions": ["v1"], "name": "b.example.com"}))
    );
    let rs = parse_diff_text(&verbs_in_two_hunks()).unwrap();
    let note = rs[0].changes[1].note.as_deref().unwrap_or("");
    assert!(note.contains("previous hunk"), "{note}");
    let rs = parse_diff_text(&changed_merge_key()).unwrap();
    let c = &rs[0].changes[0];
    assert_eq!(c.live, Some(json!({"name": "OLD", "value": "a"})));
    assert_eq!(c.git, Some(json!({"name": "NEW", "value": "b"})));
}

#[test]
fn an_unplaced_change_says_where_below() {
    let rs = parse_diff_text(&unknown_kind()).unwrap();
    let note = rs[0].changes[0].note.as_deref().unwrap_or("");
    assert!(note.contains("size`"), "{note}");
    assert!(note.contains("does not show the key at column"), "{note}");
}

#[test]
fn a_shown_last_applied_configuration_fills_the_partial_objects() {
    let text = lines(&[
        "===== apps/Deployment shop/orders ======",
        "@@ -4,6 +4,6 @@",
        "   annotations:",
        "     kubectl.kubernetes.io/last-applied-configuration: |",
        "       {\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"labels\":{\"helm.sh/chart\":\"orders-2.3.0\"},\"name\":\"orders\"},\"spec\":{\"replicas\":3}}",
        "   labels:",
        "-    team: a",
        "+    team: b",
    ]);
    let rs = parse_diff_text(&text).unwrap();
    let git = rs[0].git_object.as_ref().unwrap();
    let live = rs[0].live_object.as_ref().unwrap();
    // Lines shown win; what they do not show comes from the last-applied object.
    assert_eq!(git["metadata"]["labels"]["team"], json!("b"));
    assert_eq!(live["metadata"]["labels"]["team"], json!("a"));
    assert_eq!(
        live["metadata"]["labels"]["helm.sh/chart"],
        json!("orders-2.3.0")
    );
    assert_eq!(git["spec"]["replicas"], json!(3));
    assert_eq!(git["metadata"]["namespace"], json!("shop"));
}

#[test]
fn an_item_that_only_gained_a_field_before_its_first_key_is_one_change_per_field() {
    // `- served: true` becomes `- deprecated: false` above `  served: true`:
    // the item's first line moved, yet only one field was added.
    let text = lines(&[
        "===== apiextensions.k8s.io/CustomResourceDefinition /widgets.shop.example.com ======",
        "@@ -12,7 +12,8 @@",
        "   scope: Namespaced",
        "   versions:",
        "-  - name: v2",
        "+  - deprecated: false",
        "+    name: v2",
        "     served: true",
        "     storage: true",
    ]);
    let rs = parse_diff_text(&text).unwrap();
    let changes: Vec<_> = rs[0]
        .changes
        .iter()
        .map(|c| (crate::path::pointer(&c.path), c.git.clone(), c.live.clone()))
        .collect();
    assert_eq!(
        changes,
        [(
            "/spec/versions/0/deprecated".to_string(),
            Some(json!(false)),
            None
        )]
    );
    // An item whose fields differ in value is still one changed item.
    let rs = parse_diff_text(&changed_merge_key()).unwrap();
    assert_eq!(rs[0].changes.len(), 1);
}
