//! The grammars of wrapper programs: where each one's inner command starts.
//!
//! A *safe* wrapper only changes how its program runs (`timeout`, `nice` …)
//! and is removed when every flag value matches its allowed character class.
//! An *executing* wrapper runs a program or code of its own choosing
//! (`sudo`, `xargs`, `find -exec`, `bash -c` …): it stays, and its inner
//! program is matched as a command of its own.

use crate::parse::{Part, Word};

/// What a wrapper runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Inner {
    /// An argument vector, starting at the program.
    Argv(Vec<Word>),
    /// Shell code given as a string.
    Code(String),
    /// Shell code that is not known until run time.
    DynamicCode(String),
    /// Shell code read from standard input (no `-c` and no script file).
    Stdin,
}

/// Shells whose `-c` argument is shell code.
pub const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "busybox",
];

/// Environment names that never change which program runs or how it loads code.
pub(crate) const SAFE_ENV: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "TZ",
    "NODE_ENV",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "CI",
    "TERM",
    "COLORTERM",
    "COLUMNS",
    "LINES",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONIOENCODING",
    "CARGO_TERM_COLOR",
    "CARGO_INCREMENTAL",
    "CARGO_TERM_VERBOSE",
    "CARGO_TERM_QUIET",
    "RUST_TEST_THREADS",
    "RUST_MIN_STACK",
    "DEBUG",
    "VERBOSE",
    "TZDIR",
    "GIT_TERMINAL_PROMPT",
    "TEST_LOG",
];

/// True when `name` is on the built-in safe list (`LC_*` included).
pub(crate) fn is_safe_env(name: &str, extra: &[String]) -> bool {
    SAFE_ENV.contains(&name)
        || (name.starts_with("LC_") && name.len() > 3)
        || extra.iter().any(|e| e == name)
}

/// A flag value allowed in a stripped wrapper: digits, letters, `.`, `+`, `-`.
fn plain_value(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= 32
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-'))
}

fn duration(v: &str) -> bool {
    let digits = v.trim_end_matches(['s', 'm', 'h', 'd']);
    !digits.is_empty() && v.len() <= 16 && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
}

fn values(words: &[Word]) -> Vec<Option<String>> {
    words.iter().map(Word::value).collect()
}

/// Where a safe wrapper's program starts, with `clean` false when a flag value
/// is not static or not in the allowed class (then the wrapper is not stripped).
pub(crate) struct WrapperEnd {
    /// Index of the inner program in the wrapper's argv.
    pub(crate) start: usize,
    /// Every flag and value was checked.
    pub(crate) clean: bool,
}

