//! Human-readable rendering of verdicts.

use std::fmt::Write;

use crate::Verdict;

/// A verdict for a person: decision, reasons, the deciding validator and rules, per-command breakdown.
pub fn verdict(v: &Verdict) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", v.decision.as_str().to_uppercase());
    for r in &v.reasons {
        let _ = writeln!(out, "  reason:     {}", one_line(r));
    }
    if let Some(name) = &v.validator {
        let _ = writeln!(out, "  validator:  {name}");
    }
    if !v.rules.is_empty() {
        let _ = writeln!(out, "  rules:      {}", v.rules.join(", "));
    }
    if !v.commands.is_empty() {
        let _ = writeln!(out, "  commands:");
        for c in &v.commands {
            let via = c
                .via
                .as_ref()
                .map(|w| format!(" (run by {w})"))
                .unwrap_or_default();
            let rule = c
                .rule
                .as_ref()
                .map(|r| format!("[{r}] "))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "    {:5}  {}{via}  — {rule}{}",
                c.decision.as_str(),
                one_line(&c.argv.join(" ")),
                one_line(&c.reason)
            );
        }
    }
    if let Some(s) = &v.suggestion {
        let _ = writeln!(
            out,
            "  suggestion: {s}   (`shellgate suggest -- …` prints it as a rule)"
        );
    }
    out
}

/// Newlines and control characters shown escaped, so a verdict fits on its lines.
pub fn one_line(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:04x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}
