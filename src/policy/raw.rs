//! The policy file schema, as serde reads it (spans kept for diagnostics).

use serde::Deserialize;
use toml::Spanned;

use super::Decision;

/// One string or a list of strings.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub(crate) fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

/// A whole policy file, assembled key by key so that every error is reported.
#[derive(Debug, Default)]
pub(crate) struct RawPolicy {
    pub(crate) default: Option<Decision>,
    pub(crate) safe_env: Vec<String>,
    pub(crate) trusted_projects: Vec<String>,
    pub(crate) extends: Option<Extends>,
    pub(crate) interactive: Option<bool>,
    pub(crate) redirect_default: Option<Decision>,
    pub(crate) rules: Vec<Spanned<RawRule>>,
    pub(crate) tests: Vec<Spanned<RawTest>>,
    pub(crate) sandbox: Option<RawSandbox>,
}

/// What a policy file is layered on.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Extends {
    /// The embedded default policy (the usual case).
    Default,
    /// Nothing: the file is a complete policy on its own.
    None,
}

/// Which redirections a redirect rule looks at.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RedirectFilter {
    /// Writes (`>`, `>>`, `&>`, `<>`).
    #[default]
    Write,
    /// Reads (`<`, `<>`).
    Read,
    /// Both.
    Any,
}

fn yes() -> bool {
    true
}

/// One `[[rule]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRule {
    pub(crate) id: Spanned<String>,
    pub(crate) decision: Spanned<Decision>,
    #[serde(default)]
    pub(crate) reason: Option<String>,
    pub(crate) command: Option<Spanned<OneOrMany>>,
    pub(crate) args: Option<Spanned<OneOrMany>>,
    #[serde(default)]
    pub(crate) args_any: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    pub(crate) forbid_args: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    pub(crate) glob_probes: Vec<String>,
    #[serde(default)]
    pub(crate) require_flags: Vec<String>,
    #[serde(default)]
    pub(crate) forbid_flags: Vec<String>,
    #[serde(default)]
    pub(crate) abbrev: bool,
    #[serde(default = "yes")]
    pub(crate) double_dash: bool,
    pub(crate) pattern: Option<Spanned<OneOrMany>>,
    pub(crate) regex: Option<Spanned<String>>,
    pub(crate) redirect: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    pub(crate) redirect_kind: RedirectFilter,
    #[serde(default)]
    pub(crate) input_from: Vec<String>,
    #[serde(default, rename = "match")]
    pub(crate) match_examples: Vec<Spanned<String>>,
    #[serde(default)]
    pub(crate) not_match: Vec<Spanned<String>>,
}

/// One whole-policy `[[test]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTest {
    pub(crate) command: String,
    pub(crate) expect: Decision,
    #[serde(default)]
    pub(crate) why: Option<String>,
}

/// The `[sandbox]` table.
#[derive(Debug, Clone, Deserialize, Default, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawSandbox {
    /// Read-only roots.
    #[serde(default)]
    pub read_only: Vec<String>,
    /// Read-write roots.
    #[serde(default)]
    pub read_write: Vec<String>,
    /// Whether the network (of any kind) is allowed.
    #[serde(default)]
    pub network: bool,
    /// Whether named unix sockets may be connected to (off by default).
    #[serde(default)]
    pub unix_sockets: bool,
    /// Environment variable names passed through to the command besides the built-in allowlist.
    #[serde(default)]
    pub env: Vec<String>,
    /// Refuse to run unless the kernel enforces every restriction.
    #[serde(default)]
    pub require: bool,
}
