//! Messages between the page and the analysis worker (bincode-encoded with
//! gloo's codec, so only plain data: the report travels as its JSON text).

use crate::share::{ShareState, OPTION_SETTINGS};
use serde::{Deserialize, Serialize};

/// What the page analyses: both sides, or pasted diff output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Mode {
    #[default]
    Sides,
    Diff,
}

impl Mode {
    /// The name used in share links (`ShareState::mode`).
    pub fn name(self) -> &'static str {
        match self {
            Mode::Sides => "sides",
            Mode::Diff => "diff",
        }
    }

    pub fn from_name(name: &str) -> Mode {
        if name == "diff" {
            Mode::Diff
        } else {
            Mode::Sides
        }
    }
}

/// What to analyse: both sides' text (or the diff text) and the options the
/// page offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Input {
    pub mode: Mode,
    pub git: String,
    pub live: String,
    /// `argocd app diff` / `kubectl diff` output (mode `Diff`).
    pub diff: String,
    /// The user's Application and/or argocd-cm YAML (their ignoreDifferences
    /// and compare options), possibly empty.
    pub settings: String,
    /// The Application with its status (`argocd app get APP -o yaml`), possibly empty.
    #[serde(default)]
    pub application: String,
    /// A second render of the same commit (sides mode), possibly empty.
    #[serde(default)]
    pub git_again: String,
    /// `kubectl get events` (any form `--events` reads), possibly empty.
    #[serde(default)]
    pub events: String,
    /// Argo CD's or a controller's log lines, possibly empty.
    #[serde(default)]
    pub logs: String,
    pub namespace: String,
    /// A `Strategy` id (`legacy`, `server-side-apply`, `server-side-diff`),
    /// which wins over a pasted Application's; empty for the Application's
    /// own (legacy without one).
    pub strategy: String,
    pub ignore_aggregated_roles: bool,
    /// The Argo CD release to imitate (`MAJOR.MINOR`); empty for the newest.
    #[serde(default)]
    pub argocd_version: String,
    /// Also compute the differences Argo CD does not count (several times
    /// slower on big inputs, so only when the page shows them).
    pub include_hidden: bool,
}

/// A Git and live pair for [`Request::WarmUp`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarmUpPair {
    pub git: String,
    pub live: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Analyse `input`; `seq` numbers requests so stale answers can be dropped.
    /// `timed_out` lists the jq expressions an earlier run of the same
    /// analysis did not finish in time (the page ended that worker): they
    /// are skipped with a warning, as the CLI skips them.
    Analyze {
        seq: u32,
        input: Input,
        timed_out: Vec<JqExpression>,
    },
    /// The side-by-side YAML of one resource of the analysis `seq`.
    Texts { seq: u32, id: String },
    /// The rule catalogue's documentation (the page itself does not parse
    /// the catalogue: that keeps YAML and regex code out of its wasm). Without
    /// `texts`, only what the report's cards name (titles, causes, kinds,
    /// evidence); with it, the rules' docs and examples too, which the worker
    /// loads the first time they are asked for (the Rules tab).
    Rules { texts: bool },
    /// Encode the page's state for a link (Secret values masked first).
    Share(ShareState),
    /// Decode a link fragment, a whole link or a share file's text.
    Restore(String),
    /// Run the analysis on these pairs (the page's examples) a few times, so
    /// that the browser has compiled the hot code with its optimising tier
    /// before the user's first large input (the first run is otherwise much
    /// slower). The page sends them: the worker's wasm carries no examples.
    WarmUp(Vec<WarmUpPair>),
    /// Read these YAML units (see `input::yaml_units`): what a second worker
    /// is asked while the first reads the rest of a large side.
    ParseUnits { id: u32, units: Vec<String> },
    /// The whole resources at these places of the analysis `seq` (the page
    /// receives only those it shows).
    Resources { seq: u32, indices: Vec<usize> },
    /// The whole report of the analysis `seq` as a file or as Markdown.
    Export { seq: u32, format: Export },
    /// Run `drift-doctor check` on the Git side of `input` (with its second
    /// render and settings when given): the page's check before it ships.
    Check { input: Input },
}

