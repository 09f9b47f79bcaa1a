//! The page: inputs on top (two editors, options, examples), the report
//! below (summary, emergency steps, one card per resource, paged), and the
//! rule catalogue as a second view (`#rules`, `#rule-CODE`).

use super::card::ResourceCard;
use super::client::{Answer, Client, Handler};
use super::editor::{BigInfo, Edit, Editor};
use super::examples::{self, EXAMPLES};
use super::inputs::{Field, Refs};
use super::persist;
use super::protocol::{ErrorInfo, Input, Mode, Response};
use super::rules_view::RulesView;
use super::sharing::{is_shared_state, reveal_card, share_panel, Notice, ShareFor, ShareView};
use super::state::{Action, AppState, Shown, OPEN_CARDS_UP_TO, PAGE_SIZE};
use super::summary::{Emergency, Summary};
use super::util::*;
use drift_doctor::difftext::looks_like_diff;
use drift_doctor::input::{decode_text, Side};
use gloo::events::EventListener;
use gloo::file::callbacks::FileReader;
use gloo::timers::callback::Timeout;
use std::cell::Cell;
use std::rc::Rc;
use yew::prelude::*;

/// Why the comparison options do not apply to pasted diff output.
const IN_DIFF_OUTPUT: &str =
    "Pasted diff output already shows what Argo CD or kubectl compared: this option does not apply to it.";

/// Pause after typing before analysing (ms).
pub const DEBOUNCE_MS: u32 = 300;

/// Where the analysis runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Backend {
    /// In a web worker loaded from this script (relative to the page).
    Worker(AttrValue),
    /// On the page's thread, by this handler (browser tests).
    Inline(Handler),
}

#[derive(Properties, PartialEq)]
pub struct AppProps {
    pub backend: Backend,
}

#[derive(Debug, Clone, PartialEq)]
enum View {
    Analysis,
    Rules(Option<AttrValue>),
}

fn view_from_hash() -> View {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    if hash == "#rules" {
        View::Rules(None)
    } else if let Some(code) = hash.strip_prefix("#rule-") {
        View::Rules(Some(AttrValue::from(code.to_string())))
    } else {
        View::Analysis
    }
}

