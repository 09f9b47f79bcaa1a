//! The one-file page, `dist/drift-doctor.html` (scripts/make-standalone.py,
//! run by scripts/build-web.sh), in headless Chromium through chromedriver:
//! copied alone into an empty directory and opened from `file://`, it
//! analyses its embedded example in its web worker, shows the core's causes,
//! updates on a paste, violates no part of its Content-Security-Policy and
//! makes no request (no resource entries, no network event but the file).
//!
//! A missing `dist/drift-doctor.html` or chromedriver is a failure, never a
//! silent skip.

#![cfg(not(target_arch = "wasm32"))]
// Tests ship nowhere: the standard sorts' size costs nothing here.
#![allow(clippy::disallowed_methods)]

#[path = "browser/mod.rs"]
mod browser;

use browser::{
    expected_causes, fixture, js, log, page_causes, root, start_driver, stat, wait_until,
    with_browser, READY,
};
use drift_doctor::{analyze, Options, Report};
use fantoccini::Client;
use serde_json::{json, Value};

/// The core's report with the page's options (the defaults).
fn core_report(name: &str) -> Report {
    analyze(
        &fixture(name, "git"),
        &fixture(name, "live"),
        &Options::default(),
    )
    .expect("the core reads the fixture")
}

#[test]
fn one_file_page_from_disk() {
    let built = root().join("dist/drift-doctor.html");
    assert!(
        built.is_file(),
        "{} is missing: build the page first with scripts/build-web.sh (scripts/test.sh does)",
        built.display()
    );
    let driver = start_driver("standalone");
    // Alone in an empty directory: the file may need nothing beside it.
    let page = driver.scratch.join("page/drift-doctor.html");
    std::fs::create_dir_all(page.parent().unwrap()).unwrap();
    std::fs::copy(&built, &page).unwrap();
    let url = url::Url::from_file_path(&page).unwrap().to_string();
    with_browser(&driver, true, move |c| checks(c, url));
}

