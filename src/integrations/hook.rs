//! Agent pre-execution hooks: payload in, decision out, never a silent allow.
//!
//! Supported payloads (pinned in `tests/fixtures/hooks/`):
//! - Claude Code `PreToolUse`: `tool_name` `Bash`, `tool_input.command`, `cwd`;
//!   answer `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
//!   "permissionDecision": …, "permissionDecisionReason": …}}`.
//! - Codex `PreToolUse`: the same shape, also carrying `turn_id`, `model`,
//!   `tool_use_id`; the command may be an argv array (`["bash", "-lc", "…"]`).
//! - Gemini CLI `BeforeTool`: `tool_name` `run_shell_command`; answer
//!   `{"decision": …, "reason": …}`.
//! - Generic: `{"command": …, "cwd": …}`; answer the verdict JSON.
//!
//! Malformed input, a missing command, a policy that does not load or an
//! internal error are answered with deny and the reason.

use serde_json::{Value, json};

use crate::{Decision, Verdict};

/// Which agent's protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code `PreToolUse`.
    ClaudeCode,
    /// Codex CLI `PreToolUse`.
    Codex,
    /// Gemini CLI `BeforeTool`.
    Gemini,
    /// `{"command", "cwd"}` in, verdict out.
    Json,
}

/// Tool names that run shell commands, per agent.
fn is_shell_tool(agent: Agent, name: &str) -> bool {
    match agent {
        Agent::ClaudeCode => name == "Bash",
        Agent::Codex => matches!(
            name,
            "Bash" | "shell" | "local_shell" | "exec_command" | "container.exec"
        ),
        Agent::Gemini => matches!(name, "run_shell_command" | "shell"),
        Agent::Json => true,
    }
}

/// Tells the agents apart from a payload.
pub fn detect(payload: &Value) -> Agent {
    let event = payload.get("hook_event_name").and_then(Value::as_str);
    let tool = payload.get("tool_name").and_then(Value::as_str);
    if event == Some("BeforeTool") || tool == Some("run_shell_command") {
        Agent::Gemini
    } else if payload.get("turn_id").is_some()
        || payload.get("model").is_some() && event == Some("PreToolUse")
    {
        Agent::Codex
    } else if event == Some("PreToolUse") || tool.is_some() {
        Agent::ClaudeCode
    } else {
        Agent::Json
    }
}

/// What the hook prints and its exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookAnswer {
    /// stdout (none: no opinion).
    pub stdout: Option<String>,
    /// The decision, when one was made.
    pub decision: Option<Decision>,
}

/// The request a payload carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Judge this command in this working directory.
    Command {
        /// The command text.
        command: String,
        /// The agent's working directory.
        cwd: Option<String>,
    },
    /// A tool that is not a shell: no opinion.
    NotShell,
    /// Unusable input: deny with this reason.
    Bad(String),
}

/// Reads a payload.
pub fn request(agent: Agent, stdin: &[u8]) -> (Agent, Request) {
    if stdin.iter().all(u8::is_ascii_whitespace) {
        return (agent, Request::Bad("empty hook input".into()));
    }
    let payload: Value = match serde_json::from_slice(stdin) {
        Ok(v) => v,
        Err(e) => return (agent, Request::Bad(format!("malformed hook input: {e}"))),
    };
    if !payload.is_object() {
        return (
            agent,
            Request::Bad("hook input is not a JSON object".into()),
        );
    }
    let agent = if agent == Agent::Json && payload.get("command").is_none() {
        detect(&payload)
    } else {
        agent
    };
    let cwd = payload
        .get("cwd")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if agent == Agent::Json {
        return match payload.get("command").and_then(Value::as_str) {
            Some(c) => (
                agent,
                Request::Command {
                    command: c.to_owned(),
                    cwd,
                },
            ),
            None => (
                agent,
                Request::Bad("no `command` string in the input".into()),
            ),
        };
    }
    let Some(tool) = payload.get("tool_name").and_then(Value::as_str) else {
        return (
            agent,
            Request::Bad("no `tool_name` in the hook input".into()),
        );
    };
    if !is_shell_tool(agent, tool) {
        return (agent, Request::NotShell);
    }
    let input = payload.get("tool_input");
    let command = match input.and_then(|i| i.get("command")) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(items)) => argv_command(items),
        _ => None,
    };
    let cwd = cwd.or_else(|| {
        input
            .and_then(|i| i.get("workdir").or_else(|| i.get("dir_path")))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    match command {
        Some(command) => (agent, Request::Command { command, cwd }),
        None => (agent, Request::Bad("no command in `tool_input`".into())),
    }
}

/// `["bash", "-lc", "script"]` is the script; any other argv is quoted back into one command.
fn argv_command(items: &[Value]) -> Option<String> {
    let words: Option<Vec<String>> = items
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect();
    let words = words?;
    match words.as_slice() {
        [shell, flag, script]
            if matches!(
                shell.as_str(),
                "bash" | "sh" | "zsh" | "/bin/bash" | "/bin/sh"
            ) && matches!(flag.as_str(), "-c" | "-lc") =>
        {
            Some(script.clone())
        }
        [] => None,
        _ => Some(shell_words::join(words)),
    }
}

/// The reason text an agent (and its model) sees.
pub fn reason(v: &Verdict) -> String {
    let mut out = format!("shellgate: {}", v.decision.as_str());
    if !v.reasons.is_empty() {
        out.push_str(&format!(": {}", v.reasons.join("; ")));
    }
    if !v.rules.is_empty() {
        out.push_str(&format!(" [rule: {}]", v.rules.join(", ")));
    }
    match (v.decision, &v.suggestion) {
        (Decision::Deny, _) => out.push_str(
            ". Do not retry this command in another form; do the task another way or ask the user.",
        ),
        (Decision::Ask, Some(s)) => out.push_str(&format!(
            ". To allow it next time: `{s}` (shellgate suggest -- …)"
        )),
        _ => {}
    }
    out
}

/// Formats the answer for `agent`.
pub fn answer(
    agent: Agent,
    decision: Decision,
    reason: &str,
    verdict: Option<&Verdict>,
) -> HookAnswer {
    let body = match agent {
        Agent::ClaudeCode | Agent::Codex => json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": decision.as_str(),
                "permissionDecisionReason": reason,
            }
        }),
        Agent::Gemini => json!({"decision": decision.as_str(), "reason": reason}),
        Agent::Json => match verdict {
            Some(v) => serde_json::to_value(v).unwrap_or(Value::Null),
            None => serde_json::to_value(Verdict::refused(decision, reason)).unwrap_or(Value::Null),
        },
    };
    HookAnswer {
        stdout: Some(body.to_string()),
        decision: Some(decision),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_agents() {
        let claude = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}});
        let codex = json!({"hook_event_name": "PreToolUse", "turn_id": "t", "model": "m", "tool_name": "Bash"});
        let gemini = json!({"hook_event_name": "BeforeTool", "tool_name": "run_shell_command"});
        assert_eq!(detect(&claude), Agent::ClaudeCode);
        assert_eq!(detect(&codex), Agent::Codex);
        assert_eq!(detect(&gemini), Agent::Gemini);
    }

    #[test]
    fn codex_argv_commands() {
        let items = vec![json!("bash"), json!("-lc"), json!("git status")];
        assert_eq!(argv_command(&items).as_deref(), Some("git status"));
        let items = vec![json!("ls"), json!("my dir")];
        assert_eq!(argv_command(&items).as_deref(), Some("ls 'my dir'"));
    }
}
