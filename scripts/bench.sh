#!/usr/bin/env bash
# Prints wall time and peak memory of `drift-doctor analyze --format json` on
# the benchmark pairs that ../shared/bench/gen.py (next to the repository, or
# BENCH_GEN=path/to/gen.py) writes (N=300 and N=3000 apps by default), median
# of several runs. Numbers only: no test asserts a time.
set -euo pipefail
cd "$(dirname "$0")/.."
GEN="${BENCH_GEN:-../shared/bench/gen.py}"
SIZES="${SIZES:-300 3000}"
RUNS="${RUNS:-5}"
OUT=target/bench
mkdir -p "$OUT"
cargo build --release --locked --quiet --bin drift-doctor
BIN=target/release/drift-doctor

printf '%-6s %10s %10s %12s %12s\n' N git_MB live_MB median_ms peak_MiB
for n in $SIZES; do
  dir="$OUT/n$n"
  if [ ! -f "$dir/git.yaml" ]; then
    [ -f "$GEN" ] || { echo "benchmark generator not found at $GEN (set BENCH_GEN)" >&2; exit 1; }
    mkdir -p "$dir" && python3 "$GEN" "$n" "$dir" >/dev/null
  fi
  git_file=$(ls "$dir"/git* | head -n1)
  live_file=$(ls "$dir"/live* | head -n1)
  times=()
  peak=0
  for _ in $(seq "$RUNS"); do
    stats=$( { /usr/bin/time -f '%e %M' "$BIN" analyze --git "$git_file" --live "$live_file" --format json >/dev/null; } 2>&1 | tail -n1 ) || true
    wall=${stats% *}; rss=${stats#* }
    times+=("$wall")
    [ "$rss" -gt "$peak" ] && peak=$rss
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '%-6s %10.2f %10.2f %12.0f %12.1f\n' "$n" \
    "$(echo "$(stat -c %s "$git_file") / 1048576" | bc -l)" "$(echo "$(stat -c %s "$live_file") / 1048576" | bc -l)" \
    "$(echo "$median * 1000" | bc -l)" "$(echo "$peak / 1024" | bc -l)"
done
echo
echo "Peers on the N=300 pair (../shared/bench/README.md): jsondiffpatch+js-yaml 457 ms / 108 MiB, deepdiff 3.03 s / 108 MiB, GNU diff 56 ms / 11 MiB (text only)."
