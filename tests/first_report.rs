//! The page's first report (`web::first_report`): what the build writes
//! into the page reads back as the core's report of the default example,
//! and anything else reads as no report.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use drift_doctor::web::engine::report_window;
use drift_doctor::web::examples;
use drift_doctor::web::first_report;
use drift_doctor::web::protocol::{
    out_of_sync_first, PlanLengths, Response, RuleDoc, PAGE_SIZE, PLAN_ENTRIES_SHOWN,
};
use drift_doctor::{analyze, Options, Plan, Report, ResourceReport};

fn default_example() -> &'static examples::Example {
    examples::find(examples::DEFAULT).expect("the default example is embedded")
}

#[test]
fn the_first_report_is_the_cores_report_of_the_default_example() {
    let ex = default_example();
    let core = analyze(ex.git, ex.live, &Options::default()).expect("the example analyses");
    let text = first_report::build().expect("the first report is made");
    let first = first_report::read(&text).expect("the page reads what the build wrote");
    let catalog = drift_doctor::rules::catalog();
    let titles: Vec<(&str, &str)> = first
        .rule_titles
        .iter()
        .map(|r| (r.code.as_str(), r.title.as_str()))
        .collect();
    let sync_errors = drift_doctor::application::sync_errors::patterns().unwrap();
    let expected_titles: Vec<(&str, &str)> = catalog
        .rules
        .iter()
        .map(|r| (r.code.as_str(), r.title.as_str()))
        .chain(
            sync_errors
                .iter()
                .map(|p| (p.code.as_str(), p.title.as_str())),
        )
        .collect();
    assert_eq!(
        titles, expected_titles,
        "every rule's and sync error's title comes along"
    );
    let window = first.window;
    assert!(
        window.plan_rest.is_none(),
        "a plan of short lists comes whole"
    );

    let mut without_resources: Report = serde_json::from_str(&window.report).unwrap();
    assert!(without_resources.resources.is_empty());
    without_resources.resources = core.resources.clone();
    assert_eq!(
        serde_json::to_value(&without_resources).unwrap(),
        serde_json::to_value(&core).unwrap(),
        "the summary, plan and warnings are the core's"
    );

    let lines: Vec<(&str, drift_doctor::Status)> = window
        .lines
        .iter()
        .map(|l| (l.id.as_str(), l.status))
        .collect();
    let expected: Vec<(&str, drift_doctor::Status)> = core
        .resources
        .iter()
        .map(|r| (r.id.as_str(), r.status))
        .collect();
    assert_eq!(lines, expected, "a line per resource, in report order");

    let first: Vec<ResourceReport> = window
        .first_json
        .iter()
        .map(|json| serde_json::from_str(json).unwrap())
        .collect();
    let mut places = out_of_sync_first(&window.lines);
    places.truncate(PAGE_SIZE);
    assert_eq!(window.first, places, "the first page, out of sync first");
    assert_eq!(first.len(), core.resources.len().min(PAGE_SIZE));
    for (place, card) in window.first.iter().zip(&first) {
        assert_eq!(
            serde_json::to_value(card).unwrap(),
            serde_json::to_value(&core.resources[*place]).unwrap(),
            "the card of {}",
            core.resources[*place].id
        );
    }
}

