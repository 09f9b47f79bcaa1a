//! The report does not depend on the order objects come in, nor on the
//! namespace Git gives an object of a cluster-scoped kind.

use crate::common;

use drift_doctor::{analyze, Options};

/// The documents of a YAML stream in reverse order.
fn reversed(text: &str) -> String {
    let mut docs: Vec<&str> = text
        .split("\n---\n")
        .map(|d| d.trim_matches('\n'))
        .filter(|d| !d.trim().is_empty() && d.trim() != "---")
        .collect();
    docs.reverse();
    docs.join("\n---\n") + "\n"
}

#[test]
fn every_scenario_reports_the_same_in_any_document_order() {
    for name in common::scenario_names() {
        let dir = format!("tests/fixtures/scenarios/{name}");
        let git = common::read(format!("{dir}/git.yaml"));
        let live = common::read(format!("{dir}/live.yaml"));
        let opts = Options::default();
        let forward = analyze(&git, &live, &opts).unwrap();
        let backward = analyze(&reversed(&git), &reversed(&live), &opts).unwrap();
        assert_eq!(
            serde_json::to_value(&forward).unwrap(),
            serde_json::to_value(&backward).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn a_namespace_on_a_cluster_scoped_object_changes_nothing() {
    let live = "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  size: 1\n";
    let plain = analyze(live, live, &Options::default()).unwrap();
    for ns in ["default", "team-a", "kube-system"] {
        let git = live.replace("  name: g\n", &format!("  name: g\n  namespace: {ns}\n"));
        let report = analyze(&git, live, &Options::default()).unwrap();
        assert_eq!(report.summary.resources, 1, "{ns}");
        assert_eq!(report.summary.synced, plain.summary.synced, "{ns}");
    }
}

/// Analysing scenario after scenario through one parse cache (as the page's
/// worker does when a user pastes one side, then the other) reports exactly
/// what a fresh analysis reports, whichever side was parsed before.
#[test]
fn a_parse_cache_changes_no_report() {
    use drift_doctor::{analyze_cached, analyze_with, Evidence, ParseCache};
    let opts = Options::default();
    let fresh = |git: &str, live: &str| {
        serde_json::to_value(analyze_with(git, live, &opts, Evidence::default()).unwrap()).unwrap()
    };
    let mut cache = ParseCache::default();
    let mut cached = |git: &str, live: &str| {
        analyze_cached(&mut cache, git, live, &opts, Evidence::default())
            .map(|r| serde_json::to_value(r).unwrap())
    };
    let names = common::scenario_names();
    let sides = |name: &str| {
        let dir = format!("tests/fixtures/scenarios/{name}");
        (
            common::read(format!("{dir}/git.yaml")),
            common::read(format!("{dir}/live.yaml")),
        )
    };
    for pair in names.windows(2) {
        let (git_a, live_a) = sides(&pair[0]);
        let (git_b, live_b) = sides(&pair[1]);
        assert_eq!(
            cached(&git_a, &live_a).unwrap(),
            fresh(&git_a, &live_a),
            "{}",
            pair[0]
        );
        // Only live changes, then only Git: the other side comes from the cache.
        assert_eq!(
            cached(&git_a, &live_b).unwrap(),
            fresh(&git_a, &live_b),
            "{} with live of {}",
            pair[0],
            pair[1]
        );
        assert_eq!(
            cached(&git_b, &live_b).unwrap(),
            fresh(&git_b, &live_b),
            "{}",
            pair[1]
        );
        // A side that does not parse is refused, and the cache still serves.
        let broken = cached(&git_b, "kind: [").expect_err("live does not parse");
        assert_eq!(broken.side, drift_doctor::input::Side::Live);
        assert_eq!(
            cached(&git_b, &live_b).unwrap(),
            fresh(&git_b, &live_b),
            "{} again",
            pair[1]
        );
    }
}

/// What the worker does around a helper: it lets go of a side about to be
/// replaced, prepares it (its values partly read elsewhere), and the
/// analysis then takes it from the cache, reporting what a fresh one does.
#[test]
fn a_side_prepared_ahead_is_the_side_analysed() {
    use drift_doctor::input::{parse_unit, yaml_units, Preparsed, Side};
    use drift_doctor::{analyze_cached, analyze_with, Evidence, ParseCache};
    let opts = Options::default();
    let dir = "tests/fixtures/scenarios/mixed-app";
    let git = common::read(format!("{dir}/git.yaml"));
    let live = common::read(format!("{dir}/live.yaml"));
    let mut cache = ParseCache::default();
    cache.prepare(Side::Live, &live, &Preparsed::default());
    assert!(cache.holds(Side::Live, &live) && !cache.holds(Side::Git, &git));
    cache.forget(Side::Live);
    assert!(!cache.holds(Side::Live, &live));

    let mut preparsed = Preparsed::default();
    for unit in yaml_units(&live).into_iter().step_by(2) {
        let value = parse_unit(&unit).expect("the unit reads on its own");
        preparsed.insert(unit, value);
    }
    cache.prepare(Side::Live, &live, &preparsed);
    cache.prepare(Side::Git, &git, &Preparsed::default());
    assert!(preparsed.is_empty(), "every value was taken");
    assert!(cache.holds(Side::Live, &live) && cache.holds(Side::Git, &git));
    assert_eq!(
        serde_json::to_value(
            analyze_cached(&mut cache, &git, &live, &opts, Evidence::default()).unwrap()
        )
        .unwrap(),
        serde_json::to_value(analyze_with(&git, &live, &opts, Evidence::default()).unwrap())
            .unwrap()
    );
    // A side that does not parse is not held: the analysis reports its error.
    cache.prepare(Side::Live, "kind: [", &Preparsed::default());
    assert!(!cache.holds(Side::Live, "kind: ["));
    let error =
        analyze_cached(&mut cache, &git, "kind: [", &opts, Evidence::default()).unwrap_err();
    assert_eq!(error.side, Side::Live);
}

/// Giving the texts up to the analysis (as the command line does, so a
/// large side's text is freed once read) reports exactly what analysing
/// borrowed texts does: the same differences, the same masks (a text's own
/// masks are reserved before it goes; a side without objects is still read
/// by the masks), and the same error, Git's first, whichever side is larger.
#[test]
fn giving_up_the_texts_changes_no_report() {
    use drift_doctor::input::Side;
    use drift_doctor::{analyze_owned, analyze_with, Evidence};
    let opts = Options::default();
    let both = |git: &str, live: &str| {
        let borrowed = analyze_with(git, live, &opts, Evidence::default())
            .map(|r| serde_json::to_value(r).unwrap());
        let owned = analyze_owned(
            git.to_string(),
            live.to_string(),
            &opts,
            Evidence::default(),
        )
        .map(|r| serde_json::to_value(r).unwrap());
        (borrowed, owned)
    };
    for name in common::scenario_names() {
        let dir = format!("tests/fixtures/scenarios/{name}");
        let git = common::read(format!("{dir}/git.yaml"));
        let live = common::read(format!("{dir}/live.yaml"));
        let (borrowed, owned) = both(&git, &live);
        assert_eq!(owned.unwrap(), borrowed.unwrap(), "{name}");
    }
    // A Secret whose Git value is already a mask (from a copied report), a
    // live side larger than Git, and a side with no object at all.
    let secret = |value: &str, padding: usize| {
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: n\n  labels:\n    pad: \"{}\"\nstringData:\n  token: \"{value}\"\n",
            "x".repeat(padding)
        )
    };
    let masked_git = secret("<secret 7>", 0);
    let live = secret("plain-live-value", 200);
    let (borrowed, owned) = both(&masked_git, &live);
    let borrowed = borrowed.unwrap();
    assert_eq!(owned.unwrap(), borrowed);
    let text = borrowed.to_string();
    assert!(
        text.contains("<secret 8>"),
        "numbered after the mask Git holds: {text}"
    );
    assert!(!text.contains("plain-live-value"));
    let no_objects = "apiVersion: v1\nkind: List\nitems: []\n";
    for (git, live) in [
        (masked_git.as_str(), no_objects),
        (no_objects, live.as_str()),
    ] {
        let (borrowed, owned) = both(git, live);
        assert_eq!(
            owned.unwrap(),
            borrowed.unwrap(),
            "{git:?} against {live:?}"
        );
    }
    // Errors: Git's first when both sides are broken, whichever is read first.
    for (git, live, side) in [
        ("kind: [", "kind: {", Side::Git),
        ("kind: [", "kind: {\n# a longer live side\n", Side::Git),
        (masked_git.as_str(), "kind: {", Side::Live),
        ("kind: [", live.as_str(), Side::Git),
    ] {
        let (borrowed, owned) = both(git, live);
        let (borrowed, owned) = (borrowed.unwrap_err(), owned.unwrap_err());
        assert_eq!(owned, borrowed);
        assert_eq!(owned.side, side, "{git:?} against {live:?}");
    }
}
