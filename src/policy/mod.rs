//! Match: invocations → per-invocation decisions, from TOML policy rules.
//!
//! Precedence is deny > ask > allow among the rules that match, then the
//! policy's default. Rules are indexed by exact program name, so matching
//! cost does not grow with the number of rules for other programs.

#![allow(
    clippy::result_large_err,
    reason = "PolicyError carries its source text for diagnostics; loading is not a hot path"
)]

mod error;
mod glob;
pub mod layers;
mod load;
mod raw;
mod rule;

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

pub use error::PolicyError;
pub use glob::Globs;
pub use load::{Examples, load_file, load_str, load_str_with};
pub use raw::{Extends, RawSandbox as Sandbox, RedirectFilter};
pub use rule::{ProgramMatcher, Rule, RuleOutcome, rendered};

use crate::parse::RedirectKind;
use crate::strip::{Invocation, Plan};

/// What to do with a command. Ordered: `max()` is the strictest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Run it.
    Allow,
    /// A person must approve it.
    Ask,
    /// Never run it.
    Deny,
}

/// The embedded default policy's text.
pub const DEFAULT_POLICY: &str = include_str!("../../policies/default.toml");

/// The same policy, compiled: what loading `DEFAULT_POLICY` gives, serialized
/// with postcard (`SHELLGATE_BLESS=1 cargo test --lib compiled_default` writes
/// it; the test fails when it is stale). Reading it costs a fraction of
/// parsing the TOML, which matters to a hook that is a process per command.
const DEFAULT_COMPILED: &[u8] = include_bytes!("default.compiled.bin");

/// A whole-policy example: `[[test]]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyTest {
    /// The command.
    pub command: String,
    /// The expected decision.
    pub expect: Decision,
    /// Why.
    pub why: Option<String>,
    /// Byte offset and length in its file.
    pub span: Option<(usize, usize)>,
}

/// Rule numbers by what they look at, built on first use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Index {
    /// `(hash of a program name, rule number)`, sorted: the rules that name
    /// programs exactly. No strings are copied to build it; a hash shared by
    /// two names only adds a candidate, which `candidates` then drops.
    by_program: Vec<(u64, usize)>,
    general: Vec<usize>,
    redirect_rules: Vec<usize>,
}

/// A compiled, possibly merged, policy. (De)serialized only for the
/// precompiled embedded default.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Policy {
    /// Every rule, in load order.
    pub rules: Vec<Rule>,
    /// Built from `rules` on first use (a layer that is only merged never needs one).
    #[serde(skip)]
    index: OnceLock<Index>,
    /// Decision when no rule matches.
    pub default: Decision,
    /// Extra safe environment names.
    pub safe_env: Vec<String>,
    /// `[[test]]` examples (not part of the precompiled embedded default,
    /// which is for deciding; the test suite runs the default's from its TOML).
    #[serde(skip)]
    pub tests: Vec<PolicyTest>,
    /// The `[sandbox]` table of the last layer that has one.
    pub sandbox: Option<Sandbox>,
    /// Where the layers came from.
    pub sources: Vec<String>,
    /// True when the file set `default` itself.
    pub default_set: bool,
    /// Projects whose policy files may loosen (user policy only).
    pub trusted_projects: Vec<String>,
    /// What the file is layered on (`extends`).
    pub extends: Option<Extends>,
    /// `interactive = false`: nobody can answer an ask, so ask becomes deny.
    pub interactive: Option<bool>,
    /// Decision for a write redirection no rule matches (default: `default`).
    pub redirect_default: Option<Decision>,
}

/// The decision for one invocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InvocationDecision {
    /// The decision.
    pub decision: Decision,
    /// The deciding rule, if a rule decided.
    pub rule: Option<String>,
    /// Why.
    pub reason: String,
    /// Every rule considered, with the outcome (filled when tracing).
    pub considered: Vec<(String, RuleOutcome)>,
}

/// The index key of a program name (SipHash with fixed keys: the same in every process).
fn name_key(name: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    name.hash(&mut h);
    h.finish()
}

impl Policy {
    pub(crate) fn from_parts(
        rules: Vec<Rule>,
        default: Option<Decision>,
        safe_env: Vec<String>,
        tests: Vec<PolicyTest>,
        sandbox: Option<Sandbox>,
    ) -> Policy {
        Policy {
            rules,
            index: OnceLock::new(),
            default: default.unwrap_or(Decision::Ask),
            safe_env,
            tests,
            sandbox,
            sources: Vec::new(),
            default_set: default.is_some(),
            trusted_projects: Vec::new(),
            extends: None,
            interactive: None,
            redirect_default: None,
        }
    }

