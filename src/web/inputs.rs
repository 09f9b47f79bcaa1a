//! The page's input fields: which text goes where (the two YAML sides, the
//! diff output, the user's Argo CD settings) and reading them into an
//! analysis `Input`.

use super::editor::{BigInfo, LARGE_INPUT};
use super::examples;
use super::protocol::{Input, Mode, SETTINGS_SIDE};
use super::util::*;
use drift_doctor::input::Side;
use std::cell::{Cell, RefCell};
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
}

impl Field {
    pub fn big_slot(self) -> Option<usize> {
        match self {
            Field::Git => Some(0),
            Field::Live => Some(1),
            Field::Diff => Some(2),
            Field::Settings => None,
        }
    }

    pub fn of_side(side: Side) -> Field {
        match side {
            Side::Git => Field::Git,
            Side::Live => Field::Live,
            Side::Diff => Field::Diff,
        }
    }

    /// The side name of this field's errors (`ErrorInfo::side`).
    pub fn error_side(self) -> &'static str {
        match self {
            Field::Git => "git",
            Field::Live => "live",
            Field::Diff => "diff",
            Field::Settings => SETTINGS_SIDE,
        }
    }

    /// How a file read into this field is named in errors.
    pub fn side(self) -> Side {
        match self {
            Field::Live => Side::Live,
            Field::Diff => Side::Diff,
            Field::Git | Field::Settings => Side::Git,
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
    pub namespace: NodeRef,
    pub strategy: NodeRef,
    pub aggregated: NodeRef,
    pub example: NodeRef,
    pub big: Rc<RefCell<[Option<String>; 3]>>,
    pub mode: Rc<Cell<Mode>>,
    pub include_hidden: Rc<Cell<bool>>,
}

impl Refs {
    pub fn node(&self, field: Field) -> &NodeRef {
        match field {
            Field::Git => &self.git,
            Field::Live => &self.live,
            Field::Diff => &self.diff,
            Field::Settings => &self.settings,
        }
    }

    pub fn text(&self, field: Field) -> String {
        let big = field.big_slot().and_then(|i| self.big.borrow()[i].clone());
        big.unwrap_or_else(|| textarea_value(self.node(field)))
    }

    /// Put `text` in a field: in the textarea, or held aside when large.
    pub fn set_text(&self, field: Field, text: String) {
        match field.big_slot() {
            Some(i) if text.len() > LARGE_INPUT => {
                set_textarea_value(self.node(field), "");
                self.big.borrow_mut()[i] = Some(text);
            }
            slot => {
                set_textarea_value(self.node(field), &text);
                if let Some(i) = slot {
                    self.big.borrow_mut()[i] = None;
                }
            }
        }
    }

    pub fn big_infos(&self) -> [Option<BigInfo>; 3] {
        let big = self.big.borrow();
        [0, 1, 2].map(|i| big[i].as_deref().map(BigInfo::of))
    }

    pub fn input(&self) -> Input {
        let mode = self.mode.get();
        let text = |field: Field, used: bool| {
            if used {
                self.text(field)
            } else {
                String::new()
            }
        };
        Input {
            mode,
            git: text(Field::Git, mode == Mode::Sides),
            live: text(Field::Live, mode == Mode::Sides),
            diff: text(Field::Diff, mode == Mode::Diff),
            settings: self.text(Field::Settings),
            namespace: input_value(&self.namespace),
            strategy: select_value(&self.strategy),
            ignore_aggregated_roles: input_checked(&self.aggregated),
            include_hidden: self.include_hidden.get(),
        }
    }

    /// Show `input` in the fields (a restored link, a reload, an example).
    pub fn apply(&self, input: &Input) {
        self.mode.set(input.mode);
        self.set_text(Field::Git, input.git.clone());
        self.set_text(Field::Live, input.live.clone());
        self.set_text(Field::Diff, input.diff.clone());
        self.set_text(Field::Settings, input.settings.clone());
        if let Some(i) = self.namespace.cast::<web_sys::HtmlInputElement>() {
            i.set_value(&input.namespace);
        }
        set_select_value(&self.strategy, &input.strategy);
        if let Some(i) = self.aggregated.cast::<web_sys::HtmlInputElement>() {
            i.set_checked(input.ignore_aggregated_roles);
        }
        set_select_value(&self.example, "");
    }

    pub fn load_example(&self, name: &str) -> bool {
        let Some(ex) = examples::find(name) else {
            return false;
        };
        self.apply(&Input::sides(ex.git, ex.live));
        set_select_value(&self.example, name);
        true
    }
}
