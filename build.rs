//! Turns the rule catalogue (`src/rules/catalog.yaml`, written by people)
//! into JSON for the binary: reading JSON at start-up takes a few hundredths
//! of the time reading the same YAML does, on every run and in the page's
//! worker. One rule per line, so a load error's line number is the rule's
//! position in the catalogue.
use std::path::Path;

fn main() {
    // The checks of `drift-doctor check` are rules of the same catalogue,
    // kept in their own file (their shape differs: no live side).
    convert("src/rules/catalog.yaml", "catalog.json");
    convert("src/rules/checks.yaml", "checks.json");
}

fn convert(source: &str, target: &str) {
    println!("cargo::rerun-if-changed={source}");
    let text = std::fs::read_to_string(source).unwrap_or_else(|e| panic!("{source}: {e}"));
    let rules: Vec<serde_json::Value> =
        serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{source}: {e}"));
    let mut json = String::from("[\n");
    for (i, rule) in rules.iter().enumerate() {
        if i > 0 {
            json.push_str(",\n");
        }
        json.push_str(&serde_json::to_string(rule).expect("a parsed rule serialises"));
    }
    json.push_str("\n]\n");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&out).join(target), json).expect("OUT_DIR is writable");
}
