//! The rule catalogue: what each rule means, who changes the field, why it
//! loops, and the fixes. Findings link here by rule code (`#rule-AS001`).
//! The documentation comes from the worker (`Request::Rules`).

use super::protocol::RuleDoc;
use super::state::Shared;
use super::summary::CauseBadge;
use super::util::{focus_element, inline_code};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct RulesProps {
    /// The rule to bring into view.
    pub focus: Option<AttrValue>,
    pub rules: Option<Result<Shared<Vec<RuleDoc>>, String>>,
}

#[component]
pub fn RulesView(props: &RulesProps) -> Html {
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
    frame(html! {
        <>
            <nav aria-label="Rule list" class="rule-index">
                <ul>
                    for r in rules.iter() {
                        <li><a href={format!("#rule-{}", r.code)}>{ r.code.clone() }</a></li>
                    }
                </ul>
            </nav>
            for r in rules.iter() {
                <article id={format!("rule-{}", r.code)} tabindex="-1"
                    class={classes!("rule", (props.focus.as_deref() == Some(r.code.as_str())).then_some("focused"))}
                    aria-labelledby={format!("rule-{}-h", r.code)}>
                    <h3 id={format!("rule-{}-h", r.code)}>{ format!("{} — {}", r.code, r.title) }</h3>
                    <p class="rule-meta">
                        <CauseBadge cause={r.cause} />
                        <span class={classes!("confidence", format!("conf-{}", r.confidence.id()))}>{ format!("{} confidence", r.confidence.id()) }</span>
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
                </article>
            }
        </>
    })
}

fn frame(body: Html) -> Html {
    html! {
        <section class="rules" aria-labelledby="rules-h">
            <p><a href="#analysis">{ "← Back to the report" }</a></p>
            <h2 id="rules-h" tabindex="-1">{ "Rules" }</h2>
            <p class="muted">{ "Rules are tried in this order; the first that matches a difference decides its cause." }</p>
            { body }
        </section>
    }
}
