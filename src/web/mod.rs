//! The web page (Yew) and its analysis worker. Only compiled for wasm32 and
//! only from the two web binaries (and the browser tests), so the library
//! stays free of web crates.
//!
//! - `protocol`: the messages between the page and the worker.
//! - `engine`: the worker's work (calls the core); also used inline by tests.
//! - `worker`: the gloo-worker wrapper around `engine`.
//! - `client`: the page's side of the worker (latest-request-wins queue).
//! - `state`: the page's reducer; `app` and the components render it.
//! - `inputs`: the input fields; `persist`: what outlives a reload, the URL
//!   fragment and downloads; `sharing`: share links and files on the page.

// Each binary uses a different part of this module (the worker never renders).
#![allow(dead_code)]

pub mod app;
pub mod card;
pub mod client;
pub mod diffview;
pub mod editor;
pub mod engine;
pub mod examples;
pub mod inputs;
pub mod persist;
pub mod protocol;
pub mod rules_view;
pub mod sharing;
pub mod state;
pub mod summary;
pub mod util;
pub mod worker;

/// The worker's loader script, relative to the page (Trunk writes it beside
/// `index.html` from `data-loader-shim`). The page reads the URL from
/// `<meta name="drift-doctor-worker">`, where scripts/build-web.sh adds a
/// content hash so that a cached worker never outlives its page.
pub const WORKER_LOADER: &str = "drift-doctor-worker_loader.js";

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

/// Register the analysis worker (the worker binary's `main`).
pub fn start_worker() {
    use gloo::worker::Registrable;
    worker::AnalysisWorker::registrar().register();
}
