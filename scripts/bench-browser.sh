#!/usr/bin/env bash
# Prints how long the page takes, in headless Chromium, from pasting the
# 300-app benchmark pair (1,500 resources, 3.8 MB) to showing the report, and
# the longest main-thread stall meanwhile. Needs dist/ (scripts/build-web.sh)
# and the generator ../shared/bench/gen.py next to the repository (or
# BENCH_GEN=path/to/gen.py).
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-300}"
GEN="${BENCH_GEN:-../shared/bench/gen.py}"
DIR="${BENCH_DIR:-${TMPDIR:-/tmp}/drift-doctor-bench-$N}"

[ -f dist/index.html ] || { echo "dist/ is missing: run scripts/build-web.sh first" >&2; exit 1; }
if [ ! -f "$DIR/git.yaml" ] || [ ! -f "$DIR/live.yaml" ]; then
  [ -f "$GEN" ] || { echo "benchmark generator not found at $GEN (set BENCH_GEN)" >&2; exit 1; }
  python3 "$GEN" "$N" "$DIR"
fi
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
DRIFT_DOCTOR_BENCH_DIR="$DIR" cargo test --locked --test e2e -- --ignored --nocapture --test-threads=1 big_pair_in_browser
