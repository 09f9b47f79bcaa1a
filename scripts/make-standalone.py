#!/usr/bin/env python3
"""Writes dist/drift-doctor.html: the whole page in one file that works when
opened straight from disk (file://), with no network and no other file.

Run by scripts/build-web.sh after Trunk (and after its CSP step), from what
is in dist/:

- the page's wasm-bindgen glue (ES module) and wasm, named by the module
  script Trunk put into dist/index.html;
- the full worker's glue (no-modules target) and wasm, the fixed names
  Trunk gives a data-type="worker" binary (the one file carries everything,
  so its worker is the full one, which never starts another), and the
  rules' docs and examples the worker loads for the Rules tab (drift-doctor-rule-texts.js), and the jq
  module it instantiates when a rule needs jq (drift-doctor-jq.wasm: the
  worker unpacks it only then, from `self.driftDoctorJqBytes`);
- the CSS, the favicon and csp-watch.js.

The wasm files are gzipped and base64-encoded and unpacked in the browser
with DecompressionStream (nothing is fetched: no fetch(), no data: URL
request). A classic inline script builds the worker's script (its glue,
the unpacking code and its wasm) as a Blob and writes the blob: URL into
<meta name="drift-doctor-worker">; the page spawns the worker from there.
A module script at the end of <body> (modules run after parsing, so after
the meta tag is set) holds the page glue and starts it with its wasm bytes.

The file carries its own Content-Security-Policy: scripts and styles only by
sha256 hash, 'wasm-unsafe-eval', workers only from blob:, no connect-src.

Standard library only. Exits non-zero with a message when an input is
missing or the page no longer looks as expected, so the file cannot go
silently stale.
"""

import base64
import gzip
import hashlib
import json
import os
import re
import sys

OUT_NAME = "drift-doctor.html"
WORKER_JS = "drift-doctor-full-worker.js"
WORKER_WASM = "drift-doctor-full-worker_bg.wasm"
RULE_TEXTS = "drift-doctor-rule-texts.js"
JQ_WASM = "drift-doctor-jq.wasm"
# What that script is: one assignment of a JSON string.
RULE_TEXTS_START, RULE_TEXTS_END = "self.driftDoctorRuleTexts = ", ";\n"


def fail(msg):
    sys.exit("make-standalone: " + msg)


def read(dist, name, mode="r"):
    path = os.path.join(dist, name)
    if not os.path.isfile(path):
        fail("%s is missing (run scripts/build-web.sh)" % path)
    if mode == "rb":
        with open(path, "rb") as f:
            return f.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def sha256(text):
    return "'sha256-%s'" % base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def packed(data):
    """gzip (fixed mtime: the same input gives the same file) + base64."""
    return base64.b64encode(gzip.compress(data, compresslevel=9, mtime=0)).decode("ascii")


def js_string(text):
    """A JS string literal that is also safe inside a <script> element."""
    s = json.dumps(text, ensure_ascii=True)
    return s.replace("</", "<\\/").replace("<!--", "<\\!--")


def check_raw_script(text, what):
    """Code put verbatim into a <script> element must not end it early."""
    for bad in ("</script", "<!--", "<script"):
        if bad in text.lower():
            fail("%s contains %r and cannot be inlined verbatim" % (what, bad))


def sub_once(pattern, repl, html, what, flags=re.S):
    new, n = re.subn(pattern, lambda m: repl, html, count=0, flags=flags)
    if n != 1:
        fail("expected exactly one %s in dist/index.html, found %d" % (what, n))
    return new


# Unpacks a gzip+base64 string into wasm bytes (page and worker share it).
UNPACK = r"""async function __ddUnpack(b64) {
  if (typeof DecompressionStream !== "function") {
    throw new Error("this browser lacks DecompressionStream; use a current Chrome, Edge, Firefox or Safari");
  }
  let bytes;
  if (typeof Uint8Array.fromBase64 === "function") {
    bytes = Uint8Array.fromBase64(b64);
  } else {
    const s = atob(b64);
    bytes = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  }
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
"""

