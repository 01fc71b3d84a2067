//! The `Script` IR: what the parser hands to every later stage.
//!
//! Nothing here refers to tree-sitter. Words carry bash's quote removal already
//! applied; anything bash decides at run time is a dynamic [`Part`].

use serde::Serialize;
use std::borrow::Cow;

/// A byte range in the text that was parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// One piece of a [`Word`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "text", rename_all = "snake_case")]
pub enum Part {
    /// Exact characters, after quote removal.
    Literal(String),
    /// Unquoted glob metacharacters (`*`, `?`, `[...]`): expanded against files at run time.
    Glob(String),
    /// An unquoted leading `~` or `~user`.
    Tilde(String),
    /// A parameter expansion (`$x`, `${x:-y}`, `$@`): its source text.
    Param(String),
    /// A command or process substitution (`$(…)`, backticks, `<(…)`, `>(…)`): its source text.
    /// The commands inside are listed in the script on their own.
    Substitution(String),
    /// An arithmetic expansion (`$((…))`, `$[…]`): its source text.
    Arithmetic(String),
}

impl Part {
    /// The part's text: the characters of a literal, the source of anything else.
    pub fn text(&self) -> &str {
        match self {
            Part::Literal(s)
            | Part::Glob(s)
            | Part::Tilde(s)
            | Part::Param(s)
            | Part::Substitution(s)
            | Part::Arithmetic(s) => s,
        }
    }
}

/// A shell word: a sequence of parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Word {
    /// The parts, in order.
    pub parts: Vec<Part>,
    /// Where the word came from (for a word produced by brace expansion, the whole source word).
    pub span: Span,
    /// True when this word is one of several produced by brace expansion.
    pub from_brace: bool,
}

impl Word {
    /// A word made of one literal.
    pub fn literal(text: &str, span: Span) -> Self {
        Word {
            parts: vec![Part::Literal(text.to_owned())],
            span,
            from_brace: false,
        }
    }

    /// The exact value, when every part is literal.
    pub fn value(&self) -> Option<String> {
        self.value_str().map(Cow::into_owned)
    }

    /// `value`, borrowed when the word is one part (the usual case: no copy).
    pub fn value_str(&self) -> Option<Cow<'_, str>> {
        if let [Part::Literal(s)] = self.parts.as_slice() {
            return Some(Cow::Borrowed(s));
        }
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(s) => out.push_str(s),
                _ => return None,
            }
        }
        Some(Cow::Owned(out))
    }

    /// True when the value is exact (no run-time expansion).
    pub fn is_static(&self) -> bool {
        self.parts.iter().all(|p| matches!(p, Part::Literal(_)))
    }

    /// True when the only run-time expansion is filename globbing or tilde.
    pub fn is_glob_only(&self) -> bool {
        self.parts
            .iter()
            .all(|p| matches!(p, Part::Literal(_) | Part::Glob(_) | Part::Tilde(_)))
    }

    /// The text used for matching and display: literals as they are, dynamic parts as their source.
    pub fn pattern(&self) -> String {
        self.pattern_str().into_owned()
    }

    /// `pattern`, borrowed when the word is one part.
    pub fn pattern_str(&self) -> Cow<'_, str> {
        if let [part] = self.parts.as_slice() {
            return Cow::Borrowed(part.text());
        }
        Cow::Owned(self.parts.iter().map(Part::text).collect())
    }

    /// A glob over the word's source text: glob parts are patterns, every other
    /// part (literal, tilde, parameter …) matches only its own text.
    pub fn pattern_glob(&self) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Glob(s) => out.push_str(s),
                other => push_literal_glob(&mut out, other.text()),
            }
        }
        out
    }

    /// True when some part is an unquoted glob.
    pub fn has_glob(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Glob(_)))
    }

    /// A glob pattern whose matches are exactly the words bash could produce
    /// from this word by filename expansion; `None` for other dynamic words.
    pub fn as_glob(&self) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(s) => {
                    push_literal_glob(&mut out, s);
                }
                Part::Glob(s) => out.push_str(s),
                _ => return None,
            }
        }
        Some(out)
    }
}

