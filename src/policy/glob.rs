//! Policy globs (`args`, `args_any`, `forbid_args`, `pattern`, `redirect`,
//! glob `command`s): globset's syntax, with `*` crossing `/` (shell words are
//! not paths) and `\` escaping.
//!
//! Compiling a globset builds regexes and automata: a hook process that
//! decides one command would spend most of its time there. Most policy
//! globs use only literals, `?`, `*` and one level of `{a,b}`; those are
//! matched directly, with no compile step, with globset's exact semantics
//! (bytes, not characters: `?` is one byte, as in globset's `(?-u)` regex).
//! The rest (classes, `**`, nested braces) go to a globset built on first use.

use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// More alternatives than this from one pattern's braces: leave it to globset.
const MAX_BRANCHES: usize = 64;

/// Builds a globset glob where `*` also crosses `/`.
pub(crate) fn glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
}

/// A set of patterns; `matches` is true when any matches. Nothing is parsed
/// until first use: a policy has many rules and one command touches few.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(from = "Vec<String>", into = "Vec<String>")]
pub struct Globs {
    patterns: Vec<String>,
    cell: OnceLock<Split>,
}

/// The patterns matched directly, and the rest.
#[derive(Debug, Clone, Default)]
struct Split {
    /// Indexes of patterns matched as written.
    direct: Vec<usize>,
    /// Expansions of patterns with braces, matched as written.
    expanded: Vec<String>,
    /// Patterns outside the simple subset, compiled on first use.
    complex: Vec<String>,
    set: OnceLock<Option<GlobSet>>,
}

impl From<Vec<String>> for Globs {
    fn from(patterns: Vec<String>) -> Globs {
        Globs::new(patterns)
    }
}

impl From<Globs> for Vec<String> {
    fn from(g: Globs) -> Vec<String> {
        g.patterns
    }
}

impl Globs {
    pub(crate) fn new(patterns: Vec<String>) -> Globs {
        Globs {
            patterns,
            cell: OnceLock::new(),
        }
    }

    /// The patterns as written.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Does any pattern match? `None` when a complex pattern cannot be
    /// compiled (loading rules that out for policy files).
    pub fn matches(&self, text: &str) -> Option<bool> {
        let split = self.split();
        let direct = split.direct.iter().filter_map(|&i| self.patterns.get(i));
        if direct
            .chain(&split.expanded)
            .any(|p| wildmatch(p.as_bytes(), text.as_bytes()))
        {
            return Some(true);
        }
        if split.complex.is_empty() {
            return Some(false);
        }
        split.compiled().map(|set| set.is_match(text))
    }

    /// Can every pattern be used? Compiles the complex ones.
    pub fn usable(&self) -> bool {
        let split = self.split();
        split.complex.is_empty() || split.compiled().is_some()
    }

    fn split(&self) -> &Split {
        self.cell.get_or_init(|| {
            let mut split = Split::default();
            for (i, p) in self.patterns.iter().enumerate() {
                match kind(p) {
                    Kind::Direct => split.direct.push(i),
                    Kind::Braces(expansions) => split.expanded.extend(expansions),
                    Kind::Complex => split.complex.push(p.clone()),
                }
            }
            split
        })
    }
}

impl Split {
    fn compiled(&self) -> Option<&GlobSet> {
        self.set
            .get_or_init(|| {
                let mut b = GlobSetBuilder::new();
                for p in &self.complex {
                    b.add(glob(p).ok()?);
                }
                b.build().ok()
            })
            .as_ref()
    }
}

/// How a pattern is matched.
enum Kind {
    /// Literals, `\x`, `?` and single `*`s: matched as written.
    Direct,
    /// One level of `{a,b}` around such: matched as its expansions.
    Braces(Vec<String>),
    /// Anything else: globset.
    Complex,
}

/// Sorts a pattern without allocating unless it has braces.
fn kind(pattern: &str) -> Kind {
    let b = pattern.as_bytes();
    let mut braces = false;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' if b.get(i + 1).is_none() => return Kind::Complex, // dangling escape
            b'\\' => i += 1,
            b'*' if b.get(i + 1) == Some(&b'*') => return Kind::Complex,
            b'[' | b']' => return Kind::Complex,
            b'{' | b'}' => braces = true,
            _ => {}
        }
        i += 1;
    }
    if !braces {
        return Kind::Direct;
    }
    expand(pattern).map_or(Kind::Complex, Kind::Braces)
}

