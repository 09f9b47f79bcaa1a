//! Browser tests of the web layer (wasm-bindgen-test in headless Chromium):
//! `cargo test --target wasm32-unknown-unknown --test web_wasm` with the
//! runner of `.cargo/config.toml` (scripts/test.sh sets it up).
//!
//! The app is mounted into its own element (the runner's page already has
//! an `id="output"`) and analyses on the page's thread through the same
//! `Engine` the worker runs.

#![cfg(target_arch = "wasm32")]
// Tests ship nowhere: the standard sorts' size costs nothing here.
#![allow(clippy::disallowed_methods)]

use drift_doctor::web;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web::app::{App, AppProps, Backend};
use web::client::Handler;
use web::engine::Engine;
use web::protocol::{Export, Input, JqExpression, Request, Response};

wasm_bindgen_test_configure!(run_in_browser);

fn example(name: &str) -> &'static web::examples::Example {
    web::examples::find(name).expect("embedded example")
}

fn input(name: &str) -> Input {
    let ex = example(name);
    Input::sides(ex.git, ex.live)
}

/// The whole report of an analysis the engine answered with a window,
/// checking the window against it: the report without its resources, a
/// line per resource, and the first page of the list in full.
fn analysed(
    engine: &mut Engine,
    seq: u32,
    input: Input,
    timed_out: Vec<JqExpression>,
) -> drift_doctor::Report {
    let window = match engine.handle(Request::Analyze {
        seq,
        input,
        timed_out,
    }) {
        Response::Analyzed {
            outcome: Ok(window),
            ..
        } => window,
        other => panic!("{other:?}"),
    };
    let report: drift_doctor::Report = match engine.handle(Request::Export {
        seq,
        format: Export::Json,
    }) {
        Response::Exported {
            text: Some(text), ..
        } => serde_json::from_str(&text).expect("report JSON"),
        other => panic!("{other:?}"),
    };
    let mut without = report.clone();
    without.resources.clear();
    assert_eq!(
        serde_json::from_str::<drift_doctor::Report>(&window.report).unwrap(),
        without
    );
    assert_eq!(window.lines.len(), report.resources.len());
    for (line, r) in window.lines.iter().zip(&report.resources) {
        assert_eq!((&line.id, line.status), (&r.id, r.status));
        for d in r.differences.iter().filter(|d| d.visible) {
            assert!(line.causes.contains(&d.cause));
        }
    }
    let first: Vec<drift_doctor::ResourceReport> = window
        .first_json
        .iter()
        .map(|json| serde_json::from_str(json).unwrap())
        .collect();
    assert_eq!(first.len(), window.first.len());
    assert_eq!(first.len(), report.resources.len().min(web::PAGE_SIZE));
    for (i, r) in window.first.iter().zip(&first) {
        assert_eq!(&report.resources[*i], r);
    }
    report
}

/// What the default example's scenario file expects (the core's own tests
/// check the same file natively).
fn expected() -> (usize, Vec<String>) {
    let o: serde_yaml::Value =
        serde_yaml::from_str(include_str!("fixtures/scenarios/mixed-app/options.yaml"))
            .expect("options.yaml");
    let n = o["expect_out_of_sync"]
        .as_u64()
        .expect("expect_out_of_sync") as usize;
    let causes = o["expect_causes"]
        .as_sequence()
        .expect("expect_causes")
        .iter()
        .filter_map(|c| c.as_str().map(String::from))
        .collect();
    (n, causes)
}

#[wasm_bindgen_test]
fn the_core_analyses_the_default_example_in_wasm() {
    let ex = example(web::examples::DEFAULT);
    let report = drift_doctor::analyze(
        ex.git,
        ex.live,
        &web::engine::options(&input(ex.name)).expect("options"),
    )
    .expect("analysis");
    let (out_of_sync, causes) = expected();
    assert_eq!(report.summary.out_of_sync, out_of_sync);
    for cause in ["autoscaler", "mutating-webhook", "reloader", "drift"] {
        assert!(
            causes.iter().any(|c| c == cause),
            "the scenario expects {cause}"
        );
        let c = drift_doctor::Cause::from_id(cause).unwrap();
        assert!(
            report.summary.causes.contains_key(&c),
            "{cause} in {:?}",
            report.summary.causes
        );
    }
}

#[wasm_bindgen_test]
fn every_example_analyses() {
    let mut engine = Engine::default();
    for (i, ex) in web::examples::EXAMPLES.iter().enumerate() {
        let r = analysed(&mut engine, i as u32, input(ex.name), vec![]);
        assert!(r.summary.resources > 0, "{}", ex.name);
    }
}

