//! One input editor: a labelled textarea that takes paste, typing, a dropped
//! file or a chosen file, with the core's input errors shown right under it.

use super::js_text::JsText;
use super::protocol::ErrorInfo;
use super::util::textarea_value;
use wasm_bindgen::JsCast;
use web_sys::{
    ClipboardEvent, DragEvent, HtmlInputElement, HtmlTextAreaElement, InputEvent, KeyboardEvent,
};
use yew::prelude::*;

/// How an edit should be analysed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Edit {
    /// Typing: wait for a pause.
    Typed,
    /// Paste, drop: now.
    Now,
    /// Ctrl+Enter: now, and say what is missing.
    Asked,
}

/// Texts longer than this (bytes) stay out of the textarea: browsers take
/// seconds to lay out a multi-megabyte textarea, freezing the page.
pub const LARGE_INPUT: usize = 300_000;

/// A side held outside the textarea because it is large.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BigInfo {
    pub bytes: usize,
    pub lines: usize,
    /// A pasted text whose size is still being counted (`bytes` and
    /// `lines` are not known yet).
    pub measuring: bool,
}

impl BigInfo {
    pub fn of(text: &str) -> BigInfo {
        BigInfo {
            bytes: text.len(),
            lines: text.lines().count(),
            measuring: false,
        }
    }

    pub fn measuring() -> BigInfo {
        BigInfo {
            bytes: 0,
            lines: 0,
            measuring: true,
        }
    }
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// A `DataTransfer` whose `getData` gives a JavaScript string as it is:
    /// wasm-bindgen's own conversion copies megabytes of ASCII one
    /// character at a time.
    #[wasm_bindgen(js_name = DataTransfer)]
    type PastedData;
    #[wasm_bindgen(method, js_class = "DataTransfer", js_name = getData)]
    fn get_data_as_js(this: &PastedData, format: &str) -> js_sys::JsString;
}

/// The pasted text as the browser holds it: a large one is never copied
/// into the page's memory (see `js_text`).
fn pasted_text(e: &ClipboardEvent) -> Option<JsText> {
    let data: PastedData = wasm_bindgen::JsCast::unchecked_into(e.clipboard_data()?);
    Some(JsText::new(data.get_data_as_js("text")))
}

/// Hand a pasted text on in a task of its own: reading megabytes off the
/// clipboard already takes the paste event's task a while, and measuring
/// and sending the text to the worker in the same task would freeze the
/// page for both together.
fn replace_soon(on_replace: &Callback<JsText>, text: JsText) {
    let on_replace = on_replace.clone();
    gloo::timers::callback::Timeout::new(0, move || on_replace.emit(text)).forget();
}

fn size_text(bytes: usize) -> String {
    if bytes >= 1_000_000 {
        format!("{:.1} MB", bytes as f64 / 1_000_000.0)
    } else {
        format!("{} KB", bytes.div_ceil(1000))
    }
}

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    /// `git` or `live`: element ids derive from it.
    pub side: AttrValue,
    pub title: AttrValue,
    pub hint: AttrValue,
    pub node: NodeRef,
    pub error: Option<ErrorInfo>,
    pub on_edit: Callback<Edit>,
    pub on_file: Callback<web_sys::File>,
    /// Replace the whole side with this text (a large paste).
    pub on_replace: Callback<JsText>,
    /// Set when the side is held outside the textarea.
    pub big: Option<BigInfo>,
    /// Move a large side into the textarea after all.
    pub on_show_big: Callback<()>,
    pub on_clear: Callback<()>,
    /// Offered every pasted text first; None means the page took it
    /// elsewhere (diff output pasted into a YAML side), else it comes back.
    #[prop_or_default]
    pub on_paste: Option<Callback<JsText, Option<JsText>>>,
    /// Placeholder text of the empty textarea.
    #[prop_or_default]
    pub placeholder: Option<AttrValue>,
}

/// The UTF-16 range of 1-based `line` in `text` (what `setSelectionRange` takes).
fn line_range(text: &str, line: usize) -> (u32, u32) {
    let mut start = 0u32;
    for (i, l) in text.split('\n').enumerate() {
        let len = l.encode_utf16().count() as u32;
        if i + 1 == line {
            return (start, start + len);
        }
        start += len + 1;
    }
    (start, start)
}

