//! The line-at-a-time reader of plain block YAML against `serde_yaml`: what
//! the first reads, the second must read the same, and not refuse.
#![no_main]

use drift_doctor::strict_value::StrictValue;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(quick) = drift_doctor::input::read_block_yaml(text) {
        match serde_yaml::from_str::<StrictValue>(text) {
            Ok(StrictValue(strict)) => assert_eq!(quick, strict, "{text:?}"),
            Err(e) => panic!("read {quick} where serde_yaml says {e}: {text:?}"),
        }
    }
});
