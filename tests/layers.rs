//! Arrows only point down: a scan of the library's sources (every
//! `crate::name` reference outside comments and string literals) proving no
//! module imports one of a higher layer, and no two modules import each
//! other, directly or in a ring. The page (`src/web`) and the binaries are
//! shells over the whole library and are not scanned.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first. A module may import modules of its own layer or
/// of a lower one; within a layer the imports must still form no cycle.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "foundation",
        &[
            "limits",
            "sorting",
            "text",
            "path",
            "strict_value",
            "parallel",
            "argocd_release",
        ],
    ),
    (
        "reading",
        &[
            "k8s",
            "identity",
            "input",
            "model",
            "diff_headers",
            "difftext",
            "secret_mask",
        ],
    ),
    (
        "comparison",
        &[
            "normalize",
            "context",
            "managed_fields",
            "ignore",
            "compare",
            "object_options",
            "pairing",
            "settings",
            "evidence",
        ],
    ),
    ("knowledge", &["rules"]),
    ("fixes", &["fixes", "sync_effects"]),
    // `application` sets an Application's status beside a report; `analyze` calls it.
    (
        "pipeline",
        &[
            "application",
            "request",
            "analyze",
            "verify",
            "plan",
            "audit",
            "view",
            "check",
        ],
    ),
    ("shells", &["render", "share", "web"]),
];

