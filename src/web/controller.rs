//! What acts on the world for the page: the worker, the text fields (kept
//! out of the reducer: a textarea holds megabytes faster than any state),
//! the debounce timer and file readers. Every change of what the page shows
//! goes through the reducer (`state`); components call these methods with
//! the state they rendered.

use super::app::Backend;
use super::client::{Answer, Client};
use super::editor::Edit;
use super::examples;
use super::first_report;
use super::inputs::{waiting_for, Field, Refs};
use super::persist;
use super::protocol::{ErrorInfo, Export, Input, Mode, Response};
use super::js_text::JsText;
use super::sharing::{is_shared_state, may_be_shared_state};
use super::state::Shared as Same;
use super::state::{Action, Loaded, Notice, PageState, SenderView, ShareFor, Undo};
use super::util::copy_to_clipboard;
use crate::difftext::{looks_like_diff, SNIFF_LINES};
use crate::input::{decode_text, Side};
use crate::share::ShareState;
use crate::Cause;
use gloo::file::callbacks::FileReader;
use gloo::timers::callback::Timeout;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use yew::{Callback, UseReducerDispatcher};

/// Pause after typing before analysing (ms).
pub const DEBOUNCE_MS: u32 = 300;

/// Pause before counting each slice of a large pasted text (ms): long
/// enough for a frame to be drawn and input handled in between.
const MEASURE_PAUSE_MS: u32 = 20;

/// Keys of `ShareState::options` that only the page reads: what the sender
/// saw besides the input (readers that do not know them ignore them).
const OPTION_CAUSE_FILTER: &str = "pageCauseFilter";
const OPTION_SHOW_HIDDEN: &str = "pageShowHidden";
const OPTION_EXAMPLE: &str = "pageExample";

struct Inner {
    dispatch: UseReducerDispatcher<PageState>,
    refs: Refs,
    client: RefCell<Option<Client>>,
    timer: RefCell<Option<Timeout>>,
    readers: RefCell<Vec<FileReader>>,
    /// The share link being opened came from the page's own address (a bad
    /// one then leaves an empty page rather than the input as it was).
    restoring_address: Cell<bool>,
    /// The last analysis sent (each is sent once: the page's first load
    /// asks for one while mounting, and the effect that sends it can run
    /// twice for it).
    sent: Cell<u32>,
}

/// The page's hands. Cloning shares it; equal when it is the same one.
#[derive(Clone)]
pub struct Controller(Rc<Inner>);

impl PartialEq for Controller {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Controller {
    pub fn new(backend: &Backend, dispatch: UseReducerDispatcher<PageState>) -> Controller {
        let inner = Rc::new(Inner {
            dispatch,
            refs: Refs::default(),
            client: RefCell::new(None),
            timer: RefCell::new(None),
            readers: RefCell::new(Vec::new()),
            restoring_address: Cell::new(false),
            sent: Cell::new(0),
        });
        let weak: Weak<Inner> = Rc::downgrade(&inner);
        let on_answer = Callback::from(move |a: Answer| {
            if let Some(inner) = weak.upgrade() {
                Controller(inner).answered(a);
            }
        });
        let client = match backend {
            Backend::Worker(url) => Client::new(Ok(url), on_answer),
            Backend::Inline(handler) => Client::new(Err(handler.clone()), on_answer),
        };
        client.rules(false);
        *inner.client.borrow_mut() = Some(client);
        Controller(inner)
    }

    pub fn refs(&self) -> &Refs {
        &self.0.refs
    }

    fn dispatch(&self, action: Action) {
        self.0.dispatch.dispatch(action);
    }

    fn client(&self) -> Option<Client> {
        self.0.client.borrow().clone()
    }

    fn big(&self) -> [Option<super::editor::BigInfo>; 3] {
        self.0.refs.big_infos()
    }

