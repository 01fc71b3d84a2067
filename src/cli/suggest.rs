//! `shellgate suggest`: the narrowest rule that would allow a command, as TOML.

use std::process::ExitCode;

use super::args::{ExplainArgs, required_command};
use crate::Decision;

/// Runs `suggest`: prints the rule and exits 0, or says why there is none and exits 1.
pub fn run(args: &ExplainArgs) -> ExitCode {
    let loaded = match args.policy.load_or_report() {
        Ok(l) => l,
        Err(code) => return code,
    };
    let bytes = match required_command(&args.command, "suggest") {
        Ok(b) => b,
        Err(code) => return code,
    };
    let verdict = crate::check_bytes(&bytes, &loaded.policy);
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