    fn index(&self) -> &Index {
        self.index.get_or_init(|| {
            let mut index = Index::default();
            for (i, r) in self.rules.iter().enumerate() {
                if r.is_redirect_rule() {
                    index.redirect_rules.push(i);
                    continue;
                }
                match &r.program {
                    ProgramMatcher::Exact(names) => {
                        index
                            .by_program
                            .extend(names.iter().map(|n| (name_key(n), i)));
                    }
                    ProgramMatcher::Any | ProgramMatcher::Glob(..) => index.general.push(i),
                }
            }
            index.by_program.sort_unstable();
            index.by_program.dedup();
            index
        })
    }

    /// A policy with no rules whose default is ask.
    pub fn empty() -> Policy {
        Policy::from_parts(Vec::new(), None, Vec::new(), Vec::new(), None)
    }

    /// The embedded default policy.
    ///
    /// # Errors
    /// Only if the embedded file is broken (a test guards against that).
    pub fn embedded() -> Result<Policy, PolicyError> {
        if let Ok(p) = postcard::from_bytes::<Policy>(DEFAULT_COMPILED) {
            return Ok(p);
        }
        Policy::embedded_from_toml()
    }

    /// The embedded default policy, read from its TOML.
    fn embedded_from_toml() -> Result<Policy, PolicyError> {
        load_str_with(
            DEFAULT_POLICY,
            "policies/default.toml",
            "default",
            Examples::Skip,
        )
    }

    /// Layers merged in order: later layers add rules; the last `default` and `[sandbox]` win.
    pub fn merge(layers: Vec<(Policy, bool)>) -> Policy {
        let mut out = Policy::empty();
        for (layer, sets_default) in layers {
            if out.rules.is_empty() {
                out.rules = layer.rules; // moved, not copied rule by rule
            } else {
                out.rules.extend(layer.rules);
            }
            if sets_default {
                out.default = layer.default;
                out.default_set = true;
            }
            out.safe_env.extend(layer.safe_env);
            out.tests.extend(layer.tests);
            if layer.sandbox.is_some() {
                out.sandbox = layer.sandbox;
            }
            out.sources.extend(layer.sources);
            out.trusted_projects.extend(layer.trusted_projects);
            // Non-interactive is sticky: any layer can turn asking off, none can turn it back on.
            if layer.interactive == Some(false) {
                out.interactive = Some(false);
            }
            // Like `default`, the stricter of the layers' redirect defaults applies.
            if let Some(d) = layer.redirect_default {
                out.redirect_default = Some(out.redirect_default.map_or(d, |o| o.max(d)));
            }
        }
        out
    }

    fn candidates(&self, program: &str) -> impl Iterator<Item = (usize, &Rule)> {
        let index = self.index();
        let key = name_key(program);
        let start = index.by_program.partition_point(|&(h, _)| h < key);
        let exact = index
            .by_program
            .get(start..)
            .unwrap_or_default()
            .iter()
            .take_while(move |&&(h, _)| h == key)
            .map(|&(_, i)| i)
            .filter(move |&i| {
                self.rules
                    .get(i)
                    .is_some_and(|r| r.matches_program(program))
            });
        exact
            .chain(index.general.iter().copied())
            .filter_map(|i| self.rules.get(i).map(|r| (i, r)))
    }

    /// Does rule `id` match some invocation of `command`? (For rule examples.)
    pub fn rule_matches_example(&self, id: &str, command: &str) -> bool {
        let script = crate::parse::parse(command);
        let plan = crate::strip::strip(&script, &self.strip_options());
        let Some(rule) = self.rules.iter().find(|r| r.id == id) else {
            return false;
        };
        plan.invocations.iter().any(|inv| {
            if rule.is_redirect_rule() {
                let program_ok = inv
                    .program
                    .as_deref()
                    .is_some_and(|p| rule.matches_program(p));
                program_ok && inv.redirects.iter().any(|r| rule.matches_redirect(r))
            } else {
                rule.check(inv) == RuleOutcome::Matched && input_from_ok(rule, inv, &plan)
            }
        })
    }

    /// Options for the strip stage that this policy sets.
    pub fn strip_options(&self) -> crate::strip::StripOptions {
        crate::strip::StripOptions {
            safe_env: self.safe_env.clone(),
        }
    }

