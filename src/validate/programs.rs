//! Validators about specific programs and redirections.

use std::sync::LazyLock;

use regex::Regex;

use super::{Input, Step};
use crate::parse::RedirectKind;

fn ask(reason: impl Into<String>) -> Step {
    Step::Ask(reason.into())
}

/// jq builtins that reach outside the input: commands, the environment, files, modules.
static JQ_DANGER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\b(system|env|input_filename|import|include|getpath|debug|stderr|input_line_number|halt_error)\b|\$ENV|\$__loc__|\$__prog").ok()
});

/// `jq` filters that run commands or read the environment, and `jq` options that read files of code.
pub(super) fn jq_system(i: &Input<'_>) -> Step {
    for (program, c) in i.programs() {
        if program != "jq" && program != "gojq" && program != "jaq" {
            continue;
        }
        for w in c.argv.iter().skip(1) {
            let text = w.pattern();
            if [
                "-f",
                "--from-file",
                "--rawfile",
                "--slurpfile",
                "-L",
                "--library-path",
            ]
            .contains(&text.as_str())
                || text.starts_with("-L")
            {
                return ask(format!("`jq {text}` reads a file"));
            }
            if let Some(m) = JQ_DANGER.as_ref().and_then(|re| re.find(&text)) {
                return ask(format!("the jq filter uses `{}`", m.as_str()));
            }
        }
    }
    Step::Passthrough
}

/// Programs and builtins of zsh that reach the system directly.
pub(super) fn zsh_dangerous(i: &Input<'_>) -> Step {
    const NAMES: &[&str] = &[
        "zmodload",
        "emulate",
        "sysopen",
        "sysread",
        "syswrite",
        "sysseek",
        "zpty",
        "ztcp",
        "zsocket",
        "zselect",
        "zf_rm",
        "zf_mv",
        "zf_ln",
        "zf_chmod",
        "zf_chown",
        "zf_mkdir",
        "zf_rmdir",
        "zf_chgrp",
        "zstat",
        "zparseopts",
        "autoload",
        "fc",
        "noglob",
        "zcompile",
        "zle",
        "bindkey",
        "vared",
    ];
    for (program, _) in i.programs() {
        if NAMES.contains(&program.as_str()) {
            return ask(format!(
                "`{program}` is a zsh builtin that reaches the system directly"
            ));
        }
    }
    Step::Passthrough
}

/// Input redirected from a file whose name is not known until run time.
pub(super) fn input_redirection(i: &Input<'_>) -> Step {
    for c in &i.script.commands {
        for r in &c.redirects {
            if matches!(r.kind, RedirectKind::Read | RedirectKind::ReadWrite)
                && r.target.as_ref().is_none_or(|t| !t.is_static())
            {
                return ask(
                    "input is redirected from a file whose name is not known until it runs",
                );
            }
        }
    }
    Step::Passthrough
}

/// Output redirected to a file whose name is not known until run time.
pub(super) fn output_redirection(i: &Input<'_>) -> Step {
    for c in &i.script.commands {
        for r in &c.redirects {
            let dynamic = r.target.as_ref().is_none_or(|t| {
                !t.is_static()
                    && !t.parts.iter().all(|p| {
                        matches!(
                            p,
                            crate::parse::Part::Literal(_) | crate::parse::Part::Tilde(_)
                        )
                    })
            });
            if r.kind == RedirectKind::Write && dynamic {
                return ask("output is redirected to a file whose name is not known until it runs");
            }
        }
    }
    Step::Passthrough
}
