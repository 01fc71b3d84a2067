//! The command line, shared options and policy loading for subcommands that decide.

#![allow(
    clippy::result_large_err,
    reason = "PolicyError carries its source text for diagnostics; loading is not a hot path"
)]

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::policy::{PolicyError, layers};

/// shellgate: judge shell commands before an AI agent runs them.
#[derive(Debug, Parser)]
#[command(name = "shellgate", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Decide allow / ask / deny for a command (exit 0 / 1 / 2).
    Check(CheckArgs),
    /// Show every step: parse, validators, stripping, each rule considered, the verdict.
    Explain(ExplainArgs),
    /// Print the narrowest rule that would allow a command, as TOML.
    Suggest(ExplainArgs),
    /// Run the `[[test]]` examples of policy files and corpus files.
    Test(TestArgs),
    /// Check a command, then run it in the sandbox (asking on the terminal when the verdict is ask).
    Run(RunArgs),
    /// List background jobs, show their output, or end them.
    Jobs(JobsArgs),
    /// Answer an agent's pre-execution hook (JSON on stdin, decision on stdout).
    Hook(HookArgs),
    /// Serve MCP on stdio: a gated, sandboxed `bash` tool, `check`, and job tools.
    Mcp(McpArgs),
    /// Inspect the effective policy.
    #[command(subcommand)]
    Policy(PolicyCommand),
}

/// `shellgate run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Shared policy options.
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Give the command a terminal (falls back to pipes, with a warning, when none can be opened).
    #[arg(long)]
    pub pty: bool,
    /// End the whole process group after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Start in the background and print the job id.
    #[arg(long)]
    pub background: bool,
    /// Print the run result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Refuse unless the kernel enforces every sandbox restriction.
    #[arg(long, conflicts_with = "no_sandbox")]
    pub require_sandbox: bool,
    /// Run without the landlock sandbox.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Keep stdout and stderr apart instead of merging them in arrival order.
    #[arg(long)]
    pub separate_streams: bool,
    /// Output window kept in memory, in bytes (head + tail).
    #[arg(long, value_name = "BYTES", default_value_t = crate::sink::DEFAULT_WINDOW)]
    pub window: usize,
    /// The command (after `--`).
    #[arg(trailing_var_arg = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

/// `shellgate mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Shared policy options (a tool call's `cwd` overrides `--cwd`).
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Run commands without the landlock sandbox.
    #[arg(long)]
    pub no_sandbox: bool,
}

/// Answer an agent's pre-execution hook (JSON on stdin, decision on stdout).
#[derive(Debug, Args)]
pub struct HookArgs {
    /// Which agent's protocol.
    #[arg(value_enum)]
    pub agent: HookAgent,
    /// Shared policy options (the payload's `cwd` is used when `--cwd` is not given).
    #[command(flatten)]
    pub policy: PolicyArgs,
}

/// The hook protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookAgent {
    /// Claude Code `PreToolUse`.
    ClaudeCode,
    /// Codex CLI `PreToolUse`.
    Codex,
    /// Gemini CLI `BeforeTool`.
    Gemini,
    /// Tell the three apart from the payload.
    Auto,
    /// `{"command", "cwd"}` in, a verdict out.
    Json,
}

/// `shellgate jobs`.
#[derive(Debug, Args)]
pub struct JobsArgs {
    /// What to do (default: list).
    #[command(subcommand)]
    pub action: Option<JobsAction>,
}

/// `shellgate jobs …`.
#[derive(Debug, Subcommand)]
pub enum JobsAction {
    /// List jobs.
    List,
    /// Print the end of a job's output.
    Output {
        /// The job id.
        id: String,
        /// Bytes from the end.
        #[arg(long, default_value_t = 10_000)]
        tail: u64,
    },
    /// End a job's whole process group.
    Kill {
        /// The job id.
        id: String,
    },
    /// (internal) supervise a background job.
    #[command(hide = true)]
    Supervise {
        /// The job id.
        id: String,
    },
}

/// `shellgate policy …`.
#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Print the merged policy with the layer each rule came from.
    Show(PolicyShowArgs),
}

