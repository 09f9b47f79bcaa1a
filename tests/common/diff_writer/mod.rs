//! Writing what `argocd app diff` and `kubectl diff` print for given objects, so that tests can
//! read text the tools would print for objects they choose (round trips through the reader), and
//! the YAML those tools print (`go_yaml`).

pub mod go_yaml;

use serde_json::Value;
use similar::{Algorithm, DiffOp};

/// One resource to render: the live object and the desired (target) object, either may be missing.
pub struct RenderResource<'a> {
    /// API group without version; empty for the core group.
    pub group: &'a str,
    /// Kind, e.g. `Deployment`.
    pub kind: &'a str,
    /// Namespace; empty for cluster-scoped objects.
    pub namespace: &'a str,
    /// Object name.
    pub name: &'a str,
    /// The object in the cluster (left side), if any.
    pub live: Option<&'a Value>,
    /// The desired object (right side), if any.
    pub target: Option<&'a Value>,
}

/// Render what `argocd app diff` prints for these resources: header `\n===== group/Kind ns/name ======`, then
/// `diff <live-file> <target-file>` output in normal format (`unified = None`) or unified with N context lines
/// (`Some(N)`, `---`/`+++` lines naming `/tmp/argocd-diffNNN/<name>-live.yaml` and `/tmp/argocd-diffNNN/<name>`).
/// Objects are serialised as sigs.k8s.io/yaml would (sorted keys, 2-space indent, unindented list items). Only resources
/// whose two sides differ (or one side is missing) are printed, sorted by "group/kind/namespace/name".
pub fn render_argocd_diff(resources: &[RenderResource<'_>], unified: Option<usize>) -> String {
    argocd(resources, unified)
}

/// Same for `kubectl diff` (diff -u -N with LIVE-/MERGED- directories and the group.version.Kind.ns.name file names;
/// the apiVersion is taken from the object).
pub fn render_kubectl_diff(resources: &[RenderResource<'_>]) -> String {
    kubectl(resources)
}

/// GNU diff prints modification times; fixed ones keep the output reproducible.
const TIMESTAMP: &str = "2025-01-10 10:00:00.000000000 +0000";

fn differs(r: &RenderResource<'_>) -> bool {
    match (r.live, r.target) {
        (None, None) => false,
        (Some(a), Some(b)) => a != b,
        _ => true,
    }
}

fn yaml_or_empty(v: Option<&Value>) -> String {
    v.map(go_yaml::to_yaml).unwrap_or_default()
}

/// A stable number standing in for the random part of a temporary directory name.
fn temp_suffix(seed: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    1_000_000_000 + h % 3_000_000_000
}

fn argocd(resources: &[RenderResource<'_>], unified: Option<usize>) -> String {
    let mut items: Vec<(String, &RenderResource<'_>)> = resources
        .iter()
        .filter(|r| differs(r))
        .map(|r| {
            (
                format!("{}/{}/{}/{}", r.group, r.kind, r.namespace, r.name),
                r,
            )
        })
        .collect();
    items.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::new();
    for (id, r) in items {
        out.push_str(&format!(
            "\n===== {}/{} {}/{} ======\n",
            r.group, r.kind, r.namespace, r.name
        ));
        let live = yaml_or_empty(r.live);
        let target = yaml_or_empty(r.target);
        match unified {
            None => out.push_str(&normal_diff(&live, &target)),
            Some(n) => {
                let dir = format!("/tmp/argocd-diff{}", temp_suffix(&id));
                let body = unified_diff(&live, &target, n);
                if !body.is_empty() {
                    out.push_str(&format!("--- {dir}/{}-live.yaml\t{TIMESTAMP}\n", r.name));
                    out.push_str(&format!("+++ {dir}/{}\t{TIMESTAMP}\n", r.name));
                    out.push_str(&body);
                }
            }
        }
    }
    out
}

fn kubectl_file(r: &RenderResource<'_>) -> String {
    let api = r
        .live
        .or(r.target)
        .and_then(|o| o.get("apiVersion"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let (group, version) = match api.split_once('/') {
        Some((g, v)) => (g.to_string(), v.to_string()),
        None if !api.is_empty() => (String::new(), api.to_string()),
        None => (r.group.to_string(), "v1".to_string()),
    };
    if group.is_empty() {
        format!("{version}.{}.{}.{}", r.kind, r.namespace, r.name)
    } else {
        format!("{group}.{version}.{}.{}.{}", r.kind, r.namespace, r.name)
    }
}

fn kubectl(resources: &[RenderResource<'_>]) -> String {
    let mut items: Vec<(String, &RenderResource<'_>)> = resources
        .iter()
        .filter(|r| differs(r))
        .map(|r| (kubectl_file(r), r))
        .collect();
    items.sort_by(|a, b| a.0.cmp(&b.0));
    let live_dir = "/tmp/LIVE-3187044418";
    let merged_dir = "/tmp/MERGED-1421955327";
    let mut out = String::new();
    for (file, r) in items {
        let body = unified_diff(&yaml_or_empty(r.live), &yaml_or_empty(r.target), 3);
        if body.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "diff -u -N {live_dir}/{file} {merged_dir}/{file}\n"
        ));
        out.push_str(&format!("--- {live_dir}/{file}\t{TIMESTAMP}\n"));
        out.push_str(&format!("+++ {merged_dir}/{file}\t{TIMESTAMP}\n"));
        out.push_str(&body);
    }
    out
}

fn split_lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

fn ops(old: &[&str], new: &[&str]) -> Vec<DiffOp> {
    similar::capture_diff_slices(Algorithm::Myers, old, new)
}

/// `diff old new` (normal format).
fn normal_diff(old: &str, new: &str) -> String {
    let a = split_lines(old);
    let b = split_lines(new);
    let mut out = String::new();
    // Merge adjacent non-equal ops into one change region, as diff prints them.
    let mut region: Option<(usize, usize, usize, usize)> = None;
    let flush = |region: &mut Option<(usize, usize, usize, usize)>, out: &mut String| {
        let Some((os, oe, ns, ne)) = region.take() else {
            return;
        };
        let range = |s: usize, e: usize| {
            if e - s == 1 {
                format!("{}", s + 1)
            } else {
                format!("{},{}", s + 1, e)
            }
        };
        if oe == os {
            out.push_str(&format!("{}a{}\n", os, range(ns, ne)));
        } else if ne == ns {
            out.push_str(&format!("{}d{}\n", range(os, oe), ns));
        } else {
            out.push_str(&format!("{}c{}\n", range(os, oe), range(ns, ne)));
        }
        for l in &a[os..oe] {
            out.push_str("< ");
            out.push_str(l);
            out.push('\n');
        }
        if oe > os && ne > ns {
            out.push_str("---\n");
        }
        for l in &b[ns..ne] {
            out.push_str("> ");
            out.push_str(l);
            out.push('\n');
        }
    };
    for op in ops(&a, &b) {
        let (tag, o, n) = op.as_tag_tuple();
        if matches!(tag, similar::DiffTag::Equal) {
            flush(&mut region, &mut out);
            continue;
        }
        region = Some(match region {
            Some((os, _, ns, _)) => (os, o.end, ns, n.end),
            None => (o.start, o.end, n.start, n.end),
        });
    }
    flush(&mut region, &mut out);
    out
}

/// The hunks of `diff -U n old new` (without the `---`/`+++` lines).
fn unified_diff(old: &str, new: &str, n: usize) -> String {
    let a = split_lines(old);
    let b = split_lines(new);
    let mut out = String::new();
    let range = |start: usize, len: usize| match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{}", start + 1, len),
    };
    for group in similar::group_diff_ops(ops(&a, &b), n) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let os = first.old_range().start;
        let oe = last.old_range().end;
        let ns = first.new_range().start;
        let ne = last.new_range().end;
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(os, oe - os),
            range(ns, ne - ns)
        ));
        for op in &group {
            let (tag, o, nr) = op.as_tag_tuple();
            match tag {
                similar::DiffTag::Equal => {
                    for l in &a[o] {
                        out.push(' ');
                        out.push_str(l);
                        out.push('\n');
                    }
                }
                _ => {
                    for l in &a[o] {
                        out.push('-');
                        out.push_str(l);
                        out.push('\n');
                    }
                    for l in &b[nr] {
                        out.push('+');
                        out.push_str(l);
                        out.push('\n');
                    }
                }
            }
        }
    }
    out
}