/// What a report is exported as.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Export {
    /// report-v1 JSON, pretty-printed, for the download.
    Json,
    /// Markdown for a ticket, with the link to the analysis when it fits in one.
    Markdown { link: Option<String> },
}

/// One resource as the resource list needs it before its card is drawn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceLine {
    pub id: String,
    pub status: crate::Status,
    /// The causes of its differences Argo CD counts (the cause filter's).
    pub causes: Vec<crate::Cause>,
}

/// Cards per page of the resource list (the worker sends the first page's
/// cards with the report).
pub const PAGE_SIZE: usize = 50;

/// The places of `lines` in the order the page lists them: out of sync
/// first, then in report order.
pub fn out_of_sync_first(lines: &[ResourceLine]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..lines.len()).collect();
    crate::sorting::sort_by_key(&mut order, |&i| lines[i].status != crate::Status::OutOfSync);
    order
}

/// An analysis as the page receives it: the report without its resources,
/// a line per resource, and in full only the resources it shows first. A
/// report of thousands of resources is megabytes of JSON, which would hold
/// the page up to read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportWindow {
    /// report-v1 JSON with `resources` empty.
    pub report: String,
    pub lines: Vec<ResourceLine>,
    /// The places (in `lines`) of the resources in `first`.
    pub first: Vec<usize>,
    /// Those resources, each as its JSON: the page reads the ones it has
    /// drawn already at once and may read the others a step later.
    pub first_json: Vec<String>,
    /// The diff strategy compared with (`Strategy::id`), after the
    /// Application's and settings' own: the summary names it.
    pub strategy: String,
    /// The whole plan, when `report`'s plan lists are cut to what the page
    /// draws first (`PlanTails::any`).
    pub plan_rest: Option<PlanRest>,
}

/// How many entries of one plan list the page draws until "Show all" is
/// pressed, and so receives with the report.
pub const PLAN_ENTRIES_SHOWN: usize = 20;

/// The plan beyond the entries the page draws first: a plan for an app
/// missing from the cluster lists every resource twice (1.2 MB of JSON for
/// 1,500 resources, which took the page 13 ms to read, in the task that
/// shows the report, before drawing twenty entries of each list).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanRest {
    /// The whole lists' lengths.
    pub lengths: PlanLengths,
    /// The whole plan, report-v1's `plan` as JSON, read when first needed.
    pub json: String,
}

/// The lengths of a plan's lists as the page draws them: each group of
/// `plan::step_groups`, then the fields left (drift, then unresolved).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PlanLengths {
    pub steps: [usize; 4],
    pub left: usize,
}

impl PlanLengths {
    pub fn of(plan: &crate::Plan) -> PlanLengths {
        PlanLengths {
            steps: crate::plan::step_groups(plan).map(|(_, list)| list.len()),
            left: plan.drift.len() + plan.unresolved.len(),
        }
    }
}

/// The entries of a plan's lists past the first `PLAN_ENTRIES_SHOWN`, moved
/// out of the plan (to send what the page draws first) and back.
pub struct PlanTails {
    git: Vec<crate::PlanStep>,
    sync_order: Vec<crate::PlanStep>,
    render: Vec<crate::PlanStep>,
    later: Vec<crate::PlanStep>,
    drift: Vec<crate::PlanField>,
    unresolved: Vec<crate::PlanField>,
}

impl PlanTails {
    /// Cut each of `plan`'s lists to its first entries (a list no longer
    /// stays whole). The page draws the first entries of the fields left
    /// (drift, then unresolved) as one list: cutting both keeps that list's
    /// first entries too.
    pub fn split_off(plan: &mut crate::Plan) -> PlanTails {
        fn tail<T>(list: &mut Vec<T>) -> Vec<T> {
            list.split_off(list.len().min(PLAN_ENTRIES_SHOWN))
        }
        PlanTails {
            git: tail(&mut plan.git),
            sync_order: tail(&mut plan.sync_order),
            render: tail(&mut plan.render),
            later: tail(&mut plan.later),
            drift: tail(&mut plan.drift),
            unresolved: tail(&mut plan.unresolved),
        }
    }

