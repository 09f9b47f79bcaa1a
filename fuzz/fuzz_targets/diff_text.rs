//! Pasted `argocd app diff` / `kubectl diff` output.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = drift_doctor::analyze_diff(text, &Default::default());
    }
});