/// The grammar of the safe wrappers; `None` when `name` is not one or has no inner program.
pub(crate) fn safe_wrapper(name: &str, words: &[Word]) -> Option<WrapperEnd> {
    // Structure from the words' source text; cleanliness also needs every word static.
    let v: Vec<Option<String>> = words.iter().map(|w| Some(w.pattern())).collect();
    let arg = |i: usize| v.get(i).cloned().flatten();
    let mut i = 1;
    let mut clean = true;
    match name {
        "timeout" => {
            while let Some(a) = arg(i) {
                if a == "--" {
                    i += 1;
                    break;
                }
                if !a.starts_with('-') || a == "-" {
                    break;
                }
                let (flag, value) = split_flag(&a);
                match flag {
                    "--preserve-status" | "--foreground" | "-v" | "--verbose" => {}
                    "-k" | "--kill-after" | "-s" | "--signal" => {
                        let val = match value {
                            Some(val) => Some(val.to_owned()),
                            None => {
                                i += 1;
                                arg(i)
                            }
                        };
                        clean &= val.as_deref().is_some_and(|x| {
                            if flag.contains('k') {
                                duration(x)
                            } else {
                                plain_value(x)
                            }
                        });
                    }
                    _ => clean = false,
                }
                i += 1;
            }
            v.get(i)?;
            clean &= arg(i).is_some_and(|d| duration(&d));
            i += 1;
        }
        "nice" => {
            while let Some(a) = arg(i) {
                if a == "--" {
                    i += 1;
                    break;
                }
                if !a.starts_with('-') {
                    break;
                }
                let (flag, value) = split_flag(&a);
                match flag {
                    "-n" | "--adjustment" => {
                        let val = match value {
                            Some(val) => Some(val.to_owned()),
                            None => {
                                i += 1;
                                arg(i)
                            }
                        };
                        clean &= val.is_some_and(|x| {
                            x.trim_start_matches(['-', '+'])
                                .chars()
                                .all(|c| c.is_ascii_digit())
                        });
                    }
                    f if f.len() > 1
                        && f.get(1..)
                            .is_some_and(|d| d.chars().all(|c| c.is_ascii_digit())) => {}
                    _ => clean = false,
                }
                i += 1;
            }
        }
        "nohup" | "time" | "command" | "builtin" => {
            while let Some(a) = arg(i) {
                match (name, a.as_str()) {
                    (_, "--") => {
                        i += 1;
                        break;
                    }
                    ("time", "-p") | ("command", "-p") => i += 1,
                    // `command -v` and `-V` look a program up; they run nothing.
                    ("command", "-v" | "-V") => return None,
                    (_, f) if f.starts_with('-') => {
                        clean = false;
                        i += 1;
                    }
                    _ => break,
                }
            }
        }
        "stdbuf" => {
            while let Some(a) = arg(i) {
                if a == "--" {
                    i += 1;
                    break;
                }
                if !a.starts_with('-') {
                    break;
                }
                let (flag, value) = split_flag(&a);
                let attached = flag.len() > 2 && !flag.starts_with("--");
                match flag.get(..2) {
                    Some("-i" | "-o" | "-e") if attached => {
                        clean &= flag.get(2..).is_some_and(plain_value);
                    }
                    Some("-i" | "-o" | "-e") => {
                        i += 1;
                        clean &= arg(i).is_some_and(|x| plain_value(&x));
                    }
                    Some("--") if matches!(flag, "--input" | "--output" | "--error") => {
                        clean &= value.is_some_and(plain_value);
                    }
                    _ => clean = false,
                }
                i += 1;
            }
        }
        "ionice" => {
            while let Some(a) = arg(i) {
                if a == "--" {
                    i += 1;
                    break;
                }
                if !a.starts_with('-') {
                    break;
                }
                let (flag, value) = split_flag(&a);
                match flag {
                    "-t" | "--ignore" => {}
                    "-c" | "-n" | "--class" | "--classdata" => {
                        let val = match value {
                            Some(val) => Some(val.to_owned()),
                            None => {
                                i += 1;
                                arg(i)
                            }
                        };
                        clean &= val.is_some_and(|x| plain_value(&x));
                    }
                    f if (f.starts_with("-c") || f.starts_with("-n")) && f.len() > 2 => {
                        clean &= f.get(2..).is_some_and(plain_value);
                    }
                    // `-p`/`-P`/`-u` act on existing processes and run nothing.
                    _ => return None,
                }
                i += 1;
            }
        }
        _ => return None,
    }
    clean &= words
        .get(..i)
        .is_some_and(|w| w.iter().all(Word::is_static));
    (i < words.len()).then_some(WrapperEnd { start: i, clean })
}

/// `--flag=value` → (`--flag`, `value`); other words unchanged.
pub(crate) fn split_flag(a: &str) -> (&str, Option<&str>) {
    match a.split_once('=') {
        Some((f, v)) if f.starts_with("--") => (f, Some(v)),
        _ => (a, None),
    }
}

