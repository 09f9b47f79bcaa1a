//! Small helpers shared by the components.

/// How long "Copied." stays on screen (ms).
pub const COPIED_SHOWN_MS: u32 = 4000;

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

/// Milliseconds from the page's time origin (0 where there is no window).
pub fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or_else(js_sys::Date::now)
}

pub fn textarea_value(r: &NodeRef) -> String {
    r.cast::<HtmlTextAreaElement>()
        .map(|t| t.value())
        .unwrap_or_default()
}

pub fn set_textarea_value(r: &NodeRef, text: &str) {
    if let Some(t) = r.cast::<HtmlTextAreaElement>() {
        t.set_value(text);
    }
}

/// Set a textarea's text from a JavaScript string, as it is.
pub fn set_textarea_js(r: &NodeRef, text: &super::js_text::JsText) {
    if let Some(t) = r.cast::<HtmlTextAreaElement>() {
        let _ = js_sys::Reflect::set(&t, &"value".into(), text.js());
    }
}

pub fn input_value(r: &NodeRef) -> String {
    r.cast::<HtmlInputElement>()
        .map(|t| t.value())
        .unwrap_or_default()
}

pub fn input_checked(r: &NodeRef) -> bool {
    r.cast::<HtmlInputElement>()
        .map(|t| t.checked())
        .unwrap_or(false)
}

pub fn select_value(r: &NodeRef) -> String {
    r.cast::<HtmlSelectElement>()
        .map(|t| t.value())
        .unwrap_or_default()
}

pub fn set_select_value(r: &NodeRef, v: &str) {
    if let Some(t) = r.cast::<HtmlSelectElement>() {
        t.set_value(v);
    }
}

/// A width class (`w-5` … `w-100`, in steps of 5) for a bar of `n` out of `max`.
pub fn width_class(n: usize, max: usize) -> String {
    if n == 0 || max == 0 {
        return "w-0".into();
    }
    let steps = (n * 20).div_ceil(max).clamp(1, 20);
    format!("w-{}", steps * 5)
}

/// Text with `code` spans (backticks) shown as `<code>`; always as text nodes.
pub fn inline_code(text: &str) -> Html {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len() < 3 {
        return html! { {text.to_string()} };
    }
    html! {
        for (i, p) in parts.iter().enumerate() {
            if i % 2 == 1 && i + 1 < parts.len() {
                <code>{ p.to_string() }</code>
            } else if i % 2 == 1 {
                { format!("`{p}") }
            } else {
                { p.to_string() }
            }
        }
    }
}

/// Copy `text` with the asynchronous Clipboard API; `done` gets whether it
/// worked. Never throws: a missing API or a refusal is reported as `false`.
pub fn copy_to_clipboard(text: String, done: Callback<bool>) {
    let promise = (|| -> Option<js_sys::Promise> {
        let navigator: JsValue = web_sys::window()?.navigator().into();
        let clipboard = js_sys::Reflect::get(&navigator, &"clipboard".into()).ok()?;
        if clipboard.is_undefined() || clipboard.is_null() {
            return None;
        }
        let write = js_sys::Reflect::get(&clipboard, &"writeText".into()).ok()?;
        let write: js_sys::Function = write.dyn_into().ok()?;
        write
            .call1(&clipboard, &JsValue::from_str(&text))
            .ok()?
            .dyn_into()
            .ok()
    })();
    match promise {
        Some(p) => wasm_bindgen_futures::spawn_local(async move {
            let ok = wasm_bindgen_futures::JsFuture::from(p).await.is_ok();
            done.emit(ok);
        }),
        None => done.emit(false),
    }
}

/// Select the text of an element so that the user can copy it by hand.
pub fn select_contents(node: &NodeRef) {
    let Some(el) = node.get() else { return };
    if let Some(Ok(Some(sel))) = web_sys::window().map(|w| w.get_selection()) {
        let _ = sel.select_all_children(&el);
    }
}

/// `n` and the noun in its number: "1 resource", "2 resources".
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", plural_word(n, one, many))
}

/// The noun for `n` things.
pub fn plural_word<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// Put keyboard focus on an element (and bring it into view).
pub fn focus_element(id: &str) {
    let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
    else {
        return;
    };
    el.scroll_into_view();
    if let Ok(h) = el.dyn_into::<web_sys::HtmlElement>() {
        let _ = h.focus();
    }
}

/// Escape closes what was opened around the keyboard focus, innermost
/// first: an expanded toggle (focused, or the one controlling a region
/// the focus is in), an open `<details>`, the check or share panel. The
/// toggle, summary or opening button gets the focus back. Returns whether something closed.
pub fn close_around_focus() -> bool {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return false;
    };
    let Some(mut el) = doc.active_element() else {
        return false;
    };
    let click_and_focus = |e: web_sys::Element| {
        if let Ok(h) = e.dyn_into::<web_sys::HtmlElement>() {
            h.click();
            let _ = h.focus();
        }
    };
    if el.tag_name() == "BUTTON" && el.get_attribute("aria-expanded").as_deref() == Some("true") {
        click_and_focus(el);
        return true;
    }
    loop {
        if el.tag_name() == "DETAILS" && el.has_attribute("open") {
            let _ = el.remove_attribute("open");
            if let Ok(Some(summary)) = el.query_selector(":scope > summary") {
                if let Ok(h) = summary.dyn_into::<web_sys::HtmlElement>() {
                    let _ = h.focus();
                }
            }
            return true;
        }
        let id = el.id();
        if !id.is_empty() {
            let toggle = doc
                .query_selector(&format!("[aria-expanded=\"true\"][aria-controls=\"{id}\"]"))
                .ok()
                .flatten();
            if let Some(toggle) = toggle {
                click_and_focus(toggle);
                return true;
            }
            if id == "check" {
                if let Ok(Some(close)) = el.query_selector(".check-close") {
                    click_and_focus(close);
                }
                return true;
            }
            if id == "share-panel" {
                // Its Close gives the focus back to "Copy link".
                if let Ok(Some(close)) = el.query_selector(".share-close") {
                    if let Ok(h) = close.dyn_into::<web_sys::HtmlElement>() {
                        h.click();
                    }
                }
                return true;
            }
        }
        match el.parent_element() {
            Some(parent) => el = parent,
            None => return false,
        }
    }
}
