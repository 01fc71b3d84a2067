//! Agent hooks through the real binary, fed payloads as the agents send them
//! (`tests/fixtures/hooks/`); the exact JSON answer and exit status are checked.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn hook(agent: &str, input: &[u8], extra: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shellgate"))
        .env("XDG_CONFIG_HOME", "/nonexistent-shellgate-test")
        .env("SHELLGATE_SYSTEM_POLICY", "/nonexistent-shellgate-test")
        .args(["hook", agent])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/hooks/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn json_out(o: &Output) -> Value {
    assert_eq!(
        o.status.code(),
        Some(0),
        "hooks always exit 0: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&o.stdout)))
}

fn pre_tool_use(decision: &str, reason: &str) -> Value {
    json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}})
}

#[test]
fn claude_code_allow_ask_deny() {
    for agent in ["claude-code", "auto"] {
        assert_eq!(
            json_out(&hook(agent, &fixture("claude-allow.json"), &[])),
            pre_tool_use("allow", "shellgate: allow: read-only git [rule: git-read]")
        );
        assert_eq!(
            json_out(&hook(agent, &fixture("claude-ask.json"), &[])),
            pre_tool_use(
                "ask",
                "shellgate: ask: no rule matches `git push origin main`. To allow it next time: `git push:*` (shellgate suggest -- …)"
            )
        );
        assert_eq!(
            json_out(&hook(agent, &fixture("claude-deny.json"), &[])),
            pre_tool_use(
                "deny",
                "shellgate: deny: runs code downloaded from the network [rule: download-into-shell]. Do not retry this command in another form; do the task another way or ask the user."
            )
        );
    }
}

#[test]
fn non_shell_tools_get_no_opinion() {
    for (agent, file) in [
        ("claude-code", "claude-read.json"),
        ("codex", "codex-other.json"),
        ("gemini", "gemini-other.json"),
        ("auto", "gemini-other.json"),
    ] {
        let o = hook(agent, &fixture(file), &[]);
        assert_eq!(o.status.code(), Some(0));
        assert!(
            o.stdout.is_empty(),
            "{agent} {file}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
}

#[test]
fn malformed_or_empty_input_is_denied() {
    for agent in ["claude-code", "codex"] {
        for input in [
            &b""[..],
            b"   \n",
            b"{not json",
            b"[1,2]",
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}"#,
        ] {
            let v = json_out(&hook(agent, input, &[]));
            assert_eq!(
                v["hookSpecificOutput"]["permissionDecision"],
                "deny",
                "{agent} {:?}",
                String::from_utf8_lossy(input)
            );
        }
    }
    for input in [
        &b""[..],
        b"{oops",
        br#"{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{}}"#,
    ] {
        let v = json_out(&hook("gemini", input, &[]));
        assert_eq!(
            v["decision"],
            "deny",
            "{:?}",
            String::from_utf8_lossy(input)
        );
    }
    let v = json_out(&hook("json", b"", &[]));
    assert_eq!(v["decision"], "deny");
}

#[test]
fn codex_payloads() {
    for agent in ["codex", "auto"] {
        assert_eq!(
            json_out(&hook(agent, &fixture("codex-allow.json"), &[])),
            pre_tool_use(
                "allow",
                "shellgate: allow: cargo build, test or check [rule: cargo-build]"
            )
        );
        let deny = json_out(&hook(agent, &fixture("codex-deny.json"), &[]));
        assert_eq!(deny["hookSpecificOutput"]["permissionDecision"], "deny");
        let ask = json_out(&hook(agent, &fixture("codex-ask.json"), &[]));
        assert_eq!(ask["hookSpecificOutput"]["permissionDecision"], "ask");
        assert!(
            ask["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .contains("npm install:*")
        );
    }
}

#[test]
fn gemini_payloads() {
    for agent in ["gemini", "auto"] {
        assert_eq!(
            json_out(&hook(agent, &fixture("gemini-allow.json"), &[])),
            json!({"decision": "allow", "reason": "shellgate: allow: read-only inspection [rule: read-only-tools]"})
        );
        assert_eq!(
            json_out(&hook(agent, &fixture("gemini-ask.json"), &[]))["decision"],
            "ask"
        );
        assert_eq!(
            json_out(&hook(agent, &fixture("gemini-deny.json"), &[])),
            json!({"decision": "deny", "reason": "shellgate: deny: privilege escalation is never run by an agent [rule: sudo]. Do not retry this command in another form; do the task another way or ask the user."})
        );
    }
}

#[test]
fn generic_json_mode_returns_the_verdict() {
    let v = json_out(&hook(
        "json",
        br#"{"command":"ls && sudo id","cwd":"/tmp"}"#,
        &[],
    ));
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["rules"][0], "sudo");
}

#[test]
fn a_policy_that_does_not_load_denies() {
    let dir = std::env::temp_dir().join(format!("sg-hook-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[[rule]]\nid = 1\n").unwrap();
    let v = json_out(&hook(
        "claude-code",
        &fixture("claude-allow.json"),
        &["--policy", bad.to_str().unwrap()],
    ));
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(
        v["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("policy does not load")
    );
}

#[test]
fn concurrent_audit_writers_never_interleave() {
    let log = std::env::temp_dir().join(format!("sg-audit-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let batch: String = (0..200)
        .map(|i| {
            format!(
                "{{\"id\":{i},\"command\":\"echo {}\"}}\n",
                "x".repeat(i * 7)
            )
        })
        .collect();
    let children: Vec<_> = (0..8)
        .map(|_| {
            let mut c = Command::new(env!("CARGO_BIN_EXE_shellgate"))
                .env("XDG_CONFIG_HOME", "/nonexistent-shellgate-test")
                .args(["check", "--batch", "--audit"])
                .arg(&log)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            c.stdin.take().unwrap().write_all(batch.as_bytes()).unwrap();
            c
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1600);
    for l in lines {
        let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("torn line ({e}): {l}"));
        assert_eq!(v["event"], "decision");
    }
    std::fs::remove_file(&log).unwrap();
}
