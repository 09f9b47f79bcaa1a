//! The page: inputs on top (two editors, options, examples), the report
//! below (summary, emergency steps, one card per resource, paged), and the
//! rule catalogue as a second view (`#rules`, `#rule-CODE`).

use super::card::ResourceCard;
use super::client::{Answer, Client, Handler};
use super::editor::{BigInfo, Edit, Editor, LARGE_INPUT};
use super::examples::{self, EXAMPLES};
use super::protocol::{ErrorInfo, Input};
use super::rules_view::RulesView;
use super::state::{Action, AppState, Shown, OPEN_CARDS_UP_TO, PAGE_SIZE};
use super::summary::{Emergency, Summary};
use super::util::*;
use drift_doctor::input::{decode_text, Side};
use gloo::events::EventListener;
use gloo::file::callbacks::FileReader;
use gloo::timers::callback::Timeout;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use yew::prelude::*;

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

/// The elements analysis reads its input from, and the sides too large
/// for a textarea (index 0: Git, 1: live).
#[derive(Clone, Default)]
struct Refs {
    git: NodeRef,
    live: NodeRef,
    namespace: NodeRef,
    strategy: NodeRef,
    aggregated: NodeRef,
    example: NodeRef,
    big: Rc<RefCell<[Option<String>; 2]>>,
    include_hidden: Rc<Cell<bool>>,
}

fn slot(side: Side) -> usize {
    if side == Side::Git {
        0
    } else {
        1
    }
}

impl Refs {
    fn node(&self, side: Side) -> &NodeRef {
        if side == Side::Git {
            &self.git
        } else {
            &self.live
        }
    }

    fn side_text(&self, side: Side) -> String {
        match &self.big.borrow()[slot(side)] {
            Some(text) => text.clone(),
            None => textarea_value(self.node(side)),
        }
    }

    /// Put `text` in a side: in the textarea, or held aside when large.
    fn set_side(&self, side: Side, text: String) {
        if text.len() > LARGE_INPUT {
            set_textarea_value(self.node(side), "");
            self.big.borrow_mut()[slot(side)] = Some(text);
        } else {
            set_textarea_value(self.node(side), &text);
            self.big.borrow_mut()[slot(side)] = None;
        }
    }

    fn big_infos(&self) -> [Option<BigInfo>; 2] {
        let big = self.big.borrow();
        [
            big[0].as_deref().map(BigInfo::of),
            big[1].as_deref().map(BigInfo::of),
        ]
    }

    fn input(&self) -> Input {
        Input {
            git: self.side_text(Side::Git),
            live: self.side_text(Side::Live),
            namespace: input_value(&self.namespace),
            strategy: select_value(&self.strategy),
            ignore_aggregated_roles: input_checked(&self.aggregated),
            include_hidden: self.include_hidden.get(),
        }
    }

    fn load_example(&self, name: &str) -> bool {
        let Some(ex) = examples::find(name) else {
            return false;
        };
        *self.big.borrow_mut() = [None, None];
        set_textarea_value(&self.git, ex.git);
        set_textarea_value(&self.live, ex.live);
        if let Some(i) = self.namespace.cast::<web_sys::HtmlInputElement>() {
            i.set_value("");
        }
        set_select_value(&self.strategy, "legacy");
        if let Some(i) = self.aggregated.cast::<web_sys::HtmlInputElement>() {
            i.set_checked(false);
        }
        set_select_value(&self.example, name);
        true
    }
}