/// `shellgate policy show`.
#[derive(Debug, Args)]
pub struct PolicyShowArgs {
    /// Shared policy options.
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `shellgate explain` and `shellgate suggest`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// Shared policy options.
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// The command (after `--`).
    #[arg(trailing_var_arg = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

/// `shellgate test`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// Policy files, corpus files or directories (searched recursively); default `policies/`.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// List rules that no example exercised.
    #[arg(long)]
    pub coverage: bool,
    /// Print passing examples too.
    #[arg(long, short)]
    pub verbose: bool,
    /// How to print policy errors.
    #[arg(long, value_enum, default_value_t = ErrorFormat::Human)]
    pub error_format: ErrorFormat,
}

/// How to print policy errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ErrorFormat {
    /// Graphical, with underlined snippets.
    #[default]
    Human,
    /// Plain text, one error per paragraph, no colour.
    Plain,
    /// JSON, for tools.
    Json,
}

/// Options shared by every subcommand that decides.
#[derive(Debug, Clone, Args)]
pub struct PolicyArgs {
    /// A policy file to add on top of the other layers (repeatable).
    #[arg(long = "policy", value_name = "FILE")]
    pub policy: Vec<PathBuf>,
    /// Start from an empty policy instead of the embedded default.
    #[arg(long)]
    pub no_default: bool,
    /// The workspace whose layers apply (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Append one JSON line per decision to this file.
    #[arg(long, value_name = "FILE")]
    pub audit: Option<PathBuf>,
    /// How to print policy errors.
    #[arg(long, value_enum, default_value_t = ErrorFormat::Human)]
    pub error_format: ErrorFormat,
}

impl PolicyArgs {
    /// The working directory the layers are resolved from.
    pub fn workspace(&self) -> PathBuf {
        self.cwd
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."))
    }

    /// Loads the layers, or prints every policy error and gives the exit status (78).
    ///
    /// # Errors
    /// The exit code to return when the policy does not load.
    pub fn load_or_report(&self) -> Result<layers::Loaded, std::process::ExitCode> {
        self.load().map_err(|e| {
            eprint!("{}", render_policy_error(&e, self.error_format));
            std::process::ExitCode::from(super::EXIT_BAD_POLICY)
        })
    }

    /// Loads and merges the policy layers.
    ///
    /// # Errors
    /// The first layer that fails to load.
    pub fn load(&self) -> Result<layers::Loaded, PolicyError> {
        layers::load(&layers::LayerOptions {
            embedded: !self.no_default,
            workspace: self.workspace(),
            extra: self.policy.clone(),
            system: std::env::var_os("SHELLGATE_SYSTEM_POLICY").map(PathBuf::from),
            user: layers::user_policy_path(),
        })
    }
}

/// `shellgate check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Shared policy options.
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Print the verdict as JSON.
    #[arg(long)]
    pub json: bool,
    /// Read JSON lines `{"id": …, "command": …}` from stdin; write one verdict per line.
    #[arg(long, conflicts_with = "command")]
    pub batch: bool,
    /// The command to judge (after `--`); several words are joined with spaces.
    #[arg(trailing_var_arg = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

/// The command's bytes, or a usage message and exit status 64 when none was given.
///
/// # Errors
/// The exit code to return.
pub fn required_command(
    words: &[OsString],
    subcommand: &str,
) -> Result<Vec<u8>, std::process::ExitCode> {
    if words.is_empty() {
        eprintln!("error: no command given\n\nUsage: shellgate {subcommand} [OPTIONS] -- COMMAND");
        return Err(std::process::ExitCode::from(super::EXIT_USAGE));
    }
    Ok(command_bytes(words))
}

/// Joins command-line words into one command, keeping the bytes.
pub fn command_bytes(words: &[OsString]) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        out.extend_from_slice(w.as_bytes());
    }
    out
}

/// Renders a policy error in the chosen format.
pub fn render_policy_error(e: &PolicyError, format: ErrorFormat) -> String {
    use miette::ReportHandler;
    struct Show<'a>(&'a PolicyError, ErrorFormat);
    impl std::fmt::Display for Show<'_> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self.1 {
                ErrorFormat::Human => miette::GraphicalReportHandler::new_themed(
                    miette::GraphicalTheme::unicode_nocolor(),
                )
                .with_width(100)
                .debug(self.0, f),
                ErrorFormat::Plain => miette::NarratableReportHandler::new().debug(self.0, f),
                ErrorFormat::Json => miette::JSONReportHandler::new().render_report(f, self.0),
            }
        }
    }
    Show(e, format).to_string()
}
