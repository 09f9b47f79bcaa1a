//! The input half of the page: examples, options, the mode (two sides or
//! diff output), the editors and the user's Argo CD settings.

use super::editor::{BigInfo, Edit, Editor};
use super::examples::EXAMPLES;
use super::inputs::{error_of_field, Field, Refs};
use super::js_text::JsText;
use super::protocol::{ErrorInfo, Mode};
use super::state::Notice;
use super::util::select_value;
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

/// What the input half of the page asks for: each a callback the page
/// (`app`) builds over its controller and state.
#[derive(Clone, PartialEq)]
pub struct InputActions {
    /// A field's text was edited.
    pub edited: Callback<(Field, Edit)>,
    /// A field's text was replaced by a paste held as the browser's string.
    pub replace_pasted: Callback<(Field, JsText)>,
    /// A paste into a field: the text to let the field take, if any.
    pub paste: Callback<(Field, JsText), Option<JsText>>,
    /// A file dropped or chosen for a field.
    pub file: Callback<(Field, web_sys::File)>,
    /// Show a large side held outside its field.
    pub show_big: Callback<Field>,
    /// Empty one field.
    pub clear_field: Callback<Field>,
    /// A share file chosen to open.
    pub open_share_file: Callback<web_sys::File>,
    /// Load the example named by the menu (empty: the user's own input).
    pub load_example: Callback<String>,
    /// Switch between the two sides and diff output.
    pub set_mode: Callback<Mode>,
    /// Run the check before it ships.
    pub check: Callback<()>,
    /// Empty every field (undoable).
    pub clear_all: Callback<()>,
    /// Analyse now (`true`: the user asked, by the Analyze button).
    pub analyze_now: Callback<bool>,
    /// Analyse once typing pauses.
    pub analyze_later: Callback<()>,
    /// Close the notice.
    pub dismiss_notice: Callback<()>,
    /// Put back what the fields held before the last example or Clear.
    pub undo: Callback<()>,
}

/// The input half's props: what it shows and what it asks for.
#[derive(Properties, PartialEq)]
pub struct InputPanelProps {
    /// Two sides or diff output.
    pub mode: Mode,
    /// The text looked like diff output, so the page switched to diff mode.
    pub mode_note: bool,
    /// The example the fields hold, unedited.
    pub example: Option<&'static str>,
    /// Sides held outside their fields because they are large.
    pub big: [Option<BigInfo>; 3],
    /// The message about the page itself, if any.
    pub notice: Option<Notice>,
    /// Whether an Undo can put earlier input back.
    pub can_undo: bool,
    /// The input's error, shown on the field it belongs to.
    pub error: Option<ErrorInfo>,
    /// The fields' and controls' nodes (the controller reads them).
    pub refs: Refs,
    /// What the panel asks for.
    pub actions: InputActions,
}

#[component]
pub fn InputPanel(props: &InputPanelProps) -> Html {
    let actions = &props.actions;
    let refs = &props.refs;
    let mode = props.mode;
    let diff_mode = mode == Mode::Diff;
    let error_for = |field: Field| error_of_field(props.error.as_ref(), field);

    let on_edit = |field: Field| {
        let edited = actions.edited.clone();
        Callback::from(move |e: Edit| edited.emit((field, e)))
    };
    let on_replace = |field: Field| {
        let replace = actions.replace_pasted.clone();
        Callback::from(move |text: JsText| replace.emit((field, text)))
    };
    let on_paste = |field: Field| {
        let paste = actions.paste.clone();
        Callback::from(move |text: JsText| -> Option<JsText> { paste.emit((field, text)) })
    };
    let on_file = |field: Field| {
        let file = actions.file.clone();
        Callback::from(move |f: web_sys::File| file.emit((field, f)))
    };
    let on_show_big = |field: Field| {
        let show = actions.show_big.clone();
        Callback::from(move |_| show.emit(field))
    };
    let on_clear = |field: Field| {
        let clear = actions.clear_field.clone();
        Callback::from(move |_| clear.emit(field))
    };
    let on_share_file = {
        let open = actions.open_share_file.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e
                .target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(t).ok())
            else {
                return;
            };
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                open.emit(file);
            }
            input.set_value("");
        })
    };
    let on_load_example = {
        let load = actions.load_example.clone();
        let example = refs.example.clone();
        Callback::from(move |_: MouseEvent| load.emit(select_value(&example)))
    };
    let on_mode = |m: Mode| {
        let set_mode = actions.set_mode.clone();
        Callback::from(move |_: Event| set_mode.emit(m))
    };
    let on_check = actions.check.reform(|_: MouseEvent| ());
    let on_clear_all = actions.clear_all.reform(|_: MouseEvent| ());
    let on_analyze = actions.analyze_now.reform(|e: SubmitEvent| {
        e.prevent_default();
        true
    });
    let on_option_now = actions.analyze_now.reform(|_: Event| false);
    let on_namespace = actions.analyze_later.reform(|_: InputEvent| ());
    let on_dismiss = actions.dismiss_notice.reform(|_: MouseEvent| ());
    let on_undo = actions.undo.reform(|_: MouseEvent| ());
    let on_mode_note_back = actions.set_mode.reform(|_: MouseEvent| Mode::Sides);
    let settings_error = error_for(Field::Settings);
    let evidence_open =
        error_for(Field::Application).is_some() || error_for(Field::GitAgain).is_some();
    let observed_open = error_for(Field::Events).is_some() || error_for(Field::Logs).is_some();
    let editor = |field: Field, side: &'static str, title: &'static str, hint: &'static str| {
        let big = field.big_slot().and_then(|i| props.big[i]);
        html! {
            <Editor side={side} title={title} node={refs.node(field).clone()} error={error_for(field)}
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
            if let Some(n) = &props.notice {
                <div id="notice" class={classes!("notice", n.error.then_some("notice-error"))}
                    role={if n.error { "alert" } else { "status" }}>
                    <p>{ n.text.clone() }</p>
                    <span class="notice-actions">
                        if n.undo && props.can_undo {
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
                                <option value={ex.name} selected={Some(ex.name) == props.example}>{ ex.title }</option>
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
                if props.mode_note && diff_mode {
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
