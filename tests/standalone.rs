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

use drift_doctor::{analyze, Options, Report};
use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str, side: &str) -> String {
    let p = root()
        .join("tests/fixtures/scenarios")
        .join(name)
        .join(format!("{side}.yaml"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()))
}

/// The core's report with the page's options (the defaults).
fn core_report(name: &str) -> Report {
    analyze(
        &fixture(name, "git"),
        &fixture(name, "live"),
        &Options::default(),
    )
    .expect("the core reads the fixture")
}

fn expected_causes(report: &Report) -> Vec<String> {
    drift_doctor::Cause::ALL
        .into_iter()
        .filter(|c| report.summary.causes.get(c).copied().unwrap_or(0) > 0)
        .map(|c| c.id().to_string())
        .collect()
}

/// chromedriver and a scratch directory (browser profile, the copied page).
struct Driver {
    child: Child,
    port: u16,
    scratch: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

fn start_driver() -> Driver {
    let bin = std::env::var_os("CHROMEDRIVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromedriver"));
    assert!(
        bin.is_file(),
        "chromedriver not found at {} (set CHROMEDRIVER, or run scripts/setup.sh)",
        bin.display()
    );
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(&bin)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {}: {e}", bin.display()));
    let scratch =
        std::env::temp_dir().join(format!("drift-doctor-standalone-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(scratch.join("profile")).unwrap();
    std::fs::create_dir_all(scratch.join("page")).unwrap();
    let driver = Driver {
        child,
        port,
        scratch,
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    driver
}

async fn connect(driver: &Driver) -> Client {
    let args = vec![
        "--headless=new".to_string(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--disable-dev-shm-usage".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        "--no-first-run".into(),
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1".into(),
        format!(
            "--user-data-dir={}",
            driver.scratch.join("profile").display()
        ),
        "--window-size=1280,1000".into(),
    ];
    let mut chrome = json!({ "args": args });
    let binary = std::env::var("CHROME").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if std::path::Path::new(&binary).is_file() {
        chrome["binary"] = json!(binary);
    }
    let caps = json!({
        "browserName": "chrome",
        "goog:chromeOptions": chrome,
        // `performance` carries the DevTools network events of the page.
        "goog:loggingPrefs": { "browser": "ALL", "performance": "ALL" },
    });
    let Value::Object(caps) = caps else {
        unreachable!()
    };
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a WebDriver session in headless Chromium")
}

/// chromedriver's log of one type (`browser`, `performance`), since the last call.
#[derive(Debug)]
struct Log(&'static str);

impl WebDriverCompatibleCommand for Log {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or_default()))
    }
    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({ "type": self.0 }).to_string()),
        )
    }
}

async fn log(c: &Client, kind: &'static str) -> Vec<Value> {
    let v = c.issue_cmd(Log(kind)).await.expect("chromedriver's log");
    v.as_array().cloned().unwrap_or_default()
}

async fn js(c: &Client, script: &str, args: Vec<Value>) -> Value {
    c.execute(script, args)
        .await
        .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
}

/// Poll `condition` (a JS expression) until it is truthy.
async fn wait_until(c: &Client, condition: &str, what: &str, secs: u64) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    let script = format!("return !!({condition});");
    while js(c, &script, vec![]).await != Value::Bool(true) {
        if Instant::now() > deadline {
            let page = js(c, "const r = document.getElementById('report'); return r ? r.dataset.state + ': ' + r.innerText.slice(0, 400) : document.body.innerText.slice(0, 400);", vec![]).await;
            let console = log(c, "browser").await;
            panic!(
                "timed out after {secs} s waiting for {what}; page: {page}; console: {console:?}"
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

const READY: &str = "document.getElementById('report') && document.getElementById('report').dataset.state === 'ready'";

async fn page_causes(c: &Client) -> Vec<String> {
    let v = js(
        c,
        "return [...document.querySelectorAll('.summary .cause-row')].map(e => e.dataset.cause);",
        vec![],
    )
    .await;
    serde_json::from_value(v).unwrap()
}

async fn out_of_sync(c: &Client) -> usize {
    let v = js(
        c,
        "return document.querySelector('.summary .stat-out .stat-n').textContent;",
        vec![],
    )
    .await;
    v.as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no out-of-sync count: {v}"))
}

#[test]
fn one_file_page_from_disk() {
    let built = root().join("dist/drift-doctor.html");
    assert!(
        built.is_file(),
        "{} is missing: build the page first with scripts/build-web.sh (scripts/test.sh does)",
        built.display()
    );
    let driver = start_driver();
    // Alone in an empty directory: the file may need nothing beside it.
    let page = driver.scratch.join("page/drift-doctor.html");
    std::fs::copy(&built, &page).unwrap();
    let url = url::Url::from_file_path(&page).unwrap().to_string();

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = connect(&driver).await;
        let outcome = tokio::spawn(checks(c.clone(), url)).await;
        let _ = c.close().await;
        if let Err(e) = outcome {
            if e.is_panic() {
                std::panic::resume_unwind(e.into_panic());
            }
            panic!("the browser checks did not finish: {e}");
        }
    });
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
    assert_eq!(out_of_sync(&c).await, mixed.summary.out_of_sync);

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
    assert_eq!(out_of_sync(&c).await, webhook.summary.out_of_sync);

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
        requests.iter().any(|u| *u == url),
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
