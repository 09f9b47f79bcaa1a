//! The web worker: receives `Request`s, answers each with a `Response`, in
//! order. The page stays responsive however long the core takes, and can
//! end the worker when a jq expression outlives its budget (the worker
//! announces each evaluation, see [`FromWorker::JqStarted`]).
//!
//! A large side is read by two workers at once: this one starts a helper
//! (the same program, named [`HELPER_NAME`]) and hands it the later part of
//! the side's YAML documents while it reads the other side and the earlier
//! part itself, then takes the helper's values (see `input::Preparsed`).
//! Whatever the helper does not deliver is read here, so a helper that
//! fails or is missing changes nothing but the time taken. A helper that
//! read a large part is replaced by a new one, as its memory never shrinks.
//!
//! The page's analysis worker is built lean (see `engine::ANSWERS_ALL`): it
//! hands what it leaves out to the full worker, which it starts the first
//! time it needs it, and posts its answers on, in order. The page ends the
//! full worker with this one.

use super::engine::{for_full_worker, Engine, ANSWERS_ALL};
use super::js_text::read_request;
use super::protocol::{post_encoded, FromWorker, Help, JqExpression, Request, Response};
use crate::ignore::jq::{Evaluation, Executor, Job};
use crate::input::{parse_unit, yaml_units, Preparsed};
use crate::Side;
use gloo::timers::callback::Timeout;
use gloo::worker::{Bincode, Codec};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// The helper worker's name, by which it knows not to start one itself.
const HELPER_NAME: &str = "drift-doctor-helper";

/// A side at least this large is shared with the helper: below it,
/// the messages cost about what sharing saves.
const SHARED_FROM_BYTES: usize = 512 * 1024;

/// The least time the helper is given for its part, in milliseconds (or
/// three times what this worker took for its own, when longer).
const HELPER_DEADLINE_MIN_MS: u32 = 2000;

/// After reading a part at least this large, the helper is ended and a
/// new one started: reading it grew the helper's memory to many times the
/// part's size, and a worker's memory never shrinks.
const RENEW_HELPER_FROM_BYTES: usize = 4 << 20;

/// How long after that the new helper starts: by then the analysis the old
/// one helped has its report, so the new one's warm-up does not compete.
const RENEW_HELPER_AFTER_MS: u32 = 1000;

/// The helper's share of the YAML to read (both sides), in percent. This
/// worker also reads the helper's values back from JSON; since plain block
/// YAML is read a line at a time, that costs less beside its own reading,
/// and about half is quickest (46% and 54% measured alike, 38% slower).
const HELPER_SHARE_PERCENT: usize = 50;

/// The global the rules' docs script sets to their JSON (see
/// `engine::rule_texts_script`); the one-file page sets it before the wasm
/// starts.
const RULE_TEXTS_GLOBAL: &str = "driftDoctorRuleTexts";

/// The global the worker's loader sets to that script's versioned URL
/// (scripts/build-web.sh), and the script's name without it.
const RULE_TEXTS_URL_GLOBAL: &str = "driftDoctorRuleTextsUrl";
const RULE_TEXTS_SCRIPT: &str = "drift-doctor-rule-texts.js";

/// The rules' docs and examples as JSON, loaded (`importScripts`, which
/// waits) the first time they are asked for: the analysis never needs them.
pub fn rule_texts() -> Result<String, String> {
    let global = js_sys::global();
    let get = |name: &str| {
        js_sys::Reflect::get(&global, &JsValue::from_str(name))
            .ok()
            .filter(|v| !v.is_undefined())
    };
    if get(RULE_TEXTS_GLOBAL).is_none() {
        let url = get(RULE_TEXTS_URL_GLOBAL)
            .and_then(|v| v.as_string())
            .unwrap_or_else(|| RULE_TEXTS_SCRIPT.to_string());
        get("importScripts")
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            .ok_or("this worker cannot load scripts")?
            .call1(&global, &JsValue::from_str(&url))
            .map_err(|e| {
                format!(
                    "the rules' documentation could not be loaded: {}",
                    js_sys::Error::from(e).message()
                )
            })?;
    }
    get(RULE_TEXTS_GLOBAL)
        .and_then(|v| v.as_string())
        .ok_or_else(|| "the rules' documentation did not load".to_string())
}

