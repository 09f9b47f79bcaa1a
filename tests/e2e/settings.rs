//! The user's Argo CD settings and the release the page imitates.

use super::*;

/// The page's own snippets are accepted by the page: every ignore fix of
/// every scenario, in each form the report offers (Application,
/// argocd-cm), pasted into "Your Argo CD settings" hides what it says.
#[test]
fn page_accepts_its_own_snippets() {
    let scenarios = root().join("tests/fixtures/scenarios");
    let mut names: Vec<String> = std::fs::read_dir(&scenarios)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("git.yaml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    with_page("snippets", move |c, _| async move {
        js(
            &c,
            "document.querySelector('details.settings').open = true; return true;",
            vec![],
        )
        .await;
        let mut tried = 0;
        for name in &names {
            let (git, live) = (fixture(name, "git"), fixture(name, "live"));
            let report = core_report(&git, &live);
            type_into(&c, "settings-input", "", "deleteContentBackward").await;
            let before = report_seq(&c).await;
            paste(&c, &git, &live, "insertFromPaste").await;
            wait_new_report(&c, &before, "the scenario's report").await;
            for r in &report.resources {
                for f in r.fixes.iter().filter(|f| f.kind == FixKind::Ignore) {
                    let (app, cm) = f.snippet.split_once("\n---\n").expect("two forms");
                    for (form, text) in [("Application", app), ("argocd-cm", cm)] {
                        let before = report_seq(&c).await;
                        type_into(&c, "settings-input", text, "insertFromPaste").await;
                        wait_until(
                            &c,
                            &format!("document.getElementById('settings-error').textContent !== '' || (document.getElementById('report').dataset.seq !== {before:?} && document.getElementById('report').dataset.state === 'ready')"),
                            "the report with the snippet",
                            60,
                        )
                        .await;
                        let left = js(
                            &c,
                            "const [id, pointers] = arguments;
                             const card = [...document.querySelectorAll('.card')].find(c => c.dataset.id === id);
                             return [document.getElementById('settings-error').textContent,
                                     card ? [...card.querySelectorAll('.diff:not(.diff-hidden)')].map(d => d.dataset.pointer).filter(p => pointers.includes(p)) : []];",
                            vec![json!(r.id), json!(f.pointers)],
                        )
                        .await;
                        assert_eq!(
                            left,
                            json!(["", []]),
                            "{name}: the {form} form of \"{}\" hides its fields",
                            f.title
                        );
                        tried += 1;
                    }
                }
            }
        }
        assert!(tried >= 10, "{tried} snippets tried");
    });
}

