//! shellgate: a security-policy engine between an AI coding agent and the shell.
//!
//! ```text
//! command text ──► parse ──► validate ──► strip ──► match ──► Verdict
//!                tree-sitter  ordered     safe       TOML
//!                → Script IR  chain       wrappers   policy
//! ```
//!
//! [`check`] runs the whole pipeline. A command is allowed only when every
//! program it would run was seen and allowed by a rule, no validator asked,
//! and the parse modelled the whole command. Errors never allow.
//!
//! # Hazards
//! What shellgate judges is the text it was given, read as bash reads it.
//! It does not see the environment the command will run in (exported
//! functions, aliases, a repository's own git configuration), which is why
//! allowed commands should still run in the sandbox of the executor.

pub mod canonical;
pub mod cli;
pub mod exec;
pub mod integrations;
pub mod parse;
pub mod policy;
pub mod sink;
pub mod strip;
pub mod validate;
pub mod verdict;

pub use policy::{Decision, Policy, PolicyError};
pub use verdict::Verdict;

use parse::Script;
use strip::Plan;
use validate::Findings;

/// Everything the pipeline computed for one command (for `explain`).
#[derive(Debug, Clone)]
pub struct Trace {
    /// The IR.
    pub script: Script,
    /// The validator chain's steps, top-level code first, then nested code.
    pub findings: Vec<(String, Findings)>,
    /// The stripped invocations.
    pub plan: Plan,
    /// Per-invocation decisions (with every rule considered).
    pub decisions: Vec<policy::InvocationDecision>,
}

/// Judges a command under a policy.
///
/// # Examples
/// ```
/// let policy = shellgate::Policy::embedded().unwrap();
/// assert_eq!(shellgate::check("git status", &policy).decision, shellgate::Decision::Allow);
/// assert_eq!(shellgate::check("r\"\"m -rf /", &policy).decision, shellgate::Decision::Deny);
/// ```
pub fn check(text: &str, policy: &Policy) -> Verdict {
    check_traced(text, policy, false).0
}

/// Judges a command given as bytes: text that is not UTF-8 is never allowed.
pub fn check_bytes(bytes: &[u8], policy: &Policy) -> Verdict {
    match std::str::from_utf8(bytes) {
        Ok(text) => check(text, policy),
        Err(e) => {
            let lossy = String::from_utf8_lossy(bytes);
            let mut v = check(&lossy, policy);
            if v.decision == Decision::Allow {
                v.decision = Decision::Ask;
            }
            v.suggestion = None;
            v.canonical = None;
            v.reasons.insert(
                0,
                format!(
                    "the command is not valid UTF-8 (at byte {})",
                    e.valid_up_to()
                ),
            );
            v
        }
    }
}

