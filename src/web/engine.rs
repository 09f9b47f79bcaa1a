//! The analysis itself, as the worker runs it: the core's `analyze`, and the
//! per-resource YAML texts on demand (cached for the last analysis).

use super::protocol::{
    ErrorInfo, Export, Input, JqExpression, Line, Mode, PlanLengths, PlanRest, PlanTails,
    ReportWindow, Request, ResourceLine, Response, RuleDoc, RuleExample, Shared, APPLICATION_SIDE,
    EVENTS_SIDE, LINE_GIT, LINE_LIVE, LINE_SAME, LOGS_SIDE, MARK_COUNTED, MARK_FOLDED, MARK_HIDDEN,
    MARK_PLAIN, MARK_UNCOMPARED, SETTINGS_SIDE,
};
use crate::application::Application;
use crate::ignore::jq::Executor;
use crate::input::preamble;
use crate::share;
use crate::sorting::CollectByInsertion;
use crate::view::{self, LineMark, LineTag, ResourceObjects};
use crate::{Options, Report, Side, Strategy};
use std::collections::BTreeMap;

/// The options the page passes to the core: the page's own fields, the
/// pasted Argo CD settings and the pasted Application, resolved as every
/// shell resolves them ([`crate::Request::resolve`]).
pub fn options(input: &Input) -> Result<Options, ErrorInfo> {
    options_and_application(input).map(|(opts, _)| opts)
}

/// An error of one of the page's own fields.
fn error_of(e: &crate::InputError, side: &str) -> ErrorInfo {
    let mut info = ErrorInfo::from(e);
    info.side = side.to_string();
    info
}

/// [`options`], and the pasted Application, read.
fn options_and_application(input: &Input) -> Result<(Options, Option<Application>), ErrorInfo> {
    let app = if input.application.trim().is_empty() {
        None
    } else {
        Some(Application::parse(&input.application).map_err(|e| error_of(&e, APPLICATION_SIDE))?)
    };
    let opts = input
        .request()
        .resolve(
            &[(SETTINGS_SIDE, input.settings.as_str())],
            app.as_ref().map(|a| (APPLICATION_SIDE, a)),
        )
        .map_err(|e| error_of(&e.error, e.source))?;
    // The worker's clock for each jq rule's time budget (the core has none).
    #[cfg(target_arch = "wasm32")]
    opts.compare
        .jq
        .set_clock(|| std::time::Duration::from_secs_f64(js_sys::Date::now().max(0.0) / 1000.0));
    Ok((opts, app))
}

/// The pasted events and logs, read (None when both are empty); an error
/// names its field and line.
fn observed(input: &Input) -> Result<Option<crate::evidence::Observed>, ErrorInfo> {
    if !ANSWERS_ALL || (input.events.trim().is_empty() && input.logs.trim().is_empty()) {
        return Ok(None);
    }
    let texts = |t: &str| -> Vec<String> {
        (!t.trim().is_empty())
            .then(|| t.to_string())
            .into_iter()
            .collect()
    };
    let (events, logs) = (texts(&input.events), texts(&input.logs));
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let logs: Vec<&str> = logs.iter().map(String::as_str).collect();
    crate::evidence::read(&events, &logs)
        .map(Some)
        .map_err(|e| {
            let side = if e.input.starts_with("events") {
                EVENTS_SIDE
            } else {
                LOGS_SIDE
            };
            ErrorInfo {
                side: side.to_string(),
                document: 0,
                line: e.line,
                column: 0,
                message: e.message.clone(),
                text: format!("{side}, line {}: {}", e.line, e.message),
            }
        })
}

/// Analyse an input as the page asks: both sides, or the pasted diff text,
/// with the Application and the second render when given.
pub fn analyze(input: &Input) -> Result<Report, ErrorInfo> {
    analyze_with(input, &[], None, &mut crate::ParseCache::default())
}