    fn answered(&self, a: Answer) {
        match a.response {
            Response::Shared(shared) => self.dispatch(Action::Shared {
                shared,
                page_base: persist::page_base(),
            }),
            Response::Restored(Ok(shared)) => {
                let input = Input::from_share(&shared);
                self.0.refs.apply(&input);
                persist::drop_fragment();
                let filter = Cause::from_id(&shared.option(OPTION_CAUSE_FILTER));
                self.dispatch(Action::Loaded(Box::new(Loaded {
                    mode: input.mode,
                    big: self.big(),
                    example: examples::find(&shared.option(OPTION_EXAMPLE)).map(|e| e.name),
                    undo: None,
                    notice: Some(Notice::info("Opened a shared state. Links never carry Secret values: they hold masks, so Secret fields compare by mask.")),
                    sender: Some(SenderView {
                        filter,
                        show_hidden: shared.option(OPTION_SHOW_HIDDEN) == "true",
                        selected: shared.selected.clone(),
                    }),
                })));
            }
            Response::Restored(Err(why)) if self.0.restoring_address.get() => {
                self.wipe(None);
                self.dispatch(Action::Notice(Some(Notice::error(format!("This link cannot be opened: {why}. Nothing was loaded: paste your input, pick an example or open a share file.")))));
            }
            Response::Restored(Err(why)) => {
                self.dispatch(Action::Notice(Some(Notice::error(format!(
                    "This share file or link cannot be opened: {why}. Your input is unchanged."
                )))));
            }
            Response::Exported {
                format: Export::Json,
                text: Some(text),
                ..
            } => {
                let name = "drift-doctor-report.json";
                if !persist::download(name, "application/json", &text) {
                    self.dispatch(Action::Notice(Some(Notice::error(format!(
                        "The browser refused to download {name}."
                    )))));
                }
            }
            Response::Exported {
                format: Export::Markdown { .. },
                text: Some(text),
                ..
            } => {
                let dispatch = self.0.dispatch.clone();
                copy_to_clipboard(
                    text,
                    Callback::from(move |ok| dispatch.dispatch(Action::MarkdownCopied(ok))),
                );
            }
            Response::Exported { text: None, .. } => {
                self.dispatch(Action::Notice(Some(Notice::error(
                    "The report changed while it was being prepared: press the button again.",
                ))));
            }
            Response::WarmedUp => {}
            Response::Checked { outcome } => {
                let read = outcome.and_then(|json| {
                    serde_json::from_str::<serde_json::Value>(&json).map_err(|e| e.to_string())
                });
                self.dispatch(Action::Checked(read.map(|v| Same(Rc::new(v)))));
            }
            _ => self.dispatch(Action::Answer(a)),
        }
    }

    /// Send analysis `state.latest` to the worker, or wait quietly while a
    /// side is missing and the user has not asked for an analysis.
    pub fn send(&self, state: &PageState) {
        let seq = state.latest;
        if self.0.sent.replace(seq) == seq {
            return;
        }
        let (input, attached) = self.0.refs.analysis_input(state.mode, state.show_hidden);
        match waiting_for(&input, &attached) {
            Some(waiting) => self.dispatch(Action::Wait {
                seq,
                waiting,
                asked: state.explicit,
            }),
            None => {
                if let Some(client) = self.client() {
                    client.analyze(seq, input, attached);
                }
            }
        }
    }

    /// Ask for the rules' docs and examples, which the Rules tab shows (the
    /// worker loads them the first time).
    pub fn rule_texts(&self) {
        if let Some(client) = self.client() {
            client.rules(true);
        }
    }

    /// Run the prevention checklist on the Git side (and the second render
    /// and settings): the page's `drift-doctor check`.
    pub fn check(&self) {
        let input = self.0.refs.input(Mode::Sides, false);
        if input.git.trim().is_empty() {
            self.dispatch(Action::Checked(Err(
                "Paste the rendered manifests (helm template, kustomize build) in Git first.".into(),
            )));
            return;
        }
        self.dispatch(Action::Checking);
        if let Some(client) = self.client() {
            client.check(input);
        }
    }

    /// Analyse now (a paste, a choice); `explicit`: the user asked for it.
    pub fn analyze_now(&self, explicit: bool) {
        // Safe to drop here: this never runs inside the timer's own callback.
        self.0.timer.borrow_mut().take();
        self.dispatch(Action::Analyze { explicit });
    }

    /// Analyse after a pause in typing.
    pub fn analyze_later(&self) {
        let dispatch = self.0.dispatch.clone();
        *self.0.timer.borrow_mut() = Some(Timeout::new(DEBOUNCE_MS, move || {
            dispatch.dispatch(Action::Analyze { explicit: false })
        }));
    }

