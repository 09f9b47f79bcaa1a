//! Turns the rule catalogue (`src/rules/catalog.yaml`, written by people)
//! into JSON for the binary: reading JSON at start-up takes a few hundredths
//! of the time reading the same YAML does, on every run and in the page's
//! worker. One rule per line, so a load error's line number is the rule's
//! position in the catalogue.
//!
//! The page's worker analyses with `catalog-lean.json`, the catalogue without
//! each rule's docs and examples (most of its text, which only the page's
//! Rules tab shows); those are `rule-texts.json`, which the page build ships
//! as a file of its own that the worker loads when the Rules tab asks.
use serde_json::Value;
use std::path::Path;

/// What a rule carries only for people: it plays no part in an analysis.
const TEXT_FIELDS: [&str; 2] = ["docs", "examples"];

fn main() {
    let rules = read("src/rules/catalog.yaml");
    write("catalog.json", &rules);
    let lean: Vec<Value> = rules
        .iter()
        .map(|rule| {
            let mut rule = rule.clone();
            if let Some(fields) = rule.as_object_mut() {
                fields.retain(|k, _| !TEXT_FIELDS.contains(&k.as_str()));
            }
            rule
        })
        .collect();
    write("catalog-lean.json", &lean);
    let texts: Vec<Value> = rules
        .iter()
        .map(|rule| {
            let mut text = serde_json::Map::new();
            for k in std::iter::once("code").chain(TEXT_FIELDS) {
                if let Some(v) = rule.get(k) {
                    text.insert(k.to_string(), v.clone());
                }
            }
            Value::Object(text)
        })
        .collect();
    write("rule-texts.json", &texts);
    // The checks of `drift-doctor check` are rules of the same catalogue,
    // kept in their own file (their shape differs: no live side).
    write("checks.json", &read("src/rules/checks.yaml"));
}

fn read(source: &str) -> Vec<Value> {
    println!("cargo::rerun-if-changed={source}");
    let text = std::fs::read_to_string(source).unwrap_or_else(|e| panic!("{source}: {e}"));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{source}: {e}"))
}

fn write(target: &str, rules: &[Value]) {
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
