//! A stable-toolchain smoke version of the fuzz targets in `fuzz/`: a few
//! thousand deterministic mutations (byte flips, line moves, indentation
//! changes, truncation) of the scenario fixtures, fed to every input surface.
//! It asserts what must hold for any input: no panic, an error that names a
//! side or a report (the CLI maps them to exit 2, or 0/1), and no Secret
//! value of the fixture in any output.

use crate::common;

use base64::Engine;
use drift_doctor::render::{markdown, text};
use drift_doctor::{analyze, analyze_diff, Options, Report};
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A small deterministic generator (SplitMix64), so every run tries the
/// same inputs and a failure can be replayed from its seed.
struct Mutator(u64);

impl Mutator {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// One mutation of `text`, kept valid UTF-8 (the CLI refuses other bytes
    /// before the core sees them).
    fn mutate(&mut self, text: &str) -> String {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        if lines.is_empty() {
            return String::new();
        }
        match self.below(6) {
            0 => {
                // Flip one ASCII byte to another printable or structural one.
                let i = self.below(lines.len());
                let bytes = lines[i].as_bytes();
                if !bytes.is_empty() {
                    let at = self.below(bytes.len());
                    if bytes[at].is_ascii() && lines[i].is_char_boundary(at) {
                        let pool = b" :-[]{}'\"#&*!|>%@`\t,?0aZ";
                        let c = pool[self.below(pool.len())] as char;
                        lines[i].replace_range(at..at + 1, &c.to_string());
                    }
                }
            }
            1 => {
                let from = self.below(lines.len());
                let line = lines.remove(from);
                let to = self.below(lines.len() + 1);
                lines.insert(to, line);
            }
            2 => {
                let i = self.below(lines.len());
                if self.below(2) == 0 {
                    lines[i].insert_str(0, "  ");
                } else {
                    let trimmed = lines[i].trim_start().to_string();
                    lines[i] = trimmed;
                }
            }
            3 => {
                let keep = self.below(lines.len());
                lines.truncate(keep);
            }
            4 => {
                let i = self.below(lines.len());
                let copy = lines[i].clone();
                lines.insert(i, copy);
            }
            _ => {
                let i = self.below(lines.len());
                lines.remove(i);
            }
        }
        lines.join("\n") + "\n"
    }
}

/// Every Secret value in a fixture, plain and base64, long enough that it
/// cannot appear by chance.
fn secret_values(texts: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for text in texts {
        let Ok(docs) = drift_doctor::input::parse_side(text, drift_doctor::Side::Live) else {
            continue;
        };
        for doc in docs {
            if doc.object.get("kind").and_then(Value::as_str) != Some("Secret") {
                continue;
            }
            for field in ["data", "stringData"] {
                let Some(map) = doc.object.get(field).and_then(Value::as_object) else {
                    continue;
                };
                for v in map.values().filter_map(Value::as_str) {
                    out.push(v.to_string());
                    if let Ok(plain) = base64::engine::general_purpose::STANDARD.decode(v) {
                        out.push(String::from_utf8_lossy(&plain).into_owned());
                    }
                }
            }
        }
    }
    out.retain(|v| v.len() >= 8);
    out.sort();
    out.dedup();
    out
}

/// How many lines of a text say `kind: Secret`.
fn secret_kinds(text: &str) -> usize {
    text.lines()
        .filter(|l| l.trim().eq_ignore_ascii_case("kind: secret"))
        .count()
}

fn rendered(report: &Report) -> String {
    let mut all = serde_json::to_string(report).unwrap_or_default();
    all.push_str(&text::render(report, false, true));
    all.push_str(&markdown::render(report, None));
    all
}

fn assert_no_secret(out: &str, secrets: &[String], what: &str) {
    for s in secrets {
        if let Some(at) = out.find(s.as_str()) {
            // Where, without printing the value itself.
            let before: String = out[..at]
                .chars()
                .rev()
                .take(300)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            panic!(
                "{what}: a Secret value of {} bytes leaked after: {before}",
                s.len()
            );
        }
    }
}

