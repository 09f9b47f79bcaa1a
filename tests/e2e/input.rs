//! Input errors on the page.

use super::*;

/// Errors point at the cause: a tab used for indentation is named, with
/// its line; an unclosed quote is reported at the opening quote.
#[test]
fn page_errors_point_at_the_cause() {
    with_page("errors", |c, _| async move {
        let (git, live) = (fixture("mixed-app", "git"), fixture("mixed-app", "live"));
        let base = live.lines().count();
        for (extra, line, word) in [
            ("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: tabbed\n", 5, "tab"),
            (
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"quoted\ndata:\n  k: v\n",
                5,
                "quote",
            ),
        ] {
            let text = format!("{live}{extra}");
            let before = js(&c, "return document.getElementById('live-error').textContent;", vec![]).await;
            paste(&c, &git, &text, "insertFromPaste").await;
            wait_until(
                &c,
                &format!("document.getElementById('live-error').textContent !== '' && document.getElementById('live-error').textContent !== {before}"),
                "the live error",
                30,
            )
            .await;
            let shown = js(&c, "return document.getElementById('live-error').textContent;", vec![]).await;
            let shown = shown.as_str().unwrap();
            assert!(
                shown.starts_with(&format!("Line {},", base + line)) && shown.to_lowercase().contains(word),
                "{word}: the error names line {} and the {word}: {shown}",
                base + line
            );
        }
    });
}

/// What the report shown is, in one object: the stale banner's text (""
/// when none), whether the report is greyed, whether any summary or
/// "Stop the loop first" is outside the greyed part, and the example the
/// summary names.
async fn stale_state(c: &Client) -> serde_json::Value {
    js(
        c,
        "const note = document.getElementById('stale-note');
         const body = document.getElementById('report-body');
         const outside = [...document.querySelectorAll('#report .summary, #report .emergency, #report .plan')]
             .filter(e => !e.closest('.stale-report')).length;
         return {
             note: note ? note.textContent : '',
             greyed: !!(body && body.classList.contains('stale-report')),
             outside,
             example: (document.getElementById('example-name') || {}).textContent || '',
         };",
        vec![],
    )
    .await
}

