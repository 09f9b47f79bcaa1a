#!/usr/bin/env bash
# Builds the web page into dist/: Trunk with the size-tuned `web` profile and
# wasm-opt -Oz for the page, the `web-worker` profile and wasm-opt -O3 for
# the analysis worker (lean) and the full worker it starts on demand,
# offline (nothing is downloaded), then writes the sha256 of the inline
# script Trunk injects into the page's Content-Security-Policy.
# Needs the tools of scripts/setup.sh. Prints the build time.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLS_DIR="${DRIFT_DOCTOR_TOOLS:-$HOME/.cache/drift-doctor-tools}"
# npm's binaryen 132 must come before any distribution wasm-opt (Debian's 108
# cannot read what current Rust emits); ~/.cargo/bin holds trunk and wasm-bindgen.
export PATH="$TOOLS_DIR/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true

say() { printf '[build-web] %s\n' "$*" >&2; }

want_bindgen=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')
have_bindgen=$(wasm-bindgen --version 2>/dev/null || true)
if [ "$have_bindgen" != "wasm-bindgen $want_bindgen" ]; then
  say "wasm-bindgen $want_bindgen is needed (found: ${have_bindgen:-none}); run scripts/setup.sh"
  exit 1
fi
if ! wasm-opt --version 2>/dev/null | grep -q "version 132"; then
  say "wasm-opt from binaryen 132 is needed first on PATH (found: $(command -v wasm-opt || echo none)); run scripts/setup.sh"
  exit 1
fi
if ! grep -q "wasm_bindgen = \"$want_bindgen\"" Trunk.toml; then
  say "Trunk.toml [tools] wasm_bindgen must equal Cargo.lock's wasm-bindgen ($want_bindgen)"
  exit 1
fi

start=$(date +%s)
cargo fetch --locked --quiet
say "trunk build --release --offline --locked"
trunk build --release --offline --locked
# The default example's report, made by the worker's engine natively: a
# first visit shows it before the worker's wasm has loaded.
say "the first report (cargo run --features web --bin drift-doctor-first-report)"
mkdir -p target
cargo run --locked --quiet --features web --bin drift-doctor-first-report > target/first-report.txt
# The rules' docs and examples, which only the Rules tab shows: the worker
# loads this script when the tab first asks, and analyses without them.
cargo run --locked --quiet --features web --bin drift-doctor-first-report -- rule-texts > dist/drift-doctor-rule-texts.js
# The jq module: the jq engine alone, without JavaScript glue (the worker
# instantiates it when a rule first needs jq). Built as Trunk builds the
# page: the `web` profile, then wasm-opt -Oz.
say "the jq module (cargo build --profile web --target wasm32-unknown-unknown --bin drift-doctor-jq)"
cargo build --locked --offline --quiet --profile web --target wasm32-unknown-unknown --bin drift-doctor-jq
jq_wasm="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/web/drift-doctor-jq.wasm"
wasm-opt -Oz --strip-debug --strip-producers "$jq_wasm" -o dist/drift-doctor-jq.wasm
# The worker gives it exactly one import, its clock.
node -e '
const m = new WebAssembly.Module(require("fs").readFileSync(process.argv[1]));
const imports = WebAssembly.Module.imports(m).map(i => i.module + "." + i.name).join(",");
const exports = WebAssembly.Module.exports(m).map(e => e.name);
const want = ["memory", "drift_doctor_jq_alloc", "drift_doctor_jq_run", "drift_doctor_jq_free"];
if (imports !== "env.now_ms" || !want.every(n => exports.includes(n))) {
  console.error("[build-web] dist/drift-doctor-jq.wasm imports " + imports + " and exports " + exports.join(",") + "; the worker gives env.now_ms and needs " + want.join(","));
  process.exit(1);
}' dist/drift-doctor-jq.wasm
end=$(date +%s)

# Content-Security-Policy: allow exactly the inline scripts Trunk wrote.
python3 - dist/index.html <<'PY'
import base64, hashlib, re, sys

path = sys.argv[1]
html = open(path, encoding="utf-8").read()
inline = [m.group(2) for m in re.finditer(r"<script\b([^>]*)>(.*?)</script>", html, re.S)
          if not re.search(r"\bsrc\s*=", m.group(1))]
