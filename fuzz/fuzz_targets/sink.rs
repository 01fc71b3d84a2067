//! Any bytes in any chunking: the artifact (or the whole shown text) equals the
//! input, and the counts are exact.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shellgate::sink::{OutputSink, Sink};

fuzz_target!(|data: &[u8]| {
    let Some((&window, rest)) = data.split_first() else { return };
    let Some((&cut, input)) = rest.split_first() else { return };
    let dir = std::env::temp_dir().join(format!("sg-fuzz-sink-{}", std::process::id()));
    let name = format!("sg-fuzz-sink-{}", std::process::id());
    let mut sink = OutputSink::new(usize::from(window) * 4 + 8, &dir, &name);
    let step = usize::from(cut).max(1);
    for chunk in input.chunks(step) {
        sink.write(chunk).expect("write");
    }
    let out = sink.finish().expect("finish");
    assert_eq!(out.total_bytes, input.len() as u64);
    let lines = input.iter().filter(|b| **b == b'\n').count() as u64 + u64::from(input.last().is_some_and(|b| *b != b'\n'));
    assert_eq!(out.total_lines, lines);
    match &out.artifact {
        Some(path) => {
            assert_eq!(std::fs::read(path).expect("artifact"), input);
            let _ = std::fs::remove_file(path);
        }
        None => assert_eq!(out.shown, String::from_utf8_lossy(input)),
    }
});
