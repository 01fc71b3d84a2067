//! The sandbox's properties, each through the real binary on the real kernel,
//! under a policy that allows everything (so only the sandbox stands in the way).
//!
//! A facility the machine lacks (landlock, namespaces) is detected once and
//! each affected test prints `SKIP <test>: <reason>` to stderr — visible in
//! the test summary with `--nocapture`, and counted in the `sandbox-facilities`
//! test's output — never a silent pass.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A workspace under target/ (outside the default roots), with a git repository.
fn workspace(tag: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sandbox-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join(".git/hooks")).unwrap();
    std::fs::write(d.join(".git/config"), "[core]\n").unwrap();
    std::fs::create_dir_all(d.join(".tmp")).unwrap();
    std::fs::create_dir_all(d.join("state")).unwrap();
    d
}

struct Run {
    status: Option<i32>,
    json: serde_json::Value,
    stderr: String,
}

impl Run {
    fn shown(&self) -> String {
        self.json["run"]["output"]["shown"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

fn sg(ws: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_shellgate"));
    c.env("XDG_CONFIG_HOME", "/nonexistent-shellgate-test")
        .env("TMPDIR", ws.join(".tmp"))
        .env("SHELLGATE_STATE_DIR", ws.join("state"))
        .stdin(Stdio::null());
    c
}

fn run_with(ws: &Path, policy: &str, extra: &[&str], envs: &[(&str, &str)], cmd: &str) -> Run {
    let out = sg(ws)
        .envs(envs.iter().copied())
        .args(["run", "--json", "--no-default", "--policy", policy, "--cwd"])
        .arg(ws)
        .args(extra)
        .args(["--", cmd])
        .output()
        .expect("runs");
    Run {
        status: out.status.code(),
        json: serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run(ws: &Path, cmd: &str) -> Run {
    run_with(ws, &fixture("allow-all.toml"), &[], &[], cmd)
}

/// What this machine's kernel gives the sandbox; `None` (after saying why)
/// when the test cannot judge anything here.
fn facilities(test: &str) -> Option<serde_json::Value> {
    let ws = workspace(&format!("probe-{test}"));
    let r = run(&ws, "true");
    let s = r.json["run"]["sandbox"].clone();
    if s.is_null() || s["abi"].as_u64().unwrap_or(0) == 0 {
        eprintln!(
            "SKIP {test}: the sandbox cannot run here (landlock unavailable?): {}",
            r.stderr.trim()
        );
        return None;
    }
    Some(s)
}

fn needs_namespaces(test: &str, s: &serde_json::Value) -> bool {
    let ok = s["mount_namespace"] == true && s["pid_namespace"] == true;
    if !ok {
        eprintln!(
            "SKIP {test}: the kernel refused namespaces here; missing: {}",
            s["missing"]
        );
    }
    ok
}

#[test]
fn sandbox_facilities_are_reported() {
    let Some(s) = facilities("sandbox_facilities_are_reported") else {
        return;
    };
    eprintln!("sandbox on this machine: {s}");
    let full = s["status"] == "full";
    let missing = s["missing"].as_array().map_or(0, Vec::len);
    assert_eq!(full, missing == 0, "status and missing disagree: {s}");
}

/// 1. shellgate and other processes outside the run cannot be traced, read or signalled.
#[test]
fn processes_outside_the_run_are_out_of_reach() {
    let Some(_) = facilities("processes_outside_the_run_are_out_of_reach") else {
        return;
    };
    let ws = workspace("reach");
    let mut victim = Command::new("sleep").arg("30").spawn().unwrap();
    let pid = victim.id();
    std::fs::write(
        ws.join("reach.py"),
        format!(
            "import ctypes, os\nl = ctypes.CDLL(None, use_errno=True)\nprint('ptrace=%d' % l.ptrace(16, {pid}, 0, 0))\nprint('pvm=%d' % l.process_vm_readv({pid}, 0, 0, 0, 0, 0))\ntry:\n    open('/proc/{pid}/environ').read(); print('ENVIRON-READ')\nexcept OSError as e:\n    print('environ refused', e.errno)\n"
        ),
    )
    .unwrap();
    let cmd = format!(
        "kill -9 {pid}; echo kill=$?; python3 reach.py; kill -9 $PPID 2>/dev/null; echo ppid=$PPID"
    );
    let r = run(&ws, &cmd);
    std::thread::sleep(Duration::from_millis(100));
    let alive = victim.try_wait().unwrap().is_none();
    let _ = victim.kill();
    let _ = victim.wait();
    assert!(
        alive,
        "the command killed a process outside the run: {}",
        r.shown()
    );
    assert!(!r.shown().contains("ptrace=0"), "{}", r.shown());
    assert!(!r.shown().contains("ENVIRON-READ"), "{}", r.shown());
    assert!(
        r.json["run"]["exit_code"].is_number(),
        "shellgate itself must survive: {:?}",
        r.status
    );
}

/// 2. A new session: no controlling terminal, `/dev/tty` unusable, TIOCSTI refused (also on its own PTY).
#[test]
fn the_callers_terminal_is_out_of_reach() {
    let Some(_) = facilities("the_callers_terminal_is_out_of_reach") else {
        return;
    };
    let ws = workspace("tty");
    let sti = "python3 -c 'import fcntl,termios,sys\ntry:\n fcntl.ioctl(0, termios.TIOCSTI, b\"x\"); print(\"STI-OK\")\nexcept OSError as e: print(\"STI-refused\", e.errno)'";
    let r = run(
        &ws,
        &format!("echo hi > /dev/tty && echo TTY-OK; ls /dev/pts; {sti}"),
    );
    let shown = r.shown();
    assert!(
        !shown.contains("TTY-OK") && !shown.contains("STI-OK"),
        "{shown}"
    );
    let p = run_with(&ws, &fixture("allow-all.toml"), &["--pty"], &[], sti);
    assert!(p.shown().contains("STI-refused"), "{}", p.shown());
}

/// 3. Network off: no socket of any kind reaches out; socketpair works.
#[test]
fn network_off_means_no_network_of_any_kind() {
    let Some(_) = facilities("network_off_means_no_network_of_any_kind") else {
        return;
    };
    let ws = workspace("net");
    let sock = ws.join("state").join("listener.sock");
    let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    listener.set_nonblocking(true).unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let script = format!(
        r#"
import socket
def t(name, f):
    try:
        f(); print(name, "OPEN")
    except OSError as e:
        print(name, "refused", e.errno)
t("udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", {udp})))
t("tcp", lambda: socket.create_connection(("127.0.0.1", {tcp}), 1))
t("mptcp", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262).connect(("127.0.0.1", {tcp})))
t("raw", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, 1))
t("inet6", lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM))
t("netlink", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0))
t("packet", lambda: socket.socket(17, socket.SOCK_RAW, 0))
t("unix", lambda: socket.socket(socket.AF_UNIX).connect("{sock}"))
t("unixdgram", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"x", "{sock}"))
a, b = socket.socketpair(); a.send(b"ok"); print("socketpair", b.recv(2).decode())
"#,
        udp = udp.local_addr().unwrap().port(),
        tcp = tcp.local_addr().unwrap().port(),
        sock = sock.display()
    );
    std::fs::write(ws.join("net.py"), script).unwrap();
    let r = run(&ws, "python3 net.py");
    let shown = r.shown();
    assert!(!shown.contains("OPEN"), "{shown}");
    assert!(shown.contains("socketpair ok"), "{shown}");
    assert!(listener.accept().is_err(), "the unix listener was reached");
    assert!(tcp.accept().is_err(), "the TCP listener was reached");
    let mut buf = [0u8; 4];
    assert!(udp.recv(&mut buf).is_err(), "a UDP datagram arrived");
}

