//! A link's `#fragment` and a share file, as a receiver opens them.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = drift_doctor::share::decode_fragment(text);
        let _ = drift_doctor::share::decode_share_file(text);
    }
});
