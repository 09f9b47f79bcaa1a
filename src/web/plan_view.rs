//! The plan (every recommended fix together, checked by comparing again,
//! and what is left) and the audit of the user's own ignore rules, shown
//! above the resources so the first screen answers what to do.

use super::fix_view::Snippet;
use super::protocol::{PlanLengths, PlanRest, PLAN_ENTRIES_SHOWN};
use super::state::Shared;
use super::util::{copy_to_clipboard, inline_code, plural, COPIED_SHOWN_MS};
use crate::{AuditKind, Cause, Plan, PlanStep, Report, Verified};
use gloo::timers::callback::Timeout;
use std::rc::Rc;
use yew::prelude::*;

fn verified_text(v: Verified) -> &'static str {
    match v {
        Verified::Resolves => "Resolves",
        Verified::Partial => "Partly resolves",
        Verified::Unverifiable => "Not checkable offline",
    }
}

#[derive(Properties, PartialEq)]
pub struct VerifiedBadgeProps {
    pub verified: Verified,
}

/// What comparing again showed, as a badge (its text is the signal, the
/// colour only repeats it).
#[component]
pub fn VerifiedBadge(props: &VerifiedBadgeProps) -> Html {
    html! {
        <span class={classes!("badge", "verified", format!("verified-{}", props.verified.id()))}
            data-verified={props.verified.id()}>{ verified_text(props.verified) }</span>
    }
}

#[derive(Properties, PartialEq)]
pub struct ReportProps {
    pub report: Shared<Report>,
}

#[derive(Properties, PartialEq)]
pub struct PlanProps {
    pub report: Shared<Report>,
    /// The whole plan, when the report's plan lists are cut to the entries
    /// drawn first.
    #[prop_or_default]
    pub rest: Option<Shared<PlanRest>>,
    /// The most entries drawn, counted across the lists in order, while a
    /// long plan is drawn a few entries per task (`drawing::PlanDrawing`):
    /// the rest of each list waits, and the Application fragment waits for
    /// the first step. `None`: all.
    #[prop_or_default]
    pub entries: Option<usize>,
}

/// The lists of the plan that are drawn in full.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum PlanList {
    /// A group of steps, by its place among `plan::step_groups`.
    Steps(usize),
    /// The fields left after the plan.
    Left,
}

/// How many of `total` entries to draw (a plan list that is drawn whole
/// needs the whole plan read: `read_whole`), and the button that draws the
/// rest. A plan for an app that is missing from the cluster lists every
/// resource, and drawing thousands of entries at once stalls the page for a
/// third of a second; the resources below are paged anyway.
fn capped(
    total: usize,
    list: PlanList,
    all: &UseStateHandle<Vec<PlanList>>,
    read_whole: &Callback<(), Option<Rc<Plan>>>,
) -> (usize, Html) {
    if total <= PLAN_ENTRIES_SHOWN || all.contains(&list) {
        return (total, html! {});
    }
    let onclick = {
        let all = all.clone();
        let read_whole = read_whole.clone();
        Callback::from(move |_: MouseEvent| {
            read_whole.emit(());
            let mut lists = (*all).clone();
            lists.push(list);
            all.set(lists);
        })
    };
    let button = html! {
        <button type="button" class="button small show-all" {onclick}>
            { format!("Show all {total} (the first {PLAN_ENTRIES_SHOWN} are shown)") }
        </button>
    };
    (PLAN_ENTRIES_SHOWN, button)
}

fn steps(title: &str, list: &[PlanStep], total: usize, shown: usize, more: Html) -> Html {
    if list.is_empty() {
        return html! {};
    }
    html! {
        <div class="plan-steps">
            <h4>{ format!("{title} ({total})") }</h4>
            <ul>
                for s in list[..shown.min(list.len())].iter() {
                    <li class="plan-step">
                        <code class="path">{ s.resource.clone() }</code>{ " " }
                        <VerifiedBadge verified={s.verified} />
                        <div class="fix-prose">{ inline_code(&s.snippet) }</div>
                    </li>
                }
            </ul>
            { more }
        </div>
    }
}

