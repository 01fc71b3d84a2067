//! Loading: TOML text → compiled [`Policy`], or every error with its place.

use std::collections::HashMap;
use std::sync::Arc;

use miette::{NamedSource, SourceSpan};
use toml::Spanned;

use super::error::PolicyError;
use super::glob::{Globs, glob};
use super::raw::{RawPolicy, RawRule, RawTest};
use super::rule::{LazyRegex, ProgramMatcher, Rule};
use super::{Decision, Policy, PolicyTest};

fn span_of<T>(s: &Spanned<T>) -> SourceSpan {
    let r = s.span();
    SourceSpan::from(r.start..r.end)
}

/// Near-miss suggestion for an unknown key.
fn did_you_mean(message: &str) -> String {
    const KEYS: &[&str] = &[
        "default",
        "safe_env",
        "trusted_projects",
        "rule",
        "test",
        "sandbox",
        "id",
        "decision",
        "reason",
        "command",
        "args",
        "args_any",
        "forbid_args",
        "require_flags",
        "forbid_flags",
        "abbrev",
        "double_dash",
        "pattern",
        "regex",
        "redirect",
        "redirect_kind",
        "input_from",
        "match",
        "not_match",
        "expect",
        "why",
        "read_only",
        "read_write",
        "network",
    ];
    let Some(found) = message.split('`').nth(1) else {
        return "see docs/policy.md for the keys a policy may use".into();
    };
    let best = KEYS
        .iter()
        .map(|k| (strsim_distance(found, k), k))
        .min_by_key(|(d, _)| *d)
        .filter(|(d, _)| *d <= 2 && !found.is_empty());
    match best {
        Some((_, k)) if message.contains("unknown field") => format!("did you mean `{k}`?"),
        _ if message.contains("unknown variant") => "expected `allow`, `ask` or `deny`".into(),
        _ => "see docs/policy.md for the keys a policy may use".into(),
    }
}

/// Levenshtein distance (small strings only).
fn strsim_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev.get(j).copied().unwrap_or(0) + usize::from(ca != *cb);
            let del = prev.get(j + 1).copied().unwrap_or(0) + 1;
            let ins = cur.get(j).copied().unwrap_or(0) + 1;
            cur.push(sub.min(del).min(ins));
        }
        prev = cur;
    }
    prev.last().copied().unwrap_or(0)
}

/// The top-level keys of a policy file.
const TOP_KEYS: &[&str] = &[
    "default",
    "redirect_default",
    "safe_env",
    "trusted_projects",
    "extends",
    "interactive",
    "rule",
    "test",
    "sandbox",
];

fn syntax(e: &toml::de::Error, src: &NamedSource<Arc<str>>, offset: usize) -> PolicyError {
    PolicyError::Syntax {
        message: e.message().trim().to_owned(),
        help: did_you_mean(e.message()),
        src: src.clone(),
        at: e
            .span()
            .map(|r| SourceSpan::from(r.start + offset..r.end + offset)),
    }
}

/// Deserializes one spanned value; errors keep their place in the file.
fn value<T: serde::de::DeserializeOwned>(
    v: &Spanned<toml::de::DeValue<'_>>,
    src: &NamedSource<Arc<str>>,
    errors: &mut Vec<PolicyError>,
) -> Option<T> {
    match T::deserialize(toml::de::ValueDeserializer::from(v.clone())) {
        Ok(t) => Some(t),
        Err(e) => {
            let mut err = syntax(&e, src, 0);
            if let PolicyError::Syntax { at: at @ None, .. } = &mut err {
                *at = Some(SourceSpan::from(v.span()));
            }
            errors.push(err);
            None
        }
    }
}

