//! The page's state and its one reducer. Pure: actions carry everything they
//! need (answers from the worker, what the text fields hold, the page's URL),
//! and whatever acts on the world (the worker, the fields, the clipboard)
//! lives in `controller` and in the components' effects.

use super::client::Answer;
use super::drawing::{Drawing, ListKey, PlanDrawing, NEW_CARDS_PER_TASK};
use super::editor::BigInfo;
use super::inputs::Field;
use super::protocol::{
    out_of_sync_first, ErrorInfo, Help, Input, Line, Mode, PlanRest, ReportWindow, ResourceLine, Response, RuleDoc,
};
use super::util::plural;
use crate::{Cause, Report, ResourceReport};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use yew::{AttrValue, Reducible, UseReducerHandle};

use super::protocol::PAGE_SIZE;
/// Reports with at most this many out-of-sync resources open their cards.
pub const OPEN_CARDS_UP_TO: usize = 10;

/// A value compared by identity, for cheap `Properties` comparisons.
#[derive(Debug)]
pub struct Shared<T>(pub Rc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Default> Default for Shared<T> {
    fn default() -> Self {
        Shared(Rc::new(T::default()))
    }
}

/// The side-by-side YAML of one resource.
#[derive(Debug, Clone, PartialEq)]
pub enum DiffState {
    Loading,
    /// The lines, and where they come from when not the two YAML texts.
    Ready(Shared<Vec<Line>>, String),
    Unavailable(String),
}

/// A report as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub seq: u32,
    /// The report without its resources (they are in `lines` and `details`).
    pub report: Shared<Report>,
    /// A line per resource, in report order.
    pub lines: Shared<Vec<ResourceLine>>,
    /// The resources received in full, by their place in `lines`: those
    /// listed first come with the report, the others when listed.
    pub details: Shared<HashMap<usize, Shared<ResourceReport>>>,
    /// Resource indices, out-of-sync first, then in report order.
    pub order: Shared<Vec<usize>>,
    pub worker_ms: f64,
    /// What a second worker did for this analysis.
    pub helped: Help,
    pub total_ms: Option<f64>,
    /// Made when the page was built (`first_report`): the worker's own
    /// analysis of the same input is still to come.
    pub built: bool,
    /// The example the fields held, unedited, when it was asked for.
    pub example: Option<&'static str>,
    /// The example whose sides the fields held when it was asked for.
    pub from_example: Option<ExampleSides>,
    /// The diff strategy compared with (`Strategy::id`; empty for diff output).
    pub strategy: String,
    /// The whole plan when `report`'s plan lists are cut to their first
    /// entries.
    pub plan_rest: Option<Shared<PlanRest>>,
    /// The resources that came with the report, not read yet: more than a
    /// drawing step's cards are read in a step of their own, after the
    /// report's frame (`Action::ReadFirst`).
    pub unread: Option<Shared<Unread>>,
}

/// Resources received in full and not read yet: their places and their
/// JSON texts.
#[derive(Debug)]
pub struct Unread {
    pub indices: Vec<usize>,
    pub json: Vec<String>,
}

impl Shown {
    /// What the report was computed from, for a note that it is not the
    /// answer for what the editors hold now.
    pub fn source(&self) -> String {
        let from = self.from_example.and_then(|s| Some((super::examples::find(s.name)?, s)));
        match from {
            Some((e, ExampleSides { git: true, live: true, .. })) => {
                format!("the example “{}”", e.title)
            }
            Some((e, ExampleSides { git: false, live: true, .. })) => {
                format!("your Git side with the live side of the example “{}”", e.title)
            }
            Some((e, ExampleSides { git: true, live: false, .. })) => {
                format!("the Git side of the example “{}” with your live side", e.title)
            }
            _ => "an earlier input".into(),
        }
    }

    /// The places of `indices` not received in full yet (those received
    /// and not read yet are not missing).
    pub fn missing(&self, indices: &[usize]) -> Vec<usize> {
        let unread: &[usize] = self.unread.as_ref().map_or(&[], |u| &u.indices);
        indices
            .iter()
            .copied()
            .filter(|i| !self.details.contains_key(i) && !unread.contains(i))
            .collect()
    }

    /// Read the resources that came with the report. Unreadable, they are
    /// dropped: they are then missing, and asked for again.
    fn read_unread(&mut self) {
        let Some(unread) = self.unread.take() else {
            return;
        };
        let list: Result<Vec<_>, String> = unread
            .indices
            .iter()
            .zip(&unread.json)
            .map(|(&i, json)| Ok((i, read_resource(json)?)))
            .collect();
        if let Ok(list) = list {
            self.add_details(list);
        }
    }

