//! The web page (Yew) and its analysis worker. Only compiled for wasm32, so
//! the library stays free of web crates natively. The page binary calls
//! [`start_page`], the worker binary [`start_worker`]; the browser tests
//! (tests/web_wasm.rs) use the public modules.
//!
//! - `protocol`: the messages between the page and the worker.
//! - `engine`: the worker's work (calls the core); also used inline by tests.
//! - `worker`: the worker's message loop around `engine`.
//! - `client`: the page's side of the worker (latest-request-wins queue).
//! - `state`: the page's one reducer; `controller`: what acts on the world
//!   (the worker, the text fields, timers) and dispatches to it.
//! - `app`: the page; `input_panel` and `report_panel` its two halves;
//!   `card`, `fix_view`, `summary`, `diffview`, `rules_view` the report's parts.
//! - `inputs`: the input fields; `persist`: what outlives a reload, the URL
//!   fragment and downloads; `sharing`: share links and files on the page.

pub mod app;
mod card;
pub mod client;
mod controller;
mod diffview;
mod editor;
pub mod engine;
pub mod examples;
mod fix_view;
mod input_panel;
mod inputs;
mod persist;
mod plan_view;
pub mod protocol;
mod report_panel;
mod rules_view;
mod sharing;
mod state;
mod status_view;
mod summary;
mod util;
mod worker;

pub use state::PAGE_SIZE;

/// The worker's loader script, relative to the page (Trunk writes it beside
/// `index.html` from `data-loader-shim`). The page reads the URL from
/// `<meta name="drift-doctor-worker">`, where scripts/build-web.sh adds a
/// content hash so that a cached worker never outlives its page.
const WORKER_LOADER: &str = "drift-doctor-worker_loader.js";

fn worker_url(document: &web_sys::Document) -> String {
    document
        .query_selector("meta[name=\"drift-doctor-worker\"]")
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| WORKER_LOADER.to_string())
}

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
    let props = app::AppProps {
        backend: app::Backend::Worker(worker_url(&document).into()),
    };
    yew::Renderer::<app::App>::with_root_and_props(root, props).render();
}

/// Start answering the page (the worker binary's `main`).
pub fn start_worker() {
    worker::start();
}
