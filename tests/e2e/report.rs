//! The default example's report on load, its fixes, hidden differences, the
//! YAML side by side, the rules view, pasted pairs and input errors, in one
//! browser session that goes on with the other areas' checks; requests and
//! the Content-Security-Policy at the end.

use super::*;
use crate::careful_user::careful_user;
use crate::sharing::input_modes_and_links;

#[test]
fn page_end_to_end() {
    let dist = dist_dir();
    let server = Arc::new(serve(dist));
    let driver = start_driver("e2e");
    with_browser(
        &driver,
        false,
        move |c| async move { checks(&c, &server).await },
    );
}

async fn checks(c: &Client, server: &Server) {
    let origin = format!("http://{}", server.addr);
    let url = format!("{origin}{PREFIX}");
    c.goto(&url).await.expect("open the page");

    // 1. The default example is analysed on load.
    wait_until(c, "document.getElementById('report') && document.getElementById('report').dataset.state === 'ready'", "the default report", 60).await;
    let mixed = core_report(&fixture("mixed-app", "git"), &fixture("mixed-app", "live"));
    let causes = page_causes(c).await;
    for want in ["autoscaler", "mutating-webhook", "reloader", "drift"] {
        assert!(
            causes.iter().any(|c| c == want),
            "cause {want} missing from the summary: {causes:?}"
        );
    }
    assert_eq!(
        causes,
        expected_causes(&mixed),
        "the page's causes are the core's"
    );
    assert_eq!(stat(c, "stat-out").await, mixed.summary.out_of_sync);
    assert_eq!(stat(c, "stat-resources").await, mixed.summary.resources);
    let emergency = js(
        c,
        "return document.querySelectorAll('.emergency li').length;",
        vec![],
    )
    .await;
    assert_eq!(
        emergency.as_u64(),
        Some(mixed.emergency.len() as u64),
        "emergency steps"
    );

    // The worker's own report of it follows the one made with the page. Its
    // proposed fixes are checked with jq, so the worker loads the jq module
    // and answers again from the texts it holds: no expression is skipped
    // for want of the module.
    wait_until(
        c,
        "performance.getEntriesByName('drift-doctor:report-shown').length > 0 && document.getElementById('report').dataset.state === 'ready'",
        "the worker's own report of the default example",
        60,
    )
    .await;
    let warnings = js(
        c,
        "const w = document.querySelector('section.warnings'); return w ? w.textContent : '';",
        vec![],
    )
    .await;
    assert!(
        !warnings.as_str().unwrap_or_default().contains("jq module"),
        "the worker's report was made without the jq module: {warnings}"
    );
    assert_eq!(stat(c, "stat-out").await, mixed.summary.out_of_sync);

    // Screenshot (the artifact) of the default view.
    let shots = root().join("target/e2e");
    std::fs::create_dir_all(&shots).unwrap();
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(shots.join("page.png"), &png).unwrap();

    // 2. Every fix of the core is in the page once (identical fixes merged),
    //    as what it is: ignore fixes are code in two tabs (Application,
    //    argocd-cm) split at the first `---` line, and the object's own
    //    annotation below them from 3.6; a Git or render fix is
    //    prose without a copy button; a sync-order fix is prose and code.
    let cards = js(
        c,
        "return [...document.querySelectorAll('.card')].map(card => ({
            id: card.dataset.id,
            fixes: [...card.querySelectorAll('.fix')].map(f => {
                const panels = [...f.querySelectorAll('[role=tabpanel] pre')];
                const prose = [...f.querySelectorAll('.fix-prose p')].map(p => p.textContent).join('\\n\\n');
                const pre = f.querySelector(':scope > .snippet pre');
                return {
                    kind: f.dataset.kind,
                    text: panels.length ? panels[0].textContent + '---\\n' + panels[1].textContent
                            + (pre ? '---\\n' + pre.textContent : '')
                        : prose + (pre ? (prose ? '\\n\\n' : '') + pre.textContent : ''),
                    copy: f.querySelectorAll('button.copy').length,
                    pre: f.querySelectorAll('pre').length,
                };
            })
        }));",
        vec![],
    )
    .await;
    let cards = cards.as_array().unwrap();
    let mut checked = 0;
    let mut ignore_fixes = 0;
    let mut prose_fixes = 0;
    for card in cards {
        let id = card["id"].as_str().unwrap();
        let res = mixed
            .resources
            .iter()
            .find(|r| r.id == id)
            .unwrap_or_else(|| panic!("card {id} not in the core's report"));
        let fixes = card["fixes"].as_array().unwrap();
        if fixes.is_empty() {
            continue; // closed card (synced)
        }
        let mut want: Vec<(String, String)> = Vec::new();
        for f in &res.fixes {
            let w = (fix_kind_id(f.kind).to_string(), shown_fix_text(f));
            if !want.contains(&w) {
                want.push(w);
            }
        }
        let mut got: Vec<(String, String)> = fixes
            .iter()
            .map(|f| {
                (
                    f["kind"].as_str().unwrap().to_string(),
                    f["text"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let n = got.len();
        got.sort();
        got.dedup();
        assert_eq!(got.len(), n, "a fix shown twice in {id}: {got:?}");
        want.sort();
        assert_eq!(got, want, "the fixes of {id}");
        for f in fixes {
            checked += 1;
            match f["kind"].as_str().unwrap() {
                "ignore" => ignore_fixes += 1,
                "git" | "render" => {
                    prose_fixes += 1;
                    assert_eq!(
                        (f["pre"].as_u64(), f["copy"].as_u64()),
                        (Some(0), Some(0)),
                        "a prose fix is text, without a code box or Copy: {f}"
                    );
                    assert!(
                        !f["text"].as_str().unwrap().contains('`'),
                        "no literal backticks: {f}"
                    );
                }
                _ => {}
            }
        }
    }
    assert!(
        checked >= 4 && ignore_fixes >= 2 && prose_fixes >= 1,
        "checked {checked} fixes ({ignore_fixes} ignore fixes, {prose_fixes} prose)"
    );

    // The copy button copies the visible tab's text: to the clipboard when the
    // browser allows it (granted below), and it says so.
    let granted = c
        .issue_cmd(Raw {
            method: http::Method::POST,
            path: "permissions",
            body: Some(json!({ "descriptor": { "name": "clipboard-read" }, "state": "granted" })),
        })
        .await
        .is_ok()
        && c.issue_cmd(Raw {
            method: http::Method::POST,
            path: "permissions",
            body: Some(json!({ "descriptor": { "name": "clipboard-write" }, "state": "granted" })),
        })
        .await
        .is_ok();
    let deploy = mixed
        .resources
        .iter()
        .find(|r| r.id == "apps/Deployment/shop/storefront")
        .expect("the Deployment");
    let first_ignore = deploy
        .fixes
        .iter()
        .find(|f| f.kind == FixKind::Ignore)
        .expect("an ignore fix");
    let (app_form, cm_form) = drift_doctor::fixes::snippet_forms(&first_ignore.snippet);
    let cm_form = cm_form.expect("two forms");
    let card_sel = "[data-id='apps/Deployment/shop/storefront']";
    js(c, &format!("document.querySelector(\"{card_sel} .tabs [role=tabpanel]:not([hidden]) button.copy\").click(); return true;"), vec![]).await;
    wait_until(
        c,
        &format!("document.querySelector(\"{card_sel} .tabs .copy-status\").textContent !== ''"),
        "the copy status",
        10,
    )
    .await;
    let status = js(
        c,
        &format!("return document.querySelector(\"{card_sel} .tabs .copy-status\").textContent;"),
        vec![],
    )
    .await;
    if granted {
        assert_eq!(status.as_str(), Some("Copied."), "copy status");
        let copied = c
            .execute_async("const done = arguments[arguments.length - 1]; navigator.clipboard.readText().then(done, () => done(null));", vec![])
            .await
            .unwrap();
        match copied.as_str() {
            Some(text) => assert_eq!(
                text,
                format!("{app_form}\n"),
                "clipboard holds the Application form"
            ),
            None => {
                eprintln!("note: the clipboard could not be read back; compared the DOM text only")
            }
        }
    } else {
        eprintln!("note: clipboard permissions not granted by chromedriver; copy status: {status}");
    }
    // The argocd-cm tab.
    js(c, &format!("document.querySelector(\"{card_sel} .tabs [role=tab]:nth-child(2)\").click(); return true;"), vec![]).await;
    wait_until(
        c,
        &format!("!document.querySelectorAll(\"{card_sel} .tabs [role=tabpanel]\")[1].hidden"),
        "the argocd-cm tab",
        10,
    )
    .await;
    let cm_text = js(c, &format!("return document.querySelector(\"{card_sel} .tabs [role=tabpanel]:not([hidden]) pre\").textContent;"), vec![]).await;
    assert_eq!(cm_text.as_str(), Some(cm_form), "the argocd-cm form");

    // 3. Hidden differences on request, with their reason.
    assert_eq!(
        js(
            c,
            "return document.querySelectorAll('.diff-hidden').length;",
            vec![]
        )
        .await
        .as_u64(),
        Some(0)
    );
    js(
        c,
        "document.getElementById('show-hidden').click(); return true;",
        vec![],
    )
    .await;
    wait_until(
        c,
        "document.querySelectorAll('.diff-hidden .hidden-reason').length > 0",
        "hidden differences",
        10,
    )
    .await;
    let with_hidden = analyze(
        &fixture("mixed-app", "git"),
        &fixture("mixed-app", "live"),
        &page_options(true),
    )
    .unwrap();
    let hidden_core: usize = with_hidden
        .resources
        .iter()
        .filter(|r| r.status == drift_doctor::Status::OutOfSync)
        .map(|r| r.differences.iter().filter(|d| !d.visible).count())
        .sum();
    let hidden_page = js(
        c,
        "return document.querySelectorAll('.diff-hidden').length;",
        vec![],
    )
    .await;
    assert_eq!(
        hidden_page.as_u64(),
        Some(hidden_core as u64),
        "hidden differences of the open cards"
    );
    js(
        c,
        "document.getElementById('show-hidden').click(); return true;",
        vec![],
    )
    .await;
    wait_until(c, "document.querySelectorAll('.diff-hidden').length === 0 && document.getElementById('report').dataset.state === 'ready'", "hidden differences hidden again", 30).await;

    // 4. The YAML side by side, on demand, with the differing lines marked.
    js(
        c,
        &format!("document.querySelector(\"{card_sel} .yaml-toggle\").click(); return true;"),
        vec![],
    )
    .await;
    wait_until(
        c,
        &format!("document.querySelectorAll(\"{card_sel} .sbs-table .only-live\").length > 0"),
        "the YAML diff",
        30,
    )
    .await;
    let marked = js(c, &format!("return [...document.querySelectorAll(\"{card_sel} .sbs-table .only-live\")].map(e => e.textContent).join('\\n');"), vec![]).await;
    assert!(
        marked.as_str().unwrap().contains("replicas: 8"),
        "the live replicas line is marked: {marked}"
    );
    js(
        c,
        &format!("document.querySelector(\"{card_sel} .sbs-wrap\").scrollIntoView(); return true;"),
        vec![],
    )
    .await;
    save_screenshot(c, "yaml-diff").await;

    // 5. A rule link opens the rule in the rules view; back returns.
    js(
        c,
        &format!("document.querySelector(\"{card_sel} a.rule-link\").click(); return true;"),
        vec![],
    )
    .await;
    wait_until(c, "location.hash.startsWith('#rule-') && document.querySelector(location.hash) && document.querySelector('.analysis').hidden", "the rules view", 10).await;
    let rule = js(
        c,
        "return document.querySelector(location.hash + ' h3').textContent;",
        vec![],
    )
    .await;
    assert!(
        rule.as_str().unwrap().starts_with("AS001"),
        "the finding links to its rule: {rule}"
    );
    save_screenshot(c, "rules").await;
    c.back().await.unwrap();
    wait_until(
        c,
        "!document.querySelector('.analysis').hidden",
        "the analysis view again",
        10,
    )
    .await;

    // 6. Pasting another pair updates the report (no debounce for a paste).
    let before = report_seq(c).await;
    let (git, live) = (
        fixture("webhook-cabundle-cainjector", "git"),
        fixture("webhook-cabundle-cainjector", "live"),
    );
    paste(c, &git, &live, "insertFromPaste").await;
    wait_new_report(c, &before, "the pasted pair's report").await;
    let webhook = core_report(&git, &live);
    assert_eq!(page_causes(c).await, expected_causes(&webhook));
    assert_eq!(stat(c, "stat-out").await, webhook.summary.out_of_sync);
    assert_eq!(
        js(
            c,
            "return document.getElementById('example').value;",
            vec![]
        )
        .await,
        json!(""),
        "the example menu shows 'your own input'"
    );

    // A large paste stays out of the textarea (a multi-megabyte textarea
    // freezes the page) and is analysed in full.
    let filler = "x".repeat(400_000);
    let big_live = format!("{live}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  namespace: cert-manager\ndata:\n  blob: {filler}\n");
    let big = core_report(&git, &big_live);
    let before = report_seq(c).await;
    js(
        c,
        "const dt = new DataTransfer(); dt.setData('text/plain', arguments[0]);
         document.getElementById('live-input').dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true}));
         return true;",
        vec![json!(big_live)],
    )
    .await;
    wait_new_report(c, &before, "the large paste's report").await;
    assert_eq!(stat(c, "stat-resources").await, big.summary.resources);
    let held = js(c, "return [!!document.getElementById('live-big'), document.getElementById('live-input').hidden, document.getElementById('live-input').value.length];", vec![]).await;
    assert_eq!(
        held,
        json!([true, true, 0]),
        "the large side is held outside the textarea"
    );
    let before = report_seq(c).await;
    paste(c, &git, &live, "insertFromPaste").await;
    wait_new_report(c, &before, "the small pair again").await;

    // 7. A malformed document: the error, with its line, under the live editor.
    let bad_live = format!("{live}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\n  labels: [a, b\ndata:\n  k: v\n");
    let err =
        analyze(&git, &bad_live, &page_options(false)).expect_err("the core rejects the input");
    assert_eq!(err.side, drift_doctor::Side::Live);
    js(
        c,
        "const l = document.getElementById('live-input'); l.value = arguments[0];
         l.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertText'})); return true;",
        vec![json!(bad_live)],
    )
    .await;
    let shown = live_error(c).await;
    assert!(
        shown.contains(&format!("Line {}", err.line)),
        "error shows line {}: {shown}",
        err.line
    );
    assert!(
        shown.contains(&err.message),
        "error shows the core's message: {shown}"
    );
    assert_eq!(
        js(
            c,
            "return document.getElementById('git-error').textContent;",
            vec![]
        )
        .await,
        json!(""),
        "no error under Git"
    );
    assert_eq!(
        js(
            c,
            "return document.getElementById('live-input').getAttribute('aria-invalid');",
            vec![]
        )
        .await,
        json!("true")
    );
    assert_eq!(
        js(
            c,
            "return document.getElementById('report').dataset.state;",
            vec![]
        )
        .await,
        json!("error")
    );
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(root().join("target/e2e/input-error.png"), &png).unwrap();

    // Back to an example from the menu.
    let before = report_seq(c).await;
    load_example(c, "mixed-app").await;
    wait_new_report(c, &before, "the example again").await;
    assert_eq!(
        js(
            c,
            "return document.getElementById('live-error').textContent;",
            vec![]
        )
        .await,
        json!(""),
        "the error is gone"
    );

    // 8. Diff output, the user's settings, links, share files, downloads,
    //    reload and Clear.
    input_modes_and_links(c, &origin).await;
    careful_user(c, granted).await;

    // 9. Every control has a label.
    let unlabelled = js(
        c,
        "return [...document.querySelectorAll('input, select, textarea, button')]
            .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
            .map(e => e.outerHTML.slice(0, 80));",
        vec![],
    )
    .await;
    assert_eq!(unlabelled, json!([]), "controls without a label");

    // 10. Readable at 200% zoom: a 1280 px window at 200% is 640 CSS px wide;
    //    nothing may need sideways scrolling of the page.
    c.set_window_size(640, 1000)
        .await
        .expect("resize the window");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let overflow = js(
        c,
        "const w = document.documentElement.clientWidth;
         const wide = [...document.querySelectorAll('body *')]
           .filter(e => e.getClientRects().length && e.getBoundingClientRect().right > w + 1
                        && !e.closest('.code-input, .sbs, .value, .snippet-text'))
           .map(e => e.tagName.toLowerCase() + '.' + [...e.classList].join('.') + ' ' + Math.round(e.getBoundingClientRect().right));
         return { scroll: document.documentElement.scrollWidth, width: w, wide: wide.slice(0, 10) };",
        vec![],
    )
    .await;
    assert!(
        overflow["scroll"].as_u64() <= overflow["width"].as_u64(),
        "the page scrolls sideways at 640 CSS px (200% zoom): {overflow}"
    );
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(root().join("target/e2e/narrow.png"), &png).unwrap();
    c.set_window_size(1280, 1000)
        .await
        .expect("resize the window");

    // 11. Requests: only the page's own origin, nothing missing.
    let entries = js(
        c,
        "return performance.getEntriesByType('resource').map(e => e.name).concat([location.href]);",
        vec![],
    )
    .await;
    let entries: Vec<String> = serde_json::from_value(entries).unwrap();
    for e in &entries {
        assert!(
            e.starts_with(&format!("{origin}/")),
            "the page requested {e} (outside {origin})"
        );
    }
    let log = server.log.lock().unwrap().clone();
    for (req, status) in &log {
        assert_eq!(*status, 200, "{req} answered {status}");
        assert!(
            req.starts_with(&format!("GET {PREFIX}")),
            "request outside the page's path: {req}"
        );
    }
    for f in [
        "drift-doctor-worker_loader.js",
        "drift-doctor-worker.js",
        "drift-doctor-worker_bg.wasm",
    ] {
        assert!(
            log.iter().any(|(r, _)| r.contains(f)),
            "the worker file {f} was never requested: {log:?}"
        );
    }

    // 12. No Content-Security-Policy violation, no console error.
    let violations = js(
        c,
        "return window.__cspViolations === undefined ? null : window.__cspViolations;",
        vec![],
    )
    .await;
    assert_eq!(
        violations,
        json!([]),
        "CSP violations (null: the watcher script did not run)"
    );
    let errors = browser::console_errors(c).await;
    assert!(errors.is_empty(), "console errors: {errors:?}");
    eprintln!(
        "e2e: {} requests, all same-origin; screenshots in target/e2e/",
        log.len()
    );
}

