//! The short, medium and long commands of the engine benchmarks, shared by
//! `benches/engine.rs` and `examples/instructions.rs`.

/// ~40 B.
pub const SHORT: &str = "git status && cargo test -p shellgate"; // 37 B

/// ~300 B.
pub const MEDIUM: &str = "cd src && rg -n 'fn main' -g '*.rs' | head -20; git diff --stat HEAD~3 -- src/ && cargo clippy --all-targets -- -D warnings 2>&1 | tail -20 && LANG=C sort names.txt | uniq -c | sort -rn | head; timeout 60 cargo test --release -- --nocapture || echo \"tests failed: $(date +%s)\" >&2";

/// ~10 KB.
pub fn long() -> String {
    let mut s = String::new();
    while s.len() < 10_000 {
        s.push_str("git log --oneline -n 5 | grep -v wip && echo \"$(pwd)\" ; ");
    }
    s.push_str("true");
    s
}
