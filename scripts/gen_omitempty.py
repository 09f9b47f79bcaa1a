#!/usr/bin/env python3
"""Generate src/k8s/omitempty_data.json from the Kubernetes Go API types.

Argo CD's legacy diff round-trips built-in kinds through client-go's typed Go
structs (gitops-engine `remarshal`). The round trip drops every non-pointer
field tagged `json:"x,omitempty"` whose value is the Go zero value; this
script lists those fields per type, read from the Go sources:

    k8s.io/api           (git clone https://github.com/kubernetes/api)
    k8s.io/apimachinery  (git clone https://github.com/kubernetes/apimachinery)

both at tag v0.37.0-beta.0 (k8s.io/api 1c293eaf810b123325bc7d2c0b9682ff8806aaee,
k8s.io/apimachinery 63a9f3d1b8dd467b263aedd41b99e58da6c015a3), the Go side of
the Kubernetes 1.37 definitions that schema_data.json comes from:

    python3 scripts/gen_omitempty.py --rev v0.37.0-beta.0 API_GIT_DIR APIMACHINERY_GIT_DIR

The arguments are git directories (bare or not); files are read at --rev with
`git show`, so no work tree is needed. Output goes to src/k8s/omitempty_data.json
(or -o); --check only verifies that file. Same input, same bytes.

Output format (compact JSON, read by src/k8s/known_types.rs):

    {"source": "...",
     "types": {typeName: {zeroKind: [jsonField, ...], ...}, ...}}

typeName as in schema_data.json ("io.k8s.api.core.v1.Container"); only types
that schema_data.json names are written (the walker meets no others). Zero
kinds: "string" (""), "bool" (false), "number" (0), "map" ({}), "slice" ([]),
"bytes" ([]byte: "" in JSON, also []). Pointer, interface and struct fields are
never listed (a nil pointer is omitted but a zero one is kept; encoding/json
and the unstructured converter never omit a struct). Embedded structs
(`json:",inline"` or untagged) contribute their fields.
"""

import argparse
import json
import os
import re
import subprocess
import sys

API_PREFIX = "k8s.io/api/"
MACHINERY_PREFIX = "k8s.io/apimachinery/"
# apimachinery packages whose named types the API types use.
MACHINERY_PKGS = [
    "pkg/apis/meta/v1",
    "pkg/types",
    "pkg/util/intstr",
    "pkg/api/resource",
    "pkg/runtime",
]
BASIC = {
    "string": "string",
    "bool": "bool",
}
NUMBERS = {
    "int", "int8", "int16", "int32", "int64",
    "uint", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "byte", "rune",
}


def git(gitdir, *args):
    return subprocess.run(
        ["git", "-C", gitdir] + list(args),
        check=True, capture_output=True, text=True,
    ).stdout


def list_go_files(gitdir, rev, pkg):
    out = git(gitdir, "ls-tree", "--name-only", "%s:%s" % (rev, pkg) if pkg else rev)
    names = []
    for name in out.split():
        if not name.endswith(".go") or name.endswith("_test.go"):
            continue
        if name.startswith("zz_generated") or "generated" in name:
            continue
        names.append(name)
    return sorted(names)


def strip_comments(src):
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


class Package:
    """The named types of one Go package: structs (fields) and the others (underlying type)."""

    def __init__(self, path):
        self.path = path  # import path
        self.structs = {}  # name -> [(goName, goType, tag)]
        self.named = {}  # name -> underlying type expression
        self.imports = {}  # alias -> import path (per package; conflicts are rare)


def parse_imports(src, pkg):
    for block in re.findall(r"^import\s*\((.*?)\)", src, flags=re.S | re.M):
        for line in block.splitlines():
            m = re.match(r'\s*(\w+)?\s*"([^"]+)"', line)
            if m:
                path = m.group(2)
                pkg.imports[m.group(1) or path.rsplit("/", 1)[-1]] = path
    for m in re.finditer(r'^import\s+(\w+)?\s*"([^"]+)"', src, flags=re.M):
        path = m.group(2)
        pkg.imports[m.group(1) or path.rsplit("/", 1)[-1]] = path


