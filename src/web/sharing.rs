//! Share links and files as the page shows them: what "Copy link" made, the
//! messages about opened links, and bringing a link's selected resource into
//! view.

use yew::prelude::*;

/// A message about the page itself (an opened link, a refused share file).
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub error: bool,
    pub text: String,
}

/// What "Copy link" produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareView {
    /// The link, when it is short enough for a ticket.
    pub url: Option<String>,
    /// Otherwise the share file's text.
    pub file: Option<String>,
    pub masked: usize,
    pub fragment_len: usize,
    pub copied: Option<bool>,
    /// Counts the links made, so that a new one is told from the last.
    pub serial: u32,
}

/// Why the page asked the worker to encode its state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShareFor {
    Link,
    Markdown,
}

/// Whether a text is a share file or a share link (rather than YAML or diff
/// output): a link pasted into an editor opens like a share file, which
/// helps where the page is a file on disk and links point elsewhere.
pub fn is_shared_state(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim();
    let share_file = t.starts_with('{') && t.contains(drift_doctor::share::SHARE_FILE_KEY);
    let link = !t.contains(char::is_whitespace)
        && t.split_once('#').is_some_and(|(_, fragment)| {
            let b = fragment.as_bytes();
            b.len() > 2 && b[0] == b'v' && b[1].is_ascii_digit()
        });
    share_file || link
}

/// The link "Copy link" made, or the share file to download instead.
pub fn share_panel(v: &ShareView, on_download: Callback<MouseEvent>) -> Html {
    let masked = match v.masked {
        0 => String::new(),
        1 => " 1 Secret value was replaced by a mask; the link carries no Secret value.".into(),
        n => {
            format!(" {n} Secret values were replaced by masks; the link carries no Secret value.")
        }
    };
    html! {
        <div class="share-panel" id="share-panel" data-serial={v.serial.to_string()}>
            if let Some(url) = &v.url {
                <label for="share-link" class="share-label">{ "Link to this state (the part after # never reaches a server)" }</label>
                <input id="share-link" class="share-link" type="text" readonly=true value={url.clone()} />
                <p class="share-note" role="status">
                    { match v.copied { Some(true) => "Link copied.", Some(false) => "Could not copy: select the link and copy it.", None => "" } }
                    { masked }
                </p>
            } else {
                <p class="share-note" role="status">
                    { format!("This state is too large for a link ({} characters; links stay under {}). Download a share file instead and attach it; opening or dropping it here restores the same state.",
                        v.fragment_len, drift_doctor::share::MAX_LINK_FRAGMENT) }
                    { masked }
                </p>
                <button type="button" id="download-share" class="button small" onclick={on_download}>{ "Download share file" }</button>
            }
        </div>
    }
}

/// Scroll a resource's card into view and focus its heading button.
pub fn reveal_card(id: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(cards) = document.query_selector_all("article.card") else {
        return;
    };
    for i in 0..cards.length() {
        let Some(card) = cards
            .item(i)
            .and_then(|n| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(n).ok())
        else {
            continue;
        };
        if card.get_attribute("data-id").as_deref() == Some(id) {
            card.scroll_into_view();
            if let Ok(Some(button)) = card.query_selector(".card-toggle") {
                if let Ok(b) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(button) {
                    let _ = b.focus();
                }
            }
            return;
        }
    }
}
