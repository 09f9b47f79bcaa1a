#!/usr/bin/env python3
"""Generate src/k8s/schema_data.json from the Kubernetes JSON-schema definitions.

Source: the PyPI package kubernetes-validate (Apache-2.0), which ships the
Kubernetes OpenAPI definitions as JSON Schema:

    pip download --no-deps kubernetes-validate==1.37.0 -d /tmp/kv
    python3 scripts/gen_k8s_schema.py /tmp/kv/kubernetes_validate-1.37.0-py3-none-any.whl

The argument may be the wheel (a zip) or the extracted _definitions.json.
Output goes to src/k8s/schema_data.json of this repository (or to the path
given with -o); --check only verifies that file. The output is deterministic:
same input, same bytes (types and kinds sorted by name).

Output format (compact JSON, read by src/k8s/mod.rs):

    {"source": "...",
     "kinds": [[group, kind, typeIndex], ...],          sorted by group, kind
     "types": [[typeName, {field: node, ...}], ...]}    sorted by type name

A node is one of
    <int>              object of type types[int] (Quantity / IntOrString are
                       types without fields, recognised by name)
    "s"                a scalar we do not care about (only as list item / map value)
    ["a", node]        list replaced whole (atomic)
    ["s", node]        list of scalars merged as a set
    ["k", node, k...]  list merged by key(s), patch merge key first
    ["m", node]        map (additionalProperties) with values of that node

Kinds: every type carrying x-kubernetes-group-version-kind (lists and the
meta types registered in every group excepted); when a kind exists in several
versions the newest stable one wins (else the newest beta, else alpha).
List strategy: strategic-merge-patch metadata first (patch strategy "merge"
with a patch merge key -> keyed, the other list-map-keys appended; "merge"
without key -> set), then x-kubernetes-list-type (map -> keyed by
list-map-keys, set -> set), else atomic.

Only fields that matter for diffing are kept: object references (to descend),
lists, maps, and Quantity / IntOrString leaves. Every type reachable from a
built-in kind is kept (even with no fields), so that type-driven defaulting
and Argo CD's knownTypeFields can name any of them.
"""

import argparse
import json
import os
import re
import sys
import zipfile

VERSION = "1.37.0"
DEFS_PATH = "kubernetes_validate/kubernetes-json-schema/v1.37.0-local/_definitions.json"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
REF_PREFIX = "#/$defs/"


def load_defs(path):
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            with z.open(DEFS_PATH) as f:
                doc = json.load(f)
    else:
        with open(path, "rb") as f:
            doc = json.load(f)
    return doc["$defs"]


def version_key(v):
    """Sort key: larger is preferred. Stable > beta > alpha, then by numbers."""
    m = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", v)
    if not m:
        return (-1, 0, 0)
    major = int(m.group(1))
    stage = {"alpha": 0, "beta": 1, None: 2}[m.group(2)]
    minor = int(m.group(3) or 0)
    return (stage, major, minor)


def pick_kinds(defs):
    """(group, kind) -> type name of the newest version (stable preferred)."""
    best = {}
    for name, t in defs.items():
        gvks = t.get("x-kubernetes-group-version-kind")
        if not gvks or len(gvks) != 1:
            # meta types registered in every group (DeleteOptions, WatchEvent)
            continue
        if name.startswith("io.k8s.apimachinery."):
            continue  # Status, APIGroup, APIVersions...: not resources
        gvk = gvks[0]
        kind = gvk["kind"]
        props = t.get("properties", {})
        if kind.endswith("List") and "items" in props:
            continue
        key = (gvk["group"], kind)
        cand = (version_key(gvk["version"]), name)
        if key not in best or cand[0] > best[key][0]:
            best[key] = cand
    return {k: v[1] for k, v in best.items()}


def ref_name(schema):
    ref = schema.get("$ref")
    if ref and ref.startswith(REF_PREFIX):
        return ref[len(REF_PREFIX):]
    return None


