//! Every ignore fix the report proposes is accepted back as settings (the
//! way `--app`, `--argocd-cm` and the page's settings box read them) and
//! hides the differences it claims to hide: over every scenario fixture,
//! both forms of each snippet alone, and the whole snippet.

use crate::common;

use drift_doctor::ignore::IgnoreRule;
use drift_doctor::settings::apply_user_settings;
use drift_doctor::verify::{fix_rule, FixForm};
use drift_doctor::{analyze, CompareOptions, FixKind, Options, Report};

/// A scenario's own options, with the differences Argo CD hides.
fn options(name: &str) -> Options {
    let mut opts = common::Scenario::load(name).analysis_options();
    opts.compare.include_hidden = true;
    opts
}

/// group, kind, name, namespace, jsonPointers, jqPathExpressions.
type Selection<'r> = (
    &'r str,
    &'r str,
    Option<&'r str>,
    Option<&'r str>,
    &'r [String],
    &'r [String],
);

/// What a rule selects and ignores (its source and jq runtime aside).
fn selects(r: &IgnoreRule) -> Selection<'_> {
    (
        &r.group,
        &r.kind,
        r.name.as_deref(),
        r.namespace.as_deref(),
        &r.json_pointers,
        &r.jq_path_expressions,
    )
}

/// Whether `pointer` of resource `id` is a visible difference.
fn visible(report: &Report, id: &str, pointer: &str) -> bool {
    report
        .resources
        .iter()
        .filter(|r| r.id == id)
        .flat_map(|r| &r.differences)
        .any(|d| d.pointer == pointer && d.visible)
}