/// The global the worker's loader sets to the full worker's versioned URL
/// (scripts/build-web.sh), and the full worker's loader without it.
const FULL_WORKER_URL_GLOBAL: &str = "driftDoctorFullWorkerUrl";
const FULL_WORKER_LOADER: &str = "drift-doctor-full-worker_loader.js";

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(message: FromWorker) {
    // A message that cannot be posted has no one to be reported to.
    let _ = post_encoded(&message, |m, transfer| {
        scope().post_message_with_transfer(m, transfer)
    });
}

fn now() -> f64 {
    js_sys::Date::now()
}

/// Runs each jq evaluation here, telling the page when it starts and ends:
/// the page ends this worker when an evaluation outlives `limit`.
fn announcing_executor() -> Executor {
    std::sync::Arc::new(|evaluation: &Evaluation<'_>, job: Job, limit: Duration| {
        post(FromWorker::JqStarted {
            expression: JqExpression {
                source: evaluation.source.to_string(),
                expr: evaluation.expr.to_string(),
            },
            limit_ms: limit.as_secs_f64() * 1000.0,
        });
        let outcome = job();
        post(FromWorker::JqFinished);
        Some(outcome)
    })
}

/// The helper worker, once started.
struct Helper {
    worker: web_sys::Worker,
    /// It has warmed up (messages posted before it said `Ready` could be
    /// lost), and has not failed.
    ready: bool,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(web_sys::Event)>,
}

impl Helper {
    /// End the helper's worker (its memory goes with it) and never ask it
    /// again. It stays in the state while its handlers may be running.
    fn end(&mut self) {
        self.ready = false;
        self.worker.terminate();
    }
}

/// The full worker, once started.
struct FullWorker {
    worker: web_sys::Worker,
    /// It has said it reads messages.
    ready: bool,
    /// The request handed to it and not answered yet.
    asked: Option<Request>,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(web_sys::Event)>,
}

impl FullWorker {
    /// Post the request it was handed, once it is ready; false when that
    /// failed.
    fn post_asked(&self) -> bool {
        match (&self.asked, self.ready) {
            (Some(request), true) => post_encoded(request, |m, transfer| {
                self.worker.post_message_with_transfer(m, transfer)
            })
            .is_ok(),
            _ => true,
        }
    }
}

/// An analysis one of whose sides the helper is reading in part.
struct Pending {
    id: u32,
    /// The side the helper reads part of.
    side: Side,
    request: Request,
    /// The units asked of the helper, to pair with its values.
    asked: Vec<String>,
    /// The values read here, then the helper's.
    preparsed: Preparsed,
    started: f64,
    /// Past it, the helper's part is read here (see [`give_up_on_helper`]).
    deadline: Option<Timeout>,
}

#[derive(Default)]
struct State {
    engine: Engine,
    helper: Option<Helper>,
    pending: Option<Pending>,
    /// Starts a new helper after the last one was ended for its memory.
    renewal: Option<Timeout>,
    /// Requests that arrived while the jq module loads, oldest first: the
    /// first of them needs it.
    waiting_for_jq: Option<Vec<Request>>,
    /// The pairs the page's warm-up sent, for the helper's own warm-up.
    warm_up: Vec<super::protocol::WarmUpPair>,
    full: Option<FullWorker>,
    /// Requests that arrived while the full worker answers one, oldest first.
    waiting_for_full: Option<Vec<Request>>,
    /// The last analysis went to the full worker.
    last_analysis_there: bool,
}

type Shared = Rc<RefCell<State>>;

/// Start answering the page's requests.
pub fn start() {
    #[cfg(not(feature = "jq-engine"))]
    crate::ignore::jq::install_engine(std::sync::Arc::new(super::jq_module::engine()));
    let state: Shared = Rc::new(RefCell::new(State {
        engine: Engine::with_jq_executor(announcing_executor()),
        ..State::default()
    }));
    let on_message = {
        let state = state.clone();
        Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            on_request(&state, read_request(event.data()));
        })
    };
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post(FromWorker::Ready);
}

fn on_request(state: &Shared, request: Request) {
    let Some(request) = unless_waiting(state, request) else {
        return;
    };
    if !ANSWERS_ALL {
        let Ok(mut s) = state.try_borrow_mut() else {
            return;
        };
        if for_full_worker(&request, s.last_analysis_there) {
            drop(s);
            return hand_to_full_worker(state, request);
        }
        if matches!(request, Request::Analyze { .. }) {
            s.last_analysis_there = false;
        }
    }
    #[cfg(not(feature = "jq-engine"))]
    if super::jq_module::needed_for(&request) {
        return load_jq_module_then(state, request);
    }
    answer(state, request);
}

