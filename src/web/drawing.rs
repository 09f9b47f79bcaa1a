//! Which cards of the listed page are drawn now. Yew builds a card's DOM in
//! the task that renders it (about half a millisecond each), so a report
//! whose fifty cards are all new would hold the page's thread for tens of
//! milliseconds in one go. Cards already on the page stay drawn; new ones are
//! drawn a few per task, in list order. The task that receives a report
//! draws them only when they all fit in one step: otherwise its summary,
//! plan and list are that task's work, and the cards follow in their own
//! (the first large report is also the first use of the page's code: its
//! frame spent 38 to 51 ms in script with ten new cards, 29 to 35 without).

#![warn(missing_docs)]

use crate::sorting::CollectByInsertion;
use crate::Cause;
use std::collections::BTreeSet;
use std::rc::Rc;

/// New cards drawn per task: a first screen's worth.
pub const NEW_CARDS_PER_TASK: usize = 10;

/// Plan entries drawn per task. A plan with more comes without its entries
/// (and its Application fragment) in the task that receives its report, then
/// this many per task, before any card: the first large report's frame held
/// 21 to 37 ms of script and 17 to 35 ms of style, layout and paint, half
/// of its boxes the plan's, and twenty entries on their own still took 21 ms
/// of layout (the first use of their fonts). Ten per task still left a step
/// and the frame that laid it out 8 and 31 ms (13 of layout), back to back
/// with the report's own frame.
pub const PLAN_ENTRIES_PER_TASK: usize = 5;

/// A report's plan entries being drawn, a few per task: how many of them,
/// counted across its lists in the order they are shown, may be drawn so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanDrawing {
    /// The report the plan belongs to.
    pub seq: u32,
    /// The entries that may be drawn so far.
    pub entries: usize,
}

impl PlanDrawing {
    /// How the plan of a newly received report `seq` starts: `None` when
    /// its first entries fit in one step, drawn with the report.
    pub fn start(seq: u32, plan: &crate::Plan) -> Option<Self> {
        (first_entries(plan) > PLAN_ENTRIES_PER_TASK).then_some(PlanDrawing { seq, entries: 0 })
    }

    /// The next step: a few more entries, `None` once all are drawn.
    pub fn more(self, plan: &crate::Plan) -> Option<Self> {
        let entries = self.entries + PLAN_ENTRIES_PER_TASK;
        (entries < first_entries(plan)).then_some(PlanDrawing { entries, ..self })
    }
}

/// The entries the page draws of `plan` as it received it (each list cut to
/// the entries it shows first).
fn first_entries(plan: &crate::Plan) -> usize {
    use crate::web::protocol::{PlanLengths, PLAN_ENTRIES_SHOWN};
    let lengths = PlanLengths::of(plan);
    let drawn = |n: usize| n.min(PLAN_ENTRIES_SHOWN);
    lengths.steps.into_iter().map(drawn).sum::<usize>() + drawn(lengths.left)
}

/// What a page of the list is: the report shown, the page and the filter.
/// A drawing belongs to one; a step asked for another is dropped.
pub type ListKey = (u32, usize, Option<Cause>);

/// A page of the list being drawn: the cards that may be drawn so far.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawing {
    /// The page of the list this drawing is for.
    pub key: ListKey,
    drawn: Rc<BTreeSet<String>>,
}

impl Drawing {
    /// How a newly listed page starts: the cards of `window` (its ids in list
    /// order) that `was_drawn` says are on the page already, and the new
    /// ones too when they fit in one step. `None`: everything is drawn in
    /// this task.
    pub fn start(key: ListKey, window: &[&str], was_drawn: impl Fn(&str) -> bool) -> Option<Self> {
        let mut drawn: BTreeSet<String> = window
            .iter()
            .filter(|id| was_drawn(id))
            .map(|id| id.to_string())
            .collect_by_insertion();
        let new = window.iter().filter(|id| !drawn.contains(**id)).count();
        if new <= NEW_CARDS_PER_TASK {
            Self::add_new(&mut drawn, window);
        }
        Self::unless_complete(key, drawn, window)
    }

    /// The next step of the same page: a few more new cards.
    pub fn more(&self, window: &[&str]) -> Option<Self> {
        let mut drawn = (*self.drawn).clone();
        Self::add_new(&mut drawn, window);
        Self::unless_complete(self.key, drawn, window)
    }

    /// Whether the card of resource `id` is drawn.
    pub fn draws(&self, id: &str) -> bool {
        self.drawn.contains(id)
    }

    /// How many cards may be drawn so far.
    pub fn count(&self) -> usize {
        self.drawn.len()
    }

    fn add_new(drawn: &mut BTreeSet<String>, window: &[&str]) {
        let new: Vec<&str> = window
            .iter()
            .copied()
            .filter(|id| !drawn.contains(*id))
            .take(NEW_CARDS_PER_TASK)
            .collect();
        drawn.extend(new.into_iter().map(str::to_string));
    }

