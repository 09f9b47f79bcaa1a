//! Share links and files as the page shows them: what "Copy link" made, the
//! messages about opened links, and bringing a link's selected resource into
//! view.

use super::state::ShareView;
use yew::prelude::*;

/// Whether a text is a share file or a share link (rather than YAML or diff
/// output): a link pasted into an editor opens like a share file, which
/// helps where the page is a file on disk and links point elsewhere.
pub fn is_shared_state(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim();
    let share_file = t.starts_with('{') && t.contains(crate::share::SHARE_FILE_KEY);
    let link = !t.contains(char::is_whitespace)
        && t.split_once('#').is_some_and(|(_, fragment)| {
            let b = fragment.as_bytes();
            b.len() > 2 && b[0] == b'v' && b[1].is_ascii_digit()
        });
    share_file || link
}

/// Whether a text that starts with `head` may be a share link or file
/// (`is_shared_state`): a link has no white space within, a file is a JSON
/// object. Anything else is known not to be from its first lines alone.
pub fn may_be_shared_state(head: &str) -> bool {
    let t = head.trim_start_matches('\u{feff}').trim();
    t.starts_with('{') || !t.contains(char::is_whitespace)
}

/// What "Copy link" made: the link, or the share file to download instead.
/// A page opened as a file (`file://`) makes links that open only on this
/// computer: it says so and offers the share file and another base address.
#[component]
pub fn SharePanel(props: &SharePanelProps) -> Html {
    let v = &props.view;
    let masked = match v.masked {
        0 => String::new(),
        1 => " 1 Secret value was replaced by a mask; the link carries no Secret value.".into(),
        n => {
            format!(" {n} Secret values were replaced by masks; the link carries no Secret value.")
        }
    };
    let on_download = {
        let cb = props.on_download.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let on_base = {
        let cb = props.on_other_base.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(i) = e
                .target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(t).ok())
            {
                cb.emit(i.value());
            }
        })
    };
    let on_close = {
        let cb = props.on_close.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let download = html! {
        <button type="button" id="download-share" class="button small" onclick={on_download}>{ "Download share file" }</button>
    };
    html! {
        <div class="share-panel" id="share-panel" data-serial={v.serial.to_string()}>
            <button type="button" class="button small share-close" onclick={on_close}>{ "Close" }</button>
            if let Some(url) = v.url() {
                <label for="share-link" class="share-label">{ "Link to this state (the part after # never reaches a server)" }</label>
                <input id="share-link" class="share-link" type="text" readonly=true value={url} />
                <p class="share-note" role="status">
                    { match v.copied { Some(true) => "Link copied.", Some(false) => "Could not copy: select the link and copy it.", None => "" } }
                    { masked }
                </p>
                if v.local_file() {
                    <div class="share-local" id="share-local">
                        <p>{ "This page is a file on this computer, so the link opens only here. To share, attach the share file, or put the address of a served drift-doctor page before the link's # part." }</p>
                        <p class="share-actions">
                            { download }
                            <label for="share-base" class="share-label">{ "Address of a served drift-doctor page" }</label>
                            <input id="share-base" type="text" placeholder="https://drift-doctor.example.com/" value={v.other_base.clone()}
                                autocomplete="off" spellcheck="false" oninput={on_base} />
                        </p>
                    </div>
                }
            } else {
                <p class="share-note" role="status">
                    { format!("This state is too large for a link ({} characters; links stay under {}). Download a share file instead and attach it; opening or dropping it here restores the same state.",
                        v.fragment.len(), crate::share::MAX_LINK_FRAGMENT) }
                    { masked }
                </p>
                { download }
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct SharePanelProps {
    pub view: ShareView,
    pub on_download: Callback<()>,
    pub on_other_base: Callback<String>,
    pub on_close: Callback<()>,
}

/// The share file's text for what "Copy link" made.
pub fn share_file(v: &ShareView) -> String {
    v.file
        .clone()
        .unwrap_or_else(|| crate::share::share_file_text(&v.fragment))
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
