//! Strip: simple commands → [`Invocation`]s, the programs that will really run.
//!
//! Per simple command, to a fixed point: safe `NAME=value` prefixes and safe
//! wrappers (`timeout`, `nice`, `nohup`, `stdbuf`, `ionice`, `time`, `command`,
//! `env` with safe assignments) are removed when every flag value is static and
//! in its allowed character class. Executing wrappers (`sudo`, `xargs`,
//! `find -exec`, `env -S`, `watch`, `eval`, shells with `-c`) stay, and what
//! they run becomes an invocation of its own; static shell code is parsed and
//! lowered recursively (with the parser's depth limit).
//!
//! Trusts the IR; adds [`Issue`]s for code it cannot see (`bash -c "$x"`).

mod wrappers;

use crate::parse::{self, Assignment, Context, Issue, Redirect, RedirectKind, Script, Span, Word};
pub use wrappers::SHELLS;
use wrappers::{Inner, executing_wrapper, is_safe_env, safe_wrapper};

/// Directories whose programs are known by their basename (`/usr/bin/git` is `git`).
pub const SYSTEM_BIN_DIRS: &[&str] = &[
    "/bin",
    "/usr/bin",
    "/sbin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
];

/// How deep wrappers may nest inside one simple command.
const MAX_WRAPPERS: usize = 16;

/// One program that will run, after safe wrappers are removed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Invocation {
    /// The simple command it comes from (an index into [`Plan::units`]).
    pub origin: usize,
    /// The program and its arguments, after stripping.
    pub argv: Vec<Word>,
    /// The program's name when static (basename for system binary directories).
    pub program: Option<String>,
    /// Assignments that were not stripped (they may change what runs).
    pub assignments: Vec<Assignment>,
    /// The redirections of the simple command (on the outermost invocation only).
    pub redirects: Vec<Redirect>,
    /// What was stripped, in order (`timeout 5`, `LANG=C`).
    pub stripped: Vec<String>,
    /// The executing wrapper that runs this program, if any (`xargs`, `find -exec`, `bash -c`).
    pub via: Option<String>,
    /// How its simple command is reached.
    pub context: Context,
}

/// Where a simple command sits relative to the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Unit {
    /// The simple command whose words (or code string) contain this one.
    pub parent: Option<usize>,
    /// Pipeline id and position.
    pub pipeline: Option<(u32, u32)>,
    /// True when it runs inside a command or process substitution of its parent.
    pub substitution: bool,
}

/// Code found inside a command and parsed on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NestedCode {
    /// The code text.
    pub text: String,
    /// Its IR.
    pub script: Script,
}

/// The result of stripping a whole script.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    /// Every invocation.
    pub invocations: Vec<Invocation>,
    /// Every simple command, nested code included.
    pub units: Vec<Unit>,
    /// What could not be modelled.
    pub issues: Vec<Issue>,
    /// Code strings that were parsed (`bash -c '…'`, `eval`, heredocs fed to a shell).
    pub nested: Vec<NestedCode>,
    /// Functions defined anywhere in the command.
    pub functions: Vec<String>,
}

/// Options for stripping.
#[derive(Debug, Clone, Default)]
pub struct StripOptions {
    /// Environment names treated as safe in addition to the built-in list.
    pub safe_env: Vec<String>,
}

/// Strips every simple command of a script.
pub fn strip(script: &Script, opts: &StripOptions) -> Plan {
    let mut s = Stripper {
        opts,
        plan: Plan::default(),
        pipeline_base: 0,
        outputs: Vec::new(),
        current_pipe: None,
    };
    s.script(script, None, 0);
    s.plan
}

/// The name a program word is known by, when it is static.
pub fn program_name(word: &Word) -> Option<String> {
    let value = word.value()?;
    if value.is_empty() {
        return None;
    }
    if let Some((dir, base)) = value.rsplit_once('/') {
        let dir = dir.trim_end_matches('/');
        let clean = !base.is_empty() && !dir.split('/').any(|c| c == "." || c == "..");
        if clean && SYSTEM_BIN_DIRS.contains(&dir) {
            return Some(base.to_owned());
        }
    }
    Some(value)
}

struct Stripper<'o> {
    opts: &'o StripOptions,
    plan: Plan,
    pipeline_base: u32,
    /// Static output of pipeline members (`echo '…'`, `cat <<'EOF'`), by (pipeline, position),
    /// for the script being stripped.
    outputs: Vec<((u32, u32), String)>,
    /// The pipeline slot of the simple command being stripped.
    current_pipe: Option<(u32, u32)>,
}