# Worker: after its glue, `const __ddWasm = "..."`, `const __ddRuleTexts
# = "..."` (the rules' docs, set where the worker looks before it would load
# their script) and `const __ddJq = "..."` (the jq module, given to the
# worker when it asks: most analyses never unpack it).
WORKER_BOOT = r"""self.driftDoctorJqBytes = function () { return __ddUnpack(__ddJq); };
Promise.all([__ddUnpack(__ddWasm), __ddUnpack(__ddRuleTexts)]).then(function (unpacked) {
  self.driftDoctorRuleTexts = new TextDecoder().decode(unpacked[1]);
  return wasm_bindgen({ module_or_path: unpacked[0] });
}).catch(function (e) {
  console.error("drift-doctor: the analysis worker could not start:", e);
  throw e;
});
"""


def main():
    dist = sys.argv[1] if len(sys.argv) > 1 else "dist"
    html = read(dist, "index.html")

    # What Trunk wrote: the page's glue and wasm, the CSS and the icon.
    m = re.search(r"<script type=\"module\">(.*?)</script>", html, re.S)
    if not m:
        fail("no inline module script (Trunk's page loader) in dist/index.html")
    loader = m.group(1)
    glue_name = re.search(r"from\s+'\./([^']+\.js)'", loader)
    wasm_name = re.search(r"module_or_path:\s*'\./([^']+\.wasm)'", loader)
    if not glue_name or not wasm_name:
        fail("cannot find the page's glue and wasm names in Trunk's module script:\n" + loader)
    css_name = re.search(r"<link rel=\"stylesheet\" href=\"\./([^\"]+\.css)\"[^>]*>", html)
    icon_name = re.search(r"<link rel=\"icon\" href=\"\./([^\"]+\.svg)\"[^>]*>", html)
    if not css_name or not icon_name:
        fail("cannot find the stylesheet and icon links in dist/index.html")

    page_glue = read(dist, glue_name.group(1))
    page_wasm = read(dist, wasm_name.group(1), "rb")
    worker_glue = read(dist, WORKER_JS)
    worker_wasm = read(dist, WORKER_WASM, "rb")
    rule_texts = read(dist, RULE_TEXTS)
    jq_wasm = read(dist, JQ_WASM, "rb")
    try:
        if not (rule_texts.startswith(RULE_TEXTS_START) and rule_texts.endswith(RULE_TEXTS_END)):
            raise ValueError("not one assignment")
        rule_texts = json.loads(rule_texts[len(RULE_TEXTS_START):-len(RULE_TEXTS_END)])
        if not isinstance(rule_texts, str):
            raise ValueError("not a string")
    except ValueError as e:
        fail("%s is not the one assignment of a JSON string to self.driftDoctorRuleTexts (%s)" % (RULE_TEXTS, e))
    rule_texts = rule_texts.encode("utf-8")
    css = read(dist, css_name.group(1))
    icon = read(dist, icon_name.group(1), "rb")
    watch = read(dist, "csp-watch.js")

    # The page glue is an ES module ending in `export { initSync, X as default };`.
    init = re.search(r"export\s*\{[^}]*?\b([A-Za-z_$][\w$]*)\s+as\s+default\b", page_glue)
    if not init:
        fail("the page glue %s has no default export (wasm-bindgen's init)" % glue_name.group(1))
    if re.search(r"^\s*import\b", page_glue, re.M):
        fail("the page glue %s imports other files (snippets?); they are not inlined" % glue_name.group(1))
    if "let wasm_bindgen" not in worker_glue:
        fail("%s is not wasm-bindgen's no-modules glue (no `let wasm_bindgen`)" % WORKER_JS)
    check_raw_script(page_glue, glue_name.group(1))
    if "</style" in css.lower():
        fail("the CSS contains '</style'")

    # The scripts and the style, exactly as they go into the file.
    watch_script = "\n" + watch.strip() + "\n"
    worker_script = (
        "\n(function () {\n"
        '  "use strict";\n'
        "  // The analysis worker: its glue, the unpacker and its wasm, as one script.\n"
        "  var parts = [" + js_string(worker_glue) + ", \"\\n\", " + js_string(UNPACK) + ",\n"
        "    'const __ddWasm = \"', \"" + packed(worker_wasm) + "\", '\";\\n',\n"
        "    'const __ddRuleTexts = \"', \"" + packed(rule_texts) + "\", '\";\\n',\n"
        "    'const __ddJq = \"', \"" + packed(jq_wasm) + "\", '\";\\n',\n"
        "    " + js_string(WORKER_BOOT) + "];\n"
        "  var url = URL.createObjectURL(new Blob(parts, { type: \"text/javascript\" }));\n"
        "  document.querySelector('meta[name=\"drift-doctor-worker\"]').setAttribute(\"content\", url);\n"
        "})();\n"
    )
    page_script = (
        "\n" + page_glue.rstrip() + "\n\n" + UNPACK + "\n"
        "try {\n"
        "  await " + init.group(1) + "({ module_or_path: await __ddUnpack(\"" + packed(page_wasm) + "\") });\n"
        "} catch (e) {\n"
        "  console.error(\"drift-doctor could not start:\", e);\n"
        "  const app = document.getElementById(\"app\");\n"
        "  if (app) app.textContent = \"drift-doctor could not start in this browser: \" + e;\n"
        "}\n"
    )
    style = "\n" + css.strip() + "\n"

    csp = "; ".join([
        "default-src 'none'",
        "script-src %s %s %s 'wasm-unsafe-eval'" % (sha256(watch_script), sha256(worker_script), sha256(page_script)),
        "style-src %s" % sha256(style),
        "worker-src blob:",
        "img-src data:",
        "base-uri 'none'",
        "form-action 'none'",
    ])

    # Rewrite dist/index.html into the standalone page.
    out = html
    out = sub_once(r'<meta http-equiv="Content-Security-Policy" content="[^"]*">',
                   '<meta http-equiv="Content-Security-Policy" content="%s">' % csp, out, "CSP meta tag")
    out = sub_once(r'<meta name="drift-doctor-worker" content="[^"]*">',
                   '<meta name="drift-doctor-worker" content="">', out, "drift-doctor-worker meta tag")
    out = sub_once(re.escape(css_name.group(0)), "<style>%s</style>" % style, out, "stylesheet link")
    out = sub_once(re.escape(icon_name.group(0)),
                   '<link rel="icon" href="data:image/svg+xml;base64,%s">' % base64.b64encode(icon).decode(),
                   out, "icon link")
    out = sub_once(r'<script src="csp-watch.js"></script>',
                   "<script>%s</script>\n  <script>%s</script>" % (watch_script, worker_script),
                   out, "csp-watch.js script")
    out = sub_once(r"<script type=\"module\">.*?</script>", "", out, "Trunk module script")
    out = re.sub(r"<link rel=\"(?:modulepreload|preload)\"[^>]*>", "", out)
    out = sub_once(r"</body>", '<script type="module">%s</script>\n</body>' % page_script, out, "</body>")
    # Comments about the served build's files would only mislead here.
    out = re.sub(r"\n?[ \t]*<!--.*?-->", "", out, flags=re.S)
    out = out.replace("<head>", "<head>\n  <!-- drift-doctor in one file: written by scripts/make-standalone.py from dist/; everything runs inside it. -->", 1)

    # Nothing may point outside the file (a new asset in www/index.html must
    # be taught to this script, not silently dropped).
    markup = re.sub(r"<script\b.*?</script>|<style>.*?</style>", "", out, flags=re.S)
    for m in re.finditer(r"<(\w+)\b([^>]*?)\s(src|href)\s*=\s*\"([^\"]*)\"", markup):
        tag, attr, url = m.group(1), m.group(3), m.group(4)
        if not (url.startswith("#") or url.startswith("data:")):
            fail("<%s %s=%r> would load another file; teach make-standalone.py to inline it" % (tag, attr, url))
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", out, re.S)
    for attrs, _ in scripts:
        if re.search(r"\bsrc\s*=", attrs):
            fail("<script%s> would load another file; teach make-standalone.py to inline it" % attrs)
    if len(scripts) != 3:
        fail("expected exactly the three inline scripts this script writes, found %d" % len(scripts))
    if re.search(r"\sstyle\s*=|\son[a-z]+\s*=", markup):
        fail("a style attribute or inline event handler would be blocked by the CSP")
    # The policy allows exactly what the file holds.
    inline = [body for _, body in scripts] + re.findall(r"<style>(.*?)</style>", out, re.S)
    if sorted(sha256(t) for t in inline) != sorted(re.findall(r"'sha256-[^']+'", csp)):
        fail("the CSP hashes do not match the inline scripts and style")

    path = os.path.join(dist, OUT_NAME)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(out)
    os.replace(tmp, path)
    print("[build-web] wrote %s (%d KB: page wasm %d KB, worker wasm %d KB, jq module %d KB before gzip+base64)"
          % (path, os.path.getsize(path) // 1024, len(page_wasm) // 1024, len(worker_wasm) // 1024,
             len(jq_wasm) // 1024),
          file=sys.stderr)


if __name__ == "__main__":
    main()