    /// Whether a list of `plan` is longer than the page draws first.
    pub fn any(plan: &crate::Plan) -> bool {
        let long = |n: usize| n > PLAN_ENTRIES_SHOWN;
        let steps = PlanLengths::of(plan).steps;
        steps.into_iter().any(long) || long(plan.drift.len()) || long(plan.unresolved.len())
    }

    /// Make `plan` whole again.
    pub fn put_back(self, plan: &mut crate::Plan) {
        plan.git.extend(self.git);
        plan.sync_order.extend(self.sync_order);
        plan.render.extend(self.render);
        plan.later.extend(self.later);
        plan.drift.extend(self.drift);
        plan.unresolved.extend(self.unresolved);
    }
}

/// A jq expression of the user's settings and the rule it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JqExpression {
    /// The rule, as the core's warnings name it.
    pub source: String,
    pub expr: String,
}

/// What the worker sends the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FromWorker {
    /// The worker's code is loaded: requests posted from now on are read.
    Ready,
    /// The answer to the oldest request not yet answered.
    Answer(Response),
    /// A jq expression started on one object and has `limit_ms` to finish:
    /// past that the page ends the worker, since jaq cannot be interrupted
    /// from inside and the worker has no other thread.
    JqStarted {
        expression: JqExpression,
        limit_ms: f64,
    },
    /// The expression in evaluation finished.
    JqFinished,
}

/// One rule's documentation, for the rules view and the findings' links.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleDoc {
    pub code: String,
    pub title: String,
    pub cause: crate::Cause,
    pub confidence: crate::Confidence,
    pub retired: Option<String>,
    /// The `group/Kind` patterns the rule matches (empty: any kind).
    pub kinds: Vec<String>,
    /// (heading, text) in the catalogue's fixed order.
    pub sections: Vec<(String, String)>,
    /// The rule's runnable examples (the catalogue tests them).
    pub examples: Vec<RuleExample>,
}

/// One example of a rule: the two sides, and the field it explains.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleExample {
    pub id: String,
    pub pointer: String,
    pub git: String,
    pub live: String,
    /// Diff output the example is read from (empty when it has two sides).
    pub diff: String,
}

/// An input problem, with `side` as `Side::name()` (`git`, `live`, `diff`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorInfo {
    pub side: String,
    pub document: usize,
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The core's one-line description (`live side, document 2, line 9, ...`).
    pub text: String,
}

impl ErrorInfo {
    pub fn general(message: impl Into<String>) -> ErrorInfo {
        let message = message.into();
        ErrorInfo {
            side: String::new(),
            document: 0,
            line: 0,
            column: 0,
            text: message.clone(),
            message,
        }
    }
}

impl From<&crate::InputError> for ErrorInfo {
    fn from(e: &crate::InputError) -> ErrorInfo {
        ErrorInfo {
            side: e.side.name().to_string(),
            document: e.document,
            line: e.line,
            column: e.column,
            message: e.message.clone(),
            text: e.to_string(),
        }
    }
}

/// The side name of errors in the pasted Argo CD settings.
pub const SETTINGS_SIDE: &str = "settings";
/// The `ErrorInfo::side` of an error in the pasted Application.
pub const APPLICATION_SIDE: &str = "application";
/// The side name of errors in the pasted events.
pub const EVENTS_SIDE: &str = "events";
/// The side name of errors in the pasted logs.
pub const LOGS_SIDE: &str = "logs";

/// Which side a diff line belongs to.
pub const LINE_SAME: u8 = 0;
pub const LINE_GIT: u8 = 1;
pub const LINE_LIVE: u8 = 2;

/// One line of the side-by-side diff (`git_line`/`live_line` are 1-based, 0 = none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub tag: u8,
    pub git_line: u32,
    pub live_line: u32,
    pub text: String,
    /// The field the line shows ("" in a plain line diff): a Git line and
    /// a live line of one field are one row.
    pub pointer: String,
    /// How Argo CD counts it (`MARK_*`).
    pub mark: u8,
    /// The report's difference that begins on this line.
    pub anchor: Option<String>,
}

