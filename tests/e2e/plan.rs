//! The plan and the audit of the user's rules.

use super::*;

/// The plan comes first, as the core plans it (its verdict and the
/// Application YAML to copy), and the rules in "Your Argo CD settings" are
/// audited on the page.
#[test]
fn page_shows_the_plan_and_audits_the_users_rules() {
    with_page("plan", |c, _| async move {
        let (git, live) = (fixture("mixed-app", "git"), fixture("mixed-app", "live"));
        let report = core_report(&git, &live);
        let plan = report.plan.clone().expect("the scenario has a plan");
        let before = report_seq(&c).await;
        paste(&c, &git, &live, "insertFromPaste").await;
        wait_new_report(&c, &before, "the scenario's report").await;
        let shown = js(
            &c,
            "const plan = document.getElementById('plan');
             const cards = document.querySelector('.resources');
             return [plan.querySelector('.plan-verification').textContent,
                     plan.querySelector('pre.snippet-text').textContent,
                     plan.querySelector('[data-verified]').dataset.verified,
                     !!(plan.compareDocumentPosition(cards) & Node.DOCUMENT_POSITION_FOLLOWING),
                     document.querySelectorAll('.fix-outcome [data-verified]').length];",
            vec![],
        )
        .await;
        let fixes: usize = report.resources.iter().map(|r| r.fixes.len()).sum();
        assert_eq!(shown[0], json!(plan.verification));
        assert_eq!(shown[1], json!(plan.application));
        // Real drift is left: the badge says so, not a bare "Resolves".
        assert!(!plan.drift.is_empty() && plan.verified == drift_doctor::Verified::Resolves);
        assert_eq!(shown[2], json!("drift-left"));
        assert!(plan.outcome().starts_with("drift left: a sync"));
        assert_eq!(
            text(&c, "#plan .plan-head [data-verified]").await,
            drift_doctor::text::sentence_case(plan.outcome())
        );
        assert_eq!(shown[3], json!(true), "the plan comes before the resources");
        assert!(shown[4].as_u64().unwrap() >= 1 && shown[4].as_u64().unwrap() as usize <= fixes);

        // Copy puts exactly the core's texts on the clipboard: the
        // Application YAML, and the plan as Markdown.
        let markdown = drift_doctor::render::markdown::render_plan(&report);
        for (button, status, expected) in [
            (
                "#plan .snippet button.copy",
                "#plan .snippet .copy-status",
                plan.application.clone(),
            ),
            (
                "#copy-plan-markdown",
                "#plan .plan-head .copy-status",
                markdown,
            ),
        ] {
            if let Some(text) = copy_and_read_back(&c, button, status).await {
                assert_eq!(text, expected, "{button} copies the core's text");
            }
        }

        // A rule with a version in its group: audited, with the correction.
        js(
            &c,
            "document.querySelector('details.settings').open = true; return true;",
            vec![],
        )
        .await;
        let before = report_seq(&c).await;
        let rule = "spec:\n  ignoreDifferences:\n  - group: apps/v1\n    kind: Deployment\n    jsonPointers: [/spec/replicas]\n";
        type_into(&c, "settings-input", rule, "insertFromPaste").await;
        wait_new_report(&c, &before, "the report with the rule").await;
        let audit = js(
            &c,
            "const a = document.getElementById('audit');
             return a ? [a.querySelector('.audit-finding').dataset.kind, a.querySelector('.audit-finding').textContent, a.querySelector('pre.snippet-text').textContent] : null;",
            vec![],
        )
        .await;
        assert_eq!(audit[0], json!("matches-nothing"), "{audit}");
        assert!(audit[1].as_str().unwrap().contains("apps/v1"), "{audit}");
        assert!(
            audit[2].as_str().unwrap().contains("group: apps\n"),
            "{audit}"
        );
        type_into(&c, "settings-input", "", "deleteContentBackward").await;
    });
}

/// Press a copy button, wait for its status, and read the clipboard back:
/// `None` (with a note) where the browser grants no clipboard access.
async fn copy_and_read_back(c: &Client, button: &str, status: &str) -> Option<String> {
    let grant = |name: &'static str| Raw {
        method: http::Method::POST,
        path: "permissions",
        body: Some(json!({ "descriptor": { "name": name }, "state": "granted" })),
    };
    let granted = c.issue_cmd(grant("clipboard-read")).await.is_ok()
        && c.issue_cmd(grant("clipboard-write")).await.is_ok();
    js(
        c,
        &format!("document.querySelector('{button}').click(); return true;"),
        vec![],
    )
    .await;
    wait_until(
        c,
        &format!("document.querySelector('{status}').textContent !== ''"),
        "the copy status",
        10,
    )
    .await;
    if !granted {
        eprintln!("note: clipboard permissions not granted; {button} not read back");
        return None;
    }
    let copied = c
        .execute_async("const done = arguments[arguments.length - 1]; navigator.clipboard.readText().then(done, () => done(null));", vec![])
        .await
        .unwrap();
    let text = copied.as_str().map(str::to_string);
    if text.is_none() {
        eprintln!("note: the clipboard could not be read back for {button}");
    }
    text
}

