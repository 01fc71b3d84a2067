//! `shellgate mcp` driven by the official MCP Python SDK (`tests/mcp/client.py`):
//! lists the tools, runs an allowed command, gets a tool error for a denied
//! one, and answers an ask's elicitation both yes and no.
//! Needs `pip install mcp` (`.ci/run` installs it); without it the test fails and says so.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    reason = "tests"
)]

use std::process::Command;

#[test]
fn python_sdk_client_drives_the_server() {
    let has_sdk = Command::new("python3")
        .args(["-c", "import mcp"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        has_sdk,
        "the MCP Python SDK is missing: `pip install mcp` (CI installs it)"
    );
    let work = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("mcp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let out = Command::new("python3")
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
