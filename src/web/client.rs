//! The page's side of the analysis: sends requests to the worker (or, in
//! tests, to an inline engine) and hands answers back as events.
//!
//! Only one analysis is in flight at a time; a newer one waits in a single
//! slot and replaces any older waiting one, so fast typing over a big input
//! never piles up work in the worker.

use super::js_text::{post_request, Attached};
use super::protocol::{Export, FromWorker, Input, JqExpression, Request, Response};
use super::util::now;
use crate::share::ShareState;
use gloo::timers::callback::Timeout;
use gloo::worker::{Bincode, Codec};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent};
use yew::Callback;

/// An answer and, for analyses, the page-side time from request to answer (ms).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub response: Response,
    pub total_ms: Option<f64>,
}

/// Answers requests on the page's own thread (tests give it an `Engine`;
/// the page binary never links one, so its wasm has no analysis code).
#[derive(Clone)]
pub struct Handler(Rc<RefCell<dyn FnMut(Request) -> Reply>>);

/// A handler's answer, delivered when it resolves (a test can hold one
/// back, as a worker still busy would).
pub type Reply = Pin<Box<dyn Future<Output = Response>>>;

impl Handler {
    /// Answers each request at once.
    pub fn new(mut f: impl FnMut(Request) -> Response + 'static) -> Handler {
        Handler::deferred(move |request| {
            let response = f(request);
            Box::pin(async move { response })
        })
    }

    /// Answers each request when its reply resolves.
    pub fn deferred(f: impl FnMut(Request) -> Reply + 'static) -> Handler {
        Handler(Rc::new(RefCell::new(f)))
    }
}

impl PartialEq for Handler {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for Handler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Handler")
    }
}

/// Time the page adds to a jq evaluation's limit before it ends the worker:
/// the worker's own budget check, when it sees the overrun, answers first.
const RUNAWAY_GRACE_MS: f64 = 750.0;

enum Backend {
    /// The worker's script URL and the running worker (None when it could
    /// not be started).
    Worker(String, Option<WorkerLink>),
    Inline(Handler),
}

/// A running worker and the requests it holds.
struct WorkerLink {
    worker: web_sys::Worker,
    /// The worker has announced it reads messages.
    ready: bool,
    /// Requests waiting for the worker to be ready, oldest first.
    unsent: Vec<Outgoing>,
    /// Requests posted and not yet answered, oldest first (the worker
    /// answers in order, so the first one is the one it is working on).
    unanswered: VecDeque<Outgoing>,
    /// The jq expression in evaluation, and the timer that ends the worker
    /// if it outlives its limit (dropped, and so cancelled, when it ends).
    jq: Option<(JqExpression, Timeout)>,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(web_sys::Event)>,
}

/// A request and the large texts sent beside it (kept together, to post
/// both again to a new worker).
struct Outgoing {
    request: Request,
    attached: Attached,
}

impl WorkerLink {
    /// Every request not answered yet, oldest first: those posted, then
    /// those waiting for the worker to be ready.
    fn take_requests(&mut self) -> Vec<Outgoing> {
        let mut requests: Vec<Outgoing> = self.unanswered.drain(..).collect();
        requests.append(&mut self.unsent);
        requests
    }
}

impl Drop for WorkerLink {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

struct Inner {
    backend: Backend,
    busy: bool,
    waiting: Option<(u32, Input, Attached)>,
    sent_at: HashMap<u32, f64>,
    deliver: Rc<dyn Fn(Response)>,
    warmed: bool,
    /// Expressions that outlived their limit, skipped while the settings
    /// that hold them stay the same.
    timed_out: Vec<JqExpression>,
    timed_out_settings: String,
}

#[derive(Clone)]
pub struct Client(Rc<RefCell<Option<Inner>>>);

impl PartialEq for Client {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Client {
    /// `worker`: the worker loader's URL, or `Err(handler)` to answer on this
    /// thread (for tests, where there is no worker script to load).
    pub fn new(worker: Result<&str, Handler>, on_answer: Callback<Answer>) -> Client {
        let shared: Rc<RefCell<Option<Inner>>> = Rc::new(RefCell::new(None));
        let weak: Weak<RefCell<Option<Inner>>> = Rc::downgrade(&shared);
        let deliver: Rc<dyn Fn(Response)> = Rc::new(move |response: Response| {
            let Some(shared) = weak.upgrade() else { return };
            let client = Client(shared);
            let total_ms = client.finished(&response);
            let analysed = matches!(response, Response::Analyzed { .. });
            on_answer.emit(Answer { response, total_ms });
            client.send_waiting();
            if analysed {
                client.warm_up_once();
            }
        });
        let backend = match worker {
            Ok(url) => Backend::Worker(url.to_string(), None),
            Err(handler) => Backend::Inline(handler),
        };
        *shared.borrow_mut() = Some(Inner {
            backend,
            busy: false,
            waiting: None,
            sent_at: HashMap::new(),
            deliver,
            warmed: false,
            timed_out: Vec::new(),
            timed_out_settings: String::new(),
        });
        let client = Client(shared);
        client.start_worker();
        client
    }

