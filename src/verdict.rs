//! Verdict: the decision for a whole command, its reasons and a suggestion.

use serde::Serialize;

use crate::policy::{Decision, InvocationDecision};
use crate::strip::Invocation;

/// The decision for one program that would run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandVerdict {
    /// Its argv after stripping (dynamic words as their source text).
    pub argv: Vec<String>,
    /// Its decision.
    pub decision: Decision,
    /// The deciding rule.
    pub rule: Option<String>,
    /// Why.
    pub reason: String,
    /// The executing wrapper that runs it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// Safe wrappers and assignments that were stripped.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stripped: Vec<String>,
}

/// The answer for a whole command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// The request id (batch mode), echoed as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<serde_json::Value>,
    /// allow, ask or deny.
    pub decision: Decision,
    /// Why, most important first.
    pub reasons: Vec<String>,
    /// The validator that decided the chain, if one did.
    pub validator: Option<String>,
    /// The rules that decided.
    pub rules: Vec<String>,
    /// Per program that would run.
    pub commands: Vec<CommandVerdict>,
    /// The narrowest rule that would allow this command next time (ask only).
    pub suggestion: Option<String>,
    /// What the executor runs: the command rebuilt from the IR (absent when the IR is incomplete).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canonical: Option<String>,
}

impl Verdict {
    /// A verdict for input that could not be judged at all.
    pub fn refused(decision: Decision, reason: impl Into<String>) -> Verdict {
        Verdict {
            id: None,
            decision,
            reasons: vec![reason.into()],
            validator: None,
            rules: Vec::new(),
            commands: Vec::new(),
            suggestion: None,
            canonical: None,
        }
    }

    /// The exit status of `shellgate check` for this verdict.
    pub fn exit_code(&self) -> i32 {
        match self.decision {
            Decision::Allow => 0,
            Decision::Ask => 1,
            Decision::Deny => 2,
        }
    }
}

/// Programs a suggestion must never cover: shells, interpreters and executing wrappers.
pub const NEVER_SUGGEST: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "ash",
    "fish",
    "csh",
    "tcsh",
    "busybox",
    "python",
    "python2",
    "python3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "perl",
    "ruby",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "wish",
    "osascript",
    "pwsh",
    "powershell",
    "env",
    "sudo",
    "doas",
    "su",
    "pkexec",
    "run0",
    "xargs",
    "find",
    "fd",
    "fdfind",
    "watch",
    "eval",
    "exec",
    "source",
    ".",
    "command",
    "builtin",
    "timeout",
    "nice",
    "nohup",
    "stdbuf",
    "ionice",
    "setsid",
    "time",
    "parallel",
    "script",
    "expect",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "sed",
    "vim",
    "vi",
    "nvim",
    "emacs",
    "less",
    "more",
    "man",
    "ssh",
    "docker",
    "kubectl",
    "npx",
    "pnpx",
    "bunx",
    "uvx",
    "pipx",
    "strace",
    "ltrace",
    "gdb",
    "chroot",
    "unshare",
    "nsenter",
    "flock",
    "trap",
    "alias",
    "export",
    "declare",
    "typeset",
    "set",
    "dd",
];

/// Tools whose first argument is a subcommand.
const SUBCOMMAND_TOOLS: &[&str] = &[
    "git",
    "cargo",
    "npm",
    "pnpm",
    "yarn",
    "go",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "gh",
    "apt",
    "apt-get",
    "brew",
    "systemctl",
    "helm",
    "terraform",
    "rustup",
    "dotnet",
    "mvn",
    "gradle",
    "make",
    "just",
    "composer",
    "bundle",
    "gem",
    "conda",
    "mix",
    "stack",
    "cabal",
    "zig",
    "swift",
    "flutter",
    "dart",
];

