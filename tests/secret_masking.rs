//! No Secret value leaves: not in the report (text, Markdown, JSON), the YAML views, nor a link, whatever
//! the shape of the Secret; and a mask says nothing but equality.

use crate::common;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use drift_doctor::render;
use drift_doctor::share::{decode_fragment, encode_fragment, ShareState};
use drift_doctor::{analyze, analyze_diff, Options};
use proptest::prelude::*;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Everything drift-doctor shows or shares of one state, by name.
fn outputs(state: &ShareState) -> Vec<(String, String)> {
    let opts = Options::default();
    let mut out = Vec::new();
    let report = if state.mode == "diff" {
        analyze_diff(&state.diff, &opts)
    } else {
        analyze(&state.git, &state.live, &opts)
    };
    match report {
        Ok(report) => {
            out.push(("text".into(), render::text::render(&report, false, true)));
            out.push(("markdown".into(), render::markdown::render(&report, None)));
            out.push(("json".into(), serde_json::to_string(&report).unwrap()));
        }
        Err(e) => out.push(("error".into(), e.to_string())),
    }
    if state.mode == "diff" {
        if let Ok(lines) = drift_doctor::view::diff_text_lines(&state.diff) {
            out.push(("diff view".into(), format!("{lines:?}")));
        }
    } else if let Ok(texts) = drift_doctor::view::resource_texts(&state.git, &state.live, &opts) {
        out.push(("yaml view".into(), format!("{texts:?}")));
    }
    let (fragment, _) = encode_fragment(state);
    let shared = decode_fragment(&fragment).expect("a link decodes");
    out.push(("link".into(), serde_json::to_string(&shared).unwrap()));
    out
}

fn sides(git: &str, live: &str) -> ShareState {
    ShareState {
        mode: "sides".into(),
        git: git.into(),
        live: live.into(),
        ..Default::default()
    }
}

fn diff_state(diff: &str) -> ShareState {
    ShareState {
        mode: "diff".into(),
        diff: diff.into(),
        ..Default::default()
    }
}

/// Every way a value could be recognised in an output: as written, its base64, and the SHA-256 prefix that
/// masks once carried.
fn traces(value: &str) -> Vec<String> {
    let digest = Sha256::digest(value.as_bytes());
    let hash: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    vec![value.to_string(), STANDARD.encode(value), hash]
}

fn assert_nothing_of(values: &[String], outputs: &[(String, String)]) {
    for v in values.iter().filter(|v| v.len() >= 4) {
        for trace in traces(v) {
            for (name, text) in outputs {
                assert!(
                    !text.contains(&trace),
                    "{name} carries {trace:?} (from the value {v:?}):\n{text}"
                );
            }
        }
    }
}

/// The badinput files all hold values starting with `sentinel-`: none may appear, in any encoding.
fn assert_no_sentinel(outputs: &[(String, String)]) {
    for (name, text) in outputs {
        for trace in [
            "sentinel",
            "c2VudGluZWwt",     // base64 of "sentinel-"
            "YzJWdWRHbHVaV3d0", // base64 of that
        ] {
            assert!(
                !text.contains(trace),
                "{name} carries a Secret value:\n{text}"
            );
        }
    }
}

fn badinput(name: &str) -> String {
    common::read(format!("tests/data/badinput/{name}"))
}

// One test per line of the "Secret values leaked" section of tests/data/badinput/sec/README.md.

#[test]
fn an_unparseable_secret_document_is_masked_whole() {
    for live in [
        "sec/mal_tab.yaml",
        "sec/mal_json.json",
        "sec/mal_json_badstr.json",
    ] {
        let state = sides(&badinput("sec/list_git.yaml"), &badinput(live));
        let out = outputs(&state);
        assert_no_sentinel(&out);
        assert!(
            out.iter().any(|(n, _)| n == "error"),
            "{live} does not parse"
        );
    }
}

#[test]
fn argocd_secret_in_the_settings_never_reaches_the_link() {
    let mut state = sides(
        &badinput("sec/data_git.yaml"),
        &badinput("sec/data_live.yaml"),
    );
    state.set_request(
        &drift_doctor::Request::default(),
        &badinput("sec/argocd_cm_with_secret.yaml"),
        false,
    );
    assert_no_sentinel(&outputs(&state));
    // The argocd-cm part of the settings is kept as written.
    let shared = decode_fragment(&encode_fragment(&state).0).unwrap();
    let settings = &shared.options[drift_doctor::share::OPTION_SETTINGS];
    assert!(settings.contains("resource.customizations.ignoreDifferences.apps_Deployment"));
}

