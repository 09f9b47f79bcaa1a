//! A resource's Git and live YAML side by side, as Argo CD compares them:
//! a changed value on one row, what Argo CD does not count in grey, each
//! difference of the report linked to its row.

use super::protocol::{
    Line, LINE_GIT, LINE_LIVE, LINE_SAME, MARK_COUNTED, MARK_FOLDED, MARK_HIDDEN, MARK_UNCOMPARED,
};
use super::state::{DiffState, Shared};
use super::util::plural;
use yew::prelude::*;

/// Unchanged runs longer than this are folded (context kept at both ends).
const FOLD_OVER: usize = 12;
const CONTEXT: usize = 3;

enum Row<'a> {
    Pair(Option<&'a Line>, Option<&'a Line>),
    Fold(usize),
}

/// Pair each run of Git-only lines with the Live-only lines that follow it.
fn rows(lines: &[Line], fold: bool) -> Vec<Row<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].tag == LINE_SAME {
            let start = i;
            while i < lines.len() && lines[i].tag == LINE_SAME {
                i += 1;
            }
            let run = &lines[start..i];
            let first = start == 0;
            let last = i == lines.len();
            let keep_head = if first { 0 } else { CONTEXT };
            let keep_tail = if last { 0 } else { CONTEXT };
            if fold && run.len() > FOLD_OVER.max(keep_head + keep_tail + 1) {
                for l in &run[..keep_head] {
                    out.push(Row::Pair(Some(l), Some(l)));
                }
                out.push(Row::Fold(run.len() - keep_head - keep_tail));
                for l in &run[run.len() - keep_tail..] {
                    out.push(Row::Pair(Some(l), Some(l)));
                }
            } else {
                for l in run {
                    out.push(Row::Pair(Some(l), Some(l)));
                }
            }
        } else {
            let mut git = Vec::new();
            let mut live = Vec::new();
            while i < lines.len() && lines[i].tag == LINE_GIT {
                git.push(&lines[i]);
                i += 1;
            }
            while i < lines.len() && lines[i].tag == LINE_LIVE {
                live.push(&lines[i]);
                i += 1;
            }
            if git.iter().chain(&live).any(|l| !l.pointer.is_empty()) {
                // One row per field: a Git line beside the live line of the
                // same field, a field on one side alone on its own row.
                // A pointer is on one line of each side: looked up, so a
                // run of thousands of lines stays linear.
                let mut by_pointer: std::collections::HashMap<&str, usize> = live
                    .iter()
                    .enumerate()
                    .map(|(k, l)| (l.pointer.as_str(), k))
                    .collect();
                let mut paired = vec![false; live.len()];
                for g in &git {
                    match by_pointer.remove(g.pointer.as_str()) {
                        Some(k) => {
                            paired[k] = true;
                            out.push(Row::Pair(Some(g), Some(live[k])));
                        }
                        None => out.push(Row::Pair(Some(g), None)),
                    }
                }
                for (k, l) in live.iter().enumerate() {
                    if !paired[k] {
                        out.push(Row::Pair(None, Some(l)));
                    }
                }
            } else {
                for k in 0..git.len().max(live.len()) {
                    out.push(Row::Pair(git.get(k).copied(), live.get(k).copied()));
                }
            }
        }
    }
    out
}

