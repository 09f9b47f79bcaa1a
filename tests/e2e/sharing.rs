//! Diff-output mode, the user's settings, share links and files, downloads,
//! reload and Clear.

use super::*;

/// Diff-output mode, the user's Argo CD settings, share links and files,
/// reports to download, reload and Clear.
pub(crate) async fn input_modes_and_links(c: &Client, origin: &str) {
    let page_url = format!("{origin}{PREFIX}");

    // Diff output pasted into the Git editor switches to diff mode.
    let diff_text =
        std::fs::read_to_string(root().join("tests/fixtures/difftext/argo_normal.txt")).unwrap();
    let from_diff = drift_doctor::analyze_diff(&diff_text, &page_options(false)).unwrap();
    let before = report_seq(c).await;
    paste_event(c, "git-input", &diff_text).await;
    wait_new_report(c, &before, "the diff output's report").await;
    assert_eq!(
        js(c, "return [document.getElementById('mode-diff').checked, document.getElementById('diff-input').value === arguments[0], !!document.querySelector('.mode-note'), document.querySelector('.editors:not(.single)').hidden, document.getElementById('strategy').disabled];", vec![json!(diff_text)]).await,
        json!([true, true, true, true, true]),
        "diff mode chosen automatically, the text in the diff editor, the comparison options off"
    );
    assert_eq!(page_summary(c).await, core_summary(&from_diff));
    // A resource's own lines of the text, side by side.
    let card = from_diff
        .resources
        .iter()
        .find(|r| {
            r.presence == drift_doctor::Presence::Both
                && r.status == drift_doctor::Status::OutOfSync
        })
        .expect("a changed resource");
    let sel = format!("[data-id='{}']", card.id);
    js(c, &format!("const b = document.querySelector(\"{sel} .card-toggle\"); if (b.getAttribute('aria-expanded') !== 'true') b.click(); return true;"), vec![]).await;
    wait_until(
        c,
        &format!("document.querySelector(\"{sel} .yaml-toggle\")"),
        "the card's YAML button",
        10,
    )
    .await;
    click(c, &format!("{sel} .yaml-toggle")).await;
    wait_until(c, &format!("document.querySelectorAll(\"{sel} .sbs-table .only-git\").length > 0 && document.querySelectorAll(\"{sel} .sbs-table .only-live\").length > 0"), "the diff output's lines", 20).await;
    let note = js(
        c,
        &format!("return document.querySelector(\"{sel} .sbs-note\").textContent;"),
        vec![],
    )
    .await;
    assert!(
        note.as_str().unwrap().contains("pasted diff output"),
        "{note}"
    );
    save_screenshot(c, "diff-mode").await;
    // Switchable by hand: back to the two sides (unchanged), and again.
    let before = report_seq(c).await;
    click(c, "#mode-sides").await;
    wait_new_report(c, &before, "the two sides again").await;
    let (mixed_git, mixed_live) = (fixture("mixed-app", "git"), fixture("mixed-app", "live"));
    let mixed = core_report(&mixed_git, &mixed_live);
    assert_eq!(page_summary(c).await, core_summary(&mixed));
    let before = report_seq(c).await;
    click(c, "#mode-diff").await;
    wait_new_report(c, &before, "diff mode by hand").await;
    assert_eq!(page_summary(c).await, core_summary(&from_diff));
    // Text that is not diff output: the error names the formats.
    type_into(c, "diff-input", "hello\nworld\n", "insertText").await;
    wait_until(
        c,
        "document.getElementById('diff-error').textContent.includes('argocd app diff')",
        "the diff error",
        30,
    )
    .await;
    let before = report_seq(c).await;
    click(c, "#mode-sides").await;
    wait_new_report(c, &before, "the sides after the diff error").await;

    // The user's ignoreDifferences: what they hide is not counted.
    let settings = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\nspec:\n  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    jsonPointers:\n    - /spec/replicas\n";
    let mut opts = page_options(false);
    opts.compare.ignore_rules = drift_doctor::settings::parse_rules(settings).unwrap();
    let with_rule = analyze(&mixed_git, &mixed_live, &opts).unwrap();
    assert_ne!(
        core_summary(&with_rule),
        core_summary(&mixed),
        "the rule changes the report"
    );
    js(
        c,
        "document.querySelector('details.settings').open = true; return true;",
        vec![],
    )
    .await;
    let before = report_seq(c).await;
    type_into(c, "settings-input", settings, "insertFromPaste").await;
    wait_new_report(c, &before, "the report with the user's rule").await;
    assert_eq!(page_summary(c).await, core_summary(&with_rule));
    // A broken settings text: the error sits under the settings editor.
    type_into(
        c,
        "settings-input",
        "kind: Application\nspec: [a\n",
        "insertText",
    )
    .await;
    wait_until(
        c,
        "document.getElementById('settings-error').textContent.includes('Line')",
        "the settings error",
        30,
    )
    .await;
    let before = report_seq(c).await;
    type_into(c, "settings-input", settings, "insertFromPaste").await;
    wait_new_report(c, &before, "the settings fixed").await;

    // Copy link: the same report in a new window, with the selected card.
    let selected = "apps/Deployment/shop/storefront";
    let sel = format!("[data-id='{selected}']");
    js(c, &format!("const b = document.querySelector(\"{sel} .card-toggle\"); if (b.getAttribute('aria-expanded') === 'true') b.click(); return true;"), vec![]).await;
    click(c, &format!("{sel} .card-toggle")).await;
    let link = copy_link(c).await;
    assert!(
        link.starts_with(&page_url) && link.contains("#v1."),
        "a link to this page: {link}"
    );
    js(
        c,
        "document.getElementById('share-panel').scrollIntoView(); return true;",
        vec![],
    )
    .await;
    save_screenshot(c, "share-link").await;
    let fragment = link.split_once('#').unwrap().1;
    let state = drift_doctor::share::decode_fragment(fragment).expect("the link decodes");
    assert_eq!(state.selected.as_deref(), Some(selected));
    assert_eq!(
        state.options.get("argocdSettings").map(String::as_str),
        Some(settings)
    );
    // Copy as Markdown: the CLI's Markdown of this report, with the link.
    click(c, "#copy-markdown").await;
    wait_until(
        c,
        "document.querySelector('.results-head .copy-status').textContent !== ''",
        "the Markdown copy status",
        20,
    )
    .await;
    let copied = c
        .execute_async("const done = arguments[arguments.length - 1]; navigator.clipboard.readText().then(done, () => done(null));", vec![])
        .await
        .unwrap();
    match copied.as_str() {
        Some(md) => {
            let expected = drift_doctor::render::markdown::render(&with_rule, Some(&link));
            assert_eq!(
                md, expected,
                "the page's Markdown is the core's, with the link"
            );
        }
        None => eprintln!("note: the clipboard could not be read back; Markdown not compared"),
    }
    let here = page_summary(c).await;
    let main = in_new_window(c, &link).await;
    wait_ready(c, "the linked report").await;
    assert_eq!(
        page_summary(c).await,
        here,
        "the link shows the same report"
    );
    assert_eq!(
        js(c, "return [document.querySelector('.card.selected') && document.querySelector('.card.selected').dataset.id, location.hash, document.getElementById('settings-input').value];", vec![]).await,
        json!([selected, "", settings]),
        "the selected card, the fragment taken out of the address bar, the settings restored"
    );
    back_to(c, main).await;

    // A link made by `drift-doctor link` opens to the core's report.
    let (webhook_git, webhook_live) = (
        root().join("tests/fixtures/scenarios/webhook-cabundle-cainjector/git.yaml"),
        root().join("tests/fixtures/scenarios/webhook-cabundle-cainjector/live.yaml"),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_drift-doctor"))
        .args(["link", "--git"])
        .arg(&webhook_git)
        .arg("--live")
        .arg(&webhook_live)
        .args(["--base", &page_url])
        .output()
        .expect("run drift-doctor link");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli_link = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let webhook = core_report(
        &std::fs::read_to_string(&webhook_git).unwrap(),
        &std::fs::read_to_string(&webhook_live).unwrap(),
    );
    let main = in_new_window(c, &cli_link).await;
    wait_ready(c, "the CLI link's report").await;
    assert_eq!(page_summary(c).await, core_summary(&webhook));
    back_to(c, main).await;

    // A link from an input holding a Secret carries none of its values.
    let (secret_git, secret_live) = (
        fixture("helm-random-secret", "git"),
        fixture("helm-random-secret", "live"),
    );
    js(
        c,
        "document.getElementById('settings-input').value = ''; return true;",
        vec![],
    )
    .await;
    let before = report_seq(c).await;
    paste(c, &secret_git, &secret_live, "insertFromPaste").await;
    wait_new_report(c, &before, "the Secret example").await;
    let link = copy_link(c).await;
    let note = js(
        c,
        "return document.querySelector('.share-note').textContent;",
        vec![],
    )
    .await;
    assert!(
        note.as_str().unwrap().contains("mask"),
        "the page says values were masked: {note}"
    );
    let state = drift_doctor::share::decode_fragment(link.split_once('#').unwrap().1).unwrap();
    let mut secret_values = Vec::new();
    for text in [&secret_git, &secret_live] {
        for doc in text.split("\n---") {
            let v: serde_yaml::Value = match serde_yaml::from_str(doc) {
                Ok(v) => v,
                Err(_) => continue,
            };
            if v["kind"].as_str() != Some("Secret") {
                continue;
            }
            for key in ["data", "stringData"] {
                if let Some(m) = v[key].as_mapping() {
                    secret_values.extend(m.values().filter_map(|x| x.as_str()).map(String::from));
                }
            }
        }
    }
    assert!(!secret_values.is_empty(), "the example has Secret values");
    for value in secret_values.iter().filter(|v| v.len() >= 4) {
        for text in [&state.git, &state.live, &state.diff] {
            assert!(
                !text.contains(value.as_str()),
                "the link carries the Secret value {value}"
            );
        }
    }

    // Reports to paste: the JSON download is the contract's report.
    capture_downloads(c).await;
    click(c, "#download-json").await;
    let json_text = last_download(c, "the JSON report").await;
    let downloaded: Report = serde_json::from_str(&json_text).expect("report JSON");
    assert_eq!(
        serde_json::to_value(&downloaded).unwrap(),
        serde_json::to_value(core_report(&secret_git, &secret_live)).unwrap(),
        "the downloaded report is the core's"
    );

    // Too long for a link: a share file, which restores the same state when dropped.
    let mut noise = String::new();
    let mut x: u64 = 0x2545F4914F6CDD1D;
    for i in 0..1500 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        noise.push_str(&format!("  k{i}: \"{x:016x}\"\n"));
    }
    let big_git = format!("{mixed_git}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: noise\n  namespace: shop\ndata:\n{noise}");
    let big_report = core_report(&big_git, &mixed_live);
    let before = report_seq(c).await;
    paste(c, &big_git, &mixed_live, "insertFromPaste").await;
    wait_new_report(c, &before, "the large state").await;
    let serial = share_serial(c).await;
    click(c, "#copy-link").await;
    wait_until(c, &format!("document.getElementById('download-share') && document.getElementById('share-panel').dataset.serial !== {serial:?}"), "the share file offer", 20).await;
    click(c, "#download-share").await;
    let share_file = last_download(c, "the share file").await;
    assert!(share_file.contains("drift-doctor-share"), "{share_file}");
    // Elsewhere: a new window, where the file is dropped on an editor.
    let main = in_new_window(c, &page_url).await;
    wait_ready(c, "a fresh page").await;
    let before = report_seq(c).await;
    js(
        c,
        "const dt = new DataTransfer(); dt.items.add(new File([arguments[0]], 'drift-doctor-share.json', {type: 'application/json'}));
         document.getElementById('git-input').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
         return true;",
        vec![json!(share_file)],
    )
    .await;
    wait_new_report(c, &before, "the share file's report").await;
    assert_eq!(page_summary(c).await, core_summary(&big_report));

    // A link pasted into an editor opens like a share file.
    let before = report_seq(c).await;
    paste_event(c, "git-input", &cli_link).await;
    wait_new_report(c, &before, "the pasted link's report").await;
    assert_eq!(page_summary(c).await, core_summary(&webhook));
    // A damaged share file: a message, and the input stays as it was.
    let git_before = js(
        c,
        "return document.getElementById('git-input').value;",
        vec![],
    )
    .await;
    js(
        c,
        "const dt = new DataTransfer(); dt.items.add(new File(['{\"drift-doctor-share\": 1, \"fragment\": \"v1.AAAAAAAA\"}'], 'broken.json'));
         document.getElementById('live-input').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
         return true;",
        vec![],
    )
    .await;
    wait_until(
        c,
        "document.querySelector('.notice-error')",
        "the damaged share file's message",
        20,
    )
    .await;
    assert_eq!(
        js(c, "return [document.getElementById('git-input').value, document.getElementById('report').dataset.state];", vec![]).await,
        json!([git_before, "ready"]),
        "a damaged share file leaves the input and the report"
    );
    assert_eq!(page_summary(c).await, core_summary(&webhook));

    // Bad links: a message and an empty, working page.
    let damaged = {
        let mut f = fragment.to_string();
        let cut = f.len() / 2;
        f.truncate(cut);
        f
    };
    let huge = drift_doctor::share::encode_fragment(&drift_doctor::share::ShareState {
        mode: "sides".into(),
        git: "a".repeat(drift_doctor::share::MAX_INFLATED + 1024),
        ..Default::default()
    })
    .0;
    for (bad, what) in [
        (damaged.as_str(), "a truncated link"),
        (
            "v1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "a corrupt link",
        ),
        ("v9.AAAA", "a link from a newer version"),
        ("v1.%%%%", "bad base64"),
        (huge.as_str(), "a link that inflates past the limit"),
    ] {
        // A fresh load each time (not just a hash change).
        c.goto("about:blank").await.unwrap();
        c.goto(&format!("{page_url}#{bad}")).await.unwrap();
        wait_until(c, "document.querySelector('.notice-error')", what, 30).await;
        let state = js(c, "return [document.getElementById('report').dataset.state, document.getElementById('git-input').value, document.getElementById('live-input').value];", vec![]).await;
        assert_eq!(state, json!(["empty", "", ""]), "{what}: an empty page");
    }
    // And the page still works.
    let before = report_seq(c).await;
    paste(c, &mixed_git, &mixed_live, "insertFromPaste").await;
    wait_new_report(c, &before, "a report after a bad link").await;
    back_to(c, main).await;

    // A reload keeps what was pasted; Clear wipes it and what was kept.
    let before = report_seq(c).await;
    paste(c, &mixed_git, &webhook_live_text(), "insertFromPaste").await;
    wait_new_report(c, &before, "the input to keep").await;
    let kept = page_summary(c).await;
    c.refresh().await.unwrap();
    wait_ready(c, "the report after a reload").await;
    assert_eq!(
        js(c, "return [document.getElementById('git-input').value === arguments[0], document.getElementById('live-input').value === arguments[1], document.getElementById('example').value];", vec![json!(mixed_git), json!(webhook_live_text())]).await,
        json!([true, true, ""]),
        "a reload keeps the inputs"
    );
    assert_eq!(page_summary(c).await, kept);
    click(c, "#clear-all").await;
    wait_until(
        c,
        "document.getElementById('report').dataset.state === 'empty'",
        "the cleared page",
        10,
    )
    .await;
    assert_eq!(
        js(c, "return [document.getElementById('git-input').value, document.getElementById('live-input').value, Object.keys(sessionStorage).length, location.hash];", vec![]).await,
        json!(["", "", 0, ""]),
        "Clear wipes the inputs and what was kept"
    );
    // Back to the default example for the checks that follow.
    let before = report_seq(c).await;
    load_example(c, "mixed-app").await;
    wait_new_report(c, &before, "the example after Clear").await;
}
