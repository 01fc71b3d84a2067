//! Front ends: one module per subcommand; `main.rs` only dispatches.

pub mod args;
pub mod audit;
pub mod check;
pub mod explain;
pub mod hook;
pub mod jobs;
pub mod policy_show;
pub mod render;
pub mod run;
pub mod suggest;
pub mod test;

use std::process::ExitCode;

/// Exit status for a bad command line.
pub const EXIT_USAGE: u8 = 64;
/// Exit status for input that could not be read as a command.
pub const EXIT_BAD_INPUT: u8 = 65;
/// Exit status for an internal error.
pub const EXIT_INTERNAL: u8 = 70;
/// Exit status for a policy that failed to load.
pub const EXIT_BAD_POLICY: u8 = 78;

/// Converts a verdict exit code.
pub fn exit(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(EXIT_INTERNAL))
}
