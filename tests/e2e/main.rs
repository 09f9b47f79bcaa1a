//! End-to-end test of the built web page (`dist/`, from scripts/build-web.sh)
//! in headless Chromium through chromedriver and fantoccini.
//!
//! One browser session runs every check in turn (the machine is small):
//! the default example is analysed on load, pasting another pair updates the
//! report, an input error is shown with its line next to the right editor,
//! fix snippets equal the core's, the page only ever talks to its own origin,
//! and the Content-Security-Policy is never violated. A screenshot goes to
//! `target/e2e/`.
//!
//! `big_pair_in_browser` (ignored; scripts/bench-browser.sh runs it) prints the
//! time from pasting a large pair to seeing its report.
//!
//! Missing `dist/` or chromedriver is a failure, never a silent skip.
//!
//! The checks live in one module per page area; this file holds the static
//! server and the helpers that drive the page.

#![cfg(not(target_arch = "wasm32"))]
// Tests ship nowhere: the standard sorts' size costs nothing here.
#![allow(clippy::disallowed_methods)]

#[path = "../browser/mod.rs"]
mod browser;

mod access;
mod application;
mod axe;
mod bench;
mod careful_user;
mod input;
mod plan;
mod report;
mod settings;
mod sharing;

use browser::{
    expected_causes, fixture, js, page_causes, root, start_driver, stat, wait_until, with_browser,
    Raw,
};
use drift_doctor::{analyze, CompareOptions, FixKind, Options, Report};
use fantoccini::Client;
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The sub-path the page is served under: relative URLs must work there.
const PREFIX: &str = "/some/sub/path/";

/// The options the page uses: defaults; hidden differences only when shown.
fn page_options(hidden: bool) -> Options {
    Options {
        namespace: None,
        compare: CompareOptions {
            include_hidden: hidden,
            ..Default::default()
        },
    }
}

fn core_report(git: &str, live: &str) -> Report {
    analyze(git, live, &page_options(false)).expect("the core reads the fixture")
}

// ---------------------------------------------------------------------------
// A tiny static server for dist/, recording every request.

struct Server {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<(String, u16)>>>,
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

fn serve(dist: PathBuf) -> Server {
    serve_with(dist, Policy::default())
}

/// `serve`, answering 404 for the files named in `refused`.
fn serve_refusing(dist: PathBuf, refused: &'static [&'static str]) -> Server {
    serve_with(
        dist,
        Policy {
            refused,
            ..Policy::default()
        },
    )
}

/// What the server answers besides `dist`'s files.
#[derive(Default)]
struct Policy {
    /// Files answered with 404.
    refused: &'static [&'static str],
    /// A file whose second fetch gets this script instead (a stand-in for
    /// the helper worker, which loads the analysis worker's script again).
    second_fetch: Option<(&'static str, String)>,
}

fn serve_with(dist: PathBuf, policy: Policy) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let addr = listener.local_addr().unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    let log2 = log.clone();
    let policy = Arc::new(policy);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dist = dist.clone();
            let log = log2.clone();
            let policy = policy.clone();
            std::thread::spawn(move || {
                let _ = handle(stream, &dist, &policy, &log);
            });
        }
    });
    Server { addr, log }
}

fn handle(
    stream: TcpStream,
    dist: &Path,
    policy: &Policy,
    log: &Mutex<Vec<(String, u16)>>,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" || header == "\n" {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("").to_string();
    let path = target.split(['?', '#']).next().unwrap_or("").to_string();
    let rest = path.strip_prefix(PREFIX).unwrap_or("");
    if let Some((name, script)) = &policy.second_fetch {
        let fetched_before = log
            .lock()
            .unwrap()
            .iter()
            .filter(|(r, _)| r.contains(name))
            .count();
        if rest == *name && fetched_before == 1 {
            let mut out = stream;
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: text/javascript; charset=utf-8\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
                script.len()
            )?;
            out.write_all(script.as_bytes())?;
            out.flush()?;
            log.lock()
                .unwrap()
                .push((format!("{method} {target} (stand-in)"), 200));
            return Ok(());
        }
    }
    let refused = policy.refused;
    let file = path
        .strip_prefix(PREFIX)
        .filter(|rest| {
            !rest
                .split('/')
                .any(|seg| seg == ".." || seg.starts_with('.'))
        })
        .filter(|rest| !refused.contains(rest))
        .map(|rest| dist.join(if rest.is_empty() { "index.html" } else { rest }))
        .filter(|f| f.is_file() && method == "GET");
    let mut out = stream;
    let status = match file.and_then(|f| std::fs::read(&f).ok().map(|b| (f, b))) {
        Some((f, body)) => {
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
                content_type(&f),
                body.len()
            )?;
            out.write_all(&body)?;
            200
        }
        None => {
            let body = b"not found";
            write!(out, "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len())?;
            out.write_all(body)?;
            404
        }
    };
    out.flush()?;
    log.lock()
        .unwrap()
        .push((format!("{method} {target}"), status));
    Ok(())
}

