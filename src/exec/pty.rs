//! PTY mode: the command gets a terminal of its own (a fresh PTY, made its
//! controlling terminal in the child's new session); output arrives through
//! the same sink. The parent's copies of the slave are closed after spawning,
//! or the reader would never see the end.

use std::process::Stdio;
use std::time::Duration;

use nix::pty::{Winsize, openpty};

use super::enforcement::Enforcement;
use super::process::{Ended, Shared, Stdios, command, pump, supervise, wait_child};
use super::{ExecError, RunOptions, spawn};

/// Runs `text` on a new PTY. `Err(ExecError::Pty)` means no PTY could be opened
/// (the caller falls back to pipes).
pub fn run(
    text: &str,
    opts: &RunOptions,
    sink: Shared,
    started: &dyn Fn(i32),
) -> Result<(Ended, Enforcement), ExecError> {
    let size = Winsize {
        ws_row: 24,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = openpty(&size, None).map_err(|e| ExecError::Pty(e.to_string()))?;
    nix::fcntl::fcntl(
        &pty.master,
        nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
    )
    .map_err(|e| ExecError::Pty(e.to_string()))?;
    let slave_path = nix::unistd::ttyname(&pty.slave).map_err(|e| ExecError::Pty(e.to_string()))?;
    let dup = |fd: &std::os::fd::OwnedFd| fd.try_clone().map_err(|e| ExecError::Pty(e.to_string()));
    let stdio = Stdios {
        stdin: Stdio::from(dup(&pty.slave)?),
        stdout: Stdio::from(dup(&pty.slave)?),
        stderr: Stdio::from(pty.slave),
        pty: true,
    };
    let cmd = command(text, opts, stdio);
    let (child, enforcement) = spawn(cmd, opts, Some(&slave_path))?;
    let pid = i32::try_from(child.id()).unwrap_or(0);
    started(pid);
    let reader = std::fs::File::from(pty.master);
    let pumping = pump(reader, sink);
    let ended = supervise(pid, move || wait_child(child), opts.timeout, opts.grace);
    join_with_timeout(pumping, Duration::from_secs(2))?;
    Ok((ended, enforcement))
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