/// Appends `s` to a glob so that it matches only itself (glob characters in brackets).
fn push_literal_glob(out: &mut String, s: &str) {
    for c in s.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('[');
            out.push(c);
            out.push(']');
        } else {
            out.push(c);
        }
    }
}

/// A `NAME=value` assignment (prefix of a command, or a statement of its own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Assignment {
    /// The variable name (with any subscript, as written).
    pub name: String,
    /// The value, if one was given.
    pub value: Option<Word>,
    /// `+=` rather than `=`.
    pub append: bool,
}

/// What a redirection does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RedirectKind {
    /// Reads a file (`<`).
    Read,
    /// Writes a file (`>`, `>>`, `>|`, `&>`, `&>>`, `>&file`).
    Write,
    /// Opens a file for reading and writing (`<>`).
    ReadWrite,
    /// Duplicates or closes a descriptor (`2>&1`, `>&-`).
    Duplicate,
    /// A here-document (`<<`, `<<-`).
    Heredoc,
    /// A here-string (`<<<`).
    HereString,
}

/// One redirection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redirect {
    /// The explicit descriptor (`2>`), if any.
    pub fd: Option<u32>,
    /// The operator as written.
    pub op: String,
    /// What it does.
    pub kind: RedirectKind,
    /// The target file or here-string word (none for a heredoc).
    pub target: Option<Word>,
    /// The body of a here-document.
    pub heredoc: Option<Heredoc>,
}

/// The body of a here-document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Heredoc {
    /// The body text as written.
    pub body: String,
    /// True when the delimiter was quoted, so the body is not expanded.
    pub quoted: bool,
    /// True when the body contains expansions that bash performs.
    pub dynamic: bool,
    /// From the first byte of the body to the first byte of the terminator line.
    pub body_span: Span,
}

/// How a simple command is reached: a set of flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Context(u16);

