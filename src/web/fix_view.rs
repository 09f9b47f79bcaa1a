//! A resource's fixes as what they are: one box per field (naming it), the
//! identical fixes of several fields merged; an ignore rule or a sync
//! option is code to copy, a change to make in Git or in the chart is
//! prose to read.

use super::card::rule_title;
use super::plan_view::VerifiedBadge;
use super::protocol::RuleDoc;
use super::rules_view::field_of_pointer;
use super::state::Shared;
use super::util::{
    copy_to_clipboard, inline_code, plural, plural_word, select_contents, COPIED_SHOWN_MS,
};
use crate::{Fix, FixKind, ResourceReport};
use gloo::timers::callback::Timeout;
use yew::prelude::*;

fn fix_kind_text(k: FixKind) -> &'static str {
    match k {
        FixKind::Ignore => "Ignore",
        FixKind::Git => "Fix in Git",
        FixKind::SyncOrder => "Sync order",
        FixKind::Render => "Fix the render",
    }
}

fn fix_kind_id(k: FixKind) -> &'static str {
    match k {
        FixKind::Ignore => "ignore",
        FixKind::Git => "git",
        FixKind::SyncOrder => "sync-order",
        FixKind::Render => "render",
    }
}

/// Fixes for the same fields: one box.
#[derive(Debug, PartialEq)]
struct Group<'a> {
    pointers: Vec<String>,
    fixes: Vec<&'a Fix>,
}

fn same_fix(a: &Fix, b: &Fix) -> bool {
    a.kind == b.kind && a.snippet == b.snippet
}

/// Merge identical fixes (their fields together), then group fixes that
/// share a field, so that each field has one box; in the report's order.
fn groups(fixes: &[Fix]) -> Vec<Group<'_>> {
    let mut unique: Vec<(&Fix, Vec<String>)> = Vec::new();
    for f in fixes {
        match unique.iter_mut().find(|(u, _)| same_fix(u, f)) {
            Some((_, pointers)) => pointers.extend(f.pointers.iter().cloned()),
            None => unique.push((f, f.pointers.clone())),
        }
    }
    let mut out: Vec<Group> = Vec::new();
    for (f, pointers) in unique {
        // Fixes for the whole object (no field) share one box too.
        let shares = |g: &Group| {
            if pointers.is_empty() {
                g.pointers.is_empty()
            } else {
                g.pointers.iter().any(|p| pointers.contains(p))
            }
        };
        let joined: Vec<usize> = (0..out.len()).filter(|&i| shares(&out[i])).collect();
        let Some(&first) = joined.first() else {
            let mut pointers = pointers;
            crate::sorting::sort(&mut pointers);
            pointers.dedup();
            out.push(Group {
                pointers,
                fixes: vec![f],
            });
            continue;
        };
        for &i in joined[1..].iter().rev() {
            let g = out.remove(i);
            out[first].pointers.extend(g.pointers);
            out[first].fixes.extend(g.fixes);
        }
        let g = &mut out[first];
        g.pointers.extend(pointers);
        crate::sorting::sort(&mut g.pointers);
        g.pointers.dedup();
        g.fixes.push(f);
    }
    out
}

#[derive(Properties, PartialEq)]
pub struct FixListProps {
    pub resource: Shared<ResourceReport>,
    /// A stable index used for element ids.
    pub index: usize,
    pub rules: Option<Shared<Vec<RuleDoc>>>,
}