// ---------------------------------------------------------------------------
// chromedriver and the browser session.

async fn report_seq(c: &Client) -> String {
    js(
        c,
        "return document.getElementById('report').dataset.seq;",
        vec![],
    )
    .await
    .as_str()
    .unwrap_or("")
    .to_string()
}

/// Wait for a report newer than `before`.
async fn wait_new_report(c: &Client, before: &str, what: &str) {
    let cond = format!(
        "document.getElementById('report').dataset.seq !== {before:?} && document.getElementById('report').dataset.state === 'ready'"
    );
    wait_until(c, &cond, what, 60).await;
}

/// Paste a pair into the editors the way a browser does (value + input event).
async fn paste(c: &Client, git: &str, live: &str, input_type: &str) {
    js(
        c,
        "const [g, l, t] = arguments;
         const gi = document.getElementById('git-input'), li = document.getElementById('live-input');
         gi.value = g; gi.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: t}));
         li.value = l; li.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: t}));
         return true;",
        vec![json!(git), json!(live), json!(input_type)],
    )
    .await;
}

fn dist_dir() -> PathBuf {
    let dist = root().join("dist");
    for f in [
        "index.html",
        "drift-doctor-worker_loader.js",
        "drift-doctor-worker.js",
        "drift-doctor-worker_bg.wasm",
    ] {
        assert!(
            dist.join(f).is_file(),
            "{} is missing: build the page first with scripts/build-web.sh (scripts/test.sh does)",
            dist.join(f).display()
        );
    }
    dist
}

/// Set a textarea's value as typing would (an `input` event).
async fn type_into(c: &Client, id: &str, text: &str, input_type: &str) {
    js(
        c,
        "const [id, v, t] = arguments; const e = document.getElementById(id);
         e.value = v; e.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: t})); return true;",
        vec![json!(id), json!(text), json!(input_type)],
    )
    .await;
}

/// Paste `text` into an element the way a browser does (a `paste` event
/// with clipboard data; the page decides where the text goes).
async fn paste_event(c: &Client, id: &str, text: &str) {
    js(
        c,
        "const dt = new DataTransfer(); dt.setData('text/plain', arguments[1]);
         document.getElementById(arguments[0]).dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true}));
         return true;",
        vec![json!(id), json!(text)],
    )
    .await;
}

/// Choose `value` in the select `id`, as a user does (a `change` event).
async fn choose(c: &Client, id: &str, value: &str) {
    js(
        c,
        "const s = document.getElementById(arguments[0]); s.value = arguments[1];
         s.dispatchEvent(new Event('change', {bubbles: true})); return true;",
        vec![json!(id), json!(value)],
    )
    .await;
}

/// Choose an example in the menu and press Load.
async fn load_example(c: &Client, name: &str) {
    js(
        c,
        "const s = document.getElementById('example'); s.value = arguments[0];
         s.dispatchEvent(new Event('change', {bubbles: true}));
         document.getElementById('load-example').click(); return true;",
        vec![json!(name)],
    )
    .await;
}

async fn click(c: &Client, selector: &str) {
    js(
        c,
        "const e = document.querySelector(arguments[0]); if (!e) throw new Error('no ' + arguments[0]); e.click(); return true;",
        vec![json!(selector)],
    )
    .await;
}

/// Capture the files the page offers for download (the text of each blob
/// given to `URL.createObjectURL`), instead of saving them.
async fn capture_downloads(c: &Client) {
    js(
        c,
        "window.__downloads = [];
         const make = URL.createObjectURL.bind(URL);
         URL.createObjectURL = blob => { blob.text().then(t => window.__downloads.push(t)); return make(blob); };
         HTMLAnchorElement.prototype.click = function () { window.__downloadNames = (window.__downloadNames || []).concat([this.download]); };
         return true;",
        vec![],
    )
    .await;
}

async fn last_download(c: &Client, what: &str) -> String {
    wait_until(
        c,
        "window.__downloads && window.__downloads.length > 0",
        what,
        10,
    )
    .await;
    let v = js(c, "return window.__downloads.pop();", vec![]).await;
    v.as_str().expect("download text").to_string()
}

/// What a report looks like on the page: counts and causes.
async fn page_summary(c: &Client) -> (usize, usize, Vec<String>) {
    (
        stat(c, "stat-resources").await,
        stat(c, "stat-out").await,
        page_causes(c).await,
    )
}