/// What an executing wrapper runs, when `name` is one.
pub(crate) fn executing_wrapper(name: &str, words: &[Word]) -> Option<Vec<Inner>> {
    let v = values(words);
    let rest = |i: usize| -> Vec<Word> { words.get(i..).map(<[Word]>::to_vec).unwrap_or_default() };
    match name {
        "sudo" | "doas" | "run0" | "pkexec" => {
            let with_value: &[&str] = match name {
                "sudo" => &[
                    "-u", "-g", "-h", "-p", "-C", "-D", "-R", "-T", "-U", "-r", "-t", "--user",
                    "--group", "--host", "--prompt", "--chdir", "--chroot",
                ],
                "doas" => &["-u", "-C"],
                _ => &["--user", "-u"],
            };
            let mut i = skip_options(&v, 1, with_value);
            while v
                .get(i)
                .cloned()
                .flatten()
                .is_some_and(|a| is_assignment(&a))
            {
                i += 1;
            }
            (i < words.len()).then(|| vec![Inner::Argv(rest(i))])
        }
        "su" | "runuser" => {
            let i = v
                .iter()
                .position(|a| matches!(a.as_deref(), Some("-c" | "--command")))?;
            Some(vec![code_at(words, i + 1)])
        }
        "xargs" => {
            let with_value = [
                "-a",
                "-E",
                "-I",
                "-L",
                "-n",
                "-P",
                "-s",
                "-d",
                "--arg-file",
                "--delimiter",
                "--eof",
                "--replace",
                "--max-lines",
                "--max-args",
                "--max-procs",
                "--max-chars",
                "--process-slot-var",
            ];
            let i = skip_options(&v, 1, &with_value);
            if i < words.len() {
                // xargs adds arguments read from stdin: model them as run-time words.
                let replace = v.iter().take(i).flatten().find_map(|a| match a.as_str() {
                    "-i" | "--replace" => Some("{}".to_owned()),
                    a if a.starts_with("--replace=") => {
                        a.split_once('=').map(|(_, r)| r.to_owned())
                    }
                    a if a.starts_with("-I") && a.len() > 2 => a.get(2..).map(str::to_owned),
                    a if a.starts_with("-i") && a.len() > 2 => a.get(2..).map(str::to_owned),
                    _ => None,
                });
                let replace = replace.or_else(|| {
                    v.iter()
                        .take(i)
                        .position(|a| a.as_deref() == Some("-I"))
                        .and_then(|p| v.get(p + 1).cloned().flatten())
                });
                let mut argv = rest(i);
                match replace {
                    Some(r) => {
                        for w in &mut argv {
                            if w.value().is_some_and(|x| x.contains(r.as_str())) {
                                *w = runtime_word(w);
                            }
                        }
                    }
                    None => {
                        if let Some(last) = argv.last() {
                            let extra = Word {
                                parts: vec![Part::Param("{stdin arguments}".into())],
                                span: last.span,
                                from_brace: false,
                            };
                            argv.push(extra);
                        }
                    }
                }
                Some(vec![Inner::Argv(argv)])
            } else {
                Some(vec![Inner::Argv(vec![Word::literal(
                    "echo",
                    words.first().map(|w| w.span).unwrap_or_default(),
                )])])
            }
        }
        "find" | "fd" | "fdfind" => {
            let starts: &[&str] = if name == "find" {
                &["-exec", "-execdir", "-ok", "-okdir"]
            } else {
                &["-x", "--exec", "-X", "--exec-batch"]
            };
            let mut out = Vec::new();
            let mut i = 0;
            while i < words.len() {
                if v.get(i)
                    .cloned()
                    .flatten()
                    .is_some_and(|a| starts.contains(&a.as_str()))
                {
                    let begin = i + 1;
                    let mut end = begin;
                    while end < words.len()
                        && !matches!(v.get(end).cloned().flatten().as_deref(), Some(";" | "+"))
                    {
                        end += 1;
                    }
                    if end > begin {
                        out.push(Inner::Argv(
                            words
                                .get(begin..end)
                                .map(<[Word]>::to_vec)
                                .unwrap_or_default(),
                        ));
                    }
                    i = end;
                }
                i += 1;
            }
            (!out.is_empty()).then_some(out)
        }
        "env" => {
            let mut i = 1;
            let mut out = Vec::new();
            while let Some(a) = v.get(i) {
                let Some(a) = a.as_deref() else {
                    return Some(vec![Inner::DynamicCode("env argument".into())]);
                };
                if a == "--" {
                    i += 1;
                    break;
                }
                if a == "-S"
                    || a == "--split-string"
                    || a.starts_with("-S")
                    || a.starts_with("--split-string=")
                {
                    let code = if a == "-S" || a == "--split-string" {
                        i += 1;
                        v.get(i).cloned().flatten()
                    } else {
                        a.split_once('=')
                            .map(|(_, c)| c.to_owned())
                            .or_else(|| a.get(2..).map(str::to_owned))
                    };
                    let tail: Vec<String> = v
                        .iter()
                        .skip(i + 1)
                        .map(|x| x.clone().unwrap_or_default())
                        .collect();
                    return Some(vec![match code {
                        Some(c) => Inner::Code(
                            std::iter::once(c).chain(tail).collect::<Vec<_>>().join(" "),
                        ),
                        None => Inner::DynamicCode("env -S".into()),
                    }]);
                }
                if matches!(a, "-u" | "--unset" | "-C" | "--chdir") {
                    i += 2;
                    continue;
                }
                if a.starts_with('-') || is_assignment(a) {
                    i += 1;
                    continue;
                }
                break;
            }
            if i < words.len() {
                out.push(Inner::Argv(rest(i)));
            }
            (!out.is_empty()).then_some(out)
        }
        "watch" => {
            let i = skip_options(
                &v,
                1,
                &["-n", "--interval", "-d", "--differences", "-q", "--equexit"],
            );
            if i >= words.len() {
                return None;
            }
            if v.iter()
                .take(i)
                .any(|a| matches!(a.as_deref(), Some("-x" | "--exec")))
            {
                return Some(vec![Inner::Argv(rest(i))]);
            }
            Some(vec![joined_code(words.get(i..).unwrap_or_default())])
        }
        "eval" => Some(vec![joined_code(words.get(1..).unwrap_or_default())]),
        // `trap 'code' SIGNAL…`: the code runs later in this shell.
        "trap" => {
            let i = skip_options(&v, 1, &[]);
            let code = words.get(i)?;
            (words.len() > i + 1)
                .then(|| vec![code_at(words, i)])
                .filter(|_| code.value().is_none_or(|c| c != "-"))
        }
        "exec" => {
            let i = skip_options(&v, 1, &["-a"]);
            (i < words.len()).then(|| vec![Inner::Argv(rest(i))])
        }
        // `source /dev/stdin <<< '…'` runs the here-string.
        "source" | "." => {
            let i = skip_options(&v, 1, &[]);
            v.get(i)
                .cloned()
                .flatten()
                .filter(|a| is_stdin_path(a))
                .map(|_| vec![Inner::Stdin])
        }
        "coproc" => (words.len() > 1).then(|| vec![Inner::Argv(rest(1))]),
        "setsid" | "unbuffer" | "torsocks" | "proxychains" | "proxychains4" | "chronic"
        | "ifne" | "caffeinate" => {
            let i = skip_options(&v, 1, &[]);
            (i < words.len()).then(|| vec![Inner::Argv(rest(i))])
        }
        n if SHELLS.contains(&n) => shell_code(&v, words),
        _ => None,
    }
}