#[test]
fn every_ignore_snippet_round_trips_and_hides_what_it_names() {
    let mut checked = 0;
    for name in common::scenario_names() {
        let scenario = common::Scenario::load(&name);
        let (git, live) = (scenario.git, scenario.live);
        let base = options(&name);
        let report = analyze(&git, &live, &base).unwrap();
        for resource in &report.resources {
            for fix in resource.fixes.iter().filter(|f| f.kind == FixKind::Ignore) {
                let (app_form, cm_form) = drift_doctor::fixes::snippet_forms(&fix.snippet);
                let cm_form =
                    cm_form.unwrap_or_else(|| panic!("{name}: two forms in {}", fix.snippet));
                let settings = format!("{app_form}\n---\n{cm_form}");
                let spec = fix.ignore.as_ref().unwrap();
                // The object's own annotation, offered for JSON pointers only,
                // names the rule's pointers, as the comparison reads it.
                match drift_doctor::fixes::annotation_form(&fix.snippet) {
                    Some(text) => {
                        assert!(
                            spec.annotation && spec.jq_path_expressions.is_empty(),
                            "{name}"
                        );
                        let object: serde_json::Value = serde_yaml::from_str(text).unwrap();
                        let key = drift_doctor::identity::ResourceKey {
                            group: spec.group.clone(),
                            kind: spec.kind.clone(),
                            namespace: spec.namespace.clone(),
                            name: spec.name.clone(),
                        };
                        let rule = drift_doctor::ignore::resource_rule(&key, &object, &object)
                            .unwrap_or_else(|| panic!("{name}: no rule in {text}"));
                        assert_eq!(rule.json_pointers, spec.json_pointers, "{name}");
                        assert!(rule.applies_to(&key));
                    }
                    None => assert!(!spec.annotation, "{name}"),
                }
                for (form, text) in [
                    ("Application form", app_form),
                    ("argocd-cm form", cm_form),
                    ("whole snippet", settings.as_str()),
                ] {
                    let mut opts = options(&name);
                    apply_user_settings(text, &mut opts.compare).unwrap_or_else(|e| {
                        panic!("{name} {}: the {form} is refused: {e}\n{text}", resource.id)
                    });
                    assert!(
                        !opts.compare.ignore_rules.is_empty(),
                        "{name}: {form} read no rule"
                    );
                    // The text says what the fix's own rule is, the rule its
                    // verification and the plan use.
                    let forms: &[FixForm] = match form {
                        "Application form" => &[FixForm::Application],
                        "argocd-cm form" => &[FixForm::ArgocdCm],
                        _ => &[FixForm::Application, FixForm::ArgocdCm],
                    };
                    let own_rules: Vec<IgnoreRule> = forms
                        .iter()
                        .map(|&f| fix_rule(fix, f, &opts.compare).expect("an ignore fix's rule"))
                        .collect();
                    let own: Vec<_> = own_rules.iter().map(selects).collect();
                    let read: Vec<_> = opts.compare.ignore_rules.iter().map(selects).collect();
                    assert_eq!(
                        read, own,
                        "{name} {}: the {form} reads as another rule",
                        resource.id
                    );
                    assert_eq!(
                        fix.ignore.as_ref().unwrap().respect && form != "argocd-cm form",
                        text.contains("RespectIgnoreDifferences=true"),
                        "{name}: RespectIgnoreDifferences in the text and the fix disagree"
                    );
                    let after = analyze(&git, &live, &opts).unwrap();
                    // The snippet adds no warning (a bare release line warns alike before).
                    assert_eq!(after.warnings, report.warnings, "{name}");
                    for pointer in &fix.pointers {
                        assert!(
                            visible(&report, &resource.id, pointer),
                            "{name}: the fix names {pointer}, which was not a visible difference"
                        );
                        assert!(
                            !visible(&after, &resource.id, pointer),
                            "{name} {} {pointer}: still visible with the {form}:\n{text}",
                            resource.id
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 12, "only {checked} snippet forms were checked");
}

/// The fragments users paste, each alone: an Application `spec:`, an
/// argocd-cm `data:`, a bare `ignoreDifferences:` list (as a key or as the
/// document itself), and the full objects.
#[test]
fn settings_fragments_read_like_the_full_objects() {
    let rule = "- group: apps\n  kind: Deployment\n  jsonPointers: [/spec/replicas]\n";
    let indented = |n: usize| {
        rule.lines()
            .map(|l| format!("{}{l}\n", " ".repeat(n)))
            .collect::<String>()
    };
    let cm_body = "  resource.customizations.ignoreDifferences.apps_Deployment: |\n    jsonPointers: [/spec/replicas]\n";
    let forms = [
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\nspec:\n  ignoreDifferences:\n{}", indented(2)),
        format!("spec:\n  ignoreDifferences:\n{}", indented(4)),
        format!("ignoreDifferences:\n{rule}"),
        rule.to_string(),
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\ndata:\n{cm_body}"),
        format!("data:\n{cm_body}"),
        cm_body.trim_start().replace("\n    ", "\n  "),
    ];
    for text in &forms {
        let mut compare = CompareOptions::default();
        apply_user_settings(text, &mut compare).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let rules = &compare.ignore_rules;
        assert_eq!(rules.len(), 1, "{text}");
        assert_eq!(
            (rules[0].group.as_str(), rules[0].kind.as_str()),
            ("apps", "Deployment"),
            "{text}"
        );
        assert_eq!(rules[0].json_pointers, ["/spec/replicas"], "{text}");
    }
}

/// The object's own annotation (argo-cd PR #29616) is offered as a third
/// form of an ignore fix from 3.6, the first release that reads it, and
/// only for rules of JSON pointers.
#[test]
fn the_annotation_form_is_offered_from_3_6_for_json_pointers_only() {
    let scenario = common::Scenario::load("autoscaler-hpa-replicas");
    let run = |release: &str| {
        let mut opts = scenario.analysis_options();
        opts.compare.release = drift_doctor::ArgoCdRelease::parse(release).unwrap();
        analyze(&scenario.git, &scenario.live, &opts).unwrap()
    };
    let forms = |report: &Report| -> Vec<(bool, bool)> {
        report
            .resources
            .iter()
            .flat_map(|r| &r.fixes)
            .filter(|f| f.kind == FixKind::Ignore)
            .map(|f| {
                let spec = f.ignore.as_ref().unwrap();
                (
                    drift_doctor::fixes::annotation_form(&f.snippet).is_some(),
                    spec.jq_path_expressions.is_empty(),
                )
            })
            .collect()
    };
    let new = forms(&run("3.6"));
    assert!(!new.is_empty());
    assert!(
        new.iter()
            .all(|&(offered, pointers_only)| offered == pointers_only),
        "{new:?}"
    );
    assert!(new.iter().any(|&(offered, _)| offered));
    // The whole snippet pasted as settings reads the same rules, and says
    // the annotation belongs on the object.
    let report = run("3.6");
    let fix = report
        .resources
        .iter()
        .flat_map(|r| &r.fixes)
        .find(|f| drift_doctor::fixes::annotation_form(&f.snippet).is_some())
        .unwrap();
    let (app_form, cm_form) = drift_doctor::fixes::snippet_forms(&fix.snippet);
    let read = |text: &str| {
        let mut opts = scenario.analysis_options();
        apply_user_settings(text, &mut opts.compare).unwrap();
        opts.compare
    };
    let whole = read(&fix.snippet);
    let settings = read(&format!("{app_form}\n---\n{}", cm_form.unwrap()));
    assert_eq!(
        whole.ignore_rules.iter().map(selects).collect::<Vec<_>>(),
        settings
            .ignore_rules
            .iter()
            .map(selects)
            .collect::<Vec<_>>()
    );
    assert!(whole
        .jq
        .warnings()
        .iter()
        .any(|w| w.contains("goes on the object in Git")));
    let old = forms(&run("3.5.1"));
    assert!(
        !old.is_empty() && old.iter().all(|&(offered, _)| !offered),
        "{old:?}"
    );
}
