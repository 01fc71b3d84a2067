//! Parse: command text → [`Script`] IR, with tree-sitter-bash.
//!
//! In: the raw command text. Out: every simple command (nested ones included)
//! with its assignments, words after quote removal, redirections and context,
//! plus the [`Issue`]s that say where the IR is incomplete. Trusts nothing:
//! a tree with errors still yields its commands (so deny rules apply), but the
//! issues make the verdict at least ask.

mod ir;
mod lower;
mod word;

use std::cell::RefCell;

pub use ir::{
    Assignment, Context, FunctionDef, Heredoc, Issue, Part, Redirect, RedirectKind, Script,
    SimpleCommand, Span, Word,
};

/// Longest input parsed, in bytes.
pub const MAX_INPUT: usize = 64 * 1024;
/// Deepest nesting of subshells, groups, substitutions and nested shells.
pub const MAX_DEPTH: u32 = 32;
/// More simple commands than this make the verdict at least ask.
pub const MAX_COMMANDS: usize = 50;
/// Lowering stops after this many simple commands.
pub(crate) const HARD_COMMAND_CAP: usize = 1000;

thread_local! {
    static PARSER: RefCell<Option<tree_sitter::Parser>> = const { RefCell::new(None) };
}

/// Parses a command as bash would read it.
///
/// Never fails: problems are recorded in [`Script::issues`].
///
/// # Examples
/// ```
/// let script = shellgate::parse::parse("r''m -rf /tmp/x && ls");
/// assert_eq!(script.commands[0].argv[0].value().as_deref(), Some("rm"));
/// assert!(script.is_complete());
/// ```
pub fn parse(text: &str) -> Script {
    parse_nested(text, 0, Context::default())
}

/// Parses code found inside a command (`bash -c` strings, `eval`, heredocs fed
/// to a shell) at the given nesting depth.
pub fn parse_nested(text: &str, depth: u32, ctx: Context) -> Script {
    let mut script = Script::default();
    if text.len() > MAX_INPUT {
        script.issues.push(Issue::TooLong {
            len: text.len(),
            limit: MAX_INPUT,
        });
        return script;
    }
    if depth > MAX_DEPTH {
        script.issues.push(Issue::TooDeep { limit: MAX_DEPTH });
        return script;
    }
    if text.contains('\0') {
        script.issues.push(Issue::InvalidText {
            what: "command contains a NUL byte".to_owned(),
        });
    }
    let tree = PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = tree_sitter::Parser::new();
            if p.set_language(&tree_sitter_bash::LANGUAGE.into()).is_err() {
                return None;
            }
            *slot = Some(p);
        }
        slot.as_mut().and_then(|p| p.parse(text, None))
    });
    let Some(tree) = tree else {
        script.issues.push(Issue::Unmodelled {
            what: "the parser gave no tree".to_owned(),
            span: Span::default(),
        });
        return script;
    };
    let mut lowerer = lower::Lowerer::new(text);
    lowerer.program(tree.root_node(), depth, ctx);
    let mut out = lowerer.script;
    out.issues.splice(0..0, script.issues);
    if tree.root_node().has_error()
        && !out
            .issues
            .iter()
            .any(|i| matches!(i, Issue::SyntaxError { .. } | Issue::Missing { .. }))
    {
        out.issues.push(Issue::SyntaxError {
            span: Span {
                start: 0,
                end: text.len(),
            },
        });
    }
    if out.commands.len() > MAX_COMMANDS
        && !out
            .issues
            .iter()
            .any(|i| matches!(i, Issue::TooManyCommands { .. }))
    {
        out.issues.push(Issue::TooManyCommands {
            count: out.commands.len(),
            limit: MAX_COMMANDS,
        });
    }
    out
}

#[cfg(test)]
mod tests;
