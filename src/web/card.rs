//! One resource of the report: a collapsible card with its differences,
//! fixes (copyable snippets) and, on demand, its YAML side by side.

use super::diffview::DiffView;
use super::protocol::RuleDoc;
use super::state::{DiffState, Shared};
use super::summary::CauseBadge;
use super::util::{
    copy_to_clipboard, inline_code, plural, select_contents, split_ignore_snippet, value_text,
};
use drift_doctor::{Cause, Difference, Fix, FixKind, Presence, ResourceReport, Status};
use yew::prelude::*;

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
    match p {
        Presence::Both => "in Git and live",
        Presence::GitOnly => "in Git only (missing live)",
        Presence::LiveOnly => "live only (not in Git)",
    }
}

fn fix_kind_text(k: FixKind) -> &'static str {
    match k {
        FixKind::Ignore => "Ignore",
        FixKind::Git => "Fix in Git",
        FixKind::SyncOrder => "Sync order",
        FixKind::Render => "Render",
    }
}

fn rule_title(rules: &Option<Shared<Vec<RuleDoc>>>, code: &str) -> Option<String> {
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
    causes.sort();
    causes.dedup();

    let body_id = format!("card-body-{}", props.index);
    {
        let open = open.clone();
        use_effect_with(props.selected, move |selected| {
            if *selected {
                open.set(true);
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
        let on_diff = props.on_diff.clone();
        let on_select = props.on_select.clone();
        let id = r.id.clone();
        let needs = props.diff.is_none();
        Callback::from(move |_: MouseEvent| {
            if !*show_yaml {
                on_select.emit(id.clone());
                if needs {
                    on_diff.emit(id.clone());
                }
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
                    <span class="chev" aria-hidden="true"></span>
                    <span class="card-kind">{ r.kind.clone() }</span>
                    <span class="card-name">{ location }</span>
                    <span class={classes!("badge", "status", if out { "status-out" } else { "status-synced" })}>
                        { if out { "OutOfSync" } else { "Synced" } }
                    </span>
                    <span class="card-causes">
                        for c in causes.iter() { <CauseBadge cause={*c} /> }
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
                            for d in visible.iter() { { difference(d, &props.rules) } }
                            if props.show_hidden {
                                for d in hidden.iter() { { difference(d, &props.rules) } }
                            }
                        </ul>
                    }
                    if !r.fixes.is_empty() {
                        <h4 class="fixes-h">{ "Fixes" }</h4>
                        <ul class="fixes">
                            for (i, f) in r.fixes.iter().enumerate() {
                                <li><FixView fix={f.clone()} id={format!("fix-{}-{i}", props.index)} /></li>
                            }
                        </ul>
                    }
                    <button type="button" class="button small yaml-toggle" aria-expanded={if *show_yaml { "true" } else { "false" }}
                        onclick={toggle_yaml}>
                        { if *show_yaml { "Hide the YAML side by side" } else { "Show the YAML side by side" } }
                    </button>
                    if *show_yaml {
                        <DiffView state={props.diff.clone().unwrap_or(DiffState::Loading)} />
                    }
                </div>
            }
        </article>
    }
}

fn difference(d: &Difference, rules: &Option<Shared<Vec<RuleDoc>>>) -> Html {
    let title = rule_title(rules, &d.rule);
    html! {
        <li class={classes!("diff", (!d.visible).then_some("diff-hidden"))} data-pointer={d.pointer.clone()}>
            <div class="diff-head">
                <code class="path" title={d.pointer.clone()}>{ d.jq.clone() }</code>
                <span class="change">{ d.change.id() }</span>
                <CauseBadge cause={d.cause} />
                <span class={classes!("confidence", format!("conf-{}", d.confidence.id()))}>{ format!("{} confidence", d.confidence.id()) }</span>
                <a class="rule-link" href={format!("#rule-{}", d.rule)}>
                    { format!("Rule {}", d.rule) }
                    if let Some(t) = title { <span class="rule-title">{ format!(": {t}") }</span> }
                </a>
            </div>
            <dl class="values">
                <div><dt>{ "Git" }</dt><dd><code class="value" tabindex="0">{ value_text(&d.git) }</code></dd></div>
                <div><dt>{ "Live" }</dt><dd><code class="value" tabindex="0">{ value_text(&d.live) }</code></dd></div>
            </dl>
            <p class="evidence">{ inline_code(&d.evidence) }</p>
            if let Some(reason) = &d.hidden_reason {
                <p class="hidden-reason"><strong>{ "Not counted by Argo CD: " }</strong>{ reason.clone() }</p>
            }
        </li>
    }
}

#[derive(Properties, PartialEq)]
pub struct FixProps {
    pub fix: Fix,
    /// Unique element id prefix.
    pub id: AttrValue,
}

#[component]
pub fn FixView(props: &FixProps) -> Html {
    let f = &props.fix;
    let tabs = if f.kind == FixKind::Ignore {
        split_ignore_snippet(&f.snippet)
    } else {
        None
    };
    html! {
        <div class={classes!("fix", format!("fix-{}", fix_kind_text(f.kind).to_lowercase().replace(' ', "-")))}>
            <div class="fix-head">
                <span class="badge fix-kind">{ fix_kind_text(f.kind) }</span>
                <strong class="fix-title">{ f.title.clone() }</strong>
            </div>
            if let Some((app, cm)) = tabs {
                <SnippetTabs id={props.id.clone()} app={AttrValue::from(app)} cm={AttrValue::from(cm)} />
            } else {
                <Snippet text={AttrValue::from(f.snippet.clone())} label="Copy" />
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct TabsProps {
    pub id: AttrValue,
    pub app: AttrValue,
    pub cm: AttrValue,
}

/// The ignore fix's two forms as tabs (Application, argocd-cm).
#[component]
pub fn SnippetTabs(props: &TabsProps) -> Html {
    let active = use_state(|| 0usize);
    let tabs = [
        ("Application", props.app.clone()),
        ("argocd-cm", props.cm.clone()),
    ];
    let select = |i: usize| {
        let active = active.clone();
        Callback::from(move |_: MouseEvent| active.set(i))
    };
    let onkeydown = {
        let active = active.clone();
        let id = props.id.clone();
        Callback::from(move |e: KeyboardEvent| {
            let next = match e.key().as_str() {
                "ArrowRight" | "ArrowLeft" | "Home" | "End" => {
                    e.prevent_default();
                    match e.key().as_str() {
                        "Home" => 0,
                        "End" => 1,
                        _ => 1 - *active,
                    }
                }
                _ => return,
            };
            active.set(next);
            super::util::focus_element(&format!("{id}-tab-{next}"));
        })
    };
    html! {
        <div class="tabs" data-testid="snippet-tabs">
            <div role="tablist" aria-label="Where to put the ignore rule" class="tablist" onkeydown={onkeydown}>
                for (i, (name, _)) in tabs.iter().enumerate() {
                    <button type="button" role="tab" id={format!("{}-tab-{i}", props.id)}
                        aria-selected={if *active == i { "true" } else { "false" }}
                        aria-controls={format!("{}-panel-{i}", props.id)}
                        tabindex={if *active == i { "0" } else { "-1" }}
                        class="tab" onclick={select(i)}>{ *name }</button>
                }
            </div>
            for (i, (name, text)) in tabs.iter().enumerate() {
                <div role="tabpanel" id={format!("{}-panel-{i}", props.id)} aria-labelledby={format!("{}-tab-{i}", props.id)}
                    hidden={*active != i} class="tabpanel" data-form={*name}>
                    <Snippet text={text.clone()} label={format!("Copy the {name} form")} />
                </div>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct SnippetProps {
    pub text: AttrValue,
    pub label: AttrValue,
}

/// A snippet with its copy button.
#[component]
pub fn Snippet(props: &SnippetProps) -> Html {
    let status = use_state(|| None::<bool>);
    let pre = use_node_ref();
    let onclick = {
        let status = status.clone();
        let text = props.text.to_string();
        let pre = pre.clone();
        Callback::from(move |_: MouseEvent| {
            let status = status.clone();
            let pre = pre.clone();
            copy_to_clipboard(
                text.clone(),
                Callback::from(move |ok: bool| {
                    if !ok {
                        select_contents(&pre);
                    }
                    status.set(Some(ok));
                }),
            );
        })
    };
    html! {
        <div class="snippet">
            <pre ref={pre} class="snippet-text" tabindex="0">{ props.text.clone() }</pre>
            <div class="snippet-actions">
                <button type="button" class="button small copy" {onclick}>{ props.label.clone() }</button>
                <span class="copy-status" role="status">
                    { match *status { Some(true) => "Copied.", Some(false) => "Could not copy: the text is selected, press Ctrl+C.", None => "" } }
                </span>
            </div>
        </div>
    }
}