#[wasm_bindgen_test]
fn the_engine_reports_input_errors_with_their_side_and_line() {
    let mut engine = Engine::default();
    let mut bad = input("real-drift");
    bad.live = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels: [a, b\n".into();
    match engine.handle(Request::Analyze {
        seq: 1,
        input: bad,
        timed_out: vec![],
    }) {
        Response::Analyzed {
            outcome: Err(e), ..
        } => {
            assert_eq!(e.side, "live");
            assert!(e.line > 0, "{e:?}");
        }
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[wasm_bindgen_test]
fn the_engine_gives_yaml_side_by_side_with_secrets_masked() {
    let mut engine = Engine::default();
    let ex = input("helm-random-secret");
    let report = analysed(&mut engine, 7, ex.clone(), vec![]);
    let secret = report
        .resources
        .iter()
        .find(|r| r.kind == "Secret")
        .expect("a Secret");
    match engine.handle(Request::Texts {
        seq: 7,
        id: secret.id.clone(),
    }) {
        Response::Texts {
            lines: Some(lines), ..
        } => {
            assert!(
                lines.iter().any(|l| l.tag != web::protocol::LINE_SAME),
                "differing lines are marked"
            );
            // No value of the Secret's data appears as typed in the input.
            let live_doc: serde_yaml::Value = serde_yaml::from_str(
                ex.live
                    .split("\n---\n")
                    .find(|d| d.contains("kind: Secret"))
                    .expect("the live Secret"),
            )
            .unwrap();
            if let Some(data) = live_doc.get("data").and_then(|d| d.as_mapping()) {
                for v in data
                    .values()
                    .filter_map(|v| v.as_str())
                    .filter(|v| v.len() > 6)
                {
                    assert!(
                        lines.iter().all(|l| !l.text.contains(v)),
                        "raw secret value {v} shown"
                    );
                }
            }
        }
        other => panic!("{other:?}"),
    }
    // A stale request is refused, not answered with another analysis' text.
    assert!(matches!(
        engine.handle(Request::Texts {
            seq: 6,
            id: secret.id.clone()
        }),
        Response::Texts { lines: None, .. }
    ));
}

async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

fn text_of(root: &web_sys::Element, selector: &str) -> Option<String> {
    root.query_selector(selector)
        .ok()
        .flatten()
        .and_then(|e| e.text_content())
}

/// The app mounted into its own element, answered by `handler`.
fn mount(
    handler: Handler,
    first_report: Option<String>,
) -> (web_sys::Element, yew::AppHandle<App>) {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    root.set_id("drift-doctor-test-root");
    document.body().unwrap().append_child(&root).unwrap();
    let props = AppProps {
        backend: Backend::Inline(handler),
        first_report: first_report.map(Into::into),
    };
    let handle = yew::Renderer::<App>::with_root_and_props(root.clone(), props).render();
    (root, handle)
}

/// Wait (up to 10 s) until `selector` matches in `root`.
async fn wait_for(root: &web_sys::Element, selector: &str) {
    for _ in 0..200 {
        if root.query_selector(selector).ok().flatten().is_some() {
            return;
        }
        sleep(50).await;
    }
    panic!("{selector} never matched: {:?}", root.text_content());
}

#[wasm_bindgen_test]
async fn the_app_mounts_and_renders_the_default_report() {
    let mut engine = Engine::default();
    let (root, handle) = mount(Handler::new(move |req| engine.handle(req)), None);
    wait_for(&root, "#report[data-state=ready]").await;

    let (out_of_sync, _) = expected();
    assert_eq!(
        text_of(&root, ".summary .stat-out .stat-n"),
        Some(out_of_sync.to_string())
    );
    assert_eq!(
        text_of(&root, ".summary .stat-resources .stat-n").as_deref(),
        Some("5")
    );
    let causes = root.query_selector_all(".summary .cause-row").unwrap();
    let ids: Vec<String> = (0..causes.length())
        .filter_map(|i| causes.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::Element>().ok())
        .filter_map(|e| e.get_attribute("data-cause"))
        .collect();
    assert_eq!(ids, ["mutating-webhook", "autoscaler", "reloader", "drift"]);
    // Out-of-sync cards come first and are open.
    let first = root.query_selector(".card").unwrap().unwrap();
    assert!(first
        .get_attribute("class")
        .unwrap_or_default()
        .split(' ')
        .any(|c| c == "out"));
    assert!(root.query_selector(".card .card-body").unwrap().is_some());
    // The example text is in the editors.
    let git = root
        .query_selector("#git-input")
        .unwrap()
        .unwrap()
        .dyn_into::<web_sys::HtmlTextAreaElement>()
        .unwrap();
    assert_eq!(git.value(), example(web::examples::DEFAULT).git);

    handle.destroy();
    root.remove();
}

#[wasm_bindgen_test]
fn a_shared_state_restores_the_same_input_without_secret_values() {
    let mut engine = Engine::default();
    let mut original = input("helm-random-secret");
    original.settings = "kind: Application\nmetadata:\n  name: a\nspec:\n  ignoreDifferences:\n  - kind: Secret\n    jsonPointers: [/data]\n".into();
    original.strategy = "server-side-apply".into();
    original.namespace = "team-a".into();
    original.ignore_aggregated_roles = true;
    original.argocd_version = "3.4".into();
    let state = original.to_share(Some("v1/Secret/team-a/db".into()));
    let shared = match engine.handle(Request::Share(state)) {
        Response::Shared(s) => s,
        other => panic!("{other:?}"),
    };
    assert!(shared.masked > 0, "the example's Secret values are masked");
    assert!(shared.file.is_none(), "a small state fits a link");
    let restored = match engine.handle(Request::Restore(format!(
        "https://x.invalid/p/#{}",
        shared.fragment
    ))) {
        Response::Restored(Ok(s)) => s,
        other => panic!("{other:?}"),
    };
    assert_eq!(restored.selected.as_deref(), Some("v1/Secret/team-a/db"));
    let back = Input::from_share(&restored);
    assert_eq!(
        (
            &back.settings,
            &back.strategy,
            &back.namespace,
            back.ignore_aggregated_roles,
            &back.argocd_version,
            back.mode
        ),
        (
            &original.settings,
            &original.strategy,
            &original.namespace,
            true,
            &original.argocd_version,
            original.mode
        )
    );
    assert_ne!(
        back.live, original.live,
        "Secret values are replaced by masks"
    );
    // Masks keep equality: the restored input gives the same verdicts.
    let a = web::engine::analyze(&original).expect("original");
    let b = web::engine::analyze(&back).expect("restored");
    assert_eq!(a.summary.out_of_sync, b.summary.out_of_sync);
    assert_eq!(a.summary.causes, b.summary.causes);
}

#[wasm_bindgen_test]
fn damaged_links_are_refused_with_a_reason() {
    let mut engine = Engine::default();
    for bad in [
        "",
        "v1.",
        "v1.AAAAAAAA",
        "v7.AAAA",
        "v1.%%%",
        "{\"drift-doctor-share\": 9}",
    ] {
        match engine.handle(Request::Restore(bad.into())) {
            Response::Restored(Err(why)) => assert!(!why.is_empty(), "{bad:?}"),
            other => panic!("{bad:?} gave {other:?}"),
        }
    }
}

#[wasm_bindgen_test]
fn diff_output_is_analysed_in_diff_mode() {
    let text = include_str!("fixtures/difftext/argo_unified_u3.txt");
    let mut diff = input("mixed-app");
    diff.mode = web::protocol::Mode::Diff;
    diff.diff = text.to_string();
    let page = web::engine::analyze(&diff).expect("diff analysis");
    let core = drift_doctor::analyze_diff(text, &drift_doctor::Options::default()).unwrap();
    assert!(page.summary.resources > 0);
    assert_eq!(
        serde_json::to_value(&page).unwrap(),
        serde_json::to_value(&core).unwrap()
    );
    // The side-by-side view shows the resource's own lines of the text.
    let mut engine = Engine::default();
    engine.handle(Request::Analyze {
        seq: 3,
        input: diff,
        timed_out: vec![],
    });
    let changed = page
        .resources
        .iter()
        .find(|r| r.presence == drift_doctor::Presence::Both)
        .expect("a resource on both sides");
    match engine.handle(Request::Texts {
        seq: 3,
        id: changed.id.clone(),
    }) {
        Response::Texts {
            lines: Some(lines),
            note,
            ..
        } => {
            assert!(note.contains("pasted diff output"), "{note}");
            assert!(lines.iter().any(|l| l.tag == web::protocol::LINE_GIT));
            assert!(lines.iter().any(|l| l.tag == web::protocol::LINE_LIVE));
            for l in &lines {
                assert!(text.contains(&l.text), "{:?} is a line of the text", l.text);
            }
        }
        other => panic!("{other:?}"),
    }
}

#[wasm_bindgen_test]
fn errors_in_the_pasted_settings_name_the_settings_side() {
    let mut bad = input("mixed-app");
    bad.settings = "kind: Application\nspec:\n  ignoreDifferences: [a\n".into();
    let e = web::engine::analyze(&bad).expect_err("the settings cannot be read");
    assert_eq!(e.side, web::protocol::SETTINGS_SIDE);
    assert!(e.line > 0, "{e:?}");
}

/// The page ends a worker whose jq expression outlives its limit and asks a
/// new one again, naming the expression: the engine then skips it with the
/// warning the CLI gives, and the difference it would hide still counts.
#[wasm_bindgen_test]
fn a_jq_expression_that_timed_out_is_skipped_with_the_clis_warning() {
    let git = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: shop\ndata:\n  a: one\n";
    let live = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: shop\ndata:\n  a: two\n";
    let mut given = Input::sides(git, live);
    given.settings =
        "ignoreDifferences:\n- kind: ConfigMap\n  jqPathExpressions:\n  - .data.a\n".into();
    let report = |timed_out: Vec<JqExpression>| -> drift_doctor::Report {
        analysed(&mut Engine::default(), 1, given.clone(), timed_out)
    };
    let ignored = report(vec![]);
    assert_eq!(ignored.summary.out_of_sync, 0, "the rule hides data.a");
    let skipped = report(vec![JqExpression {
        source: "ignoreDifferences[0]".into(),
        expr: ".data.a".into(),
    }]);
    assert_eq!(skipped.summary.out_of_sync, 1);
    assert_eq!(
        skipped.warnings,
        ["rule ignoreDifferences[0]: jq expression `.data.a` timed out after 1s; skipped"]
    );
}

/// The page asks for the resources it lists beyond the first page, and for
/// the whole report to export; answers about a replaced analysis are empty.
#[wasm_bindgen_test]
fn the_engine_gives_resources_and_exports_of_its_last_analysis_only() {
    let mut engine = Engine::default();
    let report = analysed(&mut engine, 4, input("mixed-app"), vec![]);
    let indices = vec![report.resources.len() - 1, 0];
    match engine.handle(Request::Resources {
        seq: 4,
        indices: indices.clone(),
    }) {
        Response::Resources {
            json,
            indices: echoed,
            ..
        } => {
            assert_eq!(echoed, indices);
            let got: Vec<drift_doctor::ResourceReport> = serde_json::from_str(&json).unwrap();
            assert_eq!(
                got,
                vec![
                    report.resources[indices[0]].clone(),
                    report.resources[0].clone()
                ]
            );
        }
        other => panic!("{other:?}"),
    }
    match engine.handle(Request::Export {
        seq: 4,
        format: Export::Markdown { link: None },
    }) {
        Response::Exported {
            text: Some(text), ..
        } => {
            assert!(text.starts_with(&drift_doctor::render::markdown::render(&report, None)));
            assert!(text.contains("too large for a link"));
        }
        other => panic!("{other:?}"),
    }
    analysed(&mut engine, 5, input("real-drift"), vec![]);
    match engine.handle(Request::Resources {
        seq: 4,
        indices: vec![0],
    }) {
        Response::Resources { json, .. } => assert_eq!(json, ""),
        other => panic!("{other:?}"),
    }
    match engine.handle(Request::Export {
        seq: 4,
        format: Export::Json,
    }) {
        Response::Exported { text, .. } => assert_eq!(text, None),
        other => panic!("{other:?}"),
    }
    // An input error keeps the last report, which the page goes on showing.
    let mut bad = input("real-drift");
    bad.live = "kind: [".into();
    assert!(matches!(
        engine.handle(Request::Analyze {
            seq: 6,
            input: bad,
            timed_out: vec![]
        }),
        Response::Analyzed {
            outcome: Err(_),
            ..
        }
    ));
    match engine.handle(Request::Resources {
        seq: 5,
        indices: vec![0],
    }) {
        Response::Resources { json, .. } => assert!(json.starts_with("[{"), "{json}"),
        other => panic!("{other:?}"),
    }
}

/// An inline worker that never answers an analysis, and how many it was asked.
fn silent_worker() -> (Handler, std::rc::Rc<std::cell::Cell<usize>>) {
    let asked = std::rc::Rc::new(std::cell::Cell::new(0));
    let counted = asked.clone();
    let mut engine = Engine::default();
    let handler = Handler::new(move |req| match req {
        Request::Analyze { .. } => {
            counted.set(counted.get() + 1);
            Response::WarmedUp
        }
        other => engine.handle(other),
    });
    (handler, asked)
}

fn report_state(root: &web_sys::Element) -> Option<String> {
    root.query_selector("#report")
        .unwrap()
        .and_then(|r| r.get_attribute("data-state"))
}

/// A first visit shows the report made with the page at once, while the
/// worker's own analysis of the same input is still to come.
#[wasm_bindgen_test]
async fn the_report_made_with_the_page_is_shown_until_the_workers() {
    let (handler, asked) = silent_worker();
    let built = web::first_report::build().expect("the first report is made");
    let (root, handle) = mount(handler, Some(built));
    wait_for(&root, "#report .timing[data-built=true]").await;
    sleep(200).await;
    assert_eq!(
        report_state(&root).as_deref(),
        Some("busy"),
        "the worker's analysis is still awaited"
    );
    assert_eq!(asked.get(), 1, "the worker is asked all the same");
    let (out_of_sync, _) = expected();
    assert_eq!(
        text_of(&root, ".summary .stat-out .stat-n"),
        Some(out_of_sync.to_string())
    );
    assert!(root.query_selector(".card .card-body").unwrap().is_some());
    handle.destroy();
    root.remove();
}

/// A damaged first report is not shown: the page waits for the worker.
#[wasm_bindgen_test]
async fn a_damaged_first_report_is_not_shown() {
    let (handler, asked) = silent_worker();
    let (root, handle) = mount(handler, Some("bm90IGEgcmVwb3J0".into()));
    sleep(500).await;
    assert_eq!(asked.get(), 1);
    assert_eq!(report_state(&root).as_deref(), Some("busy"));
    assert!(root.query_selector("#report .timing").unwrap().is_none());
    handle.destroy();
    root.remove();
}

/// When the worker's answer replaces the report made with the page (the
/// same analysis), the reader keeps what they opened meanwhile: here a
/// card's YAML side by side. The first load asks the worker once.
#[wasm_bindgen_test]
async fn the_workers_report_keeps_what_the_reader_opened_in_the_first() {
    let released = std::rc::Rc::new(std::cell::Cell::new(false));
    let held = released.clone();
    let texts_asked = std::rc::Rc::new(std::cell::Cell::new(0));
    let counted = texts_asked.clone();
    let analyses = std::rc::Rc::new(std::cell::Cell::new(0));
    let analysed = analyses.clone();
    let mut engine = Engine::default();
    // The analysis is made at once (its YAML can be asked for), its answer
    // held back until released, as a worker still loading would.
    let handler = Handler::deferred(move |req| {
        let analysis = matches!(req, Request::Analyze { .. });
        analysed.set(analysed.get() + usize::from(analysis));
        if matches!(req, Request::Texts { .. }) {
            counted.set(counted.get() + 1);
        }
        let response = engine.handle(req);
        let held = held.clone();
        Box::pin(async move {
            while analysis && !held.get() {
                sleep(20).await;
            }
            response
        })
    });
    let built = web::first_report::build().expect("the first report is made");
    let (root, handle) = mount(handler, Some(built));
    wait_for(&root, "#report .timing[data-built=true]").await;
    let toggle: web_sys::HtmlElement = root
        .query_selector(".card .yaml-toggle")
        .unwrap()
        .expect("an open card offers its YAML")
        .unchecked_into();
    let card_id = toggle
        .closest(".card")
        .unwrap()
        .and_then(|c| c.get_attribute("data-id"));
    toggle.click();
    wait_for(&root, ".card .sbs-table").await;
    assert_eq!(report_state(&root).as_deref(), Some("busy"));

    released.set(true);
    wait_for(&root, "#report[data-state=ready]").await;
    assert!(
        root.query_selector("#report .timing[data-built=true]")
            .unwrap()
            .is_none(),
        "the worker's report is shown"
    );
    let open = root
        .query_selector(".card .sbs-table")
        .unwrap()
        .and_then(|t| t.closest(".card").unwrap())
        .and_then(|c| c.get_attribute("data-id"));
    assert_eq!(open, card_id, "the same card's YAML is still open");
    sleep(300).await;
    assert_eq!(
        texts_asked.get(),
        1,
        "the YAML shown is kept, not dropped and asked for again"
    );
    assert_eq!(analyses.get(), 1, "the example is analysed once");
    handle.destroy();
    root.remove();
}

/// A large text's size, counted a slice at a time, is its UTF-8 length and
/// its lines as Rust counts them, whatever characters straddle the slices.
#[wasm_bindgen_test]
fn a_held_texts_size_adds_up_across_slices() {
    use web::js_text::{JsText, Measure, MEASURE_SLICE_UNITS};
    // Six UTF-16 units a line, the emoji a surrogate pair at units 3 and 4:
    // after four more at the start, the first slice ends inside a pair.
    let line = "a\u{e9}\u{4e16}\u{1f680}\n";
    assert_eq!((MEASURE_SLICE_UNITS - 4) % 6, 4);
    let text: String = "head".to_string()
        + &line.repeat(MEASURE_SLICE_UNITS / 6 * 2 + 3)
        + "last line, unterminated \u{fc}";
    let held = JsText::from(text.as_str());
    let mut measure = Measure::default();
    let mut steps = 1;
    let info = loop {
        if let Some(info) = held.measure_step(&mut measure) {
            break info;
        }
        steps += 1;
    };
    assert_eq!(steps, 3, "three slices");
    assert_eq!(
        (info.bytes, info.lines, info.measuring),
        (text.len(), text.lines().count(), false)
    );
    assert_eq!(held.to_utf8(), text);
    assert_eq!(held.head(2), "head".to_string() + &line.repeat(2));
}

/// A held text's head is its first lines as Rust splits them, however far
/// into the text they reach: within the first prefix turned into UTF-8,
/// beyond it, all of a shorter text.
#[wasm_bindgen_test]
fn a_held_texts_head_is_its_first_lines() {
    use web::js_text::JsText;
    let first_lines =
        |text: &str, n: usize| -> String { text.split_inclusive('\n').take(n).collect() };
    let long_line = format!("{}: \u{e9}\u{1f680}\n", "k".repeat(300));
    for text in [
        String::new(),
        "no line break".to_string(),
        "a\nb".to_string(),
        "a\nb\n".to_string(),
        "\n\n\n".to_string(),
        "key: value\n".repeat(5_000),
        // 2,000 lines past the first prefix but within the next one.
        format!("{}\n", "v".repeat(99)).repeat(3_000),
        long_line.repeat(2_500),
        long_line.repeat(900) + "unterminated",
    ] {
        let held = JsText::from(text.as_str());
        for n in [0, 1, 2, 3, 2_000] {
            assert_eq!(
                held.head(n),
                first_lines(&text, n),
                "{n} lines of a text of {} bytes",
                text.len()
            );
        }
    }
}

/// A held text's UTF-8 is the text's, wherever its first character wider
/// than a byte falls (the buffer starts at a byte per UTF-16 unit): at the
/// start, at the end, a surrogate pair across the first buffer's end, none;
/// a lone surrogate becomes U+FFFD, as in `TextEncoder`.
#[wasm_bindgen_test]
fn a_held_text_reads_as_its_utf8() {
    use web::js_text::JsText;
    let ascii = "key: value\n".repeat(1_000);
    for text in [
        String::new(),
        ascii.clone(),
        "\u{e9}".to_string(),
        format!("\u{1f680}{ascii}"),
        format!("{ascii}\u{4e16}"),
        format!("{ascii}\u{1f680}"),
        format!("{}\u{1f680}\u{e9}x", &ascii[1..]),
        "\u{4e16}\u{1f680}\u{e9}".repeat(500),
    ] {
        assert_eq!(
            JsText::from(text.as_str()).to_utf8(),
            text,
            "{} bytes",
            text.len()
        );
    }
    let lone = js_sys::JsString::from("a")
        .concat(&js_sys::JsString::from_char_code1(0xd800))
        .concat(&"b".into());
    assert_eq!(JsText::new(lone).to_utf8(), "a\u{fffd}b");
}

/// Git and live for `count` ConfigMaps (`ns/cm-000`…) whose data differs.
fn configmaps(count: usize) -> (String, String) {
    let side = |value: &str| {
        (0..count)
            .map(|i| {
                format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i:03}\n  namespace: ns\ndata:\n  key: {value}\n")
            })
            .collect::<Vec<_>>()
            .join("---\n")
    };
    (side("a"), side("b"))
}

/// The app analysing `count` ConfigMaps that all differ, whatever the page
/// asks it to analyse; the cards of pages other than the first arrive
/// `later_ms` after they are asked for.
fn mount_configmaps(count: usize, later_ms: i32) -> (web_sys::Element, yew::AppHandle<App>) {
    let (git, live) = configmaps(count);
    mount_pair(git, live, later_ms)
}

/// The app analysing `git` against `live`, whatever the page asks it to
/// analyse; the cards of pages other than the first arrive `later_ms` after
/// they are asked for.
fn mount_pair(git: String, live: String, later_ms: i32) -> (web_sys::Element, yew::AppHandle<App>) {
    let (root, handle, _) = mount_pair_counting(git, live, later_ms);
    (root, handle)
}

/// `mount_pair`, with the count of the page's requests for resources.
fn mount_pair_counting(
    git: String,
    live: String,
    later_ms: i32,
) -> (
    web_sys::Element,
    yew::AppHandle<App>,
    std::rc::Rc<std::cell::Cell<usize>>,
) {
    let asked = std::rc::Rc::new(std::cell::Cell::new(0));
    let counter = asked.clone();
    let mut engine = Engine::default();
    let handler = Handler::deferred(move |req| {
        let delay = if matches!(req, Request::Resources { .. }) {
            counter.set(counter.get() + 1);
            later_ms
        } else {
            0
        };
        let response = match req {
            Request::Analyze {
                seq,
                mut input,
                timed_out,
            } => {
                input.mode = web::protocol::Mode::Sides;
                input.git = git.clone();
                input.live = live.clone();
                input.settings.clear();
                input.application.clear();
                input.git_again.clear();
                engine.handle(Request::Analyze {
                    seq,
                    input,
                    timed_out,
                })
            }
            other => engine.handle(other),
        };
        Box::pin(async move {
            if delay > 0 {
                sleep(delay).await;
            }
            response
        })
    });
    let (root, handle) = mount(handler, None);
    (root, handle, asked)
}

/// Watches `root` as cards are drawn: the most placeholders seen while some
/// cards were drawn (`pending`), and whether the report said it was busy
/// each time (`busyWhileDrawing`). `pending` can be set back to 0.
fn watch_drawing(root: &web_sys::Element) -> wasm_bindgen::JsValue {
    js_sys::Function::new_with_args(
        "root",
        "const seen = { pending: 0, busyWhileDrawing: true };
         new MutationObserver(() => {
           const cards = root.querySelectorAll('.card:not(.pending)').length;
           const pending = root.querySelectorAll('.card.pending').length;
           if (cards > 0 && pending > 0) {
             seen.pending = Math.max(seen.pending, pending);
             const report = root.querySelector('#report');
             seen.busyWhileDrawing &&= report.dataset.state === 'busy' && report.getAttribute('aria-busy') === 'true';
           }
         }).observe(root, { subtree: true, childList: true, attributes: true });
         return seen;",
    )
    .call1(&wasm_bindgen::JsValue::NULL, root)
    .unwrap()
}

fn seen_field(seen: &wasm_bindgen::JsValue, name: &str) -> wasm_bindgen::JsValue {
    js_sys::Reflect::get(seen, &name.into()).unwrap()
}

/// Wait until the report is ready with every card of its page drawn.
async fn wait_all_drawn(root: &web_sys::Element) {
    for _ in 0..200 {
        if report_state(root).as_deref() == Some("ready")
            && root.query_selector(".card.pending").unwrap().is_none()
        {
            return;
        }
        sleep(50).await;
    }
    panic!("the cards were never all drawn");
}

/// A page of the list with more new cards than one task draws shows the
/// first ones with the report and the rest in later tasks (placeholders
/// meanwhile), and the report is ready only once every card is drawn.
#[wasm_bindgen_test]
async fn a_long_page_of_new_cards_is_drawn_in_steps() {
    let step = web::drawing::NEW_CARDS_PER_TASK;
    let count = 3 * step;
    let (root, handle) = mount_configmaps(count, 0);
    let seen = watch_drawing(&root);
    wait_for(&root, "#report[data-state=ready]").await;
    assert_eq!(
        seen_field(&seen, "pending").as_f64(),
        Some((count - step) as f64),
        "the first step draws its share and holds the others' places"
    );
    assert_eq!(seen_field(&seen, "busyWhileDrawing").as_bool(), Some(true));
    assert_eq!(
        root.query_selector_all(".card").unwrap().length() as usize,
        count
    );
    assert!(root.query_selector(".card.pending").unwrap().is_none());
    handle.destroy();
    root.remove();
}

/// Git and live for `count` Deployments, each scaled by its own autoscaler
/// while Git sets one replica: the plan fixes each in Git (a step apiece).
fn autoscaled(count: usize) -> (String, String) {
    let side = |replicas: u32| {
        (0..count)
            .map(|i| {
                format!(
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{i:02}\n  namespace: ns\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels: {{app: web-{i:02}}}\n  template:\n    metadata:\n      labels: {{app: web-{i:02}}}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web-{i:02}\n  namespace: ns\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web-{i:02}}}\n  minReplicas: 2\n  maxReplicas: 5\n"
                )
            })
            .collect::<Vec<_>>()
            .join("---\n")
    };
    (side(1), side(3))
}

