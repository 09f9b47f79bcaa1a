//! An Application pasted beside the pair: its settings and sync errors.

use super::*;

/// An Application pasted in its own editor: its settings apply (the
/// report lists them), its sync errors show above the resources, as the
/// core classifies them, and a link carries it.
#[test]
fn page_reads_the_applications_own_evidence() {
    let dir = root().join("tests/fixtures/application");
    let read = |scenario: &str, name: &str| {
        let own = dir.join(scenario).join(name);
        std::fs::read_to_string(if own.exists() {
            own
        } else {
            dir.join("common").join(name)
        })
        .unwrap()
    };
    let (git, live, app_text) = (
        read("ssa-conflict", "git.yaml"),
        read("ssa-conflict", "live.yaml"),
        read("ssa-conflict", "application.yaml"),
    );
    let app = drift_doctor::application::Application::parse(&app_text).unwrap();
    let mut opts = page_options(false);
    app.apply_to(&mut opts.namespace, &mut opts.compare, false, false)
        .unwrap();
    let report = drift_doctor::analyze_with(
        &git,
        &live,
        &opts,
        drift_doctor::Evidence {
            application: Some(&app),
            git_again: None,
            observed: None,
        },
    )
    .unwrap();
    let status = report
        .argocd_status
        .clone()
        .expect("the Application's sections");
    assert!(!status.sync_errors.is_empty());
    with_page("application", move |c, _| async move {
        let before = report_seq(&c).await;
        paste(&c, &git, &live, "insertFromPaste").await;
        wait_new_report(&c, &before, "the sides").await;
        js(
            &c,
            "document.querySelector('details.evidence').open = true; return true;",
            vec![],
        )
        .await;
        let before = report_seq(&c).await;
        type_into(&c, "application-input", &app_text, "insertFromPaste").await;
        wait_new_report(&c, &before, "the report with the Application").await;
        let shown = js(
            &c,
            "const s = document.getElementById('argocd-status');
             const cards = document.querySelector('.resources');
             return s ? [[...s.querySelectorAll('.sync-error')].map(e => e.dataset.code),
                         [...s.querySelectorAll('.settings-used li')].map(e => e.textContent),
                         !!(s.compareDocumentPosition(cards) & Node.DOCUMENT_POSITION_FOLLOWING)] : null;",
            vec![],
        )
        .await;
        let codes: Vec<&str> = status.sync_errors.iter().map(|e| e.code.as_str()).collect();
        assert_eq!(shown[0], json!(codes), "{shown}");
        // Shown with its `code` spans as code: the same words without backticks.
        let settings: Vec<String> = status.settings.iter().map(|s| s.replace('`', "")).collect();
        assert_eq!(shown[1], json!(settings), "{shown}");
        assert_eq!(
            shown[2],
            json!(true),
            "the Application's section comes before the resources"
        );
        let link = copy_link(&c).await;
        let state = drift_doctor::share::decode_share_file(&link).expect("the link decodes");
        assert!(state
            .options
            .contains_key(drift_doctor::share::OPTION_APPLICATION));
        type_into(&c, "application-input", "", "deleteContentBackward").await;
    });
}
