//! The real binary: exit statuses, batch mode, bad input, bad policies, layers.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "tests"
)]

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::process::{Command, Output, Stdio};

fn shellgate() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_shellgate"));
    // Keep the developer's own policies out of the tests.
    c.env("XDG_CONFIG_HOME", "/nonexistent-shellgate-test")
        .env("SHELLGATE_SYSTEM_POLICY", "/nonexistent-shellgate-test");
    c
}

fn check(cmd: &str) -> Output {
    shellgate()
        .args(["check", "--"])
        .arg(cmd)
        .output()
        .expect("runs")
}

fn batch(input: &[u8]) -> Output {
    let mut child = shellgate()
        .args(["check", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("runs");
    writer.join().expect("writer");
    out
}

fn lines(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

#[test]
fn exit_statuses_follow_the_decision() {
    assert_eq!(check("git status").status.code(), Some(0));
    assert_eq!(check("find . -exec rm {} \\;").status.code(), Some(1));
    assert_eq!(check("r\"\"m -rf /").status.code(), Some(2));
}

#[test]
fn json_output_has_the_documented_fields() {
    let out = shellgate()
        .args(["check", "--json", "--", "git push origin main"])
        .output()
        .expect("runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    for key in [
        "decision",
        "reasons",
        "validator",
        "rules",
        "commands",
        "suggestion",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["decision"], "ask");
    assert_eq!(v["suggestion"], "git push:*");
    assert_eq!(v["commands"][0]["argv"][0], "git");
}

#[test]
fn batch_keeps_ids_and_order() {
    let out = batch(b"{\"id\":\"a\",\"command\":\"ls\"}\n{\"id\":7,\"command\":\"sudo ls\"}\n\n{\"id\":\"c\",\"command\":\"git push\"}\n");
    let v = lines(&out);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(v.len(), 3);
    assert_eq!(
        (v[0]["id"].clone(), v[0]["decision"].clone()),
        (serde_json::json!("a"), serde_json::json!("allow"))
    );
    assert_eq!(
        (v[1]["id"].clone(), v[1]["decision"].clone()),
        (serde_json::json!(7), serde_json::json!("deny"))
    );
    assert_eq!(
        (v[2]["id"].clone(), v[2]["decision"].clone()),
        (serde_json::json!("c"), serde_json::json!("ask"))
    );
}

#[test]
fn batch_bad_lines_are_denied_and_reported() {
    let out = batch(b"not json\n{\"id\":\"x\"}\n{\"id\":\"ok\",\"command\":\"ls\"}\n");
    let v = lines(&out);
    assert_eq!(out.status.code(), Some(65));
    assert_eq!(v[0]["decision"], "deny");
    assert_eq!(v[1]["decision"], "deny");
    assert_eq!(v[1]["id"], "x");
    assert_eq!(v[2]["decision"], "allow");
}

#[test]
fn usage_errors_exit_64() {
    assert_eq!(
        shellgate()
            .arg("check")
            .output()
            .expect("runs")
            .status
            .code(),
        Some(64)
    );
    assert_eq!(
        shellgate()
            .args(["check", "--bogus"])
            .output()
            .expect("runs")
            .status
            .code(),
        Some(64)
    );
    assert_eq!(
        shellgate()
            .arg("frobnicate")
            .output()
            .expect("runs")
            .status
            .code(),
        Some(64)
    );
    assert_eq!(
        shellgate()
            .arg("--help")
            .output()
            .expect("runs")
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn pathological_inputs_never_allow() {
    let cases = [
        ("big", format!("echo {}", "a".repeat(1 << 20))),
        ("nest", "$(".repeat(10_000)),
        ("nul", "ls\0; rm -rf ~".to_owned()),
        ("semi", ";".repeat(100_000)),
        ("and", format!("{}ls", "ls && ".repeat(50_000))),
        ("brace", format!("echo {}", "{a,b}".repeat(5000))),
        (
            "heredoc",
            format!("cat <<EOF\n{}EOF", "x\n".repeat(1_000_000)),
        ),
    ];
    let input: String = cases
        .iter()
        .map(|(id, command)| serde_json::json!({"id": id, "command": command}).to_string() + "\n")
        .collect();
    let out = batch(input.as_bytes());
    let v = lines(&out);
    assert_eq!(v.len(), 7);
    for line in &v {
        assert_ne!(line["decision"], "allow", "{}", line["id"]);
    }
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .filter(|b| *b != 0)
        .collect();
    for arg in [garbage.as_slice(), b"\xff\xfe ls", b"ls \xc3\x28"] {
        let out = shellgate()
            .args(["check", "--json", "--"])
            .arg(std::ffi::OsStr::from_bytes(arg))
            .output()
            .expect("runs");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_ne!(v["decision"], "allow");
        assert!(matches!(out.status.code(), Some(1 | 2)));
    }
    let deep = format!("echo {}", "$(".repeat(10_000));
    assert_eq!(check(&deep).status.code(), Some(1));
}

#[test]
fn bad_policy_exits_78_with_location() {
    let dir = tempdir();
    let path = dir.join("bad.toml");
    std::fs::write(
        &path,
        "[[rule]]\nid = \"x\"\ndecision = \"alow\"\ncommand = \"ls\"\n",
    )
    .expect("write");
    let out = shellgate()
        .args(["check", "--policy"])
        .arg(&path)
        .args(["--", "ls"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(78));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml:3:12"), "{err}");
    assert!(err.contains("expected `allow`, `ask` or `deny`"), "{err}");
}

#[test]
fn project_policy_cannot_allow_but_can_deny() {
    let dir = tempdir();
    std::fs::create_dir_all(dir.join(".git")).expect("repo");
    std::fs::create_dir_all(dir.join("sub")).expect("sub");
    std::fs::write(
        dir.join(".shellgate.toml"),
        "[[rule]]\nid = \"allow-curl\"\ndecision = \"allow\"\ncommand = \"curl\"\n\n[[rule]]\nid = \"deny-make\"\ndecision = \"deny\"\ncommand = \"make\"\nreason = \"this repository forbids make\"\n",
    )
    .expect("write");
    let run = |cmd: &str| {
        shellgate()
            .args(["check", "--json", "--cwd"])
            .arg(dir.join("sub"))
            .args(["--", cmd])
            .output()
            .expect("runs")
    };
    let curl = run("curl https://example.com");
    assert_eq!(
        curl.status.code(),
        Some(1),
        "an untrusted project cannot allow"
    );
    assert!(
        String::from_utf8_lossy(&curl.stderr).contains("allow-curl"),
        "the ignored rule is reported"
    );
    let make = run("make");
    assert_eq!(make.status.code(), Some(2), "a project can deny");
    let v: serde_json::Value = serde_json::from_slice(&make.stdout).expect("json");
    assert_eq!(v["rules"][0], "deny-make");

    // Trusted by the user: the allow rule applies.
    let config = dir.join("config");
    std::fs::create_dir_all(config.join("shellgate")).expect("config");
    std::fs::write(
        config.join("shellgate/policy.toml"),
        format!("trusted_projects = [{:?}]\n", dir.display().to_string()),
    )
    .expect("write");
    let trusted = shellgate()
        .env("XDG_CONFIG_HOME", &config)
        .args(["check", "--cwd"])
        .arg(dir.join("sub"))
        .args(["--", "curl https://example.com"])
        .output()
        .expect("runs");
    assert_eq!(trusted.status.code(), Some(0));
}

#[test]
fn audit_log_gets_one_line_per_decision() {
    let dir = tempdir();
    let log = dir.join("audit.jsonl");
    for cmd in ["ls", "sudo ls"] {
        shellgate()
            .args(["check", "--audit"])
            .arg(&log)
            .args(["--", cmd])
            .output()
            .expect("runs");
    }
    let text = std::fs::read_to_string(&log).expect("log");
    let v: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(v.len(), 2);
    assert_eq!(v[1]["decision"], "deny");
    assert_eq!(v[1]["command"], "sudo ls");
    let out = shellgate()
        .args(["check", "--audit", "/nonexistent-dir/x.log", "--", "ls"])
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unwritable audit log fails closed"
    );
}

fn tempdir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "shellgate-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("tempdir");
    dir
}

/// The rendered diagnostics of a policy with three different mistakes, pinned.
/// Re-bless with `SHELLGATE_BLESS=1 cargo test --test cli`.
#[test]
fn three_mistakes_render_exactly() {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let out = shellgate()
        .current_dir(fixtures)
        .args([
            "check",
            "--no-default",
            "--policy",
            "three-mistakes.toml",
            "--",
            "ls",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(78));
    let rendered = String::from_utf8_lossy(&out.stderr);
    let snapshot = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/snapshots/three-mistakes.txt"
    );
    if std::env::var_os("SHELLGATE_BLESS").is_some() {
        std::fs::write(snapshot, rendered.as_bytes()).expect("bless");
    }
    let expected = std::fs::read_to_string(snapshot).expect("snapshot");
    pretty_assertions::assert_eq!(rendered, expected);
    for loc in [
        "three-mistakes.toml:5:12",
        "three-mistakes.toml:12:9",
        "three-mistakes.toml:17:1",
    ] {
        assert!(rendered.contains(loc), "{loc}");
    }
    let json = shellgate()
        .current_dir(fixtures)
        .args([
            "check",
            "--no-default",
            "--error-format",
            "json",
            "--policy",
            "three-mistakes.toml",
            "--",
            "ls",
        ])
        .output()
        .expect("runs");
    let v: serde_json::Value = serde_json::from_slice(&json.stderr).expect("json diagnostics");
    assert_eq!(v["related"].as_array().map(Vec::len), Some(3));
}

#[test]
fn explain_suggest_test_and_policy_show() {
    let explain = shellgate()
        .args(["explain", "--", "timeout 5 git push"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&explain.stdout);
    for part in [
        "1. parse",
        "2. validate",
        "3. strip",
        "stripped: timeout 5",
        "4. match",
        "rule git-read [default]",
        "5. verdict",
    ] {
        assert!(text.contains(part), "explain lacks {part}:\n{text}");
    }
    assert_eq!(explain.status.code(), Some(1));
    let json = shellgate()
        .args(["explain", "--json", "--", "ls"])
        .output()
        .expect("runs");
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(v["verdict"]["decision"], "allow");

    let suggest = shellgate()
        .args(["suggest", "--", "cargo publish --dry-run"])
        .output()
        .expect("runs");
    let toml_text = String::from_utf8_lossy(&suggest.stdout);
    assert!(toml_text.contains("args = [\"publish\"]"), "{toml_text}");
    let none = shellgate()
        .args(["suggest", "--", "python3 -c 'print(1)'"])
        .output()
        .expect("runs");
    assert_eq!(
        none.status.code(),
        Some(1),
        "never a rule covering an interpreter"
    );

    let root = env!("CARGO_MANIFEST_DIR");
    let test = shellgate()
        .current_dir(root)
        .args(["test", "policies/", "--coverage"])
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&test.stdout);
    assert_eq!(test.status.code(), Some(0), "{out}");
    assert!(
        out.lines().last().is_some_and(|l| l.ends_with("0 failed")),
        "{out}"
    );
    assert!(!out.contains("UNEXERCISED"), "{out}");

    let show = shellgate().args(["policy", "show"]).output().expect("runs");
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(
        shown.contains("[[rule]]  # from default") && shown.contains("id = \"git-read\""),
        "{shown}"
    );
}

#[test]
fn test_reports_failures_and_exits_non_zero() {
    let dir = tempdir();
    std::fs::write(dir.join("p.toml"), "[[rule]]\nid = \"ls\"\ndecision = \"allow\"\ncommand = \"ls\"\n\n[[rule]]\nid = \"unused\"\ndecision = \"deny\"\ncommand = \"nc\"\n\n[[test]]\ncommand = \"ls\"\nexpect = \"deny\"\n").expect("write");
    let out = shellgate()
        .arg("test")
        .arg(dir.join("p.toml"))
        .arg("--coverage")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text.contains("FAIL") && text.contains("expected deny, got allow"),
        "{text}"
    );
    assert!(
        text.contains("UNEXERCISED") && text.contains("`unused`"),
        "{text}"
    );
    assert!(text.contains("0 passed, 1 failed"), "{text}");
}

#[test]
fn ci_policy_turns_ask_into_deny() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = shellgate()
        .current_dir(root)
        .args(["check", "--policy", "policies/ci.toml", "--", "git push"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let ok = shellgate()
        .current_dir(root)
        .args(["check", "--policy", "policies/ci.toml", "--", "git status"])
        .output()
        .expect("runs");
    assert_eq!(ok.status.code(), Some(0));
    let ro = shellgate()
        .current_dir(root)
        .args([
            "check",
            "--policy",
            "policies/readonly.toml",
            "--",
            "git commit -m x",
        ])
        .output()
        .expect("runs");
    assert_eq!(
        ro.status.code(),
        Some(2),
        "readonly replaces the default (extends = none)"
    );
}
