//! Reachable in every state: no sideways scroll, scrolling blocks that the
//! keyboard can reach, Escape closing what was opened.

use super::*;

/// Whether the page scrolls sideways, and what sticks out.
async fn sideways(c: &Client) -> serde_json::Value {
    js(
        c,
        "const w = document.documentElement.clientWidth;
         const wide = [...document.querySelectorAll('body *')]
           .filter(e => e.getClientRects().length && e.getBoundingClientRect().right > w + 1
                        && !e.closest('.code-input, .sbs, .value, .snippet-text'))
           .map(e => e.tagName.toLowerCase() + '.' + [...e.classList].join('.') + ' ' + Math.round(e.getBoundingClientRect().right));
         return { scrolls: document.documentElement.scrollWidth > w, width: w, wide: wide.slice(0, 10) };",
        vec![],
    )
    .await
}

/// An `argocd-cm` with a rule under a long key, for the audit.
const LONG_KEY_SETTINGS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: argocd\ndata:\n  resource.customizations.ignoreDifferences.admissionregistration.k8s.io_MutatingWebhookConfiguration: |\n    jsonPointers:\n    - /webhooks/0/clientConfig/caBundle\n";

/// The viewport `width` px wide (a phone's when narrow).
async fn viewport(c: &Client, width: u32) {
    let (height, mobile) = if width < 600 {
        (844, true)
    } else {
        (900, false)
    };
    cdp(
        c,
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile }),
    )
    .await;
}

