//! The web page (Yew) and its analysis worker. The page binary calls
//! `start_page`, the worker binaries `start_worker` (the analysis worker is
//! built lean and starts the full one for what it leaves out, see
//! `engine::ANSWERS_ALL`); the browser tests
//! (tests/web_wasm.rs) use the public modules. The page and the worker's
//! message loop are compiled for wasm32 only, so natively the library has no
//! web crates; the messages, the engine and the first report are plain Rust
//! and built natively too (the first report is made there).
//!
//! - `protocol`: the messages between the page and the worker.
//! - `engine`: the worker's work (calls the core); also used inline by tests.
//! - `small_blocks`: the page's and the workers' allocator (free lists of
//!   small blocks in front of rlsf).
//! - `first_report`: the default example's report, made when the page is
//!   built, shown before the worker has loaded.
//! - `worker`: the worker's message loop around `engine`, and the hand-over
//!   to the full worker.
//! - `client`: the page's side of the worker (latest-request-wins queue).
//! - `state`: the page's one reducer (`drawing`: which cards of the listed
//!   page are drawn yet); `controller`: what acts on the world
//!   (the worker, the text fields, timers) and dispatches to it.
//! - `app`: the page; `input_panel` and `report_panel` its two halves;
//!   `card`, `fix_view`, `summary`, `diffview`, `rules_view` the report's parts;
//!   `check_view` the check before it ships (`drift-doctor check` on the Git side).
//! - `inputs`: the input fields (large ones held as the browser's strings,
//!   `js_text`); `persist`: what outlives a reload, the URL
//!   fragment and downloads; `sharing`: share links and files on the page.

/// Modules for the browser only (the page and the worker's message loop).
macro_rules! browser_only {
    ($($vis:vis mod $name:ident;)*) => {
        $(#[cfg(target_arch = "wasm32")] $vis mod $name;)*
    };
}

pub mod drawing;
pub mod engine;
pub mod examples;
pub mod first_report;
pub mod protocol;
pub mod small_blocks;

/// The allocator of the page and its workers, every wasm32 program built
/// with `web` (see Cargo.toml's `rlsf`, and `small_blocks`).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: small_blocks::SmallBlocks<rlsf::GlobalTlsf> =
    small_blocks::SmallBlocks::new(rlsf::GlobalTlsf::new());

// The worker's jq module, where jaq is not built in.
#[cfg(all(target_arch = "wasm32", not(feature = "jq-engine")))]
mod jq_module;

browser_only! {
    pub mod app;
    mod card;
    mod check_view;
    pub mod client;
    mod controller;
    mod diffview;
    mod editor;
    mod fix_view;
    mod input_panel;
    mod inputs;
    pub mod js_text;
    mod persist;
    mod plan_view;
    mod report_panel;
    mod rules_view;
    mod sharing;
    mod state;
    mod status_view;
    mod summary;
    mod util;
    mod worker;
}

pub use protocol::PAGE_SIZE;

/// The worker's loader script, relative to the page (Trunk writes it beside
/// `index.html` from `data-loader-shim`). The page reads the URL from
/// `<meta name="drift-doctor-worker">`, where scripts/build-web.sh adds a
/// content hash so that a cached worker never outlives its page.
#[cfg(target_arch = "wasm32")]
const WORKER_LOADER: &str = "drift-doctor-worker_loader.js";

/// The content of the page's `<meta name=NAME>`, unless missing or empty.
#[cfg(target_arch = "wasm32")]
fn meta_content(document: &web_sys::Document, name: &str) -> Option<String> {
    document
        .query_selector(&format!("meta[name=\"{name}\"]"))
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .filter(|c| !c.is_empty())
}

#[cfg(target_arch = "wasm32")]
/// Mount the page into `#app` (or `<body>`), analysing in the web worker.
pub fn start_page() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let root = match document.get_element_by_id("app") {
        Some(el) => {
            // Remove the static "loading" text.
            el.set_text_content(None);
            el
        }
        None => match document.body() {
            Some(body) => body.into(),
            None => return,
        },
    };
    let worker =
        meta_content(&document, "drift-doctor-worker").unwrap_or_else(|| WORKER_LOADER.to_string());
    let props = app::AppProps {
        backend: app::Backend::Worker(worker.into()),
        first_report: meta_content(&document, first_report::META_NAME).map(Into::into),
    };
    yew::Renderer::<app::App>::with_root_and_props(root, props).render();
}

#[cfg(target_arch = "wasm32")]
/// Start answering the page (the worker binary's `main`).
pub fn start_worker() {
    worker::start();
}