    /// The user typed, dropped text or pressed Ctrl+Enter in a field.
    pub fn edited(&self, field: Field, edit: Edit, mode: Mode) {
        let refs = &self.0.refs;
        refs.take_held(field);
        // Diff output typed or dropped into a YAML side: move it to the diff field.
        if mode == Mode::Sides && matches!(field, Field::Git | Field::Live) {
            let text = refs.text(field);
            if looks_like_diff(&text) {
                refs.set_text(field, String::new());
                refs.set_text(Field::Diff, text);
                self.divert();
                return;
            }
        }
        self.dispatch(Action::Edited {
            big: self.big(),
            field: Some(field),
        });
        match edit {
            Edit::Asked => self.analyze_now(true),
            Edit::Now => self.analyze_now(false),
            Edit::Typed => self.analyze_later(),
        }
    }

    /// Analyse the diff field (the page put diff output there and chose
    /// diff mode for it).
    fn divert(&self) {
        self.0.timer.borrow_mut().take();
        self.dispatch(Action::SetMode {
            mode: Mode::Diff,
            note: true,
            big: self.big(),
        });
    }

    pub fn set_mode(&self, mode: Mode) {
        self.0.timer.borrow_mut().take();
        self.dispatch(Action::SetMode {
            mode,
            note: false,
            big: self.big(),
        });
    }

    /// Replace a field's whole text (a file, Clear) and analyse it now.
    pub fn replace_text(&self, field: Field, text: String, mode: Mode) {
        self.replace_pasted(field, JsText::from(text.as_str()), mode);
    }

    /// Replace a field's whole text with a large paste and analyse it now.
    pub fn replace_pasted(&self, field: Field, text: JsText, mode: Mode) {
        let Some(text) = self.paste(field, text, mode) else {
            return;
        };
        self.hold_pasted(field, text);
        self.dispatch(Action::Edited {
            big: self.big(),
            field: Some(field),
        });
        self.analyze_now(false);
    }

    /// Put a pasted text in `field`; a large one is measured in steps of
    /// their own, after the analysis request has gone.
    fn hold_pasted(&self, field: Field, text: JsText) {
        self.0.refs.set_pasted(field, text);
        self.measure_soon(field);
    }

    /// Count the next slice of a held text once the page has drawn and
    /// answered what came in meanwhile (a few milliseconds per slice, but
    /// the paste's own tasks come just before).
    fn measure_soon(&self, field: Field) {
        let ctl = self.clone();
        Timeout::new(MEASURE_PAUSE_MS, move || match ctl.0.refs.measure_step(field) {
            Some(true) => ctl.dispatch(Action::Measured { big: ctl.big() }),
            Some(false) => ctl.measure_soon(field),
            None => {}
        })
        .forget();
    }

    /// Offered every pasted text first: None when it went elsewhere (a share
    /// link or file opens; diff output goes to the diff field), else the text
    /// back. Only its first lines are read, unless it may be a share link or
    /// file: pastes can be megabytes.
    pub fn paste(&self, field: Field, text: JsText, mode: Mode) -> Option<JsText> {
        let head = text.head(SNIFF_LINES);
        if may_be_shared_state(&head) {
            let whole = text.to_utf8();
            if is_shared_state(&whole) {
                self.open_shared(whole, false);
                return None;
            }
        }
        if mode == Mode::Sides
            && matches!(field, Field::Git | Field::Live)
            && looks_like_diff(&head)
        {
            self.hold_pasted(Field::Diff, text);
            self.divert();
            return None;
        }
        Some(text)
    }

    /// Move a large side into its textarea after all.
    pub fn show_big(&self, field: Field) {
        let refs = &self.0.refs;
        if field.big_slot().is_none() {
            return;
        }
        refs.unhold(field);
        self.dispatch(Action::Edited {
            big: self.big(),
            field: None,
        });
    }

    /// Read a file's text (BOMs and UTF-16 handled by the core), then `then`.
    pub fn read_file(&self, file: web_sys::File, side: Side, then: Rc<dyn Fn(String)>) {
        let dispatch = self.0.dispatch.clone();
        let reader = gloo::file::callbacks::read_as_bytes(
            &gloo::file::Blob::from(file),
            move |res| match res {
                Ok(bytes) => match decode_text(bytes, side) {
                    Ok(text) => then(text),
                    Err(e) => dispatch.dispatch(Action::LocalError(ErrorInfo::from(&e))),
                },
                Err(e) => {
                    let mut info = ErrorInfo::general(format!("could not read the file: {e}"));
                    info.side = side.name().to_string();
                    dispatch.dispatch(Action::LocalError(info));
                }
            },
        );
        // A reader must live until its callback has run; a few are kept.
        let mut readers = self.0.readers.borrow_mut();
        if readers.len() >= 4 {
            readers.remove(0);
        }
        readers.push(reader);
    }

