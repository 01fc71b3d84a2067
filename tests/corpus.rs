//! Runs every `corpus/*.toml` case against its policy (the embedded default
//! unless the case names another), each case as its own named test.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "tests"
)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use serde::Deserialize;
use shellgate::{Decision, Policy};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CorpusFile {
    #[serde(rename = "case")]
    cases: Vec<Case>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    command: String,
    expect: Decision,
    why: String,
    category: String,
    source: String,
    policy: Option<String>,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

fn load_cases() -> Result<Vec<(String, Case)>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    let mut ids = HashSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        let parsed: CorpusFile =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", f.display()))?;
        let stem = f
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("corpus")
            .to_owned();
        for case in parsed.cases {
            if !ids.insert(case.id.clone()) {
                return Err(format!("{}: duplicate case id `{}`", f.display(), case.id));
            }
            if case.why.trim().is_empty()
                || case.source.trim().is_empty()
                || case.category.trim().is_empty()
            {
                return Err(format!(
                    "{}: case `{}` needs `why`, `category` and `source`",
                    f.display(),
                    case.id
                ));
            }
            out.push((stem.clone(), case));
        }
    }
    Ok(out)
}

fn run_case(case: &Case, policy: &Policy) -> Result<(), Failed> {
    let verdict = shellgate::check(&case.command, policy);
    if verdict.decision == case.expect {
        return Ok(());
    }
    Err(format!(
        "command {:?}\n  expected {:?} ({})\n  got      {:?}: {}\n  verdict  {}",
        case.command,
        case.expect,
        case.why,
        verdict.decision,
        verdict.reasons.join(" | "),
        serde_json::to_string(&verdict).unwrap_or_default()
    )
    .into())
}

/// The canonical rendering re-parses to the same IR: same simple commands,
/// same words (static values exact, dynamic words as written).
fn canonical_reparses(command: &str) -> Result<(), Failed> {
    let script = shellgate::parse::parse(command);
    let Some(canonical) = shellgate::canonical::render(command, &script) else {
        return Ok(()); // incomplete IR: the raw command is never run
    };
    let words = shellgate::parse::Script::word_signature;
    let again = shellgate::parse::parse(&canonical);
    if words(&again) != words(&script) || !again.is_complete() {
        return Err(format!(
            "canonical form {canonical:?} of {command:?} re-parses differently:\n  {:?}\n  {:?}",
            words(&script),
            words(&again)
        )
        .into());
    }
    if shellgate::canonical::render(&canonical, &again).as_deref() != Some(canonical.as_str()) {
        return Err(format!("canonical form {canonical:?} is not a fixed point").into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let cases = match load_cases() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("corpus: {e}");
            std::process::exit(101);
        }
    };
    let default = std::sync::Arc::new(Policy::embedded().expect("embedded policy loads"));
    let mut trials = vec![Trial::test("corpus::has_enough_cases", {
        let n = cases.len();
        let benign = cases
            .iter()
            .filter(|(_, c)| c.expect == Decision::Allow)
            .count();
        move || {
            if n < 250 || benign < 80 {
                return Err(
                    format!("{n} cases ({benign} allowed): want at least 250 and 80").into(),
                );
            }
            Ok(())
        }
    })];
    for (file, case) in cases {
        let policy = match &case.policy {
            None => default.clone(),
            Some(p) => {
                let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(p);
                match shellgate::policy::load_file(&path, p) {
                    Ok(pol) => std::sync::Arc::new(pol),
                    Err(e) => {
                        let msg = format!("policy {p}: {e}");
                        trials.push(Trial::test(format!("{file}::{}", case.id), move || {
                            Err(msg.clone().into())
                        }));
                        continue;
                    }
                }
            }
        };
        let command = case.command.clone();
        trials.push(Trial::test(
            format!("canonical::{file}::{}", case.id),
            move || canonical_reparses(&command),
        ));
        trials.push(Trial::test(format!("{file}::{}", case.id), move || {
            run_case(&case, &policy)
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}