    /// Keep resources received in full, by their places.
    fn add_details(&mut self, list: Vec<(usize, ResourceReport)>) {
        let mut details = (*self.details.0).clone();
        for (i, r) in list {
            if i < self.lines.len() {
                details.insert(i, Shared(Rc::new(r)));
            }
        }
        self.details = Shared(Rc::new(details));
    }
}

/// The example loaded last and which of its two sides the fields still
/// hold unedited: a report names what it was computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExampleSides {
    pub name: &'static str,
    pub git: bool,
    pub live: bool,
}

/// The analysis or the rule catalogue (`#rules`, `#rule-CODE`).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum View {
    #[default]
    Analysis,
    Rules(Option<AttrValue>),
}

/// A message about the page itself (an opened link, a loaded example).
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub error: bool,
    pub text: String,
    /// Offer "Undo" (the state before is in `PageState::undo`).
    pub undo: bool,
}

impl Notice {
    pub fn info(text: impl Into<String>) -> Notice {
        Notice {
            error: false,
            text: text.into(),
            undo: false,
        }
    }

    pub fn error(text: impl Into<String>) -> Notice {
        Notice {
            error: true,
            text: text.into(),
            undo: false,
        }
    }
}

/// What the fields held before an example was loaded or Clear was pressed.
#[derive(Debug, Clone, PartialEq)]
pub struct Undo {
    pub input: Shared<Input>,
    pub example: Option<&'static str>,
}

/// What a link's sender saw besides the input: restored with it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SenderView {
    pub filter: Option<Cause>,
    pub show_hidden: bool,
    pub selected: Option<String>,
}

/// New text in the fields (an example, a link, a share file, a reload, Undo).
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub mode: Mode,
    pub big: [Option<BigInfo>; 3],
    pub example: Option<&'static str>,
    pub undo: Option<Undo>,
    pub notice: Option<Notice>,
    pub sender: Option<SenderView>,
}

/// Why the page asked the worker to encode its state.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum ShareFor {
    #[default]
    Link,
    Markdown,
}

/// What "Copy link" produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareView {
    /// The share fragment (without `#`).
    pub fragment: String,
    /// The page's own address (the base of the link).
    pub page_base: String,
    /// Another address to put before the fragment (a served page, when this
    /// one is a file on disk).
    pub other_base: String,
    /// The share file's text, when the fragment is too long for a link.
    pub file: Option<String>,
    pub masked: usize,
    pub copied: Option<bool>,
    /// Counts the links made, so that a new one is told from the last.
    pub serial: u32,
}

impl ShareView {
    /// The page is a file on this computer: its links open nowhere else.
    pub fn local_file(&self) -> bool {
        self.page_base.starts_with("file:")
    }

    /// The link to show, when the state fits in one.
    pub fn url(&self) -> Option<String> {
        if self.file.is_some() {
            return None;
        }
        let other = self.other_base.trim();
        let base = if self.local_file() && !other.is_empty() {
            other.split('#').next().unwrap_or_default()
        } else {
            &self.page_base
        };
        Some(format!("{base}#{}", self.fragment))
    }
}

/// Why no analysis ran: the fields lack a side (the page waits quietly
/// until the user pastes it or asks for an analysis).
#[derive(Debug, Clone, PartialEq)]
pub enum Waiting {
    /// Nothing to analyse at all.
    Nothing,
    /// These fields are empty.
    For(Vec<Field>),
}

/// The page's state as the panels read it: no way to change it (they ask
/// through their callbacks instead).
#[derive(Clone, PartialEq)]
pub struct PageView(pub UseReducerHandle<PageState>);

impl std::ops::Deref for PageView {
    type Target = PageState;

