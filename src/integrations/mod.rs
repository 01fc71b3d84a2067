//! Integrations: agent hooks (Claude Code, Codex, Gemini CLI, generic JSON).

pub mod hook;
