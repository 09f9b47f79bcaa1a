//! The rule catalogue: what each rule means, who changes the field, why it
//! loops, the fixes and an example, filterable by text, cause and kind.
//! Findings link here by rule code (`#rule-AS001`). The documentation
//! comes from the worker (`Request::Rules` with its texts), asked for when
//! the tab first opens.

use super::protocol::RuleDoc;
use super::state::Shared;
use super::summary::CauseBadge;
use super::util::{focus_element, inline_code, plural};
use crate::Cause;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct RulesProps {
    /// The rule to bring into view.
    pub focus: Option<AttrValue>,
    pub rules: Option<Result<Shared<Vec<RuleDoc>>, String>>,
}

/// The Kubernetes kind of a `group/Kind` pattern (`*`: any).
fn kind_of(pattern: &str) -> &str {
    pattern.rsplit('/').next().unwrap_or(pattern)
}

/// The kinds the rules name, sorted, for the kind filter.
fn all_kinds(rules: &[RuleDoc]) -> Vec<String> {
    let mut kinds: Vec<String> = rules
        .iter()
        .flat_map(|r| r.kinds.iter().map(|k| kind_of(k).to_string()))
        .filter(|k| !k.contains('*') && !k.is_empty())
        .collect();
    crate::sorting::sort(&mut kinds);
    kinds.dedup();
    kinds
}

#[derive(Debug, Clone, PartialEq, Default)]
struct Filter {
    text: String,
    cause: Option<Cause>,
    kind: String,
}

impl Filter {
    fn keeps(&self, r: &RuleDoc) -> bool {
        let text = self.text.trim().to_lowercase();
        let by_text = text.is_empty()
            || r.code.to_lowercase().contains(&text)
            || r.title.to_lowercase().contains(&text)
            || r.sections
                .iter()
                .any(|(_, body)| body.to_lowercase().contains(&text));
        let by_cause = self.cause.is_none_or(|c| c == r.cause);
        let by_kind = self.kind.is_empty()
            || r.kinds.is_empty()
            || r.kinds
                .iter()
                .map(|k| kind_of(k))
                .any(|k| k == self.kind || k == "*");
        by_text && by_cause && by_kind
    }
}

fn target_value(e: &Event) -> String {
    let Some(t) = e.target() else {
        return String::new();
    };
    if let Some(i) = t.dyn_ref::<web_sys::HtmlInputElement>() {
        return i.value();
    }
    t.dyn_ref::<web_sys::HtmlSelectElement>()
        .map(|s| s.value())
        .unwrap_or_default()
}

#[component]
pub fn RulesView(props: &RulesProps) -> Html {
    let filter = use_state(Filter::default);
    {
        let focus = props.focus.clone();
        let loaded = matches!(props.rules, Some(Ok(_)));
        use_effect_with((focus, loaded), |(focus, _)| match focus {
            Some(code) => focus_element(&format!("rule-{code}")),
            None => focus_element("rules-h"),
        });
    }
    let rules = match &props.rules {
        Some(Ok(r)) => r.clone(),
        Some(Err(e)) => return frame(html! { <p class="error-text">{ e.clone() }</p> }),
        None => {
            return frame(html! { <p class="muted" role="status">{ "Loading the rules…" }</p> })
        }
    };
    let on_text = {
        let filter = filter.clone();
        Callback::from(move |e: InputEvent| {
            let text = target_value(&e);
            filter.set(Filter {
                text,
                ..(*filter).clone()
            })
        })
    };
    let on_cause = {
        let filter = filter.clone();
        Callback::from(move |e: Event| {
            filter.set(Filter {
                cause: Cause::from_id(&target_value(&e)),
                ..(*filter).clone()
            })
        })
    };
    let on_kind = {
        let filter = filter.clone();
        Callback::from(move |e: Event| {
            filter.set(Filter {
                kind: target_value(&e),
                ..(*filter).clone()
            })
        })
    };
    let shown: Vec<&RuleDoc> = rules.iter().filter(|r| filter.keeps(r)).collect();
    frame(html! {
        <>
            <div class="rule-filters" role="search" aria-label="Filter the rules">
                <div class="field">
                    <label for="rules-text">{ "Text" }</label>
                    <input id="rules-text" type="text" placeholder="caBundle, replicas, AS001…" autocomplete="off"
                        spellcheck="false" value={filter.text.clone()} oninput={on_text} />
                </div>
                <div class="field">
                    <label for="rules-cause">{ "Cause" }</label>
                    <select id="rules-cause" onchange={on_cause}>
                        <option value="" selected={filter.cause.is_none()}>{ "Any cause" }</option>
                        for c in Cause::ALL {
                            <option value={c.id()} selected={filter.cause == Some(c)}>{ c.label() }</option>
                        }
                    </select>
                </div>
                <div class="field">
                    <label for="rules-kind">{ "Kind" }</label>
                    <select id="rules-kind" onchange={on_kind}>
                        <option value="" selected={filter.kind.is_empty()}>{ "Any kind" }</option>
                        for k in all_kinds(&rules) {
                            <option value={k.clone()} selected={filter.kind == k}>{ k.clone() }</option>
                        }
                    </select>
                </div>
                <p class="rules-count" id="rules-count" role="status">
                    { format!("{} of {}.", plural(shown.len(), "rule", "rules"), rules.len()) }
                </p>
            </div>
            <nav aria-label="Rule list" class="rule-index">
                <ul>
                    for r in shown.iter() {
                        <li><a href={format!("#rule-{}", r.code)}>{ r.code.clone() }</a></li>
                    }
                </ul>
            </nav>
            for r in shown.iter() {
                { rule(r, props.focus.as_deref() == Some(r.code.as_str())) }
            }
        </>
    })
}

