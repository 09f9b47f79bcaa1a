//! The rule catalogue: what each rule means, who changes the field, why it
//! loops, and the fixes. Findings link here by rule code (`#rule-AS001`).

use super::summary::CauseBadge;
use super::util::{focus_element, inline_code};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct RulesProps {
    /// The rule to bring into view.
    pub focus: Option<AttrValue>,
}

#[component]
pub fn RulesView(props: &RulesProps) -> Html {
    {
        let focus = props.focus.clone();
        use_effect_with(focus, |focus| {
            match focus {
                Some(code) => focus_element(&format!("rule-{code}")),
                None => focus_element("rules-h"),
            }
        });
    }
    let catalog = match drift_doctor::rules::catalog() {
        Ok(c) => c,
        Err(e) => {
            return html! { <section class="rules"><h2 id="rules-h" tabindex="-1">{ "Rules" }</h2><p class="error-text">{ e.to_string() }</p></section> }
        }
    };
    html! {
        <section class="rules" aria-labelledby="rules-h">
            <p><a href="#analysis">{ "← Back to the report" }</a></p>
            <h2 id="rules-h" tabindex="-1">{ "Rules" }</h2>
            <p class="muted">{ "Rules are tried in this order; the first that matches a difference decides its cause." }</p>
            <nav aria-label="Rule list" class="rule-index">
                <ul>
                    for r in catalog.rules.iter() {
                        <li><a href={format!("#rule-{}", r.code)}>{ r.code.clone() }</a></li>
                    }
                </ul>
            </nav>
            for r in catalog.rules.iter() {
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
                        { section("What it means", &r.docs.meaning) }
                        { section("Who changes it", &r.docs.who) }
                        { section("Why it loops", &r.docs.why_loops) }
                        { section("How to fix it in Git", &r.docs.git_fix) }
                        { section("How to ignore it safely", &r.docs.ignore) }
                        { section("What the ignore could hide", &r.docs.risk) }
                    </dl>
                </article>
            }
        </section>
    }
}

fn section(title: &str, body: &str) -> Html {
    html! {
        <>
            <dt>{ title.to_string() }</dt>
            <dd>
                for para in body.trim().split("\n\n") {
                    <p>{ inline_code(para) }</p>
                }
            </dd>
        </>
    }
}
