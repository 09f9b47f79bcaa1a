//! A careful new user's tries: nothing pasted is lost, the first screen
//! answers, results are announced.

use super::*;

/// A careful new user's tries: nothing pasted is lost, views follow the
/// report, empty is not an error, diff output finds its field, links show
/// what the sender saw, the first screen answers, rules are findable,
/// results are announced, fixes read as what they are.
pub(crate) async fn careful_user(c: &Client, clipboard: bool) {
    let (hook_git, hook_live) = (
        fixture("webhook-cabundle-cainjector", "git"),
        fixture("webhook-cabundle-cainjector", "live"),
    );
    let hook = core_report(&hook_git, &hook_live);

    // Never lose what the user pasted: moving through the Example menu
    // loads nothing; Load does, with an Undo; Clear has an Undo too.
    let before = report_seq(c).await;
    paste(c, &hook_git, &hook_live, "insertFromPaste").await;
    wait_new_report(c, &before, "the user's own pair").await;
    let own = report_seq(c).await;
    if let Ok(menu) = c.find(fantoccini::Locator::Id("example")).await {
        let _ = menu.send_keys("\u{E015}\u{E015}").await; // arrow down twice
    }
    js(c, "const s = document.getElementById('example'); s.value = 'real-drift'; s.dispatchEvent(new Event('change', {bubbles: true})); s.dispatchEvent(new Event('input', {bubbles: true})); return true;", vec![]).await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(
        js(c, "return [document.getElementById('report').dataset.seq, document.getElementById('git-input').value === arguments[0], document.getElementById('live-input').value === arguments[1]];", vec![json!(hook_git), json!(hook_live)]).await,
        json!([own, true, true]),
        "choosing in the Example menu replaces nothing"
    );
    click(c, "#load-example").await;
    wait_new_report(c, &own, "the loaded example").await;
    let drift = core_report(
        &fixture("real-drift", "git"),
        &fixture("real-drift", "live"),
    );
    assert_eq!(page_summary(c).await, core_summary(&drift));
    assert!(
        text(c, "#notice").await.contains("Example loaded"),
        "{}",
        text(c, "#notice").await
    );
    let before = report_seq(c).await;
    click(c, "#undo").await;
    wait_new_report(c, &before, "the input before the example").await;
    assert_eq!(
        js(c, "return [document.getElementById('git-input').value === arguments[0], document.getElementById('live-input').value === arguments[1], !!document.getElementById('undo')];", vec![json!(hook_git), json!(hook_live)]).await,
        json!([true, true, false]),
        "Undo brings the user's input back"
    );
    assert_eq!(page_summary(c).await, core_summary(&hook));
    click(c, "#clear-all").await;
    wait_until(c, "document.getElementById('report').dataset.state === 'empty' && document.getElementById('undo')", "Clear with an Undo", 10).await;
    assert!(text(c, "#notice").await.contains("Cleared"));
    click(c, "#undo").await;
    wait_new_report(c, "", "the input before Clear").await;
    assert_eq!(page_summary(c).await, core_summary(&hook));

    // The first screen answers: at 1280×720 the summary and the plan (or,
    // with no plan, the first finding) show without scrolling once an
    // analysis is done.
    cdp(
        c,
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": false }),
    )
    .await;
    let before = report_seq(c).await;
    load_example(c, "mixed-app").await;
    wait_new_report(c, &before, "the default example").await;
    js(c, "window.scrollTo(0, 0); document.activeElement && document.activeElement.blur(); return true;", vec![]).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let first = js(
        c,
        "const h = window.innerHeight, w = window.innerWidth;
         const r = sel => { const e = document.querySelector(sel); return e ? e.getBoundingClientRect().bottom : 1e9; };
         return { h, w, summary: r('.summary'), plan: r('#plan .plan-verification'), finding: r('.card .diff .diff-head'), scroll: window.scrollY };",
        vec![],
    )
    .await;
    save_screenshot(c, "first-screen-1280x720").await;
    assert_eq!(
        (first["w"].as_f64(), first["h"].as_f64()),
        (Some(1280.0), Some(720.0)),
        "{first}"
    );
    assert!(
        first["summary"].as_f64().unwrap() <= 720.0
            && (first["plan"].as_f64().unwrap() <= 720.0
                || first["finding"].as_f64().unwrap() <= 720.0),
        "the summary and the plan or the first finding are on the first screen: {first}"
    );
    cdp(c, "Emulation.clearDeviceMetricsOverride", json!({})).await;

    // Results are announced: a polite live region with the counts.
    let mixed = core_report(&fixture("mixed-app", "git"), &fixture("mixed-app", "live"));
    let announcer = js(c, "const a = document.getElementById('announcer'); return [a.getAttribute('aria-live'), a.textContent];", vec![]).await;
    assert_eq!(announcer[0], json!("polite"));
    let said = announcer[1].as_str().unwrap();
    assert!(
        said.starts_with(&format!(
            "Report: {} resources, {} out of sync",
            mixed.summary.resources, mixed.summary.out_of_sync
        )),
        "{said}"
    );
    click(c, ".summary .cause-row[data-cause='autoscaler']").await;
    wait_until(
        c,
        "document.getElementById('announcer').textContent.startsWith('Showing')",
        "the filter's announcement",
        10,
    )
    .await;
    let listed = js(
        c,
        "return document.querySelectorAll('.card').length;",
        vec![],
    )
    .await;
    let n = listed.as_u64().unwrap();
    assert_eq!(
        text(c, "#announcer").await,
        format!(
            "Showing {n} {} with {} differences.",
            if n == 1 { "resource" } else { "resources" },
            drift_doctor::Cause::Autoscaler.label()
        )
    );
    click(c, ".summary .cause-row[data-cause='autoscaler']").await;
    wait_until(
        c,
        "!document.querySelector('.cause-row.pressed')",
        "the filter off",
        10,
    )
    .await;

    // Value boxes are not each a Tab stop.
    let stops = js(
        c,
        "const all = [...document.querySelectorAll('#report *')].filter(e => e.tabIndex >= 0 && !e.disabled && e.getClientRects().length);
         return [all.length, all.filter(e => e.matches('code.value')).length, document.querySelectorAll('#report .value').length];",
        vec![],
    )
    .await;
    assert_eq!(stops[1], json!(0), "values are not Tab stops: {stops}");
    assert!(
        stops[2].as_u64() > Some(4),
        "the report shows values: {stops}"
    );
    assert!(
        stops[0].as_u64() < Some(59),
        "Tab stops through the default report: {stops}"
    );

    // "Copied." clears itself.
    let card_sel = "[data-id='apps/Deployment/shop/storefront']";
    if clipboard {
        click(
            c,
            &format!("{card_sel} .tabs [role=tabpanel]:not([hidden]) button.copy"),
        )
        .await;
        wait_until(c, &format!("document.querySelector(\"{card_sel} .tabs .copy-status\").textContent === 'Copied.'"), "Copied.", 10).await;
        wait_until(
            c,
            &format!(
                "document.querySelector(\"{card_sel} .tabs .copy-status\").textContent === ''"
            ),
            "Copied. to go away",
            10,
        )
        .await;
    } else {
        eprintln!("note: clipboard permissions not granted; 'Copied.' not checked");
    }

    // Fixes read as what they are: one box per field, naming it as the
    // differences do; "Stop the loop first" only when something loops, and
    // not repeated by its step.
    let groups = js(
        c,
        "return [...document.querySelectorAll('.card')].filter(c => c.querySelector('.fix-group')).map(card => ({
            paths: [...card.querySelectorAll('.diff code.path')].map(e => e.textContent),
            groups: [...card.querySelectorAll('.fix-group')].map(g => [...g.querySelectorAll('.fix-field code.path')].map(e => e.textContent)),
        }));",
        vec![],
    )
    .await;
    assert!(!groups.as_array().unwrap().is_empty(), "cards with fixes");
    for card in groups.as_array().unwrap() {
        let paths: Vec<&str> = card["paths"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p.as_str())
            .collect();
        let mut seen = Vec::new();
        for g in card["groups"].as_array().unwrap() {
            for f in g.as_array().unwrap() {
                let f = f.as_str().unwrap();
                assert!(
                    paths.contains(&f) && !f.starts_with(['.', '/']),
                    "the fix box names {f}, a field of the card as the report names it ({paths:?})"
                );
                assert!(
                    !seen.contains(&f),
                    "one fix box per field: {f} twice in {card}"
                );
                seen.push(f);
            }
        }
    }
    js(
        c,
        &format!("document.querySelector(\"{card_sel} .fix-list\").scrollIntoView(); return true;"),
        vec![],
    )
    .await;
    save_screenshot(c, "fixes").await;
    let emergency = js(c, "return [document.getElementById('emergency-h').textContent, [...document.querySelectorAll('.emergency li')].map(l => l.textContent)];", vec![]).await;
    assert_eq!(emergency[0], json!("Stop the loop first"));
    for step in emergency[1].as_array().unwrap() {
        assert!(
            !step.as_str().unwrap().starts_with("Stop the loop first"),
            "{step}"
        );
    }
    let before = report_seq(c).await;
    load_example(c, "real-drift").await;
    wait_new_report(c, &before, "pure drift").await;
    assert_ne!(
        text(c, "#emergency-h").await,
        "Stop the loop first",
        "pure drift has no loop to stop"
    );
    // Plurals and "skipped", on a one-resource input with a controller's object.
    let one_git = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n  namespace: shop\ndata:\n  k: a\n";
    let one_live = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n  namespace: shop\ndata:\n  k: b\n---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web-7d4b9\n  namespace: shop\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: web\n    uid: 1f0c\n    controller: true\nspec:\n  replicas: 1\n";
    let one = core_report(one_git, one_live);
    assert!(
        one.summary.resources == 1 && one.summary.skipped >= 1,
        "{:?}",
        one.summary
    );
    let before = report_seq(c).await;
    paste(c, one_git, one_live, "insertFromPaste").await;
    wait_new_report(c, &before, "one resource").await;
    assert_eq!(
        js(c, "return [document.querySelector('.stat-resources .stat-l').textContent, document.querySelector('.card-count').textContent, document.querySelector('.stat-skipped .stat-n').textContent];", vec![]).await,
        json!(["resource", "1 difference", one.summary.skipped.to_string()])
    );
    let skipped = text(c, "#skipped-note").await;
    assert!(
        skipped.contains("skipped") && skipped.contains("controller"),
        "{skipped}"
    );

    // Empty is not an error: an untouched empty side shows the command
    // that prints it, and what is missing is said when the user asks.
    click(c, "#clear-all").await;
    wait_until(
        c,
        "document.getElementById('report').dataset.state === 'empty'",
        "the cleared page",
        10,
    )
    .await;
    type_into(c, "git-input", &hook_git, "insertFromPaste").await;
    wait_until(c, "document.querySelector('.waiting-note') && document.getElementById('report').dataset.state === 'empty'", "the waiting note", 10).await;
    assert_eq!(
        js(c, "return [document.getElementById('live-error').textContent, document.getElementById('live-input').getAttribute('aria-invalid'), document.getElementById('live-input').placeholder.includes('argocd app manifests APP --source live'), document.querySelector('.waiting-note').textContent.includes('argocd app manifests APP --source live'), document.querySelectorAll('#report .error-text').length];", vec![]).await,
        json!(["", "false", true, true, 0]),
        "an untouched empty live side: a placeholder with the command, no error"
    );
    click(c, "button.analyze").await;
    wait_until(c, "document.getElementById('live-error').textContent.includes('argocd app manifests APP --source live')", "what is missing, when asked", 10).await;
    click(c, "#mode-diff").await;
    wait_until(c, "document.querySelector('.waiting-note') && document.querySelector('.waiting-note').textContent.includes('argocd app diff APP')", "the diff box's note", 10).await;
    assert_eq!(
        js(c, "return [document.getElementById('diff-error').textContent, document.getElementById('diff-input').placeholder.includes('argocd app diff APP')];", vec![]).await,
        json!(["", true])
    );

    // Diff output typed or dropped into a YAML side switches to diff mode.
    let diff_text =
        std::fs::read_to_string(root().join("tests/fixtures/difftext/argo_normal.txt")).unwrap();
    let from_diff = drift_doctor::analyze_diff(&diff_text, &page_options(false)).unwrap();
    for how in ["insertText", "insertFromDrop"] {
        click(c, "#mode-sides").await;
        wait_until(
            c,
            "!document.getElementById('live-input').closest('.editors').hidden",
            "both sides",
            10,
        )
        .await;
        let before = report_seq(c).await;
        type_into(c, "live-input", &diff_text, how).await;
        wait_new_report(c, &before, "the typed diff output's report").await;
        assert_eq!(
            js(c, "return [document.getElementById('mode-diff').checked, document.getElementById('diff-input').value === arguments[0], document.getElementById('live-input').value];", vec![json!(diff_text)]).await,
            json!([true, true, ""]),
            "{how}: diff output moves to the diff field"
        );
        assert_eq!(page_summary(c).await, core_summary(&from_diff));
    }

    // A link shows what the sender saw: the example, the cause filter, the
    // hidden differences, the open card and the same evidence.
    click(c, "#mode-sides").await;
    let before = report_seq(c).await;
    load_example(c, "mixed-app").await;
    wait_new_report(c, &before, "the example to share").await;
    click(c, ".summary .cause-row[data-cause='autoscaler']").await;
    let before = report_seq(c).await;
    click(c, "#show-hidden").await;
    wait_new_report(c, &before, "hidden differences shown").await;
    js(c, &format!("const b = document.querySelector(\"{card_sel} .card-toggle\"); if (b.getAttribute('aria-expanded') === 'true') b.click(); return true;"), vec![]).await;
    click(c, &format!("{card_sel} .card-toggle")).await;
    let seen = "return {
        example: document.getElementById('example').value,
        exampleName: (document.getElementById('example-name') || {}).textContent || '',
        filter: [...document.querySelectorAll('.cause-row.pressed')].map(e => e.dataset.cause),
        hidden: document.getElementById('show-hidden').checked,
        hiddenShown: document.querySelectorAll('.diff-hidden').length,
        cards: [...document.querySelectorAll('.card')].map(c => c.dataset.id),
        open: [...document.querySelectorAll('.card-toggle[aria-expanded=true]')].map(b => b.closest('.card').dataset.id).filter(id => id === arguments[0]),
        evidence: [...document.querySelectorAll('.card .evidence')].map(e => e.textContent),
        stats: [...document.querySelectorAll('.stat')].map(e => e.textContent),
    };";
    let sent = js(c, seen, vec![json!("apps/Deployment/shop/storefront")]).await;
    assert_eq!(sent["filter"], json!(["autoscaler"]), "{sent}");
    let link = copy_link(c).await;
    let main = in_new_window(c, &link).await;
    wait_ready(c, "the linked report").await;
    wait_until(
        c,
        "document.querySelector('.card.selected')",
        "the sender's card",
        20,
    )
    .await;
    let received = js(c, seen, vec![json!("apps/Deployment/shop/storefront")]).await;
    assert_eq!(received, sent, "the receiver sees what the sender saw");
    back_to(c, main).await;

    // Views stay live: an open YAML view follows a new analysis (the hidden
    // toggle, an edit).
    js(c, &format!("const b = document.querySelector(\"{card_sel} .yaml-toggle\"); if (b.getAttribute('aria-expanded') !== 'true') b.click(); return true;"), vec![]).await;
    let sbs = format!("document.querySelector(\"{card_sel} .sbs-table\")");
    wait_until(c, &sbs, "the YAML view", 30).await;
    click(c, "#show-hidden").await; // off: no new analysis needed
    let before = report_seq(c).await;
    click(c, "#show-hidden").await; // on again: a new analysis
    wait_new_report(c, &before, "the report with hidden differences").await;
    wait_until(c, &sbs, "the YAML view after the hidden toggle", 30).await;
    let before = report_seq(c).await;
    type_into(
        c,
        "live-input",
        &format!("{}\n# edited\n", fixture("mixed-app", "live")),
        "insertText",
    )
    .await;
    wait_new_report(c, &before, "the edited input's report").await;
    wait_until(c, &sbs, "the YAML view after an edit", 30).await;

    // Rules are findable: filter by text, cause and kind, each with its
    // example; "Back to the report" returns focus where the user was.
    js(c, &format!("const a = document.querySelector(\"{card_sel} a.rule-link\"); window.__from = a; a.focus(); a.click(); return true;"), vec![]).await;
    wait_until(c, "location.hash.startsWith('#rule-') && document.querySelector('.analysis').hidden && document.getElementById('rules-text')", "the rules view", 10).await;
    let count = "return document.querySelectorAll('article.rule').length;";
    let all = js(c, count, vec![]).await.as_u64().unwrap();
    assert!(all > 10, "{all} rules");
    // An example shows Git and live, or the diff output it is read from.
    let without_example = js(c, "return [...document.querySelectorAll('article.rule')].filter(r => !r.id.startsWith('rule-SE')).filter(r => { const pres = r.querySelectorAll('.rule-example pre'); return !(pres.length === 2 || (pres.length === 1 && pres[0].dataset.example === 'diff')); }).map(r => r.id);", vec![]).await;
    let catalog = drift_doctor::rules::catalog();
    let no_example: Vec<String> = catalog
        .rules
        .iter()
        .filter(|r| r.examples.is_empty())
        .map(|r| format!("rule-{}", r.code))
        .collect();
    assert_eq!(
        without_example,
        json!(no_example),
        "every rule with an example shows it"
    );
    let set = |id: &'static str, value: &'static str, event: &'static str| {
        format!("const e = document.getElementById('{id}'); e.value = '{value}'; e.dispatchEvent(new Event('{event}', {{bubbles: true}})); return true;")
    };
    js(c, &set("rules-text", "cabundle", "input"), vec![]).await;
    wait_until(
        c,
        &format!("document.querySelectorAll('article.rule').length < {all}"),
        "the text filter",
        10,
    )
    .await;
    let off = js(c, "return [...document.querySelectorAll('article.rule')].filter(r => !r.textContent.toLowerCase().includes('cabundle')).length;", vec![]).await;
    assert_eq!(off, json!(0));
    assert!(text(c, "#rules-count")
        .await
        .ends_with(&format!("of {all}.")));
    // A sync error's code finds its pattern, and words of an evidence
    // sentence (found in no docs section of its rule) find the rule.
    js(c, &set("rules-text", "SE001", "input"), vec![]).await;
    wait_until(
        c,
        "document.querySelectorAll('article.rule').length === 1 && document.getElementById('rule-SE001')",
        "a sync error's code",
        10,
    )
    .await;
    let (code, words) = catalog
        .rules
        .iter()
        .find_map(|r| {
            // The text between the `{variables}`, cut at punctuation.
            let run = r
                .evidence
                .split('{')
                .map(|p| p.split_once('}').map_or(p, |(_, rest)| rest))
                .flat_map(|p| p.split(['`', '\'', '(', ')', ':', ';', '.']))
                .map(str::trim)
                .find(|w| {
                    w.len() > 30
                        && w.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == ',')
                })?;
            let in_docs = r.docs.sections().iter().any(|(_, t)| t.contains(run));
            (!in_docs).then(|| (r.code.clone(), run.to_string()))
        })
        .expect("a rule whose evidence has words of its own");
    js(
        c,
        &format!("const e = document.getElementById('rules-text'); e.value = {}; e.dispatchEvent(new Event('input', {{bubbles: true}})); return true;", json!(words)),
        vec![],
    )
    .await;
    wait_until(
        c,
        &format!("!!document.getElementById('rule-{code}') && document.querySelectorAll('article.rule').length < {all}"),
        "an evidence sentence's words",
        10,
    )
    .await;
    js(c, &set("rules-text", "", "input"), vec![]).await;
    js(c, &set("rules-cause", "autoscaler", "change"), vec![]).await;
    wait_until(
        c,
        &format!("document.querySelectorAll('article.rule').length < {all}"),
        "the cause filter",
        10,
    )
    .await;
    assert_eq!(js(c, "return [...new Set([...document.querySelectorAll('article.rule')].map(r => r.dataset.cause))];", vec![]).await, json!(["autoscaler"]));
    js(c, &set("rules-cause", "", "change"), vec![]).await;
    js(
        c,
        &set("rules-kind", "HorizontalPodAutoscaler", "change"),
        vec![],
    )
    .await;
    wait_until(c, &format!("document.querySelectorAll('article.rule').length < {all} && document.querySelectorAll('article.rule').length > 0"), "the kind filter", 10).await;
    let other_kinds = js(c, "return [...document.querySelectorAll('article.rule .rule-kinds')].map(k => k.textContent).filter(k => !(k.includes('HorizontalPodAutoscaler') || k.includes('*') || k === 'any kind'));", vec![]).await;
    assert_eq!(
        other_kinds,
        json!([]),
        "the kind filter keeps that kind's rules"
    );
    click(c, "#back-to-report").await;
    wait_until(
        c,
        "!document.querySelector('.analysis').hidden",
        "the report again",
        10,
    )
    .await;
    wait_until(
        c,
        "document.activeElement === window.__from",
        "the focus back on the rule link",
        10,
    )
    .await;
    save_screenshot(c, "back-to-report").await;
}