/// The source with comments, string and character literals blanked out, so
/// that only code is scanned.
fn code_only(source: &str) -> String {
    let b = source.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &source[i..];
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            i += end;
        } else if rest.starts_with("/*") {
            let mut depth = 0usize;
            let mut j = 0;
            while j < rest.len() {
                if rest[j..].starts_with("/*") {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with("*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            i += j;
            out.push(' ');
        } else if let Some(hashes) = raw_string_start(rest) {
            let body = &rest[hashes + 2..];
            let close = format!("\"{}", "#".repeat(hashes));
            let end = body.find(&close).map_or(body.len(), |e| e + close.len());
            i += hashes + 2 + end;
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            i = j + 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' {
            // A character literal ('x', '\n', '"'), or a lifetime ('a).
            let after = &rest[1..];
            let len = if after.starts_with('\\') {
                after.find('\'').map(|e| e + 2)
            } else {
                let c = after.chars().next().map_or(0, char::len_utf8);
                after[c..].starts_with('\'').then_some(c + 2)
            };
            match len {
                Some(l) => {
                    i += l;
                    out.push_str("' '");
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// `r"`, `r#"`, `br##"`…: the number of `#`s when `rest` opens a raw string.
fn raw_string_start(rest: &str) -> Option<usize> {
    let r = rest.strip_prefix('b').unwrap_or(rest).strip_prefix('r')?;
    let hashes = r.len() - r.trim_start_matches('#').len();
    r[hashes..]
        .starts_with('"')
        .then_some(hashes + rest.len() - r.len() - 1)
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first segment of the path after every `crate::` in code: a module or
/// a name the crate root re-exports. `crate::{a, b::c}` yields `a` and `b`.
fn crate_references(source: &str) -> BTreeSet<String> {
    let code = code_only(source);
    let mut names = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        let preceded_by_ident = rest[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        rest = &rest[at + "crate::".len()..];
        if preceded_by_ident {
            continue;
        }
        let tail = rest.trim_start();
        if let Some(group) = tail.strip_prefix('{') {
            let mut depth = 0usize;
            let mut item_start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if c.is_whitespace() => {}
                    _ if item_start && depth == 0 => {
                        item_start = false;
                        let name = ident_at(&group[k..]);
                        if !name.is_empty() && name != "self" {
                            names.insert(name.to_string());
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident_at(tail);
            if !name.is_empty() {
                names.insert(name.to_string());
            }
        }
    }
    names
}

/// Which node a name found after `crate::` belongs to: a module of its own
/// name, or the module the crate root re-exports it from (`pub use m::X`,
/// `pub use m::{X, Y}`, `pub use m::*`).
struct Resolver {
    modules: BTreeSet<String>,
    reexports: BTreeMap<String, String>,
    glob: Option<String>,
}

impl Resolver {
    fn from_lib(lib: &str) -> Resolver {
        let code = code_only(lib);
        let mut modules = BTreeSet::new();
        let mut reexports = BTreeMap::new();
        let mut glob = None;
        for line in code.lines().map(str::trim) {
            if let Some(m) = line.strip_prefix("pub mod ").or(line.strip_prefix("mod ")) {
                modules.insert(m.trim_end_matches(';').trim().to_string());
            } else if let Some(u) = line.strip_prefix("pub use ") {
                let u = u.trim_end_matches(';');
                let module = ident_at(u).to_string();
                let after = &u[module.len()..].trim_start_matches("::");
                if *after == "*" {
                    glob = Some(module);
                } else {
                    let names = after.trim_start_matches('{').trim_end_matches('}');
                    for n in names.split(',') {
                        let n = n.trim();
                        let n = n.rsplit(" as ").next().unwrap_or(n);
                        let n = n.rsplit("::").next().unwrap_or(n).trim();
                        if !n.is_empty() {
                            reexports.insert(n.to_string(), module.clone());
                        }
                    }
                }
            }
        }
        Resolver {
            modules,
            reexports,
            glob,
        }
    }

    fn node(&self, name: &str) -> Option<String> {
        if self.modules.contains(name) {
            return Some(name.to_string());
        }
        self.reexports.get(name).or(self.glob.as_ref()).cloned()
    }
}

fn layer_of(node: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, members)| members.contains(&node))
}

/// The node a file under `src/` belongs to: its top-level module.
fn node_of(relative: &str) -> String {
    let first = relative.split('/').next().unwrap();
    first.trim_end_matches(".rs").to_string()
}

/// Every import a node makes of another node.
fn edges(files: &[(String, String)], resolver: &Resolver) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (relative, source) in files {
        let from = node_of(relative);
        let own = edges.entry(from.clone()).or_default();
        for name in crate_references(source) {
            let to = resolver
                .node(&name)
                .unwrap_or_else(|| panic!("{relative}: `crate::{name}` names no module"));
            if to != from {
                own.insert(to);
            }
        }
    }
    edges
}

/// What is wrong with these imports: a module in no layer, an import of a
/// higher layer, a cycle.
fn violations(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut found = Vec::new();
    for (from, tos) in edges {
        let Some(low) = layer_of(from) else {
            found.push(format!("`{from}` is in no layer"));
            continue;
        };
        for to in tos {
            match layer_of(to) {
                None => found.push(format!("`{to}` (imported by `{from}`) is in no layer")),
                Some(high) if high > low => found.push(format!(
                    "`{from}` ({}) imports `{to}` ({}), a higher layer",
                    LAYERS[low].0, LAYERS[high].0
                )),
                _ => {}
            }
        }
    }
    found.extend(cycles(edges));
    found
}

/// One message per import cycle, found by depth-first search.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    fn visit<'a>(
        node: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
        found: &mut Vec<String>,
    ) {
        if let Some(at) = stack.iter().position(|n| *n == node) {
            let mut ring: Vec<&str> = stack[at..].to_vec();
            ring.push(node);
            found.push(format!("import cycle: {}", ring.join(" -> ")));
            return;
        }
        if !done.insert(node) {
            return;
        }
        stack.push(node);
        for next in edges.get(node).into_iter().flatten() {
            visit(next, edges, stack, done, found);
        }
        stack.pop();
    }
    let mut found = Vec::new();
    let mut done = BTreeSet::new();
    for node in edges.keys() {
        visit(node, edges, &mut Vec::new(), &mut done, &mut found);
    }
    found
}

fn library_files(src: &Path) -> Vec<(String, String)> {
    fn walk(dir: &Path, src: &Path, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        for entry in entries {
            let path = entry.path();
            let relative = path
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if relative == "web" || relative == "bin" || relative == "lib.rs" {
                continue;
            }
            if path.is_dir() {
                walk(&path, src, out);
            } else if relative.ends_with(".rs") {
                out.push((relative, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(src, src, &mut out);
    out
}

#[test]
fn library_modules_import_only_downwards_and_in_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let resolver = Resolver::from_lib(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let files = library_files(&src);
    assert!(files.len() > 30, "the scan found the sources");
    let edges = edges(&files, &resolver);
    for module in &resolver.modules {
        if module != "web" {
            assert!(layer_of(module).is_some(), "`{module}` is in no layer");
        }
    }
    let wrong = violations(&edges);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn fake(files: &[(&str, &str)]) -> Vec<String> {
    let lib = "pub mod path;\npub mod compare;\npub mod model;\npub mod ignore;\npub mod settings;\npub use compare::{CompareOptions, Strategy};\npub use model::*;\n";
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(f, s)| (f.to_string(), s.to_string()))
        .collect();
    violations(&edges(&files, &Resolver::from_lib(lib)))
}

#[test]
fn the_scan_finds_an_upward_import_in_every_spelling() {
    for source in [
        "use crate::compare::json_eq;",
        "use crate::{path::Seg, compare};",
        "use crate::{\n    path::{Seg, glob},\n    compare::{self, Strategy},\n};",
        "fn f() -> bool { crate::compare::json_eq(&a, &b) }",
        "fn f(o: &crate::CompareOptions) {}",
    ] {
        let wrong = fake(&[("path.rs", source)]);
        assert_eq!(
            wrong,
            ["`path` (foundation) imports `compare` (comparison), a higher layer"],
            "{source}"
        );
    }
}

#[test]
fn the_scan_passes_downward_imports_and_skips_comments_and_strings() {
    for source in [
        "use crate::path::Seg;\nuse crate::Change;",
        "// use crate::compare::json_eq;\n/// see [`crate::compare`]\nfn f() {}",
        "/* crate::compare /* nested */ crate::compare */ fn f() {}",
        "const S: &str = \"crate::compare::x\"; const R: &str = r#\"crate::compare\"#;",
        "fn f<'a>(c: char) -> bool { c == '\"' } fn g() -> &'static str { \"crate::compare\" }",
        "use other_crate::compare;",
    ] {
        assert_eq!(
            fake(&[("model.rs", source)]),
            Vec::<String>::new(),
            "{source}"
        );
    }
}

#[test]
fn the_scan_finds_a_cycle_within_a_layer() {
    let wrong = fake(&[
        ("compare.rs", "use crate::ignore::IgnoreRule;"),
        ("ignore/mod.rs", "use crate::compare::IgnoreStatus;"),
    ]);
    assert_eq!(wrong, ["import cycle: compare -> ignore -> compare"]);
    // A file in a module's directory is that module: it closes the same ring.
    let wrong = fake(&[
        ("compare.rs", "use crate::ignore::IgnoreRule;"),
        ("ignore/jq.rs", "use crate::compare::IgnoreStatus;"),
    ]);
    assert_eq!(wrong, ["import cycle: compare -> ignore -> compare"]);
    // The settings reader sits above both: no ring.
    let fine = fake(&[
        ("compare.rs", "use crate::ignore::IgnoreRule;"),
        (
            "settings.rs",
            "use crate::ignore::IgnoreRule;\nuse crate::compare::CompareOptions;",
        ),
    ]);
    assert_eq!(fine, Vec::<String>::new());
}
