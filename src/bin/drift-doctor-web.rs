//! The drift-doctor web page (built by Trunk from `www/index.html`).
//! The analysis runs in `drift-doctor-worker`; this binary renders.
//! Natively it is an empty program, so `cargo build` and `cargo test` on the
//! host never compile the web crates.

/// The allocator (see Cargo.toml's `talc`).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(target_arch = "wasm32")]
fn main() {
    drift_doctor::web::start_page();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
