//! Git and live YAML/JSON: the input is split at the first NUL into the two sides.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (git, live) = text.split_once('\0').unwrap_or((text, text));
    if let Ok(report) = drift_doctor::analyze(git, live, &Default::default()) {
        let _ = drift_doctor::render::text::render(&report, false, true);
        let _ = drift_doctor::render::markdown::render(&report, None);
    }
});
