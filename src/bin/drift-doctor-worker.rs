//! The web worker that runs drift-doctor's analysis for the page
//! (Trunk builds it with `data-type="worker"` and a loader shim).
//! Natively it is an empty program.

/// The allocator (see Cargo.toml's `talc`).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(target_arch = "wasm32")]
fn main() {
    drift_doctor::web::start_worker();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
