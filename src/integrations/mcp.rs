//! `shellgate mcp`: an MCP server on stdio (rmcp) whose `bash` tool is gated
//! by the policy and sandboxed by the executor.
//!
//! allow → run and return the bounded output, exit code, meaning and artifact
//! path; deny → a tool error with the reason; ask → ask the person through
//! the client (MCP elicitation) when the client supports it, otherwise a tool
//! error saying approval is needed and how to grant it. `check` returns the
//! verdict without running; `jobs`, `job_output` and `job_kill` manage
//! background jobs.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::service::ElicitationError;
use rmcp::{
    ErrorData, Peer, RoleServer, ServerHandler, ServiceExt, schemars, tool, tool_handler,
    tool_router,
};
use serde::{Deserialize, Serialize};

use crate::Decision;
use crate::cli::args::PolicyArgs;
use crate::exec::{self, RunOptions};

/// Arguments of the `bash` tool.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct BashArgs {
    /// The shell command.
    pub command: String,
    /// Working directory (default: the server's).
    pub cwd: Option<String>,
    /// Seconds before the whole process group is ended (default 120).
    pub timeout: Option<f64>,
    /// Give the command a terminal.
    pub pty: Option<bool>,
    /// Start in the background and return a job id.
    pub background: Option<bool>,
}

/// Arguments of the `check` tool.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CheckArgs {
    /// The shell command.
    pub command: String,
    /// Working directory whose policy layers apply.
    pub cwd: Option<String>,
}

/// Arguments naming a job.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct JobArgs {
    /// The job id.
    pub id: String,
}

/// The person's answer to an ask.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Approval {
    /// Run this command?
    pub approve: bool,
}
rmcp::elicit_safe!(Approval);

/// The server.
#[derive(Clone)]
pub struct Gate {
    policy: Arc<PolicyArgs>,
    no_sandbox: bool,
    tool_router: ToolRouter<Self>,
}

fn text(s: impl Into<String>) -> Vec<ContentBlock> {
    vec![ContentBlock::text(s.into())]
}

#[tool_router]
impl Gate {
    /// A server deciding with these policy options.
    pub fn new(policy: PolicyArgs, no_sandbox: bool) -> Gate {
        Gate {
            policy: Arc::new(policy),
            no_sandbox,
            tool_router: Self::tool_router(),
        }
    }

    /// The server's workspace: its `--cwd`, else the directory it started in.
    /// The model's arguments can never move it.
    fn workspace(&self) -> PathBuf {
        let w = self.policy.workspace();
        std::fs::canonicalize(&w).unwrap_or(w)
    }

    /// Policy options for a tool call whose `cwd` (relative to the workspace)
    /// must resolve inside the workspace; the resolved directory comes back too.
    fn args_for(&self, cwd: Option<&str>) -> Result<(PolicyArgs, PathBuf), String> {
        let workspace = self.workspace();
        let dir = match cwd {
            None => workspace.clone(),
            Some(c) => {
                let joined = workspace.join(c);
                let real = std::fs::canonicalize(&joined)
                    .map_err(|e| format!("cwd `{c}` cannot be used: {e}"))?;
                if !real.starts_with(&workspace) || !real.is_dir() {
                    return Err(format!(
                        "cwd `{c}` is outside the server's workspace `{}`; commands run only inside it (start the server with --cwd to choose another workspace)",
                        workspace.display()
                    ));
                }
                real
            }
        };
        let mut p = (*self.policy).clone();
        p.cwd = Some(dir.clone());
        Ok((p, dir))
    }