#[component]
pub fn Editor(props: &EditorProps) -> Html {
    let dragging = use_state(|| false);
    let id = format!("{}-input", props.side);
    let err_id = format!("{}-error", props.side);
    let file_id = format!("{}-file", props.side);
    let help_id = format!("{}-help", props.side);

    let oninput = {
        let on_edit = props.on_edit.clone();
        Callback::from(move |e: InputEvent| {
            let kind = e.input_type();
            let now = kind == "insertFromPaste"
                || kind == "insertFromDrop"
                || kind == "insertReplacementText";
            on_edit.emit(if now { Edit::Now } else { Edit::Typed });
        })
    };
    let onkeydown = {
        let on_edit = props.on_edit.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" && (e.ctrl_key() || e.meta_key()) {
                e.prevent_default();
                on_edit.emit(Edit::Asked);
            }
        })
    };
    // A large paste replaces the side and stays out of the textarea.
    let onpaste_textarea = {
        let on_replace = props.on_replace.clone();
        let on_paste = props.on_paste.clone();
        Callback::from(move |e: Event| {
            let Ok(e) = e.dyn_into::<ClipboardEvent>() else {
                return;
            };
            let Some(text) = pasted_text(&e) else {
                return;
            };
            let text = match on_paste.as_ref() {
                Some(f) => match f.emit(text) {
                    Some(text) => text,
                    None => {
                        e.prevent_default();
                        return;
                    }
                },
                None => text,
            };
            if text.units() > LARGE_INPUT {
                e.prevent_default();
                replace_soon(&on_replace, text);
            }
        })
    };
    let onpaste_panel = {
        let on_replace = props.on_replace.clone();
        let on_paste = props.on_paste.clone();
        Callback::from(move |e: Event| {
            let Ok(e) = e.dyn_into::<ClipboardEvent>() else {
                return;
            };
            if let Some(text) = pasted_text(&e) {
                e.prevent_default();
                let text = match on_paste.as_ref() {
                    Some(f) => f.emit(text),
                    None => Some(text),
                };
                if let Some(text) = text {
                    replace_soon(&on_replace, text);
                }
            }
        })
    };
    let ondragover = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if !*dragging {
                dragging.set(true);
            }
        })
    };
    let ondragleave = {
        let dragging = dragging.clone();
        Callback::from(move |_: DragEvent| dragging.set(false))
    };
    let ondrop = {
        let dragging = dragging.clone();
        let on_file = props.on_file.clone();
        Callback::from(move |e: DragEvent| {
            dragging.set(false);
            let file = e
                .data_transfer()
                .and_then(|d| d.files())
                .and_then(|f| f.get(0));
            if let Some(file) = file {
                // A file replaces the text; dropped text falls through to the textarea.
                e.prevent_default();
                on_file.emit(file);
            }
        })
    };
    let onchange = {
        let on_file = props.on_file.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
            else {
                return;
            };
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                on_file.emit(file);
            }
            // Choosing the same file again must fire `change` again.
            input.set_value("");
        })
    };
    let goto_line = props
        .error
        .as_ref()
        .filter(|e| e.line > 0 && props.big.is_none())
        .map(|e| {
            let node = props.node.clone();
            let line = e.line;
            Callback::from(move |_: MouseEvent| {
                let Some(t) = node.cast::<HtmlTextAreaElement>() else {
                    return;
                };
                let text = textarea_value(&node);
                let (a, b) = line_range(&text, line);
                let _ = t.focus();
                let _ = t.set_selection_range(a, b);
                let lines = text.split('\n').count().max(1) as f64;
                let per_line = t.scroll_height() as f64 / lines;
                let top = (per_line * (line as f64 - 3.0)).max(0.0);
                t.set_scroll_top(top as i32);
            })
        });

    let show_big = {
        let cb = props.on_show_big.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let clear = {
        let cb = props.on_clear.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let invalid = props.error.is_some();
    let describedby = if invalid {
        format!("{help_id} {err_id}")
    } else {
        help_id.clone()
    };
    html! {
        <div class={classes!("editor", (*dragging).then_some("dragging"), invalid.then_some("invalid"))}>
            <div class="editor-head">
                <label for={id.clone()} id={format!("{}-title", props.side)} class="editor-title">{ props.title.clone() }</label>
                <input type="file" id={file_id.clone()} class="visually-hidden"
                    accept=".yaml,.yml,.json,.txt,text/yaml,application/json,text/plain" {onchange} />
                <label for={file_id} class="button small">{ "Open file…" }</label>
            </div>
            <p id={help_id} class="editor-help">{ props.hint.clone() }</p>
            if let Some(big) = props.big {
                <div class="big-input" tabindex="0" role="group" id={format!("{}-big", props.side)}
                    aria-labelledby={format!("{}-title", props.side)} aria-describedby={err_id.clone()}
                    data-bytes={(!big.measuring).then(|| big.bytes.to_string())}
                    data-lines={(!big.measuring).then(|| big.lines.to_string())}
                    onpaste={onpaste_panel} ondragover={ondragover.clone()} ondragleave={ondragleave.clone()} ondrop={ondrop.clone()}>
                    <p><strong>{ if big.measuring {
                        "Large input (counting its size…).".to_string()
                    } else {
                        format!("Large input: {}, {} lines.", size_text(big.bytes), big.lines)
                    } }</strong></p>
                    <p class="muted">{ "It is analysed in full but kept out of the text box, which would freeze the page at this size. Paste or drop here to replace it." }</p>
                    <p class="big-actions">
                        <button type="button" class="button small" onclick={show_big}>{ "Edit as text (slow)" }</button>
                        <button type="button" class="button small" onclick={clear}>{ "Clear" }</button>
                    </p>
                </div>
            }
            <textarea id={id} ref={props.node.clone()} class="code-input" spellcheck="false"
                autocomplete="off" autocapitalize="off" wrap="off" hidden={props.big.is_some()}
                aria-invalid={if invalid { "true" } else { "false" }}
                placeholder={props.placeholder.clone()}
                aria-describedby={describedby}
                onpaste={onpaste_textarea}
                {oninput} {onkeydown} {ondragover} {ondragleave} {ondrop} />
            <div id={err_id} class="editor-error" role="alert">
                if let Some(e) = &props.error {
                    <p class="error-text">
                        if e.line > 0 {
                            <strong>{ format!("Line {}, column {}", e.line, e.column.max(1)) }</strong>
                            if e.document > 0 { { format!(" (document {})", e.document) } }
                            { format!(": {}", e.message) }
                        } else {
                            { e.message.clone() }
                        }
                    </p>
                    if let Some(goto) = goto_line {
                        <button type="button" class="button small" onclick={goto}>{ format!("Go to line {}", e.line) }</button>
                    }
                }
            </div>
        </div>
    }
}
