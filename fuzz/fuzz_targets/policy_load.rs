//! Any TOML text loads or fails with diagnostics whose places are inside the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shellgate::PolicyError;

fn check(e: &PolicyError, len: usize) {
    if let PolicyError::Many { errors, .. } = e {
        for inner in errors {
            check(inner, len);
        }
    }
    assert!(e.offset() <= len, "diagnostic at {} past the end ({len})", e.offset());
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(e) = shellgate::policy::load_str(text, "fuzz.toml", "fuzz") {
        check(&e, text.len());
    }
});