/// Reads the document key by key, collecting every error.
fn read_raw(text: &str, src: &NamedSource<Arc<str>>, errors: &mut Vec<PolicyError>) -> RawPolicy {
    let (doc, syntax_errors) = toml::de::DeTable::parse_recoverable(text);
    if !syntax_errors.is_empty() {
        errors.extend(syntax_errors.iter().map(|e| syntax(e, src, 0)));
        return RawPolicy::default();
    }
    let mut raw = RawPolicy::default();
    for (key, v) in doc.get_ref() {
        let name: &str = key.get_ref().as_ref();
        match name {
            "default" => raw.default = value(v, src, errors),
            "safe_env" => raw.safe_env = value(v, src, errors).unwrap_or_default(),
            "trusted_projects" => raw.trusted_projects = value(v, src, errors).unwrap_or_default(),
            "extends" => raw.extends = value(v, src, errors),
            "interactive" => raw.interactive = value(v, src, errors),
            "redirect_default" => raw.redirect_default = value(v, src, errors),
            "sandbox" => raw.sandbox = value(v, src, errors),
            "rule" | "test" => {
                let toml::de::DeValue::Array(items) = v.get_ref() else {
                    errors.push(PolicyError::Syntax {
                        message: format!("`{name}` must be an array of tables: write `[[{name}]]`"),
                        help: "see docs/policy.md".into(),
                        src: src.clone(),
                        at: Some(SourceSpan::from(v.span())),
                    });
                    continue;
                };
                for item in items.iter() {
                    if name == "rule" {
                        if let Some(r) = value::<RawRule>(item, src, errors) {
                            raw.rules.push(Spanned::new(item.span(), r));
                        }
                    } else if let Some(t) = value::<RawTest>(item, src, errors) {
                        raw.tests.push(Spanned::new(item.span(), t));
                    }
                }
            }
            other => {
                let best = TOP_KEYS
                    .iter()
                    .map(|k| (strsim_distance(other, k), k))
                    .min_by_key(|(d, _)| *d);
                let help = match best {
                    Some((d, k)) if d <= 2 => format!("did you mean `{k}`?"),
                    _ => format!(
                        "expected one of {}",
                        TOP_KEYS
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                errors.push(PolicyError::Syntax {
                    message: format!("unknown key `{other}`"),
                    help,
                    src: src.clone(),
                    at: Some(SourceSpan::from(key.span())),
                });
            }
        }
    }
    raw
}

/// Parses and compiles one policy file.
///
/// # Errors
/// Every mistake found, as a [`PolicyError`] (several are wrapped in `Many`).
pub fn load_str(text: &str, path: &str, layer: &str) -> Result<Policy, PolicyError> {
    load_str_with(text, path, layer, Examples::Check)
}

/// Whether a rule's own `match` / `not_match` examples are checked at load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Examples {
    /// Check them (every file a user gives).
    Check,
    /// Skip them (the embedded default, whose examples are checked by the test suite).
    Skip,
}

/// [`load_str`], choosing whether rule examples are checked.
///
/// # Errors
/// As [`load_str`].
pub fn load_str_with(
    text: &str,
    path: &str,
    layer: &str,
    examples: Examples,
) -> Result<Policy, PolicyError> {
    let src = NamedSource::new(path, Arc::<str>::from(text));
    let mut errors = Vec::new();
    let raw = read_raw(text, &src, &mut errors);
    let mut rules = Vec::new();
    let mut seen: HashMap<String, ()> = HashMap::new();
    for raw_rule in raw.rules {
        let raw_rule = raw_rule.into_inner();
        if seen.insert(raw_rule.id.get_ref().clone(), ()).is_some() {
            errors.push(PolicyError::DuplicateRuleId {
                id: raw_rule.id.get_ref().clone(),
                src: src.clone(),
                at: span_of(&raw_rule.id),
            });
            continue;
        }
        match compile_rule(&raw_rule, layer, &src, examples == Examples::Check) {
            Ok(rule) => rules.push((rule, raw_rule)),
            Err(e) => errors.extend(e),
        }
    }
    let tests = raw
        .tests
        .into_iter()
        .map(|t| {
            let span = span_of(&t);
            let t = t.into_inner();
            PolicyTest {
                command: t.command,
                expect: t.expect,
                why: t.why,
                span: Some((span.offset(), span.len())),
            }
        })
        .collect();
    let mut policy = Policy::from_parts(
        rules.iter().map(|(r, _)| r.clone()).collect(),
        raw.default,
        raw.safe_env,
        tests,
        raw.sandbox,
    );
    policy.sources.push(path.to_owned());
    policy.trusted_projects = raw.trusted_projects;
    policy.extends = raw.extends;
    policy.interactive = raw.interactive;
    policy.redirect_default = raw.redirect_default;
    if examples == Examples::Check {
        check_examples(&policy, &rules, &src, &mut errors);
    }
    // Report in file order.
    errors.sort_by_key(PolicyError::offset);
    match errors.len() {
        0 => Ok(policy),
        1 => Err(errors.remove(0)),
        _ => Err(PolicyError::Many {
            path: path.to_owned(),
            errors,
        }),
    }
}

/// Rules carry their own examples: check them against this file alone.
fn check_examples(
    policy: &Policy,
    rules: &[(Rule, RawRule)],
    src: &NamedSource<Arc<str>>,
    errors: &mut Vec<PolicyError>,
) {
    for (rule, raw_rule) in rules {
        for ex in &raw_rule.match_examples {
            if !policy.rule_matches_example(&rule.id, ex.get_ref()) {
                errors.push(PolicyError::ExampleFails {
                    rule: rule.id.clone(),
                    example: ex.get_ref().clone(),
                    problem: "does not match the rule",
                    src: src.clone(),
                    at: span_of(ex),
                });
            }
        }
        for ex in &raw_rule.not_match {
            if policy.rule_matches_example(&rule.id, ex.get_ref()) {
                errors.push(PolicyError::ExampleFails {
                    rule: rule.id.clone(),
                    example: ex.get_ref().clone(),
                    problem: "matches the rule but is listed in `not_match`",
                    src: src.clone(),
                    at: span_of(ex),
                });
            }
        }
    }
}

fn compile_rule(
    raw: &RawRule,
    layer: &str,
    src: &NamedSource<Arc<str>>,
    strict: bool,
) -> Result<Rule, Vec<PolicyError>> {
    let id = raw.id.get_ref().clone();
    let mut errors = Vec::new();
    let invalid =
        |field: &'static str, message: String, help: &str, at: SourceSpan| PolicyError::Invalid {
            rule: id.clone(),
            field,
            message,
            help: help.to_owned(),
            src: src.clone(),
            at,
        };
    let program = match &raw.command {
        None => ProgramMatcher::Any,
        Some(c) => {
            let names = c.get_ref().clone().into_vec();
            if names.iter().any(|n| n.contains(['*', '?', '{'])) {
                match check_globs(strict, &names) {
                    Ok(()) => ProgramMatcher::Glob(Globs::new(names)),
                    Err(e) => {
                        errors.push(invalid(
                            "command",
                            e.to_string(),
                            "write a glob such as `git*`",
                            span_of(c),
                        ));
                        ProgramMatcher::Any
                    }
                }
            } else {
                ProgramMatcher::Exact(names)
            }
        }
    };
    let mut args = Vec::new();
    let mut args_text = Vec::new();
    if let Some(a) = &raw.args {
        let items = match a.get_ref().clone() {
            super::raw::OneOrMany::Many(v) => v,
            super::raw::OneOrMany::One(s) => match shell_words::split(&s) {
                Ok(v) => v,
                Err(e) => {
                    errors.push(invalid(
                        "args",
                        e.to_string(),
                        "quote arguments the way a shell would",
                        span_of(a),
                    ));
                    Vec::new()
                }
            },
        };
        for item in items {
            match if strict {
                glob(&item).map(|_| ())
            } else {
                Ok(())
            } {
                Ok(()) => {
                    args.push(item.clone());
                    args_text.push(item);
                }
                Err(e) => errors.push(invalid(
                    "args",
                    e.to_string(),
                    "each argument is a literal or a glob",
                    span_of(a),
                )),
            }
        }
    }
    let mut set_of = |field: &'static str, v: &Option<Spanned<Vec<String>>>| {
        v.as_ref()
            .and_then(|v| match check_globs(strict, v.get_ref()) {
                Ok(()) => Some(Globs::new(v.get_ref().clone())),
                Err(e) => {
                    errors.push(invalid(
                        field,
                        e.to_string(),
                        "write globs such as `/etc/*`; escape `*` as `[*]`",
                        span_of(v),
                    ));
                    None
                }
            })
    };
    let args_any = set_of("args_any", &raw.args_any);
    let forbid_args = set_of("forbid_args", &raw.forbid_args);
    let redirect = set_of("redirect", &raw.redirect);
    let pattern = raw.pattern.as_ref().and_then(|p| {
        match check_globs(strict, &p.get_ref().clone().into_vec()) {
            Ok(()) => Some(Globs::new(p.get_ref().clone().into_vec())),
            Err(e) => {
                errors.push(invalid(
                    "pattern",
                    e.to_string(),
                    "write a glob over the whole command, such as `git push *`",
                    span_of(p),
                ));
                None
            }
        }
    });
    let regex = raw.regex.as_ref().and_then(|r| {
        match if strict {
            regex_syntax::ParserBuilder::new()
                .build()
                .parse(r.get_ref())
                .map(|_| ())
                .map_err(|e| e.to_string())
        } else {
            Ok(())
        } {
            Ok(_) => Some(LazyRegex::new(r.get_ref().clone())),
            Err(e) => {
                errors.push(invalid(
                    "regex",
                    e.to_string(),
                    "the `regex` crate's syntax; no look-around or backreferences",
                    span_of(r),
                ));
                None
            }
        }
    });
    let never = |why: String| PolicyError::NeverMatches {
        rule: id.clone(),
        why,
        src: src.clone(),
        at: span_of(&raw.id),
    };
    if let Some(both) = raw
        .require_flags
        .iter()
        .find(|f| raw.forbid_flags.contains(f))
    {
        errors.push(never(format!("`{both}` is both required and forbidden")));
    }
    if raw
        .command
        .as_ref()
        .is_some_and(|c| matches!(c.get_ref(), super::raw::OneOrMany::Many(v) if v.is_empty()))
    {
        errors.push(never("`command` is an empty list".into()));
    }
    for (field, v) in [("args_any", &raw.args_any), ("redirect", &raw.redirect)] {
        if v.as_ref().is_some_and(|v| v.get_ref().is_empty()) {
            errors.push(never(format!("`{field}` is an empty list")));
        }
    }
    if raw.redirect.is_some()
        && (!raw.input_from.is_empty()
            || raw.pattern.is_some()
            || raw.regex.is_some()
            || raw.args.is_some())
    {
        errors.push(never("a redirect rule is matched per redirection: `args`, `pattern`, `regex` and `input_from` do not apply to it".into()));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Rule {
        id,
        decision: *raw.decision.get_ref(),
        reason: raw.reason.clone().unwrap_or_default(),
        layer: layer.to_owned(),
        program,
        args: args.into_iter().map(|a| Globs::new(vec![a])).collect(),
        args_text,
        args_any,
        forbid_args,
        glob_probes: raw.glob_probes.clone(),
        require_flags: raw.require_flags.clone(),
        forbid_flags: raw.forbid_flags.clone(),
        abbrev: raw.abbrev,
        double_dash: raw.double_dash,
        pattern,
        regex,
        redirect,
        redirect_kind: raw.redirect_kind,
        input_from: raw.input_from.clone(),
    })
}

