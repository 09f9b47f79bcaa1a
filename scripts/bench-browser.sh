#!/usr/bin/env bash
# Prints how long the page takes, in headless Chromium, from pasting the
# 300-app benchmark pair (1,500 resources, 3.8 MB) to showing the report, and
# the longest main-thread stall meanwhile. Needs dist/ (scripts/build-web.sh)
# and the generator ../shared/bench/gen.py next to the repository (or
# BENCH_GEN=path/to/gen.py). DRIFT_DOCTOR_BENCH_TRACE=FILE: see below.
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

# DRIFT_DOCTOR_BENCH_TRACE=FILE also records Chromium's own trace of the page
# for the first DRIFT_DOCTOR_BENCH_TRACE_SECONDS (9: the first visit and the
# first two runs) and prints what each report's arrival cost in script and in
# style, layout and paint (scripts/trace-page.js; Node's WebSocket).
TRACE="${DRIFT_DOCTOR_BENCH_TRACE:-}"
tracer=""
if [ -n "$TRACE" ]; then
  port="${DRIFT_DOCTOR_BENCH_TRACE_PORT:-9333}"
  export E2E_CHROME_ARGS="${E2E_CHROME_ARGS:-} --remote-debugging-port=$port"
  node_flags=()
  node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' || node_flags=(--experimental-websocket)
  node "${node_flags[@]}" scripts/trace-page.js record "$port" "${DRIFT_DOCTOR_BENCH_TRACE_SECONDS:-9}" "$TRACE" &
  tracer=$!
fi
DRIFT_DOCTOR_BENCH_DIR="$DIR" cargo test --locked --features browser-tests --test e2e -- --ignored --nocapture --test-threads=1 big_pair_in_browser
if [ -n "$tracer" ]; then
  if wait "$tracer"; then
    echo "Chromium's trace of the page ($TRACE):"
    node scripts/trace-page.js summary "$TRACE"
  else
    echo "no trace recorded (did the bench outlast DRIFT_DOCTOR_BENCH_TRACE_SECONDS?)" >&2
  fi
fi