/// A plan for an app missing from the cluster lists every resource: the
/// page receives each list's first entries, which it draws, and the whole
/// plan as text beside them, which it reads only when asked for all.
#[test]
fn a_long_plan_comes_cut_to_what_the_page_draws_first_with_the_whole_beside_it() {
    let git: String = (0..30)
        .map(|i| format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: shop\ndata:\n  k: v{i}\n"))
        .collect();
    let live = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: shop\ndata:\n  a: b\n";
    let mut report = analyze(&git, live, &Options::default()).expect("the pair analyses");
    let whole = report.plan.clone().expect("a plan");
    let longest = drift_doctor::plan::step_groups(&whole)
        .map(|(_, list)| list.len())
        .into_iter()
        .chain([whole.drift.len(), whole.unresolved.len()])
        .max();
    assert!(
        longest > Some(PLAN_ENTRIES_SHOWN),
        "a list is longer than the page draws first: {longest:?}"
    );
    let before = serde_json::to_value(&report).unwrap();

    let window = report_window(&mut report).expect("the window is made");
    assert_eq!(
        serde_json::to_value(&report).unwrap(),
        before,
        "the worker keeps the whole report"
    );
    let rest = window
        .plan_rest
        .expect("the whole plan comes beside the cut one");
    assert_eq!(rest.lengths, PlanLengths::of(&whole));
    let read: Plan = serde_json::from_str(&rest.json).expect("the whole plan reads");
    assert_eq!(
        serde_json::to_value(&read).unwrap(),
        serde_json::to_value(&whole).unwrap()
    );

    let sent: Report = serde_json::from_str(&window.report).unwrap();
    let cut = sent.plan.expect("the cut plan");
    let head = |list: serde_json::Value| {
        let items = list.as_array().cloned().unwrap_or_default();
        serde_json::Value::Array(items.into_iter().take(PLAN_ENTRIES_SHOWN).collect())
    };
    let (cut, whole) = (
        serde_json::to_value(&cut).unwrap(),
        serde_json::to_value(&whole).unwrap(),
    );
    for (key, value) in whole.as_object().unwrap() {
        let expected = if value.is_array() {
            head(value.clone())
        } else {
            value.clone()
        };
        assert_eq!(cut[key], expected, "the plan's {key}");
    }
    assert_eq!(
        cut.as_object().unwrap().len(),
        whole.as_object().unwrap().len()
    );
}

#[test]
fn the_first_report_is_made_the_same_way_every_time() {
    assert_eq!(first_report::build(), first_report::build());
}

#[test]
fn what_is_not_a_first_report_reads_as_none() {
    let good = STANDARD.decode(first_report::build().unwrap()).unwrap();
    let other_answer = bincode::serialize(&(Response::WarmedUp, Vec::<RuleDoc>::new())).unwrap();
    // The report's length (after the answer's, the sequence number's and
    // the outcome's tags) far beyond the text: refused, nothing allocated.
    let mut huge = good.clone();
    huge[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
    for (what, text) in [
        ("empty", String::new()),
        ("not base64", "<script>alert(1)</script>".to_string()),
        ("random bytes", STANDARD.encode([7u8; 300])),
        ("cut short", STANDARD.encode(&good[..good.len() / 2])),
        ("another answer", STANDARD.encode(other_answer)),
        ("a huge length", STANDARD.encode(&huge)),
    ] {
        assert!(first_report::read(&text).is_none(), "{what}");
    }
}

/// The Rules tab's docs and examples come from the file the page's build
/// ships beside the worker (`rules::RULE_TEXTS`): they are the catalogue's
/// own, and the titles the cards ask for at start come without them.
#[test]
fn the_rules_tab_gets_each_rules_docs_and_examples_and_the_cards_only_titles() {
    use drift_doctor::web::engine::Engine;
    use drift_doctor::web::protocol::Request;
    let catalog = drift_doctor::rules::catalog();
    let mut engine = Engine::default();
    let Response::Rules {
        texts: true,
        docs: Ok(full),
    } = engine.handle(Request::Rules { texts: true })
    else {
        panic!("the rules' docs are answered");
    };
    let Response::Rules {
        texts: false,
        docs: Ok(titles),
    } = engine.handle(Request::Rules { texts: false })
    else {
        panic!("the rules' titles are answered");
    };
    assert_eq!(titles.len(), full.len());
    for (i, rule) in catalog.rules.iter().enumerate() {
        let (doc, title) = (&full[i], &titles[i]);
        assert_eq!(
            (doc.code.as_str(), title.code.as_str()),
            (rule.code.as_str(), rule.code.as_str())
        );
        let sections: Vec<(String, String)> = rule
            .docs
            .sections()
            .iter()
            .map(|(h, t)| (h.to_string(), t.trim().to_string()))
            .collect();
        assert_eq!(
            doc.sections[..sections.len()],
            sections[..],
            "{}",
            rule.code
        );
        let ids: Vec<&str> = doc.examples.iter().map(|e| e.id.as_str()).collect();
        let want: Vec<&str> = rule.examples.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, want, "{}", rule.code);
        // Without the texts: the title, the kinds and the evidence only.
        assert_eq!(title.title, doc.title);
        assert_eq!(title.kinds, doc.kinds);
        assert_eq!(title.sections.as_slice(), &doc.sections[sections.len()..]);
        assert!(title.examples.is_empty());
    }
    // The sync errors (`SE…`) come whole either way.
    assert_eq!(titles[catalog.rules.len()..], full[catalog.rules.len()..]);
}