    fn deref(&self) -> &PageState {
        &self.0
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PageState {
    pub view: View,
    // The inputs.
    pub mode: Mode,
    /// The text looked like diff output, so the page switched to diff mode.
    pub mode_note: bool,
    /// Sides held outside their textarea because they are large.
    pub big: [Option<BigInfo>; 3],
    /// The example the fields hold, unedited.
    pub example: Option<&'static str>,
    // Analyses.
    /// `example` when analysis `latest` was asked for: what its report is of.
    pub asked_example: Option<&'static str>,
    /// The example whose sides (some or both) the fields hold unedited.
    pub example_sides: Option<ExampleSides>,
    /// `example_sides` when analysis `latest` was asked for (none in diff mode).
    pub asked_sides: Option<ExampleSides>,
    /// The newest analysis asked for, and whether the user asked explicitly.
    pub latest: u32,
    pub explicit: bool,
    /// The newest analysis answered (with a report, an error or a wait).
    pub answered: u32,
    /// The last good report (kept, marked stale, while the input has an error).
    pub shown: Option<Shown>,
    /// The input error of the newest analysis, if any.
    pub error: Option<ErrorInfo>,
    pub waiting: Option<Waiting>,
    // The report's view.
    pub page: usize,
    pub show_hidden: bool,
    pub filter: Option<Cause>,
    pub diffs: Shared<HashMap<String, DiffState>>,
    /// The rule catalogue's documentation (from the worker), or why not.
    pub rules: Option<Result<Shared<Vec<RuleDoc>>, String>>,
    /// The check of the Git side before it ships (`drift-doctor check`'s
    /// JSON report), or why it could not run; `None` until asked.
    pub check: Option<Result<Shared<serde_json::Value>, String>>,
    /// A check has been asked and not answered yet.
    pub checking: bool,
    /// The rules' titles that came with the first report, for the cards
    /// until `rules` arrives.
    pub rule_titles: Option<Shared<Vec<RuleDoc>>>,
    /// The resource the user last opened (a share link carries it).
    pub selected: Option<String>,
    /// Bring `selected` into view once the next report is shown (after a
    /// link or share file was opened).
    pub reveal: bool,
    // Messages and sharing.
    pub notice: Option<Notice>,
    pub undo: Option<Undo>,
    /// The user's own input, kept when an example or Clear replaced it:
    /// examples never overwrite it, and the menu's "your own input" brings
    /// it back.
    pub own: Option<Undo>,
    pub share: Option<ShareView>,
    pub share_for: ShareFor,
    pub markdown_copied: Option<bool>,
    /// What the polite live region says (counts after an analysis or a filter).
    pub announcement: String,
    /// The listed page's cards still being drawn, a few per task.
    pub drawing: Option<Drawing>,
    /// The shown report's plan entries still being drawn, a few per task
    /// before its cards.
    pub plan_drawing: Option<PlanDrawing>,
}

impl PageState {
    pub fn busy(&self) -> bool {
        self.latest != self.answered
    }

    /// The report shown was computed from other inputs than the ones of
    /// the newest analysis, which ended in an error: it is not the answer
    /// for what the editors hold.
    pub fn stale(&self) -> bool {
        self.error.is_some() && self.shown.as_ref().is_some_and(|s| s.seq != self.answered)
    }

    /// `busy`, `error`, `ready` or `empty` (the report's `data-state`): a
    /// report is ready once its plan and all the cards of its page are read
    /// and drawn.
    pub fn status(&self) -> &'static str {
        if self.busy() {
            "busy"
        } else if self.error.is_some() {
            "error"
        } else if self.shown.is_some() {
            if self.drawing.is_some()
                || self.plan_drawing.is_some()
                || self.shown.as_ref().is_some_and(|s| s.unread.is_some())
            {
                "busy"
            } else {
                "ready"
            }
        } else {
            "empty"
        }
    }

    /// The page of the list shown: (page, pages, first, end) of the listed
    /// resources.
    pub fn window(&self, listed: usize) -> (usize, usize, usize, usize) {
        let pages = listed.div_ceil(PAGE_SIZE).max(1);
        let page = self.page.min(pages - 1);
        let start = page * PAGE_SIZE;
        (page, pages, start, (start + PAGE_SIZE).min(listed))
    }

    /// The places of the resources on the page of the list shown.
    pub fn listed_window(&self) -> Vec<usize> {
        let listed = self.listed();
        let (_, _, start, end) = self.window(listed.len());
        listed[start..end].to_vec()
    }

    /// Whether the card of resource `id` (on the listed page) is drawn.
    pub fn draws(&self, id: &str) -> bool {
        self.drawing.as_ref().is_none_or(|d| d.draws(id))
    }

    fn list_key(&self) -> Option<ListKey> {
        let shown = self.shown.as_ref()?;
        Some((shown.seq, self.window(self.listed().len()).0, self.filter))
    }

    /// The listed page's resources received in full (the others show a
    /// placeholder until they arrive), in list order, and whether each is
    /// drawn as a card.
    fn received_cards(&self) -> Vec<(String, bool)> {
        let Some(shown) = &self.shown else {
            return Vec::new();
        };
        self.listed_window()
            .into_iter()
            .filter(|i| shown.details.contains_key(i))
            .map(|i| {
                let id = shown.lines[i].id.clone();
                let drawn = self.draws(&id);
                (id, drawn)
            })
            .collect()
    }

    /// Whether the listed page and its cards can differ from `other`'s:
    /// most actions (typing, notices, counting a paste) touch neither.
    fn same_list(&self, other: &PageState) -> bool {
        let same_shown = match (&self.shown, &other.shown) {
            (Some(a), Some(b)) => a.seq == b.seq && a.order == b.order && a.details == b.details,
            (None, None) => true,
            _ => false,
        };
        same_shown && self.page == other.page && self.filter == other.filter
    }

    /// After an action: when the listed page changed, or more of its cards
    /// arrived, draw the new ones in steps, keeping the cards drawn before.
    fn redraw_after(mut self, before: &PageState) -> Self {
        if self.same_list(before) {
            return self;
        }
        let key = self.list_key();
        let received = self.received_cards();
        let before_cards = before.received_cards();
        if key == before.list_key() && received.len() == before_cards.len() {
            return self;
        }
        let was: std::collections::HashSet<String> = before_cards
            .into_iter()
            .filter_map(|(id, drawn)| drawn.then_some(id))
            .collect();
        let ids: Vec<&str> = received.iter().map(|(id, _)| id.as_str()).collect();
        self.drawing = key.and_then(|key| Drawing::start(key, &ids, |id| was.contains(id)));
        self
    }

    /// The next step of drawing the listed page `key`.
    fn draw_more(self: Rc<Self>, key: ListKey) -> Rc<Self> {
        let Some(drawing) = self.drawing.as_ref().filter(|d| d.key == key) else {
            return self;
        };
        let received = self.received_cards();
        let ids: Vec<&str> = received.iter().map(|(id, _)| id.as_str()).collect();
        let mut next = (*self).clone();
        next.drawing = drawing.more(&ids);
        Rc::new(next)
    }

    /// The next step of drawing the plan of report `seq`.
    fn draw_plan(self: Rc<Self>, seq: u32) -> Rc<Self> {
        let (Some(drawing), Some(shown)) = (self.plan_drawing, &self.shown) else {
            return self;
        };
        let Some(plan) = shown.report.plan.as_ref().filter(|_| drawing.seq == seq) else {
            return self;
        };
        let mut next = (*self).clone();
        next.plan_drawing = drawing.more(plan);
        Rc::new(next)
    }

    /// An error that belongs to no field.
    pub fn general_error(&self) -> Option<&ErrorInfo> {
        self.error
            .as_ref()
            .filter(|e| !Field::ALL.iter().any(|f| f.error_side() == e.side))
    }

    /// The resources to list, in order, after the cause filter.
    pub fn listed(&self) -> Vec<usize> {
        let Some(shown) = &self.shown else {
            return Vec::new();
        };
        listed(shown, self.filter)
    }

    /// The rule catalogue, or until it arrives the rules' titles.
    pub fn rule_docs(&self) -> Option<Shared<Vec<RuleDoc>>> {
        self.rules
            .clone()
            .and_then(Result::ok)
            .or_else(|| self.rule_titles.clone())
    }
}

fn listed(shown: &Shown, filter: Option<Cause>) -> Vec<usize> {
    match filter {
        None => shown.order.to_vec(),
        Some(cause) => shown
            .order
            .iter()
            .copied()
            .filter(|&i| shown.lines[i].causes.contains(&cause))
            .collect(),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Analyse what the fields hold now (`explicit`: the user asked).
    Analyze {
        explicit: bool,
    },
    /// The fields lack a side: analysis `seq` waits for it (or, `asked`,
    /// says what is missing).
    Wait {
        seq: u32,
        waiting: Waiting,
        asked: bool,
    },
    Answer(Answer),
    /// The report made when the page was built, for the analysis just asked
    /// for (the worker's answer follows and replaces it).
    FirstReport(Box<super::first_report::FirstReport>),
    /// A problem found on this side of the worker (e.g. an unreadable file).
    LocalError(ErrorInfo),
    /// The user edited a field (`None`: only how a field is shown changed).
    Edited {
        big: [Option<BigInfo>; 3],
        field: Option<Field>,
    },
    /// The size of a large pasted text has been counted.
    Measured {
        big: [Option<BigInfo>; 3],
    },
    /// New text in the fields; analysed at once.
    Loaded(Box<Loaded>),
    /// Keep this as the user's own input (an example or Clear replaces it).
    KeepOwn(Undo),
    /// The fields were wiped (answers still on their way are dropped).
    Cleared {
        big: [Option<BigInfo>; 3],
        undo: Option<Undo>,
    },
    /// Switch between both sides and diff output; `note`: the page did it.
    SetMode {
        mode: Mode,
        note: bool,
        big: [Option<BigInfo>; 3],
    },
    View(View),
    Notice(Option<Notice>),
    Page(usize),
    ShowHidden(bool),
    Filter(Option<Cause>),
    DiffRequested(String),
    /// The user opened this resource's card or YAML.
    Select(String),
    /// The selected card is in view now.
    Revealed,
    /// A check of the Git side was asked.
    Checking,
    /// Its report (JSON), or why it could not run.
    Checked(Result<Shared<serde_json::Value>, String>),
    /// The check's panel was closed.
    CheckClosed,
    /// The share panel was closed.
    ShareClosed,
    ShareRequested(ShareFor),
    /// The worker encoded the state; `page_base`: the page's URL without fragment.
    Shared {
        shared: super::protocol::Shared,
        page_base: String,
    },
    LinkCopied {
        serial: u32,
        ok: bool,
    },
    MarkdownCopied(bool),
    /// Another base address for the link (a file page's links).
    OtherBase(String),
    /// "Copied." has been on screen long enough.
    CopiedShown,
    /// Draw the next few cards of the listed page.
    DrawMore(ListKey),
    /// Draw the next few plan entries of report `seq`.
    DrawPlan(u32),
    /// Read the resources that came with report `seq` (`Shown::unread`).
    ReadFirst(u32),
}

/// What an analysis the user asked for lacks, as an error under the field.
fn missing_error(waiting: &Waiting) -> ErrorInfo {
    match waiting {
        Waiting::Nothing => ErrorInfo::general(
            "Nothing to analyse: paste Git and live YAML or diff output, load an example, or open a share file.",
        ),
        Waiting::For(fields) => {
            let field = fields.first().copied().unwrap_or(Field::Live);
            let message = format!(
                "{} is empty: paste what “{}” printed.",
                crate::text::sentence_case(field.what()),
                field.command()
            );
            ErrorInfo {
                side: field.error_side().to_string(),
                document: 0,
                line: 0,
                column: 0,
                text: message.clone(),
                message,
            }
        }
    }
}

/// One resource received in full.
fn read_resource(json: &str) -> Result<ResourceReport, String> {
    serde_json::from_str(json).map_err(|e| format!("could not read the report: {e}"))
}

/// Resources received in full, with their places.
fn received(indices: Vec<usize>, json: &str) -> Result<Vec<(usize, ResourceReport)>, String> {
    let resources: Vec<ResourceReport> =
        serde_json::from_str(json).map_err(|e| format!("could not read the report: {e}"))?;
    if resources.len() != indices.len() {
        return Err(format!(
            "could not read the report: {} resources for {} places",
            resources.len(),
            indices.len()
        ));
    }
    Ok(indices.into_iter().zip(resources).collect())
}

/// The counts a screen reader hears after an analysis.
fn report_announcement(report: &Report) -> String {
    let s = &report.summary;
    let mut text = format!(
        "Report: {}, {} out of sync, {} synced",
        plural(s.resources, "resource", "resources"),
        s.out_of_sync,
        s.synced
    );
    if s.skipped > 0 {
        text.push_str(&format!(", {} skipped", s.skipped));
    }
    let counted: usize = s.causes.values().sum();
    text.push_str(&format!(
        "; {}.",
        plural(counted, "difference", "differences")
    ));
    text
}

fn filter_announcement(state: &PageState) -> String {
    let n = state.listed().len();
    match state.filter {
        Some(c) => format!(
            "Showing {} with {} differences.",
            plural(n, "resource", "resources"),
            c.label()
        ),
        None => format!("Showing all {}.", plural(n, "resource", "resources")),
    }
}

impl PageState {
    fn request(&mut self, explicit: bool) {
        self.latest += 1;
        self.explicit = explicit;
        self.asked_example = self.example;
        self.asked_sides = self.example_sides.filter(|_| self.mode == Mode::Sides);
    }

    fn report_arrived(
        &mut self,
        seq: u32,
        window: ReportWindow,
        worker_ms: f64,
        helped: Help,
        total_ms: Option<f64>,
        built: bool,
    ) -> Result<(), String> {
        let report: Report = serde_json::from_str(&window.report)
            .map_err(|e| format!("could not read the report: {e}"))?;
        if window.first.len() != window.first_json.len() {
            return Err(format!(
                "could not read the report: {} resources for {} places",
                window.first_json.len(),
                window.first.len()
            ));
        }
        // The resources whose cards the page has drawn are read now, so
        // those cards stay; more new ones than a drawing step's are read in
        // a step after the report's frame (190 KB of JSON for a page of 50
        // large ones), as none of them would be drawn in it.
        let drawn: HashSet<String> = self
            .received_cards()
            .into_iter()
            .filter_map(|(id, drawn)| drawn.then_some(id))
            .collect();
        let (now, later): (Vec<_>, Vec<_>) = window
            .first
            .into_iter()
            .zip(window.first_json)
            .filter(|(i, _)| *i < window.lines.len())
            .partition(|(i, _)| drawn.contains(&window.lines[*i].id));
        let (now, later) = if later.len() > NEW_CARDS_PER_TASK {
            (now, later)
        } else {
            (now.into_iter().chain(later).collect(), Vec::new())
        };
        let details: HashMap<usize, Shared<ResourceReport>> = now
            .into_iter()
            .map(|(i, json)| Ok((i, Shared(Rc::new(read_resource(&json)?)))))
            .collect::<Result<_, String>>()?;
        let unread = (!later.is_empty()).then(|| {
            let (indices, json) = later.into_iter().unzip();
            Shared(Rc::new(Unread { indices, json }))
        });
        let order = out_of_sync_first(&window.lines);
        let strategy = window.strategy;
        let plan_rest = window.plan_rest.map(|rest| Shared(Rc::new(rest)));
        let announcement = report_announcement(&report);
        let shown = Shown {
            seq,
            report: Shared(Rc::new(report)),
            lines: Shared(Rc::new(window.lines)),
            details: Shared(Rc::new(details)),
            order: Shared(Rc::new(order)),
            worker_ms,
            helped,
            total_ms,
            built,
            example: self.asked_example,
            from_example: self.asked_sides,
            strategy,
            plan_rest,
            unread,
        };
        // The worker's answer for the input of a report made when the page
        // was built is the same report: the reader stays where they were.
        let same_report = self.shown.as_ref().is_some_and(|s| s.built && s.seq == seq);
        self.error = None;
        self.waiting = None;
        if !same_report {
            self.page = 0;
            self.diffs = Shared::default();
            // A plan the page shows whole already stays drawn (the same
            // input analysed again).
            let drawn_before = self.plan_drawing.is_none()
                && self
                    .shown
                    .as_ref()
                    .is_some_and(|s| s.report.plan == shown.report.plan);
            self.plan_drawing = match &shown.report.plan {
                Some(plan) if !drawn_before => PlanDrawing::start(seq, plan),
                _ => None,
            };
        }
        if let Some(c) = self.filter {
            if !shown.report.summary.causes.contains_key(&c) {
                self.filter = None;
            }
        }
        if let (true, Some(id)) = (self.reveal, &self.selected) {
            // The selected card must be listed: keep the filter only if it is.
            let find = |filter| {
                listed(&shown, filter)
                    .iter()
                    .position(|&i| shown.lines[i].id == *id)
            };
            let pos = match find(self.filter) {
                Some(p) => Some(p),
                None => {
                    self.filter = None;
                    find(None)
                }
            };
            if let Some(pos) = pos {
                self.page = pos / PAGE_SIZE;
            }
        }
        self.shown = Some(shown);
        self.announcement = match self.filter {
            Some(_) => format!("{} {}", announcement, filter_announcement(self)),
            None => announcement,
        };
        Ok(())
    }
}

impl Reducible for PageState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match action {
            Action::DrawMore(key) => return self.draw_more(key),
            Action::DrawPlan(seq) => return self.draw_plan(seq),
            _ => {}
        }
        let before = self.clone();
        let next = self.apply(action);
        if Rc::ptr_eq(&before, &next) {
            return next;
        }
        Rc::new(Rc::unwrap_or_clone(next).redraw_after(&before))
    }
}

