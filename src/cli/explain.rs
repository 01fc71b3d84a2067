//! `shellgate explain`: the whole pipeline for one command, for a person (or `--json`).

use std::fmt::Write;
use std::process::ExitCode;

use serde_json::json;

use super::args::{ExplainArgs, required_command};
use super::exit;
use super::render::one_line;
use crate::parse::{Part, Word};
use crate::policy::RuleOutcome;
use crate::validate::Step;

/// Runs `explain`.
pub fn run(args: &ExplainArgs) -> ExitCode {
    let loaded = match args.policy.load_or_report() {
        Ok(l) => l,
        Err(code) => return code,
    };
    let bytes = match required_command(&args.command, "explain") {
        Ok(b) => b,
        Err(code) => return code,
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (mut verdict, trace) = crate::check_traced(&text, &loaded.policy, true);
    if std::str::from_utf8(&bytes).is_err() {
        verdict = crate::check_bytes(&bytes, &loaded.policy);
    }
    let layer_of = |id: &str| {
        loaded
            .policy
            .rules
            .iter()
            .find(|r| r.id == id)
            .map(|r| r.layer.clone())
            .unwrap_or_default()
    };
    if args.json {
        let value = json!({
            "command": text,
            "layers": loaded.layers.iter().map(|(n, p)| json!({"layer": n, "path": p})).collect::<Vec<_>>(),
            "script": trace.script,
            "validators": trace.findings.iter().map(|(code, f)| json!({"code": code, "steps": f.steps})).collect::<Vec<_>>(),
            "invocations": trace.plan.invocations.iter().zip(&trace.decisions).map(|(inv, d)| json!({
                "invocation": inv,
                "decision": d.decision,
                "rule": d.rule,
                "layer": d.rule.as_deref().map(layer_of),
                "reason": d.reason,
                "considered": d.considered.iter().map(|(id, o)| json!({"rule": id, "layer": layer_of(id), "outcome": o})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "issues": trace.script.issues.iter().chain(&trace.plan.issues).map(ToString::to_string).collect::<Vec<_>>(),
            "verdict": verdict,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&value).unwrap_or_default()
        );
        return exit(verdict.exit_code());
    }
    let mut out = String::new();
    let _ = writeln!(out, "command: {}", one_line(&text));
    let _ = writeln!(
        out,
        "layers:  {}",
        loaded
            .layers
            .iter()
            .map(|(n, p)| format!("{n} ({p})"))
            .collect::<Vec<_>>()
            .join(" < ")
    );
    let _ = writeln!(
        out,
        "\n1. parse: {} simple command(s)",
        trace.script.commands.len()
    );
    for (i, c) in trace.script.commands.iter().enumerate() {
        let words: Vec<String> = c.argv.iter().map(describe_word).collect();
        let ctx = c.context.labels();
        let rel = c
            .parent
            .map(|p| format!(" inside #{p}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "   #{i} {}{rel}{}",
            words.join(" "),
            if ctx.is_empty() {
                String::new()
            } else {
                format!("  [{}]", ctx.join(", "))
            }
        );
        for a in &c.assignments {
            let _ = writeln!(out, "      assigns {}", a.name);
        }
        for r in &c.redirects {
            let target = r
                .target
                .as_ref()
                .map(describe_word)
                .unwrap_or_else(|| "(heredoc)".into());
            let _ = writeln!(out, "      redirect {} {target} ({:?})", r.op, r.kind);
        }
    }
    for issue in trace.script.issues.iter().chain(&trace.plan.issues) {
        let _ = writeln!(out, "   ! {issue}");
    }
    let _ = writeln!(out, "\n2. validate");
    for (code, f) in &trace.findings {
        if code != "command" {
            let _ = writeln!(out, "   nested code: {}", one_line(code));
        }
        for step in &f.steps {
            let text = match &step.step {
                Step::Passthrough => "pass".to_owned(),
                Step::Allow(r) => format!("ALLOW (skip the rest): {r}"),
                Step::Ask(r) => format!("ASK: {r}"),
            };
            let _ = writeln!(out, "   {:22} {}", step.validator, one_line(&text));
        }
    }
    let _ = writeln!(out, "\n3. strip");
    for inv in &trace.plan.invocations {
        let argv: Vec<String> = inv.argv.iter().map(Word::pattern).collect();
        let mut notes = Vec::new();
        if !inv.stripped.is_empty() {
            notes.push(format!("stripped: {}", inv.stripped.join(" | ")));
        }
        if let Some(v) = &inv.via {
            notes.push(format!("run by {v}"));
        }
        let _ = writeln!(
            out,
            "   {}{}",
            one_line(&argv.join(" ")),
            if notes.is_empty() {
                String::new()
            } else {
                format!("   ({})", notes.join("; "))
            }
        );
    }
    let _ = writeln!(out, "\n4. match");
    for (inv, d) in trace.plan.invocations.iter().zip(&trace.decisions) {
        let argv: Vec<String> = inv.argv.iter().map(Word::pattern).collect();
        let _ = writeln!(
            out,
            "   {} → {}: {}",
            one_line(&argv.join(" ")),
            d.decision.as_str(),
            one_line(&d.reason)
        );
        for (id, outcome) in &d.considered {
            let what = match outcome {
                RuleOutcome::Matched => "matched".to_owned(),
                RuleOutcome::NotMatched(why) => format!("no: {why}"),
            };
            let _ = writeln!(
                out,
                "      rule {id} [{}]: {}",
                layer_of(id),
                one_line(&what)
            );
        }
    }
    let _ = writeln!(out, "\n5. verdict");
    out.push_str(&super::render::verdict(&verdict));
    print!("{out}");
    exit(verdict.exit_code())
}

/// A word with its static/dynamic parts marked.
fn describe_word(w: &Word) -> String {
    if w.is_static() {
        return format!("{:?}", w.value().unwrap_or_default());
    }
    let parts: Vec<String> = w
        .parts
        .iter()
        .map(|p| match p {
            Part::Literal(s) => format!("{s:?}"),
            Part::Glob(s) => format!("glob({s})"),
            Part::Tilde(s) => format!("tilde({s})"),
            Part::Param(s) => format!("param({s})"),
            Part::Substitution(s) => format!("subst({})", one_line(s)),
            Part::Arithmetic(s) => format!("arith({s})"),
        })
        .collect();
    format!("<{}>", parts.join("+"))
}