impl Stripper<'_> {
    fn script(&mut self, script: &Script, outer: Option<usize>, depth: u32) {
        let base = self.plan.units.len();
        self.plan
            .functions
            .extend(script.functions.iter().map(|f| f.name.clone()));
        let pipe_base = self.pipeline_base;
        let max_pipe = script
            .commands
            .iter()
            .filter_map(|c| c.pipeline.map(|p| p.0))
            .max()
            .unwrap_or(0);
        self.pipeline_base += max_pipe + 1;
        for cmd in &script.commands {
            self.plan.units.push(Unit {
                parent: cmd.parent.map(|p| base + p).or(outer),
                pipeline: cmd.pipeline.map(|(id, pos)| (id + pipe_base, pos)),
                substitution: cmd.parent.is_some() && cmd.context.contains(Context::SUBSTITUTION),
            });
        }
        let saved = std::mem::replace(&mut self.outputs, static_outputs(script));
        for (i, cmd) in script.commands.iter().enumerate() {
            let origin = base + i;
            self.current_pipe = cmd.pipeline;
            let mut stripped = Vec::new();
            let mut assignments = Vec::new();
            for a in &cmd.assignments {
                let safe = is_safe_env(&a.name, &self.opts.safe_env)
                    && !cmd.argv.is_empty()
                    && a.value.as_ref().is_none_or(Word::is_static);
                if safe {
                    stripped.push(format!(
                        "{}={}",
                        a.name,
                        a.value.as_ref().map(Word::pattern).unwrap_or_default()
                    ));
                } else {
                    assignments.push(a.clone());
                }
            }
            let first = Invocation {
                origin,
                argv: cmd.argv.clone(),
                program: None,
                assignments,
                redirects: cmd.redirects.clone(),
                stripped,
                via: None,
                context: cmd.context.with(cmd_ctx(depth)),
            };
            self.invocation(first, &cmd.redirects, depth, 0);
        }
        self.outputs = saved;
    }

    /// Strips safe wrappers from one invocation, records it, and follows executing wrappers.
    fn invocation(
        &mut self,
        mut inv: Invocation,
        redirects: &[Redirect],
        depth: u32,
        level: usize,
    ) {
        if level > MAX_WRAPPERS {
            self.plan.issues.push(Issue::Unmodelled {
                what: format!("more than {MAX_WRAPPERS} nested wrappers"),
                span: inv.argv.first().map(|w| w.span).unwrap_or_default(),
            });
            return;
        }
        let mut unvouched: Option<(String, Vec<Word>)> = None;
        while let Some(name) = inv.argv.first().and_then(program_name) {
            if name == "env" {
                if let Some(n) = self.safe_env_prefix(&inv.argv) {
                    let removed: Vec<String> = inv.argv.drain(..n).map(|w| w.pattern()).collect();
                    inv.stripped.push(removed.join(" "));
                    continue;
                }
                break;
            }
            match safe_wrapper(&name, &inv.argv) {
                Some(end) if end.clean => {
                    let removed: Vec<String> =
                        inv.argv.drain(..end.start).map(|w| w.pattern()).collect();
                    inv.stripped.push(removed.join(" "));
                }
                Some(end) => {
                    // A wrapper whose flags we could not vouch for stays; what it runs is judged too.
                    let inner = inv
                        .argv
                        .get(end.start..)
                        .map(<[Word]>::to_vec)
                        .unwrap_or_default();
                    unvouched = Some((name, inner));
                    break;
                }
                None => break,
            }
        }
        inv.program = inv.argv.first().and_then(program_name);
        let name = inv.program.clone();
        let inners = name
            .as_deref()
            .and_then(|n| executing_wrapper(n, &inv.argv));
        let snapshot = inv.clone();
        self.plan.invocations.push(inv);
        if let Some((wrapper, inner)) = unvouched {
            self.follow(
                &snapshot,
                &wrapper,
                vec![Inner::Argv(inner)],
                redirects,
                depth,
                level,
            );
        }
        if let (Some(name), Some(inners)) = (name, inners) {
            self.follow(&snapshot, &name, inners, redirects, depth, level);
        }
    }

    /// `env` followed only by safe assignments: how many words to strip.
    fn safe_env_prefix(&self, argv: &[Word]) -> Option<usize> {
        let mut i = 1;
        while let Some(w) = argv.get(i) {
            let v = w.value()?;
            if v == "--" {
                i += 1;
                break;
            }
            match v.split_once('=') {
                Some((name, _))
                    if wrappers::is_assignment(&v) && is_safe_env(name, &self.opts.safe_env) =>
                {
                    i += 1
                }
                _ if v.starts_with('-') => return None,
                _ => break,
            }
        }
        (i > 1 && i < argv.len()).then_some(i)
    }

    fn follow(
        &mut self,
        outer: &Invocation,
        name: &str,
        inners: Vec<Inner>,
        redirects: &[Redirect],
        depth: u32,
        level: usize,
    ) {
        let at = outer.argv.first().map(|w| w.span).unwrap_or_default();
        for inner in inners {
            match inner {
                Inner::Argv(argv) => {
                    let via = match name {
                        "find" => "find -exec".to_owned(),
                        n => n.to_owned(),
                    };
                    let inv = Invocation {
                        origin: outer.origin,
                        argv,
                        program: None,
                        assignments: Vec::new(),
                        redirects: Vec::new(),
                        stripped: Vec::new(),
                        via: Some(via),
                        context: outer.context,
                    };
                    self.invocation(inv, redirects, depth, level + 1);
                }
                Inner::Code(code) => self.code(code, outer.origin, depth),
                Inner::DynamicCode(what) => self.plan.issues.push(Issue::Unmodelled {
                    what: format!(
                        "`{name}` runs code that is not known before it runs ({})",
                        short(&what)
                    ),
                    span: at,
                }),
                Inner::Stdin => self.stdin_code(name, outer.origin, redirects, depth, at),
            }
        }
    }

    fn code(&mut self, code: String, origin: usize, depth: u32) {
        let script = parse::parse_nested(&code, depth + 1, Context::NESTED_SHELL);
        self.plan.issues.extend(script.issues.iter().cloned());
        self.script(&script, Some(origin), depth + 1);
        self.plan.nested.push(NestedCode { text: code, script });
    }

    /// A shell reading its code from standard input: a heredoc or here-string it is given.
    fn stdin_code(
        &mut self,
        name: &str,
        origin: usize,
        redirects: &[Redirect],
        depth: u32,
        at: Span,
    ) {
        for r in redirects {
            match (r.kind, &r.heredoc, &r.target) {
                (RedirectKind::Heredoc, Some(h), _) if !h.dynamic => {
                    self.code(h.body.clone(), origin, depth)
                }
                (RedirectKind::HereString, _, Some(w)) if w.is_static() => {
                    self.code(w.value().unwrap_or_default(), origin, depth);
                }
                (
                    RedirectKind::Heredoc
                    | RedirectKind::HereString
                    | RedirectKind::Read
                    | RedirectKind::ReadWrite,
                    _,
                    _,
                ) => {
                    self.plan.issues.push(Issue::Unmodelled {
                        what: format!("`{name}` reads code from standard input that is not known before it runs"),
                        span: at,
                    });
                }
                _ => {}
            }
        }
        let fed = self.current_pipe.and_then(|(id, pos)| {
            let prev = pos.checked_sub(1)?;
            self.outputs
                .iter()
                .find(|(slot, _)| *slot == (id, prev))
                .map(|(_, code)| code.clone())
        });
        if let Some(code) = fed {
            self.code(code, origin, depth);
        }
    }
}

