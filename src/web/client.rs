//! The page's side of the analysis: sends requests to the worker (or, in
//! tests, to an inline engine) and hands answers back as events.
//!
//! Only one analysis is in flight at a time; a newer one waits in a single
//! slot and replaces any older waiting one, so fast typing over a big input
//! never piles up work in the worker.

use super::protocol::{Input, Request, Response};
use super::util::now;
use super::worker::AnalysisWorker;
use crate::share::ShareState;
use gloo::worker::{Spawnable, WorkerBridge};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
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
pub struct Handler(Rc<RefCell<dyn FnMut(Request) -> Response>>);

impl Handler {
    pub fn new(f: impl FnMut(Request) -> Response + 'static) -> Handler {
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

enum Backend {
    Worker(WorkerBridge<AnalysisWorker>),
    Inline(Handler),
}

struct Inner {
    backend: Backend,
    busy: bool,
    waiting: Option<(u32, Input)>,
    sent_at: HashMap<u32, f64>,
    deliver: Rc<dyn Fn(Response)>,
    warmed: bool,
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
            Ok(url) => {
                let deliver = deliver.clone();
                let bridge = AnalysisWorker::spawner()
                    .callback(move |r| deliver(r))
                    .with_loader(true)
                    .as_module(false)
                    .spawn(url);
                Backend::Worker(bridge)
            }
            Err(handler) => Backend::Inline(handler),
        };
        *shared.borrow_mut() = Some(Inner {
            backend,
            busy: false,
            waiting: None,
            sent_at: HashMap::new(),
            deliver,
            warmed: false,
        });
        Client(shared)
    }

    /// Ask for an analysis; it starts now or after the one in flight.
    pub fn analyze(&self, seq: u32, input: Input) {
        {
            let Ok(mut guard) = self.0.try_borrow_mut() else {
                return;
            };
            let Some(inner) = guard.as_mut() else { return };
            inner.sent_at.insert(seq, now());
            if inner.busy {
                if let Some((old, _)) = inner.waiting.replace((seq, input)) {
                    inner.sent_at.remove(&old);
                }
                return;
            }
            inner.busy = true;
        }
        self.post(Request::Analyze { seq, input });
    }

    pub fn texts(&self, seq: u32, id: String) {
        self.post(Request::Texts { seq, id });
    }

    pub fn rules(&self) {
        self.post(Request::Rules);
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
                matches!(inner.backend, Backend::Worker(_))
            }
            _ => false,
        };
        if due {
            self.post(Request::WarmUp);
        }
    }

    fn post(&self, request: Request) {
        let Ok(guard) = self.0.try_borrow() else {
            return;
        };
        let Some(inner) = guard.as_ref() else { return };
        match &inner.backend {
            Backend::Worker(bridge) => bridge.send(request),
            Backend::Inline(handler) => {
                // Answer asynchronously, as the worker would.
                let handler = handler.0.clone();
                let deliver = inner.deliver.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let response = match handler.try_borrow_mut() {
                        Ok(mut h) => (*h)(request),
                        Err(_) => return,
                    };
                    deliver(response);
                });
            }
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
        if let Some((seq, input)) = next {
            self.post(Request::Analyze { seq, input });
        }
    }
}