    /// Start a worker (again), posting the requests the last one left
    /// unanswered; an error answers each of them when none can start.
    fn start_worker(&self) {
        let failed = {
            let Ok(mut guard) = self.0.try_borrow_mut() else {
                return;
            };
            let Some(inner) = guard.as_mut() else { return };
            let Backend::Worker(url, link) = &mut inner.backend else {
                return;
            };
            let left: Vec<Outgoing> = link
                .take()
                .map(|mut old| old.take_requests())
                .unwrap_or_default();
            match spawn(url, Rc::downgrade(&self.0)) {
                Ok(mut new) => {
                    new.unsent = left;
                    *link = Some(new);
                    Vec::new()
                }
                Err(why) => left.into_iter().map(|o| (o.request, why.clone())).collect(),
            }
        };
        for (request, why) in failed {
            self.answer_with_error(&request, &why);
        }
    }

    /// Ask for an analysis (its large texts attached beside it); it starts
    /// now or after the one in flight.
    pub fn analyze(&self, seq: u32, input: Input, attached: Attached) {
        {
            let Ok(mut guard) = self.0.try_borrow_mut() else {
                return;
            };
            let Some(inner) = guard.as_mut() else { return };
            inner.sent_at.insert(seq, now());
            if inner.busy {
                if let Some((old, ..)) = inner.waiting.replace((seq, input, attached)) {
                    inner.sent_at.remove(&old);
                }
                return;
            }
            inner.busy = true;
        }
        self.post_with(self.analyze_request(seq, input), attached);
    }

    pub fn texts(&self, seq: u32, id: String) {
        self.post(Request::Texts { seq, id });
    }

    /// Ask for the whole resources at `indices` of the analysis `seq`.
    pub fn resources(&self, seq: u32, indices: Vec<usize>) {
        self.post(Request::Resources { seq, indices });
    }

    /// Ask for the whole report of the analysis `seq`, exported.
    pub fn export(&self, seq: u32, format: Export) {
        self.post(Request::Export { seq, format });
    }

    /// Ask for the rules' documentation (with `texts`: docs and examples).
    pub fn rules(&self, texts: bool) {
        self.post(Request::Rules { texts });
    }

    /// Run the check on `input`'s Git side (answered with `Response::Checked`).
    pub fn check(&self, input: Input) {
        self.post(Request::Check { input });
    }

    /// Encode the page's state for a link (answered with `Response::Shared`).
    pub fn share(&self, state: ShareState) {
        self.post(Request::Share(state));
    }

    /// Decode a link's fragment or a share file (answered with `Response::Restored`).
    pub fn restore(&self, text: String) {
        self.post(Request::Restore(text));
    }

    /// Warm the worker up once, after the first report, while the user
    /// reads it (not for an inline engine: there it would block the page).
    fn warm_up_once(&self) {
        let due = match self.0.try_borrow_mut().as_deref_mut() {
            Ok(Some(inner)) if !inner.warmed => {
                inner.warmed = true;
                matches!(inner.backend, Backend::Worker(..))
            }
            _ => false,
        };
        if due {
            self.post(Request::WarmUp(super::examples::warm_up_pairs()));
        }
    }

    fn post(&self, request: Request) {
        self.post_with(request, Attached::default());
    }

    fn post_with(&self, mut request: Request, attached: Attached) {
        let inline = {
            let Ok(guard) = self.0.try_borrow() else {
                return;
            };
            let Some(inner) = guard.as_ref() else { return };
            match &inner.backend {
                Backend::Inline(handler) => Some((handler.0.clone(), inner.deliver.clone())),
                Backend::Worker(..) => None,
            }
        };
        let Some((handler, deliver)) = inline else {
            self.post_to_worker(Outgoing { request, attached });
            return;
        };
        attached.fill(&mut request);
        // Answer asynchronously, as the worker would.
        wasm_bindgen_futures::spawn_local(async move {
            let reply = match handler.try_borrow_mut() {
                Ok(mut h) => (*h)(request),
                Err(_) => return,
            };
            deliver(reply.await);
        });
    }

