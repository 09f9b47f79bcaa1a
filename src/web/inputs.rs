//! The page's input fields: which text goes where (the two YAML sides, the
//! diff output, the user's Argo CD settings) and reading them into an
//! analysis `Input`.

use super::editor::{BigInfo, LARGE_INPUT};
use super::js_text::{Attached, JsText, Measure};
use super::protocol::{ErrorInfo, Input, Mode, APPLICATION_SIDE, EVENTS_SIDE, LOGS_SIDE, SETTINGS_SIDE};
use super::state::Waiting;
use super::util::*;
use crate::input::Side;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The page's text fields (the first three can hold a large text outside
/// their textarea).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Git,
    Live,
    Diff,
    Settings,
    /// The Application with its status (its sync errors, verdicts, history).
    Application,
    /// A second render of the same commit.
    GitAgain,
    /// The namespace's events.
    Events,
    /// Argo CD's or a controller's logs.
    Logs,
}

/// The input's error when it belongs to `field`.
pub fn error_of_field(error: Option<&ErrorInfo>, field: Field) -> Option<ErrorInfo> {
    error.filter(|e| e.side == field.error_side()).cloned()
}

impl Field {
    pub const ALL: [Field; 8] = [
        Field::Git,
        Field::Live,
        Field::Diff,
        Field::Settings,
        Field::Application,
        Field::GitAgain,
        Field::Events,
        Field::Logs,
    ];

    /// The field as a sentence names it.
    pub fn what(self) -> &'static str {
        match self {
            Field::Git => "the Git side",
            Field::Live => "the live side",
            Field::Diff => "the diff output",
            Field::Settings => "your Argo CD settings",
            Field::Application => "the Application",
            Field::GitAgain => "the second render",
            Field::Events => "the events",
            Field::Logs => "the logs",
        }
    }

    /// The command that prints what belongs in the field.
    pub fn command(self) -> &'static str {
        match self {
            Field::Git => "argocd app manifests APP --source git",
            Field::Live => "argocd app manifests APP --source live",
            Field::Diff => "argocd app diff APP",
            Field::Settings => "kubectl get application APP -n argocd -o yaml",
            Field::Application => "argocd app get APP -o yaml",
            Field::GitAgain => "argocd app manifests APP --source git",
            Field::Events => "kubectl -n NAMESPACE get events --sort-by=.lastTimestamp",
            Field::Logs => "kubectl -n argocd logs deploy/argocd-application-controller",
        }
    }

    /// What the empty field shows.
    pub fn placeholder(self) -> String {
        match self {
            Field::Settings => "kind: Application\nspec:\n  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    jsonPointers: [/spec/replicas]".into(),
            Field::Diff => format!("Paste what `{}` (or kubectl diff) printed.", self.command()),
            Field::GitAgain => format!(
                "Paste what `{}` (or helm template) printed when run again for the same commit.",
                self.command()
            ),
            _ => format!("Paste what `{}` printed.", self.command()),
        }
    }

    pub fn big_slot(self) -> Option<usize> {
        match self {
            Field::Git => Some(0),
            Field::Live => Some(1),
            Field::Diff => Some(2),
            Field::Settings
            | Field::Application
            | Field::GitAgain
            | Field::Events
            | Field::Logs => None,
        }
    }

    /// The side name of this field's errors (`ErrorInfo::side`).
    pub fn error_side(self) -> &'static str {
        match self {
            Field::Git => "git",
            Field::Live => "live",
            Field::Diff => "diff",
            Field::Settings => SETTINGS_SIDE,
            Field::Application => APPLICATION_SIDE,
            Field::GitAgain => Side::SecondRender.name(),
            Field::Events => EVENTS_SIDE,
            Field::Logs => LOGS_SIDE,
        }
    }

    /// How a file read into this field is named in errors.
    pub fn side(self) -> Side {
        match self {
            Field::Live => Side::Live,
            Field::Diff => Side::Diff,
            Field::GitAgain => Side::SecondRender,
            Field::Git | Field::Settings | Field::Application | Field::Events | Field::Logs => {
                Side::Git
            }
        }
    }
}