/// [`analyze`], skipping the jq expressions that timed out in an earlier run
/// and running the others with `executor` when given; sides `parsed` holds
/// are not parsed again.
pub fn analyze_with(
    input: &Input,
    timed_out: &[JqExpression],
    executor: Option<&Executor>,
    parsed: &mut crate::ParseCache,
) -> Result<Report, ErrorInfo> {
    analyze_as(input, timed_out, executor, parsed).map(|(report, _)| report)
}

/// [`analyze_with`], and the diff strategy it compared with.
fn analyze_as(
    input: &Input,
    timed_out: &[JqExpression],
    executor: Option<&Executor>,
    parsed: &mut crate::ParseCache,
) -> Result<(Report, Strategy), ErrorInfo> {
    let (opts, app) = options_and_application(input)?;
    if let Some(executor) = executor {
        opts.compare.jq.set_executor(executor.clone());
    }
    for e in timed_out {
        opts.compare.jq.mark_timed_out(&e.source, &e.expr);
    }
    let git_again = (input.mode == Mode::Sides && !input.git_again.trim().is_empty())
        .then_some(input.git_again.as_str());
    let observed = observed(input)?;
    let evidence = crate::Evidence {
        application: app.as_ref(),
        git_again,
        observed: observed.as_ref(),
    };
    let result = match input.mode {
        Mode::Sides => {
            crate::analyze_cached(parsed, &input.git, &input.live, &opts, evidence).map(|mut r| {
                // The reader learns which pasted lines were not read.
                let sides = [
                    (input.git.as_str(), Side::Git),
                    (input.live.as_str(), Side::Live),
                ];
                let notes = sides
                    .into_iter()
                    .chain(git_again.map(|t| (t, Side::SecondRender)))
                    .filter_map(|(text, side)| preamble(text).map(|p| p.note(side)));
                r.warnings.splice(0..0, notes);
                r
            })
        }
        Mode::Diff if ANSWERS_ALL => crate::analyze_diff_with(&input.diff, &opts, evidence),
        Mode::Diff => return Err(ErrorInfo::general(LEFT_OUT)),
    };
    result
        .map(|r| (r, opts.compare.strategy))
        .map_err(|e| ErrorInfo::from(&e))
}

/// Encode a state for a link, or for a share file when the link would be too long.
pub fn share_state(state: &share::ShareState) -> Shared {
    let (fragment, masked) = share::encode_fragment(state);
    let file =
        (fragment.len() > share::MAX_LINK_FRAGMENT).then(|| share::share_file_text(&fragment));
    Shared {
        fragment,
        masked,
        file,
    }
}

/// Whether this build's engine answers every request. The page's first
/// worker is built with `lean-worker`: it leaves out what a paste of the two
/// sides never needs (reading diff output, events and logs, the check) and
/// hands those requests to the full worker (see [`for_full_worker`]), which
/// the browser fetches only then.
pub const ANSWERS_ALL: bool = !cfg!(feature = "lean-worker");

/// Whether the lean worker hands `request` to the full worker:
/// `last_analysis_there` says where the last analysis went, as the texts,
/// resources and exports of an analysis come from the engine that made it.
pub fn for_full_worker(request: &Request, last_analysis_there: bool) -> bool {
    match request {
        Request::Analyze { input, .. } => {
            input.mode == Mode::Diff
                || !input.events.trim().is_empty()
                || !input.logs.trim().is_empty()
        }
        Request::Texts { .. } | Request::Resources { .. } | Request::Export { .. } => {
            last_analysis_there
        }
        Request::Check { .. } => true,
        // Links are made and opened here: a link opened is a first paste
        // too, and a link is copied at once.
        Request::Share(_)
        | Request::Restore(_)
        | Request::Rules { .. }
        | Request::WarmUp(_)
        | Request::ParseUnits { .. } => false,
    }
}

/// The answer of an engine built without what `request` needs (it is never
/// asked: the lean worker hands such requests on).
fn left_out(request: &Request) -> Response {
    Response::failed(request, LEFT_OUT).unwrap_or(Response::WarmedUp)
}

/// Why an engine built without something does not answer for it.
const LEFT_OUT: &str = "this worker was built without it";