/// Answers go in order: `request` is queued behind one that waits for the
/// jq module or for the full worker's answer, if any, and given back
/// otherwise.
fn unless_waiting(state: &Shared, request: Request) -> Option<Request> {
    if let Ok(mut s) = state.try_borrow_mut() {
        let s = &mut *s;
        if let Some(waiting) = s.waiting_for_jq.as_mut().or(s.waiting_for_full.as_mut()) {
            waiting.push(request);
            return None;
        }
    }
    Some(request)
}

/// Hand `request` to the full worker (started now if need be); later
/// requests wait for its answer.
fn hand_to_full_worker(state: &Shared, request: Request) {
    // An analysis waiting for the helper is answered first.
    finish_pending(state, None);
    let Some(request) = unless_waiting(state, request) else {
        return;
    };
    if state.borrow().full.is_none() {
        if let Err(why) = start_full_worker(state) {
            return full_worker_failed(state, Some(request), &why);
        }
    }
    let Ok(mut s) = state.try_borrow_mut() else {
        return;
    };
    if let Request::Analyze { .. } = request {
        s.last_analysis_there = true;
    }
    s.waiting_for_full = Some(Vec::new());
    let Some(full) = s.full.as_mut() else { return };
    // Posted now, or when it says it is ready.
    full.asked = Some(request);
    if !full.post_asked() {
        drop(s);
        full_worker_failed(state, None, "a request could not be posted");
    }
}

/// The full worker answered (or failed): post its answer to the page, then
/// take the requests that waited, in order.
fn after_full_worker(state: &Shared, answer: Option<Response>) {
    if let Some(answer) = answer {
        post(FromWorker::Answer(answer));
    }
    let waiting = match state.try_borrow_mut() {
        Ok(mut s) => s.waiting_for_full.take(),
        Err(_) => return,
    };
    for request in waiting.unwrap_or_default() {
        on_request(state, request);
    }
}

/// The full worker could not start or stopped: the request it had (or
/// `request`, when none could be started to take it) is answered with the
/// error, and the next one starts a new full worker.
fn full_worker_failed(state: &Shared, request: Option<Request>, why: &str) {
    let asked = match state.try_borrow_mut() {
        Ok(mut s) => {
            let asked = s.full.as_mut().and_then(|f| f.asked.take());
            if let Some(full) = s.full.take() {
                full.worker.terminate();
                // Its handlers may be running now: forgotten, not dropped
                // (a failure is rare, and what is kept is small).
                std::mem::forget(full);
            }
            request.or(asked)
        }
        Err(_) => return,
    };
    let message = format!("The analysis stopped: the full worker failed ({why}). Try again.");
    after_full_worker(state, asked.as_ref().and_then(|r| Response::failed(r, &message)));
}

/// Start the full worker; its messages and failures come back here.
fn start_full_worker(state: &Shared) -> Result<(), String> {
    let global = js_sys::global();
    let url = js_sys::Reflect::get(&global, &JsValue::from_str(FULL_WORKER_URL_GLOBAL))
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_else(|| FULL_WORKER_LOADER.to_string());
    let worker = web_sys::Worker::new(&url).map_err(|e| {
        e.as_string()
            .unwrap_or_else(|| js_sys::Error::from(e).message().into())
    })?;
    let on_message = {
        let state = Rc::downgrade(state);
        Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let Some(state) = state.upgrade() else { return };
            match Bincode::decode::<FromWorker>(event.data()) {
                FromWorker::Ready => full_worker_ready(&state),
                FromWorker::Answer(answer) => {
                    if let Ok(mut s) = state.try_borrow_mut() {
                        if let Some(full) = s.full.as_mut() {
                            full.asked = None;
                        }
                    }
                    after_full_worker(&state, Some(answer));
                }
                // The page times each jq evaluation wherever it runs.
                jq @ (FromWorker::JqStarted { .. } | FromWorker::JqFinished) => post(jq),
            }
        })
    };
    let on_error = {
        let state = Rc::downgrade(state);
        // A plain `Event` when the script fails to load, else an `ErrorEvent`.
        Closure::<dyn Fn(web_sys::Event)>::new(move |event: web_sys::Event| {
            event.prevent_default();
            let Some(state) = state.upgrade() else { return };
            let why = event
                .dyn_ref::<web_sys::ErrorEvent>()
                .map(web_sys::ErrorEvent::message)
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| "it did not load".to_string());
            full_worker_failed(&state, None, &why);
        })
    };
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    state.borrow_mut().full = Some(FullWorker {
        worker,
        ready: false,
        asked: None,
        _on_message: on_message,
        _on_error: on_error,
    });
    Ok(())
}