    /// An analysis request, skipping the jq expressions that timed out with
    /// the same settings.
    fn analyze_request(&self, seq: u32, input: Input) -> Request {
        let timed_out = match self.0.try_borrow_mut().as_deref_mut() {
            Ok(Some(inner)) => {
                if inner.timed_out_settings != input.settings {
                    inner.timed_out.clear();
                    inner.timed_out_settings.clone_from(&input.settings);
                }
                inner.timed_out.clone()
            }
            _ => Vec::new(),
        };
        Request::Analyze {
            seq,
            input,
            timed_out,
        }
    }

    fn post_to_worker(&self, outgoing: Outgoing) {
        let refused = {
            let Ok(mut guard) = self.0.try_borrow_mut() else {
                return;
            };
            let Some(inner) = guard.as_mut() else { return };
            match &mut inner.backend {
                Backend::Worker(_, Some(link)) if link.ready => {
                    match post_request(&outgoing.request, &outgoing.attached, |message, transfer| {
                        link.worker.post_message_with_transfer(message, transfer)
                    }) {
                        Ok(()) => {
                            // Kept until answered, to post again to a new worker.
                            link.unanswered.push_back(outgoing);
                            None
                        }
                        Err(e) => Some((outgoing.request, js_text(&e))),
                    }
                }
                Backend::Worker(_, Some(link)) => {
                    link.unsent.push(outgoing);
                    None
                }
                _ => Some((outgoing.request, "the analysis worker is not running".to_string())),
            }
        };
        if let Some((request, why)) = refused {
            self.answer_with_error(&request, &why);
        }
    }

    fn finished(&self, response: &Response) -> Option<f64> {
        let Response::Analyzed { seq, .. } = response else {
            return None;
        };
        let Ok(mut guard) = self.0.try_borrow_mut() else {
            return None;
        };
        let inner = guard.as_mut()?;
        inner.busy = false;
        inner.sent_at.remove(seq).map(|t| now() - t)
    }

    fn send_waiting(&self) {
        let next = {
            let Ok(mut guard) = self.0.try_borrow_mut() else {
                return;
            };
            let Some(inner) = guard.as_mut() else { return };
            if inner.busy {
                return;
            }
            let next = inner.waiting.take();
            if next.is_some() {
                inner.busy = true;
            }
            next
        };
        if let Some((seq, input, attached)) = next {
            self.post_with(self.analyze_request(seq, input), attached);
        }
    }

    /// A message from the worker.
    fn heard(&self, message: FromWorker) {
        match message {
            FromWorker::Ready => {
                let unsent = match self.0.try_borrow_mut().as_deref_mut() {
                    Ok(Some(Inner {
                        backend: Backend::Worker(_, Some(link)),
                        ..
                    })) => {
                        link.ready = true;
                        std::mem::take(&mut link.unsent)
                    }
                    _ => return,
                };
                for outgoing in unsent {
                    self.post_to_worker(outgoing);
                }
            }
            FromWorker::Answer(response) => {
                let deliver = match self.0.try_borrow_mut().as_deref_mut() {
                    Ok(Some(inner)) => {
                        if let Backend::Worker(_, Some(link)) = &mut inner.backend {
                            link.unanswered.pop_front();
                            link.jq = None;
                        }
                        inner.deliver.clone()
                    }
                    _ => return,
                };
                deliver(response);
            }
            FromWorker::JqStarted {
                expression,
                limit_ms,
            } => {
                let weak = Rc::downgrade(&self.0);
                let timer = Timeout::new(
                    (limit_ms + RUNAWAY_GRACE_MS).clamp(0.0, f64::from(u32::MAX)) as u32,
                    move || {
                        if let Some(shared) = weak.upgrade() {
                            Client(shared).end_runaway();
                        }
                    },
                );
                if let Ok(Some(Inner {
                    backend: Backend::Worker(_, Some(link)),
                    ..
                })) = self.0.try_borrow_mut().as_deref_mut()
                {
                    link.jq = Some((expression, timer));
                }
            }
            FromWorker::JqFinished => {
                if let Ok(Some(Inner {
                    backend: Backend::Worker(_, Some(link)),
                    ..
                })) = self.0.try_borrow_mut().as_deref_mut()
                {
                    link.jq = None;
                }
            }
        }
    }