/// Rounds over the pairs of `Request::WarmUp`.
const WARM_UP_ROUNDS: usize = 8;

/// The last analysis asked for.
struct Last {
    seq: u32,
    input: Input,
    /// The jq expressions the request said to skip.
    timed_out: Vec<JqExpression>,
    /// The two sides' texts were analysed and are the parse cache's: they
    /// are not kept in `input` a second time.
    sides_held: bool,
}

#[derive(Default)]
pub struct Engine {
    /// How jq evaluations run (the worker tells the page about each one).
    jq_executor: Option<Executor>,
    last: Option<Last>,
    /// The sides last parsed: pasting Git, then live, parses Git once.
    pub(super) parsed: crate::ParseCache,
    objects: Option<(u32, BTreeMap<String, ResourceObjects>)>,
    diff_views: Option<(u32, BTreeMap<String, Vec<Line>>)>,
    /// The last report made: the page receives a window of it and asks for
    /// more. An input error keeps it, as the page keeps showing it then.
    report: Option<(u32, Report)>,
}

/// What the page receives of `report` first: everything but the resources,
/// with the plan's lists cut to the entries the page draws first (the whole
/// plan beside it, read when asked for), a line for each resource, and in
/// full the first page of the list (out of sync first, as the page lists
/// them).
pub fn report_window(report: &mut Report) -> Result<ReportWindow, serde_json::Error> {
    let resources = std::mem::take(&mut report.resources);
    // The whole plan's text first, then its lists cut for the report.
    let mut plan_rest = None;
    let mut tails = None;
    if let Some(plan) = report.plan.as_mut().filter(|plan| PlanTails::any(plan)) {
        plan_rest = Some((PlanLengths::of(plan), serde_json::to_string(plan)));
        tails = Some(PlanTails::split_off(plan));
    }
    let without = serde_json::to_string(&*report);
    // The report is whole again before any error is returned.
    if let (Some(tails), Some(plan)) = (tails, report.plan.as_mut()) {
        tails.put_back(plan);
    }
    report.resources = resources;
    let plan_rest = plan_rest
        .map(|(lengths, json)| json.map(|json| PlanRest { lengths, json }))
        .transpose()?;
    let lines: Vec<ResourceLine> = report
        .resources
        .iter()
        .map(|r| {
            let mut causes: Vec<crate::Cause> = r
                .differences
                .iter()
                .filter(|d| d.visible)
                .map(|d| d.cause)
                .collect();
            crate::sorting::sort(&mut causes);
            causes.dedup();
            ResourceLine {
                id: r.id.clone(),
                status: r.status,
                causes,
            }
        })
        .collect();
    let mut first = super::protocol::out_of_sync_first(&lines);
    first.truncate(super::protocol::PAGE_SIZE);
    let first_json = first
        .iter()
        .map(|&i| serde_json::to_string(&report.resources[i]))
        .collect::<Result<_, _>>()?;
    Ok(ReportWindow {
        report: without?,
        lines,
        first_json,
        first,
        strategy: String::new(),
        plan_rest,
    })
}

/// The worker's clock (ms); natively, where the engine only makes the
/// page's first report, there is none and analyses take no time.
fn now() -> f64 {
    #[cfg(target_arch = "wasm32")]
    return js_sys::Date::now();
    #[cfg(not(target_arch = "wasm32"))]
    return 0.0;
}

impl Engine {
    /// An engine whose jq evaluations run through `executor`.
    pub fn with_jq_executor(executor: Executor) -> Engine {
        Engine {
            jq_executor: Some(executor),
            ..Engine::default()
        }
    }

    /// The last analysis asked for, as its request: to answer it again
    /// (once the jq module is loaded) without a copy of its texts made
    /// beforehand, as they are held here.
    pub fn last_analysis(&self) -> Option<Request> {
        let last = self.last.as_ref()?;
        let mut input = last.input.clone();
        if last.sides_held {
            input.git = self.parsed.text(Side::Git)?.to_string();
            input.live = self.parsed.text(Side::Live)?.to_string();
        }
        Some(Request::Analyze {
            seq: last.seq,
            input,
            timed_out: last.timed_out.clone(),
        })
    }