/// The full worker reads messages now: hand it the request that waited.
fn full_worker_ready(state: &Shared) {
    let failed = {
        let Ok(mut s) = state.try_borrow_mut() else {
            return;
        };
        let Some(full) = s.full.as_mut() else { return };
        full.ready = true;
        !full.post_asked()
    };
    if failed {
        full_worker_failed(state, None, "a request could not be posted");
    }
}

/// Load the jq module, then answer `request` and those that arrive
/// meanwhile, in order.
#[cfg(not(feature = "jq-engine"))]
fn load_jq_module_then(state: &Shared, request: Request) {
    let Ok(mut s) = state.try_borrow_mut() else {
        return answer(state, request);
    };
    s.waiting_for_jq = Some(vec![request]);
    drop(s);
    let state = state.clone();
    wasm_bindgen_futures::spawn_local(async move {
        super::jq_module::load().await;
        let waiting = state.borrow_mut().waiting_for_jq.take();
        for request in waiting.unwrap_or_default() {
            on_request(&state, request);
        }
    });
}

/// Post `answer`, unless it was made without the jq module that one of its
/// jq expressions needed (the user's, or a proposed fix's that the analysis
/// checks): then `retry`, the request again, is answered once the module is
/// loaded.
fn deliver(state: &Shared, retry: Option<Request>, answer: Response) {
    #[cfg(not(feature = "jq-engine"))]
    if let Some(request) = retry {
        return load_jq_module_then(state, request);
    }
    #[cfg(feature = "jq-engine")]
    let _ = (state, retry);
    post(FromWorker::Answer(answer));
}

/// Whether the answer to `request` may need the jq module, which is not
/// loaded (a jq expression asking for it then marks it wanted; the mark is
/// cleared here).
fn may_want_jq(request: &Request) -> bool {
    #[cfg(not(feature = "jq-engine"))]
    if matches!(request, Request::Analyze { .. } | Request::Check { .. })
        && !super::jq_module::is_loaded()
    {
        super::jq_module::take_wanted();
        return true;
    }
    let _ = request;
    false
}

/// Answer `request` with the engine, and say what to answer again should a
/// jq expression have wanted the module: an analysis is rebuilt from the
/// texts the engine holds, so only a check (Git alone) is copied first.
fn handle(engine: &mut super::engine::Engine, request: Request) -> (Response, Option<Request>) {
    let may_want = may_want_jq(&request);
    let check = match &request {
        Request::Check { .. } if may_want => Some(request.clone()),
        _ => None,
    };
    let analysis = matches!(request, Request::Analyze { .. });
    let answer = engine.handle(request);
    #[cfg(not(feature = "jq-engine"))]
    let wanted = may_want && super::jq_module::take_wanted();
    #[cfg(feature = "jq-engine")]
    let wanted = false;
    let retry = match wanted {
        true if analysis => engine.last_analysis(),
        true => check,
        false => None,
    };
    (answer, retry)
}

/// Answer a request now (an analysis the helper shares, when its part
/// arrives).
fn answer(state: &Shared, request: Request) {
    // Answers go in order: an analysis waiting for the helper ends first
    // (and when it waits for the jq module now, this waits behind it).
    finish_pending(state, None);
    let Some(request) = unless_waiting(state, request) else {
        return;
    };
    if let Request::WarmUp(pairs) = &request {
        if scope().name() != HELPER_NAME {
            if let Ok(mut s) = state.try_borrow_mut() {
                s.warm_up = pairs.clone();
            }
            start_helper(state);
        }
    }
    if let Some(request) = share_with_helper(state, request) {
        let Ok(mut s) = state.try_borrow_mut() else {
            return;
        };
        let (answer, retry) = handle(&mut s.engine, request);
        drop(s);
        deliver(state, retry, answer);
    }
}