/// The plan, with the Application fragment to copy and the whole plan as
/// Markdown for a ticket.
#[component]
pub fn PlanPanel(props: &PlanProps) -> Html {
    let copied = use_state(|| None::<bool>);
    let drawn_in_full = use_state_eq(Vec::<PlanList>::new);
    // The whole plan once read, with the text it was read from: a new
    // report's is read again.
    let whole = use_state(|| None::<(Shared<PlanRest>, Rc<Plan>)>);
    let whole_plan = match (&*whole, &props.rest) {
        (Some((of, plan)), Some(rest)) if of == rest => Some(plan.clone()),
        _ => None,
    };
    let read_whole = {
        let whole = whole.clone();
        let rest = props.rest.clone();
        let known = whole_plan.clone();
        Callback::from(move |()| {
            if known.is_some() {
                return known.clone();
            }
            let rest = rest.as_ref()?;
            // Read as the report reads its plan: one deserializer for both.
            let plan = Rc::new(serde_json::from_str::<Option<Plan>>(&rest.json).ok()??);
            whole.set(Some((rest.clone(), plan.clone())));
            Some(plan)
        })
    };
    {
        // A new report starts with its lists cut again.
        let drawn_in_full = drawn_in_full.clone();
        use_effect_with(props.report.clone(), move |_| drawn_in_full.set(Vec::new()));
    }
    {
        let copied = copied.clone();
        use_effect_with(*copied, move |s| {
            let timer =
                (*s == Some(true)).then(|| Timeout::new(COPIED_SHOWN_MS, move || copied.set(None)));
            move || drop(timer)
        });
    }
    let Some(first) = &props.report.plan else {
        return html! {};
    };
    let plan = whole_plan.as_deref().unwrap_or(first);
    let lengths = match (&whole_plan, &props.rest) {
        (None, Some(rest)) => rest.lengths,
        _ => PlanLengths::of(plan),
    };
    let on_markdown = {
        let copied = copied.clone();
        let report = props.report.clone();
        let read_whole = read_whole.clone();
        // Written when asked for: for a large plan it is long.
        Callback::from(move |_: MouseEvent| {
            let copied = copied.clone();
            let text = match read_whole.emit(()) {
                Some(whole) => crate::render::markdown::render_plan_with(&report, Some(&whole)),
                None => crate::render::markdown::render_plan(&report),
            };
            copy_to_clipboard(text, Callback::from(move |ok| copied.set(Some(ok))));
        })
    };
    let left: Vec<_> = plan.drift.iter().chain(&plan.unresolved).collect();
    // What may be drawn of each list: its share of `props.entries`, and its
    // "Show all" button only once it is drawn as far as it goes.
    let mut budget = props.entries.unwrap_or(usize::MAX);
    let mut within = |(shown, more): (usize, Html)| {
        let drawn = shown.min(budget);
        budget -= drawn;
        (drawn, if drawn == shown { more } else { html! {} })
    };
    let application = !plan.application.is_empty() && props.entries != Some(0);
    let groups: Vec<Html> = crate::plan::step_groups(plan)
        .into_iter()
        .enumerate()
        .map(|(i, (title, list))| {
            let total = lengths.steps[i];
            let (shown, more) = capped(total, PlanList::Steps(i), &drawn_in_full, &read_whole);
            let (shown, more) = within((shown.min(list.len()), more));
            steps(title, list, total, shown, more)
        })
        .collect();
    let (left_shown, more_left) = capped(lengths.left, PlanList::Left, &drawn_in_full, &read_whole);
    let (left_shown, more_left) = within((left_shown.min(left.len()), more_left));
    html! {
        <section id="plan" class="plan" aria-labelledby="plan-h">
            <div class="plan-head">
                <h3 id="plan-h">{ "Plan" }</h3>
                if plan.drift_left() {
                    // The loop ends, yet real drift stays until a sync: no
                    // bare "Resolves".
                    <span class="badge verified verified-drift-left" data-verified="drift-left">
                        { crate::text::sentence_case(plan.outcome()) }</span>
                } else {
                    <VerifiedBadge verified={plan.verified} />
                }
                <button type="button" id="copy-plan-markdown" class="button small" onclick={on_markdown}>{ "Copy the plan as Markdown" }</button>
                <span class="copy-status" role="status">
                    { match *copied { Some(true) => "Copied.", Some(false) => "Could not copy (clipboard unavailable).", None => "" } }
                </span>
            </div>
            <p class="plan-verification">{ plan.verification.clone() }</p>
            if !plan.application.is_empty() {
                <div class="plan-steps">
                    <h4>{ "Add to the Application" }</h4>
                    if application {
                        <Snippet text={AttrValue::from(plan.application.clone())} label="Copy the Application YAML" />
                    }
                </div>
            }
            for group in groups {
                { group }
            }
            if !left.is_empty() {
                <div class="plan-steps">
                    <h4>{ format!("Left after the plan: {}", plural(lengths.left, "field", "fields")) }</h4>
                    <ul>
                        for f in left[..left_shown.min(left.len())].iter() {
                            <li class="plan-left" data-cause={f.cause.id()}>
                                <strong>{ if f.cause == Cause::Drift { "Drift" } else { "Unresolved" } }</strong>{ " " }
                                <code class="path">{ f.resource.clone() }</code>{ " " }
                                <code class="path">{ crate::text::field_label(&f.field).to_string() }</code>{ ": " }
                                { inline_code(&f.note) }
                            </li>
                        }
                    </ul>
                    { more_left }
                </div>
            }
        </section>
    }
}

fn finding_text(k: AuditKind) -> &'static str {
    match k {
        AuditKind::MatchesNothing => "Matches nothing",
        AuditKind::TooBroad => "Too broad",
        AuditKind::Redundant => "Redundant",
    }
}

/// The audit of the rules in "Your Argo CD settings".
#[component]
pub fn AuditPanel(props: &ReportProps) -> Html {
    let audit = &props.report.audit;
    if audit.is_empty() {
        return html! {};
    }
    html! {
        <section id="audit" class="audit" aria-labelledby="audit-h">
            <h3 id="audit-h">{ "Your ignore rules" }</h3>
            <ul class="audit-rules">
                for a in audit.iter() {
                    <li class="audit-rule" data-findings={a.findings.len().to_string()}>
                        <strong>{ a.rule.clone() }</strong>
                        { format!(": hides {}", plural(a.hides, "difference", "differences")) }
                        for f in a.findings.iter() {
                            <p class="audit-finding" data-kind={f.kind.id()}>
                                <span class="badge">{ finding_text(f.kind) }</span>{ " " }{ inline_code(&f.message) }
                            </p>
                        }
                        if let Some(c) = &a.corrected {
                            <p class="muted">{ "Corrected, and checked by comparing again:" }</p>
                            <Snippet text={AttrValue::from(c.clone())} label="Copy the corrected rule" />
                        }
                    </li>
                }
            </ul>
        </section>
    }
}
