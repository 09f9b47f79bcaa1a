//! The input half of the page: examples, options, the mode (two sides or
//! diff output), the editors and the user's Argo CD settings.

use super::controller::Controller;
use super::editor::{Edit, Editor};
use super::examples::EXAMPLES;
use super::inputs::Field;
use super::js_text::JsText;
use super::protocol::Mode;
use super::state::{Action, PageState};
use super::util::select_value;
use std::rc::Rc;
use yew::prelude::*;

/// Why the comparison options do not apply to pasted diff output.
/// The older releases offered besides the newest: every line back to the
/// oldest whose comparison differs in a way [`crate::argocd_release::CHANGES`]
/// dates, and the patch releases that date a row (a bare line is compared as
/// its first release).
const RELEASES: &[&str] = &[
    "3.5", "3.4.6", "3.4.5", "3.4.4", "3.4", "3.3.13", "3.3.12", "3.3.11", "3.3", "3.2", "3.1",
    "3.0", "2.14", "2.13", "2.12", "2.11", "2.10",
];

const IN_DIFF_OUTPUT: &str =
    "Pasted diff output already shows what Argo CD or kubectl compared: this option does not apply to it.";

#[derive(Properties, PartialEq)]
pub struct PanelProps {
    pub state: UseReducerHandle<PageState>,
    pub ctl: Controller,
}

