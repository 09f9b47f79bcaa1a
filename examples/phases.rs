//! Prints how long each phase of an analysis takes on a Git/live pair:
//! `cargo run --release --example phases -- git.yaml live.yaml`.
use drift_doctor::input::{parse_side, Side};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(g), Some(l)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: phases GIT LIVE");
        std::process::exit(2);
    };
    let git = std::fs::read_to_string(g).expect("git file");
    let live = std::fs::read_to_string(l).expect("live file");
    let t = Instant::now();
    let gd = parse_side(&git, Side::Git).expect("git parses");
    let t_git = t.elapsed();
    let t = Instant::now();
    let ld = parse_side(&live, Side::Live).expect("live parses");
    let t_live = t.elapsed();
    let t = Instant::now();
    let report = drift_doctor::analyze::analyze_documents(&gd, &ld, &Default::default());
    let t_analyze = t.elapsed();
    let t = Instant::now();
    let json = serde_json::to_string_pretty(&report).unwrap();
    let t_json = t.elapsed();
    schema_passes(&ld);
    println!("parse git {t_git:?}, parse live {t_live:?}, compare+classify {t_analyze:?}, json {t_json:?} ({} bytes)", json.len());
}

/// Time the schema-driven passes alone over every live object.
#[allow(dead_code)]
pub fn schema_passes(docs: &[drift_doctor::input::Document]) {
    use drift_doctor::identity::api_group;
    let t = Instant::now();
    for d in docs {
        let mut v = d.object.clone();
        let kind = v["kind"].as_str().unwrap_or("").to_string();
        let group = api_group(v["apiVersion"].as_str().unwrap_or("")).to_string();
        drift_doctor::k8s::normalize_known_types(&group, &kind, &mut v);
    }
    let t_known = t.elapsed();
    let t = Instant::now();
    for d in docs {
        let mut v = d.object.clone();
        let kind = v["kind"].as_str().unwrap_or("").to_string();
        let group = api_group(v["apiVersion"].as_str().unwrap_or("")).to_string();
        drift_doctor::k8s::apply_defaults(&group, &kind, &mut v);
    }
    let t_defaults = t.elapsed();
    let t = Instant::now();
    for d in docs {
        let _ = d.object.clone();
    }
    println!(
        "clone only {:?}, known types (+clone) {t_known:?}, defaults (+clone) {t_defaults:?}",
        t.elapsed()
    );
}