impl PageState {
    fn apply(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Analyze { explicit } => next.request(explicit),
            Action::Wait {
                seq,
                waiting,
                asked,
            } => {
                if seq != self.latest {
                    return self;
                }
                next.answered = seq;
                if asked {
                    let e = missing_error(&waiting);
                    next.announcement = e.text.clone();
                    next.error = Some(e);
                    next.waiting = None;
                    return Rc::new(next);
                }
                next.shown = None;
                next.error = None;
                next.diffs = Shared::default();
                next.announcement = match &waiting {
                    Waiting::Nothing => "Nothing to analyse.".into(),
                    Waiting::For(fields) => format!(
                        "Waiting for {}.",
                        fields
                            .iter()
                            .map(|f| f.what())
                            .collect::<Vec<_>>()
                            .join(" and ")
                    ),
                };
                next.waiting = Some(waiting);
            }
            Action::Answer(Answer {
                response: Response::Rules { texts: true, docs },
                ..
            }) => {
                next.rules = Some(docs.map(|r| Shared(Rc::new(r))));
            }
            // The titles for the cards; the Rules tab asks for the rest.
            Action::Answer(Answer {
                response:
                    Response::Rules {
                        texts: false,
                        docs,
                    },
                ..
            }) => match docs {
                Ok(titles) => next.rule_titles = Some(Shared(Rc::new(titles))),
                Err(_) => return self,
            },
            Action::Answer(Answer { response, total_ms }) => match response {
                Response::Analyzed {
                    seq,
                    outcome,
                    millis,
                    helped,
                } => {
                    if seq != self.latest {
                        return self;
                    }
                    next.answered = seq;
                    let shown = outcome.and_then(|window| {
                        next.report_arrived(seq, window, millis, helped, total_ms, false)
                            .map_err(ErrorInfo::general)
                    });
                    match shown {
                        Ok(()) => {}
                        Err(e) => {
                            next.announcement = format!("The input has an error: {}", e.text);
                            next.waiting = None;
                            next.error = Some(e);
                        }
                    }
                }
                Response::Texts {
                    seq,
                    id,
                    lines,
                    note,
                } => {
                    if self.shown.as_ref().map(|s| s.seq) != Some(seq) {
                        return self;
                    }
                    let state = match lines {
                        Some(lines) => DiffState::Ready(Shared(Rc::new(lines)), note),
                        None => DiffState::Unavailable(note),
                    };
                    let mut diffs = (*self.diffs.0).clone();
                    diffs.insert(id, state);
                    next.diffs = Shared(Rc::new(diffs));
                }
                Response::Resources { seq, indices, json } => {
                    let Some(shown) = next.shown.as_mut().filter(|s| s.seq == seq) else {
                        return self;
                    };
                    // A stale or unreadable answer leaves the cards waiting:
                    // the next listing asks again.
                    let Ok(list) = received(indices, &json) else {
                        return self;
                    };
                    shown.add_details(list);
                }
                Response::Rules { .. }
                | Response::Exported { .. }
                | Response::Shared(_)
                | Response::Restored(_)
                | Response::WarmedUp
                | Response::Checked { .. }
                | Response::ParsedUnits { .. } => return self,
            },
            Action::FirstReport(first) => {
                // Only while the first analysis is with the worker.
                if !self.busy() || self.shown.is_some() || self.error.is_some() {
                    return self;
                }
                let first = *first;
                if next
                    .report_arrived(self.latest, first.window, 0.0, Help::default(), None, true)
                    .is_err()
                {
                    return self;
                }
                next.rule_titles = Some(Shared(Rc::new(first.rule_titles)));
            }
            Action::LocalError(e) => next.error = Some(e),
            Action::Measured { big } => next.big = big,
            Action::Edited { big, field } => {
                next.big = big;
                next.example = None;
                if let Some(sides) = &mut next.example_sides {
                    match field {
                        Some(Field::Git) => sides.git = false,
                        Some(Field::Live) => sides.live = false,
                        _ => {}
                    }
                    if !sides.git && !sides.live {
                        next.example_sides = None;
                    }
                }
                // Undo would now also take back what was typed since.
                if self.notice.as_ref().is_some_and(|n| n.undo) {
                    next.notice = None;
                    next.undo = None;
                }
            }
            Action::Loaded(loaded) => {
                let Loaded {
                    mode,
                    big,
                    example,
                    undo,
                    notice,
                    sender,
                } = *loaded;
                next.mode = mode;
                next.mode_note = false;
                next.big = big;
                next.example = example;
                next.example_sides = example.map(|name| ExampleSides {
                    name,
                    git: true,
                    live: true,
                });
                next.undo = undo;
                next.notice = notice;
                next.share = None;
                if let Some(s) = sender {
                    next.filter = s.filter;
                    next.show_hidden = s.show_hidden;
                    next.reveal = s.selected.is_some();
                    next.selected = s.selected;
                }
                next.request(false);
            }
            Action::Cleared { big, undo } => {
                let notice = undo.as_ref().map(|_| Notice {
                    error: false,
                    text: "Cleared.".into(),
                    undo: true,
                });
                next = PageState {
                    latest: self.latest + 1,
                    answered: self.latest + 1,
                    rules: self.rules.clone(),
                    rule_titles: self.rule_titles.clone(),
                    own: self.own.clone(),
                    show_hidden: self.show_hidden,
                    view: self.view.clone(),
                    big,
                    undo,
                    notice,
                    announcement: "Cleared: nothing to analyse.".into(),
                    waiting: Some(Waiting::Nothing),
                    ..PageState::default()
                };
            }
            Action::KeepOwn(own) => next.own = Some(own),
            Action::SetMode { mode, note, big } => {
                next.mode = mode;
                next.mode_note = note;
                next.big = big;
                if note {
                    next.example = None;
                    next.example_sides = None;
                }
                next.request(note);
            }
            Action::View(v) => {
                if v == self.view {
                    return self;
                }
                next.view = v;
            }
            Action::Notice(n) => {
                next.notice = n;
                if next.notice.is_none() {
                    next.undo = None;
                }
            }
            Action::Page(p) => {
                if p == self.page {
                    return self;
                }
                next.page = p;
            }
            Action::ShowHidden(on) => {
                next.show_hidden = on;
                // Hidden differences cost a lot to compute on big inputs:
                // analyse again with them only when asked to show them.
                if on {
                    next.request(self.explicit);
                }
            }
            Action::Filter(f) => {
                next.filter = f;
                next.page = 0;
                next.announcement = filter_announcement(&next);
            }
            Action::Select(id) => {
                if self.selected.as_deref() == Some(id.as_str()) {
                    return self;
                }
                next.selected = Some(id);
            }
            Action::Revealed => next.reveal = false,
            Action::Checking => next.checking = true,
            Action::Checked(outcome) => {
                next.checking = false;
                next.check = Some(outcome);
            }
            Action::CheckClosed => {
                next.checking = false;
                next.check = None;
            }
            Action::ShareClosed => next.share = None,
            Action::DiffRequested(id) => {
                let mut diffs = (*self.diffs.0).clone();
                diffs.insert(id, DiffState::Loading);
                next.diffs = Shared(Rc::new(diffs));
            }
            Action::ShareRequested(purpose) => {
                next.share_for = purpose;
                next.markdown_copied = None;
            }
            Action::Shared { shared, page_base } => {
                let too_long = shared.file.is_some();
                next.share = Some(ShareView {
                    fragment: shared.fragment,
                    other_base: self
                        .share
                        .as_ref()
                        .map(|s| s.other_base.clone())
                        .unwrap_or_default(),
                    page_base,
                    file: shared.file,
                    masked: shared.masked,
                    copied: None,
                    serial: self.share.as_ref().map_or(1, |v| v.serial + 1),
                });
                if too_long && self.share_for == ShareFor::Link {
                    next.announcement = "Too large for a link: download the share file.".into();
                }
            }
            Action::LinkCopied { serial, ok } => match &mut next.share {
                Some(s) if s.serial == serial => s.copied = Some(ok),
                _ => return self,
            },
            Action::MarkdownCopied(ok) => next.markdown_copied = Some(ok),
            Action::OtherBase(base) => match &mut next.share {
                Some(s) => {
                    s.other_base = base;
                    s.copied = None;
                }
                None => return self,
            },
            Action::ReadFirst(seq) => match &mut next.shown {
                Some(shown) if shown.seq == seq && shown.unread.is_some() => shown.read_unread(),
                _ => return self,
            },
            Action::DrawMore(_) | Action::DrawPlan(_) => return self,
            Action::CopiedShown => {
                // Failures stay: they tell the user to copy by hand.
                if next.markdown_copied == Some(true) {
                    next.markdown_copied = None;
                }
                if let Some(s) = &mut next.share {
                    if s.copied == Some(true) {
                        s.copied = None;
                    }
                }
            }
        }
        Rc::new(next)
    }
}
