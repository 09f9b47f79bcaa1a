//! The page's full worker: the analysis worker's program with everything in
//! it. The analysis worker, built lean, starts this one the first time it
//! is asked for what it leaves out (see `web::engine::for_full_worker`).
//! Natively it is an empty program.

#[cfg(target_arch = "wasm32")]
fn main() {
    drift_doctor::web::start_worker();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
