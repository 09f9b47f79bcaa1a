//! The drift-doctor web page (built by Trunk from `www/index.html`).
//! The analysis runs in `drift-doctor-worker`; this binary renders.
//! Natively it is an empty program, so `cargo build` and `cargo test` on the
//! host never compile the web crates.

#[cfg(target_arch = "wasm32")]
fn main() {
    drift_doctor::web::start_page();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
