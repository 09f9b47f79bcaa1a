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
                "Compared as Argo CD {} does.",
                drift_doctor::argocd_release::NEWEST
            ))
        );
        let before = report_seq(&c).await;
        js(
            &c,
            "const s = document.getElementById('argocd-version'); s.value = '2.14'; s.dispatchEvent(new Event('change', {bubbles: true})); return true;",
            vec![],
        )
        .await;
        wait_new_report(&c, &before, "the report as 2.14 compares").await;
        let shown = js(
            &c,
            "return document.getElementById('compared-as').textContent;",
            vec![],
        )
        .await;
        assert_eq!(shown, json!("Compared as Argo CD 2.14 does."));
        let link = copy_link(&c).await;
        let state = drift_doctor::share::decode_share_file(&link).expect("the link decodes");
        assert_eq!(state.release().to_string(), "2.14");
        js(
            &c,
            "const s = document.getElementById('argocd-version'); s.value = ''; s.dispatchEvent(new Event('change', {bubbles: true})); return true;",
            vec![],
        )
        .await;
    });
}