/// 4. The environment is an allowlist.
#[test]
fn the_environment_is_an_allowlist() {
    let Some(_) = facilities("the_environment_is_an_allowlist") else {
        return;
    };
    let ws = workspace("env");
    let secrets = [
        ("GITHUB_TOKEN", "ghp_secret"),
        ("SSH_AUTH_SOCK", "/tmp/agent.sock"),
        ("LD_LIBRARY_PATH", "/evil"),
        ("NODE_OPTIONS", "--require /evil.js"),
        ("AWS_SECRET_ACCESS_KEY", "aws_secret"),
        ("LANG", "C.UTF-8"),
    ];
    let r = run_with(&ws, &fixture("allow-all.toml"), &[], &secrets, "env");
    let shown = r.shown();
    for (k, _) in &secrets[..5] {
        assert!(!shown.contains(k), "{k} leaked: {shown}");
    }
    assert!(shown.contains("LANG=C.UTF-8"), "{shown}");
    assert!(shown.contains("PATH="), "{shown}");
    let policy = ws.join("env.toml");
    std::fs::write(&policy, "extends = \"none\"\ndefault = \"allow\"\n[sandbox]\nread_only = [\"/usr\", \"/bin\", \"/lib\", \"/lib64\", \"/etc\"]\nread_write = [\"{workspace}\"]\nenv = [\"GITHUB_TOKEN\"]\n").unwrap();
    let r = run_with(&ws, policy.to_str().unwrap(), &[], &secrets, "env");
    assert!(
        r.shown().contains("GITHUB_TOKEN=ghp_secret"),
        "{}",
        r.shown()
    );
}