/// The live editor's error, once shown.
async fn live_error(c: &Client) -> String {
    wait_until(
        c,
        "document.getElementById('live-error').textContent !== ''",
        "the live editor's error",
        30,
    )
    .await;
    js(
        c,
        "return document.getElementById('live-error').textContent;",
        vec![],
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// How many YAML documents a second worker read for the report shown.
async fn helped_documents(c: &Client) -> u64 {
    js(
        c,
        "return Number(document.querySelector('.timing').dataset.helped);",
        vec![],
    )
    .await
    .as_u64()
    .unwrap_or(0)
}

/// A large live side (`kubectl get -o yaml`'s one `kind: List`) as Git and
/// a drifted copy of it.
fn large_list_pair(n: usize, run: usize) -> (String, String) {
    let object = |i: usize, replicas: usize| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{i}\n  namespace: shop\n  labels:\n    app: app-{i}\n    run: \"{run}\"\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: app-{i}\n  template:\n    metadata:\n      labels:\n        app: app-{i}\n    spec:\n      containers:\n      - name: main\n        image: registry.example/app:{i}\n        args: [\"--ratio\", \"0.{i}\"]\n        resources:\n          limits:\n            cpu: {}m\n", 100 + i)
    };
    let git: String = (0..n).map(|i| format!("---\n{}", object(i, 2))).collect();
    let mut live = String::from("apiVersion: v1\nitems:\n");
    for i in 0..n {
        // Every seventh one scaled by hand, late ones among them.
        for (j, line) in object(i, if i % 7 == 3 { 5 } else { 2 })
            .lines()
            .enumerate()
        {
            live.push_str(if j == 0 { "- " } else { "  " });
            live.push_str(line);
            live.push('\n');
        }
    }
    live.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
    (git, live)
}

