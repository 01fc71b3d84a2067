//! `shellgate test`: runs policy `[[test]]` examples and corpus cases.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Deserialize;

use super::args::{TestArgs, render_policy_error};
use super::render::one_line;
use crate::policy::{Extends, Policy, load_file};
use crate::{Decision, check_traced};

#[derive(Deserialize)]
struct CorpusFile {
    #[serde(rename = "case")]
    cases: Vec<CorpusCase>,
}

#[derive(Deserialize)]
struct CorpusCase {
    id: String,
    command: String,
    expect: Decision,
    why: Option<String>,
    policy: Option<String>,
}

struct Tally {
    passed: usize,
    failed: usize,
}

/// Runs `test`.
pub fn run(args: &TestArgs) -> ExitCode {
    let roots = if args.paths.is_empty() {
        vec![PathBuf::from("policies")]
    } else {
        args.paths.clone()
    };
    let mut files = Vec::new();
    for root in &roots {
        collect(root, &mut files);
    }
    if files.is_empty() {
        eprintln!(
            "shellgate test: no .toml files under {}",
            roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return ExitCode::from(super::EXIT_USAGE);
    }
    let mut tally = Tally {
        passed: 0,
        failed: 0,
    };
    let mut unexercised_total = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        if text.lines().any(|l| l.trim() == "[[case]]") {
            corpus_file(file, &text, &mut tally, args);
        } else {
            unexercised_total += policy_file(file, &mut tally, args);
        }
    }
    println!("{} passed, {} failed", tally.passed, tally.failed);
    if args.coverage && unexercised_total > 0 {
        println!("{unexercised_total} rules not exercised by any example");
    }
    // With --coverage, an unexercised rule fails the run too.
    if tally.failed > 0 || unexercised_total > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            collect(&e, out);
        }
    } else if path.extension().is_some_and(|x| x == "toml") || path.is_file() {
        out.push(path.to_path_buf());
    }
}

fn embedded() -> Option<Policy> {
    Policy::embedded().ok()
}

/// Tests one policy file; returns how many of its rules no example exercised (with `--coverage`).
fn policy_file(file: &Path, tally: &mut Tally, args: &TestArgs) -> usize {
    let policy = match load_file(file, &file.display().to_string()) {
        Ok(p) => p,
        Err(e) => {
            eprint!("{}", render_policy_error(&e, args.error_format));
            println!("FAIL {}: the policy does not load", file.display());
            tally.failed += 1;
            return 0;
        }
    };
    let own: Vec<String> = policy.rules.iter().map(|r| r.id.clone()).collect();
    let tests = policy.tests.clone();
    let effective = match (policy.extends, embedded()) {
        (Some(Extends::None), _) | (_, None) => policy,
        (_, Some(base)) => Policy::merge(vec![(base, true), (policy.clone(), policy.default_set)]),
    };
    let mut exercised = BTreeSet::new();
    for t in &tests {
        let (verdict, trace) = check_traced(&t.command, &effective, true);
        for d in &trace.decisions {
            exercised.extend(d.rule.iter().cloned());
            exercised.extend(
                d.considered
                    .iter()
                    .filter(|(_, o)| *o == crate::policy::RuleOutcome::Matched)
                    .map(|(id, _)| id.clone()),
            );
        }
        report(
            file,
            &t.command,
            t.expect,
            t.why.as_deref(),
            &verdict,
            tally,
            args.verbose,
        );
    }
    let missing: Vec<&String> = own.iter().filter(|id| !exercised.contains(*id)).collect();
    if args.coverage && !missing.is_empty() {
        for id in &missing {
            println!("UNEXERCISED {}: rule `{id}`", file.display());
        }
    }
    if args.coverage { missing.len() } else { 0 }
}

fn corpus_file(file: &Path, text: &str, tally: &mut Tally, args: &TestArgs) {
    let parsed: CorpusFile = match toml::from_str(text) {
        Ok(c) => c,
        Err(e) => {
            println!(
                "FAIL {}: not a corpus file: {}",
                file.display(),
                one_line(e.message())
            );
            tally.failed += 1;
            return;
        }
    };
    let Some(default) = embedded() else { return };
    for case in parsed.cases {
        let policy = match &case.policy {
            None => default.clone(),
            Some(p) => match load_file(&file.parent().unwrap_or(Path::new(".")).join(p), p) {
                Ok(pol) => pol,
                Err(e) => {
                    eprint!("{}", render_policy_error(&e, args.error_format));
                    tally.failed += 1;
                    continue;
                }
            },
        };
        let verdict = crate::check(&case.command, &policy);
        let label = format!("{} [{}]", case.command, case.id);
        report(
            file,
            &label,
            case.expect,
            case.why.as_deref(),
            &verdict,
            tally,
            args.verbose,
        );
    }
}

fn report(
    file: &Path,
    command: &str,
    expect: Decision,
    why: Option<&str>,
    verdict: &crate::Verdict,
    tally: &mut Tally,
    verbose: bool,
) {
    if verdict.decision == expect {
        tally.passed += 1;
        if verbose {
            println!("ok   {}: {}", file.display(), one_line(command));
        }
        return;
    }
    tally.failed += 1;
    println!("FAIL {}: {}", file.display(), one_line(command));
    println!(
        "     expected {}{}, got {}",
        expect.as_str(),
        why.map(|w| format!(" ({w})")).unwrap_or_default(),
        verdict.decision.as_str()
    );
    for line in super::render::verdict(verdict).lines() {
        println!("     | {line}");
    }
}