/// Hand the helper part of a large side and read the rest here; the
/// request comes back when it is not worth sharing.
fn share_with_helper(state: &Shared, request: Request) -> Option<Request> {
    let Ok(mut s) = state.try_borrow_mut() else {
        return Some(request);
    };
    let Request::Analyze { seq, input, .. } = &request else {
        return Some(request);
    };
    let helper_ready = s.helper.as_ref().is_some_and(|h| h.ready);
    if !helper_ready || input.mode != super::protocol::Mode::Sides {
        return Some(request);
    }
    // The sides to read (a side held from the last analysis is not), the
    // larger shared when it is large enough.
    let mut to_read: Vec<(Side, &str)> = [(Side::Git, &input.git), (Side::Live, &input.live)]
        .into_iter()
        .filter(|(side, text)| !s.engine.parsed.holds(*side, text))
        .map(|(side, text)| (side, text.as_str()))
        .collect();
    crate::sorting::sort_by_key(&mut to_read, |(_, text)| text.len());
    let Some((side, text)) = to_read.pop() else {
        return Some(request);
    };
    if text.len() < SHARED_FROM_BYTES {
        return Some(request);
    }
    let started = now();
    let mut units = yaml_units(text);
    let other_bytes: usize = to_read.iter().map(|(_, t)| t.len()).sum();
    let to_read_bytes = units.iter().map(String::len).sum::<usize>() + other_bytes;
    let mut helper_bytes = 0;
    let mut first_asked = units.len();
    while first_asked > 1 && helper_bytes < to_read_bytes * HELPER_SHARE_PERCENT / 100 {
        first_asked -= 1;
        helper_bytes += units[first_asked].len();
    }
    let asked = units.split_off(first_asked);
    if asked.is_empty() {
        return Some(request);
    }
    let id = *seq;
    let message = Request::ParseUnits {
        id,
        units: asked.clone(),
    };
    if let Some(helper) = &s.helper {
        let posted = post_encoded(&message, |m, transfer| {
            helper.worker.post_message_with_transfer(m, transfer)
        });
        if posted.is_err() {
            return Some(request);
        }
    }
    // Meanwhile: the side's old objects go (freeing them takes a while too),
    // then the other side and the units left to this worker are read.
    s.engine.parsed.forget(side);
    let other = to_read.pop();
    if let Some((other_side, other_text)) = other {
        s.engine
            .parsed
            .prepare(other_side, other_text, &Preparsed::default());
    }
    let mut preparsed = Preparsed::default();
    for unit in units {
        if let Some(value) = parse_unit(&unit) {
            preparsed.insert(unit, value);
        }
    }
    // A helper that never answers (one the browser ended without an error
    // event, say) must not hold the analysis up for good.
    let waited = now() - started;
    let deadline = {
        let state = Rc::downgrade(state);
        Timeout::new(HELPER_DEADLINE_MIN_MS.max(3 * waited as u32), move || {
            if let Some(state) = state.upgrade() {
                give_up_on_helper(&state, id);
            }
        })
    };
    s.pending = Some(Pending {
        id,
        side,
        request,
        asked,
        preparsed,
        started,
        deadline: Some(deadline),
    });
    None
}

/// The helper has not answered for the analysis `id` in time: it is not
/// asked again, and its part is read here.
fn give_up_on_helper(state: &Shared, id: u32) {
    {
        let Ok(mut s) = state.try_borrow_mut() else {
            return;
        };
        let Some(pending) = s.pending.as_mut().filter(|p| p.id == id) else {
            return;
        };
        // This very timer is running: let it be, rather than drop it here.
        if let Some(deadline) = pending.deadline.take() {
            deadline.forget();
        }
        if let Some(helper) = s.helper.as_mut() {
            helper.end();
        }
    }
    finish_pending(state, None);
}

