//! The page: the input panel and the report panel (side by side on wide
//! screens), and the rule catalogue as a second view (`#rules`,
//! `#rule-CODE`). One reducer holds what the page shows (`state`); the
//! `Controller` acts on the worker and the text fields; the effects here
//! tie the two together.

use super::client::Handler;
use super::controller::Controller;
use super::check_view::CheckPanel;
use super::input_panel::{InputActions, InputPanel};
use super::persist;
use super::inputs::Field;
use super::protocol::{Export, Mode};
use super::report_panel::{ReportActions, ReportPanel};
use super::rules_view::RulesView;
use super::sharing::reveal_card;
use super::state::{Action, PageState, PageView, ShareFor, View};
use super::util::{
    close_around_focus, copy_to_clipboard, focus_element, set_select_value, COPIED_SHOWN_MS,
};
use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

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
    /// The default example's report made when the page was built
    /// (`first_report`), shown on a first visit until the worker's own.
    #[prop_or_default]
    pub first_report: Option<AttrValue>,
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

/// Where the reader was in the analysis before opening the rules.
#[derive(Default)]
struct Place {
    scroll: f64,
    focus: Option<web_sys::HtmlElement>,
}

#[component]
pub fn App(props: &AppProps) -> Html {
    let state = use_reducer(|| PageState {
        view: view_from_hash(),
        ..PageState::default()
    });
    let ctl = {
        let dispatch = state.dispatcher();
        let backend = props.backend.clone();
        (*use_memo((), move |_| Controller::new(&backend, dispatch))).clone()
    };
    let place = use_mut_ref(Place::default);

    // First render: open a link, what this tab had before a reload, or the
    // default example; follow the URL hash from then on.
    {
        let ctl = ctl.clone();
        let state = state.clone();
        let place = place.clone();
        let first_report = props.first_report.clone();
        use_effect_with((), move |_| {
            ctl.first_load(&state, first_report.as_deref());
            let in_analysis = Rc::new(Cell::new(state.view == View::Analysis));
            let dispatch = state.dispatcher();
            let listener = web_sys::window().map(|w| {
                let win = w.clone();
                EventListener::new(&w, "hashchange", move |_| {
                    // A link pasted into this tab's address bar.
                    if let Some(fragment) = persist::link_fragment() {
                        ctl.open_shared(fragment, true);
                        return;
                    }
                    let next = view_from_hash();
                    if in_analysis.get() && next != View::Analysis {
                        remember_place(&win, &place);
                    }
                    in_analysis.set(next == View::Analysis);
                    dispatch.dispatch(Action::View(next));
                })
            });
            move || drop(listener)
        });
    }
    // The Rules tab's docs and examples are asked for when it first opens:
    // nothing else needs them.
    {
        let ctl = ctl.clone();
        let wanted = matches!(state.view, View::Rules(_)) && state.rules.is_none();
        use_effect_with(wanted, move |wanted| {
            if *wanted {
                ctl.rule_texts();
            }
        });
    }
    // Escape closes what was opened around the focus (not while editing a
    // text: there it is the editor's).
    use_effect_with((), |_| {
        let listener = web_sys::window().and_then(|w| w.document()).map(|d| {
            EventListener::new(&d, "keydown", |e| {
                let Some(k) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                    return;
                };
                let editing = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.active_element())
                    .is_some_and(|a| a.tag_name() == "TEXTAREA");
                if k.key() == "Escape" && !k.default_prevented() && !editing && close_around_focus() {
                    k.prevent_default();
                }
            })
        });
        move || drop(listener)
    });
    // Send each analysis asked for (after the render that asked, so the
    // fields hold what it must read).
    {
        let ctl = ctl.clone();
        let state = state.clone();
        use_effect_with(state.latest, move |_| {
            if state.busy() {
                ctl.send(&state);
            }
        });
    }
    // Keep the input for a reload when the page goes away (a reload fires
    // `pagehide`): nothing is written while the user works, so storing
    // megabytes never competes with an analysis.
    {
        let ctl = ctl.clone();
        use_effect_with(state.mode, move |mode| {
            let mode = *mode;
            let listener = web_sys::window()
                .map(|w| EventListener::new(&w, "pagehide", move |_| ctl.save(mode)));
            move || drop(listener)
        });
    }
    // Coming back from the rules: where the reader was, and the focus.
    {
        let place = place.clone();
        use_effect_with(state.view.clone(), move |v| {
            if *v == View::Analysis {
                let place = place.borrow();
                if let Some(w) = web_sys::window() {
                    w.scroll_to_with_x_and_y(0.0, place.scroll);
                }
                match place.focus.as_ref().filter(|e| e.is_connected()) {
                    Some(el) => {
                        let _ = el.focus();
                    }
                    None if place.focus.is_some() => focus_element("report-h"),
                    None => {}
                }
            }
        });
    }
    // The menu shows the example the fields hold.
    {
        let node = ctl.refs().example.clone();
        use_effect_with(state.example, move |example| {
            set_select_value(&node, example.unwrap_or(""));
        });
    }
    // A link's selected resource: bring its card into view once shown.
    {
        let dispatch = state.dispatcher();
        // Once its card is drawn in full: it may arrive after the report,
        // and a page's new cards are drawn a few per task.
        let drawn = |id: &String| {
            state.shown.as_ref().is_some_and(|s| {
                s.lines
                    .iter()
                    .position(|l| l.id == *id)
                    .is_none_or(|i| s.details.contains_key(&i) && state.draws(id))
            })
        };
        let target = (state.reveal && !state.busy())
            .then(|| state.selected.clone())
            .flatten()
            .filter(drawn);
        let seq = state.shown.as_ref().map(|s| s.seq);
        use_effect_with((target, seq), move |(target, _)| {
            if let Some(id) = target {
                reveal_card(id);
                dispatch.dispatch(Action::Revealed);
            }
        });
    }
    // What "Copy link" or "Copy as Markdown" encoded: to the clipboard.
    {
        let state = state.clone();
        let ctl = ctl.clone();
        let serial = state.share.as_ref().map(|s| s.serial);
        use_effect_with(serial, move |_| {
            let Some(share) = state.share.clone() else {
                return;
            };
            let dispatch = state.dispatcher();
            match state.share_for {
                ShareFor::Link => {
                    if let Some(url) = share.url() {
                        let serial = share.serial;
                        copy_to_clipboard(
                            url,
                            Callback::from(move |ok| {
                                dispatch.dispatch(Action::LinkCopied { serial, ok })
                            }),
                        );
                    }
                }
                ShareFor::Markdown => {
                    // The worker holds the whole report and writes the
                    // Markdown; the controller copies it.
                    let Some(shown) = &state.shown else { return };
                    ctl.export(shown.seq, Export::Markdown { link: share.url() });
                }
            }
        });
    }
    // "Copied." goes away by itself.
    {
        let dispatch = state.dispatcher();
        let copied = state.markdown_copied == Some(true)
            || state.share.as_ref().is_some_and(|s| s.copied == Some(true));
        let timer = use_mut_ref(|| None::<Timeout>);
        use_effect_with(copied, move |copied| {
            let mut timer = RefCell::borrow_mut(&timer);
            *timer = copied.then(|| {
                Timeout::new(COPIED_SHOWN_MS, move || {
                    dispatch.dispatch(Action::CopiedShown)
                })
            });
        });
    }

    let in_rules = matches!(state.view, View::Rules(_));
    let input_actions = input_actions(&ctl, &state);
    let report_actions = report_actions(&ctl, &state);
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
                    <InputPanel mode={state.mode} mode_note={state.mode_note} example={state.example}
                        big={state.big} notice={state.notice.clone()} can_undo={state.undo.is_some()}
                        error={state.error.clone()} refs={ctl.refs().clone()} actions={input_actions} />
                    <CheckPanel state={state.clone()} />
                    <ReportPanel state={PageView(state.clone())} actions={report_actions} />
                </div>
                if let View::Rules(focus) = &state.view {
                    <RulesView focus={focus.clone()} rules={state.rules.clone()} />
                }
                <div id="announcer" class="visually-hidden" role="status" aria-live="polite">{ state.announcement.clone() }</div>
            </main>
            <footer class="foot">
                <p>{ "Everything runs in this page: your manifests never leave the browser. Secret values are masked in the report, the YAML views and share links. What you paste is kept in this tab until you close it or press Clear." }</p>
            </footer>
        </>
    }
}

