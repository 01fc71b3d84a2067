//! A compiled rule and how it matches one invocation.

use std::sync::OnceLock;

use globset::GlobBuilder;
use regex::Regex;

use super::Decision;
use super::glob::{Globs, glob};
use super::raw::RedirectFilter;
use crate::parse::{Redirect, RedirectKind, Word};
use crate::strip::Invocation;

/// A regex compiled on first use.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(from = "String", into = "String")]
pub struct LazyRegex {
    pattern: String,
    cell: OnceLock<Option<Regex>>,
}

impl From<String> for LazyRegex {
    fn from(pattern: String) -> LazyRegex {
        LazyRegex::new(pattern)
    }
}

impl From<LazyRegex> for String {
    fn from(r: LazyRegex) -> String {
        r.pattern
    }
}

impl LazyRegex {
    pub(crate) fn new(pattern: String) -> LazyRegex {
        LazyRegex {
            pattern,
            cell: OnceLock::new(),
        }
    }
    /// The compiled regex.
    pub fn get(&self) -> Option<&Regex> {
        self.cell
            .get_or_init(|| {
                regex::RegexBuilder::new(&self.pattern)
                    .size_limit(1 << 20)
                    .dfa_size_limit(1 << 20)
                    .build()
                    .ok()
            })
            .as_ref()
    }
}

/// How a rule names its program.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum ProgramMatcher {
    /// Any program (no `command` key).
    Any,
    /// Exact names.
    Exact(Vec<String>),
    /// Glob patterns.
    Glob(Globs),
}

/// A rule, compiled.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Rule {
    /// Unique id.
    pub id: String,
    /// What it decides.
    pub decision: Decision,
    /// Shown with the verdict.
    pub reason: String,
    /// The layer it came from (`default`, a file path …).
    pub layer: String,
    /// The program.
    pub program: ProgramMatcher,
    /// Leading arguments after the program (each a glob, usually a literal).
    pub args: Vec<Globs>,
    /// The `args` as written.
    pub args_text: Vec<String>,
    /// Some argument must match one of these.
    pub args_any: Option<Globs>,
    /// No argument may match one of these.
    pub forbid_args: Option<Globs>,
    /// Concrete paths a glob argument is tested against for `args_any`
    /// (`cat ~/.s?h/id_*` may read `~/.ssh/id_rsa`).
    pub glob_probes: Vec<String>,
    /// At least one of these flags must be present.
    pub require_flags: Vec<String>,
    /// None of these flags may be present.
    pub forbid_flags: Vec<String>,
    /// Long options may be abbreviated.
    pub abbrev: bool,
    /// `--` ends the options (false for programs such as `find` that ignore it).
    pub double_dash: bool,
    /// Whole-command globs.
    pub pattern: Option<Globs>,
    /// Whole-command regex.
    pub regex: Option<LazyRegex>,
    /// Redirect targets (makes this a redirect rule).
    pub redirect: Option<Globs>,
    /// Which redirections.
    pub redirect_kind: RedirectFilter,
    /// The program's code or input comes from one of these programs.
    pub input_from: Vec<String>,
}

/// Why a rule did or did not match.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "result", content = "detail", rename_all = "snake_case")]
pub enum RuleOutcome {
    /// It matched.
    Matched,
    /// It did not, because of this condition.
    NotMatched(String),
}

