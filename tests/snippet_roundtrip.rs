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
                let (app_form, cm_form) = fix
                    .snippet
                    .split_once("\n---\n")
                    .unwrap_or_else(|| panic!("{name}: two forms in {}", fix.snippet));
                for (form, text) in [
                    ("Application form", app_form),
                    ("argocd-cm form", cm_form),
                    ("whole snippet", fix.snippet.as_str()),
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
