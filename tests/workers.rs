//! Which worker answers what: the page's analysis worker is built lean and
//! hands the rest to the full worker (`web::engine::for_full_worker`); a
//! request no worker could answer is answered in kind with the reason.

use drift_doctor::share::ShareState;
use drift_doctor::web::engine::for_full_worker;
use drift_doctor::web::protocol::{Export, Input, Mode, Request, Response, WarmUpPair};

fn analysis(input: Input) -> Request {
    Request::Analyze {
        seq: 7,
        input,
        timed_out: Vec::new(),
    }
}

fn two_sides() -> Input {
    Input::sides("kind: ConfigMap\n", "kind: ConfigMap\n")
}

/// One request of each kind that needs no analysis made before it.
fn every_kind() -> Vec<Request> {
    vec![
        analysis(two_sides()),
        Request::Texts {
            seq: 7,
            id: "v1/ConfigMap/a/b".into(),
        },
        Request::Rules { texts: true },
        Request::Share(ShareState::default()),
        Request::Restore("#v1".into()),
        Request::WarmUp(vec![WarmUpPair {
            git: String::new(),
            live: String::new(),
        }]),
        Request::ParseUnits {
            id: 1,
            units: vec!["a: 1\n".into()],
        },
        Request::Resources {
            seq: 7,
            indices: vec![0],
        },
        Request::Export {
            seq: 7,
            format: Export::Json,
        },
        Request::Check { input: two_sides() },
    ]
}

#[test]
fn a_paste_of_the_two_sides_stays_with_the_lean_worker() {
    let mut input = two_sides();
    input.settings = "kind: Application\n".into();
    input.application = "kind: Application\n".into();
    input.git_again = "kind: ConfigMap\n".into();
    // Blank events and logs are no events and logs.
    input.events = " \n".into();
    input.logs = "\n".into();
    assert!(!for_full_worker(&analysis(input), false));
    assert!(!for_full_worker(&analysis(two_sides()), true));
    for request in [
        Request::Rules { texts: false },
        Request::WarmUp(Vec::new()),
        Request::ParseUnits {
            id: 1,
            units: Vec::new(),
        },
    ] {
        assert!(!for_full_worker(&request, true), "{request:?}");
    }
}

#[test]
fn diff_output_events_and_logs_go_to_the_full_worker() {
    let mut diff = two_sides();
    diff.mode = Mode::Diff;
    let mut events = two_sides();
    events.events = "LAST SEEN   TYPE   REASON\n".into();
    let mut logs = two_sides();
    logs.logs = "time=\"2024-01-01T00:00:00Z\" level=info\n".into();
    for input in [diff, events, logs] {
        assert!(
            for_full_worker(&analysis(input.clone()), false),
            "{input:?}"
        );
    }
}

#[test]
fn the_check_goes_to_the_full_worker_and_links_stay() {
    assert!(for_full_worker(
        &Request::Check { input: two_sides() },
        false
    ));
    // Links are made and opened by the lean worker.
    for request in [
        Request::Share(ShareState::default()),
        Request::Restore(String::new()),
    ] {
        assert!(!for_full_worker(&request, true), "{request:?}");
    }
}

#[test]
fn an_analysis_s_texts_resources_and_export_come_from_the_worker_that_made_it() {
    let follow = [
        Request::Texts {
            seq: 7,
            id: "x".into(),
        },
        Request::Resources {
            seq: 7,
            indices: Vec::new(),
        },
        Request::Export {
            seq: 7,
            format: Export::Markdown { link: None },
        },
    ];
    for request in follow {
        assert!(for_full_worker(&request, true), "{request:?}");
        assert!(!for_full_worker(&request, false), "{request:?}");
    }
}

#[test]
fn a_request_that_cannot_be_answered_is_answered_in_kind_with_the_reason() {
    let why = "the worker failed";
    for request in every_kind() {
        let answer = Response::failed(&request, why);
        let says_why = |text: &str| assert_eq!(text, why, "{request:?}");
        match (&request, answer) {
            (
                Request::Analyze { seq, .. },
                Some(Response::Analyzed {
                    seq: s, outcome, ..
                }),
            ) => {
                assert_eq!(*seq, s);
                says_why(&outcome.expect_err("an error").text);
            }
            (
                Request::Texts { seq, id },
                Some(Response::Texts {
                    seq: s,
                    id: i,
                    lines,
                    note,
                }),
            ) => {
                assert_eq!((seq, id), (&s, &i));
                assert!(lines.is_none());
                says_why(&note);
            }
            (Request::Rules { texts }, Some(Response::Rules { texts: t, docs })) => {
                assert_eq!(*texts, t);
                says_why(&docs.expect_err("an error"));
            }
            (Request::Check { .. }, Some(Response::Checked { outcome })) => {
                says_why(&outcome.expect_err("an error"))
            }
            (Request::Restore(_), Some(Response::Restored(outcome))) => {
                says_why(&outcome.expect_err("an error"))
            }
            (Request::WarmUp(_), Some(Response::WarmedUp)) => {}
            (Request::ParseUnits { id, .. }, Some(Response::ParsedUnits { id: i, values })) => {
                assert_eq!(*id, i);
                assert!(values.is_empty());
            }
            (
                Request::Resources { seq, indices },
                Some(Response::Resources {
                    seq: s,
                    indices: i,
                    json,
                }),
            ) => {
                assert_eq!((seq, indices), (&s, &i));
                assert!(json.is_empty());
            }
            (
                Request::Export { seq, format },
                Some(Response::Exported {
                    seq: s,
                    format: f,
                    text,
                }),
            ) => {
                assert_eq!((seq, format), (&s, &f));
                assert!(text.is_none());
            }
            // A link that could not be encoded: the page keeps waiting.
            (Request::Share(_), None) => {}
            (request, answer) => panic!("{request:?} answered with {answer:?}"),
        }
    }
}