    #[tool(
        description = "Run a shell command. shellgate checks it against the policy first: allowed commands run in a sandbox and return their output; denied ones return an error with the reason; others need the user's approval."
    )]
    async fn bash(
        &self,
        Parameters(args): Parameters<BashArgs>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (policy, dir) = match self.args_for(args.cwd.as_deref()) {
            Ok(x) => x,
            Err(e) => return Ok(CallToolResult::error(text(e))),
        };
        let loaded = match policy.load() {
            Ok(l) => l,
            Err(e) => {
                return Ok(CallToolResult::error(text(format!(
                    "denied: the policy does not load: {e}"
                ))));
            }
        };
        let verdict = crate::check(&args.command, &loaded.policy);
        let reason = crate::integrations::hook::reason(&verdict);
        let approved = match verdict.decision {
            Decision::Deny => return Ok(CallToolResult::error(text(reason))),
            Decision::Allow => verdict.approve(&args.command),
            Decision::Ask => {
                let message = format!("Run this command?\n\n{}\n\n{reason}", args.command);
                match peer
                    .elicit_with_timeout::<Approval>(message, Some(Duration::from_secs(300)))
                    .await
                {
                    Ok(Some(Approval { approve: true })) => verdict.approve_asked(&args.command),
                    Ok(_)
                    | Err(ElicitationError::UserDeclined)
                    | Err(ElicitationError::UserCancelled) => {
                        return Ok(CallToolResult::error(text(format!(
                            "not approved by the user: {reason}"
                        ))));
                    }
                    Err(ElicitationError::CapabilityNotSupported) => {
                        return Ok(CallToolResult::error(text(format!(
                            "approval needed: {reason}. This client cannot ask the user; they can approve by running `shellgate run -- {}` in a terminal, or add the suggested rule to their policy.",
                            args.command
                        ))));
                    }
                    Err(e) => {
                        return Ok(CallToolResult::error(text(format!(
                            "approval failed ({e}): {reason}"
                        ))));
                    }
                }
            }
        };
        let Some(approved) = approved else {
            return Ok(CallToolResult::error(text(reason)));
        };
        let workspace = self.workspace();
        let mut opts = RunOptions::for_workspace(
            &workspace,
            loaded.policy.sandbox.as_ref(),
            self.no_sandbox,
            false,
        );
        opts.cwd = dir;
        opts.timeout = Some(Duration::from_secs_f64(
            args.timeout.filter(|t| *t > 0.0).unwrap_or(120.0),
        ));
        opts.pty = args.pty.unwrap_or(false);
        if args.background.unwrap_or(false) {
            return Ok(match exec::jobs::start(approved.command(), &opts) {
                Ok((id, _)) => CallToolResult::success(text(format!("started job {id}"))),
                Err(e) => CallToolResult::error(text(format!("cannot start the job: {e}"))),
            });
        }
        let program = RunOptions::reported_program(&verdict);
        let result =
            tokio::task::spawn_blocking(move || exec::run(&approved, program.as_deref(), &opts))
                .await;
        Ok(match result {
            Ok(Ok(r)) => {
                let mut body = r.output.shown.clone();
                body.push_str(&format!(
                    "\n[exit {}{}; {} bytes, {} lines{}; sandbox {}]",
                    r.exit_code.map_or_else(|| "-".into(), |c| c.to_string()),
                    r.meaning
                        .as_ref()
                        .map(|m| format!(": {m}"))
                        .unwrap_or_default(),
                    r.output.total_bytes,
                    r.output.total_lines,
                    r.output
                        .artifact
                        .as_ref()
                        .map(|a| format!("; full output in {}", a.display()))
                        .unwrap_or_default(),
                    r.sandbox.status
                ));
                if r.exit_code == Some(0) {
                    CallToolResult::success(text(body))
                } else {
                    CallToolResult::error(text(body))
                }
            }
            Ok(Err(e)) => CallToolResult::error(text(format!("not run: {e}"))),
            Err(e) => CallToolResult::error(text(format!("internal error: {e}"))),
        })
    }

    #[tool(
        description = "Return shellgate's verdict (allow, ask or deny, with reasons) for a shell command without running it."
    )]
    async fn check(
        &self,
        Parameters(args): Parameters<CheckArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let policy = match self.args_for(args.cwd.as_deref()) {
            Ok((p, _)) => p,
            Err(e) => return Ok(CallToolResult::error(text(e))),
        };
        let loaded = match policy.load() {
            Ok(l) => l,
            Err(e) => {
                return Ok(CallToolResult::error(text(format!(
                    "the policy does not load: {e}"
                ))));
            }
        };
        let v = crate::check(&args.command, &loaded.policy);
        Ok(CallToolResult::success(text(
            serde_json::to_string(&v).unwrap_or_default(),
        )))
    }

    #[tool(description = "List background jobs.")]
    async fn jobs(&self) -> Result<CallToolResult, ErrorData> {
        let lines: Vec<String> = exec::jobs::list()
            .into_iter()
            .map(|id| {
                let state = match exec::jobs::status(&id) {
                    Some(s) => serde_json::to_string(&s).unwrap_or_default(),
                    None => "running".into(),
                };
                format!("{id}  {state}  {}", exec::jobs::command(&id))
            })
            .collect();
        Ok(CallToolResult::success(text(lines.join("\n"))))
    }

    #[tool(description = "Show the end of a background job's output.")]
    async fn job_output(
        &self,
        Parameters(args): Parameters<JobArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(match exec::jobs::output(&args.id, 50 * 1024) {
            Ok(bytes) => CallToolResult::success(text(String::from_utf8_lossy(&bytes))),
            Err(e) => CallToolResult::error(text(e.to_string())),
        })
    }

    #[tool(description = "End a background job's whole process group.")]
    async fn job_kill(
        &self,
        Parameters(args): Parameters<JobArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(match exec::jobs::kill(&args.id) {
            Ok(k) => CallToolResult::success(text(format!("job {}: {k:?}", args.id))),
            Err(e) => CallToolResult::error(text(e.to_string())),
        })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Gate {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions("Run shell commands through `bash`: shellgate judges each one (allow / ask / deny) and runs allowed ones in a sandbox.")
    }
}

/// Serves MCP on stdin/stdout until the client goes away.
///
/// # Errors
/// When the runtime or the transport fails.
pub fn serve(policy: PolicyArgs, no_sandbox: bool) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let service = Gate::new(policy, no_sandbox)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| e.to_string())?;
        service.waiting().await.map_err(|e| e.to_string())?;
        Ok(())
    })
}