#[component]
pub fn App(props: &AppProps) -> Html {
    let state = use_reducer(AppState::default);
    let refs = use_memo((), |_| Refs::default());
    let seq = use_mut_ref(|| 0u32);
    let timer = use_mut_ref(|| None::<Timeout>);
    let readers = use_mut_ref(|| [None::<FileReader>, None::<FileReader>]);
    let view = use_state(view_from_hash);
    let saved_scroll = use_mut_ref(|| 0.0f64);
    let md_status = use_state(|| None::<bool>);
    let big_info = use_state(|| [None::<BigInfo>, None::<BigInfo>]);
    let client = {
        let dispatch = state.dispatcher();
        let backend = props.backend.clone();
        use_memo((), move |_| {
            let on_answer = Callback::from(move |a: Answer| dispatch.dispatch(Action::Answer(a)));
            let client = match &backend {
                Backend::Worker(url) => Client::new(Ok(url), on_answer),
                Backend::Inline(handler) => Client::new(Err(handler.clone()), on_answer),
            };
            client.rules();
            client
        })
    };

    // Analyse what the inputs hold now.
    let run: Rc<dyn Fn()> = {
        let refs = refs.clone();
        let client = client.clone();
        let seq = seq.clone();
        let dispatch = state.dispatcher();
        Rc::new(move || {
            let input = refs.input();
            let n = {
                let mut s = seq.borrow_mut();
                *s += 1;
                *s
            };
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

    // First render: load and analyse the default example; follow the URL hash.
    {
        let refs = refs.clone();
        let run_now = run_now.clone();
        let view = view.clone();
        let saved_scroll = saved_scroll.clone();
        use_effect_with((), move |_| {
            if refs.load_example(examples::DEFAULT) {
                run_now();
            }
            let in_analysis = Rc::new(Cell::new(*view == View::Analysis));
            let listener = web_sys::window().map(|w| {
                let win = w.clone();
                EventListener::new(&w, "hashchange", move |_| {
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

    // Typing in a side's textarea makes the textarea that side's text again.
    let on_edit = |side: Side| {
        let run_now = run_now.clone();
        let run_later = run_later.clone();
        let refs = refs.clone();
        let big_info = big_info.clone();
        Callback::from(move |e: Edit| {
            set_select_value(&refs.example, "");
            if refs.big.borrow_mut()[slot(side)].take().is_some() {
                big_info.set(refs.big_infos());
            }
            match e {
                Edit::Now => run_now(),
                Edit::Typed => run_later(),
            }
        })
    };
    // Replace a side's whole text (a file, a large paste) and analyse it now.
    let replace_side: Rc<dyn Fn(Side, String)> = {
        let refs = refs.clone();
        let run_now = run_now.clone();
        let big_info = big_info.clone();
        Rc::new(move |side: Side, text: String| {
            refs.set_side(side, text);
            big_info.set(refs.big_infos());
            set_select_value(&refs.example, "");
            run_now();
        })
    };
    let on_replace = |side: Side| {
        let replace_side = replace_side.clone();
        Callback::from(move |text: String| replace_side(side, text))
    };
    let on_show_big = |side: Side| {
        let refs = refs.clone();
        let big_info = big_info.clone();
        Callback::from(move |_| {
            let text = refs.big.borrow_mut()[slot(side)].take();
            if let Some(text) = text {
                set_textarea_value(refs.node(side), &text);
            }
            big_info.set(refs.big_infos());
        })
    };
    let on_clear = |side: Side| {
        let replace_side = replace_side.clone();
        Callback::from(move |_| replace_side(side, String::new()))
    };
    let on_file = |side: Side| {
        let replace_side = replace_side.clone();
        let readers = readers.clone();
        let dispatch = state.dispatcher();
        Callback::from(move |file: web_sys::File| {
            let replace_side = replace_side.clone();
            let dispatch = dispatch.clone();
            let reader =
                gloo::file::callbacks::read_as_bytes(&gloo::file::Blob::from(file), move |res| {
                    match res {
                        Ok(bytes) => match decode_text(&bytes, side) {
                            Ok(text) => replace_side(side, text),
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
            // Replacing (not clearing) keeps a reader alive until its callback has run.
            readers.borrow_mut()[if side == Side::Git { 0 } else { 1 }] = Some(reader);
        })
    };
    let on_example = {
        let refs = refs.clone();
        let run_now = run_now.clone();
        let big_info = big_info.clone();
        Callback::from(move |_: Event| {
            let name = select_value(&refs.example);
            if refs.load_example(&name) {
                big_info.set([None, None]);
                run_now();
            }
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
    let on_page = {
        let dispatch = state.dispatcher();
        Callback::from(move |p: usize| {
            dispatch.dispatch(Action::Page(p));
            focus_element("resources-h");
        })
    };
    let on_markdown = {
        let md_status = md_status.clone();
        let shown = state.shown.clone();
        Callback::from(move |_: MouseEvent| {
            let Some(shown) = &shown else { return };
            let text = drift_doctor::render::markdown::render(&shown.full_report(), None);
            let md_status = md_status.clone();
            copy_to_clipboard(text, Callback::from(move |ok| md_status.set(Some(ok))));
        })
    };

    let error_for = |side: &str| state.error.clone().filter(|e| e.side == side);
    let general_error = state
        .error
        .clone()
        .filter(|e| e.side != "git" && e.side != "live");
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
                                    autocomplete="off" spellcheck="false" oninput={on_namespace} />
                            </div>
                            <div class="field">
                                <label for="strategy">{ "Diff strategy" }</label>
                                <select id="strategy" ref={refs.strategy.clone()} onchange={on_option_now.clone()}>
                                    <option value="legacy" selected=true>{ "Client-side three-way (default)" }</option>
                                    <option value="server-side-apply">{ "Server-side apply" }</option>
                                    <option value="server-side-diff">{ "Server-side diff" }</option>
                                </select>
                            </div>
                            <div class="field check">
                                <input id="aggregated" type="checkbox" ref={refs.aggregated.clone()} onchange={on_option_now} />
                                <label for="aggregated">{ "ignoreAggregatedRoles" }</label>
                            </div>
                            <button type="submit" class="button primary analyze">{ "Analyze" }</button>
                        </form>
                        <div class="editors">
                            <Editor side="git" title="Git (desired)" node={refs.git.clone()} error={error_for("git")}
                                hint="Paste, type or drop the manifests Argo CD renders (argocd app manifests --source git, helm template, kustomize build)."
                                on_edit={on_edit(Side::Git)} on_file={on_file(Side::Git)} on_replace={on_replace(Side::Git)}
                                big={big_info[0]} on_show_big={on_show_big(Side::Git)} on_clear={on_clear(Side::Git)} />
                            <Editor side="live" title="Live (cluster)" node={refs.live.clone()} error={error_for("live")}
                                hint="The objects in the cluster (argocd app manifests --source live, kubectl get -o yaml). Analysis runs as you type."
                                on_edit={on_edit(Side::Live)} on_file={on_file(Side::Live)} on_replace={on_replace(Side::Live)}
                                big={big_info[1]} on_show_big={on_show_big(Side::Live)} on_clear={on_clear(Side::Live)} />
                        </div>
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
                                <span class="timing">{ timing(shown) }</span>
                                <label class="check hidden-toggle">
                                    <input type="checkbox" id="show-hidden" checked={state.show_hidden} onchange={on_hidden} />
                                    { " Show hidden differences (not counted by Argo CD)" }
                                </label>
                                <button type="button" class="button small" onclick={on_markdown}>{ "Copy as Markdown" }</button>
                                <span class="copy-status" role="status">
                                    { match *md_status { Some(true) => "Copied.", Some(false) => "Could not copy (clipboard unavailable).", None => "" } }
                                </span>
                            }
                        </div>
                        if let Some(e) = general_error {
                            <p class="error-text" role="alert">{ e.text.clone() }</p>
                        }
                        if state.error.is_some() && state.shown.is_some() {
                            <p class="stale-note">{ "The input has an error (see above): this is the report of the last input that could be read." }</p>
                        }
                        if let Some(shown) = &state.shown {
                            <Summary report={shown.report.clone()} filter={state.filter} on_filter={on_filter} />
                            <Emergency steps={shown.report.clone()} />
                            { resource_list(&state, shown, on_page, on_diff) }
                        } else if state.error.is_none() {
                            <p class="muted">{ "Loading the example…" }</p>
                        }
                    </section>
                </div>
                if let View::Rules(focus) = &*view {
                    <RulesView focus={focus.clone()} rules={state.rules.clone()} />
                }
            </main>
            <footer class="foot">
                <p>{ "Everything runs in this page: your manifests never leave the browser. Secret values are masked in the report and the YAML views." }</p>
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
                        rules={state.rules.clone().and_then(Result::ok)} />
                }
            </div>
            { pager("bottom") }
        </section>
    }
}
