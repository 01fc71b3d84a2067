//! `shellgate run --background` and `shellgate jobs`.

use std::process::{ExitCode, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::args::{JobsAction, JobsArgs};
use crate::exec::jobs::{JobOptions, JobStatus, create, jobs_dir};
use crate::exec::{self, RunOptions};
use crate::verdict::Approved;

/// Starts a background job: a detached `shellgate jobs supervise ID`.
pub fn start(approved: &Approved, opts: &RunOptions, json: bool) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let (id, dir) = match create(approved.command(), opts) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("shellgate: cannot create the job: {e}");
            return ExitCode::from(super::EXIT_INTERNAL);
        }
    };
    let exe = std::env::current_exe().unwrap_or_else(|_| "shellgate".into());
    let spawned = std::process::Command::new(exe)
        .args(["jobs", "supervise", &id])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
    match spawned {
        Ok(_) => {
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
            eprintln!("shellgate: cannot start the job supervisor: {e}");
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
        Some(JobsAction::Supervise { id }) => supervise(id),
    }
}

fn read_status(id: &str) -> Option<JobStatus> {
    let text = std::fs::read(jobs_dir().join(id).join("status.json")).ok()?;
    serde_json::from_slice(&text).ok()
}

fn list() -> ExitCode {
    let mut ids: Vec<String> = std::fs::read_dir(jobs_dir())
        .map(|r| {
            r.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    for id in ids {
        let dir = jobs_dir().join(&id);
        let command = std::fs::read_to_string(dir.join("command")).unwrap_or_default();
        let state = match read_status(&id) {
            Some(s) => match (s.exit_code, s.timed_out, &s.error) {
                (_, _, Some(e)) => format!("failed: {e}"),
                (_, true, _) => "timed out".to_owned(),
                (Some(c), _, _) => format!("exited {c}"),
                (None, _, _) => format!("killed by signal {}", s.signal.unwrap_or(0)),
            },
            None => "running".to_owned(),
        };
        println!("{id}  {state:18}  {}", super::render::one_line(&command));
    }
    ExitCode::SUCCESS
}

fn output(id: &str, tail: u64) -> ExitCode {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(jobs_dir().join(id).join("output")) else {
        eprintln!("shellgate: no job `{id}`");
        return ExitCode::from(1);
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = f.seek(SeekFrom::Start(len.saturating_sub(tail)));
    let mut buf = Vec::new();
    let _ = f.read_to_end(&mut buf);
    print!("{}", String::from_utf8_lossy(&buf));
    ExitCode::SUCCESS
}

fn kill(id: &str) -> ExitCode {
    let Some(pgid) = std::fs::read_to_string(jobs_dir().join(id).join("pgid"))
        .ok()
        .and_then(|s| s.trim().parse::<i32>().ok())
    else {
        eprintln!("shellgate: job `{id}` has no process group (not started, or unknown)");
        return ExitCode::from(1);
    };
    let group = Pid::from_raw(pgid);
    let _ = killpg(group, Signal::SIGTERM);
    for _ in 0..100 {
        if killpg(group, None).is_err() {
            println!("ended job {id}");
            return ExitCode::SUCCESS;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = killpg(group, Signal::SIGKILL);
    println!("killed job {id}");
    ExitCode::SUCCESS
}

fn supervise(id: &str) -> ExitCode {
    let dir = jobs_dir().join(id);
    let command = std::fs::read_to_string(dir.join("command")).unwrap_or_default();
    let opts: Option<JobOptions> = std::fs::read(dir.join("options.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let status = match opts {
        None => JobStatus::failed("unreadable job options".into()),
        Some(o) => {
            let approved = crate::verdict::Approved::for_job(command);
            match exec::run(&approved, None, &o.to_run(&dir)) {
                Ok(r) => JobStatus {
                    exit_code: r.exit_code,
                    signal: r.signal,
                    timed_out: r.timed_out,
                    duration_ms: r.duration_ms,
                    total_bytes: r.output.total_bytes,
                    meaning: r.meaning,
                    error: None,
                },
                Err(e) => JobStatus::failed(e.to_string()),
            }
        }
    };
    let _ = std::fs::write(
        dir.join("status.json"),
        serde_json::to_vec(&status).unwrap_or_default(),
    );
    ExitCode::SUCCESS
}
