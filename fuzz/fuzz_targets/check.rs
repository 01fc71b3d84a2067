//! Any bytes get a verdict; a parse with errors or a limit hit is never allowed.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use shellgate::{Decision, Policy};

static POLICY: LazyLock<Policy> = LazyLock::new(|| Policy::embedded().expect("embedded policy"));

fuzz_target!(|data: &[u8]| {
    let verdict = shellgate::check_bytes(data, &POLICY);
    let complete = std::str::from_utf8(data).is_ok_and(|t| shellgate::parse::parse(t).is_complete());
    if !complete {
        assert_ne!(verdict.decision, Decision::Allow, "allowed an incomplete parse: {:?}", String::from_utf8_lossy(data));
    }
});