pub const MARK_PLAIN: u8 = 0;
pub const MARK_COUNTED: u8 = 1;
pub const MARK_HIDDEN: u8 = 2;
pub const MARK_UNCOMPARED: u8 = 3;
pub const MARK_FOLDED: u8 = 4;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Response {
    /// The check report as its JSON text (`tests/contract/check-v1.schema.json`),
    /// or why an input cannot be used.
    Checked {
        outcome: Result<String, String>,
    },
    /// The report (what the page shows of it), or the input error; `millis` is the
    /// time spent in the worker.
    Analyzed {
        seq: u32,
        outcome: Result<ReportWindow, ErrorInfo>,
        millis: f64,
        /// What a second worker did meanwhile.
        helped: Help,
    },
    /// The YAML diff lines of one resource, or `None` with a note.
    Texts {
        seq: u32,
        id: String,
        lines: Option<Vec<Line>>,
        note: String,
    },
    /// The answer to `Request::Rules`, with its `texts`.
    Rules {
        texts: bool,
        docs: Result<Vec<RuleDoc>, String>,
    },
    Shared(Shared),
    /// The state a link or share file holds, or why it cannot be read.
    Restored(Result<ShareState, String>),
    WarmedUp,
    /// The value of each unit asked for, as a JSON array (`null` for a unit
    /// that does not read on its own: the analysis reads it again and
    /// reports where). JSON, as the messages' binary encoding cannot carry
    /// self-describing values.
    ParsedUnits {
        id: u32,
        values: String,
    },
    /// The resources asked for, as a JSON array in the order asked (empty
    /// when `seq` is no longer the worker's last analysis).
    Resources {
        seq: u32,
        indices: Vec<usize>,
        json: String,
    },
    /// The exported report, or None when `seq` is no longer the last.
    Exported {
        seq: u32,
        format: Export,
        text: Option<String>,
    },
}

impl Response {
    /// The answer to `request` when it could not be answered, `message`
    /// saying why (None for a link to encode: the page keeps waiting, which
    /// is what a missing answer does).
    pub fn failed(request: &Request, message: &str) -> Option<Response> {
        let message = message.to_string();
        Some(match request {
            Request::Analyze { seq, .. } => Response::Analyzed {
                seq: *seq,
                outcome: Err(ErrorInfo::general(message)),
                millis: 0.0,
                helped: Help::default(),
            },
            Request::Texts { seq, id } => Response::Texts {
                seq: *seq,
                id: id.clone(),
                lines: None,
                note: message,
            },
            Request::Rules { texts } => Response::Rules {
                texts: *texts,
                docs: Err(message),
            },
            Request::Check { .. } => Response::Checked {
                outcome: Err(message),
            },
            Request::Restore(_) => Response::Restored(Err(message)),
            Request::WarmUp(_) => Response::WarmedUp,
            Request::Resources { seq, indices } => Response::Resources {
                seq: *seq,
                indices: indices.clone(),
                json: String::new(),
            },
            Request::Export { seq, format } => Response::Exported {
                seq: *seq,
                format: format.clone(),
                text: None,
            },
            Request::ParseUnits { id, .. } => Response::ParsedUnits {
                id: *id,
                values: String::new(),
            },
            Request::Share(_) => return None,
        })
    }
}

/// What a second worker did for an analysis.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Help {
    /// How many YAML units it read.
    pub units: usize,
    /// It was ended afterwards, to give back the memory its part took
    /// (a worker's memory never shrinks), and a new one is started.
    pub renewed: bool,
}

/// An encoded state: the fragment (without `#`), how many Secret values were
/// masked, and the share file's text when the fragment is too long for a link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shared {
    pub fragment: String,
    pub masked: usize,
    pub file: Option<String>,
}

