//! The report half of the page: its actions (hidden differences, links,
//! Markdown, JSON), the summary, the steps to take first and one card per
//! resource, paged.

use super::card::ResourceCard;
use super::drawing::ListKey;
use super::persist;
use super::plan_view::{AuditPanel, PlanPanel};
use super::protocol::Export;
use super::sharing::{share_file, SharePanel};
use super::state::{Notice, PageView, ShareFor, Shown, Waiting, OPEN_CARDS_UP_TO};
use super::status_view::{ArgocdStatusPanel, ObservedPanel};
use super::summary::{Emergency, Summary, Warnings};
use super::util::{focus_element, inline_code, plural};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The names of the performance marks set when a report is shown: the
/// worker's, and the one made when the page was built.
const REPORT_SHOWN_MARK: &str = "drift-doctor:report-shown";
const FIRST_REPORT_SHOWN_MARK: &str = "drift-doctor:first-report-shown";

fn timing(shown: &Shown) -> String {
    if shown.built {
        return "Analysed when the page was built".into();
    }
    format!(
        "Analysed in {:.0} ms",
        shown.total_ms.unwrap_or(shown.worker_ms)
    )
}

fn timing_detail(shown: &Shown) -> String {
    if shown.built {
        return "The same analysis, made when this page was built: the page's analysis worker is still loading, and analyses the example again once it runs.".into();
    }
    let analysing = format!("{:.0} ms of it analysing in the worker", shown.worker_ms);
    match (shown.helped.units, shown.helped.renewed) {
        (0, _) => analysing,
        (n, false) => format!("{analysing}; a second worker read {n} of the YAML documents meanwhile"),
        (n, true) => format!(
            "{analysing}; a second worker read {n} of the YAML documents meanwhile, then was replaced by a new one to give back the memory its part took"
        ),
    }
}

/// What the next drawing task does: draw more plan entries of a report
/// (with how many are drawn so far), read the resources that came with it,
/// or draw the next cards of a listed page (with how many are drawn).
#[derive(Clone, Copy, PartialEq)]
enum DrawStep {
    Plan(u32, usize),
    Read(u32),
    Cards(ListKey, usize),
}

/// Offer a JSON file; say so when the browser refuses.
fn download(notice: &Callback<Notice>, name: &str, text: &str) {
    if !persist::download(name, "application/json", text) {
        notice.emit(Notice::error(format!(
            "The browser refused to download {name}."
        )));
    }
}

/// What the report half of the page asks for: each a callback the page
/// (`app`) builds over its controller and state.
#[derive(Clone, PartialEq)]
pub struct ReportActions {
    /// Show or hide the differences Argo CD does not count.
    pub show_hidden: Callback<bool>,
    /// Share the report as a link or as Markdown.
    pub share: Callback<ShareFor>,
    /// Fetch the whole report of analysis `seq` from the worker in a format.
    pub export: Callback<(u32, Export)>,
    /// Fetch the cards of analysis `seq` at these places of its list.
    pub resources: Callback<(u32, Vec<usize>)>,
    /// Fetch the raw texts of one resource of analysis `seq` (its side-by-side view).
    pub texts: Callback<(u32, String)>,
    /// Draw the next cards of the listed page.
    pub draw_more: Callback<ListKey>,
    /// Draw the next plan entries of report `seq`.
    pub draw_plan: Callback<u32>,
    /// Read the resources that came with report `seq`.
    pub read_first: Callback<u32>,
    /// A link's base address other than the page's.
    pub other_base: Callback<String>,
    /// Only the resources with differences of one cause (or all).
    pub filter: Callback<Option<crate::Cause>>,
    /// Show a page of the resource list.
    pub page: Callback<usize>,
    /// Mark one resource as the one being read.
    pub select: Callback<String>,
    /// Tell the user something about the page itself.
    pub notice: Callback<Notice>,
    /// Close the share panel.
    pub close_share: Callback<()>,
}

