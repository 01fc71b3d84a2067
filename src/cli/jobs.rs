//! `shellgate run --background` and `shellgate jobs`: printing over
//! [`crate::exec::jobs`].

use std::process::ExitCode;

use super::args::{JobsAction, JobsArgs};
use crate::exec::RunOptions;
use crate::exec::jobs::{self, Killed};
use crate::verdict::Approved;

/// Starts a background job: a detached `shellgate jobs supervise ID`.
pub fn start(approved: &Approved, opts: &RunOptions, json: bool) -> ExitCode {
    match jobs::start(approved.command(), opts) {
        Ok((id, dir)) => {
            if json {
                println!(
                    "{}",
                    serde_json::json!({"job": id, "dir": dir, "output": dir.join("output")})
                );
            } else {
                println!("{id}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("shellgate: cannot start the job: {e}");
            ExitCode::from(super::EXIT_INTERNAL)
        }
    }
}

/// Runs `jobs`.
pub fn run(args: &JobsArgs) -> ExitCode {
    match &args.action {
        None | Some(JobsAction::List) => list(),
        Some(JobsAction::Output { id, tail }) => output(id, *tail),
        Some(JobsAction::Kill { id }) => kill(id),
        Some(JobsAction::Supervise { id }) => match jobs::supervise(id) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("shellgate: {e}");
                ExitCode::from(super::EXIT_INTERNAL)
            }
        },
    }
}

fn list() -> ExitCode {
    for id in jobs::list() {
        let state = match jobs::status(&id) {
            Some(s) => match (s.exit_code, s.timed_out, &s.error) {
                (_, _, Some(e)) => format!("failed: {e}"),
                (_, true, _) => "timed out".to_owned(),
                (Some(c), _, _) => format!("exited {c}"),
                (None, _, _) => format!("killed by signal {}", s.signal.unwrap_or(0)),
            },
            None => "running".to_owned(),
        };
        println!(
            "{id}  {state:18}  {}",
            super::render::one_line(&jobs::command(&id))
        );
    }
    ExitCode::SUCCESS
}

fn output(id: &str, tail: u64) -> ExitCode {
    use std::io::Write;
    match jobs::output(id, tail) {
        Ok(bytes) => {
            let _ = std::io::stdout().write_all(&bytes);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("shellgate: {e}");
            ExitCode::from(1)
        }
    }
}

fn kill(id: &str) -> ExitCode {
    match jobs::kill(id) {
        Ok(Killed::AlreadyFinished) => {
            println!("job {id} had already finished; nothing was signalled");
            ExitCode::SUCCESS
        }
        Ok(Killed::Ended) => {
            println!("ended job {id}");
            ExitCode::SUCCESS
        }
        Ok(Killed::Killed) => {
            println!("killed job {id}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("shellgate: {e}");
            ExitCode::from(1)
        }
    }
}
