//! Integrations: agent hooks (Claude Code, Codex, Gemini CLI, generic JSON) and the MCP server.

pub mod hook;
pub mod mcp;