/// The report half's props: the page's state to show (read only) and what
/// it asks for.
#[derive(Properties, PartialEq)]
pub struct ReportPanelProps {
    /// The page's state, read only.
    pub state: PageView,
    /// What the panel asks for.
    pub actions: ReportActions,
}

/// What the page waits for, with the command that prints it.
fn waiting_note(waiting: &Waiting) -> Html {
    match waiting {
        Waiting::Nothing => html! {
            <p class="muted empty-note">{ "Nothing to analyse: paste Git and live YAML or diff output, load an example, or open a share file." }</p>
        },
        Waiting::For(fields) => html! {
            <div class="muted empty-note waiting-note">
                for f in fields.iter() {
                    <p>{ inline_code(&format!("Waiting for {}: paste what `{}` printed.", f.what(), f.command())) }</p>
                }
            </div>
        },
    }
}

#[component]
pub fn ReportPanel(props: &ReportPanelProps) -> Html {
    let state = &props.state;
    let actions = &props.actions;
    let on_hidden = actions.show_hidden.reform(|e: Event| {
        e.target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(t).ok())
            .is_some_and(|i| i.checked())
    });
    let share = |purpose: ShareFor| actions.share.reform(move |_: MouseEvent| purpose);
    let on_json = {
        let seq = state.shown.as_ref().map(|s| s.seq);
        let export = actions.export.clone();
        // The worker holds the whole report; the controller downloads it.
        Callback::from(move |_: MouseEvent| {
            if let Some(seq) = seq {
                export.emit((seq, Export::Json));
            }
        })
    };
    // Each report shown is marked on the page's timeline (what a
    // benchmark reads to time the first visit).
    {
        let shown = state.shown.as_ref().map(|s| (s.seq, s.built));
        use_effect_with(shown, |shown| {
            if let Some((_, built)) = shown {
                if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
                    let _ = performance.mark(if *built {
                        FIRST_REPORT_SHOWN_MARK
                    } else {
                        REPORT_SHOWN_MARK
                    });
                }
            }
        });
    }
    // The cards listed now that the page has not received in full.
    {
        let missing = state
            .shown
            .as_ref()
            .map(|shown| (shown.seq, shown.missing(&state.listed_window())));
        let resources = actions.resources.clone();
        use_effect_with(missing, move |missing| {
            if let Some((seq, missing)) = missing {
                if !missing.is_empty() {
                    resources.emit((*seq, missing.clone()));
                }
            }
        });
    }
    // The next drawing step, in a task and a frame of its own: a long
    // plan's entries, then reading the page's resources that came with the
    // report, then the listed page's next few cards.
    {
        let unread = state
            .shown
            .as_ref()
            .filter(|s| s.unread.is_some())
            .map(|s| s.seq);
        let step = match (state.plan_drawing, unread, &state.drawing) {
            (Some(plan), _, _) => Some(DrawStep::Plan(plan.seq, plan.entries)),
            (None, Some(seq), _) => Some(DrawStep::Read(seq)),
            (None, None, Some(d)) => Some(DrawStep::Cards(d.key, d.count())),
            (None, None, None) => None,
        };
        let (draw_plan, read_first, draw_more) = (
            actions.draw_plan.clone(),
            actions.read_first.clone(),
            actions.draw_more.clone(),
        );
        // After the next frame is painted: steps run back to back in one
        // frame would be laid out together (the first large report's plan,
        // two steps in one frame, took 26 ms of layout).
        use_effect_with(step, move |step| {
            let timeout = Rc::new(RefCell::new(None));
            let frame = step.map(|step| {
                let timeout = timeout.clone();
                gloo::render::request_animation_frame(move |_| {
                    *timeout.borrow_mut() = Some(gloo::timers::callback::Timeout::new(0, move || match step {
                        DrawStep::Plan(seq, _) => draw_plan.emit(seq),
                        DrawStep::Read(seq) => read_first.emit(seq),
                        DrawStep::Cards(key, _) => draw_more.emit(key),
                    }));
                })
            });
            move || {
                drop(frame);
                drop(timeout.take());
            }
        });
    }
    let on_share_download = {
        let view = state.share.clone();
        let notice = actions.notice.clone();
        Callback::from(move |_| {
            if let Some(v) = &view {
                download(&notice, "drift-doctor-share.json", &share_file(v));
            }
        })
    };
    let on_other_base = actions.other_base.clone();
    let on_share_close = actions.close_share.reform(|_| {
        focus_element("copy-link");
    });
    let on_filter = actions.filter.clone();
    html! {
        <section id="report" class="results" aria-labelledby="report-h" data-state={state.status()}
            data-seq={state.shown.as_ref().map(|s| s.seq.to_string()).unwrap_or_default()}
            aria-busy={if state.status() == "busy" { "true" } else { "false" }}>
            <div class="results-head">
                <h2 id="report-h" tabindex="-1">{ "Report" }</h2>
                <span class="busy">
                    if state.busy() {
                        <span class="busy-inner"><span class="spinner" aria-hidden="true"></span>{ "Analysing…" }
                            <span class="busy-slow">{ " still working (large input)" }</span></span>
                    }
                </span>
                if let Some(shown) = &state.shown {
                    <span class="timing" title={timing_detail(shown)}
                        data-worker-ms={format!("{:.0}", shown.worker_ms)}
                        data-built={shown.built.to_string()}
                        data-helped={shown.helped.units.to_string()}
                        data-helper-renewed={shown.helped.renewed.to_string()}>{ timing(shown) }</span>
                    <label class="check hidden-toggle">
                        <input type="checkbox" id="show-hidden" checked={state.show_hidden} onchange={on_hidden} />
                        { " Show hidden differences (not counted by Argo CD)" }
                    </label>
                    <span class="report-actions">
                        <button type="button" id="copy-link" class="button small" onclick={share(ShareFor::Link)}>{ "Copy link" }</button>
                        <button type="button" id="copy-markdown" class="button small" onclick={share(ShareFor::Markdown)}>{ "Copy as Markdown" }</button>
                        <button type="button" id="download-json" class="button small" onclick={on_json}>{ "Download JSON" }</button>
                    </span>
                    <span class="copy-status" role="status">
                        { match state.markdown_copied { Some(true) => "Markdown copied.", Some(false) => "Could not copy the Markdown (clipboard unavailable).", None => "" } }
                    </span>
                }
            </div>
            if let (Some(v), ShareFor::Link) = (&state.share, state.share_for) {
                <SharePanel view={v.clone()} on_download={on_share_download} on_other_base={on_other_base} on_close={on_share_close} />
            }
            if let Some(e) = state.general_error() {
                <p class="error-text" role="alert">{ e.text.clone() }</p>
            }
            if let (true, Some(shown)) = (state.stale(), &state.shown) {
                <p class="stale-note stale-banner" id="stale-note">
                    <strong>{ "Not the answer for the input in the editors." }</strong>
                    { if state.general_error().is_some() {
                        format!(" Its analysis could not run (see above). Greyed below: the last report, computed from {}.", shown.source())
                    } else {
                        format!(" It has an error (see the input). Greyed below: the last report, computed from {}.", shown.source())
                    } }
                </p>
            } else if state.error.is_some() && state.shown.is_some() {
                <p class="stale-note">{ if state.general_error().is_some() {
                    // Not the input's fault: the worker stopped or could not start.
                    "The analysis could not run (see above): this is the last report made."
                } else {
                    "The input has an error (see the input): this is the report of the last input that could be read."
                } }</p>
            }
            if let Some(shown) = &state.shown {
                // Greyed, not removed: the reader may still page through it,
                // but its numbers and steps no longer read as the answer.
                <div id="report-body" class={classes!("report-body", state.stale().then_some("stale-report"))}
                    aria-describedby={state.stale().then_some("stale-note")}>
                    <Summary report={shown.report.clone()} strategy={AttrValue::from(shown.strategy.clone())} example={shown.example.and_then(super::examples::find).map(|e| AttrValue::from(e.title))} filter={state.filter} on_filter={on_filter} />
                    <Warnings report={shown.report.clone()} />
                    <Emergency report={shown.report.clone()} />
                    <ArgocdStatusPanel report={shown.report.clone()} />
                    <ObservedPanel report={shown.report.clone()} />
                    <PlanPanel report={shown.report.clone()} rest={shown.plan_rest.clone()}
                        entries={state.plan_drawing.filter(|d| d.seq == shown.seq).map(|d| d.entries)} />
                    <AuditPanel report={shown.report.clone()} />
                    { resource_list(state, shown, actions) }
                </div>
            } else if let (Some(w), None) = (&state.waiting, &state.error) {
                { waiting_note(w) }
            } else if state.error.is_none() && state.latest == 0 {
                <p class="muted">{ "Loading…" }</p>
            }
        </section>
    }
}

