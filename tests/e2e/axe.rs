//! axe-core over the page's states, in the light and the dark scheme: any
//! violation fails, listed with the elements it was found on.
//!
//! axe-core comes from the npm registry into the tools cache
//! (scripts/setup.sh); the test injects it through WebDriver, so the page
//! itself still loads nothing but its own files.

use super::*;

/// axe-core's script, from the tools cache scripts/setup.sh fills.
fn axe_source() -> String {
    let tools = std::env::var_os("DRIFT_DOCTOR_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/drift-doctor-tools")
        });
    let path = tools.join("node_modules/axe-core/axe.min.js");
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run scripts/setup.sh to install axe-core",
            path.display()
        )
    })
}

/// The page's light or dark colours, as the system would choose them.
async fn scheme(c: &Client, dark: bool) {
    cdp(
        c,
        "Emulation.setEmulatedMedia",
        json!({ "features": [{ "name": "prefers-color-scheme", "value": if dark { "dark" } else { "light" } }] }),
    )
    .await;
}

/// Run axe-core on the page as it is, in both schemes, and add what it
/// finds to `found` under `state`.
async fn audit(c: &Client, axe: &str, state: &str, found: &mut Vec<String>) {
    let loaded = js(c, "return typeof window.axe;", vec![]).await;
    if loaded != json!("object") {
        js(c, &format!("{axe}\n;return true;"), vec![]).await;
    }
    for dark in [false, true] {
        scheme(c, dark).await;
        // Transitions (the busy fade) end before colours are read.
        tokio::time::sleep(Duration::from_millis(400)).await;
        let violations = c
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 axe.run(document, { resultTypes: ['violations'] }).then(
                   r => done(r.violations.map(v => v.id + ' (' + v.impact + '): ' + v.help + '\\n' +
                     v.nodes.slice(0, 6).map(n => '    ' + n.target.join(' ') + ': ' +
                       (n.failureSummary || '').replace(/\\s+/g, ' ').slice(0, 300)).join('\\n'))),
                   e => done(['axe failed: ' + e]));",
                vec![],
            )
            .await
            .unwrap_or_else(|e| panic!("axe-core on {state}: {e}"));
        let violations: Vec<String> = serde_json::from_value(violations).unwrap();
        let name = if dark { "dark" } else { "light" };
        for v in violations {
            let v = format!("{state}, {name}: {v}");
            eprintln!("{v}");
            found.push(v);
        }
    }
    scheme(c, false).await;
}

/// Open every `<details>` inside `selector`.
async fn open_details(c: &Client, selector: &str) {
    js(
        c,
        "document.querySelectorAll(arguments[0]).forEach(d => d.open = true); return true;",
        vec![json!(selector)],
    )
    .await;
}

