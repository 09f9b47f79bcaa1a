#!/usr/bin/env bash
# Runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --locked
