//! Validators about expansions and the environment.

use super::{Input, Quote, Step};
use crate::parse::{Part, Word};

fn ask(reason: impl Into<String>) -> Step {
    Step::Ask(reason.into())
}

/// `$IFS` or `${IFS…}` used anywhere outside single quotes.
pub(super) fn ifs_injection(i: &Input<'_>) -> Step {
    for (at, _) in i.text.match_indices("IFS") {
        let before = i.text.get(..at).unwrap_or("");
        let expanded = before.ends_with('$')
            || before.ends_with("${")
            || before.ends_with("${!")
            || before.ends_with("${#");
        if expanded && !matches!(i.views.at(at), Quote::Single | Quote::AnsiC) {
            return ask("`$IFS` is expanded: word splitting can build hidden arguments");
        }
    }
    Step::Passthrough
}

/// Names whose value changes what runs or how a program loads code.
pub fn is_dangerous_variable(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "PATH",
        "BASH_ENV",
        "ENV",
        "CDPATH",
        "IFS",
        "PROMPT_COMMAND",
        "PS0",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "SHELLOPTS",
        "BASHOPTS",
        "GLOBIGNORE",
        "BASH_XTRACEFD",
        "HISTFILE",
        "PAGER",
        "MANPAGER",
        "EDITOR",
        "VISUAL",
        "BROWSER",
        "SHELL",
        "HOME",
        "ZDOTDIR",
        "FPATH",
        "TMPDIR",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "LESSOPEN",
        "LESSCLOSE",
        "LESS",
        "MAKEFLAGS",
        "MAKE",
        "MFLAGS",
        "CC",
        "CXX",
        "LD",
        "AR",
        "AS",
        "CPP",
        "RUSTC",
        "RUSTDOC",
        "CARGO",
        "CARGO_HOME",
        "RUSTUP_HOME",
        "RUSTUP_TOOLCHAIN",
        "NODE_OPTIONS",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "PERL5OPT",
        "PERL5DB",
        "RUBYOPT",
        "JAVA_TOOL_OPTIONS",
        "DOCKER_HOST",
        "KUBECONFIG",
        "SSH_AUTH_SOCK",
        "GCONV_PATH",
        "HOSTALIASES",
        "TERMINFO",
        "PROMPT",
        "RPROMPT",
        "GOFLAGS",
        "GOROOT",
        "GOPROXY",
        "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
        "NPM_TOKEN",
        "SUDO_ASKPASS",
        "SSH_ASKPASS",
        "GIT_ASKPASS",
        "OPENSSL_CONF",
        "BASH_LOADABLES_PATH",
        "INPUTRC",
        "TEXINPUTS",
        "VIMINIT",
        "EXINIT",
        "MYVIMRC",
        "PYTHONWARNINGS",
        "PYTHONINSPECT",
    ];
    const PREFIXES: &[&str] = &[
        "LD_",
        "DYLD_",
        "GIT_",
        "BASH_FUNC_",
        "npm_config_",
        "NPM_CONFIG_",
        "CARGO_TARGET_",
        "CARGO_BUILD_",
        "CARGO_REGISTRIES_",
        "CARGO_HTTP",
        "CARGO_NET",
        "RUSTC_",
        "PYTHON",
        "PERL",
        "RUBY",
        "NODE_",
        "MALLOC_",
        "GLIBC_",
        "COMP_",
        "PIP_",
        "UV_",
        "POETRY_",
        "YARN_",
        "BUN_",
        "DENO_",
        "DOTNET_",
    ];
    const SUFFIXES: &[&str] = &[
        "PATH", "_OPTIONS", "_OPTS", "FLAGS", "_COMMAND", "_CMD", "_PROGRAM", "_EDITOR", "_PAGER",
        "_SHELL", "WRAPPER", "RUNNER", "_HOOK", "_HOOKS", "_PRELOAD", "_LINKER", "_ASKPASS",
        "_EXEC", "_PROXY", "proxy",
    ];
    let base = name.split('[').next().unwrap_or(name);
    if crate::strip::is_safe_env_name(base) {
        return false;
    }
    EXACT.contains(&base)
        || PREFIXES.iter().any(|p| base.starts_with(p))
        || SUFFIXES.iter().any(|s| base.ends_with(s))
}

