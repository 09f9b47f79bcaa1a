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

/// The jq engine is not part of the worker's first download: a page opened
/// on a link to a pair without a jq rule (so the default example, whose
/// proposed fixes the analysis checks with jq, is not analysed) fetches no
/// jq module; the first jq rule fetches it (once), and the report is the
/// core's, the module's own time budget stopping a rule as in-process jaq
/// does.
#[test]
fn page_fetches_the_jq_module_only_for_a_jq_rule() {
    let server = serve(dist_dir());
    let url = format!("http://{}{PREFIX}", server.addr);
    let log = server.log.clone();
    let driver = start_driver("jq-module");
    with_browser(&driver, false, move |c| async move {
        let jq_fetches = || {
            log.lock()
                .unwrap()
                .iter()
                .filter(|(r, status)| r.contains("drift-doctor-jq.wasm") && *status == 200)
                .count()
        };
        let config_map = |value: &str| {
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: shop\ndata:\n  a: {value}\n  b: same\n")
        };
        let (git, live) = (config_map("one"), config_map("two"));
        let (fragment, _) =
            drift_doctor::share::encode_fragment(&drift_doctor::share::ShareState {
                mode: "sides".into(),
                git: git.clone(),
                live: live.clone(),
                ..Default::default()
            });
        c.goto(&format!("{url}#{fragment}"))
            .await
            .expect("open the page on the link");
        wait_until(
            &c,
            "document.getElementById('report') && document.getElementById('report').dataset.state === 'ready' && document.getElementById('git-input').value.includes('a: one')",
            "the linked pair's report",
            90,
        )
        .await;
        assert_eq!(counts(&c).await, [1, 1], "data.a differs");
        // The worker's warm-up (the examples) is done by now too.
        tokio::time::sleep(Duration::from_secs(3)).await;
        assert_eq!(jq_fetches(), 0, "no jq rule, no jq module");

        js(
            &c,
            "document.querySelector('details.settings').open = true; return true;",
            vec![],
        )
        .await;
        let settings = "data:\n  ignore.normalizer.jq.timeout: 300ms\n---\nignoreDifferences:\n- kind: ConfigMap\n  jqPathExpressions:\n  - .data.a\n  - '.data[range(1e9) | tostring]'\n";
        let before = report_seq(&c).await;
        type_into(&c, "settings-input", settings, "insertFromPaste").await;
        wait_new_report(&c, &before, "the report with the jq rule").await;
        let mut opts = page_options(false);
        drift_doctor::settings::apply_user_settings(settings, &mut opts.compare).unwrap();
        let core = analyze(&git, &live, &opts).expect("the core reads the pair");
        assert_eq!(core.summary.out_of_sync, 0, "the jq rule hides data.a");
        assert_eq!(
            counts(&c).await,
            [core.summary.resources, core.summary.out_of_sync]
        );
        assert_eq!(page_causes(&c).await, expected_causes(&core));
        let warnings = text(&c, "section.warnings").await;
        assert!(
            warnings.contains("jq expression .data[range(1e9) | tostring]")
                && warnings.contains("timed out after 300ms; skipped"),
            "{warnings}"
        );
        assert_eq!(jq_fetches(), 1, "the jq module, fetched for the rule");

        // Loaded once: another jq analysis does not fetch it again.
        let before = report_seq(&c).await;
        paste(&c, &config_map("three"), &live, "insertFromPaste").await;
        wait_new_report(&c, &before, "another report with the jq rule").await;
        assert_eq!(counts(&c).await, [1, 0]);
        assert_eq!(jq_fetches(), 1, "fetched once");
    });
}

/// The summary's resources and resources out of sync.
async fn counts(c: &Client) -> [usize; 2] {
    let shown = js(
        c,
        "return [...document.querySelectorAll('.summary .stat-n')].slice(0, 2).map(e => Number(e.textContent));",
        vec![],
    )
    .await;
    serde_json::from_value(shown).expect("two numbers in the summary")
}
