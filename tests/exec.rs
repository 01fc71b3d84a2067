//! The executor through the real binary: landlock, timeouts, PTY, the sink, jobs.
//!
//! These tests need landlock. When the kernel lacks it they fail with a clear
//! message; set `SHELLGATE_ALLOW_NO_LANDLOCK=1` to turn that into a loud skip
//! notice instead (never a silent pass).

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sha2::{Digest, Sha256};

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn scratch(tag: &str) -> PathBuf {
    // Under target/: outside the sandbox's default roots (unlike /tmp).
    let d =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("exec-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(policy: &str, cwd: &Path, extra: &[&str], cmd: &str) -> (Output, serde_json::Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_shellgate"))
        .env("XDG_CONFIG_HOME", "/nonexistent-shellgate-test")
        .env("TMPDIR", private_tmp(cwd))
        .args([
            "run",
            "--json",
            "--no-default",
            "--policy",
            &fixture(policy),
            "--cwd",
        ])
        .arg(cwd)
        .args(extra)
        .args(["--", cmd])
        .output()
        .expect("runs");
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out, v)
}

/// A temp dir inside the workspace: the sandbox's `{tmp}` root then covers no
/// scratch directory, wherever the checkout and the system temp dir are.
fn private_tmp(ws: &Path) -> PathBuf {
    let t = ws.join(".tmp");
    std::fs::create_dir_all(&t).unwrap();
    t
}

/// Checks landlock is there; returns false (after saying so loudly) only when allowed to skip.
fn landlock_or_report() -> bool {
    let dir = scratch("probe");
    let (out, v) = run("allow-all.toml", &dir, &[], "true");
    let abi = v["run"]["sandbox"]["abi"].as_u64().unwrap_or(0);
    if abi > 0 {
        if let Some(want) = std::env::var("LANDLOCK_TEST_ABI")
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
        {
            assert!(
                abi >= want,
                "kernel landlock ABI {abi} < LANDLOCK_TEST_ABI {want}"
            );
        }
        return true;
    }
    let msg = format!(
        "landlock is not available here: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if std::env::var_os("SHELLGATE_ALLOW_NO_LANDLOCK").is_some() {
        eprintln!("SKIPPED (landlock missing, SHELLGATE_ALLOW_NO_LANDLOCK set): {msg}");
        return false;
    }
    panic!("{msg}");
}

#[test]
fn writes_only_inside_writable_roots() {
    if !landlock_or_report() {
        return;
    }
    let ws = scratch("write");
    let outside = scratch("outside");
    let cmd = format!(
        "echo in > {}/ok.txt; echo out > {}/no.txt; echo done",
        ws.display(),
        outside.display()
    );
    let (_, v) = run("allow-all.toml", &ws, &[], &cmd);
    assert_eq!(std::fs::read_to_string(ws.join("ok.txt")).unwrap(), "in\n");
    assert!(!outside.join("no.txt").exists(), "wrote outside the roots");
    assert!(
        v["run"]["output"]["shown"]
            .as_str()
            .unwrap()
            .contains("Read-only file system")
            || v["run"]["output"]["shown"]
                .as_str()
                .unwrap()
                .contains("Permission denied"),
        "{v}"
    );
    assert_eq!(v["run"]["sandbox"]["filesystem"], true);
}

#[test]
fn credential_directories_are_not_readable() {
    if !landlock_or_report() {
        return;
    }
    let home = scratch("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_test"), "SECRET-KEY").unwrap();
    let ws = scratch("ws-ssh");
    let out = Command::new(env!("CARGO_BIN_EXE_shellgate"))
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", "/nonexistent-shellgate-test")
        .env("TMPDIR", private_tmp(&ws))
        .args([
            "run",
            "--json",
            "--no-default",
            "--policy",
            &fixture("allow-all.toml"),
            "--cwd",
        ])
        .arg(&ws)
        .args(["--", "cat \"$HOME/.ssh/id_test\""])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let shown = v["run"]["output"]["shown"].as_str().unwrap();
    assert!(!shown.contains("SECRET-KEY"), "{shown}");
    assert!(shown.contains("Permission denied"), "{shown}");
}

#[test]
fn tcp_connect_needs_network_in_the_policy() {
    if !landlock_or_report() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let ws = scratch("net");
    let cmd = format!("echo hi > /dev/tcp/127.0.0.1/{port} && echo CONNECTED");
    let (_, denied) = run("allow-all.toml", &ws, &[], &cmd);
    let shown = denied["run"]["output"]["shown"].as_str().unwrap();
    assert!(
        !shown.contains("CONNECTED"),
        "connected without network: {shown}"
    );
    if denied["run"]["sandbox"]["abi"].as_u64().unwrap_or(0) >= 4 {
        assert_eq!(denied["run"]["sandbox"]["network"], true);
    }
    let (_, allowed) = run("allow-all-network.toml", &ws, &[], &cmd);
    assert!(
        allowed["run"]["output"]["shown"]
            .as_str()
            .unwrap()
            .contains("CONNECTED"),
        "{allowed}"
    );
}