/// Watches `root` while a report is drawn: how many plan entries it held
/// each time it changed (`counts`, with -1 for no plan yet), and whether
/// the report said it was busy each time the plan was not whole
/// (`busyMeanwhile`, against the final count `whole`).
fn watch_plan(root: &web_sys::Element, whole: usize) -> wasm_bindgen::JsValue {
    js_sys::Function::new_with_args(
        "root, whole",
        "const seen = { counts: [], busyMeanwhile: true };
         new MutationObserver(() => {
           const plan = root.querySelector('#plan');
           const count = plan ? plan.querySelectorAll('li').length : -1;
           if (seen.counts[seen.counts.length - 1] !== count) seen.counts.push(count);
           if (plan && count < whole) {
             seen.busyMeanwhile &&= root.querySelector('#report').dataset.state === 'busy';
           }
         }).observe(root, { subtree: true, childList: true, attributes: true });
         return seen;",
    )
    .call2(&wasm_bindgen::JsValue::NULL, root, &(whole as u32).into())
    .unwrap()
}

fn plan_counts(seen: &wasm_bindgen::JsValue) -> Vec<i32> {
    js_sys::Array::from(&seen_field(seen, "counts"))
        .iter()
        .map(|c| c.as_f64().unwrap() as i32)
        .collect()
}