/// What pipeline members print, when it is known before they run:
/// `echo` with static words, `cat` with only a static heredoc or here-string.
fn static_outputs(script: &Script) -> Vec<((u32, u32), String)> {
    let mut out = Vec::new();
    for cmd in &script.commands {
        let Some(slot) = cmd.pipeline else { continue };
        let values: Option<Vec<String>> = cmd.argv.iter().map(Word::value).collect();
        let Some(values) = values else { continue };
        let text = match values.first().map(String::as_str) {
            Some("echo") if values.get(1).is_none_or(|a| !a.starts_with('-')) => {
                Some(values.get(1..).unwrap_or_default().join(" "))
            }
            Some("cat") if values.len() == 1 => match cmd.redirects.as_slice() {
                [r] => match (&r.heredoc, &r.target) {
                    (Some(h), _) if !h.dynamic => Some(h.body.clone()),
                    (None, Some(w)) if r.kind == RedirectKind::HereString => w.value(),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        if let Some(t) = text {
            out.push((slot, t));
        }
    }
    out
}

fn cmd_ctx(depth: u32) -> Context {
    if depth > 0 {
        Context::NESTED_SHELL
    } else {
        Context::default()
    }
}

fn short(s: &str) -> String {
    let mut out: String = s.chars().take(60).collect();
    if s.chars().count() > 60 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests;

/// True when `name` is on the built-in list of safe environment names.
pub fn is_safe_env_name(name: &str) -> bool {
    wrappers::is_safe_env(name, &[])
}