#[component]
pub fn InputPanel(props: &PanelProps) -> Html {
    let state = &props.state;
    let ctl = &props.ctl;
    let refs = ctl.refs();
    let mode = state.mode;
    let diff_mode = mode == Mode::Diff;

    let on_edit = |field: Field| {
        let ctl = ctl.clone();
        Callback::from(move |e: Edit| ctl.edited(field, e, mode))
    };
    let on_replace = |field: Field| {
        let ctl = ctl.clone();
        Callback::from(move |text: JsText| ctl.replace_pasted(field, text, mode))
    };
    let on_paste = |field: Field| {
        let ctl = ctl.clone();
        Callback::from(move |text: JsText| -> Option<JsText> { ctl.paste(field, text, mode) })
    };
    let on_file = |field: Field| {
        let ctl = ctl.clone();
        Callback::from(move |file: web_sys::File| ctl.file(field, file, mode))
    };
    let on_show_big = |field: Field| {
        let ctl = ctl.clone();
        Callback::from(move |_| ctl.show_big(field))
    };
    let on_clear = |field: Field| {
        let ctl = ctl.clone();
        Callback::from(move |_| ctl.replace_text(field, String::new(), mode))
    };
    let on_share_file = {
        let ctl = ctl.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e
                .target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(t).ok())
            else {
                return;
            };
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                let opener = ctl.clone();
                ctl.read_file(
                    file,
                    crate::Side::Git,
                    Rc::new(move |text| opener.open_shared(text, false)),
                );
            }
            input.set_value("");
        })
    };
    let on_load_example = {
        let ctl = ctl.clone();
        let state = state.clone();
        Callback::from(move |_: MouseEvent| {
            let name = select_value(&ctl.refs().example);
            ctl.load_example(&name, &state);
        })
    };
    let on_mode = |m: Mode| {
        let ctl = ctl.clone();
        Callback::from(move |_: Event| ctl.set_mode(m))
    };
    let on_check = {
        let ctl = ctl.clone();
        Callback::from(move |_: MouseEvent| ctl.check())
    };
    let on_clear_all = {
        let ctl = ctl.clone();
        let state = state.clone();
        Callback::from(move |_: MouseEvent| ctl.clear(&state))
    };
    let on_analyze = {
        let ctl = ctl.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            ctl.analyze_now(true);
        })
    };
    let on_option_now = {
        let ctl = ctl.clone();
        Callback::from(move |_: Event| ctl.analyze_now(false))
    };
    let on_namespace = {
        let ctl = ctl.clone();
        Callback::from(move |_: InputEvent| ctl.analyze_later())
    };
    let on_dismiss = {
        let dispatch = state.dispatcher();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::Notice(None)))
    };
    let on_undo = {
        let ctl = ctl.clone();
        let undo = state.undo.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(undo) = &undo {
                ctl.undo(undo);
            }
        })
    };
    let on_mode_note_back = {
        let ctl = ctl.clone();
        Callback::from(move |_: MouseEvent| ctl.set_mode(Mode::Sides))
    };
    let settings_error = state.error_for(Field::Settings);
    let evidence_open =
        state.error_for(Field::Application).is_some() || state.error_for(Field::GitAgain).is_some();
    let observed_open =
        state.error_for(Field::Events).is_some() || state.error_for(Field::Logs).is_some();
    let editor = |field: Field, side: &'static str, title: &'static str, hint: &'static str| {
        let big = field.big_slot().and_then(|i| state.big[i]);
        html! {
            <Editor side={side} title={title} node={refs.node(field).clone()} error={state.error_for(field)}
                hint={hint} placeholder={AttrValue::from(field.placeholder())}
                on_edit={on_edit(field)} on_file={on_file(field)} on_replace={on_replace(field)}
                on_paste={matches!(field, Field::Git | Field::Live | Field::Diff).then(|| on_paste(field))}
                big={big} on_show_big={on_show_big(field)} on_clear={on_clear(field)} />
        }
    };

    let on_jump = Callback::from(|_: MouseEvent| super::util::focus_element("report-h"));
    html! {
        <section class="inputs" aria-labelledby="inputs-h">
            <h2 id="inputs-h" class="visually-hidden">{ "Input" }</h2>
            if let Some(n) = &state.notice {
                <div id="notice" class={classes!("notice", n.error.then_some("notice-error"))}
                    role={if n.error { "alert" } else { "status" }}>
                    <p>{ n.text.clone() }</p>
                    <span class="notice-actions">
                        if n.undo && state.undo.is_some() {
                            <button type="button" id="undo" class="button small" onclick={on_undo}>{ "Undo" }</button>
                        }
                        <button type="button" class="button small" onclick={on_dismiss}>{ "Dismiss" }</button>
                    </span>
                </div>
            }
            <form class="controls" onsubmit={on_analyze}>
                <div class="field example-field">
                    <label for="example">{ "Example" }</label>
                    <span class="example-pick">
                        <select id="example" ref={refs.example.clone()}>
                            <option value="">{ "— your own input —" }</option>
                            for ex in EXAMPLES.iter() {
                                <option value={ex.name} selected={Some(ex.name) == state.example}>{ ex.title }</option>
                            }
                        </select>
                        <button type="button" id="load-example" class="button small" onclick={on_load_example}>{ "Load" }</button>
                    </span>
                </div>
                <div class="field">
                    <label for="namespace">{ "Destination namespace" }</label>
                    <input id="namespace" type="text" ref={refs.namespace.clone()} placeholder="for Git objects without one"
                        disabled={diff_mode} title={diff_mode.then_some(IN_DIFF_OUTPUT)}
                        autocomplete="off" spellcheck="false" oninput={on_namespace} />
                </div>
                <div class="field">
                    <label for="strategy">{ "Diff strategy" }</label>
                    <select id="strategy" ref={refs.strategy.clone()} onchange={on_option_now.clone()}
                        disabled={diff_mode} title={diff_mode.then_some(IN_DIFF_OUTPUT)}>
                        <option value="" selected=true>{ "As the Application says (client-side three-way without one)" }</option>
                        <option value="legacy">{ "Client-side three-way, whatever the Application says" }</option>
                        <option value="server-side-apply">{ "Server-side apply" }</option>
                        <option value="server-side-diff">{ "Server-side diff" }</option>
                    </select>
                </div>
                <div class="field">
                    <label for="argocd-version">{ "Argo CD release" }</label>
                    <select id="argocd-version" ref={refs.release.clone()} onchange={on_option_now.clone()}>
                        <option value="" selected=true>{ format!("{} (newest)", crate::argocd_release::NEWEST) }</option>
                        for r in RELEASES.iter() {
                            <option value={*r}>{ *r }</option>
                        }
                    </select>
                </div>
                <div class="field check">
                    <input id="aggregated" type="checkbox" ref={refs.aggregated.clone()} onchange={on_option_now}
                        disabled={diff_mode} title={diff_mode.then_some(IN_DIFF_OUTPUT)} />
                    <label for="aggregated">{ "ignoreAggregatedRoles" }</label>
                </div>
                <div class="form-actions">
                    <input type="file" id="share-file" class="visually-hidden" accept=".json,application/json,text/plain"
                        onchange={on_share_file} />
                    <label for="share-file" class="button small">{ "Open share file…" }</label>
                    <button type="button" id="clear-all" class="button small" onclick={on_clear_all}>{ "Clear" }</button>
                    <button type="button" id="check-render" class="button small" onclick={on_check}
                        disabled={diff_mode} title="Run the prevention checklist on the Git side alone (drift-doctor check)">{ "Check before it ships" }</button>
                    <button type="submit" class="button primary analyze">{ "Analyze" }</button>
                </div>
            </form>
            <fieldset class="mode">
                <legend>{ "Input" }</legend>
                <label class="mode-option">
                    <input type="radio" name="mode" id="mode-sides" checked={!diff_mode} onchange={on_mode(Mode::Sides)} />
                    { " Git and live YAML" }
                </label>
                <label class="mode-option">
                    <input type="radio" name="mode" id="mode-diff" checked={diff_mode} onchange={on_mode(Mode::Diff)} />
                    { " Diff output (argocd app diff, kubectl diff)" }
                </label>
                if state.mode_note && diff_mode {
                    <span class="mode-note" role="status">
                        { "The text looks like diff output, so it is analysed as such. " }
                        <button type="button" class="linklike" onclick={on_mode_note_back}>{ "Back to Git and live" }</button>
                    </span>
                }
            </fieldset>
            <p class="jump"><button type="button" id="jump-to-report" class="linklike" onclick={on_jump}>{ "Jump to the report ↓" }</button></p>
            <div class="editors" hidden={diff_mode}>
                { editor(Field::Git, "git", "Git (desired)",
                    "The manifests Argo CD renders (argocd app manifests --source git, helm template, kustomize build): paste, type or drop them. Diff output switches to diff mode.") }
                { editor(Field::Live, "live", "Live (cluster)",
                    "The objects in the cluster (argocd app manifests --source live, kubectl get -o yaml). Analysis runs as you type.") }
            </div>
            <div class="editors single" hidden={!diff_mode}>
                { editor(Field::Diff, "diff", "Diff output",
                    "What argocd app diff or kubectl diff printed (plain or unified, several apps one after another, copied from a terminal or a ticket).") }
            </div>
            <details class="evidence" open={evidence_open}>
                <summary>{ "The Application's own evidence (optional): its status, sync errors and history, and a second render" }</summary>
                { editor(Field::Application, "application", "Application with its status",
                    "What argocd app get APP -o yaml (or kubectl get application APP -n argocd -o yaml) printed: its ignoreDifferences, sync options and destination namespace apply, and the report shows Argo CD's own verdicts, its sync errors classified and a sync loop in its history.") }
                <div hidden={diff_mode}>
                    { editor(Field::GitAgain, "git-again", "Second render of the same commit",
                        "Run argocd app manifests APP --source git (or helm template) again for the same commit and paste it: fields the two renders disagree on are a non-deterministic render.") }
                </div>
            </details>
            <details class="observed-inputs" open={observed_open}>
                <summary>{ "Events and logs (optional): who changed it, in the cluster's and Argo CD's own words" }</summary>
                { editor(Field::Events, "events", "Events",
                    "What kubectl -n NAMESPACE get events --sort-by=.lastTimestamp printed (a table, -o yaml or -o json, or the Events of kubectl describe): a line that names a differing object's writer decides the cause, and Argo CD's sync events count the loop. Tokens and passwords in them are masked.") }
                { editor(Field::Logs, "logs", "Logs",
                    "Lines of kubectl -n argocd logs deploy/argocd-application-controller or deploy/argocd-repo-server (text or JSON), or a controller's own log: lines naming a differing object are quoted on it, and Argo CD's own errors are classified. Tokens and passwords in them are masked.") }
            </details>
            <details class="settings" open={settings_error.is_some()}>
                <summary>{ "Your Argo CD settings (optional): ignoreDifferences already in place" }</summary>
                { editor(Field::Settings, "settings", "Application and/or argocd-cm YAML",
                    "Paste your Application (spec.ignoreDifferences) and/or argocd-cm (resource.customizations.ignoreDifferences.*, resource.compareoptions), or any ignore snippet of the report: what they hide is reported as not counted, with the rule that hid it.") }
            </details>
        </section>
    }
}