fn rule(r: &RuleDoc, focused: bool) -> Html {
    let kinds = if r.kinds.is_empty() {
        "any kind".to_string()
    } else {
        r.kinds.join(", ")
    };
    html! {
        <article id={format!("rule-{}", r.code)} tabindex="-1" data-cause={r.cause.id()}
            class={classes!("rule", focused.then_some("focused"))}
            aria-labelledby={format!("rule-{}-h", r.code)}>
            <h3 id={format!("rule-{}-h", r.code)}>{ format!("{} — {}", r.code, r.title) }</h3>
            <p class="rule-meta">
                <CauseBadge cause={r.cause} />
                <span class={classes!("confidence", format!("conf-{}", r.confidence.id()))}>{ format!("{} confidence", r.confidence.id()) }</span>
                <span class="rule-kinds">{ kinds }</span>
                if let Some(why) = &r.retired { <span class="badge retired">{ format!("retired: {why}") }</span> }
            </p>
            <dl class="rule-docs">
                for (title, body) in r.sections.iter() {
                    <dt>{ title.clone() }</dt>
                    <dd>
                        for para in body.split("\n\n") {
                            <p>{ inline_code(para) }</p>
                        }
                    </dd>
                }
            </dl>
            if let Some(ex) = r.examples.first() {
                <section class="rule-example" aria-label={format!("Example of {}", r.code)}>
                    <h4>{ "Example: " }<code>{ ex.id.clone() }</code>{ ", field " }<code>{ field_of_pointer(&ex.pointer) }</code></h4>
                    if ex.diff.is_empty() {
                        <div class="rule-example-sides">
                            <div><p class="rule-example-side">{ "Git" }</p><pre class="snippet-text" tabindex="0">{ ex.git.clone() }</pre></div>
                            <div><p class="rule-example-side">{ "Live" }</p><pre class="snippet-text" tabindex="0">{ ex.live.clone() }</pre></div>
                        </div>
                    } else {
                        <div><p class="rule-example-side">{ "Diff output" }</p><pre class="snippet-text" tabindex="0" data-example="diff">{ ex.diff.clone() }</pre></div>
                    }
                </section>
            }
        </article>
    }
}

/// A JSON pointer in the page's one path notation (dotted, as the findings
/// name fields).
pub fn field_of_pointer(pointer: &str) -> String {
    crate::text::field_label(&crate::path::dotted(&crate::path::parse_pointer(pointer))).to_string()
}

fn frame(body: Html) -> Html {
    html! {
        <section class="rules" aria-labelledby="rules-h">
            <p><a href="#analysis" id="back-to-report">{ "← Back to the report" }</a></p>
            <h2 id="rules-h" tabindex="-1">{ "Rules" }</h2>
            <p class="muted">{ "Rules are tried in this order; the first that matches a difference decides its cause." }</p>
            { body }
        </section>
    }
}