/// Reads and compiles a policy file from disk.
///
/// # Errors
/// [`PolicyError::Io`] when it cannot be read, else as [`load_str`].
pub fn load_file(path: &std::path::Path, layer: &str) -> Result<Policy, PolicyError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let io = |e: std::io::Error| PolicyError::Io {
        path: path.display().to_string(),
        message: if e.raw_os_error() == Some(libc::ELOOP) {
            "a project policy file must not be a symlink".to_owned()
        } else {
            e.to_string()
        },
    };
    // A project file sits in a directory commands may write: never follow a link there.
    let nofollow = if layer == "project" {
        libc::O_NOFOLLOW
    } else {
        0
    };
    let mut text = String::new();
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nofollow)
        .open(path)
        .and_then(|mut f| f.read_to_string(&mut text))
        .map_err(io)?;
    load_str(&text, &path.display().to_string(), layer)
}

impl Decision {
    /// The decision's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        }
    }
}

/// Parses every glob (the cheap step); compiling them waits for first use.
/// Not `strict`: the embedded default, whose patterns the test suite checks.
fn check_globs(strict: bool, patterns: &[String]) -> Result<(), globset::Error> {
    if !strict {
        return Ok(());
    }
    patterns.iter().try_for_each(|p| glob(p).map(|_| ()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_miss() {
        assert_eq!(strsim_distance("decison", "decision"), 1);
        assert!(did_you_mean("unknown field `decison`, expected one of …").contains("decision"));
    }
}