/// The expansions of one level of braces (escapes kept), or `None` for
/// nesting, an unbalanced brace, an empty alternative or too many branches.
fn expand(pattern: &str) -> Option<Vec<String>> {
    let mut done: Vec<String> = vec![String::new()];
    let mut alternatives: Option<Vec<String>> = None;
    let mut chars = pattern.char_indices();
    while let Some((at, c)) = chars.next() {
        // The piece of the pattern this character (or escape) is, kept as written.
        let end = match c {
            '\\' => chars.next().map(|(i, e)| i + e.len_utf8())?,
            '{' if alternatives.is_some() => return None,
            '{' => {
                alternatives = Some(vec![String::new()]);
                continue;
            }
            '}' => {
                let alts = alternatives.take()?;
                // globset's reading of `{a,}` is its own: leave it to globset.
                if alts.iter().any(String::is_empty)
                    || done.len().saturating_mul(alts.len()) > MAX_BRANCHES
                {
                    return None;
                }
                done = done
                    .iter()
                    .flat_map(|d| {
                        alts.iter().map(move |a| {
                            let mut joined = String::with_capacity(d.len() + a.len());
                            joined.push_str(d);
                            joined.push_str(a);
                            joined
                        })
                    })
                    .collect();
                continue;
            }
            ',' if alternatives.is_some() => {
                alternatives.as_mut()?.push(String::new());
                continue;
            }
            c => at + c.len_utf8(),
        };
        let piece = pattern.get(at..end)?;
        match alternatives.as_mut() {
            Some(alts) => alts.last_mut()?.push_str(piece),
            None => done.iter_mut().for_each(|d| d.push_str(piece)),
        }
    }
    // An unclosed brace is globset's error, not ours to guess.
    alternatives.is_none().then_some(done)
}

/// Matches a brace-free pattern of literals, `\x`, `?` (one byte) and `*`
/// (any bytes) against `text`: one backtrack point (the last `*`), linear
/// in practice.
fn wildmatch(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        let here = text.get(t).copied();
        let step = match pattern.get(p).copied() {
            Some(b'*') => {
                star = Some((p + 1, t));
                p += 1;
                continue;
            }
            Some(b'?') => here.map(|_| 1),
            Some(b'\\') => pattern.get(p + 1).filter(|&&c| Some(c) == here).map(|_| 2),
            Some(c) => (Some(c) == here).then_some(1),
            None if here.is_none() => return true,
            None => None,
        };
        if let Some(n) = step {
            p += n;
            t += 1;
            continue;
        }
        // Mismatch: let the last `*` take one more byte.
        match star {
            Some((sp, st)) if st < text.len() => {
                star = Some((sp, st + 1));
                p = sp;
                t = st + 1;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globset_says(pattern: &str, text: &str) -> Option<bool> {
        Some(glob(pattern).ok()?.compile_matcher().is_match(text))
    }

    /// The patterns one pattern is matched as, or `None` for globset.
    fn simple(pattern: &str) -> Option<Vec<String>> {
        match kind(pattern) {
            Kind::Direct => Some(vec![pattern.to_owned()]),
            Kind::Braces(v) => Some(v),
            Kind::Complex => None,
        }
    }

    #[test]
    fn subset_and_fallback() {
        assert!(simple("~/.ssh*").is_some());
        assert_eq!(simple("{status,log}").map(|v| v.len()), Some(2));
        assert_eq!(simple("{a,b}-{c,d,e}").map(|v| v.len()), Some(6));
        assert_eq!(simple(r"\{a,b\}"), Some(vec![r"\{a,b\}".to_owned()]));
        assert!(simple("{a,}").is_none());
        assert!(simple("**/x").is_none());
        assert!(simple("[ab]").is_none());
        assert!(simple("{a,{b,c}}").is_none());
        assert!(simple("{a").is_none());
        assert!(simple("a}").is_none());
        assert!(simple("a\\").is_none());
        let g = Globs::new(vec![
            "*/.ssh/*".into(),
            "$\\{HOME\\}/.ssh*".into(),
            "x[*]".into(),
        ]);
        assert_eq!(g.matches("/home/u/.ssh/id_rsa"), Some(true));
        assert_eq!(g.matches("${HOME}/.ssh/config"), Some(true));
        assert_eq!(g.matches("x*"), Some(true));
        assert_eq!(g.matches("status"), Some(false));
        let broken = Globs::new(vec!["[".into()]);
        assert_eq!(broken.matches("x"), None);
        assert!(!broken.usable());
    }

    /// The direct matcher (alone and through `Globs`) agrees with globset on every pattern it accepts:
    /// random patterns and texts over an alphabet of the syntax's corners.
    #[test]
    fn agrees_with_globset() {
        const PAT: &[&str] = &[
            "a", "b", "/", ".", "*", "?", "{", "}", ",", "\\", "\\*", "é", "-", "ab", "\n",
        ];
        const TXT: &[&str] = &["a", "b", "/", ".", "*", "?", ",", "é", "-", "ab", "{", "\n"];
        let mut seed: u64 = 0x5eed_1234_abcd_0042;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(seed >> 33).unwrap_or(0) % n
        };
        let (mut compared, mut matched) = (0, 0);
        for _ in 0..40_000 {
            let plen = next(7);
            let pattern: String = (0..plen).map(|_| PAT[next(PAT.len())]).collect();
            let tlen = next(7);
            let text: String = (0..tlen).map(|_| TXT[next(TXT.len())]).collect();
            let Some(branches) = simple(&pattern) else {
                continue;
            };
            let Some(expected) = globset_says(&pattern, &text) else {
                continue;
            };
            let got = branches
                .iter()
                .any(|s| wildmatch(s.as_bytes(), text.as_bytes()));
            assert_eq!(got, expected, "pattern {pattern:?} text {text:?}");
            let globs = Globs::new(vec![pattern.clone()]).matches(&text);
            assert_eq!(globs, Some(expected), "Globs: {pattern:?} {text:?}");
            compared += 1;
            matched += usize::from(got);
        }
        assert!(compared > 10_000 && matched > 1_000, "{compared} {matched}");
    }
}