def parse_struct_body(body):
    fields = []
    for line in body.splitlines():
        line = line.strip()
        if not line:
            continue
        m = re.match(r"^(\w+)\s+(.+?)\s*(`[^`]*`)?$", line)
        if m and not m.group(2).startswith("`"):
            fields.append((m.group(1), m.group(2).strip(), m.group(3) or ""))
            continue
        m = re.match(r"^(\*?[\w.]+)\s*(`[^`]*`)?$", line)
        if m:  # embedded
            fields.append((None, m.group(1), m.group(2) or ""))
    return fields


def parse_file(src, pkg):
    src = strip_comments(src)
    parse_imports(src, pkg)
    # Single declarations and those inside `type ( ... )` blocks.
    decls = []
    for m in re.finditer(r"^type\s+(\w+)\s+struct\s*\{", src, flags=re.M):
        decls.append(("struct", m.group(1), m.end()))
    for m in re.finditer(r"^type\s+(\w+)\s*=?\s*([^\s{(][^\n{]*)$", src, flags=re.M):
        pkg.named[m.group(1)] = m.group(2).strip()
    for m in re.finditer(r"^type\s*\((.*?)^\)", src, flags=re.S | re.M):
        for line in m.group(1).splitlines():
            n = re.match(r"^\s*(\w+)\s*=?\s*([^\s{][^{]*)$", line)
            if n:
                pkg.named[n.group(1)] = n.group(2).strip()
    for _, name, start in decls:
        depth, i = 1, start
        while i < len(src) and depth:
            if src[i] == "{":
                depth += 1
            elif src[i] == "}":
                depth -= 1
            i += 1
        pkg.structs[name] = parse_struct_body(src[start:i - 1])


def load_package(gitdir, rev, dirpath, import_path, only_types_go):
    pkg = Package(import_path)
    files = ["types.go"] if only_types_go else list_go_files(gitdir, rev, dirpath)
    for f in files:
        try:
            src = git(gitdir, "show", "%s:%s/%s" % (rev, dirpath, f))
        except subprocess.CalledProcessError:
            continue
        parse_file(src, pkg)
    return pkg


def json_tag(tag):
    m = re.search(r'json:"([^"]*)"', tag)
    if not m:
        return None, set()
    parts = m.group(1).split(",")
    return parts[0], set(parts[1:])


class Resolver:
    def __init__(self, packages):
        self.packages = packages  # import path -> Package
        self.unresolved = set()

    def lookup(self, pkg, typ):
        """(Package, name) of a possibly qualified type name."""
        if "." in typ:
            alias, name = typ.split(".", 1)
            path = pkg.imports.get(alias)
            target = self.packages.get(path)
            if target is None:
                return None, name
            return target, name
        return pkg, typ

    def zero_kind(self, pkg, typ, seen=()):
        """The zero kind of a Go type expression, None when never omitted."""
        typ = typ.strip()
        if typ.startswith("*") or typ.startswith("interface") or typ == "any":
            return None
        if typ == "[]byte":
            return "bytes"
        if typ.startswith("[]"):
            return "slice"
        if typ.startswith("map["):
            return "map"
        if typ in BASIC:
            return BASIC[typ]
        if typ in NUMBERS:
            return "number"
        if typ.startswith("["):
            return None  # arrays: none in the API
        target, name = self.lookup(pkg, typ)
        if target is None:
            self.unresolved.add(typ)
            return None
        if name in target.structs:
            return None
        under = target.named.get(name)
        if under is None or (target.path, name) in seen:
            self.unresolved.add(typ)
            return None
        return self.zero_kind(target, under, seen + ((target.path, name),))

    def omitted(self, pkg, struct, seen=()):
        """{jsonName: zeroKind} of a struct's omitempty non-pointer fields, inline ones included."""
        out = {}
        for goname, typ, tag in pkg.structs.get(struct, []):
            name, opts = json_tag(tag)
            if name == "-":
                continue
            if goname is None and (not name) and not typ.startswith("*"):
                target, inner = self.lookup(pkg, typ)
                if target is not None and inner in target.structs and (target.path, inner) not in seen:
                    out.update(self.omitted(target, inner, seen + ((target.path, inner),)))
                continue
            if "omitempty" not in opts:
                continue
            kind = self.zero_kind(pkg, typ)
            if kind is not None:
                out[name or goname] = kind
        return out


