//! The web worker: receives `Request`s, answers with `Response`s. The page
//! stays responsive however long the core takes.

use super::engine::Engine;
use super::protocol::{Request, Response};
use gloo::worker::{HandlerId, Worker, WorkerScope};

pub struct AnalysisWorker {
    engine: Engine,
}

impl Worker for AnalysisWorker {
    type Message = ();
    type Input = Request;
    type Output = Response;

    fn create(_scope: &WorkerScope<Self>) -> Self {
        AnalysisWorker {
            engine: Engine::default(),
        }
    }

    fn update(&mut self, _scope: &WorkerScope<Self>, _msg: ()) {}

    fn received(&mut self, scope: &WorkerScope<Self>, request: Request, id: HandlerId) {
        let response = self.engine.handle(request);
        scope.respond(id, response);
    }
}
