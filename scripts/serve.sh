#!/usr/bin/env bash
# Installs what is missing, builds the page, and serves dist/ on localhost
# (the mixed-app example opens already analysed). PORT=8080 by default.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-8080}"

scripts/setup.sh
scripts/build-web.sh
echo
echo "drift-doctor is at http://127.0.0.1:$PORT/   (Ctrl+C stops the server)"
echo
# python's http.server sends .wasm as application/wasm, which streaming
# compilation needs.
exec python3 -m http.server --bind 127.0.0.1 --directory dist "$PORT"
