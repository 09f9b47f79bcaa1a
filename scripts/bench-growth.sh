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
BIN=target/release/drift-doctor
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
