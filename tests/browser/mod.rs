//! Driving headless Chromium through chromedriver, for the browser tests
//! (`tests/e2e/`, `tests/standalone.rs`; included with `#[path]`). The
//! flags are those of the toolchain notes; CHROMEDRIVER and CHROME name the
//! binaries, E2E_CHROME_ARGS adds flags.

#![allow(dead_code)]

use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One side (`git`, `live`) of a scenario under tests/fixtures/scenarios.
pub fn fixture(name: &str, side: &str) -> String {
    let p = root()
        .join("tests/fixtures/scenarios")
        .join(name)
        .join(format!("{side}.yaml"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()))
}

/// A running chromedriver and a scratch directory (the browser profile is
/// its `profile/`), both removed on drop.
pub struct Driver {
    child: Child,
    pub port: u16,
    pub scratch: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

fn chromedriver_path() -> PathBuf {
    let p = std::env::var_os("CHROMEDRIVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromedriver"));
    assert!(
        p.is_file(),
        "chromedriver not found at {} (set CHROMEDRIVER, or run scripts/setup.sh to install Debian's chromium-driver)",
        p.display()
    );
    p
}

pub fn start_driver(tag: &str) -> Driver {
    let bin = chromedriver_path();
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
    let scratch = std::env::temp_dir().join(format!("drift-doctor-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(scratch.join("profile")).unwrap();
    let driver = Driver {
        child,
        port,
        scratch,
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "chromedriver did not start listening on port {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    driver
}

/// A session; `network_log` also records the DevTools network events
/// (`log(c, "performance")`).
pub async fn connect(driver: &Driver, network_log: bool) -> Client {
    let mut args = vec![
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
    if let Ok(extra) = std::env::var("E2E_CHROME_ARGS") {
        args.extend(extra.split_whitespace().map(String::from));
    }
    let mut chrome = json!({ "args": args });
    let binary = std::env::var("CHROME").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if Path::new(&binary).is_file() {
        chrome["binary"] = json!(binary);
    }
    let mut logging = json!({ "browser": "ALL" });
    if network_log {
        logging["performance"] = json!("ALL");
    }
    let caps = json!({
        "browserName": "chrome",
        "goog:chromeOptions": chrome,
        "goog:loggingPrefs": logging,
    });
    let Value::Object(caps) = caps else {
        unreachable!()
    };
    // On a busy 2-core machine chromedriver may drop the first request while
    // several browsers start at once: try again before failing.
    let mut attempt = 0;
    loop {
        let session = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{}", driver.port))
            .await;
        match session {
            Ok(client) => return client,
            Err(e) if attempt >= 4 => panic!("a WebDriver session in headless Chromium: {e:?}"),
            Err(_) => {
                attempt += 1;
                tokio::time::sleep(std::time::Duration::from_millis(500 * attempt)).await;
            }
        }
    }
}

/// Run `body` in a fresh session and always close the browser, also when a
/// check fails (then the failure is passed on).
pub fn with_browser<F, Fut>(driver: &Driver, network_log: bool, body: F)
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = connect(driver, network_log).await;
        let outcome = tokio::spawn(body(c.clone())).await;
        let _ = c.close().await;
        if let Err(e) = outcome {
            if e.is_panic() {
                std::panic::resume_unwind(e.into_panic());
            }
            panic!("the browser checks did not finish: {e}");
        }
    });
}

/// A chromedriver command the W3C API of fantoccini does not cover.
#[derive(Debug)]
pub struct Raw {
    pub method: http::Method,
    pub path: &'static str,
    pub body: Option<Value>,
}

impl WebDriverCompatibleCommand for Raw {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!(
            "session/{}/{}",
            session.unwrap_or_default(),
            self.path
        ))
    }
    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (
            self.method.clone(),
            self.body.as_ref().map(Value::to_string),
        )
    }
}

/// chromedriver's log of one type (`browser`, `performance`) since the last
/// call; empty when chromedriver keeps none.
pub async fn log(c: &Client, kind: &str) -> Vec<Value> {
    c.issue_cmd(Raw {
        method: http::Method::POST,
        path: "se/log",
        body: Some(json!({ "type": kind })),
    })
    .await
    .ok()
    .and_then(|v| v.as_array().cloned())
    .unwrap_or_default()
}

pub async fn js(c: &Client, script: &str, args: Vec<Value>) -> Value {
    c.execute(script, args)
        .await
        .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
}

/// Poll `condition` (a JS expression) until it is truthy.
pub async fn wait_until(c: &Client, condition: &str, what: &str, secs: u64) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    let script = format!("return !!({condition});");
    while js(c, &script, vec![]).await != Value::Bool(true) {
        if Instant::now() > deadline {
            let page = js(c, "const r = document.getElementById('report'); return r ? r.dataset.state + ' seq ' + r.dataset.seq + ': ' + r.innerText.slice(0, 400) : document.body.innerText.slice(0, 400);", vec![]).await;
            let console = log(c, "browser").await;
            panic!(
                "timed out after {secs} s waiting for {what}; page: {page}; console: {console:?}"
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The report is shown and current.
pub const READY: &str = "document.getElementById('report') && document.getElementById('report').dataset.state === 'ready'";

/// The causes in the summary, as ids, in page order.
pub async fn page_causes(c: &Client) -> Vec<String> {
    let v = js(
        c,
        "return [...document.querySelectorAll('.summary .cause-row')].map(e => e.dataset.cause);",
        vec![],
    )
    .await;
    serde_json::from_value(v).unwrap()
}

/// A number of the summary (`stat-resources`, `stat-out`, ...).
pub async fn stat(c: &Client, class: &str) -> usize {
    let v = js(
        c,
        &format!("return document.querySelector('.summary .{class} .stat-n').textContent;"),
        vec![],
    )
    .await;
    v.as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no number in .{class}: {v}"))
}

/// The causes a report's summary lists, in the page's order.
pub fn expected_causes(report: &drift_doctor::Report) -> Vec<String> {
    drift_doctor::Cause::ALL
        .into_iter()
        .filter(|c| report.summary.causes.get(c).copied().unwrap_or(0) > 0)
        .map(|c| c.id().to_string())
        .collect()
}

/// Console entries of level SEVERE (errors), as level and message.
pub async fn console_errors(c: &Client) -> Vec<Value> {
    log(c, "browser")
        .await
        .into_iter()
        .filter(|e| e["level"] == "SEVERE")
        .collect()
}
