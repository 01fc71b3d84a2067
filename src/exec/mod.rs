//! Exec: run an approved command in the sandbox, with pipes or a PTY, through
//! one output sink.
//!
//! In: an [`Approved`] command (only a verdict can make one) and
//! [`RunOptions`]. Out: a [`RunResult`] — exit status and its meaning, the
//! bounded output with counts and the artifact path, what the sandbox
//! enforced. Trusts the verdict; enforces the sandbox regardless of it.

pub mod enforcement;
pub mod files;
pub mod jobs;
pub mod meaning;
pub mod process;
pub mod pty;
pub mod sandbox;
pub mod seccomp;
pub mod spec;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::sink::{OutputSink, SinkError, SinkOutput};
use crate::verdict::Approved;
pub use enforcement::Enforcement;
use process::{Ended, Stdios, command, supervise, wait_child};
use sandbox::Requirement;
pub use spec::SandboxSpec;

/// Why a command could not be run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// The working directory is missing or not a directory.
    #[error("working directory `{0}` does not exist or is not a directory")]
    Cwd(PathBuf),
    /// The sandbox could not be applied as required.
    #[error("sandbox: {0}")]
    Sandbox(String),
    /// The process could not be started.
    #[error("cannot start bash: {0}")]
    Spawn(std::io::Error),
    /// No PTY could be opened.
    #[error("cannot open a PTY: {0}")]
    Pty(String),
    /// A job id or job record was refused.
    #[error("job: {0}")]
    Job(String),
    /// Reading output failed.
    #[error("i/o: {0}")]
    Io(std::io::Error),
    /// The output sink failed.
    #[error(transparent)]
    Sink(#[from] SinkError),
}

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Working directory (must exist).
    pub cwd: PathBuf,
    /// Ends the whole group after this long.
    pub timeout: Option<Duration>,
    /// Between SIGTERM and SIGKILL.
    pub grace: Duration,
    /// Give the command a terminal.
    pub pty: bool,
    /// Keep stdout and stderr apart (default: merged in arrival order).
    pub separate_streams: bool,
    /// Output window in bytes.
    pub window: usize,
    /// Where artifacts go.
    pub spill_dir: PathBuf,
    /// The sandbox.
    pub sandbox: SandboxSpec,
    /// How strict about the sandbox.
    pub requirement: Requirement,
    /// Write the output here from the first byte (background jobs) instead of spilling on overflow.
    pub artifact: Option<PathBuf>,
    /// Write the command's process-group id here once it has started (background jobs).
    pub pgid_file: Option<PathBuf>,
}

impl RunOptions {
    /// The usual options for a workspace: its sandbox from the policy's
    /// `[sandbox]` table, output spilled to the temp dir, a 2 s grace period.
    pub fn for_workspace(
        workspace: &std::path::Path,
        policy: Option<&crate::policy::Sandbox>,
        no_sandbox: bool,
        require: bool,
    ) -> RunOptions {
        let requirement = if no_sandbox {
            Requirement::Off
        } else if require || policy.is_some_and(|s| s.require) {
            Requirement::Full
        } else {
            Requirement::Some
        };
        RunOptions {
            cwd: workspace.to_path_buf(),
            timeout: None,
            grace: Duration::from_secs(2),
            pty: false,
            separate_streams: false,
            window: crate::sink::DEFAULT_WINDOW,
            spill_dir: files::artifacts_dir(),
            sandbox: SandboxSpec::for_workspace(workspace, policy),
            requirement,
            artifact: None,
            pgid_file: None,
        }
    }

    /// The program whose exit status the command reports (its last top-level program).
    pub fn reported_program(verdict: &crate::Verdict) -> Option<String> {
        verdict
            .commands
            .iter()
            .rev()
            .find(|c| c.via.is_none())
            .and_then(|c| c.argv.first())
            .cloned()
    }
}

/// What happened.
#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    /// The command text that ran (the canonical form when there is one).
    pub command: String,
    /// Exit code, when the process exited.
    pub exit_code: Option<i32>,
    /// Signal that ended it.
    pub signal: Option<i32>,
    /// What the exit code means for this program.
    pub meaning: Option<String>,
    /// The timeout ended it.
    pub timed_out: bool,
    /// Wall time.
    pub duration_ms: u64,
    /// Output (merged, or stdout when separate).
    pub output: SinkOutput,
    /// stderr when kept apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<SinkOutput>,
    /// What the kernel enforced.
    pub sandbox: Enforcement,
    /// Ran on a PTY.
    pub pty: bool,
    /// Why PTY mode fell back to pipes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pty_fallback: Option<String>,
    /// Peak resident memory of this shellgate process, in KiB (Linux `VmHWM`).
    pub peak_rss_kib: Option<u64>,
}

/// This process's peak resident set size (`VmHWM` in `/proc/self/status`).
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn artifact_name(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("shellgate-{}-{nanos}-{tag}.out", std::process::id())
}

fn shared(opts: &RunOptions, tag: &str) -> Result<process::Shared, ExecError> {
    let sink = match (&opts.artifact, tag) {
        (Some(path), "out") => OutputSink::always_spill(opts.window, path)?,
        _ => OutputSink::new(opts.window, &opts.spill_dir, &artifact_name(tag)),
    };
    Ok(Arc::new(Mutex::new(Some(sink))))
}

