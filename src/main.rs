//! The `shellgate` binary: parses the command line and dispatches.

use std::process::ExitCode;

use clap::Parser;
use shellgate::cli::args::{Cli, Command, PolicyCommand};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() {
                shellgate::cli::EXIT_USAGE
            } else {
                0
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Check(args) => shellgate::cli::check::run(&args),
        Command::Explain(args) => shellgate::cli::explain::run(&args),
        Command::Suggest(args) => shellgate::cli::suggest::run(&args),
        Command::Test(args) => shellgate::cli::test::run(&args),
        Command::Run(args) => shellgate::cli::run::run(&args),
        Command::Hook(args) => shellgate::cli::hook::run(&args),
        Command::Mcp(args) => {
            match shellgate::integrations::mcp::serve(args.policy, args.no_sandbox) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("shellgate mcp: {e}");
                    ExitCode::from(shellgate::cli::EXIT_INTERNAL)
                }
            }
        }
        Command::Jobs(args) => shellgate::cli::jobs::run(&args),
        Command::Policy(PolicyCommand::Show(args)) => shellgate::cli::policy_show::run(&args),
    }
}
