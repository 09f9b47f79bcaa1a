//! The report's summary: counts, one bar per cause (a filter button), and
//! the steps to take first ("Stop the loop first" when something loops).

use super::state::Shared;
use super::util::{inline_code, plural_word, width_class};
use crate::{Cause, Report};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CauseBadgeProps {
    pub cause: Cause,
}

/// A cause's label with its colour (the colour is never the only signal).
#[component]
pub fn CauseBadge(props: &CauseBadgeProps) -> Html {
    let id = props.cause.id();
    html! {
        <span class={classes!("badge", "cause", format!("cause-{id}"))} data-cause={id}>{ props.cause.label() }</span>
    }
}

#[derive(Properties, PartialEq)]
pub struct SummaryProps {
    pub report: Shared<Report>,
    /// The title of the example the input is, unedited.
    pub example: Option<AttrValue>,
    /// The diff strategy compared with (`Strategy::id`; empty for diff output).
    pub strategy: AttrValue,
    pub filter: Option<Cause>,
    pub on_filter: Callback<Option<Cause>>,
}

#[component]
pub fn Summary(props: &SummaryProps) -> Html {
    let s = &props.report.summary;
    let max = s.causes.values().copied().max().unwrap_or(0);
    let stat = |n: usize, label: &str, class: &str| {
        html! {
            <div class={classes!("stat", class.to_string())}>
                <span class="stat-n">{ n }</span>
                <span class="stat-l">{ label.to_string() }</span>
            </div>
        }
    };
    let skipped_help = "left out of the comparison, as Argo CD leaves them out: sync hooks, live objects a controller created (Pods, ReplicaSets, objects with an owner), and live objects another Application tracks.";
    html! {
        <section class="summary" aria-labelledby="summary-h" data-testid="summary">
            <h3 id="summary-h" class="visually-hidden">{ "Summary" }</h3>
            if s.application.is_some() || props.example.is_some() {
                <p class="app-name">
                    if let Some(app) = &s.application {
                        { "Application " }<strong>{ app.clone() }</strong>
                    }
                    if let Some(title) = &props.example {
                        <span class="example-name" id="example-name">
                            { if s.application.is_some() { " · " } else { "" } }{ format!("Example: {title}") }
                        </span>
                    }
                </p>
            }
            <div class="stats">
                { stat(s.resources, plural_word(s.resources, "resource", "resources"), "stat-resources") }
                { stat(s.out_of_sync, "out of sync", if s.out_of_sync > 0 { "stat-out" } else { "stat-zero" }) }
                { stat(s.synced, "synced", "stat-synced") }
                if s.skipped > 0 {
                    { stat(s.skipped, "skipped", "stat-skipped") }
                }
            </div>
            if !props.report.argocd_version.is_empty() {
                <p class="compared-as muted" id="compared-as">{ compared_as(&props.report.argocd_version, &props.strategy) }</p>
            }
            if s.skipped > 0 {
                <p class="skipped-note" id="skipped-note"><strong>{ format!("{} skipped: ", s.skipped) }</strong>{ skipped_help }</p>
            }
            if max == 0 {
                <p class="causes-none">{ "No difference that Argo CD counts: everything is Synced." }</p>
            } else {
                <div class="causes-block">
                    <h4 id="causes-h" class="causes-h">{ "Visible differences by cause" }
                        <span class="hint">{ " (choose one to filter the list)" }</span></h4>
                    <ul class="causes" aria-labelledby="causes-h">
                        for cause in Cause::ALL.into_iter().filter(|c| s.causes.get(c).copied().unwrap_or(0) > 0) {
                            { cause_row(cause, s.causes[&cause], max, props) }
                        }
                    </ul>
                </div>
            }
        </section>
    }
}

/// The release and the diff strategy the report compared as, in words.
fn compared_as(release: &str, strategy: &str) -> String {
    let how = match crate::Strategy::from_id(strategy) {
        Some(crate::Strategy::Legacy) => ", with client-side three-way diff (the default)",
        Some(crate::Strategy::ServerSideApply) => ", with server-side apply (ServerSideApply=true)",
        Some(crate::Strategy::ServerSideDiff) => ", with server-side diff",
        None => "",
    };
    format!("Compared as Argo CD {release} does{how}.")
}

fn cause_row(cause: Cause, n: usize, max: usize, props: &SummaryProps) -> Html {
    let pressed = props.filter == Some(cause);
    let onclick = {
        let on_filter = props.on_filter.clone();
        Callback::from(move |_: MouseEvent| {
            on_filter.emit(if pressed { None } else { Some(cause) })
        })
    };
    let id = cause.id();
    html! {
        <li>
            <button type="button" class={classes!("cause-row", pressed.then_some("pressed"))}
                aria-pressed={if pressed { "true" } else { "false" }} data-cause={id} {onclick}>
                <span class={classes!("swatch", format!("cause-{id}"))} aria-hidden="true"></span>
                <span class="cause-label">{ cause.label() }</span>{ " " }
                <span class="bar" aria-hidden="true"><span class={classes!("fill", format!("cause-{id}"), width_class(n, max))}></span></span>
                <span class="cause-count">{ n }</span>
            </button>
        </li>
    }
}

#[derive(Properties, PartialEq)]
pub struct EmergencyProps {
    pub report: Shared<Report>,
}

/// What the analysis could not use (a jq rule skipped after its time
/// budget, a cut-off part of pasted diff output): shown as text.
#[component]
pub fn Warnings(props: &EmergencyProps) -> Html {
    let report = &props.report;
    if report.warnings.is_empty() {
        return html! {};
    }
    html! {
        <section class="warnings" aria-labelledby="warnings-h">
            <h3 id="warnings-h">{ "Not everything could be used" }</h3>
            <ul>
                for warning in report.warnings.iter() {
                    <li>{ inline_code(warning) }</li>
                }
            </ul>
        </section>
    }
}

/// The heading of the steps to take first when something loops.
const STOP_THE_LOOP: &str = "Stop the loop first";

/// What to do before anything else: stop a sync loop (when a cause other
/// than drift keeps changing a field), or check before syncing over drift.
#[component]
pub fn Emergency(props: &EmergencyProps) -> Html {
    let report = &props.report;
    if report.emergency.is_empty() {
        return html! {};
    }
    let loops = report
        .summary
        .causes
        .iter()
        .any(|(c, n)| *c != Cause::Drift && *n > 0);
    let heading = if loops {
        STOP_THE_LOOP
    } else {
        "Before you sync"
    };
    // The heading says it already: the step need not repeat it.
    let step_text = |step: &str| -> String {
        match step
            .strip_prefix(STOP_THE_LOOP)
            .and_then(|rest| rest.strip_prefix(':'))
        {
            Some(rest) => {
                crate::text::sentence_case(rest.trim_start())
            }
            None => step.to_string(),
        }
    };
    html! {
        <section class="emergency" aria-labelledby="emergency-h">
            <h3 id="emergency-h">{ heading }</h3>
            <ol>
                for step in report.emergency.iter().filter(|s| loops || !s.starts_with(STOP_THE_LOOP)) {
                    <li>{ inline_code(&step_text(step)) }</li>
                }
            </ol>
        </section>
    }
}