/// The release selector: the report says which release it imitates, and a
/// link carries the choice.
#[test]
fn page_imitates_the_release_the_user_chooses() {
    with_page("release", |c, _| async move {
        let shown = js(
            &c,
            "return document.getElementById('compared-as').textContent;",
            vec![],
        )
        .await;
        assert_eq!(
            shown,
            json!(format!(
                "Compared as Argo CD {} does, with client-side three-way diff (the default).",
                drift_doctor::argocd_release::NEWEST
            ))
        );
        // The strategy compared with is named too: chosen on the page, or
        // by the pasted Application's sync option.
        let before = report_seq(&c).await;
        choose(&c, "strategy", "server-side-diff").await;
        wait_new_report(&c, &before, "the report with server-side diff").await;
        assert_eq!(
            text(&c, "#compared-as").await,
            format!(
                "Compared as Argo CD {} does, with server-side diff.",
                drift_doctor::argocd_release::NEWEST
            )
        );
        let before = report_seq(&c).await;
        choose(&c, "strategy", "").await;
        wait_new_report(&c, &before, "the default strategy again").await;
        js(
            &c,
            "document.querySelector('details.evidence').open = true; return true;",
            vec![],
        )
        .await;
        let before = report_seq(&c).await;
        let app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\n  namespace: argocd\nspec:\n  destination:\n    namespace: shop\n  syncPolicy:\n    syncOptions:\n      - ServerSideApply=true\n";
        type_into(&c, "application-input", app, "insertFromPaste").await;
        wait_new_report(&c, &before, "the report with the Application").await;
        assert_eq!(
            text(&c, "#compared-as").await,
            format!(
                "Compared as Argo CD {} does, with server-side apply (ServerSideApply=true).",
                drift_doctor::argocd_release::NEWEST
            )
        );
        // A strategy chosen on the page wins over the Application's, legacy too.
        let before = report_seq(&c).await;
        choose(&c, "strategy", "legacy").await;
        wait_new_report(&c, &before, "legacy chosen over the Application").await;
        let shown = text(&c, "#compared-as").await;
        assert!(shown.contains("with client-side three-way diff"), "{shown}");
        let before = report_seq(&c).await;
        choose(&c, "strategy", "").await;
        wait_new_report(&c, &before, "the Application's strategy again").await;
        let before = report_seq(&c).await;
        type_into(&c, "application-input", "", "deleteContentBackward").await;
        wait_new_report(&c, &before, "the report without the Application").await;
        let before = report_seq(&c).await;
        choose(&c, "argocd-version", "2.14").await;
        wait_new_report(&c, &before, "the report as 2.14 compares").await;
        let shown = js(
            &c,
            "return document.getElementById('compared-as').textContent;",
            vec![],
        )
        .await;
        assert_eq!(
            shown,
            json!("Compared as Argo CD 2.14 does, with client-side three-way diff (the default).")
        );
        let link = copy_link(&c).await;
        let state = drift_doctor::share::decode_share_file(&link).expect("the link decodes");
        assert_eq!(state.release().to_string(), "2.14");
        choose(&c, "argocd-version", "").await;
    });
}

/// A jq rule whose outputs multiply without a loop (2^40 bindings) cannot be
/// stopped inside the worker: the page ends the worker after the rule's time
/// budget, starts a new one and gets the report with the rule skipped, as the
/// CLI skips it; the page keeps working afterwards.
#[test]
fn page_survives_a_jq_rule_that_never_ends() {
    with_page("runaway-jq", |c, _| async move {
        js(
            &c,
            "document.querySelector('details.settings').open = true; return true;",
            vec![],
        )
        .await;
        let bindings: String = (0..40).map(|i| format!("(1, 1) as $v{i} | ")).collect();
        let settings = format!(
            "data:\n  ignore.normalizer.jq.timeout: 200ms\n---\nignoreDifferences:\n- kind: ConfigMap\n  jqPathExpressions:\n  - '.data[{bindings}\"a\"]'\n"
        );
        type_into(&c, "settings-input", &settings, "insertFromPaste").await;
        let config_map = |value: &str| {
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: shop\ndata:\n  a: {value}\n")
        };
        let before = report_seq(&c).await;
        let started = std::time::Instant::now();
        paste(
            &c,
            &config_map("one"),
            &config_map("two"),
            "insertFromPaste",
        )
        .await;
        wait_new_report(&c, &before, "the report with the runaway rule skipped").await;
        let warnings = text(&c, "section.warnings").await;
        assert!(
            warnings.contains("jq expression .data[(1, 1) as $v0")
                && warnings.contains("timed out after 200ms; skipped"),
            "{warnings}"
        );
        // The expression is code, not text between backticks.
        assert!(
            text(&c, "section.warnings code")
                .await
                .starts_with(".data[(1, 1) as $v0"),
            "{warnings}"
        );
        assert_eq!(page_summary(&c).await.1, 1, "the difference still counts");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "took {:?}",
            started.elapsed()
        );
        // The new worker answers the next analysis.
        type_into(&c, "settings-input", "", "deleteContentBackward").await;
        let before = report_seq(&c).await;
        paste(
            &c,
            &config_map("one"),
            &config_map("three"),
            "insertFromPaste",
        )
        .await;
        wait_new_report(&c, &before, "the next report").await;
        assert_eq!(text(&c, "section.warnings").await, "");
    });
}
