//! PTY mode (portable-pty): the command gets a terminal; output arrives
//! through the same sink. The slave handle is dropped after spawning, or the
//! reader would never see EOF.

use std::time::Duration;

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

use super::process::{Ended, Shared, bash, hardened_env, pump, supervise};
use super::sandbox::{Enforcement, Requirement, SandboxSpec, run_restricted};
use super::{ExecError, RunOptions};

/// Runs `text` on a new PTY. `Err(ExecError::Pty)` means no PTY could be opened
/// (the caller falls back to pipes).
pub fn run(
    text: &str,
    opts: &RunOptions,
    spec: &SandboxSpec,
    req: Requirement,
    sink: Shared,
    started: &dyn Fn(i32),
) -> Result<(Ended, Enforcement), ExecError> {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 24,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .map_err(|e| ExecError::Pty(e.to_string()))?;
    let mut builder = CommandBuilder::new(bash());
    builder.args(["--noprofile", "--norc", "-c", text]);
    builder.cwd(&opts.cwd);
    builder.env_clear();
    for (k, v) in hardened_env(true) {
        builder.env(k, v);
    }
    let reader = pair
        .master
        .try_clone_reader()
        .map_err(|e| ExecError::Pty(e.to_string()))?;
    let slave = pair.slave;
    let (spawned, enforcement) = run_restricted(spec, req, move || {
        let child = slave.spawn_command(builder);
        drop(slave);
        child
    })?;
    let mut child = spawned.map_err(|e| ExecError::Pty(e.to_string()))?;
    let pid = child
        .process_id()
        .and_then(|p| i32::try_from(p).ok())
        .unwrap_or(0);
    started(pid);
    let master = pair.master;
    let pumping = pump(reader, sink);
    let ended = supervise(
        pid,
        move || {
            child.wait().ok().map(|s| Ended {
                code: i32::try_from(s.exit_code()).ok(),
                signal: s.signal().and_then(signal_number),
                timed_out: false,
            })
        },
        opts.timeout,
        opts.grace,
    );
    // The master must outlive the reader; drop it once the group is gone.
    let done = join_with_timeout(pumping, Duration::from_secs(2));
    drop(master);
    done?;
    Ok((ended, enforcement))
}

fn signal_number(name: &str) -> Option<i32> {
    let n = match name {
        "Hangup" => 1,
        "Interrupt" => 2,
        "Killed" => 9,
        "Terminated" => 15,
        _ => return None,
    };
    Some(n)
}

/// Joins a reader thread, giving up after `limit` (a process outside the group may hold the pipe).
pub fn join_with_timeout(
    h: std::thread::JoinHandle<Result<(), ExecError>>,
    limit: Duration,
) -> Result<(), ExecError> {
    let deadline = std::time::Instant::now() + limit;
    while !h.is_finished() {
        if std::time::Instant::now() >= deadline {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    h.join()
        .map_err(|_| ExecError::Io(std::io::Error::other("reader thread panicked")))?
}