/// Assignments to variables that change what runs: prefixes, statements, `export`, `declare`, `env`, `read`.
pub(super) fn dangerous_variables(i: &Input<'_>) -> Step {
    for c in &i.script.commands {
        for a in &c.assignments {
            if is_dangerous_variable(&a.name) {
                return ask(format!(
                    "assigns `{}`, which changes what programs run or how they load code",
                    a.name
                ));
            }
        }
        let Some(program) = c.argv.first().and_then(crate::strip::program_name) else {
            continue;
        };
        let setter = matches!(
            program.as_str(),
            "export"
                | "declare"
                | "typeset"
                | "local"
                | "readonly"
                | "env"
                | "read"
                | "mapfile"
                | "readarray"
                | "printf"
                | "set"
                | "setenv"
                | "unset"
                | "let"
        );
        if !setter {
            continue;
        }
        for w in c.argv.iter().skip(1) {
            let text = w.pattern();
            let name = text.split(['=', '+']).next().unwrap_or("");
            if is_dangerous_variable(name) {
                return ask(format!(
                    "`{program}` sets `{name}`, which changes what programs run or how they load code"
                ));
            }
        }
    }
    Step::Passthrough
}

/// `/proc/<pid>/environ` or `/proc/<pid>/mem` mentioned anywhere.
pub(super) fn proc_environ(i: &Input<'_>) -> Step {
    // Any mention of /proc together with environ, mem or cmdline (a regex would
    // cost more to compile than every command costs to check).
    let hit = i.text.contains("/proc/")
        && ["environ", "/mem", "cmdline"]
            .iter()
            .any(|n| i.text.contains(n));
    if hit {
        return ask("reads a process's environment or memory under `/proc`");
    }
    Step::Passthrough
}

/// Expansions that execute code or evaluate subscripts: `${x@P}`, `$[ ]`, zsh `=( )`,
/// arithmetic subscripts, and subscripts handed to builtins that evaluate them.
pub(super) fn substitution(i: &Input<'_>) -> Step {
    if has_prompt_transform(i.text) {
        return ask("a `${var@P}`-style transformation can run code held in a variable");
    }
    let bytes = i.text.as_bytes();
    for (at, b) in bytes.iter().enumerate() {
        if i.views.at(at) != Quote::Normal && i.views.at(at) != Quote::Double {
            continue;
        }
        let next = bytes.get(at + 1).copied();
        if *b == b'$' && next == Some(b'[') {
            return ask("`$[ … ]` arithmetic");
        }
        let word_start = at == 0 || bytes.get(at - 1).is_some_and(u8::is_ascii_whitespace);
        if *b == b'=' && next == Some(b'(') && word_start && i.views.at(at) == Quote::Normal {
            return ask("zsh `=( … )` process substitution");
        }
    }
    for c in &i.script.commands {
        for w in &c.argv {
            for p in &w.parts {
                if let Part::Arithmetic(t) | Part::Param(t) = p
                    && subscript_with_expansion(t)
                {
                    return ask(format!(
                        "the subscript in `{t}` is evaluated and may run code"
                    ));
                }
            }
        }
        let Some(program) = c.argv.first().and_then(crate::strip::program_name) else {
            continue;
        };
        let evaluates = matches!(
            program.as_str(),
            "printf"
                | "declare"
                | "typeset"
                | "local"
                | "export"
                | "readonly"
                | "read"
                | "mapfile"
                | "readarray"
                | "let"
                | "unset"
                | "test"
                | "["
                | "[["
                | "eval"
                | "wait"
                | "getopts"
        );
        if evaluates && c.argv.iter().skip(1).any(word_subscript) {
            return ask(format!(
                "`{program}` evaluates an array subscript that contains an expansion"
            ));
        }
    }
    Step::Passthrough
}

/// `${name@P}` and the other `@` transformations (`${x@P}`, `${x@E}`, `${x@A}` …).
fn has_prompt_transform(text: &str) -> bool {
    text.match_indices("${").any(|(at, _)| {
        let rest = text.get(at + 2..).unwrap_or("");
        let inner = rest.split('}').next().unwrap_or("");
        inner
            .rsplit_once('@')
            .is_some_and(|(_, op)| matches!(op, "P" | "E" | "A" | "K" | "a"))
    })
}

fn subscript_with_expansion(t: &str) -> bool {
    t.split('[').skip(1).any(|s| {
        let inner = s.split(']').next().unwrap_or("");
        inner.contains('$') || inner.contains('`')
    })
}

fn word_subscript(w: &Word) -> bool {
    subscript_with_expansion(&w.pattern())
}

/// Brace expansion that builds the program name or an option.
pub(super) fn brace_expansion(i: &Input<'_>) -> Step {
    for c in &i.script.commands {
        if c.argv.first().is_some_and(|w| w.from_brace) {
            return ask("brace expansion builds the program name");
        }
        if let Some(w) = c
            .argv
            .iter()
            .find(|w| w.from_brace && w.pattern().starts_with('-'))
        {
            return ask(format!(
                "brace expansion produces the option `{}`",
                w.pattern()
            ));
        }
    }
    Step::Passthrough
}
