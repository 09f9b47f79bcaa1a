//! One resource of the report: a collapsible card with its differences,
//! fixes and, on demand, its YAML side by side (which follows every new
//! analysis while it is open).

use super::diffview::{row_id, DiffView};
use super::fix_view::FixList;
use super::protocol::RuleDoc;
use super::state::{DiffState, Shared};
use super::summary::CauseBadge;
use super::util::{inline_code, plural};
use crate::{Cause, Difference, Presence, ResourceReport, Status};
use serde_json::Value;
use yew::prelude::*;

/// Values longer than this (characters) show their start, and all of it on request.
const LONG_VALUE: usize = 240;

#[derive(Properties, PartialEq)]
pub struct CardProps {
    pub resource: Shared<ResourceReport>,
    /// A stable index used for element ids.
    pub index: usize,
    pub default_open: bool,
    pub show_hidden: bool,
    pub diff: Option<DiffState>,
    pub on_diff: Callback<String>,
    /// The resource a shared link selected (opens the card).
    pub selected: bool,
    /// The user opened this card or its YAML (what a link remembers).
    pub on_select: Callback<String>,
    /// The rule catalogue, for the titles of the rule links (when it has arrived).
    pub rules: Option<Shared<Vec<RuleDoc>>>,
}

fn presence_text(p: Presence) -> &'static str {
    p.words().unwrap_or("in Git and live")
}

pub fn rule_title(rules: &Option<Shared<Vec<RuleDoc>>>, code: &str) -> Option<String> {
    rules
        .as_ref()?
        .iter()
        .find(|r| r.code == code)
        .map(|r| r.title.clone())
}

#[component]
pub fn ResourceCard(props: &CardProps) -> Html {
    let open = use_state(|| props.default_open);
    let show_yaml = use_state(|| false);
    let r = &*props.resource;
    let out = r.status == Status::OutOfSync;
    let visible: Vec<&Difference> = r.differences.iter().filter(|d| d.visible).collect();
    let hidden: Vec<&Difference> = r.differences.iter().filter(|d| !d.visible).collect();
    let mut causes: Vec<Cause> = visible.iter().map(|d| d.cause).collect();
    crate::sorting::sort(&mut causes);
    causes.dedup();

    let body_id = format!("card-body-{}", props.index);
    let yaml_id = format!("card-yaml-{}", props.index);
    let row_prefix = format!("sbs-{}", props.index);
    let anchors = use_memo(props.resource.clone(), |r| {
        Shared(std::rc::Rc::new(
            r.differences.iter().map(|d| d.pointer.clone()).collect::<Vec<_>>(),
        ))
    });
    // A difference's "its row" link: the YAML view opens, then its row
    // takes the focus once the lines are in.
    let reveal = use_state(|| None::<String>);
    {
        let reveal = reveal.clone();
        let ready = matches!(props.diff, Some(DiffState::Ready(..)));
        let target = (*reveal)
            .as_ref()
            .and_then(|p| row_id(&row_prefix, &anchors, p));
        use_effect_with((ready, target), move |(ready, target)| {
            if let (true, Some(id)) = (ready, target) {
                super::util::focus_element(id);
                reveal.set(None);
            }
        });
    }
    let on_reveal = {
        let reveal = reveal.clone();
        let show_yaml = show_yaml.clone();
        let on_select = props.on_select.clone();
        let id = r.id.clone();
        Callback::from(move |pointer: String| {
            if !*show_yaml {
                on_select.emit(id.clone());
                show_yaml.set(true);
            }
            reveal.set(Some(pointer));
        })
    };
    {
        let open = open.clone();
        use_effect_with(props.selected, move |selected| {
            if *selected {
                open.set(true);
            }
        });
    }
    // An open YAML view follows the new report (a new analysis drops the old lines).
    {
        let on_diff = props.on_diff.clone();
        let id = r.id.clone();
        let wanted = *show_yaml && *open && props.diff.is_none();
        use_effect_with(wanted, move |wanted| {
            if *wanted {
                on_diff.emit(id);
            }
        });
    }
    let toggle = {
        let open = open.clone();
        let on_select = props.on_select.clone();
        let id = r.id.clone();
        Callback::from(move |_: MouseEvent| {
            if !*open {
                on_select.emit(id.clone());
            }
            open.set(!*open)
        })
    };
    let toggle_yaml = {
        let show_yaml = show_yaml.clone();
        let on_select = props.on_select.clone();
        let id = r.id.clone();
        // The lines are asked for by the effect above.
        Callback::from(move |_: MouseEvent| {
            if !*show_yaml {
                on_select.emit(id.clone());
            }
            show_yaml.set(!*show_yaml);
        })
    };
    let location = if r.namespace.is_empty() {
        r.name.clone()
    } else {
        format!("{}/{}", r.namespace, r.name)
    };
    html! {
        <article class={classes!("card", if out { "out" } else { "synced" }, props.selected.then_some("selected"))} data-id={r.id.clone()}>
            <h3 class="card-h">
                <button type="button" class="card-toggle" aria-expanded={if *open { "true" } else { "false" }}
                    aria-controls={body_id.clone()} onclick={toggle}>
                    // The spaces keep the parts separate words in the
                    // button's name (a screen reader reads it whole).
                    <span class="chev" aria-hidden="true"></span>
                    <span class="card-kind">{ r.kind.clone() }</span>{ " " }
                    <span class="card-name">{ location }</span>{ " " }
                    <span class={classes!("badge", "status", if out { "status-out" } else { "status-synced" })}>
                        { if out { "OutOfSync" } else { "Synced" } }
                    </span>{ " " }
                    <span class="card-causes">
                        for c in causes.iter() { <CauseBadge cause={*c} />{ " " } }
                    </span>
                    <span class="card-count">{ plural(visible.len(), "difference", "differences") }</span>
                </button>
            </h3>
            if *open {
                <div class="card-body" id={body_id}>
                    <p class="card-meta"><code class="rid">{ r.id.clone() }</code>{ " · " }{ presence_text(r.presence) }
                        if !hidden.is_empty() { { format!(" · {} not counted by Argo CD", hidden.len()) } }
                    </p>
                    if visible.is_empty() && (hidden.is_empty() || !props.show_hidden) {
                        <p class="muted">{ "No difference that Argo CD counts." }</p>
                    } else {
                        <ul class="diffs">
                            for d in visible.iter() { { difference(d, &props.rules, &on_reveal) } }
                            if props.show_hidden {
                                for d in hidden.iter() { { difference(d, &props.rules, &on_reveal) } }
                            }
                        </ul>
                    }
                    if !r.fixes.is_empty() {
                        <FixList resource={props.resource.clone()} index={props.index} rules={props.rules.clone()} />
                    }
                    <button type="button" class="button small yaml-toggle" aria-expanded={if *show_yaml { "true" } else { "false" }}
                        aria-controls={yaml_id.clone()} onclick={toggle_yaml}>
                        { if *show_yaml { "Hide the YAML side by side" } else { "Show the YAML side by side" } }
                    </button>
                    if *show_yaml {
                        <div id={yaml_id}>
                            <DiffView state={props.diff.clone().unwrap_or(DiffState::Loading)}
                                prefix={AttrValue::from(format!("sbs-{}", props.index))} anchors={(*anchors).clone()} />
                        </div>
                    }
                </div>
            }
        </article>
    }
}