/// Paste 1,400-resource pairs until the second worker has read part of
/// one (it starts once the page has a report, and helps once warmed up):
/// each report is the core's. Returns how many documents it read.
async fn until_helped(c: &Client, runs: std::ops::Range<usize>) -> u64 {
    for run in runs {
        let (git, live) = large_list_pair(1400, run);
        let report = core_report(&git, &live);
        let before = report_seq(c).await;
        paste(c, &git, &live, "insertFromPaste").await;
        wait_new_report(c, &before, "the large pair's report").await;
        assert_eq!(page_summary(c).await, core_summary(&report), "run {run}");
        let helped = helped_documents(c).await;
        if helped > 0 {
            return helped;
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    0
}

/// A second worker that read a part of several megabytes is replaced by a
/// new one (a worker's memory never shrinks), which helps in turn.
#[test]
fn a_second_worker_that_read_a_large_part_is_replaced() {
    with_page("helper-renewed", |c, _| async move {
        assert!(until_helped(&c, 0..20).await > 100);
        let renewed = || async {
            js(
                &c,
                "return document.querySelector('.timing').dataset.helperRenewed;",
                vec![],
            )
            .await
        };
        assert_eq!(
            renewed().await,
            json!("false"),
            "a 650 KB side's part is small"
        );

        // Every seventh resource differs: 2,000 of 14,000. Of the 12.7 MiB
        // to read, the second worker reads 38%, over 4 MiB, all of it live.
        let (git, live) = large_list_pair(14_000, 7);
        assert!(git.len() + live.len() > 12 << 20 && live.len() > 6 << 20);
        let before = report_seq(&c).await;
        paste(&c, &git, &live, "insertFromPaste").await;
        wait_new_report(&c, &before, "the 12.7 MiB pair's report").await;
        assert_eq!(stat(&c, "stat-resources").await, 14_000);
        assert_eq!(stat(&c, "stat-out").await, 2_000);
        assert!(helped_documents(&c).await > 1_000);
        assert_eq!(renewed().await, json!("true"));

        // The new helper warms up, then reads its part of the next pairs.
        assert!(until_helped(&c, 20..40).await > 100, "the new helper helps");
    });
}

/// A helper that is ready but never answers (one the browser ended without
/// an error, say) holds an analysis up only until its deadline: the
/// analysis worker then reads the helper's part itself and gives the core's
/// report, and it never asks that helper again.
#[test]
fn a_helper_that_never_answers_is_given_up_at_its_deadline() {
    use drift_doctor::web::protocol::{FromWorker, Request, Response};
    let bytes = |message: Vec<u8>| {
        message
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let ready = bincode::serialize(&FromWorker::Ready).unwrap();
    let warmed_up = bincode::serialize(&FromWorker::Answer(Response::WarmedUp)).unwrap();
    // A warm-up is told by its variant's tag, the message's first 4 bytes
    // (the pairs it carries follow).
    let warm_up = bincode::serialize(&Request::WarmUp(Vec::new())).unwrap()[..4].to_vec();
    // Says it is ready, answers the warm-up, and then nothing.
    let stand_in = format!(
        "const ready = new Uint8Array([{}]), warmedUp = new Uint8Array([{}]), warmUp = [{}];
         onmessage = (e) => {{
           const got = new Uint8Array(e.data);
           if (got.length > warmUp.length && warmUp.every((b, i) => got[i] === b)) postMessage(warmedUp);
         }};
         postMessage(ready);",
        bytes(ready),
        bytes(warmed_up),
        bytes(warm_up)
    );
    let server = serve_with(
        dist_dir(),
        Policy {
            second_fetch: Some(("drift-doctor-worker_loader.js", stand_in)),
            ..Policy::default()
        },
    );
    let url = format!("http://{}{PREFIX}", server.addr);
    let log = server.log.clone();
    let driver = start_driver("helper-deadline");
    with_browser(&driver, false, move |c| async move {
        c.goto(&url).await.expect("open the page");
        wait_ready(&c, "the default report").await;
        // The helper starts once the page has its first report.
        for _ in 0..300 {
            if log
                .lock()
                .unwrap()
                .iter()
                .any(|(r, _)| r.ends_with("(stand-in)"))
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let worker_ms = || async {
            js(
                &c,
                "return Number(document.querySelector('.timing').dataset.workerMs);",
                vec![],
            )
            .await
            .as_f64()
            .unwrap_or(0.0)
        };
        // The first run waits for the helper until its deadline; the second
        // does not ask it again, so it takes less than the first (on a busy
        // machine the work alone may take more than the 2 s deadline).
        let mut waited_ms = 0.0;
        for (run, waits) in [(0, true), (1, false)] {
            let (git, live) = large_list_pair(1400, run);
            let report = core_report(&git, &live);
            let before = report_seq(&c).await;
            paste(&c, &git, &live, "insertFromPaste").await;
            wait_new_report(&c, &before, "the large pair's report").await;
            assert_eq!(page_summary(&c).await, core_summary(&report), "run {run}");
            assert_eq!(helped_documents(&c).await, 0, "run {run}");
            let ms = worker_ms().await;
            if waits {
                assert!(
                    ms >= 2000.0,
                    "waited for the helper until its deadline: {ms} ms"
                );
                waited_ms = ms;
            } else {
                assert!(
                    ms < waited_ms,
                    "the helper was not asked again: {ms} ms against {waited_ms} ms with the wait"
                );
            }
        }
        let stand_ins = log
            .lock()
            .unwrap()
            .iter()
            .filter(|(r, _)| r.ends_with("(stand-in)"))
            .count();
        assert_eq!(stand_ins, 1, "the helper was started once");
    });
}

/// A large live side is read by two workers: the report is the core's, and
/// an error in the part the second worker read is shown where it is.
#[test]
fn a_large_side_read_by_two_workers_gives_the_cores_report() {
    with_page("two-workers", |c, _| async move {
        let (git, live) = large_list_pair(1400, 0);
        assert!(live.len() > 600 * 1024, "{} bytes", live.len());
        assert!(core_report(&git, &live).summary.out_of_sync > 100);
        let helped = until_helped(&c, 0..20).await;
        assert!(helped > 100, "a second worker read {helped} documents");

        // Git alone changed (live is held from the last analysis): Git is shared.
        let (_, live) = large_list_pair(1400, 50);
        let (git, _) = large_list_pair(1400, 51);
        let before = report_seq(&c).await;
        paste(&c, &git, &live, "insertFromPaste").await;
        wait_new_report(&c, &before, "the pair's report").await;
        let before = report_seq(&c).await;
        let git = git.replace("replicas: 2", "replicas: 3");
        assert!(git.len() > 512 * 1024, "{} bytes", git.len());
        paste(&c, &git, &live, "insertFromPaste").await;
        wait_new_report(&c, &before, "the report with Git changed").await;
        assert_eq!(
            page_summary(&c).await,
            core_summary(&core_report(&git, &live))
        );
        let helped = helped_documents(&c).await;
        assert!(
            helped > 100,
            "a second worker read {helped} of Git's documents"
        );

        // A key written twice near the end: in the second worker's part.
        let (git, live) = large_list_pair(1400, 99);
        let at = live.rfind("  spec:\n    replicas: ").unwrap();
        let bad_live = format!(
            "{}  spec:\n    replicas: 1\n{}",
            &live[..at],
            &live[at + "  spec:\n".len()..]
        );
        let err = drift_doctor::analyze(&git, &bad_live, &page_options(false)).unwrap_err();
        assert!(err.line > 20_000, "{err}");
        paste(&c, &git, &bad_live, "insertFromPaste").await;
        let shown = live_error(&c).await;
        assert!(
            shown.contains(&format!("Line {}", err.line)),
            "{shown} (core: {err})"
        );
    });
}

/// A large paste comes through the clipboard into the page byte for byte,
/// whatever its characters (the page keeps it as the browser's string and
/// the worker turns it into UTF-8), is measured as the core would measure
/// it, and is analysed as the core reads it. Large diff output pasted into
/// a YAML side is recognised from its first lines and analysed as diff output.
#[test]
fn a_large_paste_keeps_every_character() {
    with_page("large-paste", |c, _| async move {
        let mut git = String::new();
        for i in 0..2500 {
            git.push_str(&format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: shop\ndata:\n  greeting: \"Grüße, 世界 🚀 {i}\"\n  plain: value-{i}\n"));
        }
        assert!(git.len() > 300_000);
        let live = git.replace("🚀 7\"", "🛸 7\"");
        let report = core_report(&git, &live);
        assert_eq!(report.summary.out_of_sync, 1);
        let before = report_seq(&c).await;
        paste_event(&c, "git-input", &git).await;
        wait_new_report(&c, &before, "the Git-only report").await;
        let before = report_seq(&c).await;
        paste_event(&c, "live-input", &live).await;
        wait_new_report(&c, &before, "the pair's report").await;
        assert_eq!(page_summary(&c).await, core_summary(&report));
        assert_eq!(
            held_size(&c, "live").await,
            json!([live.len(), live.lines().count()]),
            "the held side's size in UTF-8 bytes and its lines"
        );
        // Moved into the textarea, the held text is the pasted one.
        click(&c, "#live-big button").await;
        let shown = js(
            &c,
            "return document.getElementById('live-input').value;",
            vec![],
        )
        .await;
        assert!(
            shown.as_str() == Some(live.as_str()),
            "the live text changed on its way in"
        );

        // Megabytes of `argocd app diff` output, pasted into the Git side.
        let diff: String = (0..4000)
            .map(|i| format!("===== /ConfigMap shop/cm-{i} ======\n8c8\n<   plain: value-{i}\n---\n>   plain: välue-{i}\n\n"))
            .collect();
        assert!(diff.len() > 300_000 && diff.lines().count() > drift_doctor::difftext::SNIFF_LINES);
        let from_diff = drift_doctor::analyze_diff(&diff, &page_options(false)).unwrap();
        let before = report_seq(&c).await;
        paste_event(&c, "git-big", &diff).await;
        wait_new_report(&c, &before, "the diff output's report").await;
        assert_eq!(
            js(
                &c,
                "return document.getElementById('mode-diff').checked;",
                vec![]
            )
            .await,
            json!(true),
            "diff mode"
        );
        assert_eq!(
            held_size(&c, "diff").await,
            json!([diff.len(), diff.lines().count()]),
            "the text held in the diff field"
        );
        assert_eq!(page_summary(&c).await, core_summary(&from_diff));
    });
}

/// The size a field shows for the text it holds outside its textarea:
/// [UTF-8 bytes, lines], once counted (after the text went to the worker).
async fn held_size(c: &Client, field: &str) -> serde_json::Value {
    let panel = format!("document.getElementById('{field}-big')");
    wait_until(
        c,
        &format!("{panel} && {panel}.dataset.bytes"),
        "the held text's size",
        10,
    )
    .await;
    js(
        c,
        &format!("const b = {panel}.dataset; return [Number(b.bytes), Number(b.lines)];"),
        vec![],
    )
    .await
}

/// The page receives a report's first page of cards in full and each other
/// page when it is listed: every card, on any page, is the core's.
#[test]
fn cards_beyond_the_first_page_arrive_when_listed() {
    with_page("pages", |c, _| async move {
        let git: String = (0..130)
            .map(|i| format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i:03}\n  namespace: shop\ndata:\n  k: v{i}\n"))
            .collect();
        let live: String = (0..130)
            .filter(|i| i % 2 == 0)
            .map(|i| format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i:03}\n  namespace: shop\ndata:\n  k: v{}\n", if i % 4 == 0 { i } else { i + 1 }))
            .collect();
        let report = core_report(&git, &live);
        let before = report_seq(&c).await;
        paste(&c, &git, &live, "insertFromPaste").await;
        wait_new_report(&c, &before, "the report").await;
        // An input error: the page goes on showing the last report, whose
        // other pages still arrive.
        paste(
            &c,
            &git,
            &format!("{live}---\nkind: [\n"),
            "insertFromPaste",
        )
        .await;
        live_error(&c).await;
        let cards = "return [...document.querySelectorAll('.cards > article')].map(a => [a.dataset.id || '', a.classList.contains('pending')]);";
        let mut seen = std::collections::BTreeSet::new();
        for page in 0..3 {
            wait_until(
                &c,
                "document.querySelectorAll('.cards > article.pending').length === 0 && document.querySelectorAll('.cards > article').length > 0",
                "the page's cards in full",
                10,
            )
            .await;
            let shown = js(&c, cards, vec![]).await;
            for card in shown.as_array().unwrap() {
                let id = card[0].as_str().unwrap().to_string();
                assert!(
                    report.resources.iter().any(|r| r.id == id),
                    "{id} is the core's"
                );
                assert!(seen.insert(id), "each card once");
            }
            if page < 2 {
                click(&c, ".pager button:last-of-type").await;
            }
        }
        assert_eq!(seen.len(), report.resources.len());
    });
}

/// What the report shows, without how long it took or who made it.
async fn report_content(c: &Client) -> serde_json::Value {
    js(
        c,
        "return Array.from(document.querySelectorAll('#report .summary, #report .warnings, #report .emergency, #report .plan, #report .card'))
             .map(e => e.className + ': ' + e.textContent);",
        vec![],
    )
    .await
}

/// Wait for the report made with the page, its cards drawn.
async fn wait_first_report(c: &Client, what: &str) {
    wait_until(
        c,
        "document.querySelector('#report .timing[data-built=\"true\"]') && document.querySelector('#report .card')",
        what,
        60,
    )
    .await;
}

/// A first visit shows the default example's report made with the page,
/// with no worker at all; the worker's own report is the same.
#[test]
fn the_first_report_comes_with_the_page() {
    let without_worker = serve_refusing(dist_dir(), &["drift-doctor-worker_loader.js"]);
    let with_worker = serve(dist_dir());
    let urls = [&without_worker, &with_worker].map(|s| format!("http://{}{PREFIX}", s.addr));
    let log = without_worker.log.clone();
    let driver = start_driver("first-report");
    with_browser(&driver, false, move |c| async move {
        c.goto(&urls[0]).await.expect("open the page");
        wait_first_report(&c, "the report made with the page").await;
        let built = report_content(&c).await;
        // Without a worker the page says so, and blames no input.
        wait_until(
            &c,
            "document.querySelector('#report .stale-note')",
            "the note that the analysis could not run",
            60,
        )
        .await;
        let note = js(
            &c,
            "return document.querySelector('#report .stale-note').textContent;",
            vec![],
        )
        .await;
        assert_eq!(
            note,
            json!("The analysis could not run (see above): this is the last report made."),
        );
        let requests = log.lock().unwrap().clone();
        let loader: Vec<_> = requests
            .iter()
            .filter(|(r, _)| r.contains("drift-doctor-worker_loader.js"))
            .collect();
        assert!(
            matches!(loader[..], [(_, 404)]),
            "the worker was refused, and not asked for again and again: {requests:?}"
        );
        assert!(
            !requests.iter().any(|(r, _)| r.contains("worker_bg.wasm")),
            "no worker wasm was loaded: {requests:?}"
        );
        // A reload keeps the example as it was, and so its first report.
        c.refresh().await.expect("reload the page");
        wait_first_report(&c, "the report made with the page, after a reload").await;
        // The same report; the summary no longer names the example (a
        // reload restores the fields, not which example filled them).
        let reloaded = report_content(&c).await;
        let after_summary = |v: &serde_json::Value| v.as_array().map(|a| a[1..].to_vec());
        assert_eq!(
            after_summary(&reloaded),
            after_summary(&built),
            "the same after a reload"
        );
        assert!(
            !reloaded[0].as_str().unwrap_or("").contains("Example:"),
            "the fields came back from the tab's storage: {}",
            reloaded[0]
        );

        c.goto(&urls[1]).await.expect("open the page again");
        wait_ready(&c, "the worker's report").await;
        let built_now = js(
            &c,
            "return document.querySelector('#report .timing').dataset.built;",
            vec![],
        )
        .await;
        assert_eq!(built_now, json!("false"), "the worker's report replaced it");
        let analysed = report_content(&c).await;
        assert!(
            analysed.as_array().is_some_and(|a| a.len() > 3),
            "{analysed}"
        );
        assert_eq!(built, analysed, "the same report");
    });
}

/// The YAML side by side pairs a changed value on one row (Git's value on
/// the left, live's on the right), each difference links to its row, and
/// at 1440 px the two columns use the page's width.
#[test]
fn a_changed_value_is_one_row_and_its_difference_links_to_it() {
    with_page("side-by-side", |c, _| async move {
        cdp(
            &c,
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": 1440, "height": 900, "deviceScaleFactor": 1, "mobile": false }),
        )
        .await;
        let report = core_report(&fixture("mixed-app", "git"), &fixture("mixed-app", "live"));
        let scalar = |v: &Option<serde_json::Value>| match v {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let (resource, d, old, new) = report
            .resources
            .iter()
            .flat_map(|r| r.differences.iter().map(move |d| (r, d)))
            .filter(|(_, d)| d.visible && d.change == drift_doctor::Change::Changed)
            .find_map(|(r, d)| Some((r, d, scalar(&d.git)?, scalar(&d.live)?)))
            .expect("the example changes a value");
        let card = format!("[data-id='{}']", resource.id);
        js(&c, &format!("const b = document.querySelector(\"{card} .card-toggle\"); if (b.getAttribute('aria-expanded') !== 'true') b.click(); return true;"), vec![]).await;
        let link = format!("{card} li.diff[data-pointer='{}'] .sbs-link", d.pointer);
        wait_until(
            &c,
            &format!("document.querySelector(\"{link}\")"),
            "the difference's row link",
            10,
        )
        .await;
        click(&c, &link).await;
        wait_until(
            &c,
            &format!("document.activeElement && document.activeElement.tagName === 'TR' && !!document.activeElement.closest(\"{card} .sbs-table\")"),
            "the focus on the difference's row",
            20,
        )
        .await;
        let row = js(
            &c,
            "const cells = [...document.activeElement.querySelectorAll('td.code')];
             return cells.map(td => td.textContent);",
            vec![],
        )
        .await;
        let row: Vec<String> = serde_json::from_value(row).unwrap();
        assert_eq!(row.len(), 2, "{row:?}");
        assert!(
            row[0].contains(&old) && !row[0].contains(&new),
            "Git's value on the left: {row:?} ({old} → {new})"
        );
        assert!(
            row[1].contains(&new) && !row[1].contains(&old),
            "live's value on the right: {row:?} ({old} → {new})"
        );
        let widths = js(
            &c,
            &format!("return [...document.querySelector(\"{card} .sbs-table tbody tr\").querySelectorAll('td.code')].map(td => td.getBoundingClientRect().width);"),
            vec![],
        )
        .await;
        let widths: Vec<f64> = serde_json::from_value(widths).unwrap();
        assert!(
            widths.iter().all(|w| *w >= 500.0),
            "each column at least 500 px wide at 1440 px: {widths:?}"
        );
        // The note counts the lines Argo CD counts apart from the greyed
        // ones, as the marked cells do.
        let counts = js(
            &c,
            &format!(
                "const w = document.querySelector(\"{card} .sbs-wrap\");
                      return [w.querySelector('.sbs-note').textContent,
                              w.querySelectorAll('td.m-counted').length];"
            ),
            vec![],
        )
        .await;
        let note = counts[0].as_str().unwrap_or_default().to_string();
        let counted_cells = counts[1].as_u64().unwrap_or_default();
        assert!(counted_cells > 0, "{note}");
        assert!(
            note.contains(&format!("{counted_cells} of them counted by Argo CD"))
                || note.contains(", counted by Argo CD"),
            "the note counts what Argo CD counts ({counted_cells} cells): {note}"
        );
    });
}