    /// Answer one request.
    pub fn handle(&mut self, request: Request) -> Response {
        // A lean engine refuses here what it leaves out; the `ANSWERS_ALL`
        // conditions below are what leave that code out of its build.
        if !ANSWERS_ALL && for_full_worker(&request, false) {
            return left_out(&request);
        }
        match request {
            Request::Analyze {
                seq,
                input,
                timed_out,
            } => {
                let start = now();
                let outcome = analyze_as(
                    &input,
                    &timed_out,
                    self.jq_executor.as_ref(),
                    &mut self.parsed,
                )
                .and_then(|(mut report, strategy)| {
                    let window = report_window(&mut report)
                        .map(|w| ReportWindow {
                            // Diff output shows what was compared already.
                            strategy: if input.mode == Mode::Sides {
                                strategy.id().into()
                            } else {
                                String::new()
                            },
                            ..w
                        })
                        .map_err(|e| {
                            ErrorInfo::general(format!("could not encode the report: {e}"))
                        });
                    self.report = Some((seq, report));
                    window
                });
                self.objects = None;
                self.diff_views = None;
                let mut input = input;
                // A good analysis of two sides went through the parse
                // cache, which now holds their texts: one copy is enough.
                let sides_held = outcome.is_ok() && input.mode == Mode::Sides;
                if sides_held {
                    input.git = String::new();
                    input.live = String::new();
                }
                self.last = Some(Last {
                    seq,
                    input,
                    timed_out,
                    sides_held,
                });
                Response::Analyzed {
                    seq,
                    outcome,
                    millis: now() - start,
                    helped: Default::default(),
                }
            }
            Request::Texts { seq, id } => {
                let (lines, note) = self.lines(seq, &id);
                Response::Texts {
                    seq,
                    id,
                    lines,
                    note,
                }
            }
            Request::Rules { texts } => Response::Rules {
                texts,
                docs: rule_docs(texts),
            },
            Request::Share(state) => Response::Shared(share_state(&state)),
            Request::Restore(text) => {
                Response::Restored(share::decode_share_file(&text).map_err(|e| e.to_string()))
            }
            Request::WarmUp(pairs) => {
                let opts = Options::default();
                for _ in 0..WARM_UP_ROUNDS {
                    for pair in &pairs {
                        if let Ok(report) = crate::analyze(&pair.git, &pair.live, &opts) {
                            let _ = serde_json::to_string(&report);
                        }
                    }
                }
                Response::WarmedUp
            }
            Request::Resources { seq, indices } => {
                let json = match &self.report {
                    Some((last, report)) if *last == seq => {
                        let asked: Vec<&crate::ResourceReport> = indices
                            .iter()
                            .filter_map(|&i| report.resources.get(i))
                            .collect();
                        serde_json::to_string(&asked).unwrap_or_default()
                    }
                    _ => String::new(),
                };
                Response::Resources { seq, indices, json }
            }
            Request::Export { seq, format } => {
                let text = match &self.report {
                    Some((last, report)) if *last == seq => Some(export(report, &format)),
                    _ => None,
                };
                Response::Exported { seq, format, text }
            }
            Request::Check { input } if ANSWERS_ALL => Response::Checked {
                outcome: check_json(&input),
            },
            left @ Request::Check { .. } => left_out(&left),
            Request::ParseUnits { id, units } => {
                let values: Vec<Option<serde_json::Value>> =
                    units.iter().map(|u| crate::input::parse_unit(u)).collect();
                Response::ParsedUnits {
                    id,
                    values: serde_json::to_string(&values).unwrap_or_default(),
                }
            }
        }
    }

