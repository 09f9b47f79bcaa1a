//! The knowledge base: every rule's own example classifies to that rule,
//! the data is well formed, and the generated catalogue is up to date.

mod common;

use drift_doctor::rules::{catalog, docs, predicates};
use drift_doctor::{analyze, CompareOptions, Options};

#[test]
fn every_rule_example_classifies_to_its_rule() {
    let catalog = catalog().expect("catalogue loads");
    let mut failures = Vec::new();
    for rule in catalog.rules.iter().filter(|r| r.retired.is_none()) {
        for (i, ex) in rule.examples.iter().enumerate() {
            let opts = Options {
                namespace: ex.namespace.clone(),
                compare: CompareOptions { include_hidden: true, ..Default::default() },
            };
            let report = match analyze(&ex.git, &ex.live, &opts) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{} example {i}: input error: {e}", rule.code));
                    continue;
                }
            };
            common::assert_valid(&report);
            common::assert_invariants(&report);
            let found = report
                .resources
                .iter()
                .filter(|r| r.id == ex.id)
                .flat_map(|r| &r.differences)
                .find(|d| d.pointer == ex.pointer);
            match found {
                Some(d) if d.rule == rule.code => {}
                Some(d) => failures.push(format!("{} example {i}: {} {} went to {} ({})", rule.code, ex.id, ex.pointer, d.rule, d.evidence)),
                None => failures.push(format!("{} example {i}: no difference at {} {}", rule.code, ex.id, ex.pointer)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_active_rule_except_the_fallback_has_an_example() {
    let catalog = catalog().unwrap();
    let missing: Vec<&str> = catalog
        .rules
        .iter()
        .filter(|r| r.retired.is_none() && r.code != "DR000" && r.examples.is_empty())
        .map(|r| r.code.as_str())
        .collect();
    assert!(missing.is_empty(), "rules without an example: {missing:?}");
}

#[test]
fn codes_are_unique_and_prefixed_by_cause() {
    let catalog = catalog().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for r in &catalog.rules {
        assert!(seen.insert(r.code.clone()), "duplicate code {}", r.code);
        let prefix = match r.cause.id() {
            "mutating-webhook" => "WH",
            "server-defaults" => "SD",
            "autoscaler" => "AS",
            "reloader" => "RL",
            "nondeterministic-render" => "NR",
            "controller-rewrite" => "CR",
            "sync-ordering" => "SO",
            _ => "DR",
        };
        assert!(r.code.starts_with(prefix), "{} has cause {} but not the prefix {prefix}", r.code, r.cause.id());
        if r.cause == drift_doctor::Cause::Drift {
            assert!(r.fix.ignore.is_none(), "{}: drift rules never carry an ignore fix", r.code);
        }
        for section in [&r.docs.meaning, &r.docs.who, &r.docs.why_loops, &r.docs.git_fix, &r.docs.ignore, &r.docs.risk] {
            assert!(section.trim().len() > 10, "{}: every docs section needs real text", r.code);
        }
    }
}

#[test]
#[ignore = "enabled once the catalogue uses every predicate"]
fn every_named_predicate_is_used_by_some_rule() {
    let catalog = catalog().unwrap();
    for name in predicates::NAMES {
        let used = catalog.rules.iter().any(|r| r.matcher.when.iter().chain(&r.matcher.unless).any(|p| p == name));
        assert!(used, "predicate `{name}` is not used by any rule");
    }
}

#[test]
fn the_generated_catalogue_is_up_to_date() {
    let generated = docs::catalogue_markdown(catalog().unwrap());
    let committed = std::fs::read_to_string(common::root().join("docs/rules.md")).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/rules.md is stale: run `cargo run -- rules --markdown > docs/rules.md`"
    );
}
