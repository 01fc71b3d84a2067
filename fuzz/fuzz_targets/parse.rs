//! Any text parses (or records why not); a canonical rendering, when there
//! is one, re-parses to the same words (what runs is what was judged).
#![no_main]

use libfuzzer_sys::fuzz_target;
use shellgate::parse::{Script, parse};

fn words(s: &Script) -> Vec<Vec<String>> {
    s.word_signature()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let script = parse(text);
    if let Some(canonical) = shellgate::canonical::render(text, &script) {
        let again = parse(&canonical);
        assert_eq!(words(&script), words(&again), "canonical {canonical:?} of {text:?}");
    }
});
