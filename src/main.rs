//! The `shellgate` binary: parses the command line and dispatches.

use std::process::ExitCode;

use clap::{Args, FromArgMatches, Parser};
use shellgate::cli::args::{Cli, Command, HookArgs, PolicyCommand};

fn main() -> ExitCode {
    // A hook is a process per agent command: building the whole command
    // line's parser would cost more than the decision, so `hook` parses only
    // its own arguments.
    if std::env::args_os().nth(1).is_some_and(|a| a == "hook") {
        let parser = HookArgs::augment_args(clap::Command::new("hook").bin_name("shellgate hook"));
        return match parser
            .try_get_matches_from(std::env::args_os().skip(1))
            .and_then(|m| HookArgs::from_arg_matches(&m))
        {
            Ok(args) => shellgate::cli::hook::run(&args),
            Err(e) => usage(&e),
        };
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => return usage(&e),
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

/// Prints a command-line error (or the help it asked for) with its exit status.
fn usage(e: &clap::Error) -> ExitCode {
    let code = if e.use_stderr() {
        shellgate::cli::EXIT_USAGE
    } else {
        0
    };
    let _ = e.print();
    ExitCode::from(code)
}