fn remember_place(win: &web_sys::Window, place: &Rc<RefCell<Place>>) {
    let focus = win
        .document()
        .and_then(|d| d.active_element())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        .filter(|e| e.tag_name() != "BODY");
    *place.borrow_mut() = Place {
        scroll: win.scroll_y().unwrap_or(0.0),
        focus,
    };
}

/// What the input panel asks for, sent to the controller (which reads the
/// fields) or to the reducer.
fn input_actions(ctl: &Controller, state: &UseReducerHandle<PageState>) -> InputActions {
    let mode = state.mode;
    let with = |f: fn(&Controller, Field, Mode)| {
        let ctl = ctl.clone();
        Callback::from(move |field: Field| f(&ctl, field, mode))
    };
    let c = ctl.clone();
    let edited = Callback::from(move |(field, e)| c.edited(field, e, mode));
    let c = ctl.clone();
    let replace_pasted = Callback::from(move |(field, text)| c.replace_pasted(field, text, mode));
    let c = ctl.clone();
    let paste = Callback::from(move |(field, text)| c.paste(field, text, mode));
    let c = ctl.clone();
    let file = Callback::from(move |(field, file)| c.file(field, file, mode));
    let c = ctl.clone();
    let open_share_file = Callback::from(move |file: web_sys::File| {
        let opener = c.clone();
        c.read_file(
            file,
            crate::Side::Git,
            Rc::new(move |text| opener.open_shared(text, false)),
        );
    });
    let (c, s) = (ctl.clone(), state.clone());
    let load_example = Callback::from(move |name: String| c.load_example(&name, &s));
    let c = ctl.clone();
    let set_mode = Callback::from(move |m: Mode| c.set_mode(m));
    let c = ctl.clone();
    let check = Callback::from(move |()| c.check());
    let (c, s) = (ctl.clone(), state.clone());
    let clear_all = Callback::from(move |()| c.clear(&s));
    let c = ctl.clone();
    let analyze_now = Callback::from(move |asked: bool| c.analyze_now(asked));
    let c = ctl.clone();
    let analyze_later = Callback::from(move |()| c.analyze_later());
    let dispatch = state.dispatcher();
    let dismiss_notice = Callback::from(move |()| dispatch.dispatch(Action::Notice(None)));
    let (c, undo) = (ctl.clone(), state.undo.clone());
    let undo = Callback::from(move |()| {
        if let Some(undo) = &undo {
            c.undo(undo);
        }
    });
    InputActions {
        edited,
        replace_pasted,
        paste,
        file,
        show_big: with(|c, field, _| c.show_big(field)),
        clear_field: with(|c, field, mode| c.replace_text(field, String::new(), mode)),
        open_share_file,
        load_example,
        set_mode,
        check,
        clear_all,
        analyze_now,
        analyze_later,
        dismiss_notice,
        undo,
    }
}

