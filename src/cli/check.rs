//! `shellgate check`: one command, or `--batch` JSON lines.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use serde::Deserialize;

use super::args::{CheckArgs, command_bytes};
use super::{EXIT_BAD_INPUT, EXIT_USAGE, audit, exit, render};
use crate::{Decision, Verdict, check_bytes};

#[derive(Deserialize)]
struct BatchLine {
    id: Option<serde_json::Value>,
    command: String,
}

/// Runs `check`.
pub fn run(args: &CheckArgs) -> ExitCode {
    let loaded = match args.policy.load_or_report() {
        Ok(l) => l,
        Err(code) => return code,
    };
    for note in &loaded.notes {
        eprintln!("shellgate: note: {note}");
    }
    if args.batch {
        return batch(args, &loaded);
    }
    if args.command.is_empty() {
        eprintln!(
            "error: no command given\n\nUsage: shellgate check [OPTIONS] -- COMMAND\n       shellgate check --batch < commands.jsonl"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let bytes = command_bytes(&args.command);
    let mut verdict = check_bytes(&bytes, &loaded.policy);
    if let Some(path) = &args.policy.audit
        && let Err(e) = audit::record(
            path,
            &String::from_utf8_lossy(&bytes),
            &verdict,
            &loaded.layers,
        )
    {
        verdict = Verdict::refused(
            Decision::Deny,
            format!("the audit log `{}` cannot be written: {e}", path.display()),
        );
    }
    if args.json {
        println!("{}", serde_json::to_string(&verdict).unwrap_or_default());
    } else {
        print!("{}", render::verdict(&verdict));
    }
    exit(verdict.exit_code())
}

fn batch(args: &CheckArgs, loaded: &crate::policy::layers::Loaded) -> ExitCode {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut bad_input = false;
    let mut line = Vec::new();
    let mut reader = stdin.lock();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("shellgate: cannot read standard input: {e}");
                return ExitCode::from(EXIT_BAD_INPUT);
            }
        }
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            continue;
        }
        let verdict = match serde_json::from_slice::<BatchLine>(trimmed) {
            Ok(req) => {
                let mut v = check_bytes(req.command.as_bytes(), &loaded.policy);
                if let Some(path) = &args.policy.audit
                    && let Err(e) = audit::record(path, &req.command, &v, &loaded.layers)
                {
                    v = Verdict::refused(
                        Decision::Deny,
                        format!("the audit log cannot be written: {e}"),
                    );
                }
                v.id = req.id;
                v
            }
            Err(e) => {
                bad_input = true;
                let mut v = Verdict::refused(Decision::Deny, format!("bad input line: {e}"));
                v.id = serde_json::from_slice::<serde_json::Value>(trimmed)
                    .ok()
                    .and_then(|j| j.get("id").cloned());
                v
            }
        };
        let written = serde_json::to_writer(&mut out, &verdict).is_ok()
            && out.write_all(b"\n").is_ok()
            && out.flush().is_ok();
        if !written {
            return ExitCode::from(super::EXIT_INTERNAL);
        }
    }
    if bad_input {
        ExitCode::from(EXIT_BAD_INPUT)
    } else {
        ExitCode::SUCCESS
    }
}