/// A report whose plan draws more entries than a task's share comes with
/// the plan's headings and counts; its entries follow a share per task, the
/// report busy meanwhile. A shorter plan comes whole with its report.
#[wasm_bindgen_test]
async fn a_long_plan_is_drawn_a_few_entries_per_task_after_its_report() {
    let step = web::drawing::PLAN_ENTRIES_PER_TASK;
    let half = step / 2 + 1;
    let (git, live) = autoscaled(half);
    let (cm_git, cm_live) = configmaps(half);
    let (root, handle) = mount_pair(
        format!("{git}---\n{cm_git}"),
        format!("{live}---\n{cm_live}"),
        0,
    );
    let seen = watch_plan(&root, 2 * half);
    wait_all_drawn(&root).await;
    assert_eq!(
        plan_counts(&seen),
        [-1, 0, step as i32, 2 * half as i32],
        "none with the report, then a share per task"
    );
    assert_eq!(seen_field(&seen, "busyMeanwhile").as_bool(), Some(true));
    assert_eq!(
        count_in(&root, "#plan li.plan-step"),
        half,
        "a Git fix per Deployment"
    );
    assert_eq!(
        count_in(&root, "#plan li.plan-left"),
        half,
        "a drifted field per ConfigMap"
    );
    handle.destroy();
    root.remove();

    let (git, live) = autoscaled(half);
    let (root, handle) = mount_pair(git, live, 0);
    let seen = watch_plan(&root, half);
    wait_all_drawn(&root).await;
    assert_eq!(
        plan_counts(&seen),
        [-1, half as i32],
        "{half} entries come with their report"
    );
    handle.destroy();
    root.remove();
}