fn difference(
    d: &Difference,
    rules: &Option<Shared<Vec<RuleDoc>>>,
    on_reveal: &Callback<String>,
) -> Html {
    let title = rule_title(rules, &d.rule);
    let reveal = {
        let on_reveal = on_reveal.clone();
        let pointer = d.pointer.clone();
        Callback::from(move |_: MouseEvent| on_reveal.emit(pointer.clone()))
    };
    html! {
        <li class={classes!("diff", (!d.visible).then_some("diff-hidden"))} data-pointer={d.pointer.clone()}>
            <div class="diff-head">
                <code class="path" title={d.jq.clone()}>{ crate::text::field_label(&d.field).to_string() }</code>{ " " }
                <span class="change">{ d.change.id() }</span>{ " " }
                <CauseBadge cause={d.cause} />{ " " }
                <span class={classes!("confidence", format!("conf-{}", d.confidence.id()))}>{ format!("{} confidence", d.confidence.id()) }</span>{ " " }
                <a class="rule-link" href={format!("#rule-{}", d.rule)}>
                    { format!("Rule {}", d.rule) }
                    if let Some(t) = title { <span class="rule-title">{ format!(": {t}") }</span> }
                </a>
            </div>
            <dl class="values">
                <div><dt>{ "Git" }</dt><dd>{ value_box(d.git.as_ref()) }</dd></div>
                <div><dt>{ "Live" }</dt><dd>{ value_box(d.live.as_ref()) }</dd></div>
            </dl>
            <p class="evidence">{ inline_code(&d.evidence) }</p>
            <p class="row-link"><button type="button" class="linklike sbs-link" onclick={reveal}>{ "Its row in the YAML side by side" }</button></p>
            if !d.observed.is_empty() {
                <ul class="observed">
                    { for d.observed.iter().map(|o| html! {
                        <li class={classes!("observation", o.proves.then_some("proves"))} data-code={o.code.clone()}>
                            <strong>{ if o.proves { "Seen, and it proves it: " } else { "Seen: " } }</strong>
                            { format!("{} {}{}: ", o.code, o.location, o.time.as_deref().map(|t| format!(", {t}")).unwrap_or_default()) }
                            // The pasted line, masked by the core: text, never markup.
                            <code class="quote">{ o.quote.clone() }</code>
                        </li>
                    }) }
                </ul>
            }
            if let Some(reason) = &d.hidden_reason {
                <p class="hidden-reason"><strong>{ "Not counted by Argo CD: " }</strong>{ inline_code(&reason.to_string()) }</p>
            }
        </li>
    }
}

/// A value as text; a long one shows its start, and all of it on request
/// (not a scrolling box: those are each a Tab stop).
fn value_box(v: Option<&Value>) -> Html {
    let text = crate::text::value_quoted(v);
    let n = text.chars().count();
    if n <= LONG_VALUE {
        return html! { <code class="value">{ text }</code> };
    }
    let head: String = text.chars().take(LONG_VALUE).collect();
    html! {
        <details class="value-long">
            <summary><code class="value">{ format!("{head}…") }</code>
                <span class="value-more">{ format!("Show all {n} characters") }</span></summary>
            <code class="value">{ text }</code>
        </details>
    }
}
