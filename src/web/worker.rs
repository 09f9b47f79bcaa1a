//! The web worker: receives `Request`s, answers each with a `Response`, in
//! order. The page stays responsive however long the core takes, and can
//! end the worker when a jq expression outlives its budget (the worker
//! announces each evaluation, see [`FromWorker::JqStarted`]).

use super::engine::Engine;
use super::protocol::{FromWorker, JqExpression, Request};
use crate::ignore::jq::{Evaluation, Executor, Job};
use gloo::worker::{Bincode, Codec};
use std::cell::RefCell;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(message: FromWorker) {
    // A message that cannot be posted has no one to be reported to.
    let _ = scope().post_message(&Bincode::encode(message));
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

/// Start answering the page's requests.
pub fn start() {
    let engine = RefCell::new(Engine::with_jq_executor(announcing_executor()));
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let request: Request = Bincode::decode(event.data());
        let Ok(mut engine) = engine.try_borrow_mut() else {
            return;
        };
        post(FromWorker::Answer(engine.handle(request)));
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post(FromWorker::Ready);
}
