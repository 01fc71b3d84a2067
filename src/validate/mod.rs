//! Validate: an ordered chain of named checks over the text and the IR.
//!
//! Each validator returns [`Step::Allow`] (the security chain is satisfied:
//! skip the rest), [`Step::Passthrough`] (no opinion) or [`Step::Ask`]. The
//! first non-passthrough wins. `Allow` never bypasses policy rules.
//!
//! The principle: validators ask where the IR may not model what bash will
//! do (parser differentials, run-time state); judging what is modelled is the
//! policy's job. The text-level checks stay even where the AST answers more
//! precisely, as defence in depth against tree-sitter and bash disagreeing.

mod early;
mod expansion;
mod programs;
mod text;
pub mod views;

use serde::Serialize;

use crate::parse::{Script, SimpleCommand, Word};
pub use views::{Quote, Views};

/// One validator's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "step", content = "reason", rename_all = "snake_case")]
pub enum Step {
    /// The chain is satisfied; the rest is skipped (rules still decide).
    Allow(String),
    /// No opinion.
    Passthrough,
    /// A person must look at this.
    Ask(String),
}

/// What a validator sees.
pub struct Input<'a> {
    /// The raw text.
    pub text: &'a str,
    /// The IR of that text.
    pub script: &'a Script,
    /// Quote-aware views of the text.
    pub views: Views,
}

impl<'a> Input<'a> {
    /// Builds the views of `text`.
    pub fn new(text: &'a str, script: &'a Script) -> Self {
        Input {
            text,
            script,
            views: Views::new(text),
        }
    }

    /// The source text of a word.
    pub fn raw(&self, w: &Word) -> &'a str {
        self.text.get(w.span.start..w.span.end).unwrap_or("")
    }

    /// Every command's static program name with the command.
    pub fn programs(&self) -> impl Iterator<Item = (String, &'a SimpleCommand)> {
        self.script.commands.iter().filter_map(|c| {
            c.argv
                .first()
                .and_then(crate::strip::program_name)
                .map(|n| (n, c))
        })
    }
}

/// A named check.
pub trait Validator: Sync {
    /// Its stable name (appears in verdicts).
    fn name(&self) -> &'static str;
    /// Runs it.
    fn check(&self, input: &Input<'_>) -> Step;
}

/// A validator made of a name and a function.
pub struct FnValidator {
    name: &'static str,
    check: fn(&Input<'_>) -> Step,
}

impl Validator for FnValidator {
    fn name(&self) -> &'static str {
        self.name
    }
    fn check(&self, input: &Input<'_>) -> Step {
        (self.check)(input)
    }
}

const fn v(name: &'static str, check: fn(&Input<'_>) -> Step) -> FnValidator {
    FnValidator { name, check }
}

/// The validators, in the order they run.
pub static CHAIN: &[FnValidator] = &[
    v("control-characters", text::control_characters),
    v("unicode-whitespace", text::unicode_whitespace),
    v("incomplete-command", text::incomplete_command),
    v("malformed-tokens", text::malformed_tokens),
    v("heredoc-desync", text::heredoc_desync),
    v("unquoted-newline", text::unquoted_newline),
    v("comment-quote-desync", text::comment_quote_desync),
    v("mid-word-hash", text::mid_word_hash),
    v("ifs-injection", expansion::ifs_injection),
    v("dangerous-variables", expansion::dangerous_variables),
    v("proc-environ", expansion::proc_environ),
    v("git-commit", early::git_commit),
    v("safe-heredoc", early::safe_heredoc),
    v("jq-system", programs::jq_system),
    v("obfuscated-flags", text::obfuscated_flags),
    v("shell-metacharacters", text::shell_metacharacters),
    v("substitution", expansion::substitution),
    v("input-redirection", programs::input_redirection),
    v("output-redirection", programs::output_redirection),
    v("backslash-whitespace", text::backslash_whitespace),
    v("brace-expansion", expansion::brace_expansion),
    v("zsh-dangerous", programs::zsh_dangerous),
    v("backslash-operators", text::backslash_operators),
    v("quoted-newline", text::quoted_newline),
];

/// One validator's step, for traces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The validator.
    pub validator: &'static str,
    /// Its answer.
    pub step: Step,
}

/// The chain's result.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Findings {
    /// Every step taken, in order (up to and including the deciding one).
    pub steps: Vec<Finding>,
    /// The first non-passthrough step.
    pub decisive: Option<Finding>,
}

impl Findings {
    /// The reason to ask, if the chain asks.
    pub fn ask(&self) -> Option<(&'static str, &str)> {
        match &self.decisive {
            Some(Finding {
                validator,
                step: Step::Ask(r),
            }) => Some((validator, r.as_str())),
            _ => None,
        }
    }
}

/// Runs the chain over a text and its IR.
pub fn run(text: &str, script: &Script) -> Findings {
    let input = Input::new(text, script);
    let mut out = Findings::default();
    for validator in CHAIN {
        let step = validator.check(&input);
        let decisive = step != Step::Passthrough;
        out.steps.push(Finding {
            validator: validator.name(),
            step: step.clone(),
        });
        if decisive {
            out.decisive = Some(Finding {
                validator: validator.name(),
                step,
            });
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests;