    /// A file chosen or dropped on a field.
    pub fn file(&self, field: Field, file: web_sys::File, mode: Mode) {
        let this = self.clone();
        self.read_file(
            file,
            field.side(),
            Rc::new(move |text| this.replace_text(field, text, mode)),
        );
    }

    /// Open a share link or file (decoded by the worker). `from_address`: the
    /// page's own URL holds it.
    pub fn open_shared(&self, text: String, from_address: bool) {
        self.0.restoring_address.set(from_address);
        self.dispatch(Action::Notice(Some(Notice::info(
            "Opening the shared state…",
        ))));
        if let Some(client) = self.client() {
            client.restore(text);
        }
    }

    /// What the fields hold now, to undo the next change (none when empty).
    fn undo_point(&self, state: &PageState) -> Option<Undo> {
        let refs = &self.0.refs;
        // The other fields as read for an analysis (held texts not yet
        // turned into UTF-8: the three are read whole just below).
        let (mut input, _) = refs.analysis_input(state.mode, false);
        // Both modes' texts: Undo brings back the one not shown as well.
        input.git = refs.text(Field::Git);
        input.live = refs.text(Field::Live);
        input.diff = refs.text(Field::Diff);
        let blank = [&input.git, &input.live, &input.diff, &input.settings]
            .iter()
            .all(|t| t.trim().is_empty());
        (!blank).then(|| Undo {
            input: Same(Rc::new(input)),
            example: state.example,
        })
    }

    /// What the fields hold now, kept as the user's own input when it is
    /// (not an example as loaded, not empty); returned as the undo point.
    fn keep_own(&self, state: &PageState) -> Option<Undo> {
        let now = self.undo_point(state)?;
        if state.example.is_none() {
            self.dispatch(Action::KeepOwn(now.clone()));
        }
        Some(now)
    }

    /// Load an embedded example (the user chose it and pressed Load); the
    /// empty choice, "your own input", brings back the user's own.
    pub fn load_example(&self, name: &str, state: &PageState) {
        let Some(ex) = examples::find(name) else {
            self.load_own(state);
            return;
        };
        // Undo walks back past examples (the menu has them all) to the
        // user's own input.
        let undo = match self.keep_own(state) {
            Some(now) if state.example.is_none() => Some(now),
            now => state.own.clone().or(now),
        };
        let mut input = Input::sides(ex.git, ex.live);
        // Keep the user's own settings and options: the example is only the two sides.
        let (before, _) = self.0.refs.analysis_input(state.mode, false);
        input.settings = before.settings;
        input.namespace = before.namespace;
        input.strategy = before.strategy;
        input.ignore_aggregated_roles = before.ignore_aggregated_roles;
        input.argocd_version = before.argocd_version;
        self.0.refs.apply(&input);
        let notice = undo.as_ref().map(|_| Notice {
            error: false,
            text: format!("Example loaded: {}.", ex.title),
            undo: true,
        });
        self.dispatch(Action::Loaded(Box::new(Loaded {
            mode: Mode::Sides,
            big: self.big(),
            example: Some(ex.name),
            undo,
            notice,
            sender: None,
        })));
    }

    /// Put back the user's own input, kept when an example or Clear
    /// replaced it.
    fn load_own(&self, state: &PageState) {
        if state.example.is_none() && self.undo_point(state).is_some() {
            self.dispatch(Action::Notice(Some(Notice::info(
                "The editors hold your own input already.",
            ))));
            return;
        }
        let Some(own) = state.own.clone() else {
            self.dispatch(Action::Notice(Some(Notice::info(
                "No input of your own to bring back yet: paste Git and live YAML or diff output.",
            ))));
            return;
        };
        let undo = self.undo_point(state);
        self.0.refs.apply(&own.input);
        self.dispatch(Action::Loaded(Box::new(Loaded {
            mode: own.input.mode,
            big: self.big(),
            example: None,
            notice: Some(Notice {
                error: false,
                text: "Your own input is back.".into(),
                undo: undo.is_some(),
            }),
            undo,
            sender: None,
        })));
    }

