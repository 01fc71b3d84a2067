//! `PolicyError`: what is wrong with a policy file, with its place in the file.

use std::sync::Arc;

use miette::{NamedSource, SourceSpan};

/// A mistake in a policy file. The policy is refused whole.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum PolicyError {
    /// The file could not be read.
    #[error("cannot read policy `{path}`: {message}")]
    #[diagnostic(code(policy::io))]
    Io {
        /// The path.
        path: String,
        /// The OS error.
        message: String,
    },
    /// TOML syntax or schema error (unknown key, wrong type, unknown decision).
    #[error("{message}")]
    #[diagnostic(code(policy::syntax), help("{help}"))]
    Syntax {
        /// The parser's message.
        message: String,
        /// Advice.
        help: String,
        /// The file.
        #[source_code]
        src: NamedSource<Arc<str>>,
        /// Where.
        #[label("here")]
        at: Option<SourceSpan>,
    },
    /// A rule field whose value is invalid (bad glob, bad regex, …).
    #[error("rule `{rule}`: invalid {field}: {message}")]
    #[diagnostic(code(policy::invalid), help("{help}"))]
    Invalid {
        /// The rule id.
        rule: String,
        /// Which field.
        field: &'static str,
        /// What is wrong.
        message: String,
        /// Advice.
        help: String,
        /// The file.
        #[source_code]
        src: NamedSource<Arc<str>>,
        /// Where.
        #[label("here")]
        at: SourceSpan,
    },
    /// Two rules share an id.
    #[error("duplicate rule id `{id}`")]
    #[diagnostic(
        code(policy::duplicate_id),
        help("rule ids must be unique within a file")
    )]
    DuplicateRuleId {
        /// The id.
        id: String,
        /// The file.
        #[source_code]
        src: NamedSource<Arc<str>>,
        /// The second use.
        #[label("used again here")]
        at: SourceSpan,
    },
    /// A rule's own `match` / `not_match` example fails.
    #[error("rule `{rule}`: example `{example}` {problem}")]
    #[diagnostic(code(policy::example), help("fix the rule or the example"))]
    ExampleFails {
        /// The rule id.
        rule: String,
        /// The example command.
        example: String,
        /// What went wrong.
        problem: &'static str,
        /// The file.
        #[source_code]
        src: NamedSource<Arc<str>>,
        /// Where.
        #[label("this example")]
        at: SourceSpan,
    },
    /// A rule whose conditions can never all hold.
    #[error("rule `{rule}` can never match: {why}")]
    #[diagnostic(
        code(policy::never_matches),
        help("remove the contradiction or the rule")
    )]
    NeverMatches {
        /// The rule id.
        rule: String,
        /// Why.
        why: String,
        /// The file.
        #[source_code]
        src: NamedSource<Arc<str>>,
        /// The rule's id.
        #[label("this rule")]
        at: SourceSpan,
    },
    /// Several errors in one file.
    #[error("policy `{path}` has {} errors", errors.len())]
    #[diagnostic(code(policy::many))]
    Many {
        /// The file.
        path: String,
        /// Every error.
        #[related]
        errors: Vec<PolicyError>,
    },
}

impl PolicyError {
    /// Where in the file the error is (0 when it has no place).
    pub fn offset(&self) -> usize {
        match self {
            PolicyError::Syntax { at, .. } => at.map_or(0, |a| a.offset()),
            PolicyError::Invalid { at, .. }
            | PolicyError::DuplicateRuleId { at, .. }
            | PolicyError::ExampleFails { at, .. }
            | PolicyError::NeverMatches { at, .. } => at.offset(),
            PolicyError::Io { .. } | PolicyError::Many { .. } => 0,
        }
    }
}
