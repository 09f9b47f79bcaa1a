#!/usr/bin/env bash
# Installs only what is missing for building and testing drift-doctor:
# the wasm target, Trunk, the wasm-bindgen CLI matching Cargo.lock, wasm-opt
# (binaryen from npm), axe-core from npm for the browser tests' accessibility
# checks, and Debian's Chromium with chromedriver.
# Safe to run repeatedly: each step checks the installed version first.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.22.1
BINARYEN_VERSION=132.0.0
AXE_CORE_VERSION=4.11.1
TOOLS_DIR="${DRIFT_DOCTOR_TOOLS:-$HOME/.cache/drift-doctor-tools}"
WASM_BINDGEN_VERSION=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')

say() { printf '[setup] %s\n' "$*" >&2; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if [ "$(trunk --version 2>/dev/null || true)" != "trunk $TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (about 10 minutes on 2 cores)"
  cargo install --locked trunk --version "$TRUNK_VERSION" --ignore-rust-version
fi

if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  # Its published lock file pins a webpki-roots release the registry no longer
  # serves, so build from the unpacked crate with that one pin moved back.
  work=$(mktemp -d)
  cargo info --quiet "wasm-bindgen-cli@$WASM_BINDGEN_VERSION" >/dev/null
  crate_file=$(ls "$HOME"/.cargo/registry/cache/*/wasm-bindgen-cli-"$WASM_BINDGEN_VERSION".crate | head -n1)
  tar -xzf "$crate_file" -C "$work"
  (cd "$work/wasm-bindgen-cli-$WASM_BINDGEN_VERSION" \
    && { cargo update --quiet -p webpki-roots --precise 1.0.10 2>/dev/null || true; } \
    && cargo install --locked --path . --root "$HOME/.cargo")
  rm -rf "$work"
fi

if [ ! -x "$TOOLS_DIR/node_modules/.bin/wasm-opt" ] \
   || ! "$TOOLS_DIR/node_modules/.bin/wasm-opt" --version 2>/dev/null | grep -q "version 132"; then
  say "installing wasm-opt (binaryen $BINARYEN_VERSION from npm)"
  mkdir -p "$TOOLS_DIR"
  (cd "$TOOLS_DIR" && npm install --silent --no-audit --no-fund "binaryen@$BINARYEN_VERSION")
fi

axe_version() { node -p "require('$TOOLS_DIR/node_modules/axe-core/package.json').version" 2>/dev/null || true; }
if [ "$(axe_version)" != "$AXE_CORE_VERSION" ]; then
  say "installing axe-core $AXE_CORE_VERSION from npm (the browser tests inject it)"
  mkdir -p "$TOOLS_DIR"
  (cd "$TOOLS_DIR" && npm install --silent --no-audit --no-fund "axe-core@$AXE_CORE_VERSION")
fi

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  say "installing Debian chromium and chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium chromium-driver >/dev/null
fi

say "tools ready"