#[component]
pub fn FixList(props: &FixListProps) -> Html {
    let r = &*props.resource;
    // Fields are named as the differences name them (one notation, the
    // report's `field`).
    let field_name = |pointer: &str| -> String {
        if pointer.is_empty() {
            return "the whole object".into();
        }
        r.differences
            .iter()
            .find(|d| d.pointer == pointer)
            .map(|d| d.field.clone())
            .unwrap_or_else(|| field_of_pointer(pointer))
    };
    let rule_of = |f: &Fix| -> Option<String> {
        let d = r
            .differences
            .iter()
            .find(|d| f.pointers.contains(&d.pointer) && d.cause == f.cause)?;
        rule_title(&props.rules, &d.rule)
    };
    let groups = groups(&r.fixes);
    html! {
        <div class="fix-list">
            <h4 class="fixes-h">{ "Fixes" }</h4>
            for (g, group) in groups.iter().enumerate() {
                <div class="fix-group" role="group" aria-labelledby={format!("fixes-{}-{g}", props.index)}>
                    <h5 class="fix-field" id={format!("fixes-{}-{g}", props.index)}>
                        { format!("{} ", if group.pointers.is_empty() { "For" } else { plural_word(group.pointers.len(), "Field", "Fields") }) }
                        if group.pointers.is_empty() {
                            { "the whole object" }
                        }
                        for (i, p) in group.pointers.iter().enumerate() {
                            if i > 0 { { ", " } }
                            <code class="path">{ field_name(p) }</code>
                        }
                    </h5>
                    <ul class="fixes">
                        for (i, f) in group.fixes.iter().enumerate() {
                            <li><FixView fix={(*f).clone()} title={rule_of(f).unwrap_or_else(|| f.title.clone())}
                                id={format!("fix-{}-{g}-{i}", props.index)} /></li>
                        }
                    </ul>
                </div>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct FixProps {
    pub fix: Fix,
    /// What the fix is about (its rule's title).
    pub title: AttrValue,
    /// Unique element id prefix.
    pub id: AttrValue,
}

/// Prose with `code` spans, one paragraph per blank-line-separated block.
fn prose(text: &str) -> Html {
    html! {
        <div class="fix-prose">
            for para in text.split("\n\n").filter(|p| !p.trim().is_empty()) {
                <p>{ inline_code(para.trim()) }</p>
            }
        </div>
    }
}

#[component]
pub fn FixView(props: &FixProps) -> Html {
    let f = &props.fix;
    let body = match f.kind {
        FixKind::Ignore => match crate::fixes::snippet_forms(&f.snippet) {
            (app, Some(cm)) => html! {
                <>
                    <SnippetTabs id={props.id.clone()} app={AttrValue::from(format!("{app}\n"))} cm={AttrValue::from(cm.to_string())} />
                    // From 3.6: the object's own annotation, to put in Git.
                    if let Some(own) = crate::fixes::annotation_form(&f.snippet) {
                        <Snippet text={AttrValue::from(own.to_string())} label="Copy the annotation form" />
                    }
                </>
            },
            (_, None) => {
                html! { <Snippet text={AttrValue::from(f.snippet.clone())} label="Copy" /> }
            }
        },
        FixKind::Git | FixKind::Render => prose(&f.snippet),
        // What to do (prose), then the annotation to add (code).
        FixKind::SyncOrder => match f.snippet.split_once("\n\n") {
            Some((what, code)) => html! {
                <>
                    { prose(what) }
                    <Snippet text={AttrValue::from(code.to_string())} label="Copy" />
                </>
            },
            None => prose(&f.snippet),
        },
    };
    html! {
        <div class={classes!("fix", format!("fix-{}", fix_kind_id(f.kind)))} data-kind={fix_kind_id(f.kind)}>
            <div class="fix-head">
                <span class="badge fix-kind">{ fix_kind_text(f.kind) }</span>
                <strong class="fix-title">{ props.title.clone() }</strong>
            </div>
            <p class="fix-outcome">
                <VerifiedBadge verified={f.verified} />
                if f.recommended {
                    <span class="badge recommended">{ "Recommended" }</span>
                }
                { " " }{ inline_code(&f.verification) }
            </p>
            if let Some(w) = &f.warning {
                <p class="fix-warning" role="note"><strong>{ "Careful: " }</strong>{ inline_code(w) }</p>
            }
            for e in f.sync_effects.iter().filter(|e| !e.kind.harms()) {
                <p class="fix-on-the-way"><strong>{ "On the way: " }</strong>{ inline_code(&e.message) }</p>
            }
            if !f.collateral.is_empty() {
                <details class="fix-collateral">
                    <summary>{ format!("It would also hide {}", plural(f.collateral.len(), "other difference", "other differences")) }</summary>
                    <ul>
                        for c in f.collateral.iter() {
                            <li>
                                <code class="path">{ c.resource.clone() }</code>{ " " }
                                <code class="path">{ c.pointer.clone() }</code>
                                { format!(" ({}, {} form{})", c.cause.id(), c.form, if c.visible { "" } else { ", already hidden" }) }
                            </li>
                        }
                    </ul>
                </details>
            }
            { body }
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
    // "Copied." goes away by itself (a failure stays: it says what to do).
    {
        let status = status.clone();
        use_effect_with(*status, move |s| {
            let timer =
                (*s == Some(true)).then(|| Timeout::new(COPIED_SHOWN_MS, move || status.set(None)));
            move || drop(timer)
        });
    }
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