/// Paste the long-key settings and wait for their audit.
async fn audit_long_key(c: &Client) {
    js(
        c,
        "document.querySelector('details.settings').open = true; return true;",
        vec![],
    )
    .await;
    let before = report_seq(c).await;
    type_into(c, "settings-input", LONG_KEY_SETTINGS, "insertFromPaste").await;
    wait_new_report(c, &before, "the report with the argocd-cm rule").await;
    assert!(
        text(c, "#audit")
            .await
            .contains("MutatingWebhookConfiguration"),
        "the rule is audited"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
}

/// At 1440 px, the audit of a rule under a long `argocd-cm` key does not
/// make the page scroll sideways, and the report beside the editors needs
/// no link to reach it; on the Rules tab every example block that scrolls
/// can be reached and scrolled with the keyboard.
#[test]
fn wide_content_never_scrolls_the_page_and_scrolling_blocks_take_focus() {
    with_page("access-wide", |c, _| async move {
        viewport(&c, 1440).await;
        audit_long_key(&c).await;
        let s = sideways(&c).await;
        assert_eq!(
            s["scrolls"],
            json!(false),
            "the page scrolls sideways at 1440 px: {s}"
        );
        assert_eq!(
            js(&c, "const j = document.getElementById('jump-to-report'); return !!j && j.getClientRects().length > 0;", vec![]).await,
            json!(false),
            "no jump link when the report is beside the editors"
        );

        // The Rules tab: a block that scrolls is a tab stop.
        js(&c, "location.hash = '#rules'; return true;", vec![]).await;
        wait_until(
            &c,
            "document.querySelectorAll('.rules pre').length > 0",
            "the rules' examples",
            20,
        )
        .await;
        js(
            &c,
            "document.querySelectorAll('.rules details').forEach(d => d.open = true); return true;",
            vec![],
        )
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let blocks = js(
            &c,
            "const all = [...document.querySelectorAll('.rules pre')].filter(p => p.getClientRects().length);
             const scrolling = all.filter(p => p.scrollWidth > p.clientWidth || p.scrollHeight > p.clientHeight);
             return { all: all.length, scrolling: scrolling.length, unreachable: scrolling.filter(p => p.tabIndex < 0).length };",
            vec![],
        )
        .await;
        assert!(
            blocks["scrolling"].as_u64().unwrap() > 0,
            "some example blocks scroll: {blocks}"
        );
        assert_eq!(blocks["unreachable"], json!(0), "{blocks}");
    });
}

/// On a phone (390 px): the Example row is whole on screen, nothing makes
/// the page scroll sideways (the long `argocd-cm` key in the audit
/// included), and a link above the editors leads to the report.
#[test]
fn on_a_phone_the_report_is_one_link_away_and_nothing_is_cut_off() {
    with_page("access-phone", |c, _| async move {
        viewport(&c, 390).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let row = js(
            &c,
            "const w = document.documentElement.clientWidth;
             return ['example', 'load-example'].map(id => {
               const r = document.getElementById(id).getBoundingClientRect();
               return { id, left: Math.round(r.left), right: Math.round(r.right), inside: r.left >= 0 && r.right <= w };
             });",
            vec![],
        )
        .await;
        assert!(
            row.as_array()
                .unwrap()
                .iter()
                .all(|r| r["inside"] == json!(true)),
            "the Example row is cut off at 390 px: {row}"
        );
        let s = sideways(&c).await;
        assert_eq!(s["scrolls"], json!(false), "at 390 px: {s}");

        // The report, one link away: the link comes before the editors.
        let jump = js(
            &c,
            "const j = document.getElementById('jump-to-report');
             const editors = document.querySelector('.editors');
             if (!j || !j.getClientRects().length) return null;
             return { before: !!(j.compareDocumentPosition(editors) & Node.DOCUMENT_POSITION_FOLLOWING),
                      above: j.getBoundingClientRect().bottom <= editors.getBoundingClientRect().top,
                      onScreen: j.getBoundingClientRect().bottom <= window.innerHeight };",
            vec![],
        )
        .await;
        assert_eq!(
            jump,
            json!({ "before": true, "above": true, "onScreen": true }),
            "a visible link to the report above the editors"
        );
        click(&c, "#jump-to-report").await;
        wait_until(
            &c,
            "Math.abs(document.getElementById('report-h').getBoundingClientRect().top) < window.innerHeight / 2",
            "the report in view",
            10,
        )
        .await;
        assert_eq!(
            js(&c, "return document.activeElement.id;", vec![]).await,
            json!("report-h"),
            "the focus follows to the report"
        );

        audit_long_key(&c).await;
        let s = sideways(&c).await;
        assert_eq!(s["scrolls"], json!(false), "at 390 px with the audit: {s}");
    });
}

/// Press Escape where the focus is (the page listens on the document).
async fn escape(c: &Client) {
    js(
        c,
        "(document.activeElement || document.body).dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true, cancelable: true})); return true;",
        vec![],
    )
    .await;
}

/// Focus the first element matching `selector`.
async fn focus(c: &Client, selector: &str) {
    js(
        c,
        "const e = document.querySelector(arguments[0]); if (!e) throw new Error('no ' + arguments[0]); e.focus(); return document.activeElement === e;",
        vec![json!(selector)],
    )
    .await;
}

/// Where the focus is: its id or class, and a toggle's state.
async fn focused(c: &Client) -> serde_json::Value {
    js(
        c,
        "const a = document.activeElement; return [a.id || a.className, a.getAttribute('aria-expanded')];",
        vec![],
    )
    .await
}

/// Escape closes what was opened, innermost first, and gives the focus to
/// what opened it: the YAML view, then its card, a settings section, the
/// share panel, the check panel.
#[test]
fn escape_closes_what_opened() {
    with_page("access-escape", |c, _| async move {
        let card = ".card.out";
        assert!(
            !text(
                &c,
                &format!("{card} .card-toggle[aria-expanded=true] .card-kind")
            )
            .await
            .is_empty(),
            "the example's cards are open"
        );
        click(&c, &format!("{card} .yaml-toggle")).await;
        wait_until(&c, "document.querySelector('.card.out .yaml-toggle').getAttribute('aria-expanded') === 'true'", "the YAML view", 10).await;
        focus(&c, &format!("{card} .yaml-toggle")).await;
        escape(&c).await;
        wait_until(&c, "document.querySelector('.card.out .yaml-toggle').getAttribute('aria-expanded') === 'false'", "the YAML view closed", 10).await;
        assert_eq!(
            focused(&c).await,
            json!(["button small yaml-toggle", "false"])
        );
        // The card around the focus.
        escape(&c).await;
        wait_until(&c, "document.querySelector('.card.out .card-toggle').getAttribute('aria-expanded') === 'false'", "the card closed", 10).await;
        assert_eq!(focused(&c).await, json!(["card-toggle", "false"]));
        // Escape on a closed toggle closes nothing else.
        escape(&c).await;
        assert_eq!(focused(&c).await, json!(["card-toggle", "false"]));

        // A section of the input opened by its summary.
        click(&c, "details.settings > summary").await;
        focus(&c, "details.settings > summary").await;
        escape(&c).await;
        assert_eq!(
            js(&c, "const d = document.querySelector('details.settings'); return [d.open, document.activeElement === d.querySelector('summary')];", vec![]).await,
            json!([false, true])
        );

        // The share panel: closed from its link field, the focus back on
        // the button that opened it.
        open_share_panel(&c).await;
        focus(&c, "#share-link").await;
        escape(&c).await;
        wait_until(
            &c,
            "!document.getElementById('share-panel')",
            "the share panel closed",
            10,
        )
        .await;
        assert_eq!(focused(&c).await, json!(["copy-link", null]));

        // The check panel.
        click(&c, "#check-render").await;
        // Once its answer is in: the answer re-renders the panel.
        wait_until(
            &c,
            "document.querySelector('#check .check-close') && !document.getElementById('check').textContent.includes('Checking')",
            "the check panel",
            30,
        )
        .await;
        js(&c, "document.querySelector('#check h2').tabIndex = -1; document.querySelector('#check h2').focus(); return true;", vec![]).await;
        escape(&c).await;
        wait_until(
            &c,
            "!document.getElementById('check')",
            "the check panel closed",
            10,
        )
        .await;
    });
}

/// Badges and labels are separate words to a screen reader: the text a
/// card's toggle, a difference's heading and a cause's filter button are
/// read as holds a space between each part (CSS gaps are no spaces to a
/// screen reader).
#[test]
fn badges_are_separate_words_to_a_screen_reader() {
    with_page("access-words", |c, _| async move {
        let glued = js(
            &c,
            "const parts = el => [...el.children].filter(k => k.getAttribute('aria-hidden') !== 'true' && k.textContent.trim() !== '');
             const out = [];
             for (const el of document.querySelectorAll('#report .card-toggle, #report .diff-head, #report .cause-row, #report .card-causes')) {
                 const text = el.textContent;
                 const kids = parts(el);
                 for (let i = 1; i < kids.length; i++) {
                     const a = kids[i - 1].textContent, b = kids[i].textContent;
                     if (!/\\s$/.test(a) && !/^\\s/.test(b) && text.includes(a + b)) out.push(el.className + ': ' + JSON.stringify(a + b));
                 }
             }
             return {checked: document.querySelectorAll('#report .card-toggle, #report .diff-head').length, glued: out.slice(0, 10)};",
            vec![],
        )
        .await;
        assert!(glued["checked"].as_u64().unwrap() > 2, "{glued}");
        assert_eq!(glued["glued"], json!([]), "{glued}");
    });
}
