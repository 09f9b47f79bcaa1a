//! Prints how long each phase of an analysis takes on a Git/live pair:
//! `cargo run --release --example phases -- git.yaml live.yaml`.
use drift_doctor::input::{parse_side, Document, Side};
use serde_json::Value;
use std::time::{Duration, Instant};

// The CLI's allocator, so the memory printed is the CLI's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The process's peak resident memory so far, in MiB (Linux).
fn peak_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(g), Some(l)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: phases GIT LIVE");
        std::process::exit(2);
    };
    let git = std::fs::read_to_string(g).expect("git file");
    let live = std::fs::read_to_string(l).expect("live file");
    println!("texts read: peak {:.1} MiB", peak_mib());
    let (gd, t_git) = timed(|| parse_side(&git, Side::Git).expect("git parses"));
    println!("git parsed: peak {:.1} MiB", peak_mib());
    let (ld, t_live) = timed(|| parse_side(&live, Side::Live).expect("live parses"));
    println!("live parsed: peak {:.1} MiB", peak_mib());
    let (report, t_analyze) = timed(|| {
        drift_doctor::analyze::analyze_documents(&gd, &ld, &Default::default())
            .expect("no object is given twice")
    });
    println!("analysed: peak {:.1} MiB", peak_mib());
    let (json, t_json) = timed(|| serde_json::to_string_pretty(&report).unwrap());
    schema_passes(&ld);
    println!("parse git {t_git:?}, parse live {t_live:?}, compare+classify {t_analyze:?}, json {t_json:?} ({} bytes)", json.len());
}

/// Run `f` once: its result and how long it took.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed())
}

/// How long `pass` takes over a copy of every document's object (the copy
/// included).
fn time_pass(docs: &[Document], pass: impl Fn(&mut Value)) -> Duration {
    timed(|| {
        for d in docs {
            let mut v = d.object.clone();
            pass(&mut v);
        }
    })
    .1
}

/// An object's API group and kind.
fn group_kind(v: &Value) -> (String, String) {
    use drift_doctor::identity::api_group;
    let kind = v["kind"].as_str().unwrap_or("").to_string();
    let group = api_group(v["apiVersion"].as_str().unwrap_or("")).to_string();
    (group, kind)
}

/// Time the schema-driven passes alone over every live object.
#[allow(dead_code)]
pub fn schema_passes(docs: &[Document]) {
    let t_known = time_pass(docs, |v| {
        let (group, kind) = group_kind(v);
        drift_doctor::k8s::normalize_known_types(&group, &kind, v);
    });
    let t_defaults = time_pass(docs, |v| {
        let (group, kind) = group_kind(v);
        drift_doctor::k8s::apply_defaults(&group, &kind, v);
    });
    let t_clone = time_pass(docs, |_| {});
    println!("clone only {t_clone:?}, known types (+clone) {t_known:?}, defaults (+clone) {t_defaults:?}");
}