    /// Put back what the fields held before the last example or Clear.
    pub fn undo(&self, undo: &Undo) {
        self.0.refs.apply(&undo.input);
        self.dispatch(Action::Loaded(Box::new(Loaded {
            mode: undo.input.mode,
            big: self.big(),
            example: undo.example,
            undo: None,
            notice: None,
            sender: None,
        })));
    }

    /// Show an input kept for a reload, and analyse it.
    pub fn show_input(&self, input: &Input) {
        self.0.refs.apply(input);
        self.dispatch(Action::Loaded(Box::new(Loaded {
            mode: input.mode,
            big: self.big(),
            example: None,
            undo: None,
            notice: None,
            sender: None,
        })));
    }

    /// Wipe the inputs, what is kept for a reload, and the report.
    fn wipe(&self, undo: Option<Undo>) {
        self.0.timer.borrow_mut().take();
        self.0.refs.apply(&Input::sides("", ""));
        persist::forget();
        persist::drop_fragment();
        self.dispatch(Action::Cleared {
            big: self.big(),
            undo,
        });
    }

    /// "Clear", with an undo.
    pub fn clear(&self, state: &PageState) {
        let undo = self.keep_own(state);
        self.wipe(undo);
    }

    /// First render: open a link, or what this tab had before a reload, or
    /// the default example; with `first_report`, the default example's
    /// report made when the page was built, until the worker's arrives
    /// (also after a reload, if the example was left as it is).
    pub fn first_load(&self, state: &PageState, first_report: Option<&str>) {
        if let Some(fragment) = persist::link_fragment() {
            self.open_shared(fragment, true);
            return;
        }
        let mode = match persist::load() {
            Some(input) => {
                self.show_input(&input);
                input.mode
            }
            None => {
                self.load_example(examples::DEFAULT, state);
                Mode::Sides
            }
        };
        self.show_first_report(mode, state.show_hidden, first_report);
    }

    /// Show the report made when the page was built, if the page analyses
    /// exactly the input it was made from.
    fn show_first_report(&self, mode: Mode, show_hidden: bool, text: Option<&str>) {
        let Some(report) = text.and_then(first_report::read) else {
            return;
        };
        // A text held outside its textarea is never the example's.
        let (now, held) = self.0.refs.analysis_input(mode, show_hidden);
        if held.is_empty() && first_report::input().as_ref() == Some(&now) {
            self.dispatch(Action::FirstReport(Box::new(report)));
        }
    }

    /// Ask for the resources at `indices` of the analysis `seq` in full.
    pub fn resources(&self, seq: u32, indices: Vec<usize>) {
        if let Some(client) = self.client() {
            client.resources(seq, indices);
        }
    }

    /// Ask for the whole report of the analysis `seq`: downloaded as JSON,
    /// or copied as Markdown, when it arrives.
    pub fn export(&self, seq: u32, format: Export) {
        if let Some(client) = self.client() {
            client.export(seq, format);
        }
    }

    /// Ask for the YAML side by side of a resource of the shown report.
    pub fn texts(&self, seq: u32, id: String) {
        self.dispatch(Action::DiffRequested(id.clone()));
        if let Some(client) = self.client() {
            client.texts(seq, id);
        }
    }

    /// Encode what the page shows for a link (or the Markdown's link).
    pub fn share(&self, purpose: ShareFor, state: &PageState) {
        self.dispatch(Action::ShareRequested(purpose));
        let mut shared: ShareState = self
            .0
            .refs
            .input(state.mode, state.show_hidden)
            .to_share(state.selected.clone());
        let mut option = |key: &str, value: Option<&str>| {
            if let Some(v) = value {
                shared.options.insert(key.to_string(), v.to_string());
            }
        };
        option(OPTION_CAUSE_FILTER, state.filter.map(Cause::id));
        option(OPTION_SHOW_HIDDEN, state.show_hidden.then_some("true"));
        option(OPTION_EXAMPLE, state.example);
        if let Some(client) = self.client() {
            client.share(shared);
        }
    }

    /// Keep the input for a reload (the page is going away).
    pub fn save(&self, mode: Mode) {
        let (input, attached) = self.0.refs.analysis_input(mode, false);
        persist::save(input, &attached);
    }
}