/// A rule selecting Secrets is no Secret: a link keeps it as written, while
/// a Secret that is an item of a List is masked.
#[test]
fn a_rule_naming_the_secret_kind_is_kept_and_a_listed_secret_masked() {
    let settings = "kind: Application\nmetadata:\n  name: a\nspec:\n  ignoreDifferences:\n  - kind: Secret\n    name: db\n    jsonPointers: [/data]\n";
    let listed = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: db}\n  stringData:\n    password: hunter2-listed\n";
    let mut state = sides(listed, listed);
    state.set_request(&drift_doctor::Request::default(), settings, false);
    let shared = decode_fragment(&encode_fragment(&state).0).unwrap();
    assert_eq!(
        shared.options[drift_doctor::share::OPTION_SETTINGS],
        settings
    );
    assert!(!shared.git.contains("hunter2-listed"), "{}", shared.git);
    assert!(!shared.live.contains("hunter2-listed"));
}

#[test]
fn misspelt_and_misplaced_fields_are_masked() {
    let state = sides(
        &badinput("sec/typo_git.yaml"),
        &badinput("sec/typo_live.yaml"),
    );
    assert_no_sentinel(&outputs(&state));
}

#[test]
fn a_lower_case_kind_is_masked() {
    let state = sides(
        &badinput("sec/lower_git.yaml"),
        &badinput("sec/lower_live.yaml"),
    );
    assert_no_sentinel(&outputs(&state));
}

#[test]
fn a_secret_body_under_a_configmap_header_is_masked() {
    let state = diff_state(&badinput("diff/secret_diff_wrong_header.txt"));
    let out = outputs(&state);
    assert_no_sentinel(&out);
    // The header and the body disagree on the kind: the analysis refuses the
    // text, and neither its message nor the link holds the values.
    let error = &out.iter().find(|(n, _)| n == "error").unwrap().1;
    assert!(error.contains("Secret"), "{error}");
    // `data` masks stay base64 (of `<secret 1>` and `<secret 2>`) so the text still parses.
    let link = &out.iter().find(|(n, _)| n == "link").unwrap().1;
    assert!(
        link.contains("PHNlY3JldCAxPg==") && link.contains("PHNlY3JldCAyPg=="),
        "{link}"
    );
}

#[test]
fn the_data_fixture_leaks_nothing_and_keeps_equality() {
    let state = sides(
        &badinput("sec/data_git.yaml"),
        &badinput("sec/data_live.yaml"),
    );
    let out = outputs(&state);
    assert_no_sentinel(&out);
    // `same` is equal on both sides: no difference; `password` differs: two different masks.
    let report: Value =
        serde_json::from_str(&out.iter().find(|(n, _)| n == "json").unwrap().1).unwrap();
    let diffs = report["resources"][0]["differences"].as_array().unwrap();
    assert!(diffs.iter().all(|d| d["pointer"] != "/data/same"));
    let pw = diffs
        .iter()
        .find(|d| d["pointer"] == "/data/password")
        .unwrap();
    assert_ne!(pw["git"], pw["live"]);
}

/// The values of every Secret of a text (`stringData` as written, `data` decoded) that appear nowhere else in it
/// (a value that is also a name cannot be told apart).
fn secret_values(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let docs: Vec<Value> = serde_yaml::Deserializer::from_str(text)
        .filter_map(|d| <Value as serde::Deserialize>::deserialize(d).ok())
        .collect();
    let elsewhere: String = docs
        .iter()
        .filter(|v| v["kind"] != "Secret")
        .map(|v| v.to_string())
        .collect();
    for v in docs.iter().filter(|v| v["kind"] == "Secret") {
        for (field, decode) in [("data", true), ("stringData", false)] {
            for value in v[field].as_object().into_iter().flat_map(|m| m.values()) {
                let Some(s) = value.as_str() else { continue };
                let plain = if decode {
                    String::from_utf8(STANDARD.decode(s).unwrap()).unwrap()
                } else {
                    s.to_string()
                };
                if !elsewhere.contains(&plain) {
                    out.push(plain);
                }
            }
        }
    }
    out
}

#[test]
fn no_output_of_a_scenario_carries_a_secret_value_or_its_hash() {
    let mut checked = 0;
    for name in common::scenario_names() {
        let dir = format!("tests/fixtures/scenarios/{name}");
        let (git, live) = (
            common::read(format!("{dir}/git.yaml")),
            common::read(format!("{dir}/live.yaml")),
        );
        let values: Vec<String> = secret_values(&git)
            .into_iter()
            .chain(secret_values(&live))
            .collect();
        if values.is_empty() {
            continue;
        }
        checked += 1;
        let out = outputs(&sides(&git, &live));
        assert_nothing_of(&values, &out);
        for (name, text) in &out {
            assert!(!text.contains("sha256 "), "{name} shows a hash:\n{text}");
            assert!(!text.contains(" bytes,"), "{name} shows a length:\n{text}");
        }
    }
    assert!(checked >= 3, "scenarios holding Secrets: {checked}");
}

