//! Spawning: bash in a new process group, a hardened environment, output
//! through the sink, and a timeout that ends the whole group.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::spec::ENV_ALLOWED;
use super::{ExecError, RunOptions};
use crate::sink::{OutputSink, Sink};

/// The environment a command runs with: an allowlist of the caller's
/// variables ([`ENV_ALLOWED`], `LC_*`, and the policy's `[sandbox] env`
/// names), then the hardening variables. Everything else — tokens, agent
/// sockets, `LD_*`, `NODE_OPTIONS` … — is dropped.
pub fn hardened_env(pty: bool, extra: &[String]) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| {
            ENV_ALLOWED.contains(&k.as_str())
                || k.starts_with("LC_")
                || extra.iter().any(|e| e == k)
        })
        .collect();
    let set: &[(&str, &str)] = &[
        ("PAGER", "cat"),
        ("GIT_PAGER", "cat"),
        ("MANPAGER", "cat"),
        ("SYSTEMD_PAGER", ""),
        ("EDITOR", "true"),
        ("VISUAL", "true"),
        ("GIT_EDITOR", "true"),
        ("GIT_SEQUENCE_EDITOR", "true"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_ASKPASS", "true"),
        ("SSH_ASKPASS", "true"),
        ("DEBIAN_FRONTEND", "noninteractive"),
        ("PIP_NO_INPUT", "1"),
        ("CI", "1"),
        // A repository's own config must not run code on plain `git status`.
        ("GIT_CONFIG_COUNT", "2"),
        ("GIT_CONFIG_KEY_0", "core.fsmonitor"),
        ("GIT_CONFIG_VALUE_0", "false"),
        ("GIT_CONFIG_KEY_1", "protocol.ext.allow"),
        ("GIT_CONFIG_VALUE_1", "never"),
        ("TERM", if pty { "xterm-256color" } else { "dumb" }),
    ];
    for (k, v) in set {
        env.retain(|(key, _)| key != k);
        env.push(((*k).to_owned(), (*v).to_owned()));
    }
    env
}

/// The shell: `/bin/bash` when present.
pub fn bash() -> &'static str {
    if std::path::Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "bash"
    }
}

/// How the process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ended {
    /// Exit code, when it exited.
    pub code: Option<i32>,
    /// Signal, when one ended it.
    pub signal: Option<i32>,
    /// The timeout fired.
    pub timed_out: bool,
}

/// Output state shared with the reader thread (so it can be salvaged if a
/// process outside the group keeps the pipe open).
pub type Shared = Arc<Mutex<Option<OutputSink>>>;

/// Builds the bash command for `text` (not yet spawned): pipes with stdin
/// `/dev/null`, or, with `pty`, the PTY slave on all three descriptors.
pub fn command(text: &str, opts: &RunOptions, stdio: Stdios) -> Command {
    let mut cmd = Command::new(bash());
    cmd.args(["--noprofile", "--norc", "-c", text])
        .current_dir(&opts.cwd)
        .env_clear()
        .envs(hardened_env(stdio.pty, &opts.sandbox.env))
        .stdin(stdio.stdin)
        .stdout(stdio.stdout)
        .stderr(stdio.stderr);
    if !stdio.pty && opts.requirement == super::sandbox::Requirement::Off {
        // Unsandboxed: still a process group of its own, so the timeout ends it
        // (a sandboxed or PTY child makes its own session instead).
        cmd.process_group(0);
    }
    cmd
}

/// The command's standard descriptors, and whether they are a PTY.
pub struct Stdios {
    /// Standard input.
    pub stdin: Stdio,
    /// Standard output.
    pub stdout: Stdio,
    /// Standard error.
    pub stderr: Stdio,
    /// The three are a PTY slave.
    pub pty: bool,
}

/// Copies a pipe into a shared sink until EOF.
pub fn pump(
    mut from: impl Read + Send + 'static,
    to: Shared,
) -> std::thread::JoinHandle<Result<(), ExecError>> {
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                // EIO is how a PTY master reports that the other side closed.
                Err(e) if e.raw_os_error() == Some(5) => return Ok(()),
                Err(e) => return Err(ExecError::Io(e)),
            };
            let mut guard = to
                .lock()
                .map_err(|_| ExecError::Io(std::io::Error::other("sink lock poisoned")))?;
            if let Some(sink) = guard.as_mut() {
                sink.write(buf.get(..n).unwrap_or_default())
                    .map_err(ExecError::Sink)?;
            }
        }
    })
}

/// Waits for the leader with a timeout, then makes sure nothing of its group survives.
pub fn supervise(
    pgid: i32,
    wait: impl FnOnce() -> Option<Ended> + Send + 'static,
    timeout: Option<Duration>,
    grace: Duration,
) -> Ended {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(wait());
    });
    let first = match timeout {
        Some(t) => rx.recv_timeout(t).ok(),
        None => rx.recv().ok(),
    };
    let group = Pid::from_raw(pgid);
    let ended = match first {
        Some(e) => e,
        None => {
            let _ = killpg(group, Signal::SIGTERM);
            let e = rx.recv_timeout(grace).ok().flatten().or_else(|| {
                let _ = killpg(group, Signal::SIGKILL);
                rx.recv_timeout(Duration::from_secs(5)).ok().flatten()
            });
            let e = e.unwrap_or(Ended {
                code: None,
                signal: Some(9),
                timed_out: true,
            });
            return end_group(
                group,
                grace,
                Ended {
                    timed_out: true,
                    ..e
                },
            );
        }
    };
    end_group(
        group,
        grace,
        ended.unwrap_or(Ended {
            code: None,
            signal: None,
            timed_out: false,
        }),
    )
}

/// After the leader is gone: SIGTERM what is left of the group, then SIGKILL after the grace period.
fn end_group(group: Pid, grace: Duration, ended: Ended) -> Ended {
    if killpg(group, None).is_err() {
        return ended;
    }
    let _ = killpg(group, Signal::SIGTERM);
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        if killpg(group, None).is_err() {
            return ended;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = killpg(group, Signal::SIGKILL);
    ended
}

/// How a `std` child ended.
pub fn wait_child(mut child: Child) -> Option<Ended> {
    use std::os::unix::process::ExitStatusExt;
    child.wait().ok().map(|s| Ended {
        code: s.code(),
        signal: s.signal(),
        timed_out: false,
    })
}
