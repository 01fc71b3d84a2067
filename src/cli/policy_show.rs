//! `shellgate policy show`: the effective merged policy, with the layer of every rule.

use std::fmt::Write;
use std::process::ExitCode;

use super::args::PolicyShowArgs;
use crate::policy::ProgramMatcher;

/// Runs `policy show`.
pub fn run(args: &PolicyShowArgs) -> ExitCode {
    let loaded = match args.policy.load_or_report() {
        Ok(l) => l,
        Err(code) => return code,
    };
    let p = &loaded.policy;
    if args.json {
        let rules: Vec<_> = p
            .rules
            .iter()
            .map(|r| serde_json::json!({"id": r.id, "decision": r.decision, "layer": r.layer, "reason": r.reason, "command": program(&r.program), "args": r.args_text}))
            .collect();
        let v = serde_json::json!({
            "layers": loaded.layers.iter().map(|(n, path)| serde_json::json!({"layer": n, "path": path})).collect::<Vec<_>>(),
            "default": p.default,
            "interactive": p.interactive.unwrap_or(true),
            "notes": loaded.notes,
            "rules": rules,
        });
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return ExitCode::SUCCESS;
    }
    let mut out = String::new();
    let _ = writeln!(out, "# effective shellgate policy");
    for (name, path) in &loaded.layers {
        let _ = writeln!(out, "# layer: {name:18} {path}");
    }
    for note in &loaded.notes {
        let _ = writeln!(out, "# note: {note}");
    }
    let _ = writeln!(out, "default = \"{}\"", p.default.as_str());
    if p.interactive == Some(false) {
        let _ = writeln!(out, "interactive = false");
    }
    for r in &p.rules {
        let _ = writeln!(out, "\n[[rule]]  # from {}", r.layer);
        let _ = writeln!(out, "id = {:?}", r.id);
        let _ = writeln!(out, "decision = \"{}\"", r.decision.as_str());
        if let Some(c) = program(&r.program) {
            let _ = writeln!(out, "command = {c:?}");
        }
        if !r.args_text.is_empty() {
            let _ = writeln!(out, "args = {:?}", r.args_text);
        }
        if !r.require_flags.is_empty() {
            let _ = writeln!(out, "require_flags = {:?}", r.require_flags);
        }
        if !r.forbid_flags.is_empty() {
            let _ = writeln!(out, "forbid_flags = {:?}", r.forbid_flags);
        }
        if !r.input_from.is_empty() {
            let _ = writeln!(out, "input_from = {:?}", r.input_from);
        }
        if !r.reason.is_empty() {
            let _ = writeln!(out, "reason = {:?}", r.reason);
        }
    }
    print!("{out}");
    ExitCode::SUCCESS
}

fn program(p: &ProgramMatcher) -> Option<Vec<String>> {
    match p {
        ProgramMatcher::Any => None,
        ProgramMatcher::Exact(v) => Some(v.clone()),
        ProgramMatcher::Glob(g) => Some(g.patterns().to_vec()),
    }
}