#[component]
pub fn App(props: &AppProps) -> Html {
    let state = use_reducer(AppState::default);
    let refs = use_memo((), |_| Refs::default());
    let seq = use_mut_ref(|| 0u32);
    let timer = use_mut_ref(|| None::<Timeout>);
    let readers = use_mut_ref(Vec::<FileReader>::new);
    let view = use_state(view_from_hash);
    let saved_scroll = use_mut_ref(|| 0.0f64);
    let md_status = use_state(|| None::<bool>);
    let big_info = use_state(|| [None::<BigInfo>; 3]);
    let mode = use_state(|| Mode::Sides);
    let mode_note = use_state(|| false);
    let notice = use_state(|| None::<Notice>);
    let share_view = use_state(|| None::<ShareView>);
    let share_for = use_mut_ref(|| ShareFor::Link);
    // Answers that act on the page rather than on the report (`Shared`,
    // `Restored`); set on every render, so it sees the current state.
    let page_answers = use_mut_ref(|| None::<Rc<dyn Fn(Response)>>);
    let client = {
        let dispatch = state.dispatcher();
        let backend = props.backend.clone();
        let page_answers = page_answers.clone();
        use_memo((), move |_| {
            let on_answer = Callback::from(move |a: Answer| match a.response {
                Response::Shared(_) | Response::Restored(_) => {
                    let handler = page_answers.borrow().clone();
                    if let Some(handler) = handler {
                        handler(a.response);
                    }
                }
                Response::WarmedUp => {}
                _ => dispatch.dispatch(Action::Answer(a)),
            });
            let client = match &backend {
                Backend::Worker(url) => Client::new(Ok(url), on_answer),
                Backend::Inline(handler) => Client::new(Err(handler.clone()), on_answer),
            };
            client.rules();
            client
        })
    };

    let next_seq: Rc<dyn Fn() -> u32> = {
        let seq = seq.clone();
        Rc::new(move || {
            let mut s = seq.borrow_mut();
            *s += 1;
            *s
        })
    };
    // Analyse what the inputs hold now.
    let run: Rc<dyn Fn()> = {
        let refs = refs.clone();
        let client = client.clone();
        let next_seq = next_seq.clone();
        let dispatch = state.dispatcher();
        Rc::new(move || {
            let input = refs.input();
            let n = next_seq();
            dispatch.dispatch(Action::Requested(n));
            client.analyze(n, input);
        })
    };
    let run_now: Rc<dyn Fn()> = {
        let run = run.clone();
        let timer = timer.clone();
        Rc::new(move || {
            // Safe to drop here: this never runs inside the timer's own callback.
            timer.borrow_mut().take();
            run();
        })
    };
    let run_later: Rc<dyn Fn()> = {
        let run = run.clone();
        let timer = timer.clone();
        Rc::new(move || {
            let run = run.clone();
            *timer.borrow_mut() = Some(Timeout::new(DEBOUNCE_MS, move || run()));
        })
    };
    let set_mode: Rc<dyn Fn(Mode)> = {
        let refs = refs.clone();
        let mode = mode.clone();
        Rc::new(move |m: Mode| {
            refs.mode.set(m);
            mode.set(m);
        })
    };
    // Show an input restored from a link, a share file or a reload, and analyse it.
    let show_input: Rc<dyn Fn(&Input)> = {
        let refs = refs.clone();
        let set_mode = set_mode.clone();
        let big_info = big_info.clone();
        let run_now = run_now.clone();
        Rc::new(move |input: &Input| {
            refs.apply(input);
            set_mode(input.mode);
            big_info.set(refs.big_infos());
            run_now();
        })
    };
    // Wipe the inputs, what is kept for a reload, and the report.
    let clear_all: Rc<dyn Fn()> = {
        let refs = refs.clone();
        let set_mode = set_mode.clone();
        let big_info = big_info.clone();
        let timer = timer.clone();
        let next_seq = next_seq.clone();
        let dispatch = state.dispatcher();
        let share_view = share_view.clone();
        let mode_note = mode_note.clone();
        Rc::new(move || {
            timer.borrow_mut().take();
            refs.apply(&Input::sides("", ""));
            set_mode(Mode::Sides);
            big_info.set(refs.big_infos());
            persist::forget();
            persist::drop_fragment();
            share_view.set(None);
            mode_note.set(false);
            dispatch.dispatch(Action::Cleared(next_seq()));
        })
    };
    // Open a share link or file (decoded by the worker). `from_address`: the
    // page's own URL holds it, so a bad one leaves an empty page; a bad
    // pasted or opened one leaves the input as it was.
    let restoring_address = use_mut_ref(|| false);
    let open_shared: Rc<dyn Fn(String, bool)> = {
        let client = client.clone();
        let notice = notice.clone();
        let restoring_address = restoring_address.clone();
        Rc::new(move |text: String, from_address: bool| {
            *restoring_address.borrow_mut() = from_address;
            notice.set(Some(Notice {
                error: false,
                text: "Opening the shared state…".into(),
            }));
            client.restore(text);
        })
    };
    {
        let show_input = show_input.clone();
        let clear_all = clear_all.clone();
        let notice = notice.clone();
        let dispatch = state.dispatcher();
        let share_view = share_view.clone();
        let share_for = share_for.clone();
        let md_status = md_status.clone();
        let shown = state.shown.clone();
        let restoring_address = restoring_address.clone();
        let handler: Rc<dyn Fn(Response)> = Rc::new(move |response| match response {
            Response::Restored(Ok(shared)) => {
                let input = Input::from_share(&shared);
                dispatch.dispatch(Action::Reveal(shared.selected.clone()));
                show_input(&input);
                persist::drop_fragment();
                notice.set(Some(Notice {
                    error: false,
                    text: "Opened a shared state. Links never carry Secret values: they hold masks, so Secret fields compare by mask.".into(),
                }));
            }
            Response::Restored(Err(why)) if *restoring_address.borrow() => {
                clear_all();
                notice.set(Some(Notice {
                    error: true,
                    text: format!("This link cannot be opened: {why}. Nothing was loaded: paste your input, pick an example or open a share file."),
                }));
            }
            Response::Restored(Err(why)) => {
                notice.set(Some(Notice {
                    error: true,
                    text: format!(
                        "This share file or link cannot be opened: {why}. Your input is unchanged."
                    ),
                }));
            }
            Response::Shared(shared) => {
                let url = shared
                    .file
                    .is_none()
                    .then(|| format!("{}#{}", persist::page_base(), shared.fragment));
                let view = ShareView {
                    url: url.clone(),
                    file: shared.file,
                    masked: shared.masked,
                    fragment_len: shared.fragment.len(),
                    copied: None,
                    serial: share_view.as_ref().map_or(1, |v| v.serial + 1),
                };
                match *share_for.borrow() {
                    ShareFor::Link => {
                        share_view.set(Some(view.clone()));
                        if let Some(url) = url {
                            let share_view = share_view.clone();
                            copy_to_clipboard(
                                url,
                                Callback::from(move |ok| {
                                    share_view.set(Some(ShareView {
                                        copied: Some(ok),
                                        ..view.clone()
                                    }))
                                }),
                            );
                        }
                    }
                    ShareFor::Markdown => {
                        let Some(shown) = &shown else { return };
                        let mut text = drift_doctor::render::markdown::render(
                            &shown.full_report(),
                            url.as_deref(),
                        );
                        if url.is_none() {
                            text.push_str("\n_The inputs are too large for a link: attach the share file (Copy link, then Download share file) to open this analysis in drift-doctor._\n");
                        }
                        let md_status = md_status.clone();
                        copy_to_clipboard(text, Callback::from(move |ok| md_status.set(Some(ok))));
                    }
                }
            }
            _ => {}
        });
        *page_answers.borrow_mut() = Some(handler);
    }

    // First render: open a link, or what this tab had before a reload, or
    // the default example; follow the URL hash.
    {
        let refs = refs.clone();
        let run_now = run_now.clone();
        let show_input = show_input.clone();
        let open_shared = open_shared.clone();
        let view = view.clone();
        let saved_scroll = saved_scroll.clone();
        use_effect_with((), move |_| {
            if let Some(fragment) = persist::link_fragment() {
                open_shared(fragment, true);
            } else if let Some(input) = persist::load() {
                show_input(&input);
            } else if refs.load_example(examples::DEFAULT) {
                run_now();
            }
            let in_analysis = Rc::new(Cell::new(*view == View::Analysis));
            let listener = web_sys::window().map(|w| {
                let win = w.clone();
                EventListener::new(&w, "hashchange", move |_| {
                    // A link pasted into this tab's address bar.
                    if let Some(fragment) = persist::link_fragment() {
                        open_shared(fragment, true);
                        return;
                    }
                    let next = view_from_hash();
                    if in_analysis.get() && next != View::Analysis {
                        *saved_scroll.borrow_mut() = win.scroll_y().unwrap_or(0.0);
                    }
                    in_analysis.set(next == View::Analysis);
                    view.set(next);
                })
            });
            move || drop(listener)
        });
    }
    // Keep the input for a reload when the page goes away (a reload fires
    // `pagehide`): nothing is written while the user works, so storing
    // megabytes never competes with an analysis.
    {
        let refs = refs.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                EventListener::new(&w, "pagehide", move |_| {
                    persist::save(&refs.input());
                })
            });
            move || drop(listener)
        });
    }
    // Coming back from the rules: where the reader was.
    {
        let saved_scroll = saved_scroll.clone();
        use_effect_with((*view).clone(), move |v| {
            if *v == View::Analysis {
                let y = *saved_scroll.borrow();
                if let Some(w) = web_sys::window() {
                    w.scroll_to_with_x_and_y(0.0, y);
                }
            }
        });
    }
    // A link's selected resource: bring its card into view once shown.
    {
        let dispatch = state.dispatcher();
        let target = (state.reveal && !state.busy())
            .then(|| state.selected.clone())
            .flatten();
        let seq = state.shown.as_ref().map(|s| s.seq);
        use_effect_with((target, seq), move |(target, _)| {
            if let Some(id) = target {
                reveal_card(id);
                dispatch.dispatch(Action::Revealed);
            }
        });
    }

    // Typing in a field's textarea makes the textarea that field's text again.
    let on_edit = |field: Field| {
        let run_now = run_now.clone();
        let run_later = run_later.clone();
        let refs = refs.clone();
        let big_info = big_info.clone();
        Callback::from(move |e: Edit| {
            set_select_value(&refs.example, "");
            if let Some(i) = field.big_slot() {
                if refs.big.borrow_mut()[i].take().is_some() {
                    big_info.set(refs.big_infos());
                }
            }
            match e {
                Edit::Now => run_now(),
                Edit::Typed => run_later(),
            }
        })
    };
    // Diff output pasted or opened into a YAML side: analyse it as diff output.
    let divert_diff: Rc<dyn Fn(&str) -> bool> = {
        let refs = refs.clone();
        let set_mode = set_mode.clone();
        let mode_note = mode_note.clone();
        let big_info = big_info.clone();
        let run_now = run_now.clone();
        Rc::new(move |text: &str| {
            if refs.mode.get() != Mode::Sides || !looks_like_diff(text) {
                return false;
            }
            refs.set_text(Field::Diff, text.to_string());
            set_mode(Mode::Diff);
            mode_note.set(true);
            big_info.set(refs.big_infos());
            set_select_value(&refs.example, "");
            run_now();
            true
        })
    };
    // Replace a field's whole text (a file, a large paste) and analyse it now.
    let replace_text: Rc<dyn Fn(Field, String)> = {
        let refs = refs.clone();
        let run_now = run_now.clone();
        let big_info = big_info.clone();
        let divert_diff = divert_diff.clone();
        let open_shared = open_shared.clone();
        Rc::new(move |field: Field, text: String| {
            if is_shared_state(&text) {
                open_shared(text, false);
                return;
            }
            if matches!(field, Field::Git | Field::Live) && divert_diff(&text) {
                return;
            }
            refs.set_text(field, text);
            big_info.set(refs.big_infos());
            set_select_value(&refs.example, "");
            run_now();
        })
    };
    let on_replace = |field: Field| {
        let replace_text = replace_text.clone();
        Callback::from(move |text: String| replace_text(field, text))
    };
    let on_paste = |field: Field| {
        let divert_diff = divert_diff.clone();
        let open_shared = open_shared.clone();
        Callback::from(move |text: String| -> bool {
            if is_shared_state(&text) {
                open_shared(text, false);
                return true;
            }
            matches!(field, Field::Git | Field::Live) && divert_diff(&text)
        })
    };
    let on_show_big = |field: Field| {
        let refs = refs.clone();
        let big_info = big_info.clone();
        Callback::from(move |_| {
            let Some(i) = field.big_slot() else { return };
            let text = refs.big.borrow_mut()[i].take();
            if let Some(text) = text {
                set_textarea_value(refs.node(field), &text);
            }
            big_info.set(refs.big_infos());
        })
    };
    let on_clear = |field: Field| {
        let replace_text = replace_text.clone();
        Callback::from(move |_| replace_text(field, String::new()))
    };
    let read_file: Rc<dyn Fn(web_sys::File, Side, Rc<dyn Fn(String)>)> = {
        let readers = readers.clone();
        let dispatch = state.dispatcher();
        Rc::new(move |file, side, then| {
            let dispatch = dispatch.clone();
            let reader =
                gloo::file::callbacks::read_as_bytes(&gloo::file::Blob::from(file), move |res| {
                    match res {
                        Ok(bytes) => match decode_text(&bytes, side) {
                            Ok(text) => then(text),
                            Err(e) => dispatch.dispatch(Action::LocalError(ErrorInfo::from(&e))),
                        },
                        Err(e) => {
                            let mut info =
                                ErrorInfo::general(format!("could not read the file: {e}"));
                            info.side = side.name().to_string();
                            dispatch.dispatch(Action::LocalError(info));
                        }
                    }
                });
            // A reader must live until its callback has run; a few are kept.
            let mut readers = readers.borrow_mut();
            if readers.len() >= 4 {
                readers.remove(0);
            }
            readers.push(reader);
        })
    };
    let on_file = |field: Field| {
        let replace_text = replace_text.clone();
        let read_file = read_file.clone();
        Callback::from(move |file: web_sys::File| {
            let replace_text = replace_text.clone();
            read_file(
                file,
                field.side(),
                Rc::new(move |text| replace_text(field, text)),
            )
        })
    };
    let on_share_file = {
        let read_file = read_file.clone();
        let open_shared = open_shared.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e
                .target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(t).ok())
            else {
                return;
            };
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                let open_shared = open_shared.clone();
                read_file(
                    file,
                    Side::Git,
                    Rc::new(move |text| open_shared(text, false)),
                );
            }
            input.set_value("");
        })
    };
    let on_example = {
        let refs = refs.clone();
        let run_now = run_now.clone();
        let big_info = big_info.clone();
        let set_mode = set_mode.clone();
        Callback::from(move |_: Event| {
            let name = select_value(&refs.example);
            if refs.load_example(&name) {
                set_mode(Mode::Sides);
                big_info.set(refs.big_infos());
                run_now();
            }
        })
    };
    let on_mode = |m: Mode| {
        let set_mode = set_mode.clone();
        let run_now = run_now.clone();
        let mode_note = mode_note.clone();
        Callback::from(move |_: Event| {
            set_mode(m);
            mode_note.set(false);
            run_now();
        })
    };
    let on_clear_all = {
        let clear_all = clear_all.clone();
        let notice = notice.clone();
        Callback::from(move |_: MouseEvent| {
            clear_all();
            notice.set(None);
        })
    };
    let on_analyze = {
        let run_now = run_now.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            run_now();
        })
    };
    let on_option_now = {
        let run_now = run_now.clone();
        Callback::from(move |_: Event| run_now())
    };
    let on_namespace = {
        let run_later = run_later.clone();
        Callback::from(move |_: InputEvent| run_later())
    };
    // Hidden differences cost a lot to compute on big inputs: analyse again
    // with them only when asked to show them.
    let on_hidden = {
        let dispatch = state.dispatcher();
        let refs = refs.clone();
        let run_now = run_now.clone();
        Callback::from(move |e: Event| {
            let on = e
                .target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(t).ok())
                .map(|i| i.checked())
                .unwrap_or(false);
            dispatch.dispatch(Action::ShowHidden(on));
            let had = refs.include_hidden.replace(on);
            if on && !had {
                run_now();
            }
        })
    };
    let on_filter = {
        let dispatch = state.dispatcher();
        Callback::from(move |f| dispatch.dispatch(Action::Filter(f)))
    };
    let on_diff = {
        let dispatch = state.dispatcher();
        let client = client.clone();
        let shown_seq = state.shown.as_ref().map(|s| s.seq);
        Callback::from(move |id: String| {
            if let Some(seq) = shown_seq {
                dispatch.dispatch(Action::DiffRequested(id.clone()));
                client.texts(seq, id);
            }
        })
    };
    let on_select = {
        let dispatch = state.dispatcher();
        Callback::from(move |id: String| dispatch.dispatch(Action::Select(id)))
    };
    let on_page = {
        let dispatch = state.dispatcher();
        Callback::from(move |p: usize| {
            dispatch.dispatch(Action::Page(p));
            focus_element("resources-h");
        })
    };
    let request_share = |purpose: ShareFor| {
        let client = client.clone();
        let refs = refs.clone();
        let share_for = share_for.clone();
        let selected = state.selected.clone();
        Callback::from(move |_: MouseEvent| {
            *share_for.borrow_mut() = purpose;
            client.share(refs.input().to_share(selected.clone()));
        })
    };
    let on_copy_link = request_share(ShareFor::Link);
    let on_markdown = {
        let request = request_share(ShareFor::Markdown);
        let md_status = md_status.clone();
        Callback::from(move |e: MouseEvent| {
            md_status.set(None);
            request.emit(e);
        })
    };
    // Offer a JSON file; say so when the browser refuses.
    let download: Rc<dyn Fn(&str, &str)> = {
        let notice = notice.clone();
        Rc::new(move |name: &str, text: &str| {
            if !persist::download(name, "application/json", text) {
                notice.set(Some(Notice {
                    error: true,
                    text: format!("The browser refused to download {name}."),
                }));
            }
        })
    };
    let on_json = {
        let shown = state.shown.clone();
        let download = download.clone();
        Callback::from(move |_: MouseEvent| {
            let Some(shown) = &shown else { return };
            let text =
                serde_json::to_string_pretty(&shown.full_report()).unwrap_or_default() + "\n";
            download("drift-doctor-report.json", &text);
        })
    };
    let on_share_download = {
        let share_view = share_view.clone();
        let download = download.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(file) = share_view.as_ref().and_then(|v| v.file.as_deref()) {
                download("drift-doctor-share.json", file);
            }
        })
    };
    let on_dismiss = {
        let notice = notice.clone();
        Callback::from(move |_: MouseEvent| notice.set(None))
    };
    let on_mode_note_back = {
        let set_mode = set_mode.clone();
        let mode_note = mode_note.clone();
        let run_now = run_now.clone();
        Callback::from(move |_: MouseEvent| {
            set_mode(Mode::Sides);
            mode_note.set(false);
            run_now();
        })
    };

    let error_for = |field: Field| state.error.clone().filter(|e| e.side == field.error_side());
    let general_error = state.error.clone().filter(|e| {
        ![Field::Git, Field::Live, Field::Diff, Field::Settings]
            .iter()
            .any(|f| f.error_side() == e.side)
    });
    let in_rules = matches!(*view, View::Rules(_));
    let status = if state.busy() {
        "busy"
    } else if state.error.is_some() {
        "error"
    } else if state.shown.is_some() {
        "ready"
    } else {
        "empty"
    };
    let diff_mode = *mode == Mode::Diff;
    let settings_error = error_for(Field::Settings);

    html! {
        <>
            <header class="top">
                <div class="brand">
                    <h1>{ "drift-doctor" }</h1>
                    <p class="tagline">{ "Why does my Argo CD Application stay OutOfSync? Which field differs, who keeps changing it, and the narrowest safe fix." }</p>
                </div>
                <nav aria-label="Views" class="views">
                    <a href="#analysis" aria-current={(!in_rules).then_some("page")}>{ "Analysis" }</a>
                    <a href="#rules" aria-current={in_rules.then_some("page")}>{ "Rules" }</a>
                </nav>
            </header>
            <main id="main">
                <div class="analysis" hidden={in_rules}>
                    <section class="inputs" aria-labelledby="inputs-h">
                        <h2 id="inputs-h" class="visually-hidden">{ "Input" }</h2>
                        if let Some(n) = &*notice {
                            <div id="notice" class={classes!("notice", n.error.then_some("notice-error"))}
                                role={if n.error { "alert" } else { "status" }}>
                                <p>{ n.text.clone() }</p>
                                <button type="button" class="button small" onclick={on_dismiss}>{ "Dismiss" }</button>
                            </div>
                        }
                        <form class="controls" onsubmit={on_analyze}>
                            <div class="field">
                                <label for="example">{ "Example" }</label>
                                <select id="example" ref={refs.example.clone()} onchange={on_example}>
                                    <option value="">{ "— your own input —" }</option>
                                    for ex in EXAMPLES.iter() {
                                        <option value={ex.name} selected={ex.name == examples::DEFAULT}>{ ex.title }</option>
                                    }
                                </select>
                            </div>
                            <div class="field">
                                <label for="namespace">{ "Destination namespace" }</label>
                                <input id="namespace" type="text" ref={refs.namespace.clone()} placeholder="for Git objects without one"
                                    disabled={diff_mode} title={diff_mode.then_some(IN_DIFF_OUTPUT)}
                                    autocomplete="off" spellcheck="false" oninput={on_namespace} />
                            </div>
                            <div class="field">
                                <label for="strategy">{ "Diff strategy" }</label>
                                <select id="strategy" ref={refs.strategy.clone()} onchange={on_option_now.clone()}
                                    disabled={diff_mode} title={diff_mode.then_some(IN_DIFF_OUTPUT)}>
                                    <option value="legacy" selected=true>{ "Client-side three-way (default)" }</option>
                                    <option value="server-side-apply">{ "Server-side apply" }</option>
                                    <option value="server-side-diff">{ "Server-side diff" }</option>
                                </select>
                            </div>
                            <div class="field check">
                                <input id="aggregated" type="checkbox" ref={refs.aggregated.clone()} onchange={on_option_now}
                                    disabled={diff_mode} title={diff_mode.then_some(IN_DIFF_OUTPUT)} />
                                <label for="aggregated">{ "ignoreAggregatedRoles" }</label>
                            </div>
                            <div class="form-actions">
                                <input type="file" id="share-file" class="visually-hidden" accept=".json,application/json,text/plain"
                                    onchange={on_share_file} />
                                <label for="share-file" class="button small">{ "Open share file…" }</label>
                                <button type="button" id="clear-all" class="button small" onclick={on_clear_all}>{ "Clear" }</button>
                                <button type="submit" class="button primary analyze">{ "Analyze" }</button>
                            </div>
                        </form>
                        <fieldset class="mode">
                            <legend>{ "Input" }</legend>
                            <label class="mode-option">
                                <input type="radio" name="mode" id="mode-sides" checked={!diff_mode} onchange={on_mode(Mode::Sides)} />
                                { " Git and live YAML" }
                            </label>
                            <label class="mode-option">
                                <input type="radio" name="mode" id="mode-diff" checked={diff_mode} onchange={on_mode(Mode::Diff)} />
                                { " Diff output (argocd app diff, kubectl diff)" }
                            </label>
                            if *mode_note && diff_mode {
                                <span class="mode-note" role="status">
                                    { "The pasted text looks like diff output, so it is analysed as such. " }
                                    <button type="button" class="linklike" onclick={on_mode_note_back}>{ "Back to Git and live" }</button>
                                </span>
                            }
                        </fieldset>
                        <div class="editors" hidden={diff_mode}>
                            <Editor side="git" title="Git (desired)" node={refs.git.clone()} error={error_for(Field::Git)}
                                hint="Paste, type or drop the manifests Argo CD renders (argocd app manifests --source git, helm template, kustomize build). Diff output pasted here switches to diff mode."
                                on_edit={on_edit(Field::Git)} on_file={on_file(Field::Git)} on_replace={on_replace(Field::Git)}
                                on_paste={on_paste(Field::Git)}
                                big={big_info[0]} on_show_big={on_show_big(Field::Git)} on_clear={on_clear(Field::Git)} />
                            <Editor side="live" title="Live (cluster)" node={refs.live.clone()} error={error_for(Field::Live)}
                                hint="The objects in the cluster (argocd app manifests --source live, kubectl get -o yaml). Analysis runs as you type."
                                on_edit={on_edit(Field::Live)} on_file={on_file(Field::Live)} on_replace={on_replace(Field::Live)}
                                on_paste={on_paste(Field::Live)}
                                big={big_info[1]} on_show_big={on_show_big(Field::Live)} on_clear={on_clear(Field::Live)} />
                        </div>
                        <div class="editors single" hidden={!diff_mode}>
                            <Editor side="diff" title="Diff output" node={refs.diff.clone()} error={error_for(Field::Diff)}
                                hint="Paste what argocd app diff or kubectl diff printed (plain or unified, several apps one after another, copied from a terminal or a ticket)."
                                on_edit={on_edit(Field::Diff)} on_file={on_file(Field::Diff)} on_replace={on_replace(Field::Diff)}
                                on_paste={on_paste(Field::Diff)}
                                big={big_info[2]} on_show_big={on_show_big(Field::Diff)} on_clear={on_clear(Field::Diff)} />
                        </div>
                        <details class="settings" open={settings_error.is_some()}>
                            <summary>{ "Your Argo CD settings (optional): ignoreDifferences already in place" }</summary>
                            <Editor side="settings" title="Application and/or argocd-cm YAML" node={refs.settings.clone()} error={settings_error}
                                hint="Paste your Application (spec.ignoreDifferences) and/or argocd-cm (resource.customizations.ignoreDifferences.*, resource.compareoptions): what they hide is reported as not counted, with the rule that hid it."
                                placeholder={AttrValue::from("kind: Application\nspec:\n  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    jsonPointers: [/spec/replicas]")}
                                on_edit={on_edit(Field::Settings)} on_file={on_file(Field::Settings)} on_replace={on_replace(Field::Settings)}
                                big={None::<BigInfo>} on_show_big={on_show_big(Field::Settings)} on_clear={on_clear(Field::Settings)} />
                        </details>
                    </section>
                    <section id="report" class="results" aria-labelledby="report-h" data-state={status}
                        data-seq={state.shown.as_ref().map(|s| s.seq.to_string()).unwrap_or_default()}
                        aria-busy={if state.busy() { "true" } else { "false" }}>
                        <div class="results-head">
                            <h2 id="report-h">{ "Report" }</h2>
                            <span class="busy" role="status">
                                if state.busy() {
                                    <span class="busy-inner"><span class="spinner" aria-hidden="true"></span>{ "Analysing…" }
                                        <span class="busy-slow">{ " still working (large input)" }</span></span>
                                }
                            </span>
                            if let Some(shown) = &state.shown {
                                <span class="timing" title={format!("{:.0} ms of it analysing in the worker", shown.worker_ms)}
                                    data-worker-ms={format!("{:.0}", shown.worker_ms)}>{ timing(shown) }</span>
                                <label class="check hidden-toggle">
                                    <input type="checkbox" id="show-hidden" checked={state.show_hidden} onchange={on_hidden} />
                                    { " Show hidden differences (not counted by Argo CD)" }
                                </label>
                                <span class="report-actions">
                                    <button type="button" id="copy-link" class="button small" onclick={on_copy_link}>{ "Copy link" }</button>
                                    <button type="button" id="copy-markdown" class="button small" onclick={on_markdown}>{ "Copy as Markdown" }</button>
                                    <button type="button" id="download-json" class="button small" onclick={on_json}>{ "Download JSON" }</button>
                                </span>
                                <span class="copy-status" role="status">
                                    { match *md_status { Some(true) => "Markdown copied.", Some(false) => "Could not copy the Markdown (clipboard unavailable).", None => "" } }
                                </span>
                            }
                        </div>
                        if let Some(v) = &*share_view {
                            { share_panel(v, on_share_download) }
                        }
                        if let Some(e) = general_error {
                            <p class="error-text" role="alert">{ e.text.clone() }</p>
                        }
                        if state.error.is_some() && state.shown.is_some() {
                            <p class="stale-note">{ "The input has an error (see above): this is the report of the last input that could be read." }</p>
                        }
                        if let Some(shown) = &state.shown {
                            <Summary report={shown.report.clone()} filter={state.filter} on_filter={on_filter} />
                            <Emergency steps={shown.report.clone()} />
                            { resource_list(&state, shown, on_page, on_diff, on_select) }
                        } else if state.error.is_none() && state.latest == 0 {
                            <p class="muted">{ "Loading…" }</p>
                        } else if state.error.is_none() && !state.busy() {
                            <p class="muted empty-note">{ "Nothing to analyse: paste Git and live YAML or diff output above, pick an example, or open a share file." }</p>
                        }
                    </section>
                </div>
                if let View::Rules(focus) = &*view {
                    <RulesView focus={focus.clone()} rules={state.rules.clone()} />
                }
            </main>
            <footer class="foot">
                <p>{ "Everything runs in this page: your manifests never leave the browser. Secret values are masked in the report, the YAML views and share links. What you paste is kept in this tab until you close it or press Clear." }</p>
            </footer>
        </>
    }
}