/// Answer the analysis waiting for the helper, with the helper's values
/// when given (`values` for the request `id`); the units it lacks are read
/// here.
fn finish_pending(state: &Shared, values: Option<(u32, &str)>) {
    let Ok(mut s) = state.try_borrow_mut() else {
        return;
    };
    let Some(mut pending) = s.pending.take() else {
        return;
    };
    let mut helped = Help::default();
    if let Some((id, values)) = values {
        if id != pending.id {
            // An answer to an earlier request: keep waiting for this one.
            s.pending = Some(pending);
            return;
        }
        let part_bytes: usize = pending.asked.iter().map(String::len).sum();
        let values: Vec<Option<serde_json::Value>> =
            serde_json::from_str(values).unwrap_or_default();
        for (unit, value) in std::mem::take(&mut pending.asked).into_iter().zip(values) {
            if let Some(value) = value {
                pending.preparsed.insert(unit, value);
                helped.units += 1;
            }
        }
        if part_bytes >= RENEW_HELPER_FROM_BYTES {
            // Ended now (its memory goes at once) and never asked again; a
            // new one starts later (`renew_helper_soon`).
            if let Some(helper) = s.helper.as_mut() {
                helper.end();
                helped.renewed = true;
            }
        }
    }
    if let Request::Analyze { input, .. } = &pending.request {
        let text = match pending.side {
            Side::Git => &input.git,
            _ => &input.live,
        };
        s.engine
            .parsed
            .prepare(pending.side, text, &pending.preparsed);
    }
    let (mut answer, retry) = handle(&mut s.engine, pending.request);
    drop(s);
    if let Response::Analyzed {
        millis,
        helped: helped_field,
        ..
    } = &mut answer
    {
        *millis = now() - pending.started;
        *helped_field = helped;
    }
    deliver(state, retry, answer);
    if helped.renewed {
        renew_helper_soon(state);
    }
}

/// Start a new helper in place of the one ended for its memory, a little
/// later. Its handlers may be running now, so it is dropped then, not here.
fn renew_helper_soon(state: &Shared) {
    let weak = Rc::downgrade(state);
    let timeout = Timeout::new(RENEW_HELPER_AFTER_MS, move || {
        let Some(state) = weak.upgrade() else { return };
        {
            let Ok(mut s) = state.try_borrow_mut() else {
                return;
            };
            // This very timer is running: let it be, rather than drop it here.
            if let Some(renewal) = s.renewal.take() {
                renewal.forget();
            }
            s.helper = None;
        }
        start_helper(&state);
    });
    if let Ok(mut s) = state.try_borrow_mut() {
        s.renewal = Some(timeout);
    }
}

/// Start the helper worker (the same program); without one, everything is
/// read here as before.
fn start_helper(state: &Shared) {
    if state.borrow().helper.is_some() {
        return;
    }
    let url = scope().location().href();
    let options = web_sys::WorkerOptions::new();
    options.set_name(HELPER_NAME);
    let Ok(worker) = web_sys::Worker::new_with_options(&url, &options) else {
        return;
    };
    let on_message = {
        let state = Rc::downgrade(state);
        Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let Some(state) = state.upgrade() else { return };
            match Bincode::decode::<FromWorker>(event.data()) {
                // Warmed up before it is asked anything: a part queued
                // behind its warm-up would keep this worker waiting.
                FromWorker::Ready => {
                    if let Ok(s) = state.try_borrow() {
                        if let Some(helper) = &s.helper {
                            let warm_up = Request::WarmUp(s.warm_up.clone());
                            let _ = helper.worker.post_message(&Bincode::encode(warm_up));
                        }
                    }
                }
                FromWorker::Answer(Response::WarmedUp) => {
                    if let Ok(mut s) = state.try_borrow_mut() {
                        if let Some(helper) = s.helper.as_mut() {
                            helper.ready = true;
                        }
                    }
                }
                FromWorker::Answer(Response::ParsedUnits { id, values }) => {
                    finish_pending(&state, Some((id, &values)))
                }
                _ => {}
            }
        })
    };
    let on_error = {
        let state = Rc::downgrade(state);
        // A plain `Event` when the script fails to load, else an `ErrorEvent`.
        Closure::<dyn Fn(web_sys::Event)>::new(move |event: web_sys::Event| {
            event.prevent_default();
            let Some(state) = state.upgrade() else { return };
            // Kept (its handlers are running), but never asked again.
            if let Ok(mut s) = state.try_borrow_mut() {
                if let Some(helper) = s.helper.as_mut() {
                    helper.end();
                }
            }
            // What the helper was reading is read here.
            finish_pending(&state, None);
        })
    };
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    state.borrow_mut().helper = Some(Helper {
        worker,
        ready: false,
        _on_message: on_message,
        _on_error: on_error,
    });
}
