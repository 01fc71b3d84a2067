//! The audit log: one JSON line per decision, appended with `O_APPEND`.
//!
//! Each line is written with a single `write` call so that concurrent
//! shellgate processes never interleave partial lines.

use std::io::Write;
use std::path::Path;

use serde_json::json;

use crate::Verdict;

/// Appends one decision record.
///
/// # Errors
/// The I/O error; callers treat it as a reason to deny.
pub fn record(
    path: &Path,
    command: &str,
    verdict: &Verdict,
    layers: &[(String, String)],
) -> std::io::Result<()> {
    let line = json!({
        "event": "decision",
        "command": command,
        "decision": verdict.decision,
        "validator": verdict.validator,
        "rules": verdict.rules,
        "reasons": verdict.reasons,
        "layers": layers.iter().map(|(n, p)| json!({"layer": n, "path": p})).collect::<Vec<_>>(),
    });
    append(path, &line)
}

/// Appends one execution record.
///
/// # Errors
/// The I/O error.
pub fn record_run(path: &Path, result: &crate::exec::RunResult) -> std::io::Result<()> {
    let line = json!({
        "event": "execution",
        "canonical": result.command,
        "sandbox": result.sandbox,
        "exit_code": result.exit_code,
        "signal": result.signal,
        "timed_out": result.timed_out,
        "duration_ms": result.duration_ms,
        "artifact": result.output.artifact,
    });
    append(path, &line)
}

/// Appends one JSON line with a single `write` (`O_APPEND`): lines from
/// concurrent processes never interleave.
fn append(path: &Path, line: &serde_json::Value) -> std::io::Result<()> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let mut line = line.clone();
    if let Some(fields) = line.as_object_mut() {
        fields.insert("time".into(), json!(now));
    }
    let mut bytes = serde_json::to_vec(&line)?;
    bytes.push(b'\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(&bytes)
}