    /// A jq expression outlived its limit: end the worker (jaq cannot be
    /// interrupted from inside it) and give its requests to a new one, with
    /// the expression skipped from now on, as the CLI skips it.
    fn end_runaway(&self) {
        {
            let Ok(mut guard) = self.0.try_borrow_mut() else {
                return;
            };
            let Some(inner) = guard.as_mut() else { return };
            let Backend::Worker(_, Some(link)) = &mut inner.backend else {
                return;
            };
            let Some((expression, _)) = link.jq.take() else {
                return;
            };
            if !inner.timed_out.contains(&expression) {
                inner.timed_out.push(expression);
            }
            let timed_out = inner.timed_out.clone();
            for outgoing in link.unanswered.iter_mut().chain(link.unsent.iter_mut()) {
                if let Request::Analyze { timed_out: t, .. } = &mut outgoing.request {
                    t.clone_from(&timed_out);
                }
            }
        }
        self.start_worker();
    }

    /// The worker failed (a trap, or no memory left): answer the request it
    /// was working on with the error, and give the others to a new worker.
    /// A worker that failed before it started (its script did not load or
    /// run) is not started again, as every new one would fail the same way:
    /// its requests, and all later ones, are answered with the error.
    fn crashed(&self, why: String) {
        let never_started = {
            let Ok(mut guard) = self.0.try_borrow_mut() else {
                return;
            };
            let Some(Inner {
                backend: Backend::Worker(_, link),
                ..
            }) = guard.as_mut()
            else {
                return;
            };
            match link.take() {
                Some(old) if old.ready => {
                    *link = Some(old);
                    None
                }
                Some(mut old) => Some(old.take_requests()),
                None => return,
            }
        };
        match never_started {
            Some(requests) => {
                let why = format!("{why} before it had started");
                for outgoing in requests {
                    self.answer_with_error(&outgoing.request, &why);
                }
            }
            None => {
                let failed = match self.0.try_borrow_mut().as_deref_mut() {
                    Ok(Some(Inner {
                        backend: Backend::Worker(_, Some(link)),
                        ..
                    })) => link.unanswered.pop_front(),
                    _ => None,
                };
                self.start_worker();
                if let Some(outgoing) = failed {
                    self.answer_with_error(&outgoing.request, &why);
                }
            }
        }
    }

    /// Answer `request` with an error, as the worker would have answered it.
    fn answer_with_error(&self, request: &Request, why: &str) {
        let message = format!("The analysis stopped: {why}. Reload the page to try again.");
        let Some(response) = Response::failed(request, &message) else {
            return;
        };
        let deliver = match self.0.try_borrow().as_deref() {
            Ok(Some(inner)) => inner.deliver.clone(),
            _ => return,
        };
        deliver(response);
    }
}

/// Start the worker at `url`, its messages and failures going to `client`.
fn spawn(url: &str, client: Weak<RefCell<Option<Inner>>>) -> Result<WorkerLink, String> {
    let worker = web_sys::Worker::new(url).map_err(|e| js_text(&e))?;
    let on_message = {
        let client = client.clone();
        Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            if let Some(shared) = client.upgrade() {
                Client(shared).heard(Bincode::decode(event.data()));
            }
        })
    };
    // A script that fails to load raises a plain `Event`, a failure inside
    // the worker an `ErrorEvent` with a message.
    let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |event: web_sys::Event| {
        event.prevent_default();
        if let Some(shared) = client.upgrade() {
            let message = event
                .dyn_ref::<ErrorEvent>()
                .map(ErrorEvent::message)
                .unwrap_or_default();
            Client(shared).crashed(if message.is_empty() {
                "the analysis worker failed".to_string()
            } else {
                format!("the analysis worker failed ({message})")
            });
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(WorkerLink {
        worker,
        ready: false,
        unsent: Vec::new(),
        unanswered: VecDeque::new(),
        jq: None,
        _on_message: on_message,
        _on_error: on_error,
    })
}

/// A JavaScript error as text.
fn js_text(value: &wasm_bindgen::JsValue) -> String {
    value
        .as_string()
        .or_else(|| {
            value
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| "unknown error".to_string())
}