/// The text of a command used by `pattern` and `regex`: static words quoted
/// the way a shell would need them (`'s/a/b/ w /tmp/x'` stays one quoted word,
/// so it cannot pass for several), dynamic words as their source text.
pub fn rendered(argv: &[Word]) -> String {
    argv.iter()
        .map(|w| match w.value() {
            Some(v) => shell_words::quote(&v).into_owned(),
            None => w.pattern(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl Rule {
    /// True for rules that judge redirections rather than programs.
    pub fn is_redirect_rule(&self) -> bool {
        self.redirect.is_some()
    }

    /// The outcome for a rule whose patterns could not be compiled: an allow rule
    /// does not match, any other does.
    fn broken(&self) -> RuleOutcome {
        if self.decision == Decision::Allow {
            RuleOutcome::NotMatched("the rule's patterns could not be compiled".into())
        } else {
            RuleOutcome::Matched
        }
    }

    /// Does the program part match `name`?
    pub fn matches_program(&self, name: &str) -> bool {
        match &self.program {
            ProgramMatcher::Any => true,
            ProgramMatcher::Exact(names) => names.iter().any(|n| n == name),
            // Patterns that cannot be compiled: only a rule that does not allow matches.
            ProgramMatcher::Glob(globs) => globs
                .matches(name)
                .unwrap_or(self.decision != Decision::Allow),
        }
    }

    /// Checks every condition except `input_from` (which needs the whole plan).
    pub fn check(&self, inv: &Invocation) -> RuleOutcome {
        let Some(name) = inv.program.as_deref() else {
            return RuleOutcome::NotMatched("the program is not static".into());
        };
        if !self.matches_program(name) {
            return RuleOutcome::NotMatched(format!("program `{name}`"));
        }
        let args = inv.argv.get(1..).unwrap_or_default();
        // INVARIANT: loading parsed every pattern, so compiling cannot fail; if it
        // did, the rule would neither allow nor stop deciding (fail closed).
        for (i, globs) in self.args.iter().enumerate() {
            let ok = match args.get(i).and_then(Word::value_str) {
                Some(v) => match globs.matches(&v) {
                    Some(ok) => ok,
                    None => return self.broken(),
                },
                None => false,
            };
            if !ok {
                return RuleOutcome::NotMatched(format!(
                    "argument {} is not `{}`",
                    i + 1,
                    self.args_text.get(i).map_or("", |s| s)
                ));
            }
        }
        let allowing = self.decision == Decision::Allow;
        // Options end at `--`: what follows is operands only.
        let end = if self.double_dash {
            args.iter()
                .position(|w| w.value_str().as_deref() == Some("--"))
                .unwrap_or(args.len())
        } else {
            args.len()
        };
        let options = args.get(..end).unwrap_or_default();
        if allowing
            && !self.forbid_flags.is_empty()
            && let Some(bad) = options.iter().find(|w| {
                self.forbid_flags
                    .iter()
                    .any(|f| may_be_flag(w, f, self.abbrev))
            })
        {
            return RuleOutcome::NotMatched(format!(
                "`{}` is a forbidden option or may be one",
                bad.pattern()
            ));
        }
        if !self.forbid_flags.is_empty() && !allowing {
            // For ask/deny rules, `forbid_flags` only excludes commands that certainly have them.
            if options
                .iter()
                .any(|w| self.forbid_flags.iter().any(|f| is_flag(w, f, self.abbrev)))
            {
                return RuleOutcome::NotMatched("has an excluded option".into());
            }
        }
        if !self.require_flags.is_empty()
            && !options.iter().any(|w| {
                self.require_flags
                    .iter()
                    .any(|f| is_flag(w, f, self.abbrev))
            })
        {
            return RuleOutcome::NotMatched(format!(
                "none of {} present",
                self.require_flags.join(", ")
            ));
        }
        if let Some(globs) = &self.forbid_args {
            if !globs.usable() {
                return self.broken();
            }
            if let Some(bad) = args.iter().find(|w| arg_may_match(w, globs, allowing)) {
                return RuleOutcome::NotMatched(format!(
                    "argument `{}` is excluded",
                    bad.pattern()
                ));
            }
        }
        if let Some(globs) = &self.args_any {
            if args.is_empty() {
                return RuleOutcome::NotMatched("no arguments for `args_any`".into());
            }
            if !globs.usable() {
                return self.broken();
            }
            if !args
                .iter()
                .any(|w| arg_matches(w, globs) || self.glob_may_reach_probe(w))
            {
                return RuleOutcome::NotMatched("no argument matches `args_any`".into());
            }
        }
        if self.pattern.is_some() || self.regex.is_some() {
            if allowing && !inv.argv.iter().all(Word::is_static) {
                return RuleOutcome::NotMatched("a word is not static".into());
            }
            let text = rendered(&inv.argv);
            let pattern = self.pattern.as_ref().map(|g| g.matches(&text));
            let regex = self.regex.as_ref().map(LazyRegex::get);
            if matches!(pattern, Some(None)) || matches!(regex, Some(None)) {
                return self.broken();
            }
            if pattern == Some(Some(false)) {
                return RuleOutcome::NotMatched("`pattern` does not match".into());
            }
            if let Some(Some(r)) = regex
                && !r.is_match(&text)
            {
                return RuleOutcome::NotMatched("`regex` does not match".into());
            }
        }
        RuleOutcome::Matched
    }

    /// A glob argument (or `--opt=glob`) that could expand to one of the rule's probe paths.
    fn glob_may_reach_probe(&self, w: &Word) -> bool {
        if self.glob_probes.is_empty() || !w.has_glob() {
            return false;
        }
        let full = w.pattern_glob();
        let value_part = full.split_once('=').map(|(_, v)| v.to_owned());
        [Some(full), value_part].into_iter().flatten().any(|g| {
            GlobBuilder::new(&g)
                .literal_separator(true)
                .build()
                .is_ok_and(|compiled| {
                    let m = compiled.compile_matcher();
                    self.glob_probes
                        .iter()
                        .any(|p| m.is_match(p) && leading_dots_agree(&g, p))
                })
        })
    }

    /// Does this redirect rule match one redirection?
    pub fn matches_redirect(&self, r: &Redirect) -> bool {
        let Some(globs) = &self.redirect else {
            return false;
        };
        let wanted = matches!(
            (self.redirect_kind, r.kind),
            (
                RedirectFilter::Write | RedirectFilter::Any,
                RedirectKind::Write | RedirectKind::ReadWrite
            ) | (
                RedirectFilter::Read | RedirectFilter::Any,
                RedirectKind::Read | RedirectKind::ReadWrite
            )
        );
        wanted
            && r.target.as_ref().is_some_and(|t| {
                // Patterns that cannot be compiled: only a rule that does not allow matches.
                let hit = |text: &str| {
                    globs
                        .matches(text)
                        .unwrap_or(self.decision != Decision::Allow)
                };
                hit(&t.pattern_str()) || t.value_str().is_some_and(|v| hit(&v))
            })
    }
}

/// Bash's `*` and `?` never match the leading `.` of a path component:
/// a probe component starting with `.` needs a literal `.` in the glob.
fn leading_dots_agree(glob: &str, probe: &str) -> bool {
    let g: Vec<&str> = glob.split('/').collect();
    let p: Vec<&str> = probe.split('/').collect();
    g.len() == p.len()
        && g.iter()
            .zip(&p)
            .all(|(gc, pc)| !pc.starts_with('.') || gc.starts_with('.'))
}

/// The word is certainly the flag `flag` (or its `=value` form, a cluster
/// containing a one-letter flag, or an abbreviation when `abbrev`).
pub(crate) fn is_flag(word: &Word, flag: &str, abbrev: bool) -> bool {
    word.value_str()
        .is_some_and(|v| text_is_flag(&v, flag, abbrev))
}

fn text_is_flag(v: &str, flag: &str, abbrev: bool) -> bool {
    if v == flag {
        return true;
    }
    if let Some(short) = flag
        .strip_prefix('-')
        .filter(|s| s.len() == 1 && !s.starts_with('-'))
    {
        // `-rf` contains `-r`; `-d` with an attached value `-dfoo` is a cluster too (cautious).
        return v.starts_with('-')
            && !v.starts_with("--")
            && v.len() > 2
            && v.get(1..).is_some_and(|c| c.contains(short));
    }
    let name = v.split_once('=').map_or(v, |(n, _)| n);
    if name == flag {
        return true;
    }
    if flag.starts_with("--") {
        if abbrev && name.starts_with("--") && name.len() >= 4 && flag.starts_with(name) {
            return true;
        }
    } else if flag.starts_with('-') && flag.len() > 2 && v.starts_with(flag) {
        // `-fprintf`-style single-dash long options given a value directly, or `-ofile`.
        return false;
    }
    false
}

/// The word is, or may at run time be, the flag.
fn may_be_flag(word: &Word, flag: &str, abbrev: bool) -> bool {
    if let Some(v) = word.value_str() {
        return text_is_flag(&v, flag, abbrev);
    }
    if let Some(g) = word.as_glob() {
        // A glob becomes the flag only if it matches the flag (or its `=` form).
        return glob(&g).is_ok_and(|g| {
            let m = g.compile_matcher();
            m.is_match(flag)
                || m.is_match(format!("{flag}=x"))
                || (flag.len() == 2 && m.is_match(format!("{flag}x")))
        });
    }
    true
}

/// The word matches one of the globs (its value, its `=value` part, or its source pattern).
/// The caller has checked `globs.usable()`.
fn arg_matches(word: &Word, globs: &Globs) -> bool {
    let pattern = word.pattern_str();
    if globs.matches(&pattern).unwrap_or(true) {
        return true;
    }
    if let Some((_, value)) = pattern.split_once('=')
        && globs.matches(value).unwrap_or(true)
    {
        return true;
    }
    false
}

fn arg_may_match(word: &Word, globs: &Globs, allowing: bool) -> bool {
    if arg_matches(word, globs) {
        return true;
    }
    allowing && !word.is_glob_only()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags() {
        assert!(text_is_flag("-rf", "-r", false));
        assert!(text_is_flag("-fr", "-r", false));
        assert!(!text_is_flag("--recursive", "-r", false));
        assert!(text_is_flag("--output=x", "--output", false));
        assert!(text_is_flag("--outp", "--output", true));
        assert!(!text_is_flag("--outp", "--output", false));
        assert!(!text_is_flag("--no-ext-diff", "--ext-diff", true));
        assert!(text_is_flag("-exec", "-exec", false));
        assert!(!text_is_flag("-executable", "-exec", false));
    }
}