fn count_in(root: &web_sys::Element, selector: &str) -> usize {
    root.query_selector_all(selector).unwrap().length() as usize
}

/// The resources that come with a report, more than a step's cards, wait
/// to be read in a step after the report's frame: meanwhile the report is
/// on the page with placeholders only, busy, and the page does not ask the
/// worker for those resources again.
#[wasm_bindgen_test]
async fn a_long_first_page_is_read_after_its_report_and_not_asked_for_again() {
    let count = 3 * web::drawing::NEW_CARDS_PER_TASK;
    let (git, live) = configmaps(count);
    let (root, handle, asked) = mount_pair_counting(git, live, 0);
    let seen = js_sys::Function::new_with_args(
        "root",
        "const seen = { placeholdersOnly: false, busy: true, anyPending: false };
         new MutationObserver(() => {
           const pending = root.querySelectorAll('.card.pending').length;
           seen.anyPending ||= pending > 0;
           if (pending > 0 && pending === root.querySelectorAll('.card').length) {
             seen.placeholdersOnly = true;
             seen.busy &&= root.querySelector('#report').dataset.state === 'busy';
           }
         }).observe(root, { subtree: true, childList: true, attributes: true });
         return seen;",
    )
    .call1(&wasm_bindgen::JsValue::NULL, &root)
    .unwrap();
    wait_all_drawn(&root).await;
    assert_eq!(seen_field(&seen, "placeholdersOnly").as_bool(), Some(true));
    assert_eq!(seen_field(&seen, "busy").as_bool(), Some(true));
    assert_eq!(count_in(&root, ".card:not(.pending)"), count);
    assert_eq!(asked.get(), 0, "the first page came with the report");

    // Analysed again (showing the hidden differences): the same resources'
    // cards, drawn already, stay, with no placeholder meanwhile.
    js_sys::Reflect::set(&seen, &"anyPending".into(), &false.into()).unwrap();
    let before = root
        .query_selector("#report")
        .unwrap()
        .and_then(|r| r.get_attribute("data-seq"));
    let toggle: web_sys::HtmlElement = root
        .query_selector("#show-hidden")
        .unwrap()
        .expect("the hidden differences' toggle")
        .unchecked_into();
    toggle.click();
    for _ in 0..200 {
        let report = root.query_selector("#report").unwrap().unwrap();
        if report.get_attribute("data-seq") != before
            && report.get_attribute("data-state").as_deref() == Some("ready")
        {
            break;
        }
        sleep(20).await;
    }
    assert_ne!(
        root.query_selector("#report")
            .unwrap()
            .and_then(|r| r.get_attribute("data-seq")),
        before,
        "a new report"
    );
    assert_eq!(seen_field(&seen, "anyPending").as_bool(), Some(false));
    assert_eq!(count_in(&root, ".card:not(.pending)"), count);
    handle.destroy();
    root.remove();
}

