//! What a pasted Application says about itself, above the resources: the
//! sync loop in its history, its sync errors classified, and where Argo
//! CD's own verdict and the pasted objects disagree. Its messages are user
//! text: shown as text, never as HTML.

use super::fix_view::Snippet;
use super::plan_view::ReportProps;
use super::summary::CauseBadge;
use super::util::inline_code;
use yew::prelude::*;

#[component]
pub fn ArgocdStatusPanel(props: &ReportProps) -> Html {
    let Some(status) = &props.report.argocd_status else {
        return html! {};
    };
    html! {
        <section id="argocd-status" class="argocd-status" aria-labelledby="argocd-status-h">
            <h3 id="argocd-status-h">{ format!("What Argo CD says about {}", status.name) }
                if let Some(s) = &status.sync_status {
                    { format!(" ({s})") }
                }
            </h3>
            if let Some(l) = &status.sync_loop {
                <p class="sync-loop" id="sync-loop"><strong>{ "Loop: " }</strong>{ inline_code(&l.message) }</p>
            }
            if !status.sync_errors.is_empty() {
                <div class="sync-errors" id="sync-errors">
                    <h4>{ "Sync errors" }</h4>
                    <ul>
                        { for status.sync_errors.iter().map(|e| sync_error(e, e.resource.as_deref())) }
                    </ul>
                </div>
            }
            if !status.verdicts.is_empty() {
                <div class="verdicts" id="verdicts">
                    <h4>{ "Where Argo CD's verdict differs" }</h4>
                    <ul>
                        for v in status.verdicts.iter() {
                            <li><code class="path">{ v.id.clone() }</code>{ ": " }{ inline_code(&v.message) }</li>
                        }
                    </ul>
                </div>
            }
            if !status.settings.is_empty() {
                <details class="settings-used">
                    <summary>{ "Settings taken from the Application" }</summary>
                    <ul>
                        for s in status.settings.iter() {
                            <li>{ inline_code(s) }</li>
                        }
                    </ul>
                </details>
            }
        </section>
    }
}

/// One of Argo CD's classified errors: its cause, title and place, the
/// message as the user pasted it (text), why and the fix.
fn sync_error(e: &crate::model::SyncError, place: Option<&str>) -> Html {
    html! {
        <li class="sync-error" data-code={e.code.clone()}>
            <p>
                if let Some(c) = e.cause {
                    <CauseBadge cause={c} />{ " " }
                }
                <strong>{ e.title.clone() }</strong>
                if let Some(p) = place {
                    { " · " }<code class="path">{ p.to_string() }</code>
                }
                { format!(" ({})", e.code) }
            </p>
            <blockquote class="sync-message">{ e.message.clone() }</blockquote>
            <p>{ inline_code(&e.evidence) }</p>
            <p><strong>{ "Fix: " }</strong>{ inline_code(&e.fix) }</p>
            if !e.snippet.is_empty() {
                <Snippet text={AttrValue::from(e.snippet.clone())} label="Copy" />
            }
            if let Some(r) = &e.risk {
                <p class="fix-warning"><strong>{ "Risk: " }</strong>{ inline_code(r) }</p>
            }
        </li>
    }
}

/// What the pasted events and logs say about the app: how much was read,
/// the sync loop they record, and Argo CD's own errors in them.
#[component]
pub fn ObservedPanel(props: &ReportProps) -> Html {
    let Some(o) = &props.report.observed else {
        return html! {};
    };
    html! {
        <section id="observed" class="argocd-status" aria-labelledby="observed-h">
            <h3 id="observed-h">{ "What the events and logs say" }</h3>
            <p>{ format!("Read: {} and {}.",
                crate::text::count(o.events, "event", "events"),
                crate::text::count(o.log_lines, "log line", "log lines")) }</p>
            if let Some(l) = &o.sync_loop {
                <p class="sync-loop" id="observed-loop"><strong>{ "Loop: " }</strong>{ inline_code(&l.message) }</p>
            }
            if !o.argocd_errors.is_empty() {
                <div class="sync-errors" id="observed-errors">
                    <h4>{ "Argo CD's own errors" }</h4>
                    <ul>
                        { for o.argocd_errors.iter().map(|e| sync_error(e, Some(&e.source))) }
                    </ul>
                </div>
            }
        </section>
    }
}