    fn lines(&mut self, seq: u32, id: &str) -> (Option<Vec<Line>>, String) {
        let Some(Last {
            seq: last_seq,
            input,
            sides_held,
            ..
        }) = &self.last
        else {
            return (None, "Nothing analysed yet.".into());
        };
        if *last_seq != seq {
            return (None, "The input changed; open the diff again.".into());
        }
        if input.mode == Mode::Diff {
            if !ANSWERS_ALL {
                return (None, LEFT_OUT.into());
            }
            if self.diff_views.as_ref().is_none_or(|(s, _)| *s != seq) {
                match view::diff_text_lines(&input.diff) {
                    Ok(map) => {
                        let map = map
                            .into_iter()
                            .map(|(id, lines)| (id, lines.into_iter().map(line_of).collect()))
                            .collect_by_insertion();
                        self.diff_views = Some((seq, map));
                    }
                    Err(e) => return (None, e.to_string()),
                }
            }
            return match self.diff_views.as_ref().and_then(|(_, m)| m.get(id)) {
                Some(lines) => (Some(lines.clone()), DIFF_TEXT_SOURCE.into()),
                None => (
                    None,
                    "No lines of the pasted diff output for this resource.".into(),
                ),
            };
        }
        let opts = match options(input) {
            Ok(opts) => opts,
            Err(e) => return (None, e.text),
        };
        if self.objects.as_ref().is_none_or(|(s, _)| *s != seq) {
            // The sides the analysis parsed are still held: not parsed again.
            let held = (*sides_held)
                .then(|| {
                    self.parsed
                        .held(Side::Git)
                        .zip(self.parsed.held(Side::Live))
                })
                .flatten();
            let objects = match held {
                Some(((git, git_docs), (live, live_docs))) => {
                    view::resource_objects_of(git, git_docs, live, live_docs, &opts)
                }
                None => view::resource_objects(&input.git, &input.live, &opts),
            };
            match objects {
                Ok(map) => self.objects = Some((seq, map)),
                Err(e) => return (None, e.to_string()),
            }
        }
        let Some(o) = self.objects.as_ref().and_then(|(_, m)| m.get(id)) else {
            return (None, "No YAML for this resource.".into());
        };
        let resource = self
            .report
            .as_ref()
            .filter(|(s, _)| *s == seq)
            .and_then(|(_, r)| r.resources.iter().find(|r| r.id == id));
        let (group, kind) = resource
            .map(|r| (r.group.as_str(), r.kind.as_str()))
            .unwrap_or_default();
        let how = view::compared::Comparison {
            group,
            kind,
            keep_status: !opts
                .compare
                .ignore_resource_status_field
                .ignores(group, kind),
            ignore_aggregated_roles: opts.compare.ignore_aggregated_roles,
            differences: resource
                .map(|r| r.differences.as_slice())
                .unwrap_or_default(),
        };
        let lines = view::compared::compared_lines(o.git.as_ref(), o.live.as_ref(), &how);
        (
            Some(lines.into_iter().map(line_of).collect()),
            COMPARED_SOURCE.into(),
        )
    }
}

/// What the compared view shows, said above it.
const COMPARED_SOURCE: &str = "One line per field, as Argo CD compares them: a changed value is one row, fields Argo CD does not count are grey, the last-applied annotation is folded, managedFields are left out and Secret values are masked.";

/// Where the side-by-side lines come from in diff mode.
/// The whole report as a file or as Markdown for a ticket.
fn export(report: &Report, format: &Export) -> String {
    match format {
        Export::Json => serde_json::to_string_pretty(report).unwrap_or_default() + "\n",
        Export::Markdown { link } => {
            let mut text = crate::render::markdown::render(report, link.as_deref());
            if link.is_none() {
                text.push_str("\n_The inputs are too large for a link: attach the share file (Copy link, then Download share file) to open this analysis in drift-doctor._\n");
            }
            text
        }
    }
}

const DIFF_TEXT_SOURCE: &str = "These are the lines of the pasted diff output (numbered as in the text, Secret values masked): diff output shows only the changed parts of an object.";