    /// Decides every invocation of a plan.
    pub fn decide(&self, plan: &Plan, trace: bool) -> Vec<InvocationDecision> {
        plan.invocations
            .iter()
            .map(|inv| self.decide_one(inv, plan, trace))
            .collect()
    }

    fn decide_one(&self, inv: &Invocation, plan: &Plan, trace: bool) -> InvocationDecision {
        let mut out = match inv.program.as_deref() {
            None if inv.argv.is_empty() => InvocationDecision {
                decision: Decision::Allow,
                rule: None,
                reason: "no program runs (assignments or redirections only)".into(),
                considered: Vec::new(),
            },
            None => InvocationDecision {
                decision: Decision::Ask,
                rule: None,
                reason: format!(
                    "the program `{}` is not known until the command runs",
                    inv.argv
                        .first()
                        .map(crate::parse::Word::pattern)
                        .unwrap_or_default()
                ),
                considered: Vec::new(),
            },
            Some(name) => self.decide_program(inv, name, plan, trace),
        };
        if let Some(a) = inv.assignments.first().filter(|_| !inv.argv.is_empty()) {
            raise(
                &mut out,
                Decision::Ask,
                None,
                format!(
                    "`{}=` in front of the program may change what it runs",
                    a.name
                ),
            );
        }
        if let Some(name) = inv
            .program
            .as_deref()
            .filter(|n| plan.functions.iter().any(|f| f == n))
        {
            raise(
                &mut out,
                Decision::Ask,
                None,
                format!("`{name}` calls a function defined in this command"),
            );
        }
        for r in &inv.redirects {
            let (decision, rule, reason) = self.decide_redirect(inv, r);
            if let Some(id) = rule.as_ref().filter(|_| trace) {
                out.considered.push((id.clone(), RuleOutcome::Matched));
            }
            raise(&mut out, decision, rule, reason);
        }
        out
    }

    fn decide_program(
        &self,
        inv: &Invocation,
        name: &str,
        plan: &Plan,
        trace: bool,
    ) -> InvocationDecision {
        let mut best: Option<&Rule> = None;
        let mut considered = Vec::new();
        for (_, rule) in self.candidates(name) {
            let mut outcome = rule.check(inv);
            if outcome == RuleOutcome::Matched && !input_from_ok(rule, inv, plan) {
                outcome = RuleOutcome::NotMatched(format!(
                    "its input does not come from {}",
                    rule.input_from.join(", ")
                ));
            }
            if outcome == RuleOutcome::Matched && best.is_none_or(|b| rule.decision > b.decision) {
                best = Some(rule);
            }
            if trace {
                considered.push((rule.id.clone(), outcome));
            }
        }
        match best {
            Some(rule) => InvocationDecision {
                decision: rule.decision,
                rule: Some(rule.id.clone()),
                reason: if rule.reason.is_empty() {
                    format!("rule `{}`", rule.id)
                } else {
                    rule.reason.clone()
                },
                considered,
            },
            None => InvocationDecision {
                decision: self.default,
                rule: None,
                reason: format!("no rule matches `{}`", rendered_short(inv)),
                considered,
            },
        }
    }

    fn decide_redirect(
        &self,
        inv: &Invocation,
        r: &crate::parse::Redirect,
    ) -> (Decision, Option<String>, String) {
        let target = r
            .target
            .as_ref()
            .map(crate::parse::Word::pattern)
            .unwrap_or_default();
        if matches!(
            r.kind,
            RedirectKind::Duplicate | RedirectKind::Heredoc | RedirectKind::HereString
        ) {
            return (Decision::Allow, None, String::new());
        }
        let mut best: Option<&Rule> = None;
        for &i in &self.index().redirect_rules {
            let Some(rule) = self.rules.get(i) else {
                continue;
            };
            let program_ok = match inv.program.as_deref() {
                Some(p) => rule.matches_program(p),
                None => matches!(rule.program, ProgramMatcher::Any),
            };
            if program_ok
                && rule.matches_redirect(r)
                && best.is_none_or(|b| rule.decision > b.decision)
            {
                best = Some(rule);
            }
        }
        if let Some(rule) = best {
            let reason = if rule.reason.is_empty() {
                format!("redirection to `{target}`")
            } else {
                rule.reason.clone()
            };
            return (rule.decision, Some(rule.id.clone()), reason);
        }
        let static_target = r.target.as_ref().is_some_and(crate::parse::Word::is_static);
        match r.kind {
            RedirectKind::Read if static_target => (Decision::Allow, None, String::new()),
            RedirectKind::Read => (
                self.default,
                None,
                format!("reads from `{target}`, which is not known until it runs"),
            ),
            _ => (
                self.redirect_default.unwrap_or(self.default),
                None,
                format!("writes to `{target}`"),
            ),
        }
    }
}