fn note_pgid(opts: &RunOptions, pgid: i32) {
    if let Some(f) = &opts.pgid_file {
        jobs::record_pgid(f, pgid);
    }
}

fn take(s: &process::Shared) -> Result<SinkOutput, ExecError> {
    let sink = s
        .lock()
        .map_err(|_| ExecError::Io(std::io::Error::other("sink lock poisoned")))?
        .take();
    match sink {
        Some(sink) => Ok(sink.finish()?),
        None => Err(ExecError::Io(std::io::Error::other("output already taken"))),
    }
}

/// Runs an approved command.
///
/// # Errors
/// [`ExecError`] when it cannot start (working directory, sandbox, spawn) or its output cannot be kept.
pub fn run(
    approved: &Approved,
    program: Option<&str>,
    opts: &RunOptions,
) -> Result<RunResult, ExecError> {
    if !opts.cwd.is_dir() {
        return Err(ExecError::Cwd(opts.cwd.clone()));
    }
    let text = approved.command().to_owned();
    let start = Instant::now();
    let out = shared(opts, "out")?;
    let mut pty_fallback = None;
    if opts.pty {
        match pty::run(&text, opts, out.clone(), &|pgid| note_pgid(opts, pgid)) {
            Ok((ended, sandbox)) => {
                return finish(text, program, start, ended, out, None, sandbox, true, None);
            }
            Err(ExecError::Pty(why)) => {
                pty_fallback = Some(format!("no PTY ({why}); ran with pipes"))
            }
            Err(e) => return Err(e),
        }
    }
    let err_sink = if opts.separate_streams {
        Some(shared(opts, "err")?)
    } else {
        None
    };
    let (out_reader, out_writer) = std::io::pipe().map_err(ExecError::Io)?;
    let (stderr_stdio, err_reader) = match &err_sink {
        Some(_) => {
            let (r, w) = std::io::pipe().map_err(ExecError::Io)?;
            (Stdio::from(w), Some(r))
        }
        None => (
            Stdio::from(out_writer.try_clone().map_err(ExecError::Io)?),
            None,
        ),
    };
    let stdio = Stdios {
        stdin: Stdio::null(),
        stdout: Stdio::from(out_writer),
        stderr: stderr_stdio,
        pty: false,
    };
    let cmd = command(&text, opts, stdio);
    // `cmd` is dropped inside, closing the parent's copies of the write ends.
    let (child, sandbox) = spawn(cmd, opts, None)?;
    let pgid = i32::try_from(child.id()).unwrap_or(0);
    note_pgid(opts, pgid);
    let pump_out = process::pump(out_reader, out.clone());
    let pump_err = match (err_reader, &err_sink) {
        (Some(r), Some(s)) => Some(process::pump(r, s.clone())),
        _ => None,
    };
    let ended = supervise(pgid, move || wait_child(child), opts.timeout, opts.grace);
    pty::join_with_timeout(pump_out, Duration::from_secs(2))?;
    if let Some(p) = pump_err {
        pty::join_with_timeout(p, Duration::from_secs(2))?;
    }
    finish(
        text,
        program,
        start,
        ended,
        out,
        err_sink,
        sandbox,
        false,
        pty_fallback,
    )
}

/// Spawns `cmd` in the sandbox `opts` asks for (the restrictions are applied
/// in the child; see [`sandbox`]); returns the child and what was enforced.
///
/// # Errors
/// [`ExecError`] when the sandbox cannot be prepared or the child refused to
/// start (a required protection missing, a setup step failed).
pub fn spawn(
    mut cmd: Command,
    opts: &RunOptions,
    pty: Option<&std::path::Path>,
) -> Result<(Child, Enforcement), ExecError> {
    if opts.requirement == Requirement::Off {
        if pty.is_some() {
            sandbox::session_only(&mut cmd);
        }
        let child = cmd.spawn().map_err(ExecError::Spawn)?;
        return Ok((child, Enforcement::disabled()));
    }
    let prepared = sandbox::prepare(&opts.sandbox, opts.requirement, &opts.cwd, pty)?;
    prepared.apply(&mut cmd);
    let spawned = cmd.spawn();
    drop(cmd);
    prepared.finish(spawned)
}

#[expect(
    clippy::too_many_arguments,
    reason = "assembles the result from every part of a run"
)]
fn finish(
    command: String,
    program: Option<&str>,
    start: Instant,
    ended: Ended,
    out: process::Shared,
    err: Option<process::Shared>,
    sandbox: Enforcement,
    pty: bool,
    pty_fallback: Option<String>,
) -> Result<RunResult, ExecError> {
    let meaning = match (ended.code, ended.signal, ended.timed_out) {
        (_, _, true) => Some("timed out: the whole process group was ended".to_owned()),
        (Some(c), _, _) => meaning::exit_meaning(program, c),
        (None, Some(s), _) => Some(format!("killed by signal {s}")),
        _ => None,
    };
    Ok(RunResult {
        command,
        exit_code: ended.code,
        signal: ended.signal,
        meaning,
        timed_out: ended.timed_out,
        duration_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
        output: take(&out)?,
        stderr: err.as_ref().map(take).transpose()?,
        sandbox,
        pty,
        pty_fallback,
        peak_rss_kib: peak_rss_kib(),
    })
}