    fn unless_complete(key: ListKey, drawn: BTreeSet<String>, window: &[&str]) -> Option<Self> {
        if window.iter().all(|id| drawn.contains(*id)) {
            return None;
        }
        Some(Drawing {
            key,
            drawn: Rc::new(drawn),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<String> {
        (0..n)
            .map(|i| format!("apps/Deployment/ns/app-{i}"))
            .collect()
    }

    #[test]
    fn a_page_of_new_cards_is_drawn_a_few_at_a_time_in_list_order() {
        let window = ids(25);
        let window: Vec<&str> = window.iter().map(String::as_str).collect();
        let key = (7, 0, None);
        let start = Drawing::start(key, &window, |_| false).expect("25 new cards need steps");
        assert_eq!(start.count(), 0, "none with the report");
        let first = start.more(&window).expect("more steps are left");
        assert_eq!(first.count(), NEW_CARDS_PER_TASK);
        assert!(first.draws(window[0]) && first.draws(window[NEW_CARDS_PER_TASK - 1]));
        assert!(!first.draws(window[NEW_CARDS_PER_TASK]));
        let second = first.more(&window).expect("a third step is left");
        assert_eq!(second.count(), 2 * NEW_CARDS_PER_TASK);
        assert_eq!(second.key, key);
        assert!(
            second.more(&window).is_none(),
            "the last five are drawn in the third step"
        );
    }

    #[test]
    fn cards_already_on_the_page_stay_drawn_and_do_not_count_as_new() {
        let window = ids(30);
        let window: Vec<&str> = window.iter().map(String::as_str).collect();
        // The last twenty were on the page before (say the same resources
        // in the previous report).
        let before: BTreeSet<&str> = window[10..].iter().copied().collect();
        let drawing = Drawing::start((1, 0, None), &window, |id| before.contains(id));
        assert!(
            drawing.is_none(),
            "ten new cards fit in one step with the twenty kept"
        );
        let before: BTreeSet<&str> = window[25..].iter().copied().collect();
        let drawing = Drawing::start((1, 0, None), &window, |id| before.contains(id)).unwrap();
        assert!(window[25..].iter().all(|id| drawing.draws(id)));
        assert_eq!(
            drawing.count(),
            5,
            "25 new cards wait for a step of their own"
        );
        let drawing = drawing.more(&window).unwrap();
        assert!(window[..NEW_CARDS_PER_TASK]
            .iter()
            .all(|id| drawing.draws(id)));
        assert_eq!(drawing.count(), 5 + NEW_CARDS_PER_TASK);
    }

    fn plan(git: usize, drift: usize) -> crate::Plan {
        let step = |i: usize| crate::PlanStep {
            resource: format!("apps/Deployment/ns/app-{i}"),
            title: "Fix in Git".into(),
            snippet: "Remove `spec.replicas`.".into(),
            verified: crate::Verified::Resolves,
        };
        let field = |i: usize| crate::PlanField {
            resource: format!("/ConfigMap/ns/cm-{i}"),
            pointer: "/data/key".into(),
            field: "data.key".into(),
            cause: Cause::Drift,
            note: "A real change.".into(),
            needs_pruning: false,
        };
        crate::Plan {
            verified: crate::Verified::Resolves,
            verification: String::new(),
            application: String::new(),
            git: (0..git).map(step).collect(),
            sync_order: Vec::new(),
            render: Vec::new(),
            later: Vec::new(),
            drift: (0..drift).map(field).collect(),
            unresolved: Vec::new(),
        }
    }

    #[test]
    fn a_long_plan_is_drawn_a_few_entries_at_a_time() {
        let step = PLAN_ENTRIES_PER_TASK;
        assert_eq!(PlanDrawing::start(3, &plan(step, 0)), None);
        assert_eq!(PlanDrawing::start(3, &plan(step - 5, 5)), None);
        assert_eq!(PlanDrawing::start(3, &plan(0, 0)), None);
        let long = plan(step, step);
        let start = PlanDrawing::start(3, &long).expect("more than a step's worth");
        assert_eq!((start.seq, start.entries), (3, 0), "none with the report");
        let first = start.more(&long).expect("a second step");
        assert_eq!(first.entries, step);
        assert_eq!(first.more(&long), None, "the last step draws the rest");
        // Only the entries a list shows first count, however long it is.
        let shown = crate::web::protocol::PLAN_ENTRIES_SHOWN;
        assert_eq!(
            PlanDrawing::start(3, &plan(10 * shown, 0)).is_some(),
            shown > step
        );
        assert_eq!(
            PlanDrawing::start(3, &plan(0, 10 * shown)).is_some(),
            shown > step
        );
        // Counting the whole lists would take ten times the steps.
        let steps = |plan: &crate::Plan| {
            std::iter::successors(PlanDrawing::start(3, plan), |d| d.more(plan)).count()
        };
        assert_eq!(steps(&plan(10 * shown, 0)), shown.div_ceil(step));
        assert_eq!(steps(&plan(0, 10 * shown)), shown.div_ceil(step));
    }

    #[test]
    fn a_short_page_is_drawn_at_once() {
        let window = ids(NEW_CARDS_PER_TASK);
        let window: Vec<&str> = window.iter().map(String::as_str).collect();
        assert!(Drawing::start((1, 0, None), &window, |_| false).is_none());
        assert!(Drawing::start((1, 0, None), &[], |_| false).is_none());
    }
}
