//! The page's check before it ships (`drift-doctor check`): the findings of
//! the Git side, each with its input and line, the template it came from,
//! why it loops, and the fix to copy. The report is the CLI's JSON, read
//! here only to show it (the worker ran the check).

use super::fix_view::Snippet;
use super::state::{Action, PageState};
use super::util::plural;
use serde_json::Value;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CheckProps {
    pub state: UseReducerHandle<PageState>,
}

fn text<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// Where a finding points: its input and line, its template and resource.
fn place(f: &Value) -> String {
    let input = match text(f, "input") {
        "git" => "Git",
        "git-again" => "second render",
        _ => "settings",
    };
    let mut out = format!("{input}, line {}", f.get("line").and_then(Value::as_u64).unwrap_or(0));
    let source = text(f, "source");
    if !source.is_empty() {
        out.push_str(&format!(" · template {source}"));
    }
    let resource = text(f, "resource");
    if !resource.is_empty() {
        out.push_str(&format!(" · {resource}"));
    }
    out
}

fn finding(f: &Value) -> Html {
    let level = text(f, "level").to_string();
    let snippet = text(f, "snippet");
    html! {
        <li class={classes!("check-finding", format!("level-{level}"))}>
            <p class="check-head">
                <span class={classes!("badge", format!("level-{level}"))}>{ level.clone() }</span>
                { " " }<code>{ text(f, "rule") }</code>{ " " }<strong>{ text(f, "title") }</strong>
            </p>
            <p class="muted check-place">{ place(f) }</p>
            <p>{ text(f, "message") }</p>
            <Snippet text={AttrValue::from(text(f, "fix").to_string())} label="Copy the fix" />
            if !snippet.is_empty() {
                <Snippet text={AttrValue::from(snippet.to_string())} label="Copy the snippet" />
            }
        </li>
    }
}

#[component]
pub fn CheckPanel(props: &CheckProps) -> Html {
    let state = &props.state;
    let on_close = {
        let dispatch = state.dispatcher();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::CheckClosed))
    };
    let body = match &state.check {
        _ if state.checking => html! { <p class="muted" role="status">{ "Checking…" }</p> },
        None => return html! {},
        Some(Err(why)) => html! { <p class="error" role="alert">{ why.clone() }</p> },
        Some(Ok(report)) => {
            let findings: Vec<&Value> = report
                .get("findings")
                .and_then(Value::as_array)
                .map(|a| a.iter().collect())
                .unwrap_or_default();
            let objects = report
                .pointer("/summary/objects")
                .and_then(Value::as_u64)
                .unwrap_or(0) as usize;
            let summary = if findings.is_empty() {
                format!(
                    "{} checked: nothing that makes Argo CD loop.",
                    plural(objects, "object", "objects")
                )
            } else {
                format!(
                    "{} checked: {}.",
                    plural(objects, "object", "objects"),
                    plural(findings.len(), "finding", "findings")
                )
            };
            html! {
                <>
                    <p role="status">{ summary }</p>
                    <ol class="check-findings">{ for findings.iter().map(|f| finding(f)) }</ol>
                </>
            }
        }
    };
    html! {
        <section id="check" class="check-panel" aria-labelledby="check-h">
            <div class="results-head">
                <h2 id="check-h">{ "Check before it ships" }</h2>
                <button type="button" class="button small check-close" onclick={on_close}>{ "Close" }</button>
            </div>
            <p class="muted">{ "The prevention checklist on the Git side alone (and the second render, the settings, when given), as drift-doctor check runs it in CI." }</p>
            { body }
        </section>
    }
}