/// `bash [opts] -c CODE …`, `bash script`, or `bash` reading stdin.
fn shell_code(v: &[Option<String>], words: &[Word]) -> Option<Vec<Inner>> {
    let mut i = 1;
    let mut has_c = false;
    while let Some(a) = v.get(i) {
        let Some(a) = a.as_deref() else { break };
        if a == "--" || a == "-" {
            i += 1;
            break;
        }
        if matches!(a, "-o" | "-O" | "+o" | "+O" | "--rcfile" | "--init-file") {
            i += 2;
            continue;
        }
        if let Some(flags) = a.strip_prefix('-').filter(|f| !f.starts_with('-')) {
            has_c |= flags.contains('c');
        } else if !a.starts_with("--") && !a.starts_with('+') {
            break;
        }
        i += 1;
    }
    if has_c {
        return Some(vec![code_at(words, i)]);
    }
    if let Some(script) = v.get(i) {
        if script.as_deref().is_some_and(is_stdin_path) {
            return Some(vec![Inner::Stdin]);
        }
        // A script file: its contents are not known here.
        return Some(vec![Inner::DynamicCode("a script file".into())]);
    }
    Some(vec![Inner::Stdin])
}

fn code_at(words: &[Word], i: usize) -> Inner {
    match words.get(i) {
        Some(w) => match w.value() {
            Some(code) => Inner::Code(code),
            None => Inner::DynamicCode(w.pattern()),
        },
        None => Inner::DynamicCode(String::new()),
    }
}

fn joined_code(words: &[Word]) -> Inner {
    let mut parts = Vec::new();
    for w in words {
        match w.value() {
            Some(s) => parts.push(s),
            None => {
                return Inner::DynamicCode(
                    words
                        .iter()
                        .map(Word::pattern)
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
        }
    }
    Inner::Code(parts.join(" "))
}

/// Skips leading options; `with_value` lists the flags that take the next word.
fn skip_options(v: &[Option<String>], mut i: usize, with_value: &[&str]) -> usize {
    while let Some(Some(a)) = v.get(i) {
        if a == "--" {
            return i + 1;
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        if with_value.contains(&a.as_str()) {
            i += 1;
        }
        i += 1;
    }
    i
}

/// `NAME=value` with a valid shell name.
pub(crate) fn is_assignment(a: &str) -> bool {
    match a.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// A word whose value a wrapper fills in at run time (`{}` of `find -exec`, xargs input).
fn runtime_word(w: &Word) -> Word {
    Word {
        parts: vec![Part::Param(w.pattern())],
        span: w.span,
        from_brace: w.from_brace,
    }
}

/// Paths that name standard input.
fn is_stdin_path(a: &str) -> bool {
    matches!(a, "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" | "-")
}
