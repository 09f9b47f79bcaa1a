#!/usr/bin/env bash
# Prints how drift-doctor's time grows with hostile input sizes: the files
# tests/data/badinput/gen_big.py writes (deep nesting, thousands of changed
# containers, env vars, args and keys). Doubling the size should about
# double the time (linear) or a little more (n log n), never quadruple it.
# Numbers only: no test asserts a time.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=target/bench-growth
mkdir -p "$OUT"
[ -f "$OUT/containers_1000_git.yaml" ] || python3 tests/data/badinput/gen_big.py "$OUT" >/dev/null
cargo build --release --locked --quiet --bin drift-doctor
# The binary where cargo puts it (CARGO_TARGET_DIR when set).
BIN="${CARGO_TARGET_DIR:-target}/release/drift-doctor"
VALID=tests/data/badinput/valid.yaml

# Seconds for one analysis (exit 0, 1 and 2 are all answers here).
run() { /usr/bin/time -f '%e' "$BIN" analyze --format json "$@" 2>&1 >/dev/null | tail -n1; }

printf '%-12s' input
for n in 1000 2000 4000 8000 20000; do printf '%10s' "n=$n"; done
echo
for family in containers env args keys; do
  printf '%-12s' "$family"
  for n in 1000 2000 4000 8000 20000; do
    printf '%9ss' "$(run --git "$OUT/${family}_${n}_git.yaml" --live "$OUT/${family}_${n}_live.yaml")"
  done
  echo
done
for shape in list map; do
  printf '%-12s' "nest_$shape"
  for n in 10000 20000 40000 100000; do
    printf '%9ss' "$(run --git "$VALID" --live "$OUT/nest_${shape}_${n}.yaml")"
  done
  echo "   (n = 10k, 20k, 40k, 100k levels)"
done

# The realistic pairs of ../shared/bench/gen.py (scripts/bench.sh's inputs)
# at N, 10N and 20N apps: wall and CPU seconds and peak memory per thousand
# apps should stay about the same.
GEN="${BENCH_GEN:-${BENCH_DIR:-../shared/bench}/gen.py}"
if [ -f "$GEN" ]; then
  printf '\n%-8s %9s %9s %9s %14s %14s %14s\n' apps wall_s cpu_s peak_MiB wall_s/1000 cpu_s/1000 MiB/1000
  for n in 300 3000 6000; do
    dir=target/bench/n$n
    [ -f "$dir/git.yaml" ] || { mkdir -p "$dir" && python3 "$GEN" "$n" "$dir" >/dev/null; }
    read -r wall user sys rss <<<"$( { /usr/bin/time -f '%e %U %S %M' "$BIN" analyze --format json \
      --git "$dir/git.yaml" --live "$dir/live.yaml" >/dev/null; } 2>&1 | tail -n1 )"
    awk -v n="$n" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" 'BEGIN {
      printf "%-8s %9.2f %9.2f %9.0f %14.3f %14.3f %14.1f\n", n, w, u + s, m / 1024, w / n * 1000, (u + s) / n * 1000, m / 1024 / n * 1000 }'
  done
else
  echo "(the gen.py pairs were skipped: $GEN is missing; set BENCH_GEN)"
fi