impl Input {
    /// Two sides with every option at its default.
    pub fn sides(git: &str, live: &str) -> Input {
        Input {
            mode: Mode::Sides,
            git: git.to_string(),
            live: live.to_string(),
            diff: String::new(),
            settings: String::new(),
            application: String::new(),
            git_again: String::new(),
            events: String::new(),
            logs: String::new(),
            namespace: String::new(),
            strategy: String::new(),
            ignore_aggregated_roles: false,
            argocd_version: String::new(),
            include_hidden: false,
        }
    }

    /// The strategy the page's user chose, which wins over the Application's;
    /// None for "as the Application says".
    pub fn strategy_given(&self) -> Option<crate::Strategy> {
        crate::Strategy::from_id(&self.strategy)
    }

    /// The Argo CD release the input asks for (the newest when it names
    /// none or one this build cannot read).
    pub fn release(&self) -> crate::ArgoCdRelease {
        crate::ArgoCdRelease::parse(self.argocd_version.trim()).unwrap_or_default()
    }

    /// What the page's fields ask for, as every shell says it.
    pub fn request(&self) -> crate::Request {
        let namespace = self.namespace.trim();
        crate::Request {
            namespace: (!namespace.is_empty()).then(|| namespace.to_string()),
            strategy: self.strategy_given(),
            release: self.release(),
            ignore_aggregated_roles: self.ignore_aggregated_roles,
            include_hidden: self.include_hidden,
        }
    }

    /// The state a link carries: this input, and the resource the user had
    /// open. Defaults are left out so that links stay short.
    pub fn to_share(&self, selected: Option<String>) -> ShareState {
        let mut state = ShareState {
            mode: self.mode.name().to_string(),
            namespace: self.namespace.clone(),
            selected,
            ..ShareState::default()
        };
        match self.mode {
            Mode::Sides => {
                state.git = self.git.clone();
                state.live = self.live.clone();
            }
            Mode::Diff => state.diff = self.diff.clone(),
        }
        state.set_request(
            &self.request(),
            &self.settings,
            !self.application.trim().is_empty(),
        );
        // The field as typed: a namespace with spaces around it still reads the same.
        state.namespace = self.namespace.clone();
        state.set_evidence(&self.application, &self.git_again);
        state.set_observed(
            std::slice::from_ref(&self.events),
            std::slice::from_ref(&self.logs),
        );
        state
    }

    /// The input a link restores (unknown options are ignored: a newer
    /// page's link still opens).
    pub fn from_share(state: &ShareState) -> Input {
        let request = state.request();
        let (events, logs) = state.observed_texts();
        Input {
            mode: Mode::from_name(&state.mode),
            git: state.git.clone(),
            live: state.live.clone(),
            diff: state.diff.clone(),
            settings: state.option(OPTION_SETTINGS),
            application: state.option(crate::share::OPTION_APPLICATION),
            git_again: state.option(crate::share::OPTION_GIT_AGAIN),
            // The page has one field each: several texts of a link join.
            events: events.join("\n"),
            logs: logs.join("\n"),
            namespace: state.namespace.clone(),
            strategy: request
                .strategy
                .map(|s| s.id().to_string())
                .unwrap_or_default(),
            ignore_aggregated_roles: request.ignore_aggregated_roles,
            argocd_version: if state
                .options
                .contains_key(crate::share::OPTION_ARGOCD_VERSION)
            {
                request.release.to_string()
            } else {
                String::new()
            },
            include_hidden: false,
        }
    }
}

/// Encode `message` and post it with `post`, handing over (not copying) the
/// encoded bytes: an analysis request carries the pasted megabytes.
#[cfg(target_arch = "wasm32")]
pub fn post_encoded<T: Serialize>(
    message: &T,
    post: impl FnOnce(
        &wasm_bindgen::JsValue,
        &wasm_bindgen::JsValue,
    ) -> Result<(), wasm_bindgen::JsValue>,
) -> Result<(), wasm_bindgen::JsValue> {
    use gloo::worker::Codec;
    let encoded = gloo::worker::Bincode::encode(message);
    let transfer = js_sys::Array::new();
    if let Some(bytes) = wasm_bindgen::JsCast::dyn_ref::<js_sys::Uint8Array>(&encoded) {
        transfer.push(&bytes.buffer());
    }
    post(&encoded, &transfer)
}
