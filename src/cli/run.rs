//! `shellgate run`: check, ask on the terminal when needed, run in the sandbox.

use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::time::Duration;

use super::args::{RunArgs, required_command};
use super::{EXIT_INTERNAL, audit, render};
use crate::Decision;
use crate::exec::{self, RunOptions};
use crate::verdict::Approved;

/// The person's answer to an ask.
enum Answer {
    Once,
    Always,
    No,
}

fn prompt(verdict: &crate::Verdict, command: &str) -> Option<Answer> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let mut out = tty.try_clone().ok()?;
    let _ = write!(
        out,
        "shellgate: this command needs approval:\n  {}\n{}",
        render::one_line(command),
        render::verdict(verdict)
    );
    let _ = write!(
        out,
        "run it? [y] yes once / [a] always (adds the suggested rule) / [n] no: "
    );
    let _ = out.flush();
    let mut line = String::new();
    std::io::BufReader::new(tty).read_line(&mut line).ok()?;
    Some(match line.trim() {
        "y" | "Y" | "yes" => Answer::Once,
        "a" | "A" | "always" => Answer::Always,
        _ => Answer::No,
    })
}

/// Runs `run`.
pub fn run(args: &RunArgs) -> ExitCode {
    let loaded = match args.policy.load_or_report() {
        Ok(l) => l,
        Err(code) => return code,
    };
    let bytes = match required_command(&args.command, "run") {
        Ok(b) => b,
        Err(code) => return code,
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let verdict = crate::check_bytes(&bytes, &loaded.policy);
    if let Some(path) = &args.policy.audit
        && let Err(e) = audit::record(path, &text, &verdict, &loaded.layers)
    {
        eprintln!(
            "shellgate: refused: the audit log `{}` cannot be written: {e}",
            path.display()
        );
        return ExitCode::from(2);
    }
    let approved: Approved = match verdict.decision {
        Decision::Allow => match verdict.approve(&text) {
            Some(a) => a,
            None => return ExitCode::from(EXIT_INTERNAL),
        },
        Decision::Deny => {
            eprint!("shellgate: denied\n{}", render::verdict(&verdict));
            return ExitCode::from(2);
        }
        Decision::Ask => match prompt(&verdict, &text) {
            None => {
                eprint!(
                    "shellgate: this command needs approval and no terminal is attached\n{}",
                    render::verdict(&verdict)
                );
                return ExitCode::from(1);
            }
            Some(Answer::No) => {
                eprintln!("shellgate: not approved");
                return ExitCode::from(1);
            }
            Some(answer) => {
                if matches!(answer, Answer::Always) {
                    remember(&verdict, &text);
                }
                match verdict.approve_asked(&text) {
                    Some(a) => a,
                    None => return ExitCode::from(EXIT_INTERNAL),
                }
            }
        },
    };
    let workspace = args.policy.workspace();
    let mut opts = RunOptions::for_workspace(
        &workspace,
        loaded.policy.sandbox.as_ref(),
        args.no_sandbox,
        args.require_sandbox,
    );
    opts.timeout = args
        .timeout
        .filter(|t| *t > 0.0)
        .map(Duration::from_secs_f64);
    opts.pty = args.pty;
    opts.separate_streams = args.separate_streams;
    opts.window = args.window.max(64);
    if args.background {
        return super::jobs::start(&approved, &opts, args.json);
    }
    let program = RunOptions::reported_program(&verdict);
    match exec::run(&approved, program.as_deref(), &opts) {
        Ok(result) => {
            if let Some(path) = &args.policy.audit {
                let _ = audit::record_run(path, &result);
            }
            if args.json {
                let v = serde_json::json!({"verdict": verdict, "run": result});
                println!("{}", serde_json::to_string(&v).unwrap_or_default());
            } else {
                print!("{}", result.output.shown);
                if let Some(err) = &result.stderr {
                    eprint!("{}", err.shown);
                }
                if let Some(note) = &result.pty_fallback {
                    eprintln!("shellgate: warning: {note}");
                }
                if result.output.truncated
                    && let Some(a) = &result.output.artifact
                {
                    eprintln!(
                        "shellgate: output truncated ({} bytes, {} lines); all of it is in {}",
                        result.output.total_bytes,
                        result.output.total_lines,
                        a.display()
                    );
                }
                if let Some(m) = &result.meaning {
                    eprintln!(
                        "shellgate: exit {}: {m}",
                        result
                            .exit_code
                            .map_or_else(|| "-".into(), |c| c.to_string())
                    );
                }
            }
            let code = match (result.exit_code, result.signal, result.timed_out) {
                (_, _, true) => 124,
                (Some(c), _, _) => c,
                (None, Some(s), _) => 128 + s,
                _ => EXIT_INTERNAL.into(),
            };
            ExitCode::from(u8::try_from(code).unwrap_or(1))
        }
        Err(e) => {
            eprintln!("shellgate: not run: {e}");
            ExitCode::from(EXIT_INTERNAL)
        }
    }
}

/// "Always": appends the suggested rule to the user policy, atomically, keeping what is there.
fn remember(verdict: &crate::Verdict, command: &str) {
    let Some(pattern) = &verdict.suggestion else {
        eprintln!("shellgate: no rule can be suggested for this command; approved once");
        return;
    };
    let Some(path) = crate::policy::layers::user_policy_path() else {
        return;
    };
    match append_rule(&path, pattern, command) {
        Ok(()) => eprintln!("shellgate: added `{pattern}` to {}", path.display()),
        Err(e) => eprintln!(
            "shellgate: could not update {}: {e}; approved once",
            path.display()
        ),
    }
}

/// Appends a suggested rule to a policy file via a temporary file and a rename.
///
/// # Errors
/// I/O errors.
pub fn append_rule(path: &std::path::Path, pattern: &str, command: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut text = std::fs::read_to_string(path).unwrap_or_default();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let when = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    text.push_str(&format!(
        "\n# added by `shellgate run` (unix time {when}) for: {}\n",
        render::one_line(command)
    ));
    text.push_str(&crate::verdict::suggestion_toml(pattern));
    let tmp = path.with_extension(format!("toml.tmp{}", std::process::id()));
    std::fs::write(&tmp, &text)?;
    std::fs::rename(&tmp, path)
}
