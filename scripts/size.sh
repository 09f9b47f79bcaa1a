#!/usr/bin/env bash
# Prints the size of the page's wasm files and of the whole dist/, raw and
# gzipped (gzip -9, per file: what a server with compression would send).
# dist/drift-doctor.html (the one-file page for file://, which holds the wasm
# files gzipped) is printed on its own line and not counted in dist/'s total.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/index.html ] || { echo "dist/ is missing: run scripts/build-web.sh first" >&2; exit 1; }

gz() { gzip -9 -c "$1" | wc -c; }
kb() { awk -v b="$1" 'BEGIN { printf "%8.1f KB", b / 1024 }'; }

printf '%-44s %11s %11s\n' file raw gzip
total=0; total_gz=0
while IFS= read -r f; do
  raw=$(wc -c <"$f"); z=$(gz "$f")
  total=$((total + raw)); total_gz=$((total_gz + z))
  case "$f" in *.wasm) printf '%-44s %s %s\n' "${f#dist/}" "$(kb "$raw")" "$(kb "$z")" ;; esac
done < <(find dist -type f ! -path 'dist/.*' ! -name drift-doctor.html | sort)
printf '%-44s %s %s\n' "dist/ (all $(find dist -type f ! -path 'dist/.*' ! -name drift-doctor.html | wc -l) files besides drift-doctor.html)" "$(kb "$total")" "$(kb "$total_gz")"
# A first visit's report (the default example's, made when the page was
# built and carried in index.html) needs the page's wasm only; the worker's
# loads meanwhile, for everything after.
page_wasm=$(find dist -maxdepth 1 -name 'drift-doctor-web-*_bg.wasm' | head -n 1)
grep -q 'name="drift-doctor-first-report" content="[A-Za-z0-9+/]' dist/index.html \
  || { echo "dist/index.html carries no first report: run scripts/build-web.sh" >&2; exit 1; }
printf '%-44s %s %s\n' "wasm before a first visit's report (page)" "$(kb "$(wc -c <"$page_wasm")")" "$(kb "$(gz "$page_wasm")")"
printf '%-44s %s %s\n' "index.html (with that report)" "$(kb "$(wc -c <dist/index.html)")" "$(kb "$(gz dist/index.html)")"
# A first paste of one's own needs the (lean) analysis worker's wasm too;
# the full worker is fetched only for diff output, events and logs and the
# check, and the jq module only when an analysis runs jq, so each is
# counted on its own line.
worker_wasm=dist/drift-doctor-worker_bg.wasm
full_wasm=dist/drift-doctor-full-worker_bg.wasm
jq_wasm=dist/drift-doctor-jq.wasm
for f in "$full_wasm" "$jq_wasm"; do
  [ -f "$f" ] || { echo "$f is missing: run scripts/build-web.sh" >&2; exit 1; }
done
printf '%-44s %s %s\n' "wasm before a first own paste (page + worker)" \
  "$(kb "$(( $(wc -c <"$page_wasm") + $(wc -c <"$worker_wasm") ))")" \
  "$(kb "$(( $(gz "$page_wasm") + $(gz "$worker_wasm") ))")"
printf '%-44s %s %s\n' "full worker (diff output, events, check)" "$(kb "$(wc -c <"$full_wasm")")" "$(kb "$(gz "$full_wasm")")"
printf '%-44s %s %s\n' "jq module (only when an analysis runs jq)" "$(kb "$(wc -c <"$jq_wasm")")" "$(kb "$(gz "$jq_wasm")")"
if [ -f dist/drift-doctor.html ]; then
  printf '%-44s %s %s\n' "drift-doctor.html (one file, for file://)" "$(kb "$(wc -c <dist/drift-doctor.html)")" "$(kb "$(gz dist/drift-doctor.html)")"
else
  echo "dist/drift-doctor.html is missing: run scripts/build-web.sh" >&2; exit 1
fi