/// The elements analysis reads its input from, and the texts too large for
/// a textarea (by `Field::big_slot`).
#[derive(Clone, Default)]
pub struct Refs {
    pub git: NodeRef,
    pub live: NodeRef,
    pub diff: NodeRef,
    pub settings: NodeRef,
    pub application: NodeRef,
    pub git_again: NodeRef,
    pub events: NodeRef,
    pub logs: NodeRef,
    pub namespace: NodeRef,
    pub strategy: NodeRef,
    pub aggregated: NodeRef,
    pub release: NodeRef,
    pub example: NodeRef,
    big: Rc<RefCell<[Option<Held>; 3]>>,
}

/// One set of elements and held texts is the same as another only when it
/// is a clone of it (the page has one, made with its controller).
impl PartialEq for Refs {
    fn eq(&self, other: &Refs) -> bool {
        Rc::ptr_eq(&self.big, &other.big) && self.git == other.git
    }
}

/// A text held outside its textarea, as the browser's string (see
/// `js_text`), with its size counted once when it is set (counting the
/// lines of megabytes on every update stalls the page).
struct Held {
    text: JsText,
    info: BigInfo,
    /// How far the size of a pasted text has been counted.
    measure: Measure,
}

impl Refs {
    pub fn node(&self, field: Field) -> &NodeRef {
        match field {
            Field::Git => &self.git,
            Field::Live => &self.live,
            Field::Diff => &self.diff,
            Field::Settings => &self.settings,
            Field::Application => &self.application,
            Field::GitAgain => &self.git_again,
            Field::Events => &self.events,
            Field::Logs => &self.logs,
        }
    }

    /// The text held outside `field`'s textarea, if any.
    fn held(&self, field: Field) -> Option<JsText> {
        let i = field.big_slot()?;
        self.big.borrow()[i].as_ref().map(|h| h.text.clone())
    }

    /// A field's whole text as UTF-8 (a copy of megabytes when it is held
    /// outside its textarea: analyses use `analysis_input` instead).
    pub fn text(&self, field: Field) -> String {
        match self.held(field) {
            Some(held) => held.to_utf8(),
            None => textarea_value(self.node(field)),
        }
    }

    /// Take the text `field` holds outside its textarea, if any.
    pub fn take_held(&self, field: Field) -> Option<JsText> {
        let i = field.big_slot()?;
        self.big.borrow_mut()[i].take().map(|h| h.text)
    }

    /// Put `text` in a field: in the textarea, or held aside when large.
    pub fn set_text(&self, field: Field, text: String) {
        match field.big_slot() {
            Some(i) if text.len() > LARGE_INPUT => {
                set_textarea_value(self.node(field), "");
                let info = BigInfo::of(&text);
                let text = JsText::from(text.as_str());
                let measure = Measure::default();
                self.big.borrow_mut()[i] = Some(Held {
                    text,
                    info,
                    measure,
                });
            }
            slot => {
                set_textarea_value(self.node(field), &text);
                if let Some(i) = slot {
                    self.big.borrow_mut()[i] = None;
                }
            }
        }
    }

    /// Put a pasted text in a field, as `set_text` does, without turning it
    /// into UTF-8 on the page. A large one's size is counted afterwards, a
    /// step at a time (`measure_step`).
    pub fn set_pasted(&self, field: Field, text: JsText) {
        match field.big_slot() {
            Some(i) if text.units() > LARGE_INPUT => {
                set_textarea_value(self.node(field), "");
                self.big.borrow_mut()[i] = Some(Held {
                    text,
                    info: BigInfo::measuring(),
                    measure: Measure::default(),
                });
            }
            slot => {
                set_textarea_js(self.node(field), &text);
                if let Some(i) = slot {
                    self.big.borrow_mut()[i] = None;
                }
            }
        }
    }

    /// Count the next slice of the size of the text held for `field`: None
    /// when there is nothing (more) to count, else whether it is done.
    pub fn measure_step(&self, field: Field) -> Option<bool> {
        let i = field.big_slot()?;
        let mut big = self.big.borrow_mut();
        let held = big[i].as_mut().filter(|h| h.info.measuring)?;
        match held.text.measure_step(&mut held.measure) {
            Some(info) => {
                held.info = info;
                Some(true)
            }
            None => Some(false),
        }
    }

