//! A side read in parts (some YAML units by another worker, their values
//! sent back as JSON) gives exactly what reading it whole gives, errors
//! included.

use drift_doctor::input::{parse_side, parse_side_preparsed, parse_unit, yaml_units, Preparsed};
use drift_doctor::Side;

/// One object, with nested maps, lists, block text and floats.
fn object(i: usize) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{i}\n  namespace: shop\n  labels:\n    app: app-{i}\n  annotations:\n    note: |\n      line one {i}\n      line two\nspec:\n  replicas: {}\n  template:\n    spec:\n      containers:\n      - name: main\n        image: registry.example/app:{i}\n        args: [\"--ratio\", \"0.{i}\"]\n        resources:\n          limits:\n            cpu: {}m\n      tolerations: []\nstatus:\n  ratio: {}\n  tiny: 1.0e-{}\n",
        i % 5,
        100 + i,
        i as f64 / 7.0,
        (i % 9) + 1
    )
}

/// `kubectl get -o yaml`'s shape: one `kind: List` document, large enough
/// to be read item by item.
fn list(n: usize) -> String {
    let mut text = String::from("apiVersion: v1\nitems:\n");
    for i in 0..n {
        for (j, line) in object(i).lines().enumerate() {
            text.push_str(if j == 0 { "- " } else { "  " });
            text.push_str(line);
            text.push('\n');
        }
    }
    text.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
    text
}

fn stream(n: usize) -> String {
    (0..n).map(|i| format!("---\n{}", object(i))).collect()
}

/// Every other unit read "elsewhere", its value carried as JSON.
fn read_elsewhere(units: &[String], every: usize) -> Preparsed {
    let mut preparsed = Preparsed::default();
    for unit in units.iter().skip(1).step_by(every) {
        if let Some(value) = parse_unit(unit) {
            let json = serde_json::to_string(&value).unwrap();
            preparsed.insert(unit.clone(), serde_json::from_str(&json).unwrap());
        }
    }
    preparsed
}

#[test]
fn a_side_read_in_parts_is_the_side_read_whole() {
    for (what, text) in [("a List", list(900)), ("a stream", stream(300))] {
        let units = yaml_units(&text);
        assert!(units.len() >= 300, "{what}: {} units", units.len());
        for every in [1, 2, 5] {
            let preparsed = read_elsewhere(&units, every);
            let held = preparsed.len();
            assert!(held > 0);
            let parts = parse_side_preparsed(&text, Side::Live, &preparsed).unwrap();
            assert_eq!(parts, parse_side(&text, Side::Live).unwrap(), "{what}");
            // Every value read elsewhere was used, none read again here.
            assert_eq!(preparsed.len(), 0, "{what}: {held} held, some not taken");
        }
    }
}

#[test]
fn an_error_in_a_part_read_elsewhere_is_reported_where_it_is() {
    for text in [list(900), stream(300)] {
        // A duplicate key late in the side: that unit does not read on its own.
        let at = text.rfind("  replicas: ").unwrap();
        let broken = format!("{}  replicas: 1\n{}", &text[..at], &text[at..]);
        let units = yaml_units(&broken);
        assert!(units.iter().filter(|u| parse_unit(u).is_none()).count() == 1);
        let preparsed = read_elsewhere(&units, 1);
        let whole = parse_side(&broken, Side::Live).unwrap_err();
        let parts = parse_side_preparsed(&broken, Side::Live, &preparsed).unwrap_err();
        assert_eq!(parts.to_string(), whole.to_string());
        assert!(whole.line > 1000, "{whole}");
    }
}

#[test]
fn json_and_small_sides_have_no_units_to_share_but_one_document_each() {
    assert!(yaml_units("{\"kind\": \"List\", \"items\": []}").is_empty());
    assert!(yaml_units("[]").is_empty());
    let small = stream(3);
    assert_eq!(yaml_units(&small).len(), 3);
    // A value for a text the side does not contain is not used.
    let mut preparsed = Preparsed::default();
    preparsed.insert("kind: Other\n".into(), serde_json::json!({"kind": "Other"}));
    assert_eq!(
        parse_side_preparsed(&small, Side::Git, &preparsed).unwrap(),
        parse_side(&small, Side::Git).unwrap()
    );
    assert_eq!(preparsed.len(), 1);
}