/// Raises a decision to `d` when `d` is stricter, taking its rule and reason.
fn raise(out: &mut InvocationDecision, d: Decision, rule: Option<String>, reason: String) {
    if d > out.decision {
        out.decision = d;
        out.rule = rule;
        out.reason = reason;
    }
}

fn rendered_short(inv: &Invocation) -> String {
    let text = rendered(&inv.argv);
    let mut out: String = text.chars().take(80).collect();
    if text.chars().count() > 80 {
        out.push('…');
    }
    out
}

/// `input_from`: some invocation of one of the named programs feeds this one,
/// through a pipe or a substitution inside its words.
fn input_from_ok(rule: &Rule, inv: &Invocation, plan: &Plan) -> bool {
    if rule.input_from.is_empty() {
        return true;
    }
    let ancestors = |start: usize, through_substitution_only: bool| -> Vec<usize> {
        let mut out = vec![start];
        let mut cur = start;
        for _ in 0..64 {
            let Some(unit) = plan.units.get(cur) else {
                break;
            };
            if through_substitution_only && !unit.substitution {
                break;
            }
            match unit.parent {
                Some(p) => {
                    out.push(p);
                    cur = p;
                }
                None => break,
            }
        }
        out
    };
    let target = ancestors(inv.origin, false);
    plan.invocations
        .iter()
        .filter(|d| d.origin != inv.origin)
        .any(|d| {
            let fed = d
                .program
                .as_deref()
                .is_some_and(|p| rule.input_from.iter().any(|f| f == p));
            if !fed {
                return false;
            }
            let chain = ancestors(d.origin, true);
            chain.iter().skip(1).any(|a| *a == inv.origin)
                || chain.iter().any(|a| {
                    target.iter().any(|t| {
                        let (pa, pt) = (
                            plan.units.get(*a).and_then(|u| u.pipeline),
                            plan.units.get(*t).and_then(|u| u.pipeline),
                        );
                        matches!((pa, pt), (Some((x, i)), Some((y, j))) if x == y && i < j)
                    })
                })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `src/policy/default.compiled.bin` is what loading the TOML gives.
    #[test]
    fn compiled_default_is_current() {
        let from_toml = Policy::embedded_from_toml().unwrap();
        let want = postcard::to_stdvec(&from_toml).unwrap();
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/policy/default.compiled.bin"
        );
        if std::env::var_os("SHELLGATE_BLESS").is_some() {
            // The binary embeds the old file: the next build checks the new one.
            std::fs::write(path, &want).unwrap();
            return;
        }
        assert!(
            DEFAULT_COMPILED == want,
            "src/policy/default.compiled.bin is stale: run `SHELLGATE_BLESS=1 cargo test --lib compiled_default`"
        );
        let embedded = Policy::embedded().unwrap();
        assert_eq!(postcard::to_stdvec(&embedded).unwrap(), want);
        assert_eq!(embedded.index(), from_toml.index());
    }

    #[test]
    fn embedded_policy_examples_hold() {
        // The embedded policy skips its rule examples at start-up; they are checked here.
        let p = load_str_with(
            DEFAULT_POLICY,
            "policies/default.toml",
            "default",
            Examples::Check,
        );
        assert!(p.is_ok(), "{:?}", p.err());
    }

    #[test]
    fn strictest_rule_wins_and_layers_merge() {
        let base = load_str(
            "[[rule]]\nid = \"a\"\ndecision = \"allow\"\ncommand = \"git\"\n",
            "a.toml",
            "a",
        )
        .unwrap();
        let top = load_str("default = \"deny\"\n[[rule]]\nid = \"b\"\ndecision = \"ask\"\ncommand = \"git\"\nargs = [\"push\"]\n", "b.toml", "b").unwrap();
        let merged = Policy::merge(vec![(base, false), (top, true)]);
        let decide = |cmd: &str| crate::check(cmd, &merged).decision;
        assert_eq!(decide("git status"), Decision::Allow);
        assert_eq!(decide("git push"), Decision::Ask);
        assert_eq!(decide("ls"), Decision::Deny);
        assert!(Decision::Deny > Decision::Ask && Decision::Ask > Decision::Allow);
    }
}