/// The narrowest `program sub:*` pattern that would allow this invocation.
pub fn suggestion_for(inv: &Invocation) -> Option<String> {
    let program = inv.program.as_deref()?;
    if NEVER_SUGGEST.contains(&program) || program.contains('/') || !inv.assignments.is_empty() {
        return None;
    }
    let args: Option<Vec<String>> = inv
        .argv
        .iter()
        .skip(1)
        .map(crate::parse::Word::value)
        .collect();
    let args = args?;
    let plain = |a: &String| {
        !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
            && !a.starts_with('-')
    };
    if SUBCOMMAND_TOOLS.contains(&program) {
        let first = args.first()?;
        if !plain(first) {
            return None;
        }
        let mut prefix = vec![program.to_owned(), first.clone()];
        if matches!(program, "npm" | "pnpm" | "yarn") && first == "run" {
            prefix.push(args.get(1).filter(|a| plain(a))?.clone());
        }
        return Some(format!("{}:*", prefix.join(" ")));
    }
    if args.iter().any(|a| a.starts_with('-')) {
        // Options may change what a program does: suggest this exact command only.
        return Some(shell_words::join(
            std::iter::once(program.to_owned()).chain(args),
        ));
    }
    Some(format!("{program}:*"))
}

/// Builds the per-program part of a verdict.
pub fn command_verdicts(
    invs: &[Invocation],
    decisions: &[InvocationDecision],
) -> Vec<CommandVerdict> {
    invs.iter()
        .zip(decisions)
        .map(|(inv, d)| CommandVerdict {
            argv: inv.argv.iter().map(crate::parse::Word::pattern).collect(),
            decision: d.decision,
            rule: d.rule.clone(),
            reason: d.reason.clone(),
            via: inv.via.clone(),
            stripped: inv.stripped.clone(),
        })
        .collect()
}

/// A suggestion rendered as a policy rule in TOML.
pub fn suggestion_toml(pattern: &str) -> String {
    let (words, exact) = match pattern.strip_suffix(":*") {
        Some(p) => (shell_words::split(p).unwrap_or_default(), false),
        None => (shell_words::split(pattern).unwrap_or_default(), true),
    };
    let program = words.first().cloned().unwrap_or_default();
    let args: Vec<String> = words.iter().skip(1).map(|a| format!("{a:?}")).collect();
    let id: String = words
        .join("-")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let mut out =
        format!("[[rule]]\nid = \"allow-{id}\"\ndecision = \"allow\"\ncommand = {program:?}\n");
    if exact {
        out.push_str(&format!("pattern = [{pattern:?}]\n"));
    } else if !args.is_empty() {
        out.push_str(&format!("args = [{}]\n", args.join(", ")));
    }
    out.push_str(&format!(
        "reason = \"approved: {}\"\nmatch = [{:?}]\n",
        pattern.replace('"', "'"),
        words.join(" ")
    ));
    out
}

/// A command cleared to run: only an allow verdict, or an ask verdict a person
/// approved, can become one (its field is private), so nothing reaches the
/// executor without a verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approved {
    command: String,
    how: Approval,
}

/// Why a command may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Approval {
    /// The policy allowed it.
    Policy,
    /// A person approved an ask verdict.
    Person,
}

impl Approved {
    /// A background job's command, approved by the `shellgate run` that created the job.
    pub(crate) fn for_job(command: String) -> Approved {
        Approved {
            command,
            how: Approval::Policy,
        }
    }

    /// The text to run: the canonical form when there is one, else the command as given.
    pub fn command(&self) -> &str {
        &self.command
    }
    /// How it was approved.
    pub fn approval(&self) -> Approval {
        self.how
    }
}

impl Verdict {
    /// Clears an allow verdict to run; `None` for ask and deny.
    pub fn approve(&self, original: &str) -> Option<Approved> {
        (self.decision == Decision::Allow).then(|| Approved {
            command: self
                .canonical
                .clone()
                .unwrap_or_else(|| original.to_owned()),
            how: Approval::Policy,
        })
    }

    /// Clears an ask verdict a person approved; `None` for deny (which nobody can override).
    pub fn approve_asked(&self, original: &str) -> Option<Approved> {
        match self.decision {
            Decision::Allow => self.approve(original),
            Decision::Ask => Some(Approved {
                command: self
                    .canonical
                    .clone()
                    .unwrap_or_else(|| original.to_owned()),
                how: Approval::Person,
            }),
            Decision::Deny => None,
        }
    }
}