class Builder:
    def __init__(self, defs):
        self.defs = defs
        self.types = {}  # name -> {field: node}; filled by visit

    def is_kept_type(self, name):
        t = self.defs.get(name)
        if t is None:
            return False
        if name in (QUANTITY, INT_OR_STRING):
            return True
        # object types with properties; empty/opaque types (Time, RawExtension,
        # JSON, FieldsV1 ...) carry nothing useful
        return bool(t.get("properties"))

    def visit(self, name):
        if name in self.types:
            return
        self.types[name] = None  # mark in progress (recursive types)
        fields = {}
        for fname, fschema in sorted(self.defs[name].get("properties", {}).items()):
            node = self.node(fschema)
            if node != "s":
                fields[fname] = node
        self.types[name] = fields

    def node(self, schema):
        """Return the compact node for a property schema ("s" when irrelevant)."""
        ref = ref_name(schema)
        if ref is not None:
            if not self.is_kept_type(ref):
                return "s"
            self.visit(ref)
            return ("T", ref)
        if "items" in schema:
            return self.list_node(schema, self.node(schema["items"]))
        ap = schema.get("additionalProperties")
        if isinstance(ap, dict):
            return ["m", self.node(ap)]
        return "s"

    @staticmethod
    def list_node(schema, item):
        pmk = schema.get("x-kubernetes-patch-merge-key")
        ps = schema.get("x-kubernetes-patch-strategy", "")
        lt = schema.get("x-kubernetes-list-type")
        lmk = schema.get("x-kubernetes-list-map-keys") or []
        strategies = [s.strip() for s in ps.split(",") if s.strip()]
        # Strategic merge patch semantics first (what the legacy diff uses):
        if "merge" in strategies and pmk:
            keys = [pmk] + [k for k in lmk if k != pmk]
            return ["k", item] + keys
        if "merge" in strategies:
            return ["s", item]
        if lt == "map" and lmk:
            return ["k", item] + list(lmk)
        if lt == "set":
            return ["s", item]
        return ["a", item]


def build(defs):
    kinds = pick_kinds(defs)
    b = Builder(defs)
    for key in sorted(kinds):
        b.visit(kinds[key])
    names = sorted(b.types)
    index = {n: i for i, n in enumerate(names)}

    def resolve(node):
        if isinstance(node, tuple):
            return index[node[1]]
        if isinstance(node, list):
            return [node[0], resolve(node[1])] + node[2:]
        return node

    types = []
    for n in names:
        fields = {f: resolve(v) for f, v in sorted(b.types[n].items())}
        types.append([n, fields])
    kind_rows = [[g, k, index[kinds[(g, k)]]] for (g, k) in sorted(kinds)]
    return {
        "source": "PyPI kubernetes-validate==%s, %s" % (VERSION, DEFS_PATH),
        "kinds": kind_rows,
        "types": types,
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.join(os.path.dirname(here), "src", "k8s", "schema_data.json")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source", help="kubernetes-validate wheel or _definitions.json")
    ap.add_argument("-o", "--output", default=default_out)
    ap.add_argument("--check", action="store_true",
                    help="only verify that the output file is up to date (exit 1 if not)")
    args = ap.parse_args()
    defs = load_defs(args.source)
    data = build(defs)
    text = json.dumps(data, separators=(",", ":"), sort_keys=False, ensure_ascii=True)
    # one type per line keeps diffs of the committed file readable
    text = text.replace('],["io.', '],\n["io.') + "\n"
    if args.check:
        try:
            with open(args.output, encoding="ascii") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            print("%s is out of date; rerun without --check" % args.output, file=sys.stderr)
            sys.exit(1)
        print("%s is up to date" % args.output, file=sys.stderr)
        return
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w", encoding="ascii", newline="\n") as f:
        f.write(text)
    print("wrote %s: %d kinds, %d types, %d bytes" % (
        args.output, len(data["kinds"]), len(data["types"]), len(text)), file=sys.stderr)


if __name__ == "__main__":
    main()