macro_rules! context_flags {
    ($($(#[$doc:meta])* $name:ident = $bit:expr, $label:literal;)*) => {
        impl Context {
            $($(#[$doc])* pub const $name: Context = Context(1 << $bit);)*
            /// The names of the flags that are set.
            pub fn labels(self) -> Vec<&'static str> {
                let mut out = Vec::new();
                $(if self.contains(Context::$name) { out.push($label); })*
                out
            }
        }
    };
}

context_flags! {
    /// A member of a pipeline.
    PIPELINE = 0, "pipeline";
    /// An operand of `&&`, `||` or `;`.
    LIST = 1, "list";
    /// Inside `( … )`.
    SUBSHELL = 2, "subshell";
    /// Run in the background with `&`.
    BACKGROUND = 3, "background";
    /// Negated with `!`.
    NEGATED = 4, "negated";
    /// The condition of `if`, `while` or `until`.
    CONDITION = 5, "condition";
    /// The body of a loop.
    LOOP = 6, "loop";
    /// Inside a command or process substitution.
    SUBSTITUTION = 7, "substitution";
    /// The body of a function definition.
    FUNCTION = 8, "function";
    /// Code given as a string to a shell (`bash -c`, `eval`, a heredoc fed to a shell).
    NESTED_SHELL = 9, "nested_shell";
    /// Inside `{ …; }`.
    GROUP = 10, "group";
    /// A branch of `if` or `case`.
    BRANCH = 11, "branch";
}

impl Context {
    /// True when every flag of `other` is set.
    pub fn contains(self, other: Context) -> bool {
        self.0 & other.0 == other.0
    }
    /// Both sets of flags.
    #[must_use]
    pub fn with(self, other: Context) -> Context {
        Context(self.0 | other.0)
    }
}

impl Serialize for Context {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.labels().serialize(s)
    }
}

/// One simple command: assignments, words and redirections.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SimpleCommand {
    /// Leading `NAME=value` assignments (or the whole statement, when `argv` is empty).
    pub assignments: Vec<Assignment>,
    /// The program and its arguments.
    pub argv: Vec<Word>,
    /// Redirections, including those of an enclosing compound command.
    pub redirects: Vec<Redirect>,
    /// How it is reached.
    pub context: Context,
    /// Which pipeline it belongs to and its position there.
    pub pipeline: Option<(u32, u32)>,
    /// The command whose words contain the substitution this command runs in.
    pub parent: Option<usize>,
    /// Nesting depth (0 at the top level).
    pub depth: u32,
    /// Where it is in the parsed text (of the nested string, for nested shells).
    pub span: Span,
}

/// Why the IR does not model the command completely.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Issue {
    /// tree-sitter could not parse part of the text.
    SyntaxError {
        /// Where.
        span: Span,
    },
    /// tree-sitter inserted a missing token.
    Missing {
        /// What was missing.
        what: String,
        /// Where.
        span: Span,
    },
    /// A node kind the lowering does not handle.
    UnknownNode {
        /// The node kind.
        node: String,
        /// Where.
        span: Span,
    },
    /// The input is longer than the limit.
    TooLong {
        /// Its length in bytes.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// Nesting went deeper than the limit.
    TooDeep {
        /// The limit.
        limit: u32,
    },
    /// More simple commands than the limit.
    TooManyCommands {
        /// How many were seen (at least).
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// The input was not valid UTF-8 or contained NUL bytes.
    InvalidText {
        /// What was wrong.
        what: String,
    },
    /// A construct the lowering understands but cannot model statically.
    Unmodelled {
        /// What it is.
        what: String,
        /// Where.
        span: Span,
    },
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Issue::SyntaxError { span } => write!(f, "syntax error at byte {}", span.start),
            Issue::Missing { what, span } => write!(
                f,
                "incomplete command: missing `{what}` at byte {}",
                span.start
            ),
            Issue::UnknownNode { node, span } => {
                write!(f, "unsupported syntax `{node}` at byte {}", span.start)
            }
            Issue::TooLong { len, limit } => {
                write!(f, "command is {len} bytes, over the {limit}-byte limit")
            }
            Issue::TooDeep { limit } => write!(f, "nesting deeper than {limit} levels"),
            Issue::TooManyCommands { count, limit } => {
                write!(f, "{count} simple commands, over the limit of {limit}")
            }
            Issue::InvalidText { what } => write!(f, "{what}"),
            Issue::Unmodelled { what, span } => write!(f, "{what} at byte {}", span.start),
        }
    }
}

/// A function defined in the script.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FunctionDef {
    /// Its name.
    pub name: String,
    /// Where.
    pub span: Span,
}

/// The whole parsed command.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Script {
    /// Every simple command, nested ones included, in source order (a parent before its substitutions).
    pub commands: Vec<SimpleCommand>,
    /// Functions the script defines.
    pub functions: Vec<FunctionDef>,
    /// Comments, with their spans.
    pub comments: Vec<Span>,
    /// Why the IR is incomplete; empty when it models the whole command.
    pub issues: Vec<Issue>,
}

impl Script {
    /// True when the IR models the whole command.
    pub fn is_complete(&self) -> bool {
        self.issues.is_empty()
    }

    /// Every command's words as the canonical-rendering property compares them:
    /// static words by value, dynamic words by the kinds of their parts (the
    /// source text inside a substitution changes when its own words are re-quoted).
    pub fn word_signature(&self) -> Vec<Vec<String>> {
        let word = |w: &Word| {
            w.value().unwrap_or_else(|| {
                w.parts
                    .iter()
                    .map(|p| match p {
                        Part::Literal(t) | Part::Glob(t) | Part::Tilde(t) => t.clone(),
                        Part::Param(_) => "<param>".into(),
                        Part::Substitution(_) => "<subst>".into(),
                        Part::Arithmetic(_) => "<arith>".into(),
                    })
                    .collect()
            })
        };
        self.commands
            .iter()
            .map(|c| c.argv.iter().map(word).collect())
            .collect()
    }
}