#[test]
fn large_output_reaches_the_artifact_byte_for_byte() {
    let ws = scratch("big");
    let cmd = "yes | head -c 200000000";
    let (out, v) = run("allow-all.toml", &ws, &["--no-sandbox"], cmd);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = &v["run"]["output"];
    assert_eq!(run["total_bytes"], 200_000_000u64);
    assert_eq!(run["truncated"], true);
    let artifact = PathBuf::from(run["artifact"].as_str().unwrap());
    let data = std::fs::read(&artifact).unwrap();
    assert_eq!(data.len(), 200_000_000);
    let expected = Command::new("bash")
        .args(["-c", "yes | head -c 200000000 | sha256sum"])
        .output()
        .unwrap();
    let expected = String::from_utf8_lossy(&expected.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    let got: String = Sha256::digest(&data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(got, expected);
    let peak = v["run"]["peak_rss_kib"].as_u64().unwrap();
    assert!(peak < 64 * 1024, "peak RSS {peak} KiB");
    std::fs::remove_file(artifact).unwrap();
}

#[test]
fn timeout_ends_the_whole_group() {
    let ws = scratch("timeout");
    let (_, v) = run(
        "allow-all.toml",
        &ws,
        &["--timeout", "1", "--no-sandbox"],
        "sleep 1000 & echo $!; wait",
    );
    assert_eq!(v["run"]["timed_out"], true, "{v}");
    let pid: u32 = v["run"]["output"]["shown"]
        .as_str()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let alive = Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z ");
    assert!(!alive, "background sleep {pid} survived the timeout");
}

#[test]
fn pty_mode_gives_a_terminal() {
    let ws = scratch("pty");
    let (_, v) = run(
        "allow-all.toml",
        &ws,
        &["--pty"],
        "tty; test -t 1 && echo STDOUT-IS-TTY",
    );
    let shown = v["run"]["output"]["shown"].as_str().unwrap();
    assert!(shown.contains("/dev/pts/"), "{v}");
    assert!(shown.contains("STDOUT-IS-TTY"), "{v}");
    assert_eq!(v["run"]["pty"], true);
    let (_, plain) = run(
        "allow-all.toml",
        &ws,
        &[],
        "test -t 0 || echo STDIN-NOT-TTY",
    );
    assert!(
        plain["run"]["output"]["shown"]
            .as_str()
            .unwrap()
            .contains("STDIN-NOT-TTY")
    );
}

#[test]
fn exit_meaning_and_canonical_command_are_reported() {
    let ws = scratch("meaning");
    let (out, v) = run("allow-all.toml", &ws, &[], "grep zzz /dev/null");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(v["run"]["exit_code"], 1);
    assert_eq!(v["run"]["meaning"], "no match (not an error)");
    let (_, c) = run("allow-all.toml", &ws, &[], "e''cho $'a\\x41'");
    assert_eq!(c["run"]["command"], "echo aA");
    assert_eq!(c["verdict"]["canonical"], "echo aA");
    assert_eq!(c["run"]["output"]["shown"], "aA\n");
}

#[test]
fn denied_and_unapproved_commands_do_not_run() {
    let ws = scratch("refuse");
    let marker = ws.join("ran");
    let out = Command::new(env!("CARGO_BIN_EXE_shellgate"))
        .env("XDG_CONFIG_HOME", "/nonexistent-shellgate-test")
        .args(["run", "--cwd"])
        .arg(&ws)
        .args(["--", &format!("touch {} && sudo true", marker.display())])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!marker.exists());
    let ask = Command::new(env!("CARGO_BIN_EXE_shellgate"))
        .env("XDG_CONFIG_HOME", "/nonexistent-shellgate-test")
        .args(["run", "--cwd"])
        .arg(&ws)
        .args(["--", &format!("touch {}", marker.display())])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        ask.status.code(),
        Some(1),
        "ask without a terminal is refused"
    );
    assert!(!marker.exists());
}

#[test]
fn background_jobs_run_list_and_die() {
    let ws = scratch("jobs");
    let jobs = scratch("jobs-dir").join("jobs");
    let sg = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_shellgate"))
            .env("SHELLGATE_JOBS_DIR", &jobs)
            .env("XDG_CONFIG_HOME", "/nonexistent-shellgate-test")
            .args(args)
            .output()
            .unwrap()
    };
    let policy = fixture("allow-all.toml");
    let ws_s = ws.display().to_string();
    let start = sg(&[
        "run",
        "--background",
        "--no-sandbox",
        "--no-default",
        "--policy",
        &policy,
        "--cwd",
        &ws_s,
        "--",
        "echo started; sleep 30",
    ]);
    let id = String::from_utf8_lossy(&start.stdout).trim().to_owned();
    assert!(!id.is_empty(), "{}", String::from_utf8_lossy(&start.stderr));
    let mut seen = String::new();
    for _ in 0..100 {
        seen = String::from_utf8_lossy(&sg(&["jobs", "output", &id]).stdout).into_owned();
        if seen.contains("started") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(seen.contains("started"), "{seen}");
    let list = String::from_utf8_lossy(&sg(&["jobs"]).stdout).into_owned();
    assert!(list.contains(&id) && list.contains("running"), "{list}");
    let pgid: i32 = std::fs::read_to_string(jobs.join(&id).join("pgid"))
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(sg(&["jobs", "kill", &id]).status.success());
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid), None).is_err(),
        "the job's group survived"
    );
    for _ in 0..100 {
        if jobs.join(&id).join("status.json").exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let list = String::from_utf8_lossy(&sg(&["jobs"]).stdout).into_owned();
    assert!(!list.contains("running"), "{list}");
}
