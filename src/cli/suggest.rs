//! `shellgate suggest`: the narrowest rule that would allow a command, as TOML.

use std::process::ExitCode;

use super::args::{ExplainArgs, command_bytes, render_policy_error};
use super::{EXIT_BAD_POLICY, EXIT_USAGE};
use crate::Decision;

/// Runs `suggest`: prints the rule and exits 0, or says why there is none and exits 1.
pub fn run(args: &ExplainArgs) -> ExitCode {
    let loaded = match args.policy.load() {
        Ok(l) => l,
        Err(e) => {
            eprint!("{}", render_policy_error(&e, args.policy.error_format));
            return ExitCode::from(EXIT_BAD_POLICY);
        }
    };
    if args.command.is_empty() {
        eprintln!("error: no command given\n\nUsage: shellgate suggest [OPTIONS] -- COMMAND");
        return ExitCode::from(EXIT_USAGE);
    }
    let verdict = crate::check_bytes(&command_bytes(&args.command), &loaded.policy);
    match (&verdict.suggestion, verdict.decision) {
        (_, Decision::Allow) => {
            println!("# already allowed ({})", verdict.rules.join(", "));
            ExitCode::SUCCESS
        }
        (Some(s), _) => {
            println!("# allows `{s}` next time; add it to your user policy");
            print!("{}", crate::verdict::suggestion_toml(s));
            ExitCode::SUCCESS
        }
        (None, d) => {
            println!(
                "# no rule is suggested for this {} verdict: {}",
                d.as_str(),
                verdict.reasons.join("; ")
            );
            ExitCode::from(1)
        }
    }
}