/// The page's states, each checked by axe-core in both schemes: the
/// default report, hidden differences shown, a card's YAML side by side,
/// the share panel, the check before merging, the settings' audit, the
/// Rules tab, diff mode, an input error over the last report, and the
/// one-file page.
#[test]
fn axe_finds_no_violation_in_any_state() {
    let axe = axe_source();
    let driver = start_driver("axe");
    let server = serve(dist_dir());
    let url = format!("http://{}{PREFIX}", server.addr);
    let standalone = root().join("dist/drift-doctor.html");
    assert!(
        standalone.is_file(),
        "{} is missing: build the page first with scripts/build-web.sh",
        standalone.display()
    );
    let file_page = driver.scratch.join("page/drift-doctor.html");
    std::fs::create_dir_all(file_page.parent().unwrap()).unwrap();
    std::fs::copy(&standalone, &file_page).unwrap();
    let file_url = url::Url::from_file_path(&file_page).unwrap().to_string();
    with_browser(&driver, false, move |c| async move {
        let mut found = Vec::new();
        // The Rules tab with every example open is a large page for axe.
        c.update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
            Some(Duration::from_secs(180)),
            Some(Duration::from_secs(60)),
            Some(Duration::from_secs(0)),
        ))
        .await
        .expect("a longer script timeout");
        c.goto(&url).await.expect("open the page");
        wait_ready(&c, "the default report").await;
        audit(&c, &axe, "the default report", &mut found).await;

        click(&c, "#show-hidden").await;
        wait_until(
            &c,
            "document.querySelectorAll('.diff-hidden').length > 0",
            "hidden differences",
            20,
        )
        .await;
        audit(&c, &axe, "hidden differences shown", &mut found).await;
        click(&c, "#show-hidden").await;

        click(&c, ".card.out .yaml-toggle").await;
        wait_until(
            &c,
            "document.querySelector('.card.out .sbs-table')",
            "a card's YAML side by side",
            20,
        )
        .await;
        audit(&c, &axe, "a card's YAML side by side", &mut found).await;

        open_share_panel(&c).await;
        audit(&c, &axe, "the share panel open", &mut found).await;

        click(&c, "#check-render").await;
        wait_until(
            &c,
            "document.querySelector('#check .check-close') && !document.getElementById('check').textContent.includes('Checking')",
            "the check before merging",
            60,
        )
        .await;
        audit(&c, &axe, "the check before merging", &mut found).await;
        click(&c, "#check .check-close").await;

        // The plan with every list drawn, beside the audit of a rule under
        // a long argocd-cm key.
        open_details(&c, "details.settings").await;
        let settings = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: argocd\ndata:\n  resource.customizations.ignoreDifferences.admissionregistration.k8s.io_MutatingWebhookConfiguration: |\n    jsonPointers:\n    - /webhooks/0/clientConfig/caBundle\n  resource.customizations.ignoreDifferences.apps_Deployment: |\n    jsonPointers:\n    - /spec/paused\n";
        let before = report_seq(&c).await;
        type_into(&c, "settings-input", settings, "insertFromPaste").await;
        wait_new_report(&c, &before, "the report with the settings").await;
        wait_until(
            &c,
            "document.querySelector('#audit .audit-finding')",
            "the settings' audit",
            20,
        )
        .await;
        js(
            &c,
            "document.querySelectorAll('#plan .show-all').forEach(b => b.click()); return true;",
            vec![],
        )
        .await;
        audit(&c, &axe, "the plan and the settings' audit", &mut found).await;
        let before = report_seq(&c).await;
        type_into(&c, "settings-input", "", "deleteContentBackward").await;
        wait_new_report(&c, &before, "the report without settings").await;

        js(&c, "location.hash = '#rules'; return true;", vec![]).await;
        wait_until(
            &c,
            "document.querySelectorAll('.rules pre').length > 0",
            "the Rules tab",
            20,
        )
        .await;
        open_details(&c, ".rules details").await;
        audit(&c, &axe, "the Rules tab", &mut found).await;
        js(&c, "location.hash = ''; return true;", vec![]).await;
        wait_ready(&c, "the report again").await;

        let diff_text =
            std::fs::read_to_string(root().join("tests/fixtures/difftext/argo_normal.txt"))
                .unwrap();
        let before = report_seq(&c).await;
        paste_event(&c, "git-input", &diff_text).await;
        wait_new_report(&c, &before, "the diff output's report").await;
        audit(&c, &axe, "diff mode", &mut found).await;
        click(&c, "#mode-sides").await;
        wait_ready(&c, "both sides again").await;

        let (git, live) = (fixture("mixed-app", "git"), fixture("mixed-app", "live"));
        let before = report_seq(&c).await;
        paste(&c, &git, &live, "insertFromPaste").await;
        wait_new_report(&c, &before, "a pasted pair's report").await;
        paste(
            &c,
            &git,
            &format!("{live}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: tabbed\n"),
            "insertFromPaste",
        )
        .await;
        wait_stale_banner(&c).await;
        audit(&c, &axe, "an input error over the last report", &mut found).await;

        c.goto(&file_url).await.expect("open the one-file page");
        wait_until(&c, browser::READY, "the one-file page's report", 90).await;
        audit(&c, &axe, "the one-file page", &mut found).await;

        assert!(
            found.is_empty(),
            "axe-core found {} violations:\n{}",
            found.len(),
            found.join("\n")
        );
    });
}