hashes = ["'sha256-%s'" % base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode() for s in inline]
marker = "script-src 'self' 'wasm-unsafe-eval'"
if html.count(marker) != 1:
    sys.exit("build-web: the CSP meta tag with %r was not found exactly once in %s" % (marker, path))
html = html.replace(marker, " ".join([marker] + hashes))
# Nothing inline that the policy would block.
for bad, what in [(r"\sstyle\s*=", "a style attribute"), (r"\son[a-z]+\s*=", "an inline event handler"),
                  (r"<style\b", "a <style> element"), (r"unsafe-inline", "'unsafe-inline'")]:
    if re.search(bad, html):
        sys.exit("build-web: dist/index.html has %s, which the CSP forbids" % what)
csp = html.find("Content-Security-Policy")
first_script = html.find("<script")
if csp < 0 or (first_script >= 0 and first_script < csp):
    sys.exit("build-web: the CSP meta tag must come before every script")
# Trunk keeps the worker's file names fixed (the page names them at run
# time); version them by content so a cached worker never meets a newer page.
import os
dist = os.path.dirname(path)
h = hashlib.sha256()
for f in ("drift-doctor-worker.js", "drift-doctor-worker_bg.wasm", "drift-doctor-full-worker.js",
          "drift-doctor-full-worker_bg.wasm", "drift-doctor-rule-texts.js", "drift-doctor-jq.wasm"):
    h.update(open(os.path.join(dist, f), "rb").read())
v = h.hexdigest()[:16]
# Each worker's loader: the URLs it loads on demand, then its glue and wasm.
# The (lean) analysis worker also names the full worker's loader.
for name, extra in (("drift-doctor-worker", 'self.driftDoctorFullWorkerUrl="./drift-doctor-full-worker_loader.js?v=%s";' % v),
                    ("drift-doctor-full-worker", "")):
    open(os.path.join(dist, name + "_loader.js"), "w").write(
        'self.driftDoctorRuleTextsUrl="./drift-doctor-rule-texts.js?v=%s";self.driftDoctorJqUrl="./drift-doctor-jq.wasm?v=%s";%simportScripts("./%s.js?v=%s");wasm_bindgen({module_or_path: "./%s_bg.wasm?v=%s"});\n'
        % (v, v, extra, name, v, name, v))
meta = '<meta name="drift-doctor-worker" content="drift-doctor-worker_loader.js">'
if html.count(meta) != 1:
    sys.exit("build-web: the drift-doctor-worker meta tag was not found in %s" % path)
html = html.replace(meta, '<meta name="drift-doctor-worker" content="drift-doctor-worker_loader.js?v=%s">' % v)
report = open("target/first-report.txt", encoding="ascii").read().strip()
if not re.fullmatch(r"[A-Za-z0-9+/=]+", report):
    sys.exit("build-web: target/first-report.txt is not base64")
meta = '<meta name="drift-doctor-first-report" content="">'
if html.count(meta) != 1:
    sys.exit("build-web: the empty drift-doctor-first-report meta tag was not found in %s" % path)
html = html.replace(meta, '<meta name="drift-doctor-first-report" content="%s">' % report)
open(path, "w", encoding="utf-8").write(html)
print("[build-web] CSP script-src hashes: %s; worker version %s" % (" ".join(hashes) or "none", v), file=sys.stderr)
PY

for f in index.html drift-doctor-worker_loader.js drift-doctor-worker.js drift-doctor-worker_bg.wasm drift-doctor-full-worker_loader.js drift-doctor-full-worker.js drift-doctor-full-worker_bg.wasm drift-doctor-rule-texts.js drift-doctor-jq.wasm csp-watch.js; do
  [ -f "dist/$f" ] || { say "dist/$f is missing after the build"; exit 1; }
done

# The whole page in one file for file:// and air-gapped use, rebuilt from
# this build's dist/ every time (a failed step leaves no stale copy behind).
rm -f dist/drift-doctor.html
python3 scripts/make-standalone.py dist
[ -s dist/drift-doctor.html ] || { say "dist/drift-doctor.html was not written"; exit 1; }
say "built dist/ in $((end - start)) s"