def schema_type_name(import_path, struct):
    if import_path.startswith(API_PREFIX):
        rest = import_path[len(API_PREFIX):]
        return "io.k8s.api." + rest.replace("/", ".") + "." + struct
    if import_path.startswith(MACHINERY_PREFIX):
        rest = import_path[len(MACHINERY_PREFIX):]
        return "io.k8s.apimachinery." + rest.replace("/", ".") + "." + struct
    return None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.join(here, "..", "src", "k8s", "omitempty_data.json")
    schema_path = os.path.join(here, "..", "src", "k8s", "schema_data.json")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("api", help="git directory of k8s.io/api")
    ap.add_argument("apimachinery", help="git directory of k8s.io/apimachinery")
    ap.add_argument("--rev", default="v0.37.0-beta.0", help="tag or commit of both repositories")
    ap.add_argument("-o", "--output", default=default_out)
    ap.add_argument("--check", action="store_true", help="only verify the output file")
    args = ap.parse_args()

    with open(schema_path, "rb") as f:
        wanted = {t[0] for t in json.load(f)["types"]}

    packages = {}
    api_dirs = sorted({
        os.path.dirname(p)
        for p in git(args.api, "ls-tree", "-r", "--name-only", args.rev).split()
        if re.fullmatch(r"[a-z0-9]+/v[0-9a-z]+/types\.go", p)
    })
    for d in api_dirs:
        packages[API_PREFIX + d] = load_package(args.api, args.rev, d, API_PREFIX + d, True)
    for d in MACHINERY_PKGS:
        packages[MACHINERY_PREFIX + d] = load_package(
            args.apimachinery, args.rev, d, MACHINERY_PREFIX + d, False)

    resolver = Resolver(packages)
    types = {}
    for path in sorted(packages):
        pkg = packages[path]
        for struct in sorted(pkg.structs):
            name = schema_type_name(path, struct)
            if name not in wanted:
                continue
            fields = resolver.omitted(pkg, struct)
            if not fields:
                continue
            by_kind = {}
            for field, kind in fields.items():
                by_kind.setdefault(kind, []).append(field)
            types[name] = {k: sorted(v) for k, v in sorted(by_kind.items())}

    api_commit = git(args.api, "rev-parse", args.rev + "^{commit}").strip()
    machinery_commit = git(args.apimachinery, "rev-parse", args.rev + "^{commit}").strip()
    doc = {
        "source": "Go types of k8s.io/api %s (%s) and k8s.io/apimachinery %s (%s)"
        % (args.rev, api_commit, args.rev, machinery_commit),
        "types": dict(sorted(types.items())),
    }
    text = json.dumps(doc, separators=(",", ":"), sort_keys=False) + "\n"
    for t in sorted(resolver.unresolved):
        print("unresolved (kept, as a struct): %s" % t, file=sys.stderr)
    if args.check:
        with open(args.output, encoding="utf-8") as f:
            if f.read() != text:
                print("%s is out of date; rerun without --check" % args.output, file=sys.stderr)
                return 1
        return 0
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    print("%d types, %d fields -> %s" % (
        len(types), sum(len(v) for t in types.values() for v in t.values()), args.output),
        file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