    /// Move the text held outside `field`'s textarea into it.
    pub fn unhold(&self, field: Field) {
        if let Some(text) = self.take_held(field) {
            set_textarea_js(self.node(field), &text);
        }
    }

    pub fn big_infos(&self) -> [Option<BigInfo>; 3] {
        let big = self.big.borrow();
        [0, 1, 2].map(|i| big[i].as_ref().map(|h| h.info))
    }

    /// What the fields hold, read as an analysis of `mode`.
    pub fn input(&self, mode: Mode, include_hidden: bool) -> Input {
        let (mut input, attached) = self.analysis_input(mode, include_hidden);
        attached.fill_input(&mut input);
        input
    }

    /// What an analysis of `mode` reads: the input, with the texts held
    /// outside their textareas left empty in it and attached beside it.
    pub fn analysis_input(&self, mode: Mode, include_hidden: bool) -> (Input, Attached) {
        let mut attached = Attached::default();
        let mut text = |field: Field, used: bool| {
            if !used {
                return String::new();
            }
            match (self.held(field), field.big_slot()) {
                (Some(held), Some(slot)) => {
                    attached.0[slot] = Some(held);
                    String::new()
                }
                _ => textarea_value(self.node(field)),
            }
        };
        let input = Input {
            mode,
            git: text(Field::Git, mode == Mode::Sides),
            live: text(Field::Live, mode == Mode::Sides),
            diff: text(Field::Diff, mode == Mode::Diff),
            settings: self.text(Field::Settings),
            application: self.text(Field::Application),
            git_again: text(Field::GitAgain, mode == Mode::Sides),
            events: self.text(Field::Events),
            logs: self.text(Field::Logs),
            namespace: input_value(&self.namespace),
            strategy: select_value(&self.strategy),
            ignore_aggregated_roles: input_checked(&self.aggregated),
            argocd_version: select_value(&self.release),
            include_hidden,
        };
        (input, attached)
    }

    /// Show `input` in the fields (a restored link, a reload, an example).
    pub fn apply(&self, input: &Input) {
        self.set_text(Field::Git, input.git.clone());
        self.set_text(Field::Live, input.live.clone());
        self.set_text(Field::Diff, input.diff.clone());
        self.set_text(Field::Settings, input.settings.clone());
        self.set_text(Field::Application, input.application.clone());
        self.set_text(Field::GitAgain, input.git_again.clone());
        self.set_text(Field::Events, input.events.clone());
        self.set_text(Field::Logs, input.logs.clone());
        if let Some(i) = self.namespace.cast::<web_sys::HtmlInputElement>() {
            i.set_value(&input.namespace);
        }
        set_select_value(&self.strategy, &input.strategy);
        if let Some(i) = self.aggregated.cast::<web_sys::HtmlInputElement>() {
            i.set_checked(input.ignore_aggregated_roles);
        }
        set_select_value(&self.release, &input.argocd_version);
    }
}

/// What `input` lacks for an analysis (with `attached` beside it):
/// everything, or some fields.
pub fn waiting_for(input: &Input, attached: &Attached) -> Option<Waiting> {
    let blank = |field: Field, t: &str| {
        t.trim().is_empty() && !field.big_slot().is_some_and(|slot| attached.holds(slot))
    };
    let missing: Vec<Field> = match input.mode {
        Mode::Sides => [(Field::Git, &input.git), (Field::Live, &input.live)]
            .into_iter()
            .filter(|(f, t)| blank(*f, t))
            .map(|(f, _)| f)
            .collect(),
        Mode::Diff => [(Field::Diff, &input.diff)]
            .into_iter()
            .filter(|(f, t)| blank(*f, t))
            .map(|(f, _)| f)
            .collect(),
    };
    // Both sides empty is an empty page; an empty diff box asks for its command.
    match missing.len() {
        0 => None,
        2 => Some(Waiting::Nothing),
        _ => Some(Waiting::For(missing)),
    }
}
