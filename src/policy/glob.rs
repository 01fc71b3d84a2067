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
    simple: Vec<Simple>,
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
        if split.simple.iter().any(|s| s.matches(text.as_bytes())) {
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
            for p in &self.patterns {
                match Simple::parse(p) {
                    Some(branches) => split.simple.extend(branches),
                    None => split.complex.push(p.clone()),
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

/// While parsing, a literal is one character; `push` joins adjacent ones.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Literal(char),
    /// A run of literal bytes (what `push` makes of adjacent literals).
    Run(Vec<u8>),
    /// `?`: one byte.
    One,
    /// `*`: any bytes.
    Many,
}

/// Appends a token, joining literals into runs.
fn push(tokens: &mut Vec<Token>, token: Token) {
    let mut buf = [0u8; 4];
    let bytes: &[u8] = match &token {
        Token::Literal(c) => c.encode_utf8(&mut buf).as_bytes(),
        Token::Run(b) => b,
        Token::One | Token::Many => return tokens.push(token),
    };
    match tokens.last_mut() {
        Some(Token::Run(run)) => run.extend_from_slice(bytes),
        _ => tokens.push(Token::Run(bytes.to_vec())),
    }
}

/// One brace-free pattern of literals, `?` and `*`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Simple(Vec<Token>);

impl Simple {
    /// The pattern's alternatives, or `None` when it uses more than the subset.
    fn parse(pattern: &str) -> Option<Vec<Simple>> {
        // Each branch is a token list; braces multiply them.
        let mut done: Vec<Vec<Token>> = vec![Vec::new()];
        let mut alternatives: Option<Vec<Vec<Token>>> = None;
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            let token = match c {
                '\\' => Token::Literal(chars.next()?),
                '*' if chars.peek() == Some(&'*') => return None,
                '*' => Token::Many,
                '?' => Token::One,
                '[' | ']' => return None,
                '{' if alternatives.is_some() => return None,
                '{' => {
                    alternatives = Some(vec![Vec::new()]);
                    continue;
                }
                '}' => {
                    let alts = alternatives.take()?;
                    // globset's reading of `{a,}` is its own: leave it to globset.
                    if alts.iter().any(Vec::is_empty) {
                        return None;
                    }
                    if done.len().saturating_mul(alts.len()) > MAX_BRANCHES {
                        return None;
                    }
                    done = done
                        .iter()
                        .flat_map(|d| {
                            alts.iter().map(|a| {
                                let mut joined = d.clone();
                                a.iter().for_each(|t| push(&mut joined, t.clone()));
                                joined
                            })
                        })
                        .collect();
                    continue;
                }
                ',' if alternatives.is_some() => {
                    alternatives.as_mut()?.push(Vec::new());
                    continue;
                }
                c => Token::Literal(c),
            };
            match alternatives.as_mut() {
                Some(alts) => push(alts.last_mut()?, token),
                None => done.iter_mut().for_each(|d| push(d, token.clone())),
            }
        }
        if alternatives.is_some() {
            return None; // unclosed brace: globset's error, not ours to guess
        }
        Some(done.into_iter().map(Simple).collect())
    }

    /// Wildcard matching with one backtrack point (the last `*`): enough for
    /// `*`, `?` and literals, and linear in practice.
    fn matches(&self, text: &[u8]) -> bool {
        let (mut p, mut t) = (0usize, 0usize);
        let mut star: Option<(usize, usize)> = None;
        loop {
            let rest = text.get(t..).unwrap_or_default();
            let advanced = match self.0.get(p) {
                Some(Token::Many) => {
                    star = Some((p + 1, t));
                    p += 1;
                    continue;
                }
                Some(Token::One) if !rest.is_empty() => Some(1),
                Some(Token::Run(lit)) if rest.starts_with(lit) => Some(lit.len()),
                Some(_) => None,
                None if rest.is_empty() => return true,
                None => None,
            };
            if let Some(n) = advanced {
                p += 1;
                t += n;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globset_says(pattern: &str, text: &str) -> Option<bool> {
        Some(glob(pattern).ok()?.compile_matcher().is_match(text))
    }

    #[test]
    fn subset_and_fallback() {
        assert!(Simple::parse("~/.ssh*").is_some());
        assert_eq!(Simple::parse("{status,log}").map(|v| v.len()), Some(2));
        assert_eq!(Simple::parse("{a,b}-{c,d,e}").map(|v| v.len()), Some(6));
        assert!(Simple::parse("{a,}").is_none());
        assert!(Simple::parse("**/x").is_none());
        assert!(Simple::parse("[ab]").is_none());
        assert!(Simple::parse("{a,{b,c}}").is_none());
        assert!(Simple::parse("{a").is_none());
        assert!(Simple::parse("a}").is_none());
        let g = Globs::new(vec!["*/.ssh/*".into(), "$[{]HOME[}]/.ssh*".into()]);
        assert_eq!(g.matches("/home/u/.ssh/id_rsa"), Some(true));
        assert_eq!(g.matches("${HOME}/.ssh/config"), Some(true));
        assert_eq!(g.matches("status"), Some(false));
        let broken = Globs::new(vec!["[".into()]);
        assert_eq!(broken.matches("x"), None);
        assert!(!broken.usable());
    }

    /// The direct matcher agrees with globset on every pattern it accepts:
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
            let Some(branches) = Simple::parse(&pattern) else {
                continue;
            };
            let Some(expected) = globset_says(&pattern, &text) else {
                continue;
            };
            let got = branches.iter().any(|s| s.matches(text.as_bytes()));
            assert_eq!(got, expected, "pattern {pattern:?} text {text:?}");
            compared += 1;
            matched += usize::from(got);
        }
        assert!(compared > 10_000 && matched > 1_000, "{compared} {matched}");
    }
}
