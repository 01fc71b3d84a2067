//! Background jobs: a detached supervisor process runs the command; its
//! output goes to the job's artifact from the first byte, its status to a file.
//!
//! Layout: `$SHELLGATE_JOBS_DIR` (default: the `jobs` directory of
//! [`files::state_dir`]) / ID / `command` (for display), `output`, `pgid`,
//! `status.json` — every file created `O_EXCL | O_NOFOLLOW`, mode 0600, in
//! 0700 directories outside every writable root.
//!
//! The supervisor takes the command and its options from its standard input,
//! written by the process that judged it — never from the job directory, so
//! nothing a command can write changes what a queued job runs. A job id is
//! `MILLIS-PID`, checked before it comes near a path. A finished job is never
//! signalled, and a running one only after its process's start time matches
//! the one recorded (a reused process-group id is left alone).

use std::io::{Read, Write};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};

use super::files::{self, open_private, private_dir, valid_job_id, write_private};
use super::sandbox::{Requirement, SandboxSpec};
use super::{ExecError, RunOptions};

/// The jobs directory.
pub fn jobs_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SHELLGATE_JOBS_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    files::state_dir().join("jobs")
}

/// A job's directory, for a valid id only.
///
/// # Errors
/// [`ExecError::Job`] for an id shellgate did not make.
pub fn job_dir(id: &str) -> Result<PathBuf, ExecError> {
    if !valid_job_id(id) {
        return Err(ExecError::Job(format!(
            "`{id}` is not a job id (expected MILLIS-PID)"
        )));
    }
    Ok(jobs_dir().join(id))
}

/// What a job needs to run, as handed to its supervisor.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JobSpec {
    /// The approved command text.
    pub command: String,
    /// Working directory.
    pub cwd: PathBuf,
    /// Timeout in seconds.
    pub timeout: Option<f64>,
    /// PTY mode.
    pub pty: bool,
    /// The resolved sandbox.
    pub sandbox: SandboxSpec,
    /// `full`, `some` or `off`.
    pub requirement: String,
    /// Output window.
    pub window: usize,
}

/// A finished job's status.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JobStatus {
    /// Exit code.
    pub exit_code: Option<i32>,
    /// Signal.
    pub signal: Option<i32>,
    /// Timed out.
    pub timed_out: bool,
    /// Wall time.
    pub duration_ms: u64,
    /// Output size.
    pub total_bytes: u64,
    /// What the exit code means.
    pub meaning: Option<String>,
    /// What the sandbox enforced (`full`, `partial`, `disabled`).
    #[serde(default)]
    pub sandbox: Option<String>,
    /// Why it could not run, if it could not.
    pub error: Option<String>,
}

impl JobStatus {
    /// A job that could not run.
    pub fn failed(error: String) -> JobStatus {
        JobStatus {
            exit_code: None,
            signal: None,
            timed_out: false,
            duration_ms: 0,
            total_bytes: 0,
            meaning: None,
            sandbox: None,
            error: Some(error),
        }
    }
}

impl JobSpec {
    /// From an approved command and its run options.
    pub fn new(command: &str, o: &RunOptions) -> JobSpec {
        JobSpec {
            command: command.to_owned(),
            cwd: o.cwd.clone(),
            timeout: o.timeout.map(|t| t.as_secs_f64()),
            pty: o.pty,
            sandbox: o.sandbox.clone(),
            requirement: match o.requirement {
                Requirement::Full => "full",
                Requirement::Some => "some",
                Requirement::Off => "off",
            }
            .into(),
            window: o.window,
        }
    }

    /// Back to run options for the job `dir`.
    pub fn to_run(&self, dir: &Path) -> RunOptions {
        RunOptions {
            cwd: self.cwd.clone(),
            timeout: self
                .timeout
                .filter(|t| t.is_finite() && *t > 0.0)
                .map(|t| Duration::from_secs_f64(t.min(1e9))),
            grace: Duration::from_secs(2),
            pty: self.pty,
            separate_streams: false,
            window: self.window,
            spill_dir: dir.to_path_buf(),
            sandbox: self.sandbox.clone(),
            requirement: match self.requirement.as_str() {
                "full" => Requirement::Full,
                "off" => Requirement::Off,
                _ => Requirement::Some,
            },
            artifact: Some(dir.join("output")),
            pgid_file: Some(dir.join("pgid")),
        }
    }
}

/// Starts a job: its directory, then a detached `shellgate jobs supervise ID`
/// that reads the spec from its standard input. Returns the id and directory.
///
/// # Errors
/// When the directory or the supervisor cannot be created.
pub fn start(command: &str, opts: &RunOptions) -> Result<(String, PathBuf), ExecError> {
    use std::os::unix::process::CommandExt;
    let root = jobs_dir();
    private_dir(&root).map_err(ExecError::Io)?;
    files::prune(&root, |d| d.join("status.json").exists());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let id = format!("{}-{}", nanos / 1_000_000, std::process::id());
    let dir = job_dir(&id)?;
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(ExecError::Io)?;
    write_private(&dir.join("command"), command.as_bytes()).map_err(ExecError::Io)?;
    let spec =
        serde_json::to_vec(&JobSpec::new(command, opts)).map_err(|e| ExecError::Io(e.into()))?;
    let exe = std::env::current_exe().map_err(ExecError::Io)?;
    let mut child = std::process::Command::new(exe)
        .args(["jobs", "supervise", &id])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(ExecError::Spawn)?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(&spec).map_err(ExecError::Io)?;
    }
    // The supervisor outlives this process; reap it if we are still here.
    std::thread::spawn(move || child.wait());
    Ok((id, dir))
}

