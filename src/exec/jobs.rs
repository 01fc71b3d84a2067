//! Background jobs: a detached supervisor process runs the command; its
//! output goes to the job's artifact from the first byte, its status to a file.
//!
//! Layout: `$SHELLGATE_JOBS_DIR` (default `$XDG_STATE_HOME/shellgate/jobs`,
//! or `~/.local/state/shellgate/jobs`) / ID / `command`, `options.json`,
//! `output`, `pgid`, `status.json`.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::sandbox::{Requirement, SandboxSpec};
use super::{ExecError, RunOptions};

/// The jobs directory.
pub fn jobs_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SHELLGATE_JOBS_DIR") {
        return PathBuf::from(d);
    }
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .unwrap_or_else(std::env::temp_dir);
    state.join("shellgate").join("jobs")
}

/// What a job needs to run, as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JobOptions {
    /// Working directory.
    pub cwd: PathBuf,
    /// Timeout in seconds.
    pub timeout: Option<f64>,
    /// PTY mode.
    pub pty: bool,
    /// Read-only roots.
    pub read_only: Vec<PathBuf>,
    /// Read-write roots.
    pub read_write: Vec<PathBuf>,
    /// Network allowed.
    pub network: bool,
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
            error: Some(error),
        }
    }
}

impl JobOptions {
    /// From run options.
    pub fn from_run(o: &RunOptions) -> JobOptions {
        JobOptions {
            cwd: o.cwd.clone(),
            timeout: o.timeout.map(|t| t.as_secs_f64()),
            pty: o.pty,
            read_only: o.sandbox.read_only.clone(),
            read_write: o.sandbox.read_write.clone(),
            network: o.sandbox.network,
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
    pub fn to_run(&self, dir: &std::path::Path) -> RunOptions {
        RunOptions {
            cwd: self.cwd.clone(),
            timeout: self.timeout.map(Duration::from_secs_f64),
            grace: Duration::from_secs(2),
            pty: self.pty,
            separate_streams: false,
            window: self.window,
            spill_dir: dir.to_path_buf(),
            sandbox: SandboxSpec {
                read_only: self.read_only.clone(),
                read_write: self.read_write.clone(),
                network: self.network,
            },
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

/// Creates a job directory holding the approved command and its options; returns its id.
///
/// # Errors
/// I/O errors.
pub fn create(command: &str, opts: &RunOptions) -> Result<(String, PathBuf), ExecError> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let id = format!("{}-{}", nanos / 1_000_000, std::process::id());
    let dir = jobs_dir().join(&id);
    std::fs::create_dir_all(&dir).map_err(ExecError::Io)?;
    std::fs::write(dir.join("command"), command).map_err(ExecError::Io)?;
    let options =
        serde_json::to_vec(&JobOptions::from_run(opts)).map_err(|e| ExecError::Io(e.into()))?;
    std::fs::write(dir.join("options.json"), options).map_err(ExecError::Io)?;
    Ok((id, dir))
}