fn line_of(l: view::DiffLine) -> Line {
    Line {
        tag: match l.tag {
            LineTag::Same => LINE_SAME,
            LineTag::Git => LINE_GIT,
            LineTag::Live => LINE_LIVE,
        },
        git_line: l.git_line.unwrap_or(0) as u32,
        live_line: l.live_line.unwrap_or(0) as u32,
        text: l.text,
        pointer: l.pointer,
        mark: match l.mark {
            LineMark::Plain => MARK_PLAIN,
            LineMark::Counted => MARK_COUNTED,
            LineMark::Hidden => MARK_HIDDEN,
            LineMark::Uncompared => MARK_UNCOMPARED,
            LineMark::Folded => MARK_FOLDED,
        },
        anchor: l.anchor,
    }
}

/// The heading of the evidence sentence a rule or sync-error pattern
/// writes, so the Rules tab finds a sentence seen in a report.
const EVIDENCE_HEADING: &str = "What the report says";

/// The catalogue's documentation, with the section headings of `explain`
/// and the evidence each rule writes, then the sync errors recognised in an
/// Application's status (`SE…`), so both are found in the Rules tab.
/// Without `texts`, the rules' docs and examples are left out.
pub fn rule_docs(texts: bool) -> Result<Vec<RuleDoc>, String> {
    let catalog = crate::rules::catalog();
    let texts = if texts { rule_texts()? } else { Vec::new() };
    if !texts.is_empty()
        && (texts.len() != catalog.rules.len()
            || texts
                .iter()
                .zip(&catalog.rules)
                .any(|(t, r)| t.code != r.code))
    {
        return Err("the rules' documentation does not belong to this version of drift-doctor: reload the page".to_string());
    }
    let rules = catalog.rules.iter().enumerate().map(|(i, r)| {
        let text = texts.get(i);
        let mut sections: Vec<(String, String)> = text
            .map(|t| {
                t.docs
                    .sections()
                    .iter()
                    .map(|(h, t)| (h.to_string(), t.trim().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        sections.push((EVIDENCE_HEADING.to_string(), r.evidence.trim().to_string()));
        RuleDoc {
            code: r.code.clone(),
            title: r.title.clone(),
            cause: r.cause,
            confidence: r.confidence,
            retired: r.retired.clone(),
            kinds: r.matcher.kinds.clone(),
            examples: text
                .map(|t| {
                    t.examples
                        .iter()
                        .map(|e| RuleExample {
                            id: e.id.clone(),
                            pointer: e.pointer.clone(),
                            git: e.git.clone(),
                            live: e.live.clone(),
                            diff: e.diff.clone().unwrap_or_default(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            sections,
        }
    });
    let sync_errors = crate::application::sync_errors::patterns()?
        .iter()
        .map(|p| {
            let mut sections = vec![
                ("What it means".to_string(), p.docs.trim().to_string()),
                (
                    "A message it recognises".to_string(),
                    p.example.trim().to_string(),
                ),
                (EVIDENCE_HEADING.to_string(), p.evidence.trim().to_string()),
                ("How to fix it".to_string(), p.fix.trim().to_string()),
            ];
            if let Some(risk) = &p.risk {
                sections.push(("The fix's risk".to_string(), risk.trim().to_string()));
            }
            RuleDoc {
                code: p.code.clone(),
                title: p.title.clone(),
                cause: p.cause,
                confidence: crate::Confidence::Medium,
                retired: None,
                kinds: p.kinds.clone(),
                sections,
                examples: Vec::new(),
            }
        });
    Ok(rules.chain(sync_errors).collect())
}

/// Each rule's docs and examples, in catalogue order. The page's worker
/// analyses without them (see `rules::CATALOG`) and loads them from the
/// file the page's build ships beside it; natively they are embedded.
fn rule_texts() -> Result<Vec<crate::rules::RuleText>, String> {
    #[cfg(target_arch = "wasm32")]
    let json = super::worker::rule_texts()?;
    #[cfg(not(target_arch = "wasm32"))]
    let json = crate::rules::RULE_TEXTS.to_string();
    serde_json::from_str(&json).map_err(|e| format!("the rules' documentation cannot be read: {e}"))
}

/// The script the page's build ships with the rules' docs and examples
/// (`rule_texts`): it sets the worker's global `driftDoctorRuleTexts` to
/// their JSON.
pub fn rule_texts_script() -> String {
    let json = serde_json::to_string(crate::rules::RULE_TEXTS).unwrap_or_default();
    format!("self.driftDoctorRuleTexts = {json};\n")
}

/// The check of the page's Git side (with the second render and the
/// settings when they are given), as its JSON text.
pub fn check_json(input: &Input) -> Result<String, String> {
    let release = if input.argocd_version.trim().is_empty() {
        crate::ArgoCdRelease::default()
    } else {
        crate::ArgoCdRelease::parse(input.argocd_version.trim())?
    };
    fn given(s: &str) -> Option<&str> {
        (!s.trim().is_empty()).then_some(s)
    }
    let report = crate::check::check(&crate::check::CheckInput {
        git: &input.git,
        git_again: given(&input.git_again),
        // The page's settings field holds an Application and/or argocd-cm.
        app: given(&input.settings),
        argocd_cm: None,
        release,
        namespace: given(&input.namespace),
    })
    .map_err(|e| e.to_string())?;
    serde_json::to_string(&report).map_err(|e| e.to_string())
}

/// The lean engine (`cargo test --lib --features lean-worker`): it answers
/// exactly what the lean worker keeps, and says it was built without the
/// rest rather than answering it wrongly.
#[cfg(all(test, feature = "lean-worker"))]
mod lean_tests {
    use super::*;
    use crate::web::protocol::WarmUpPair;

    const GIT: &str =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: b\ndata:\n  k: one\n";
    const LIVE: &str =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: b\ndata:\n  k: two\n";

    fn analysis(input: Input) -> Request {
        Request::Analyze {
            seq: 1,
            input,
            timed_out: Vec::new(),
        }
    }

    fn left_out_answer(answer: &Response) -> bool {
        match answer {
            Response::Shared(shared) => shared.fragment.is_empty(),
            Response::Analyzed { outcome, .. } => {
                outcome.as_ref().is_err_and(|e| e.text == LEFT_OUT)
            }
            Response::Texts { note, .. } => note == LEFT_OUT,
            Response::Checked { outcome: Err(why) } | Response::Restored(Err(why)) => {
                why == LEFT_OUT
            }
            _ => false,
        }
    }

    #[test]
    fn the_lean_engine_answers_what_the_lean_worker_keeps_and_leaves_out_the_rest() {
        let sides = Input::sides(GIT, LIVE);
        let mut diff = Input::sides("", "");
        diff.mode = Mode::Diff;
        diff.diff = "===== /ConfigMap b/a ======\n7c7\n<   k: two\n---\n>   k: one\n".into();
        let mut events = sides.clone();
        events.events = "LAST SEEN   TYPE     REASON   OBJECT          MESSAGE\n1m          Normal   Sync     configmap/a     synced\n".into();
        let requests = [
            (analysis(sides.clone()), false),
            (analysis(diff), true),
            (analysis(events), true),
            (
                Request::Check {
                    input: sides.clone(),
                },
                true,
            ),
            (Request::Restore("#v1.x".into()), false),
            (Request::Share(sides.to_share(None)), false),
            (
                Request::WarmUp(vec![WarmUpPair {
                    git: GIT.into(),
                    live: LIVE.into(),
                }]),
                false,
            ),
        ];
        for (request, left_out) in requests {
            assert_eq!(for_full_worker(&request, false), left_out, "{request:?}");
            let answer = Engine::default().handle(request.clone());
            if left_out {
                assert!(left_out_answer(&answer), "{request:?}: {answer:?}");
            } else {
                assert!(!left_out_answer(&answer), "{request:?}: {answer:?}");
            }
        }
        let mut engine = Engine::default();
        let id = match engine.handle(analysis(sides)) {
            Response::Analyzed {
                outcome: Ok(window),
                ..
            } => window.lines[0].id.clone(),
            other => panic!("{other:?}"),
        };
        match engine.handle(Request::Texts { seq: 1, id }) {
            Response::Texts { lines, note, .. } => assert!(lines.is_some(), "{note}"),
            other => panic!("{other:?}"),
        }
    }
}
