//! The spawns the executor benchmarks compare, shared by `benches/exec.rs`
//! and `examples/spawn_ratio.rs`.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// `/bin/true` with no input or output, in its own process group (as the executor runs bash).
pub fn true_cmd() -> Command {
    let mut c = Command::new("/bin/true");
    c.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    c
}

/// Spawns `/bin/true` on a fresh PTY (openpty, spawn, wait).
pub fn on_pty() {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 24,
            cols: 80,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("pty");
    let mut child = pair
        .slave
        .spawn_command(CommandBuilder::new("/bin/true"))
        .expect("spawn");
    drop(pair.slave);
    child.wait().expect("wait");
}