/// 5. Read-only inside the writable roots; credentials hidden; no metadata changes outside.
#[test]
fn code_that_runs_later_stays_read_only() {
    let Some(s) = facilities("code_that_runs_later_stays_read_only") else {
        return;
    };
    if !needs_namespaces("code_that_runs_later_stays_read_only", &s) {
        return;
    }
    let ws = workspace("persist");
    let home = ws.join("home");
    std::fs::create_dir_all(home.join(".cargo/bin")).unwrap();
    std::fs::write(home.join(".cargo/env"), "# env\n").unwrap();
    std::fs::write(home.join(".cargo/credentials.toml"), "token = \"SECRET\"\n").unwrap();
    std::fs::write(ws.join(".envrc"), "").unwrap();
    let outside = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sandbox-outside-{}", std::process::id()));
    std::fs::write(&outside, "x").unwrap();
    let policy = ws.join("p.toml");
    std::fs::write(
        &policy,
        "extends = \"none\"\ndefault = \"allow\"\n[sandbox]\nread_only = [\"/usr\", \"/bin\", \"/lib\", \"/lib64\", \"/etc\", \"/proc\"]\nread_write = [\"{workspace}\", \"~/.cargo\", \"/dev/null\"]\n",
    )
    .unwrap();
    let cmd = format!(
        "echo x > .git/hooks/pre-commit; echo '[alias]' >> .git/config; echo x >> .envrc; \
         echo x >> {h}/.cargo/env; touch {h}/.cargo/bin/cargo-evil; cat {h}/.cargo/credentials.toml; \
         chmod 777 {o}; touch -d 2001-01-01 {o}; echo ok > ws-file; echo done",
        h = home.display(),
        o = outside.display()
    );
    let r = run_with(
        &ws,
        policy.to_str().unwrap(),
        &[],
        &[("HOME", home.to_str().unwrap())],
        &cmd,
    );
    let shown = r.shown();
    assert!(shown.contains("done"), "{shown}");
    assert!(!ws.join(".git/hooks/pre-commit").exists(), "{shown}");
    assert_eq!(
        std::fs::read_to_string(ws.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert_eq!(std::fs::read_to_string(ws.join(".envrc")).unwrap(), "");
    assert_eq!(
        std::fs::read_to_string(home.join(".cargo/env")).unwrap(),
        "# env\n"
    );
    assert!(!home.join(".cargo/bin/cargo-evil").exists());
    assert!(!shown.contains("SECRET"), "credentials read: {shown}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&outside).unwrap().permissions().mode() & 0o777;
    assert_ne!(mode, 0o777, "chmod outside the roots");
    assert_eq!(std::fs::read_to_string(ws.join("ws-file")).unwrap(), "ok\n");
}

fn leftover(marker: &str) -> bool {
    let out = Command::new("pgrep").args(["-f", marker]).output();
    out.is_ok_and(|o| o.status.success())
}

/// 6. Nothing outlives the run: setsid and double-forked descendants end with it and its timeout.
#[test]
fn nothing_outlives_the_run() {
    let Some(s) = facilities("nothing_outlives_the_run") else {
        return;
    };
    if !needs_namespaces("nothing_outlives_the_run", &s) {
        return;
    }
    if Command::new("pgrep").arg("--version").output().is_err() {
        eprintln!("SKIP nothing_outlives_the_run: pgrep is not installed");
        return;
    }
    let ws = workspace("outlive");
    let r = run(
        &ws,
        "setsid sleep 4242.25 & (sleep 4242.5 &) ; nohup setsid sleep 4242.75 >/dev/null 2>&1 & echo started",
    );
    assert!(r.shown().contains("started"), "{}", r.shown());
    std::thread::sleep(Duration::from_millis(300));
    for m in ["sleep 4242.25", "sleep 4242.5", "sleep 4242.75"] {
        assert!(!leftover(m), "`{m}` outlived the run");
    }
    let r = run_with(
        &ws,
        &fixture("allow-all.toml"),
        &["--timeout", "1"],
        &[],
        "setsid sleep 4343.25 & trap : TERM; sleep 4343.5",
    );
    assert_eq!(r.json["run"]["timed_out"], true, "{}", r.json);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !leftover("sleep 4343.25") && !leftover("sleep 4343.5"),
        "outlived the timeout"
    );
}

/// 7. shellgate's own files: private, never through a planted symlink; job ids are not paths.
#[test]
fn shellgates_own_files_are_private() {
    let Some(_) = facilities("shellgates_own_files_are_private") else {
        return;
    };
    let ws = workspace("files");
    let r = run(&ws, "head -c 200000 /dev/zero | tr '\\0' a");
    let artifact = PathBuf::from(
        r.json["run"]["output"]["artifact"]
            .as_str()
            .expect("spilled"),
    );
    assert!(
        artifact.starts_with(ws.join("state")),
        "{}",
        artifact.display()
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&artifact).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let dir = artifact.parent().unwrap();
    assert_eq!(
        std::fs::metadata(dir).unwrap().permissions().mode() & 0o777,
        0o700
    );
    for bad in ["../../etc/passwd", "/etc/passwd", "1-1/../../x", "abc"] {
        let out = sg(&ws).args(["jobs", "output", bad]).output().unwrap();
        assert!(!out.status.success(), "{bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("not a job id"),
            "{bad}"
        );
    }
}

/// 7b. A background job runs what was judged, whatever its directory holds; a finished job is not signalled.
#[test]
fn background_jobs_run_what_was_judged() {
    let Some(_) = facilities("background_jobs_run_what_was_judged") else {
        return;
    };
    let ws = workspace("job");
    let out = sg(&ws)
        .args([
            "run",
            "--background",
            "--no-default",
            "--policy",
            &fixture("allow-all.toml"),
            "--cwd",
        ])
        .arg(&ws)
        .args(["--", "sleep 1; echo judged"])
        .output()
        .unwrap();
    let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let dir = ws.join("state/jobs").join(&id);
    // Tamper with everything the job directory holds before the supervisor runs the command.
    let _ = std::fs::write(dir.join("command"), "echo TAMPERED");
    let _ = std::fs::write(dir.join("options.json"), "{\"requirement\":\"off\"}");
    for _ in 0..100 {
        if dir.join("status.json").exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = std::fs::read_to_string(dir.join("output")).unwrap_or_default();
    assert!(
        output.contains("judged") && !output.contains("TAMPERED"),
        "{output}"
    );
    let status = std::fs::read_to_string(dir.join("status.json")).unwrap();
    assert!(
        status.contains("\"sandbox\":\"full\"") || status.contains("\"sandbox\":\"partial\""),
        "{status}"
    );
    // Plant a pgid of a live process: a finished job signals nothing.
    let mut victim = Command::new("sleep").arg("30").spawn().unwrap();
    let _ = std::fs::remove_file(dir.join("pgid"));
    std::fs::write(dir.join("pgid"), format!("{} 0", victim.id())).unwrap();
    let k = sg(&ws).args(["jobs", "kill", &id]).output().unwrap();
    assert!(String::from_utf8_lossy(&k.stdout).contains("already finished"));
    assert!(
        victim.try_wait().unwrap().is_none(),
        "a finished job signalled a process"
    );
    let _ = victim.kill();
    let _ = victim.wait();
}

/// 9. Binary output keeps every raw byte in the artifact; the window says it is lossy.
#[test]
fn binary_output_is_kept_raw() {
    let Some(_) = facilities("binary_output_is_kept_raw") else {
        return;
    };
    let ws = workspace("binary");
    let r = run(&ws, "printf 'a\\377\\376b\\000c'");
    let out = &r.json["run"]["output"];
    assert_eq!(out["lossy"], true, "{out}");
    let artifact = out["artifact"]
        .as_str()
        .expect("an artifact for binary output");
    assert_eq!(std::fs::read(artifact).unwrap(), b"a\xff\xfeb\x00c");
}

/// 10. "full" only when everything is in force; a missing layer is named, and the requirement refuses.
#[test]
fn enforcement_is_reported_truthfully() {
    let Some(s) = facilities("enforcement_is_reported_truthfully") else {
        return;
    };
    let ws = workspace("report");
    let env = [("SHELLGATE_TEST_NO_NAMESPACES", "1")];
    let r = run_with(&ws, &fixture("allow-all.toml"), &[], &env, "echo ran");
    let sb = &r.json["run"]["sandbox"];
    assert_eq!(sb["status"], "partial", "{sb}");
    let missing = sb["missing"].to_string();
    assert!(
        missing.contains("mount namespace") && missing.contains("PID namespace"),
        "{missing}"
    );
    let r = run_with(
        &ws,
        &fixture("allow-all.toml"),
        &["--require-sandbox"],
        &env,
        "echo ran",
    );
    assert_ne!(r.status, Some(0));
    assert!(!r.shown().contains("ran"));
    assert!(r.stderr.contains("mount namespace"), "{}", r.stderr);
    if s["status"] == "full" {
        let r = run_with(
            &ws,
            &fixture("allow-all.toml"),
            &["--require-sandbox"],
            &[],
            "echo ran",
        );
        assert!(r.shown().contains("ran"), "{}", r.stderr);
    } else {
        eprintln!(
            "NOTE enforcement_is_reported_truthfully: this kernel is not full: {}",
            s["missing"]
        );
    }
}

/// 8. MCP: the workspace is the server's; a tool `cwd` outside it is refused.
#[test]
fn mcp_cwd_stays_inside_the_workspace() {
    let Some(_) = facilities("mcp_cwd_stays_inside_the_workspace") else {
        return;
    };
    let ws = workspace("mcp");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    let mut child = sg(&ws)
        .args([
            "mcp",
            "--no-default",
            "--policy",
            &fixture("allow-all.toml"),
            "--cwd",
        ])
        .arg(&ws)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |v: serde_json::Value| writeln!(stdin, "{v}").unwrap();
    send(
        serde_json::json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}),
    );
    let _ = lines.next();
    send(serde_json::json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    let mut call = |id: u64, cwd: &str| -> String {
        send(
            serde_json::json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"bash","arguments":{"command":"pwd; touch made-here","cwd":cwd}}}),
        );
        lines.next().unwrap().unwrap()
    };
    let outside = call(2, "/");
    assert!(
        outside.contains("outside the server's workspace"),
        "{outside}"
    );
    let up = call(3, "..");
    assert!(up.contains("outside the server's workspace"), "{up}");
    let inside = call(4, "sub");
    assert!(inside.contains("/sub"), "{inside}");
    assert!(ws.join("sub/made-here").exists());
    drop(stdin);
    let _ = child.wait();
}
