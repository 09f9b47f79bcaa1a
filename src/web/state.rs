//! The page's state and its reducer. Pure: actions carry everything they
//! need (answers from the worker, times measured by the caller).

use super::client::Answer;
use super::protocol::{ErrorInfo, Line, Response, RuleDoc};
use drift_doctor::{Cause, Report, ResourceReport, Status};
use std::collections::HashMap;
use std::rc::Rc;
use yew::Reducible;

/// Cards per page of the resource list.
pub const PAGE_SIZE: usize = 50;
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
    /// The report without its resources (they are in `resources`).
    pub report: Shared<Report>,
    pub resources: Shared<Vec<Shared<ResourceReport>>>,
    /// Resource indices, out-of-sync first, then in report order.
    pub order: Shared<Vec<usize>>,
    pub worker_ms: f64,
    pub total_ms: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct AppState {
    /// The newest analysis asked for.
    pub latest: u32,
    /// The newest analysis answered (with a report or an error).
    pub answered: u32,
    /// The last good report (kept, marked stale, while the input has an error).
    pub shown: Option<Shown>,
    /// The input error of the newest analysis, if any.
    pub error: Option<ErrorInfo>,
    pub page: usize,
    pub show_hidden: bool,
    pub filter: Option<Cause>,
    pub diffs: Shared<HashMap<String, DiffState>>,
    /// The rule catalogue's documentation (from the worker), or why not.
    pub rules: Option<Result<Shared<Vec<RuleDoc>>, String>>,
    /// The resource the user last opened (a share link carries it).
    pub selected: Option<String>,
    /// Bring `selected` into view once the next report is shown (after a
    /// link or share file was opened).
    pub reveal: bool,
}

impl Default for Shared<HashMap<String, DiffState>> {
    fn default() -> Self {
        Shared(Rc::new(HashMap::new()))
    }
}

impl AppState {
    /// A rule's title, once the catalogue has arrived.
    pub fn rule_title(&self, code: &str) -> Option<String> {
        let rules = self.rules.as_ref()?.as_ref().ok()?;
        rules
            .iter()
            .find(|r| r.code == code)
            .map(|r| r.title.clone())
    }

    pub fn busy(&self) -> bool {
        self.latest != self.answered
    }

    /// Whether the shown report is older than the input.
    pub fn stale(&self) -> bool {
        self.shown.as_ref().is_some_and(|s| s.seq != self.latest)
    }

    /// The resources to list, in order, after the cause filter.
    pub fn listed(&self) -> Vec<usize> {
        let Some(shown) = &self.shown else {
            return Vec::new();
        };
        match self.filter {
            None => shown.order.to_vec(),
            Some(cause) => shown
                .order
                .iter()
                .copied()
                .filter(|&i| {
                    shown.resources[i]
                        .differences
                        .iter()
                        .any(|d| d.visible && d.cause == cause)
                })
                .collect(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// An analysis was asked for.
    Requested(u32),
    Answer(Answer),
    /// A problem found on this side of the worker (e.g. an unreadable file).
    LocalError(ErrorInfo),
    Page(usize),
    ShowHidden(bool),
    Filter(Option<Cause>),
    DiffRequested(String),
    /// The user opened this resource's card or YAML.
    Select(String),
    /// A link or share file was opened: select this resource in its report.
    Reveal(Option<String>),
    /// The selected card is in view now.
    Revealed,
    /// The inputs were wiped; `seq` is newer than every request sent, so
    /// answers still on their way are dropped.
    Cleared(u32),
}

fn out_of_sync_first(resources: &[Shared<ResourceReport>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..resources.len()).collect();
    order.sort_by_key(|&i| resources[i].status != Status::OutOfSync);
    order
}

impl Shown {
    /// The whole report again (for "Copy as Markdown").
    pub fn full_report(&self) -> Report {
        let mut r = (*self.report.0).clone();
        r.resources = self.resources.iter().map(|x| (*x.0).clone()).collect();
        r
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Requested(seq) => {
                next.latest = seq;
            }
            Action::Answer(Answer {
                response: Response::Rules(rules),
                ..
            }) => {
                next.rules = Some(rules.map(|r| Shared(Rc::new(r))));
            }
            Action::Answer(Answer { response, total_ms }) => match response {
                Response::Analyzed {
                    seq,
                    outcome,
                    millis,
                } => {
                    if seq != self.latest {
                        return self;
                    }
                    next.answered = seq;
                    match outcome.and_then(|json| {
                        serde_json::from_str::<Report>(&json).map_err(|e| {
                            ErrorInfo::general(format!("could not read the report: {e}"))
                        })
                    }) {
                        Ok(mut report) => {
                            let resources: Vec<Shared<ResourceReport>> =
                                std::mem::take(&mut report.resources)
                                    .into_iter()
                                    .map(|r| Shared(Rc::new(r)))
                                    .collect();
                            let order = out_of_sync_first(&resources);
                            next.shown = Some(Shown {
                                seq,
                                report: Shared(Rc::new(report)),
                                resources: Shared(Rc::new(resources)),
                                order: Shared(Rc::new(order)),
                                worker_ms: millis,
                                total_ms,
                            });
                            next.error = None;
                            next.page = 0;
                            if let (true, Some(id), Some(shown)) =
                                (next.reveal, &next.selected, &next.shown)
                            {
                                if let Some(pos) = shown
                                    .order
                                    .iter()
                                    .position(|&i| shown.resources[i].id == *id)
                                {
                                    next.page = pos / PAGE_SIZE;
                                }
                                next.filter = None;
                            }
                            next.diffs = Shared::default();
                            if let Some(c) = next.filter {
                                let still = next
                                    .shown
                                    .as_ref()
                                    .is_some_and(|s| s.report.summary.causes.contains_key(&c));
                                if !still {
                                    next.filter = None;
                                }
                            }
                        }
                        Err(e) => next.error = Some(e),
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
                Response::Rules(_)
                | Response::Shared(_)
                | Response::Restored(_)
                | Response::WarmedUp => return self,
            },
            Action::LocalError(e) => next.error = Some(e),
            Action::Page(p) => {
                if p == self.page {
                    return self;
                }
                next.page = p;
            }
            Action::ShowHidden(on) => next.show_hidden = on,
            Action::Filter(f) => {
                next.filter = f;
                next.page = 0;
            }
            Action::Select(id) => {
                if self.selected.as_deref() == Some(id.as_str()) {
                    return self;
                }
                next.selected = Some(id);
            }
            Action::Reveal(id) => {
                next.selected = id;
                next.reveal = next.selected.is_some();
            }
            Action::Revealed => next.reveal = false,
            Action::Cleared(seq) => {
                next = AppState {
                    latest: seq,
                    answered: seq,
                    rules: self.rules.clone(),
                    show_hidden: self.show_hidden,
                    ..AppState::default()
                };
            }
            Action::DiffRequested(id) => {
                let mut diffs = (*self.diffs.0).clone();
                diffs.insert(id, DiffState::Loading);
                next.diffs = Shared(Rc::new(diffs));
            }
        }
        Rc::new(next)
    }
}