/// After an input error the last report is never shown as the answer: it
/// is greyed under a banner naming what it was computed from (the
/// built-in example, or an earlier input), in every flow; a good input
/// brings back a report of its own, not greyed.
#[test]
fn an_input_error_never_shows_another_inputs_report_as_the_answer() {
    with_page("stale", |c, _| async move {
        let fresh = stale_state(&c).await;
        assert_eq!(fresh["note"], json!(""), "{fresh}");
        assert_eq!(fresh["greyed"], json!(false), "{fresh}");
        let title = drift_doctor::web::examples::find("mixed-app")
            .unwrap()
            .title;
        assert!(
            fresh["example"].as_str().unwrap().contains(title),
            "{fresh}"
        );

        let (git, live) = (
            fixture("webhook-cabundle-cainjector", "git"),
            fixture("webhook-cabundle-cainjector", "live"),
        );
        let tab =
            format!("{live}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: tabbed\n");
        let quote = format!("{live}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"quoted\ndata:\n  k: v\n");
        // Over the example: the banner names it.
        for (what, bad) in [("tab", &tab), ("unclosed quote", &quote)] {
            load_example(&c, "mixed-app").await;
            wait_until(&c, "document.getElementById('live-error').textContent === '' && document.getElementById('report').dataset.state === 'ready'", "the example's report", 60).await;
            paste(&c, &git, bad, "insertFromPaste").await;
            wait_until(
                &c,
                "document.getElementById('stale-note')",
                &format!("{what}: the stale banner"),
                30,
            )
            .await;
            let s = stale_state(&c).await;
            let note = s["note"].as_str().unwrap();
            assert!(
                note.starts_with("Not the answer for the input in the editors."),
                "{what}: {s}"
            );
            assert!(
                note.contains(&format!("computed from the example “{title}”")),
                "{what}: {s}"
            );
            assert_eq!(s["greyed"], json!(true), "{what}: {s}");
            assert_eq!(
                s["outside"],
                json!(0),
                "{what}: nothing of it reads as the answer: {s}"
            );
        }
        // A good input of the user's own: its report, not greyed, naming no example.
        let before = report_seq(&c).await;
        paste(&c, &git, &live, "insertFromPaste").await;
        wait_new_report(&c, &before, "the pasted pair's report").await;
        let own = stale_state(&c).await;
        assert_eq!(
            (
                own["note"].clone(),
                own["greyed"].clone(),
                own["example"].clone()
            ),
            (json!(""), json!(false), json!("")),
            "{own}"
        );
        // An error after it: the report is of an earlier input.
        paste(&c, &git, &tab, "insertFromPaste").await;
        wait_until(
            &c,
            "document.getElementById('stale-note')",
            "the stale banner over the user's report",
            30,
        )
        .await;
        let s = stale_state(&c).await;
        assert!(
            s["note"]
                .as_str()
                .unwrap()
                .contains("computed from an earlier input"),
            "{s}"
        );
        assert_eq!(s["greyed"], json!(true), "{s}");
        // Fixed: the answer again.
        let before = report_seq(&c).await;
        paste(&c, &git, &live, "insertFromPaste").await;
        wait_new_report(&c, &before, "the fixed input's report").await;
        let s = stale_state(&c).await;
        assert_eq!(
            (s["note"].clone(), s["greyed"].clone()),
            (json!(""), json!(false)),
            "{s}"
        );
    });
}

/// The banner names what the greyed report was computed from when only
/// one side was the user's: their Git with the example's live side.
#[test]
fn the_stale_banner_names_the_sides_its_report_came_from() {
    with_page("stale-sides", |c, _| async move {
        let title = drift_doctor::web::examples::find("mixed-app")
            .unwrap()
            .title;
        load_example(&c, "mixed-app").await;
        wait_ready(&c, "the example's report").await;
        // The user's own Git beside the example's live side.
        let own_git = fixture("webhook-cabundle-cainjector", "git");
        let before = report_seq(&c).await;
        type_into(&c, "git-input", &own_git, "insertFromPaste").await;
        wait_new_report(&c, &before, "the report of the user's Git").await;
        let live = js(
            &c,
            "return document.getElementById('live-input').value;",
            vec![],
        )
        .await;
        let bad = format!(
            "{}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: tabbed\n",
            live.as_str().unwrap()
        );
        type_into(&c, "live-input", &bad, "insertFromPaste").await;
        wait_stale_banner(&c).await;
        let s = stale_state(&c).await;
        assert!(
            s["note"].as_str().unwrap().contains(&format!(
                "computed from your Git side with the live side of the example “{title}”"
            )),
            "{s}"
        );
        assert_eq!(s["greyed"], json!(true), "{s}");
    });
}

/// A terminal paste (the prompt with its command, the CLI's log lines
/// above the YAML) is read without them: the report is the pasted input's,
/// not the example's greyed, with a note naming the lines skipped.
#[test]
fn a_shell_prompt_above_the_yaml_is_skipped_with_a_note() {
    with_page("prompt", |c, _| async move {
        let (git, live) = (
            fixture("webhook-cabundle-cainjector", "git"),
            fixture("webhook-cabundle-cainjector", "live"),
        );
        let pasted = format!("$ argocd app manifests shop --source live\nWARN[0000] Failed to invoke grpc call. Use flag --grpc-web in grpc calls.\n{live}");
        let report = core_report(&git, &live);
        let before = report_seq(&c).await;
        paste(&c, &git, &pasted, "insertFromPaste").await;
        wait_new_report(&c, &before, "the terminal paste's report").await;
        let s = stale_state(&c).await;
        assert_eq!(
            (s["note"].clone(), s["greyed"].clone(), s["example"].clone()),
            (json!(""), json!(false), json!("")),
            "{s}"
        );
        assert_eq!(page_summary(&c).await, core_summary(&report));
        assert_eq!(text(&c, "#live-error").await, "");
        let warnings = text(&c, "#report .warnings").await;
        assert!(
            warnings.contains("The live side starts with 2 lines that are not YAML (line 1 “$ argocd app manifests shop --source live”, line 2 “WARN[0000] Failed to invoke grpc call. Use flag --grpc-web in grpc calls.”): skipped."),
            "{warnings}"
        );
        assert!(!warnings.contains("git side"), "{warnings}");
    });
}

/// What the two YAML editors hold.
async fn sides_shown(c: &Client) -> serde_json::Value {
    js(
        c,
        "return [document.getElementById('git-input').value, document.getElementById('live-input').value];",
        vec![],
    )
    .await
}

/// Wait for a report newer than `before` and return what the editors hold.
async fn after(c: &Client, before: &str, what: &str) -> serde_json::Value {
    wait_new_report(c, before, what).await;
    sides_shown(c).await
}

/// The user's own input has a slot of its own: Undo after two examples in
/// a row brings it back (not the first example), so does the menu's
/// "— your own input —" entry, and Clear is undone the same ways.
#[test]
fn undo_walks_back_to_the_users_own_input() {
    with_page("undo", |c, _| async move {
        let git = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n  namespace: shop\ndata:\n  k: from-git\n";
        let live = git.replace("from-git", "edited-live");
        let own = json!([git, live]);
        let example = |name: &str| json!([fixture(name, "git"), fixture(name, "live")]);
        let before = report_seq(&c).await;
        paste(&c, git, &live, "insertFromPaste").await;
        assert_eq!(after(&c, &before, "the user's report").await, own);

        // Two examples in a row, then Undo.
        for name in ["autoscaler-hpa-replicas", "real-drift"] {
            let before = report_seq(&c).await;
            load_example(&c, name).await;
            assert_eq!(after(&c, &before, name).await, example(name));
        }
        let before = report_seq(&c).await;
        click(&c, "#undo").await;
        assert_eq!(
            after(&c, &before, "Undo after two examples").await,
            own,
            "Undo brings back the user's input"
        );

        // The menu's own entry, after an example.
        let before = report_seq(&c).await;
        load_example(&c, "restart-annotation").await;
        assert_eq!(
            after(&c, &before, "an example again").await,
            example("restart-annotation")
        );
        let before = report_seq(&c).await;
        load_example(&c, "").await;
        assert_eq!(
            after(&c, &before, "— your own input —").await,
            own,
            "the menu brings it back"
        );
        assert_eq!(
            js(
                &c,
                "return document.getElementById('example').value;",
                vec![]
            )
            .await,
            json!("")
        );

        // Clear, then Undo; Clear, then the menu.
        click(&c, "#clear-all").await;
        wait_until(&c, "document.getElementById('git-input').value === '' && document.getElementById('report').dataset.state === 'empty'", "cleared", 20).await;
        let before = report_seq(&c).await;
        click(&c, "#undo").await;
        assert_eq!(after(&c, &before, "Undo after Clear").await, own);
        click(&c, "#clear-all").await;
        wait_until(
            &c,
            "document.getElementById('git-input').value === ''",
            "cleared again",
            20,
        )
        .await;
        let before = report_seq(&c).await;
        load_example(&c, "").await;
        assert_eq!(after(&c, &before, "the menu after Clear").await, own);

        // An example cleared comes back as that example.
        let before = report_seq(&c).await;
        load_example(&c, "real-drift").await;
        after(&c, &before, "an example to clear").await;
        click(&c, "#clear-all").await;
        wait_until(
            &c,
            "document.getElementById('git-input').value === ''",
            "the example cleared",
            20,
        )
        .await;
        let before = report_seq(&c).await;
        click(&c, "#undo").await;
        assert_eq!(
            after(&c, &before, "Undo of clearing an example").await,
            example("real-drift")
        );
        // ... and the user's own input is still in its slot.
        let before = report_seq(&c).await;
        load_example(&c, "").await;
        assert_eq!(
            after(&c, &before, "the user's input, still kept").await,
            own
        );
    });
}

/// Events pasted in their own field are evidence: the HPA's rescale event
/// proves the autoscaler on `spec.replicas`, quoted on the card as text,
/// with a bearer token in the lines masked; a text of no known shape is
/// refused in the events field, naming it.
#[test]
fn pasted_events_prove_the_writer_on_its_card() {
    with_page("events", |c, _| async move {
        let dir = root().join("tests/fixtures/events/autoscaler-1");
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
        let (git, live) = (read("git.yaml"), read("live.yaml"));
        let events = format!(
            "{}checkout    20s                Warning  Failed               pod/orders-1                     Failed to pull: Authorization: Bearer tok_live_8f7e6d5c4b3a\n",
            read("events.txt")
        );
        let before = report_seq(&c).await;
        paste(&c, &git, &live, "insertFromPaste").await;
        wait_new_report(&c, &before, "the pair's report").await;
        assert_eq!(page_causes(&c).await, ["drift"], "without events");
        click(&c, "details.observed-inputs > summary").await;
        let before = report_seq(&c).await;
        type_into(&c, "events-input", &events, "insertFromPaste").await;
        wait_new_report(&c, &before, "the report with events").await;
        assert_eq!(page_causes(&c).await, ["autoscaler"], "the event proves it");
        let proof = js(
            &c,
            "const o = document.querySelector('#report .observation.proves'); return o ? [o.dataset.code, o.querySelector('code.quote').textContent, o.querySelectorAll('code.quote *').length] : null;",
            vec![],
        )
        .await;
        assert_eq!(proof[0], json!("EV001"), "{proof}");
        assert!(
            proof[1]
                .as_str()
                .unwrap()
                .contains("New size: 6; reason: cpu"),
            "{proof}"
        );
        assert_eq!(proof[2], json!(0), "the quote is text: {proof}");
        let page_text = text(&c, "body").await;
        assert!(
            !page_text.contains("tok_live_8f7e6d5c4b3a"),
            "a token on the page"
        );
        // The loop Argo CD's own events record, above the resources.
        let observed_loop = text(&c, "#observed-loop").await;
        assert!(
            observed_loop.contains("4 automated syncs"),
            "{observed_loop}"
        );

        let before_error = js(
            &c,
            "return document.getElementById('events-error').textContent;",
            vec![],
        )
        .await;
        type_into(
            &c,
            "events-input",
            "hello from a chat window\nnot an event at all\n",
            "insertFromPaste",
        )
        .await;
        wait_until(
            &c,
            &format!("document.getElementById('events-error').textContent !== '' && document.getElementById('events-error').textContent !== {before_error}"),
            "the events error",
            30,
        )
        .await;
    });
}

/// "Check before it ships" on the page finds what `drift-doctor check` finds
/// on the same Git side: each finding's code, in order, with its line.
#[test]
fn the_pages_check_finds_what_the_cli_finds() {
    with_page("check", |c, _| async move {
        let git = fixture("autoscaler-hpa-replicas", "git");
        let core = drift_doctor::check::check(&drift_doctor::check::CheckInput {
            git: &git,
            git_again: None,
            app: None,
            argocd_cm: None,
            release: drift_doctor::ArgoCdRelease::default(),
            namespace: None,
        })
        .expect("the core checks the fixture");
        let want: Vec<String> = core
            .findings
            .iter()
            .map(|f| format!("{} line {}", f.rule, f.line))
            .collect();
        assert!(
            want.iter().any(|w| w.starts_with("CK001")),
            "the fixture pins replicas an HPA owns: {want:?}"
        );
        let before = report_seq(&c).await;
        paste(
            &c,
            &git,
            &fixture("autoscaler-hpa-replicas", "live"),
            "insertFromPaste",
        )
        .await;
        wait_new_report(&c, &before, "the fixture's report").await;
        click(&c, "#check-render").await;
        wait_until(
            &c,
            "document.querySelectorAll('#check .check-finding').length > 0",
            "the check's findings",
            60,
        )
        .await;
        let shown = js(
            &c,
            "return [...document.querySelectorAll('#check .check-finding')].map(f => f.querySelector('.check-head code').textContent + ' ' + (f.querySelector('.check-place').textContent.match(/line \\d+/) || [''])[0]);",
            vec![],
        )
        .await;
        let shown: Vec<String> = serde_json::from_value(shown).unwrap();
        assert_eq!(shown, want);
    });
}

/// The examples are the page's bytes alone: the page sends them to the
/// worker for its warm-up, so the worker's wasm, which a first own paste
/// waits for, does not carry them a second time. The page's wasm, which
/// offers them in its menu, is the control: the same lines are found there.
#[test]
fn only_the_page_wasm_carries_the_examples() {
    let dist = dist_dir();
    let page_wasm = std::fs::read_dir(&dist)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("drift-doctor-web-") && name.ends_with("_bg.wasm")
        })
        .expect("the page's wasm in dist/");
    let page = std::fs::read(page_wasm).unwrap();
    let worker = std::fs::read(dist.join("drift-doctor-worker_bg.wasm")).unwrap();
    let holds = |wasm: &[u8], line: &str| wasm.windows(line.len()).any(|w| w == line.as_bytes());
    for ex in drift_doctor::web::examples::EXAMPLES {
        // Each example's longest line: no other text of the program has it.
        let line = ex.live.lines().max_by_key(|l| l.len()).unwrap().trim();
        assert!(line.len() > 60, "{}: {line}", ex.name);
        assert!(
            holds(&page, line),
            "{}: the page's wasm lacks {line}",
            ex.name
        );
        assert!(
            !holds(&worker, line),
            "{}: the worker's wasm carries {line}",
            ex.name
        );
    }
}