/// The cards of another page of the list arrive when it is listed (here
/// after the time a drawing takes); they are drawn in steps too, once they
/// have arrived, not all at once.
#[wasm_bindgen_test]
async fn another_pages_cards_are_drawn_in_steps_once_they_arrive() {
    let step = web::drawing::NEW_CARDS_PER_TASK;
    let (root, handle) = mount_configmaps(2 * web::PAGE_SIZE + 20, 300);
    let seen = watch_drawing(&root);
    wait_all_drawn(&root).await;
    js_sys::Reflect::set(&seen, &"pending".into(), &0.into()).unwrap();
    let next: web_sys::HtmlElement = root
        .query_selector(".pager button:last-child")
        .unwrap()
        .expect("a pager")
        .unchecked_into();
    next.click();
    wait_for(&root, ".card[data-id$='cm-050']").await;
    wait_all_drawn(&root).await;
    assert_eq!(
        seen_field(&seen, "pending").as_f64(),
        Some((web::PAGE_SIZE - step) as f64),
        "the second page's cards, once arrived, are drawn a step at a time"
    );
    assert_eq!(seen_field(&seen, "busyWhileDrawing").as_bool(), Some(true));
    assert_eq!(
        root.query_selector_all(".card").unwrap().length() as usize,
        web::PAGE_SIZE
    );
    handle.destroy();
    root.remove();
}

