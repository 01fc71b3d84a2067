//! `shellgate hook claude-code|codex|gemini|auto|json`.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::{HookAgent, HookArgs, PolicyArgs};
use super::audit;
use crate::Decision;
use crate::integrations::hook::{Agent, Request, answer, reason, request};

/// Runs a hook: always exits 0 with the decision on stdout (no output: no opinion).
pub fn run(args: &HookArgs) -> ExitCode {
    let agent = match args.agent {
        HookAgent::ClaudeCode => Agent::ClaudeCode,
        HookAgent::Codex => Agent::Codex,
        HookAgent::Gemini => Agent::Gemini,
        HookAgent::Json | HookAgent::Auto => Agent::Json,
    };
    let mut input = Vec::new();
    let read = std::io::stdin().take(16 << 20).read_to_end(&mut input);
    let (agent, req) = match read {
        Ok(_) => request(agent, &input),
        Err(e) => (
            agent,
            Request::Bad(format!("cannot read the hook input: {e}")),
        ),
    };
    let out = match req {
        Request::NotShell => return ExitCode::SUCCESS,
        Request::Bad(why) => answer(
            agent,
            Decision::Deny,
            &format!("shellgate: deny: {why}"),
            None,
        ),
        Request::Command { command, cwd } => decide(agent, &args.policy, &command, cwd),
    };
    if let Some(s) = out.stdout {
        println!("{s}");
    }
    ExitCode::SUCCESS
}

fn decide(
    agent: Agent,
    policy: &PolicyArgs,
    command: &str,
    cwd: Option<String>,
) -> crate::integrations::hook::HookAnswer {
    let mut p = policy.clone();
    if p.cwd.is_none() {
        p.cwd = cwd.map(PathBuf::from);
    }
    let loaded = match p.load() {
        Ok(l) => l,
        Err(e) => {
            let why = super::args::render_policy_error(&e, super::args::ErrorFormat::Plain);
            let first = why
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("policy error")
                .trim()
                .to_owned();
            return answer(
                agent,
                Decision::Deny,
                &format!("shellgate: deny: the policy does not load: {first}"),
                None,
            );
        }
    };
    let verdict = crate::check(command, &loaded.policy);
    if let Some(path) = &p.audit
        && let Err(e) = audit::record(path, command, &verdict, &loaded.layers)
    {
        return answer(
            agent,
            Decision::Deny,
            &format!("shellgate: deny: the audit log cannot be written: {e}"),
            None,
        );
    }
    let out = answer(agent, verdict.decision, &reason(&verdict), Some(&verdict));
    // The process ends after this answer: freeing the policy rule by rule
    // would cost a hook call more than deciding did.
    std::mem::forget(loaded);
    out
}