/// What the report panel asks for, sent to the controller (which talks to
/// the worker) or to the reducer.
fn report_actions(ctl: &Controller, state: &UseReducerHandle<PageState>) -> ReportActions {
    let dispatch = state.dispatcher();
    let (c, s) = (ctl.clone(), state.clone());
    let share = Callback::from(move |purpose: ShareFor| c.share(purpose, &s));
    let c = ctl.clone();
    let export = Callback::from(move |(seq, format)| c.export(seq, format));
    let c = ctl.clone();
    let resources = Callback::from(move |(seq, indices)| c.resources(seq, indices));
    let c = ctl.clone();
    let texts = Callback::from(move |(seq, id)| c.texts(seq, id));
    ReportActions {
        show_hidden: to_reducer(&dispatch, Action::ShowHidden),
        share,
        export,
        resources,
        texts,
        draw_more: to_reducer(&dispatch, Action::DrawMore),
        draw_plan: to_reducer(&dispatch, Action::DrawPlan),
        read_first: to_reducer(&dispatch, Action::ReadFirst),
        other_base: to_reducer(&dispatch, Action::OtherBase),
        filter: to_reducer(&dispatch, Action::Filter),
        page: to_reducer(&dispatch, Action::Page),
        select: to_reducer(&dispatch, Action::Select),
        notice: {
            let dispatch = dispatch.clone();
            Callback::from(move |n| dispatch.dispatch(Action::Notice(Some(n))))
        },
        close_share: Callback::from(move |()| dispatch.dispatch(Action::ShareClosed)),
    }
}

/// A callback that hands its argument to the reducer as `action(argument)`.
fn to_reducer<T: 'static>(
    dispatch: &UseReducerDispatcher<PageState>,
    action: fn(T) -> Action,
) -> Callback<T> {
    let dispatch = dispatch.clone();
    Callback::from(move |x| dispatch.dispatch(action(x)))
}