fn timing(shown: &Shown) -> String {
    match shown.total_ms {
        Some(t) => format!("Analysed in {:.0} ms", t),
        None => format!("Analysed in {:.0} ms", shown.worker_ms),
    }
}

fn resource_list(
    state: &AppState,
    shown: &Shown,
    on_page: Callback<usize>,
    on_diff: Callback<String>,
    on_select: Callback<String>,
) -> Html {
    let listed = state.listed();
    let pages = listed.len().div_ceil(PAGE_SIZE).max(1);
    let page = state.page.min(pages - 1);
    let start = page * PAGE_SIZE;
    let end = (start + PAGE_SIZE).min(listed.len());
    let report = &shown.report;
    let open = report.summary.out_of_sync <= OPEN_CARDS_UP_TO;
    let pager = |place: &str| {
        if pages <= 1 {
            return html! {};
        }
        let prev = {
            let on_page = on_page.clone();
            Callback::from(move |_: MouseEvent| on_page.emit(page.saturating_sub(1)))
        };
        let next = {
            let on_page = on_page.clone();
            Callback::from(move |_: MouseEvent| on_page.emit((page + 1).min(pages - 1)))
        };
        html! {
            <nav class="pager" aria-label={format!("Resource pages ({place})")}>
                <button type="button" class="button small" disabled={page == 0} onclick={prev}>{ "← Previous" }</button>
                <span class="page-of">{ format!("Page {} of {}", page + 1, pages) }</span>
                <button type="button" class="button small" disabled={page + 1 >= pages} onclick={next}>{ "Next →" }</button>
            </nav>
        }
    };
    let filter_note = state
        .filter
        .map(|c| format!(" with {} differences", c.label()))
        .unwrap_or_default();
    html! {
        <section class="resources" aria-labelledby="resources-h">
            <h3 id="resources-h" tabindex="-1">{ "Resources" }</h3>
            <p class="list-note">
                if listed.is_empty() {
                    { "No resources." }
                } else {
                    { format!("{}–{} of {}{}, out of sync first.", start + 1, end, listed.len(), filter_note) }
                }
            </p>
            { pager("top") }
            <div class="cards">
                for &i in listed[start..end].iter() {
                    <ResourceCard key={shown.resources[i].id.clone()}
                        resource={shown.resources[i].clone()}
                        index={i}
                        default_open={open && shown.resources[i].status == drift_doctor::Status::OutOfSync}
                        show_hidden={state.show_hidden}
                        diff={state.diffs.get(&shown.resources[i].id).cloned()}
                        on_diff={on_diff.clone()}
                        selected={state.selected.as_deref() == Some(shown.resources[i].id.as_str())}
                        on_select={on_select.clone()}
                        rules={state.rules.clone().and_then(Result::ok)} />
                }
            </div>
            { pager("bottom") }
        </section>
    }
}