fn cells(line: Option<&Line>, git_side: bool) -> Html {
    match line {
        None => html! { <><td class="ln"></td><td class="code empty"></td></> },
        Some(l) => {
            let n = if git_side { l.git_line } else { l.live_line };
            let changed = l.tag != LINE_SAME;
            let (class, mark, what) = match (changed, git_side) {
                (false, _) => ("code", " ", ""),
                (true, true) => ("code only-git", "−", "in Git: "),
                (true, false) => ("code only-live", "+", "live: "),
            };
            let (counted, counted_what) = match l.mark {
                MARK_COUNTED => (Some("m-counted"), ""),
                MARK_HIDDEN => (Some("m-grey"), "not counted (hidden): "),
                MARK_UNCOMPARED => (Some("m-grey"), "not compared: "),
                MARK_FOLDED => (Some("m-grey m-folded"), "folded: "),
                _ => (None, ""),
            };
            html! {
                <>
                    <td class="ln">{ n }</td>
                    <td class={classes!(class, counted)}>
                        <span class="mark" aria-hidden="true">{ mark }</span>
                        if !what.is_empty() || !counted_what.is_empty() {
                            <span class="visually-hidden">{ format!("{what}{counted_what}") }</span>
                        }
                        { l.text.clone() }
                    </td>
                </>
            }
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct DiffViewProps {
    pub state: DiffState,
    /// The ids of the rows differences begin on: `{prefix}-{n}` for the
    /// resource's `n`-th difference (`anchors`, by pointer).
    pub prefix: AttrValue,
    pub anchors: Shared<Vec<String>>,
}

/// The id of the row where difference `pointer` begins, if the report has it.
pub fn row_id(prefix: &str, anchors: &[String], pointer: &str) -> Option<String> {
    let n = anchors.iter().position(|p| p == pointer)?;
    Some(format!("{prefix}-{n}"))
}

#[component]
pub fn DiffView(props: &DiffViewProps) -> Html {
    let unfold = use_state(|| false);
    let lines = match &props.state {
        DiffState::Loading => {
            return html! { <p class="muted sbs-status" role="status">{ "Loading the YAML…" }</p> }
        }
        DiffState::Unavailable(note) => {
            return html! { <p class="muted sbs-status" role="status">{ note.clone() }</p> }
        }
        DiffState::Ready(lines, note) => (lines.clone(), note.clone()),
    };
    let (lines, source) = lines;
    let changed = lines.iter().filter(|l| l.tag != LINE_SAME).count();
    // Most differing lines of a compared view are the server's (defaults,
    // bookkeeping) and greyed: say how many Argo CD counts, so the number
    // never reads as the count of changes.
    let counted = lines
        .iter()
        .filter(|l| l.tag != LINE_SAME && l.mark == MARK_COUNTED)
        .count();
    let differing = if lines.iter().any(|l| !l.pointer.is_empty()) {
        match counted {
            0 if changed == 0 => plural(changed, "differing line", "differing lines"),
            n if n == changed => format!(
                "{}, counted by Argo CD",
                plural(changed, "differing line", "differing lines")
            ),
            n => format!(
                "{}, {n} of them counted by Argo CD (the others grey)",
                plural(changed, "differing line", "differing lines")
            ),
        }
    } else {
        plural(changed, "differing line", "differing lines")
    };
    let all = rows(&lines, !*unfold);
    let folded = all.iter().any(|r| matches!(r, Row::Fold(_)));
    let show_all = {
        let unfold = unfold.clone();
        Callback::from(move |_: MouseEvent| unfold.set(!*unfold))
    };
    html! {
        <div class="sbs-wrap">
            <p class="sbs-note">
                if source.is_empty() {
                    { format!("{differing}; Git on the left, live on the right. Server bookkeeping (managedFields) is left out and Secret values are masked.") }
                } else {
                    { format!("{differing}; Git on the left, live on the right. {source}") }
                }
                if folded || *unfold {
                    { " " }
                    <button type="button" class="button small" onclick={show_all}>
                        { if *unfold { "Fold unchanged lines" } else { "Show all lines" } }
                    </button>
                }
            </p>
            <div class="sbs" role="region" aria-label="Git and live YAML side by side" tabindex="0">
                <table class="sbs-table">
                    <colgroup><col class="col-ln" /><col /><col class="col-ln" /><col /></colgroup>
                    <thead><tr><th scope="col" colspan="2">{ "Git (desired)" }</th><th scope="col" colspan="2">{ "Live (cluster)" }</th></tr></thead>
                    <tbody>
                        for row in all.iter() {
                            { match row {
                                Row::Pair(g, l) => {
                                    let id = g.or(*l)
                                        .and_then(|x| x.anchor.as_deref())
                                        .and_then(|p| row_id(&props.prefix, &props.anchors, p));
                                    html! { <tr id={id.clone()} tabindex={id.map(|_| "-1")}>{ cells(*g, true) }{ cells(*l, false) }</tr> }
                                }
                                Row::Fold(n) => html! { <tr class="fold"><td colspan="4">{ format!("⋯ {n} unchanged lines") }</td></tr> },
                            } }
                        }
                    </tbody>
                </table>
            </div>
        </div>
    }
}
