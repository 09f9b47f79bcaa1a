//! What outlives a reload, and where a share link sits in the URL.
//!
//! The input is kept in this tab's `sessionStorage` when the page goes away
//! (never sent anywhere, gone when the tab closes, wiped by "Clear"), so a
//! reload shows the same report. A link's state sits in the URL fragment, which browsers never
//! send to a server.

use super::js_text::{Attached, JsText};
use super::protocol::Input;
use wasm_bindgen::{JsCast, JsValue};

const STORAGE_KEY: &str = "drift-doctor.input";

/// Inputs larger than this (bytes, all fields together) are not kept across
/// a reload: Chromium and Firefox allow 5 million characters of storage per
/// origin (10 MiB of UTF-16), and the JSON of the input must fit.
pub const KEEP_UP_TO: usize = 4_500_000;

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok()?
}

/// Keep `input`, with the large texts `attached` beside it, for a reload
/// of this tab. False when it is empty, too large or the browser refused
/// (then nothing is kept, rather than an older input).
pub fn save(mut input: Input, attached: &Attached) -> bool {
    let Some(storage) = storage() else {
        return false;
    };
    // A text's UTF-16 length is at most its UTF-8 one: one too large in
    // either is never turned into UTF-8 only to be refused.
    let held: usize = attached.0.iter().flatten().map(JsText::units).sum();
    if held > KEEP_UP_TO {
        let _ = storage.remove_item(STORAGE_KEY);
        return false;
    }
    attached.fill_input(&mut input);
    let input = &input;
    let size = input.git.len() + input.live.len() + input.diff.len() + input.settings.len();
    // Nothing pasted (after Clear, say): nothing to keep.
    let kept = size > 0
        && size <= KEEP_UP_TO
        && serde_json::to_string(input)
            .ok()
            .is_some_and(|json| storage.set_item(STORAGE_KEY, &json).is_ok());
    if !kept {
        let _ = storage.remove_item(STORAGE_KEY);
    }
    kept
}

/// The input kept by `save`, if any (and readable).
pub fn load() -> Option<Input> {
    let json = storage()?.get_item(STORAGE_KEY).ok()??;
    serde_json::from_str(&json).ok()
}

pub fn forget() {
    if let Some(storage) = storage() {
        let _ = storage.remove_item(STORAGE_KEY);
    }
}

/// Whether a URL hash is (or tries to be) a share link rather than one of
/// the page's own anchors (`#rules`, `#rule-WH001`, `#main`): share
/// fragments start with `v<digit>`; anything very long is treated as a
/// damaged link so that it gets a message instead of being ignored.
pub fn is_link_fragment(hash: &str) -> bool {
    let h = hash.strip_prefix('#').unwrap_or(hash);
    let b = h.as_bytes();
    (b.len() >= 2 && b[0] == b'v' && b[1].is_ascii_digit()) || h.len() > 40
}

/// The share fragment of the page's URL, if it has one.
pub fn link_fragment() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    is_link_fragment(&hash).then(|| hash.trim_start_matches('#').to_string())
}

/// The page's URL without its fragment (the base of share links).
pub fn page_base() -> String {
    let href = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    href.split('#').next().unwrap_or_default().to_string()
}

/// Take the share fragment out of the address bar once it has been read, so
/// that a reload shows what the user has done since (kept by `save`).
pub fn drop_fragment() {
    let Some(window) = web_sys::window() else {
        return;
    };
    if let Ok(history) = window.history() {
        // Refused on some `file://` pages; then the link just stays.
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&page_base()));
    }
}

/// Offer `text` as a file download. False when the browser refused.
pub fn download(name: &str, mime: &str, text: &str) -> bool {
    (|| -> Option<()> {
        let window = web_sys::window()?;
        let document = window.document()?;
        let parts = js_sys::Array::of1(&JsValue::from_str(text));
        let options = web_sys::BlobPropertyBag::new();
        options.set_type(mime);
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
        let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
        let a: web_sys::HtmlAnchorElement = document.create_element("a").ok()?.dyn_into().ok()?;
        a.set_href(&url);
        a.set_download(name);
        a.click();
        // The download has its own reference to the blob by now.
        gloo::timers::callback::Timeout::new(10_000, move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        })
        .forget();
        Some(())
    })()
    .is_some()
}