/// The names of the files the page's server was asked for, in order.
fn asked(log: &Arc<Mutex<Vec<(String, u16)>>>) -> Vec<String> {
    log.lock().unwrap().iter().map(|(r, _)| r.clone()).collect()
}

/// A paste of the two sides needs only the (lean) analysis worker. Events
/// are read by the full worker, fetched the first time they are pasted;
/// the next paste of two sides is the lean worker's again. With the full
/// worker refused, the events' analysis says why, and the sides are still
/// analysed.
#[test]
fn the_full_worker_is_fetched_only_for_what_the_lean_one_leaves_out() {
    let full_refused = serve_refusing(dist_dir(), &["drift-doctor-full-worker_loader.js"]);
    let full_served = serve(dist_dir());
    let servers = [&full_refused, &full_served];
    let urls = servers.map(|s| format!("http://{}{PREFIX}", s.addr));
    let logs = servers.map(|s| s.log.clone());
    let driver = start_driver("full-worker");
    with_browser(&driver, false, move |c| async move {
        let dir = root().join("tests/fixtures/events/autoscaler-1");
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
        let (git, live, events) = (read("git.yaml"), read("live.yaml"), read("events.txt"));
        let fetched_full = |log| {
            asked(log)
                .iter()
                .filter(|r| r.contains("full-worker_loader"))
                .count()
        };
        for (served, (url, log)) in urls.iter().zip(&logs).enumerate() {
            let served = served == 1;
            c.goto(url).await.expect("open the page");
            wait_ready(&c, "the default report").await;
            let before = report_seq(&c).await;
            paste(&c, &git, &live, "insertFromPaste").await;
            wait_new_report(&c, &before, "the pair's report").await;
            assert_eq!(page_causes(&c).await, ["drift"], "without events");
            assert_eq!(fetched_full(log), 0, "{:?}", asked(log));
            click(&c, "details.observed-inputs > summary").await;
            type_into(&c, "events-input", &events, "insertFromPaste").await;
            let answered = if served {
                "document.querySelector('#report .observation.proves')"
            } else {
                "document.body.textContent.includes('the full worker failed')"
            };
            wait_until(&c, answered, "the events' answer", 60).await;
            assert_eq!(fetched_full(log), 1, "{:?}", asked(log));
            if served {
                assert_eq!(page_causes(&c).await, ["autoscaler"], "the event proves it");
            }
            // Without events, the lean worker analyses the sides again.
            let before = report_seq(&c).await;
            type_into(&c, "events-input", "", "deleteContentBackward").await;
            wait_new_report(&c, &before, "the report without events").await;
            assert_eq!(page_causes(&c).await, ["drift"], "without events again");
            assert_eq!(fetched_full(log), 1, "started once: {:?}", asked(log));
        }
    });
    let refused = asked(&full_refused.log);
    assert!(
        refused.iter().all(|r| !r.contains("full-worker_bg.wasm")),
        "{refused:?}"
    );
}
