#!/usr/bin/env bash
# Runs every test: the native suite (core, CLI and the end-to-end browser
# test against dist/) and the wasm-bindgen tests in headless Chromium.
# Installs only what is missing first. Works unattended (CI=true, no stdin).
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLS_DIR="${DRIFT_DOCTOR_TOOLS:-$HOME/.cache/drift-doctor-tools}"
export PATH="$TOOLS_DIR/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
# A full run builds each target once: incremental caches would only take
# disk (they were half of a clean run's target directory).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

say() { printf '\n[test] %s\n' "$*" >&2; }

say "tools"
scripts/setup.sh </dev/null

say "web page (dist/, needed by tests/e2e)"
scripts/build-web.sh

say "formatting (cargo fmt --check)"
cargo fmt --check

say "lints (cargo clippy, native, with and without the page)"
cargo clippy --locked --all-targets --features browser-tests -- -D warnings
cargo clippy --locked --all-targets -- -D warnings
say "lints (cargo clippy, the core without the jq engine, as the page's lean worker has it)"
cargo clippy --locked --lib --tests --no-default-features --features lean-worker -- -D warnings

say "lints (cargo clippy, the pure core and the jq module for wasm32, without the page)"
cargo clippy --locked --target wasm32-unknown-unknown --lib --bin drift-doctor-jq -- -D warnings
say "lints (cargo clippy, the page and worker binaries for wasm32)"
cargo clippy --locked --target wasm32-unknown-unknown --features web --lib --bin drift-doctor-web --bin drift-doctor-worker --bin drift-doctor-full-worker -- -D warnings
say "lints (cargo clippy, the workers as the page builds them: without the jq engine, the first one lean)"
cargo clippy --locked --target wasm32-unknown-unknown --no-default-features --features web --lib --bin drift-doctor-full-worker -- -D warnings
cargo clippy --locked --target wasm32-unknown-unknown --no-default-features --features lean-worker --lib --bin drift-doctor-worker -- -D warnings

say "native tests (cargo test)"
cargo test --locked --features browser-tests
say "native tests of the core without the jq engine, and of the lean worker's engine (cargo test --lib --no-default-features --features lean-worker)"
cargo test --locked --lib --no-default-features --features lean-worker

say "browser tests (wasm-bindgen-test in headless Chromium)"
WASM_BINDGEN_TEST_WEBDRIVER_JSON="$PWD/webdriver.json" \
WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-180}" \
  cargo test --locked --target wasm32-unknown-unknown --features web --test web_wasm

say "all tests passed"