fn core_summary(r: &Report) -> (usize, usize, Vec<String>) {
    (
        r.summary.resources,
        r.summary.out_of_sync,
        expected_causes(r),
    )
}

async fn wait_ready(c: &Client, what: &str) {
    wait_until(
        c,
        "document.getElementById('report') && document.getElementById('report').dataset.state === 'ready'",
        what,
        60,
    )
    .await;
}

/// Open the share panel ("Copy link") and wait for its link field.
async fn open_share_panel(c: &Client) {
    click(c, "#copy-link").await;
    wait_until(
        c,
        "document.getElementById('share-link')",
        "the share panel",
        20,
    )
    .await;
}

/// Wait for the banner that marks the last report as stale.
async fn wait_stale_banner(c: &Client) {
    wait_until(
        c,
        "document.getElementById('stale-note')",
        "the stale banner",
        30,
    )
    .await;
}

/// Save a screenshot of the page as `target/e2e/<name>.png`.
async fn save_screenshot(c: &Client, name: &str) {
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(root().join(format!("target/e2e/{name}.png")), png).unwrap();
}

/// The link "Copy link" shows.
async fn copy_link(c: &Client) -> String {
    let serial = share_serial(c).await;
    click(c, "#copy-link").await;
    wait_until(
        c,
        &format!("document.getElementById('share-link') && document.getElementById('share-panel').dataset.serial !== {serial:?}"),
        "the share link",
        20,
    )
    .await;
    let v = js(
        c,
        "return document.getElementById('share-link').value;",
        vec![],
    )
    .await;
    v.as_str().unwrap().to_string()
}

async fn share_serial(c: &Client) -> String {
    let v = js(
        c,
        "const p = document.getElementById('share-panel'); return p ? p.dataset.serial : '';",
        vec![],
    )
    .await;
    v.as_str().unwrap_or("").to_string()
}

/// Open `url` in a new window (its own sessionStorage), run `body`, close it.
async fn in_new_window(c: &Client, url: &str) -> fantoccini::wd::WindowHandle {
    let main = c.window().await.unwrap();
    let w = c.new_window(true).await.expect("a new window");
    c.switch_to_window(w.handle).await.unwrap();
    c.goto(url).await.expect("open the link");
    main
}

async fn back_to(c: &Client, main: fantoccini::wd::WindowHandle) {
    c.close_window().await.unwrap();
    c.switch_to_window(main).await.unwrap();
}

/// The `data-kind` of a fix on the page.
fn fix_kind_id(kind: FixKind) -> &'static str {
    match kind {
        FixKind::Ignore => "ignore",
        FixKind::Git => "git",
        FixKind::SyncOrder => "sync-order",
        FixKind::Render => "render",
    }
}

/// A fix's text as the page shows it: code as it is, prose paragraphs with
/// their `code` spans rendered (no backticks).
fn shown_fix_text(f: &drift_doctor::Fix) -> String {
    let prose = |t: &str| {
        t.split("\n\n")
            .filter(|p| !p.trim().is_empty())
            .map(|p| p.trim().replace('`', ""))
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    match f.kind {
        FixKind::Ignore => f.snippet.clone(),
        FixKind::Git | FixKind::Render => prose(&f.snippet),
        FixKind::SyncOrder => match f.snippet.split_once("\n\n") {
            Some((what, code)) => format!("{}\n\n{code}", prose(what)),
            None => prose(&f.snippet),
        },
    }
}

/// The text of the first element matching `selector` ("" when none).
async fn text(c: &Client, selector: &str) -> String {
    js(
        c,
        "const e = document.querySelector(arguments[0]); return e ? e.textContent : '';",
        vec![json!(selector)],
    )
    .await
    .as_str()
    .unwrap_or("")
    .to_string()
}

/// A chromedriver DevTools command (`Emulation.*`).
async fn cdp(c: &Client, cmd: &str, params: serde_json::Value) {
    c.issue_cmd(Raw {
        method: http::Method::POST,
        path: "goog/cdp/execute",
        body: Some(json!({ "cmd": cmd, "params": params })),
    })
    .await
    .unwrap_or_else(|e| panic!("{cmd}: {e}"));
}

fn webhook_live_text() -> String {
    fixture("webhook-cabundle-cainjector", "live")
}

/// Start the page in a fresh browser for one of the focused tests below.
fn with_page<F, Fut>(tag: &str, body: F)
where
    F: FnOnce(Client, String) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let server = serve(dist_dir());
    let url = format!("http://{}{PREFIX}", server.addr);
    let driver = start_driver(tag);
    with_browser(&driver, false, move |c| async move {
        c.goto(&url).await.expect("open the page");
        wait_ready(&c, "the default report").await;
        body(c, url).await
    });
}
