//! The report's summary: counts, one bar per cause (a filter button), and
//! the "stop the loop first" steps.

use super::state::Shared;
use super::util::{inline_code, width_class};
use drift_doctor::{Cause, Report};
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
    html! {
        <section class="summary" aria-labelledby="summary-h" data-testid="summary">
            <h3 id="summary-h" class="visually-hidden">{ "Summary" }</h3>
            if let Some(app) = &s.application {
                <p class="app-name">{ "Application " }<strong>{ app.clone() }</strong></p>
            }
            <div class="stats">
                { stat(s.resources, "resources", "stat-resources") }
                { stat(s.out_of_sync, "out of sync", if s.out_of_sync > 0 { "stat-out" } else { "stat-zero" }) }
                { stat(s.synced, "synced", "stat-synced") }
                { stat(s.skipped, "skipped", "stat-skipped") }
            </div>
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
                <span class="cause-label">{ cause.label() }</span>
                <span class="bar" aria-hidden="true"><span class={classes!("fill", format!("cause-{id}"), width_class(n, max))}></span></span>
                <span class="cause-count">{ n }</span>
            </button>
        </li>
    }
}

#[derive(Properties, PartialEq)]
pub struct EmergencyProps {
    pub steps: Shared<Report>,
}

#[component]
pub fn Emergency(props: &EmergencyProps) -> Html {
    let steps = &props.steps.emergency;
    if steps.is_empty() {
        return html! {};
    }
    html! {
        <section class="emergency" aria-labelledby="emergency-h">
            <h3 id="emergency-h">{ "Stop the loop first" }</h3>
            <ol>
                for step in steps.iter() {
                    <li>{ inline_code(step) }</li>
                }
            </ol>
        </section>
    }
}
