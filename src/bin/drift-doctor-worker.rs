//! The web worker that runs drift-doctor's analysis for the page
//! (Trunk builds it with `data-type="worker"` and a loader shim).
//! Natively it is an empty program.

#[cfg(target_arch = "wasm32")]
fn main() {
    drift_doctor::web::start_worker();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
