//! `shellgate mcp` driven by the official MCP Python SDK (`tests/mcp/client.py`):
//! lists the tools, runs an allowed command, gets a tool error for a denied
//! one, and answers an ask's elicitation both yes and no.
//! Needs the SDK (`.ci/run` installs it into a virtual environment and names
//! its interpreter in `SHELLGATE_TEST_PYTHON`). Without it the test reports a
//! visible SKIP — and fails under CI (`CI` set), where it must run.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    reason = "tests"
)]

use std::process::Command;

#[test]
fn python_sdk_client_drives_the_server() {
    let python = std::env::var("SHELLGATE_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_sdk = Command::new(&python)
        .args(["-c", "import mcp"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_sdk {
        let why = format!(
            "the MCP Python SDK is missing for `{python}` (python3 -m venv v && v/bin/pip install mcp==2.3.0, then SHELLGATE_TEST_PYTHON=v/bin/python)"
        );
        assert!(std::env::var_os("CI").is_none(), "{why}");
        eprintln!("SKIP python_sdk_client_drives_the_server: {why}");
        return;
    }
    let work = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("mcp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let out = Command::new(&python)
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/client.py"))
        .arg(env!("CARGO_BIN_EXE_shellgate"))
        .arg(&work)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "client failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(work.join("approved-True").exists());
    assert!(!work.join("approved-False").exists());
}
