//! Stripping only removes a prefix of a command's words (wrappers and
//! assignments), and stripping the result again changes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shellgate::parse::parse;
use shellgate::strip::{StripOptions, strip};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let script = parse(text);
    let plan = strip(&script, &StripOptions::default());
    for inv in plan.invocations.iter().filter(|i| i.via.is_none()) {
        let Some(cmd) = script.commands.get(inv.origin) else { continue };
        let n = inv.argv.len();
        assert!(n <= cmd.argv.len());
        assert_eq!(&cmd.argv[cmd.argv.len() - n..], &inv.argv[..], "stripped words are not a suffix");
        if !inv.stripped.is_empty() && inv.argv.iter().all(|w| w.is_static()) && script.is_complete() {
            let rendered = shell_words_join(&inv.argv);
            let again = strip(&parse(&rendered), &StripOptions::default());
            if let Some(first) = again.invocations.first() {
                let a: Vec<_> = first.argv.iter().map(|w| w.value()).collect();
                let b: Vec<_> = inv.argv.iter().map(|w| w.value()).collect();
                assert_eq!(a, b, "stripping is not idempotent for {rendered:?}");
            }
        }
    }
});

fn shell_words_join(argv: &[shellgate::parse::Word]) -> String {
    argv.iter()
        .map(|w| {
            let v = w.value().unwrap_or_default();
            format!("'{}'", v.replace('\'', "'\\''"))
        })
        .collect::<Vec<_>>()
        .join(" ")
}
