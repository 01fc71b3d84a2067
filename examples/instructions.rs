//! A fixed amount of engine work for instruction counting (`bench/instructions.sh`
//! runs it under callgrind with 0 and with N iterations and takes the difference,
//! so process start-up and policy loading drop out).
//!
//! `instructions <tree-sitter|ir|check> <short|medium|long> <iterations>`

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    reason = "a measuring tool"
)]

#[path = "../benches/common/inputs.rs"]
mod inputs;

use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, mode, size, n] = args.as_slice() else {
        eprintln!("usage: instructions <tree-sitter|ir|check> <short|medium|long> <iterations>");
        std::process::exit(64);
    };
    let long = inputs::long();
    let text = match size.as_str() {
        "short" => inputs::SHORT,
        "medium" => inputs::MEDIUM,
        "long" => long.as_str(),
        _ => panic!("unknown size {size}"),
    };
    let n: usize = n.parse().expect("iterations");
    // Everything set up once, whatever `n` is: only the per-command work differs.
    let policy = shellgate::Policy::embedded().expect("embedded policy");
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .expect("language");
    black_box(shellgate::check("true", &policy));
    for _ in 0..n {
        match mode.as_str() {
            "tree-sitter" => drop(black_box(parser.parse(black_box(text), None))),
            "ir" => drop(black_box(shellgate::parse::parse(black_box(text)))),
            "check" => drop(black_box(shellgate::check(black_box(text), &policy))),
            _ => panic!("unknown mode {mode}"),
        }
    }
}
