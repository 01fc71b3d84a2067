//! Differential oracle against real bash: for every command shellgate allows,
//! every program bash actually runs (read from bash's own xtrace, which child
//! bashes inherit through `SHELLOPTS`) must be one that shellgate's IR listed
//! and its policy judged. Programs are replaced by no-op stubs on `PATH` so
//! nothing real runs; builtins run in a throwaway directory.
//!
//! Runs over the corpus and over generated commands (a fixed-seed generator,
//! `SHELLGATE_DIFF_COUNT` of them, default 10 000).

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use shellgate::{Decision, Policy};

fn scratch(tag: &str) -> PathBuf {
    let d =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("diff-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The programs shellgate says will run (static names), or `None` when it does not allow the command.
fn judged(cmd: &str, policy: &Policy) -> Option<BTreeSet<String>> {
    let (verdict, trace) = shellgate::check_traced(cmd, policy, false);
    if verdict.decision != Decision::Allow {
        return None;
    }
    // Safe wrappers shellgate stripped (`timeout 5`, `env LANG=C`) were seen and judged too.
    let wrappers = trace
        .plan
        .invocations
        .iter()
        .flat_map(|i| i.stripped.iter())
        .filter_map(|s| {
            s.split_whitespace()
                .next()
                .filter(|w| !is_assignment(w))
                .map(str::to_owned)
        });
    Some(
        trace
            .plan
            .invocations
            .iter()
            .filter_map(|i| i.program.clone())
            .chain(wrappers)
            .collect(),
    )
}

/// Runs `cmd` under bash with xtrace; returns the program of every simple command bash ran.
fn traced(cmd: &str, programs: &BTreeSet<String>, root: &Path) -> BTreeSet<String> {
    let stubs = root.join("stubs");
    let work = root.join("work");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&stubs).unwrap();
    for p in programs.iter().filter(|p| !p.contains('/')) {
        let stub = stubs.join(p);
        if !stub.exists() {
            std::fs::write(&stub, "#!/bin/sh\nexit 0\n").unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let trace = root.join("trace");
    let _ = std::fs::remove_file(&trace);
    let script = format!(
        "exec 7>>'{}'; export BASH_XTRACEFD=7 SHELLOPTS; PS4='+ '; set -x\n{cmd}",
        trace.display()
    );
    let mut child = Command::new("/bin/bash")
        .args(["--noprofile", "--norc", "-c", &script])
        .current_dir(&work)
        .env_clear()
        .env("PATH", &stubs)
        .env("HOME", &work)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let _ = child.wait();
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix('+') else {
            continue;
        };
        let rest = rest
            .trim_start_matches('+')
            .strip_prefix(' ')
            .unwrap_or(rest);
        let Ok(words) = shell_words::split(rest) else {
            continue;
        };
        let Some(first) = words.iter().find(|w| !is_assignment(w)) else {
            continue;
        };
        if matches!(
            first.as_str(),
            "for" | "case" | "select" | "((" | "[[" | "]]" | "{" | "}" | "!" | "coproc"
        ) {
            out.insert(first.clone());
            continue;
        }
        let name = shellgate::strip::program_name(&shellgate::parse::Word::literal(
            first,
            shellgate::parse::Span::default(),
        ));
        if let Some(n) = name {
            out.insert(n);
        }
    }
    out
}

fn is_assignment(w: &str) -> bool {
    w.split_once('=').is_some_and(|(n, _)| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '[' || c == ']' || c == '+')
    })
}

/// Keywords and constructs xtrace prints that are not programs.
fn structural(name: &str) -> bool {
    matches!(
        name,
        "for" | "case" | "select" | "((" | "{" | "}" | "!" | "]]"
    )
}

fn disagreements(cmds: &[String], policy: &Policy, root: &Path) -> (usize, Vec<String>) {
    let mut ran = 0;
    let mut bad = Vec::new();
    for cmd in cmds {
        let Some(programs) = judged(cmd, policy) else {
            continue;
        };
        ran += 1;
        let seen = traced(cmd, &programs, root);
        let unjudged: Vec<&String> = seen
            .iter()
            .filter(|p| !programs.contains(*p) && !structural(p))
            .collect();
        if !unjudged.is_empty() {
            bad.push(format!(
                "{cmd:?}: bash ran {unjudged:?}, shellgate judged {programs:?}"
            ));
        }
    }
    (ran, bad)
}

fn corpus_commands() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let doc: toml::Table = toml::from_str(&text).unwrap();
        for case in doc["case"].as_array().unwrap() {
            out.push(case["command"].as_str().unwrap().to_owned());
        }
    }
    out
}

#[test]
fn bash_runs_only_what_shellgate_judged_on_the_corpus() {
    let policy = Policy::embedded().unwrap();
    let (ran, bad) = disagreements(&corpus_commands(), &policy, &scratch("corpus"));
    assert!(ran >= 100, "only {ran} allowed corpus commands ran");
    assert!(
        bad.is_empty(),
        "{} disagreements:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// A small xorshift generator: reproducible commands built from allowed pieces,
/// joined and nested the ways the threats combine them.
fn generated(n: usize) -> Vec<String> {
    let atoms = [
        "ls",
        "ls -la",
        "cat README.md",
        "echo hi",
        "echo 'a;b'",
        "echo \"$(pwd)\"",
        "pwd",
        "git status",
        "git log --oneline -3",
        "grep -n x f",
        "rg -n y",
        "wc -l f",
        "head -5 f",
        "true",
        "false",
        "test -f x",
        "[ -d src ]",
        "[[ -n x ]]",
        "echo $((1+2))",
        "printf '%s\\n' a",
        "sort f",
        "cut -d: -f1 f",
        "echo {a,b}",
        "cd src",
        "date",
        "whoami",
        "echo `whoami`",
        "e''cho q",
        "$'echo' z",
        "\\ls",
        "LANG=C ls",
        "timeout 5 ls",
        "nice ls",
        "command ls",
        "echo x >/dev/null",
        "ls 2>&1",
        "cat <<'EOF'\nx\nEOF",
        "echo $HOME",
        "which ls",
    ];
    let joins = [" && ", " || ", "; ", " | ", "\n", " & "];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |m: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % m as u64) as usize
    };
    (0..n)
        .map(|_| {
            let parts = 1 + next(4);
            let mut cmd = String::new();
            for i in 0..parts {
                if i > 0 {
                    cmd.push_str(joins[next(joins.len())]);
                }
                let atom = atoms[next(atoms.len())];
                match next(6) {
                    0 => cmd.push_str(&format!("( {atom} )")),
                    1 => cmd.push_str(&format!("{{ {atom}; }}")),
                    2 => cmd.push_str(&format!("echo \"$({atom})\"")),
                    3 => cmd.push_str(&format!("bash -c '{}'", atom.replace('\'', "'\\''"))),
                    _ => cmd.push_str(atom),
                }
            }
            cmd
        })
        .collect()
}

#[test]
fn bash_runs_only_what_shellgate_judged_on_generated_commands() {
    let n = std::env::var("SHELLGATE_DIFF_COUNT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let policy = Policy::embedded().unwrap();
    let (ran, bad) = disagreements(&generated(n), &policy, &scratch("gen"));
    eprintln!(
        "differential: {n} generated, {ran} allowed and run under bash, {} disagreements",
        bad.len()
    );
    assert!(
        bad.is_empty(),
        "{} disagreements:\n{}",
        bad.len(),
        bad.iter().take(30).cloned().collect::<Vec<_>>().join("\n")
    );
}