/// A link's selected resource is brought into view (and its card's button
/// focused) once its card is drawn, even when it is not among the first
/// cards drawn.
#[wasm_bindgen_test]
async fn a_linked_card_drawn_in_a_later_step_is_revealed() {
    let (git, live) = configmaps(3 * web::drawing::NEW_CARDS_PER_TASK);
    let selected = "/ConfigMap/ns/cm-025";
    let mut engine = Engine::default();
    let fragment = match engine.handle(Request::Share(
        Input::sides(&git, &live).to_share(Some(selected.into())),
    )) {
        Response::Shared(s) => s.fragment,
        other => panic!("{other:?}"),
    };
    let (root, handle) = mount(Handler::new(move |req| engine.handle(req)), None);
    wait_for(&root, "#report[data-state=ready]").await;
    web_sys::window()
        .unwrap()
        .location()
        .set_hash(&fragment)
        .unwrap();
    wait_for(&root, &format!(".card.selected[data-id='{selected}']")).await;
    wait_all_drawn(&root).await;
    sleep(100).await;
    let focused = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element()
        .and_then(|e| e.closest(".card").unwrap())
        .and_then(|c| c.get_attribute("data-id"));
    assert_eq!(
        focused.as_deref(),
        Some(selected),
        "the linked card is focused"
    );
    handle.destroy();
    root.remove();
}
