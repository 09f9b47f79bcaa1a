//! The web worker that runs drift-doctor's analysis for the page
//! (Trunk builds it with `data-type="worker"` and a loader shim).
//! Natively it is an empty program.

/// The allocator (see Cargo.toml's `rlsf`).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: rlsf::GlobalTlsf = rlsf::GlobalTlsf::new();

#[cfg(target_arch = "wasm32")]
fn main() {
    drift_doctor::web::start_worker();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
