#!/usr/bin/env bash
# Prints, for the benchmark pairs ../shared/bench/gen.py writes (N=300 and
# N=3000 apps by default; BENCH_GEN names another generator), the median wall
# time, the median CPU time (user + system, every thread) and the peak memory
# of `drift-doctor analyze --format json` and, in the same run on the same
# files, of the peer a user would script instead
# (../shared/bench/peers/jsondiffpatch.mjs: js-yaml + jsondiffpatch), and the
# ratios in wall and in CPU time (two cores can hide work in wall time). Also the page's default example, so small inputs are watched too,
# and `drift-doctor check` on the same Git side (check_ms: it reads Git
# alone, so it should take well under the analysis).
# Numbers only: no test asserts a time.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH="${BENCH_DIR:-../shared/bench}"
GEN="${BENCH_GEN:-$BENCH/gen.py}"
PEER="$BENCH/peers/jsondiffpatch.mjs"
SIZES="${SIZES:-300 3000}"
RUNS="${RUNS:-5}"
TOOLS_DIR="${DRIFT_DOCTOR_TOOLS:-$HOME/.cache/drift-doctor-tools}"
OUT=target/bench
mkdir -p "$OUT"
cargo build --release --locked --quiet --bin drift-doctor
# The binary where cargo puts it (CARGO_TARGET_DIR when set).
BIN="${CARGO_TARGET_DIR:-target}/release/drift-doctor"

# The peer, installed once beside its script (its imports resolve there).
peer_dir="$TOOLS_DIR/bench-peer"
if [ -f "$PEER" ] && command -v node >/dev/null && [ ! -d "$peer_dir/node_modules/jsondiffpatch" ]; then
  mkdir -p "$peer_dir"
  # Its own package.json, so npm installs here and not in a parent folder.
  [ -f "$peer_dir/package.json" ] || echo '{"private": true}' >"$peer_dir/package.json"
  (cd "$peer_dir" && npm install --silent --no-audit --no-fund jsondiffpatch@0.7.7 js-yaml@4 >/dev/null)
fi
have_peer=false
if [ -f "$PEER" ] && [ -d "$peer_dir/node_modules/jsondiffpatch" ]; then
  cp "$PEER" "$peer_dir/jsondiffpatch.mjs"
  have_peer=true
fi

# median_ms peak_MiB median_cpu_ms of a command, over $RUNS runs (the wall
# time from the clock in nanoseconds: /usr/bin/time's own is in hundredths
# of a second; CPU time is user + system of every thread)
measure() {
  local times=() cpus=() peak=0 stats start end rss user sys
  for _ in $(seq "$RUNS"); do
    start=$(date +%s%N)
    stats=$( { /usr/bin/time -f '%M %U %S' "$@" >/dev/null; } 2>&1 | tail -n1 ) || true
    end=$(date +%s%N)
    read -r rss user sys <<<"$stats"
    times+=("$(( (end - start) / 1000 ))")
    cpus+=("$(echo "($user + $sys) * 1000" | bc -l)")
    [ "$rss" -gt "$peak" ] && peak=$rss
  done
  local median cpu
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '%.0f %.1f %.0f' "$(echo "$median / 1000" | bc -l)" "$(echo "$peak / 1024" | bc -l)" "$cpu"
}

echo "$(date -u +%Y-%m-%d), $(nproc) cores, median of $RUNS runs"
row='%-8s %8s %8s %9s %9s %9s %9s %9s %9s %7s %7s %9s\n'
printf "$row" input git_MB live_MB ours_ms ours_cpu ours_MiB peer_ms peer_cpu peer_MiB ratio cpu_x check_ms
mb() { printf '%.2f' "$(echo "$(stat -c %s "$1") / 1048576" | bc -l)"; }
ex=tests/fixtures/scenarios/mixed-app
read -r ms mib cpu <<<"$(measure "$BIN" analyze --git "$ex/git.yaml" --live "$ex/live.yaml" --format json)"
read -r check_ms _ <<<"$(measure "$BIN" check --git "$ex/git.yaml" --format json)"
printf "$row" example "$(mb "$ex/git.yaml")" "$(mb "$ex/live.yaml")" "$ms" "$cpu" "$mib" - - - - - "$check_ms"
for n in $SIZES; do
  dir="$OUT/n$n"
  if [ ! -f "$dir/git.yaml" ]; then
    [ -f "$GEN" ] || { echo "benchmark generator not found at $GEN (set BENCH_GEN)" >&2; exit 1; }
    mkdir -p "$dir" && python3 "$GEN" "$n" "$dir" >/dev/null
  fi
  git_file=$(ls "$dir"/git* | head -n1)
  live_file=$(ls "$dir"/live* | head -n1)
  read -r ms mib cpu <<<"$(measure "$BIN" analyze --git "$git_file" --live "$live_file" --format json)"
  read -r check_ms _ <<<"$(measure "$BIN" check --git "$git_file" --format json)"
  peer_ms=- peer_mib=- peer_cpu=- ratio=- cpu_ratio=-
  if $have_peer; then
    read -r peer_ms peer_mib peer_cpu <<<"$(measure node "$peer_dir/jsondiffpatch.mjs" "$git_file" "$live_file")"
    ratio=$(awk -v a="$peer_ms" -v b="$ms" 'BEGIN { printf "%.2fx", a / b }')
    cpu_ratio=$(awk -v a="$peer_cpu" -v b="$cpu" 'BEGIN { printf "%.2fx", a / b }')
  fi
  printf "$row" "N=$n" "$(mb "$git_file")" "$(mb "$live_file")" \
    "$ms" "$cpu" "$mib" "$peer_ms" "$peer_cpu" "$peer_mib" "$ratio" "$cpu_ratio" "$check_ms"
done
# The reports themselves, so two runs (before and after a change) show
# whether a change of speed changed what drift-doctor says: the same digest
# means the same JSON, byte for byte.
for n in $SIZES; do
  dir="$OUT/n$n"
  "$BIN" analyze --git "$(ls "$dir"/git* | head -n1)" --live "$(ls "$dir"/live* | head -n1)" \
    --format json >"$dir/report.json" || true
  echo "report N=$n: sha256 $(sha256sum <"$dir/report.json" | cut -c1-16), $(wc -c <"$dir/report.json") bytes"
done
$have_peer || echo "(the peer was not run: node, npm or $PEER is missing)"
echo "ratio: the peer's wall time over ours; cpu_x: the peer's CPU time over ours (above 1: drift-doctor is faster)."
echo "check_ms: drift-doctor check on the same Git side alone (exit 1 on findings is expected)."