async fn checks(c: Client, url: String) {
    // Forget what the browser's own start page loaded.
    log(&c, "performance").await;
    c.goto(&url).await.expect("open the file");

    // The embedded example (mixed-app) is analysed on load, in the worker
    // the file built from its own blob.
    wait_until(&c, READY, "the example's report", 90).await;
    let worker = js(
        &c,
        "return document.querySelector('meta[name=drift-doctor-worker]').content;",
        vec![],
    )
    .await;
    assert!(
        worker.as_str().is_some_and(|u| u.starts_with("blob:")),
        "the worker comes from a blob: URL, not {worker}"
    );
    let mixed = core_report("mixed-app");
    assert_eq!(
        page_causes(&c).await,
        expected_causes(&mixed),
        "the page's causes are the core's"
    );
    assert_eq!(stat(&c, "stat-out").await, mixed.summary.out_of_sync);

    // Pasting another pair updates the report.
    let before = js(
        &c,
        "return document.getElementById('report').dataset.seq;",
        vec![],
    )
    .await;
    let name = "webhook-cabundle-cainjector";
    js(
        &c,
        "const [g, l] = arguments;
         for (const [id, v] of [['git-input', g], ['live-input', l]]) {
           const e = document.getElementById(id); e.value = v;
           e.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'}));
         }
         return true;",
        vec![json!(fixture(name, "git")), json!(fixture(name, "live"))],
    )
    .await;
    let cond = format!("{READY} && document.getElementById('report').dataset.seq !== {before}");
    wait_until(&c, &cond, "the pasted pair's report", 60).await;
    let webhook = core_report(name);
    assert_eq!(page_causes(&c).await, expected_causes(&webhook));
    assert_eq!(stat(&c, "stat-out").await, webhook.summary.out_of_sync);

    // A link made here points at this file: the page says it opens only on
    // this computer and offers the share file or another page's address.
    js(
        &c,
        "document.getElementById('copy-link').click(); return true;",
        vec![],
    )
    .await;
    wait_until(
        &c,
        "document.getElementById('share-local') && document.getElementById('share-link')",
        "the file page's link",
        30,
    )
    .await;
    let shared = js(&c, "return [document.getElementById('share-local').textContent, !!document.getElementById('download-share'), document.getElementById('share-link').value];", vec![]).await;
    assert!(
        shared[0].as_str().unwrap().contains("opens only here") && shared[1] == json!(true),
        "{shared}"
    );
    assert!(
        shared[2].as_str().unwrap().starts_with("file://"),
        "{shared}"
    );
    let base = "https://drift-doctor.example.org/tool/";
    js(
        &c,
        "const e = document.getElementById('share-base'); e.value = arguments[0];
         e.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertText'})); return true;",
        vec![json!(base)],
    )
    .await;
    wait_until(
        &c,
        &format!("document.getElementById('share-link').value.startsWith('{base}#v1.')"),
        "the link on the other base",
        10,
    )
    .await;

    // The Rules tab has each rule's docs and examples: the file carries
    // them for its worker, which loads nothing.
    js(&c, "location.hash = '#rules'; return true;", vec![]).await;
    wait_until(
        &c,
        "[...document.querySelectorAll('article.rule')].some(r => r.textContent.includes('What it means') && r.querySelector('.rule-example pre'))",
        "the rules with their docs and examples",
        30,
    )
    .await;
    js(&c, "location.hash = '#analysis'; return true;", vec![]).await;

    // A jq rule: the worker unpacks the jq module the file carries (the
    // worker has no jq engine of its own) and the rule hides the field.
    let config_map = |value: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: shop\ndata:\n  a: {value}\n")
    };
    let before = js(
        &c,
        "return document.getElementById('report').dataset.seq;",
        vec![],
    )
    .await;
    js(
        &c,
        "const [g, l, s] = arguments;
         document.querySelector('details.settings').open = true;
         for (const [id, v] of [['git-input', g], ['live-input', l], ['settings-input', s]]) {
           const e = document.getElementById(id); e.value = v;
           e.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'}));
         }
         return true;",
        vec![
            json!(config_map("one")),
            json!(config_map("two")),
            json!("ignoreDifferences:\n- kind: ConfigMap\n  jqPathExpressions:\n  - .data.a\n"),
        ],
    )
    .await;
    // Without the module the rule would not run and data.a would differ.
    let cond = format!(
        "{READY} && document.getElementById('report').dataset.seq !== {before} && document.querySelector('.summary').textContent.startsWith('Summary1resource0out of sync')"
    );
    wait_until(&c, &cond, "the report with the jq rule applied", 60).await;
    let warnings = js(
        &c,
        "const w = document.querySelector('section.warnings'); return w ? w.textContent : '';",
        vec![],
    )
    .await;
    assert!(
        !warnings.as_str().unwrap_or("").contains("jq"),
        "{warnings}"
    );

    // Nothing was blocked and nothing was requested.
    let violations = js(&c, "return window.__cspViolations;", vec![]).await;
    assert_eq!(violations, json!([]), "Content-Security-Policy violations");
    let resources = js(
        &c,
        "return performance.getEntriesByType('resource').map(e => e.name);",
        vec![],
    )
    .await;
    assert_eq!(resources, json!([]), "resources the page loaded");
    let mut requests = Vec::new();
    for entry in log(&c, "performance").await {
        let msg: Value = serde_json::from_str(entry["message"].as_str().unwrap_or("{}")).unwrap();
        let msg = &msg["message"];
        // Requests of the browser's own pages (its new-tab page) are not ours.
        let by = msg["params"]["documentURL"].as_str().unwrap_or("");
        if msg["method"] == "Network.requestWillBeSent" && !by.starts_with("chrome") {
            requests.push(
                msg["params"]["request"]["url"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            );
        }
    }
    assert!(
        requests.contains(&url),
        "the network log saw the page itself: {requests:?}"
    );
    // The worker's script is the blob the file made: not a request that
    // leaves the page.
    let others: Vec<_> = requests
        .iter()
        .filter(|u| **u != url && worker.as_str() != Some(u.as_str()))
        .collect();
    assert!(
        others.is_empty(),
        "requests besides the file itself: {others:?}"
    );
    let errors: Vec<_> = log(&c, "browser")
        .await
        .into_iter()
        .filter(|e| e["level"] == "SEVERE")
        .collect();
    assert!(errors.is_empty(), "console errors: {errors:?}");
}