/// The supervisor: reads the spec from stdin, runs it, records the status.
///
/// # Errors
/// For an invalid id or when the status cannot be written.
pub fn supervise(id: &str) -> Result<(), ExecError> {
    let dir = job_dir(id)?;
    let mut input = Vec::new();
    let read = std::io::stdin().read_to_end(&mut input);
    let spec: Result<JobSpec, String> = match read {
        Ok(_) => serde_json::from_slice(&input).map_err(|e| format!("unreadable job spec: {e}")),
        Err(e) => Err(format!("cannot read the job spec: {e}")),
    };
    let status = match spec {
        Err(e) => JobStatus::failed(e),
        Ok(spec) => {
            let approved = crate::verdict::Approved::for_job(spec.command.clone());
            match super::run(&approved, None, &spec.to_run(&dir)) {
                Ok(r) => JobStatus {
                    exit_code: r.exit_code,
                    signal: r.signal,
                    timed_out: r.timed_out,
                    duration_ms: r.duration_ms,
                    total_bytes: r.output.total_bytes,
                    meaning: r.meaning,
                    sandbox: Some(r.sandbox.status),
                    error: None,
                },
                Err(e) => JobStatus::failed(e.to_string()),
            }
        }
    };
    let body = serde_json::to_vec(&status).map_err(|e| ExecError::Io(e.into()))?;
    write_private(&dir.join("status.json"), &body).map_err(ExecError::Io)
}

/// A job's status, when it has finished.
pub fn status(id: &str) -> Option<JobStatus> {
    let mut f = open_private(&job_dir(id).ok()?.join("status.json")).ok()?;
    let mut text = Vec::new();
    f.read_to_end(&mut text).ok()?;
    serde_json::from_slice(&text).ok()
}

/// The ids of every job, oldest first (finished ones past the TTL pruned).
pub fn list() -> Vec<String> {
    let root = jobs_dir();
    files::prune(&root, |d| d.join("status.json").exists());
    let mut ids: Vec<String> = std::fs::read_dir(&root)
        .map(|r| {
            r.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|id| valid_job_id(id))
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids
}

/// The command a job runs (as recorded for display).
pub fn command(id: &str) -> String {
    read_small(id, "command").unwrap_or_default()
}

fn read_small(id: &str, name: &str) -> Option<String> {
    let mut f = open_private(&job_dir(id).ok()?.join(name)).ok()?;
    let mut s = String::new();
    f.read_to_string(&mut s).ok()?;
    Some(s)
}

/// The last `tail` bytes of a job's output.
///
/// # Errors
/// For an invalid or unknown id.
pub fn output(id: &str, tail: u64) -> Result<Vec<u8>, ExecError> {
    use std::io::{Seek, SeekFrom};
    let path = job_dir(id)?.join("output");
    let mut f = open_private(&path).map_err(|_| ExecError::Job(format!("no job `{id}`")))?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    f.seek(SeekFrom::Start(len.saturating_sub(tail)))
        .map_err(ExecError::Io)?;
    let mut buf = Vec::new();
    f.read_to_end(&mut buf).map_err(ExecError::Io)?;
    Ok(buf)
}

/// Records the job's process group with its start time.
pub fn record_pgid(path: &Path, pgid: i32) {
    let start = start_time(pgid).unwrap_or_default();
    let _ = write_private(path, format!("{pgid} {start}").as_bytes());
}

/// Field 22 of `/proc/PID/stat`: the start time in clock ticks since boot.
fn start_time(pid: i32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    after.split_whitespace().nth(19).map(str::to_owned)
}

/// How a kill request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Killed {
    /// It had already finished: nothing was signalled.
    AlreadyFinished,
    /// It ended on SIGTERM.
    Ended,
    /// It needed SIGKILL.
    Killed,
}

/// Ends a running job (SIGTERM, then SIGKILL after two seconds).
///
/// # Errors
/// For an invalid or unknown id, or a job whose process is not the one recorded.
pub fn kill(id: &str) -> Result<Killed, ExecError> {
    let dir = job_dir(id)?;
    if dir.join("status.json").exists() {
        return Ok(Killed::AlreadyFinished);
    }
    let recorded = read_small(id, "pgid")
        .ok_or_else(|| ExecError::Job(format!("job `{id}` has not started (or is unknown)")))?;
    let mut parts = recorded.split_whitespace();
    let pgid: i32 = parts
        .next()
        .and_then(|p| p.parse().ok())
        .filter(|p| *p > 1)
        .ok_or_else(|| ExecError::Job(format!("job `{id}` has a malformed pgid record")))?;
    let started = parts.next().unwrap_or_default();
    if started.is_empty() || start_time(pgid).as_deref() != Some(started) {
        return Ok(Killed::AlreadyFinished);
    }
    let group = Pid::from_raw(pgid);
    let _ = killpg(group, Signal::SIGTERM);
    for _ in 0..100 {
        if killpg(group, None).is_err() {
            return Ok(Killed::Ended);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if start_time(pgid).as_deref() == Some(started) {
        let _ = killpg(group, Signal::SIGKILL);
    }
    Ok(Killed::Killed)
}
