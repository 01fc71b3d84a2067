//! Engine benchmarks (divan, medians): parse alone vs `check` end to end, the
//! whole corpus, and rule matching as the number of rules grows.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "benchmarks"
)]

use std::sync::LazyLock;

use shellgate::Policy;

fn main() {
    divan::main();
}

#[path = "common/inputs.rs"]
mod inputs;
use inputs::{MEDIUM, SHORT};

static LONG: LazyLock<String> = LazyLock::new(inputs::long);

static POLICY: LazyLock<Policy> = LazyLock::new(|| Policy::embedded().expect("embedded policy"));

static CORPUS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("corpus dir") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("read");
        let doc: toml::Table = toml::from_str(&text).expect("toml");
        for case in doc["case"].as_array().expect("cases") {
            out.push(case["command"].as_str().expect("command").to_owned());
        }
    }
    out
});

fn input(size: &str) -> &'static str {
    match size {
        "short" => SHORT,
        "medium" => MEDIUM,
        _ => LONG.as_str(),
    }
}

/// tree-sitter parse alone: the baseline for `check`.
#[divan::bench(args = ["short", "medium", "long"])]
fn tree_sitter_parse(size: &str) {
    let text = input(size);
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .expect("language");
    divan::black_box(parser.parse(divan::black_box(text), None));
}

/// Our parse stage: tree-sitter plus lowering to the IR.
#[divan::bench(args = ["short", "medium", "long"])]
fn parse_to_ir(size: &str) {
    divan::black_box(shellgate::parse::parse(divan::black_box(input(size))));
}

/// The whole pipeline.
#[divan::bench(args = ["short", "medium", "long"])]
fn check(size: &str) {
    let policy = &*POLICY;
    divan::black_box(shellgate::check(divan::black_box(input(size)), policy));
}

/// Every corpus command once per iteration (divide by the count for per-command figures).
#[divan::bench]
fn check_corpus(b: divan::Bencher<'_, '_>) {
    let policy = &*POLICY;
    let corpus = &*CORPUS;
    b.counter(divan::counter::ItemsCount::new(corpus.len()))
        .bench(|| {
            for c in corpus {
                divan::black_box(shellgate::check(c, policy));
            }
        });
}

fn policy_with_rules(n: usize) -> Policy {
    let mut text = String::from("default = \"ask\"\n");
    for i in 0..n.saturating_sub(1) {
        text.push_str(&format!(
            "[[rule]]\nid = \"r{i}\"\ndecision = \"allow\"\ncommand = \"tool{i}\"\nargs = [\"sub\"]\nforbid_flags = [\"--exec\"]\n"
        ));
    }
    text.push_str(
        "[[rule]]\nid = \"git\"\ndecision = \"allow\"\ncommand = \"git\"\nargs = [\"status\"]\n",
    );
    shellgate::policy::load_str(&text, "bench.toml", "bench").expect("policy")
}

/// Matching cost with 1 … 10 000 rules indexed by program name.
#[divan::bench(args = [1, 100, 1000, 10_000])]
fn match_rules(b: divan::Bencher<'_, '_>, n: usize) {
    let policy = policy_with_rules(n);
    let plan = shellgate::strip::strip(
        &shellgate::parse::parse("git status"),
        &policy.strip_options(),
    );
    b.bench(|| divan::black_box(policy.decide(divan::black_box(&plan), false)));
}