#[test]
fn mutated_sides_never_panic_or_leak() {
    let mut m = Mutator(0x5eed);
    let mut runs = 0;
    for name in common::scenario_names() {
        let dir = format!("tests/fixtures/scenarios/{name}");
        let git = common::read(format!("{dir}/git.yaml"));
        let live = common::read(format!("{dir}/live.yaml"));
        let secrets = secret_values(&[&git, &live]);
        for round in 0..50 {
            let (g, l) = if round % 2 == 0 {
                (m.mutate(&git), live.clone())
            } else {
                (git.clone(), m.mutate(&live))
            };
            let result = catch_unwind(AssertUnwindSafe(|| analyze(&g, &l, &Options::default())));
            let what = format!("{name} round {round}");
            // A mutation that changed a `kind: Secret` line made that object
            // something else, whose values are not masked by rule.
            let secrets: &[String] =
                if secret_kinds(&g) + secret_kinds(&l) < secret_kinds(&git) + secret_kinds(&live) {
                    &[]
                } else {
                    &secrets
                };
            match result.unwrap_or_else(|_| panic!("{what}: panicked")) {
                Ok(report) => assert_no_secret(&rendered(&report), secrets, &what),
                Err(e) => {
                    assert!(e.message.len() < 2000, "{what}: {e}");
                    assert_no_secret(&e.to_string(), secrets, &what);
                }
            }
            runs += 1;
        }
    }
    assert!(runs >= 500, "{runs}");
}

#[test]
fn mutated_diff_text_never_panics() {
    let dir = common::root().join("tests/fixtures/difftext");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    names.sort();
    let mut m = Mutator(0xd1ff);
    for path in names {
        let original = std::fs::read_to_string(&path).unwrap();
        for round in 0..100 {
            let text = m.mutate(&original);
            let result = catch_unwind(AssertUnwindSafe(|| {
                analyze_diff(&text, &Options::default())
            }));
            assert!(result.is_ok(), "{} round {round}: panicked", path.display());
        }
    }
}

#[test]
fn mutated_share_fragments_never_panic() {
    let state = drift_doctor::share::ShareState {
        mode: "sides".into(),
        git: common::read("tests/fixtures/scenarios/mixed-app/git.yaml"),
        live: common::read("tests/fixtures/scenarios/mixed-app/live.yaml"),
        ..Default::default()
    };
    let (fragment, _) = drift_doctor::share::encode_fragment(&state);
    let mut m = Mutator(0x11);
    for round in 0..500 {
        let mut bytes = fragment.clone().into_bytes();
        let flips = 1 + m.below(4);
        for _ in 0..flips {
            let at = m.below(bytes.len());
            let pool = b"ABCxyz019-_.=";
            bytes[at] = pool[m.below(pool.len())];
        }
        if m.below(4) == 0 {
            let keep = m.below(bytes.len());
            bytes.truncate(keep);
        }
        let text = String::from_utf8(bytes).unwrap();
        let result = catch_unwind(|| drift_doctor::share::decode_fragment(&text).is_ok());
        assert!(result.is_ok(), "round {round}: panicked");
    }
}

#[test]
fn mutated_settings_never_panic() {
    let mut m = Mutator(0x5e77);
    for name in ["app.yaml", "argocd-cm.yaml"] {
        let original = common::read(format!("tests/fixtures/settings/{name}"));
        for round in 0..150 {
            let text = m.mutate(&original);
            let result = catch_unwind(AssertUnwindSafe(|| {
                let mut compare = drift_doctor::CompareOptions::default();
                drift_doctor::settings::apply_user_settings(&text, &mut compare).is_ok()
            }));
            assert!(result.is_ok(), "{name} round {round}: panicked");
        }
    }
}
