//! The user's Application / argocd-cm settings, jq expressions included.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let mut compare = drift_doctor::CompareOptions::default();
        let _ = drift_doctor::settings::apply_user_settings(text, &mut compare);
    }
});