/// Judges a command and returns the full trace too (`trace` records every rule considered).
pub fn check_traced(text: &str, policy: &Policy, trace: bool) -> (Verdict, Trace) {
    let script = parse::parse(text);
    let mut findings = vec![("command".to_owned(), validate::run(text, &script))];
    let plan = strip::strip(&script, &policy.strip_options());
    for nested in &plan.nested {
        findings.push((
            nested.text.clone(),
            validate::run(&nested.text, &nested.script),
        ));
    }
    let mut decisions = policy.decide(&plan, trace);
    cap_phantom_commands(text, &script, &findings, &plan, &mut decisions);

    let mut decision = decisions
        .iter()
        .map(|d| d.decision)
        .max()
        .unwrap_or(Decision::Allow);
    let mut reasons: Vec<String> = Vec::new();
    let issues: Vec<String> = script
        .issues
        .iter()
        .chain(plan.issues.iter())
        .map(ToString::to_string)
        .collect();
    let asked = findings
        .iter()
        .find_map(|(_, f)| f.ask().map(|(n, r)| (n, r.to_owned())));
    if !issues.is_empty() || asked.is_some() {
        decision = decision.max(Decision::Ask);
    }
    for d in decisions.iter().filter(|d| d.decision == decision) {
        if !reasons.contains(&d.reason) {
            reasons.push(d.reason.clone());
        }
    }
    if decision == Decision::Ask {
        if let Some((name, reason)) = &asked {
            reasons.insert(0, format!("{name}: {reason}"));
        }
        reasons.splice(0..0, issues.iter().cloned());
    }
    let rules: Vec<String> = decisions
        .iter()
        .filter(|d| d.decision == decision)
        .filter_map(|d| d.rule.clone())
        .fold(Vec::new(), |mut acc, r| {
            if !acc.contains(&r) {
                acc.push(r);
            }
            acc
        });
    let validator = findings
        .first()
        .and_then(|(_, f)| f.decisive.as_ref())
        .map(|f| f.validator.to_owned())
        .or_else(|| asked.as_ref().map(|(n, _)| (*n).to_owned()));
    let suggestion = if decision == Decision::Ask && issues.is_empty() && asked.is_none() {
        suggest(&plan, &decisions)
    } else {
        None
    };
    let suggestion = if policy.interactive == Some(false) && decision == Decision::Ask {
        decision = Decision::Deny;
        reasons.insert(
            0,
            "non-interactive policy: nobody can approve, so ask becomes deny".to_owned(),
        );
        None
    } else {
        suggestion
    };
    let canonical = canonical::render(text, &script).filter(|_| plan.issues.is_empty());
    let verdict = Verdict {
        id: None,
        canonical,
        decision,
        reasons,
        validator,
        rules,
        commands: verdict::command_verdicts(&plan.invocations, &decisions),
        suggestion,
    };
    (
        verdict,
        Trace {
            script,
            findings,
            plan,
            decisions,
        },
    )
}

/// When bash and tree-sitter end a heredoc in different places, commands that
/// tree-sitter found inside what bash reads as heredoc text never run: they
/// cannot make the verdict deny (the desync already makes it ask).
fn cap_phantom_commands(
    text: &str,
    script: &Script,
    findings: &[(String, Findings)],
    plan: &Plan,
    decisions: &mut [policy::InvocationDecision],
) {
    let desync = findings
        .first()
        .and_then(|(_, f)| f.ask())
        .is_some_and(|(name, _)| name == "heredoc-desync");
    if !desync {
        return;
    }
    let bodies = validate::Views::new(text).heredocs;
    let mut inside: Vec<usize> = Vec::new();
    for (i, cmd) in script.commands.iter().enumerate() {
        if bodies
            .iter()
            .any(|(start, end)| cmd.span.start >= *start && cmd.span.start < *end)
        {
            inside.push(i);
        }
    }
    // Nested units hang off a top-level command: follow parents up to it.
    let top = |mut u: usize| {
        while let Some(p) = plan.units.get(u).and_then(|x| x.parent) {
            u = p;
        }
        u
    };
    for (inv, d) in plan.invocations.iter().zip(decisions.iter_mut()) {
        if inside.contains(&top(inv.origin)) && d.decision == Decision::Deny {
            d.decision = Decision::Ask;
            d.reason = format!("{} (in text bash reads as a heredoc body)", d.reason);
        }
    }
}

/// The suggestion for an ask verdict: every asking invocation must be fixable by an allow rule.
fn suggest(plan: &Plan, decisions: &[policy::InvocationDecision]) -> Option<String> {
    let mut out: Vec<String> = Vec::new();
    for (inv, d) in plan.invocations.iter().zip(decisions) {
        if d.decision != Decision::Ask {
            continue;
        }
        if d.rule.is_some() || !d.reason.starts_with("no rule matches") {
            return None;
        }
        let s = verdict::suggestion_for(inv)?;
        if !out.contains(&s) {
            out.push(s);
        }
    }
    (!out.is_empty()).then(|| out.join(", "))
}