fn resource_list(state: &PageView, shown: &Shown, actions: &ReportActions) -> Html {
    let on_page = {
        let page = actions.page.clone();
        Callback::from(move |p: usize| {
            page.emit(p);
            focus_element("resources-h");
        })
    };
    let on_diff = {
        let seq = shown.seq;
        actions.texts.reform(move |id: String| (seq, id))
    };
    let on_select = actions.select.clone();
    let listed = state.listed();
    let (page, pages, start, end) = state.window(listed.len());
    let open = shown.report.summary.out_of_sync <= OPEN_CARDS_UP_TO;
    let rules = state.rule_docs();
    let pager = |place: &str| {
        if pages <= 1 {
            return html! {};
        }
        let prev = {
            let on_page = on_page.clone();
            Callback::from(move |_: MouseEvent| on_page.emit(page.saturating_sub(1)))
        };
        let next = {
            let on_page = on_page.clone();
            Callback::from(move |_: MouseEvent| on_page.emit((page + 1).min(pages - 1)))
        };
        html! {
            <nav class="pager" aria-label={format!("Resource pages ({place})")}>
                <button type="button" class="button small" disabled={page == 0} onclick={prev}>{ "← Previous" }</button>
                <span class="page-of">{ format!("Page {} of {}", page + 1, pages) }</span>
                <button type="button" class="button small" disabled={page + 1 >= pages} onclick={next}>{ "Next →" }</button>
            </nav>
        }
    };
    let filter_note = state
        .filter
        .map(|c| format!(" with {} differences", c.label()))
        .unwrap_or_default();
    html! {
        <section class="resources" aria-labelledby="resources-h">
            <h3 id="resources-h" tabindex="-1">{ "Resources" }</h3>
            <p class="list-note">
                if listed.is_empty() {
                    { "No resources." }
                } else {
                    { format!("{}–{} of {}{}, out of sync first.", start + 1, end,
                        plural(listed.len(), "resource", "resources"), filter_note) }
                }
            </p>
            { pager("top") }
            <div class="cards">
                for &i in listed[start..end].iter() {
                    if let Some(resource) = shown.details.get(&i).filter(|r| state.draws(&r.id)) {
                        <ResourceCard key={resource.id.clone()}
                            resource={resource.clone()}
                            index={i}
                            default_open={open && resource.status == crate::Status::OutOfSync}
                            show_hidden={state.show_hidden}
                            diff={state.diffs.get(&resource.id).cloned()}
                            on_diff={on_diff.clone()}
                            selected={state.selected.as_deref() == Some(resource.id.as_str())}
                            on_select={on_select.clone()}
                            rules={rules.clone()} />
                    } else {
                        // Not received in full yet, or not drawn yet: one
                        // element, its text drawn by the style sheet from its
                        // label. The first large report's frame adds such a
                        // placeholder for nearly every card of the page.
                        <article key={shown.lines[i].id.clone()} class="card pending" aria-busy="true"
                            aria-label={format!("{} Loading…", shown.lines[i].id)} />
                    }
                }
            </div>
            { pager("bottom") }
        </section>
    }
}
