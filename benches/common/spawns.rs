//! The spawns the executor benchmarks compare, shared by `benches/exec.rs`
//! and `examples/spawn_ratio.rs`.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use shellgate::exec::RunOptions;

/// `/bin/true` with no input or output, in its own process group (as the executor runs bash).
pub fn true_cmd() -> Command {
    let mut c = Command::new("/bin/true");
    c.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    c
}

/// Run options for a sandboxed spawn in the temp dir (the embedded defaults).
pub fn sandboxed_opts() -> RunOptions {
    let ws = std::env::temp_dir();
    RunOptions::for_workspace(&ws, None, false, false)
}

/// Spawns `/bin/true` in the sandbox (namespaces, landlock, seccomp, all in the child) and waits.
pub fn sandboxed(opts: &RunOptions) {
    let mut c = Command::new("/bin/true");
    c.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let (mut child, _) = shellgate::exec::spawn(c, opts, None).expect("sandboxed spawn");
    child.wait().expect("wait");
}

/// Spawns `/bin/true` on a fresh PTY in the sandbox (openpty, spawn, wait).
pub fn on_pty(opts: &RunOptions) {
    let pty = nix::pty::openpty(None, None).expect("pty");
    let slave = nix::unistd::ttyname(&pty.slave).expect("ttyname");
    let mut c = Command::new("/bin/true");
    c.stdin(Stdio::from(pty.slave.try_clone().expect("dup")))
        .stdout(Stdio::from(pty.slave.try_clone().expect("dup")))
        .stderr(Stdio::from(pty.slave));
    let (mut child, _) = shellgate::exec::spawn(c, opts, Some(&slave)).expect("pty spawn");
    child.wait().expect("wait");
}