#[test]
fn a_link_shows_the_masks_the_sender_saw() {
    // Two Secrets, written in the opposite order of their names, and an argocd-secret in the settings.
    let other = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: z\n  namespace: n\nstringData:\n  k: other-value\n---\n";
    let git = format!("{other}apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: n\nstringData:\n  a: first-value\n  b: shared-value\n");
    let live = format!("{other}apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: n\ndata:\n  a: c2Vjb25kLXZhbHVl\n  b: c2hhcmVkLXZhbHVl\n");
    let (git, live) = (git.as_str(), live.as_str());
    let mut state = sides(git, live);
    state.set_request(
        &drift_doctor::Request::default(),
        &badinput("sec/argocd_cm_with_secret.yaml"),
        false,
    );
    let sent = analyze(git, live, &Options::default()).unwrap();
    let shared = decode_fragment(&encode_fragment(&state).0).unwrap();
    let received = analyze(&shared.git, &shared.live, &Options::default()).unwrap();
    assert_eq!(sent, received);
    // Opening and sharing again changes nothing.
    let again = decode_fragment(&encode_fragment(&shared).0).unwrap();
    assert_eq!(again, shared);
    let d = &sent.resources[0].differences;
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(
        (
            d[0].git.as_ref().and_then(|v| v.as_str()),
            d[0].live.as_ref().and_then(|v| v.as_str())
        ),
        (Some("<secret 1>"), Some("<secret 4>"))
    );
}

#[test]
fn report_and_yaml_view_read_data_alike() {
    // `aGk` is not what the API server accepts (padding is required): both read it as the text it is, so
    // the value of the report and of the YAML view is the same mask.
    let git = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: n\ndata:\n  a: aGk\n  b: aGk=\n";
    let live = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: n\ndata:\n  a: aGk=\n  b: aGk=\n";
    let opts = Options::default();
    let report = analyze(git, live, &opts).unwrap();
    let texts = drift_doctor::view::resource_texts(git, live, &opts).unwrap();
    let view = &texts["/Secret/n/s"];
    let d = &report.resources[0].differences;
    assert_eq!(d.len(), 1, "{d:?}");
    let (g, l) = (
        d[0].git.as_ref().and_then(|v| v.as_str()).unwrap(),
        d[0].live.as_ref().and_then(|v| v.as_str()).unwrap(),
    );
    assert_ne!(g, l, "`aGk` and `aGk=` are different data");
    assert!(
        view.git.as_deref().unwrap().contains(&format!("a: {g}")),
        "{view:?}"
    );
    assert!(
        view.live.as_deref().unwrap().contains(&format!("a: {l}")),
        "{view:?}"
    );
    // `aGk=` is "hi" on both sides: one mask.
    assert!(
        view.git.as_deref().unwrap().contains(&format!("b: {l}")),
        "{view:?}"
    );
}

/// A Secret in one of the shapes users paste: its text, and the raw values it holds.
fn secret_shape() -> impl Strategy<Value = (String, Vec<String>)> {
    let value = "[a-z]{3,8}-[A-Z0-9]{4,8}";
    (0..7usize, value, value).prop_map(|(shape, v1, v2)| {
        let head = |kind: &str| {
            format!("apiVersion: v1\nkind: {kind}\nmetadata:\n  name: db\n  namespace: n\n")
        };
        let b1 = STANDARD.encode(&v1);
        let text = match shape {
            0 => format!("{}data:\n  a: {b1}\nstringData:\n  b: {v2}\n", head("Secret")),
            1 => format!("{}stringDada:\n  a: {v1}\ndata:\nb: {v2}\n", head("Secret")),
            2 => format!("{}data:\n  a: {b1}\n  b: {v2}\n", head("secret")),
            3 => format!("{}data:\n\ta: {v1}\n  b: {v2}\n", head("Secret")),
            4 => format!(
                "{{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":{{\"a\":\"{v1}\" \"b\":\"{v2}\"}}}}"
            ),
            5 => format!("{}password: {v1}\nstringData: {{b: {v2}}}\n", head("SECRET")),
            _ => format!("{}data: {{a: {b1}, b: {v2}}}\n", head("Secret")),
        };
        (text, vec![v1, v2])
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        ..ProptestConfig::default()
    })]

    #[test]
    fn no_raw_secret_value_in_any_output((git, mut values) in secret_shape(), (live, more) in secret_shape()) {
        values.extend(more);
        for mut state in [sides(&git, &live), sides(&live, &git)] {
            assert_nothing_of(&values, &outputs(&state));
            // the same Secrets pasted as Argo CD settings travel in the link's options
            let settings = format!("{git}\n---\n{live}");
            state.set_request(&drift_doctor::Request::default(), &settings, false);
            let shared = decode_fragment(&encode_fragment(&state).0).unwrap();
            assert_nothing_of(&values, &[("link settings".into(), serde_json::to_string(&shared).unwrap())]);
        }
        // Both documents as one diff hunk, under a header naming another kind.
        let (old, new): (Vec<&str>, Vec<&str>) = (git.lines().collect(), live.lines().collect());
        let mut diff = format!("===== /ConfigMap n/db ======\n@@ -1,{} +1,{} @@\n", old.len(), new.len());
        for l in &old {
            diff.push_str(&format!("-{l}\n"));
        }
        for l in &new {
            diff.push_str(&format!("+{l}\n"));
        }
        assert_nothing_of(&values, &outputs(&diff_state(&diff)));
    }
}