/// A plan for an app missing from the cluster lists every resource: the
/// page draws the first entries of a long list and the rest on request, and
/// a new report starts cut again.
#[test]
fn long_plan_lists_are_cut_until_asked_for() {
    with_page("plan-long", |c, _| async move {
        let git: String = (0..30)
            .map(|i| format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: shop\ndata:\n  k: v{i}\n"))
            .collect();
        let live = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: shop\ndata:\n  a: b\n";
        let report = core_report(&git, live);
        let plan = report.plan.clone().expect("a plan");
        let left = plan.drift.len() + plan.unresolved.len();
        assert!(left > 20, "the core leaves {left} fields");
        let count = "return [document.querySelectorAll('#plan .plan-left').length, document.querySelectorAll('#plan .show-all').length];";

        let before = report_seq(&c).await;
        paste(&c, &git, live, "insertFromPaste").await;
        wait_new_report(&c, &before, "the long plan").await;
        assert_eq!(js(&c, count, vec![]).await, json!([20, 1]));
        let button = text(&c, "#plan .show-all").await;
        assert!(button.contains(&format!("Show all {left}")), "{button}");
        // The page receives the first entries and counts the whole list.
        let headings = js(
            &c,
            "return [...document.querySelectorAll('#plan h4')].map(h => h.textContent).join(' | ');",
            vec![],
        )
        .await;
        assert!(
            headings
                .as_str()
                .unwrap()
                .contains(&format!("Left after the plan: {left} fields")),
            "{headings}"
        );
        // The Markdown is the whole plan's, before any list is shown whole.
        if let Some(text) =
            copy_and_read_back(&c, "#copy-plan-markdown", "#plan .plan-head .copy-status").await
        {
            assert_eq!(text, drift_doctor::render::markdown::render_plan(&report));
        }

        click(&c, "#plan .show-all").await;
        wait_until(
            &c,
            &format!("document.querySelectorAll('#plan .plan-left').length === {left}"),
            "every entry",
            10,
        )
        .await;
        assert_eq!(js(&c, count, vec![]).await, json!([left, 0]));

        // One more resource: a new report, cut again.
        let before = report_seq(&c).await;
        let more = format!("{git}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-last\n  namespace: shop\n");
        paste(&c, &more, live, "insertFromPaste").await;
        wait_new_report(&c, &before, "the longer plan").await;
        assert_eq!(js(&c, count, vec![]).await, json!([20, 1]));
    });
}

/// The report's prose as a reader sees it, in every example: text outside
/// code (`<code>`, `<pre>`) holds no literal backtick, and a plan's badge
/// is a bare "Resolves" only when nothing is left.
#[test]
fn the_reports_words_say_exactly_what_happened() {
    with_page("words", |c, _| async move {
        let prose = "const out = []; const w = document.createTreeWalker(document.getElementById('report'), NodeFilter.SHOW_TEXT);
             while (w.nextNode()) { const n = w.currentNode; if (!n.parentElement.closest('code, pre, textarea')) out.push(n.textContent); }
             return out.join('');";
        // Hidden differences too, with their reasons.
        let before = report_seq(&c).await;
        click(&c, "#show-hidden").await;
        wait_new_report(&c, &before, "hidden differences shown").await;
        for ex in drift_doctor::web::examples::EXAMPLES {
            let before = report_seq(&c).await;
            load_example(&c, ex.name).await;
            wait_new_report(&c, &before, ex.name).await;
            js(
                &c,
                "document.querySelectorAll('.card-toggle[aria-expanded=false]').forEach(b => b.click()); return true;",
                vec![],
            )
            .await;
            wait_ready(&c, "every card open").await;
            let text = js(&c, prose, vec![]).await;
            let text = text.as_str().unwrap();
            if let Some(i) = text.find('`') {
                let (head, tail) = text.split_at(i);
                let head: String = head
                    .chars()
                    .rev()
                    .take(60)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                let tail: String = tail.chars().take(60).collect();
                panic!(
                    "{}: a literal backtick in the report: …{head}{tail}…",
                    ex.name
                );
            }
            for odd in ["(s)", " are 1 ", " is 2 "] {
                assert!(
                    !text.contains(odd),
                    "{}: {odd:?} in the report: {text}",
                    ex.name
                );
            }
            let report = core_report(ex.git, ex.live);
            if let Some(plan) = &report.plan {
                // "Compared again with every step applied" only with steps.
                let shown = js(
                    &c,
                    "const p = document.getElementById('plan');
                     return [p.querySelectorAll('.plan-step, .snippet').length, p.querySelector('.plan-verification').textContent];",
                    vec![],
                )
                .await;
                let steps = shown[0].as_u64().unwrap();
                let compared = shown[1]
                    .as_str()
                    .unwrap()
                    .starts_with("Compared again with every step applied");
                assert_eq!(steps > 0, compared, "{}: {shown}", ex.name);
                let badge = super::text(&c, "#plan .plan-head [data-verified]").await;
                let bare =
                    plan.drift.is_empty() && plan.verified == drift_doctor::Verified::Resolves;
                assert_eq!(badge == "Resolves", bare, "{}: {badge}", ex.name);
            }
        }
    });
}
