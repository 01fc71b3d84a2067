//! Word-level helpers: bash's quote removal, ANSI-C strings, brace expansion
//! and the split of unquoted text into literal, glob and tilde parts.
//!
//! The lowering feeds a word as a list of [`Atom`]s: one character with a flag
//! saying whether it was quoted (or escaped), or a dynamic part. Only unquoted
//! characters take part in brace expansion, globbing and tilde expansion.

use super::ir::Part;

/// Most words one source word may expand to; past it the word stays dynamic.
pub(crate) const MAX_BRACE_WORDS: usize = 256;

/// Most characters brace expansion may copy while expanding one word.
const MAX_BRACE_ATOMS: usize = 1 << 16;

/// One character of a word, or a dynamic part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Atom {
    /// A character; `true` when quoted or escaped.
    Ch(char, bool),
    /// A run-time expansion.
    Dyn(Part),
}

/// Unquoted word text as written: a backslash quotes the next character and a
/// backslash-newline disappears.
pub(crate) fn push_unquoted(atoms: &mut Vec<Atom>, raw: &str) {
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') => {}
                Some(next) => atoms.push(Atom::Ch(next, true)),
                None => atoms.push(Atom::Ch('\\', true)),
            }
        } else {
            atoms.push(Atom::Ch(c, false));
        }
    }
}

/// Text inside double quotes: a backslash only escapes `$`, `` ` ``, `"`, `\` and newline.
pub(crate) fn push_double_quoted(atoms: &mut Vec<Atom>, raw: &str) {
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('\n') => {
                    chars.next();
                }
                Some(&next @ ('$' | '`' | '"' | '\\')) => {
                    chars.next();
                    atoms.push(Atom::Ch(next, true));
                }
                _ => atoms.push(Atom::Ch('\\', true)),
            }
        } else {
            atoms.push(Atom::Ch(c, true));
        }
    }
}

/// Text that is quoted as a whole (single quotes, decoded ANSI-C strings).
pub(crate) fn push_quoted(atoms: &mut Vec<Atom>, text: &str) {
    atoms.extend(text.chars().map(|c| Atom::Ch(c, true)));
}

/// Decodes the inside of `$'…'` the way bash does.
pub(crate) fn decode_ansi_c(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'e' | 'E' => out.push('\x1b'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            '\\' | '\'' | '"' | '?' => out.push(e),
            'x' => push_code(&mut out, take_digits(&mut chars, 16, 2)),
            'u' => push_code(&mut out, take_digits(&mut chars, 16, 4)),
            'U' => push_code(&mut out, take_digits(&mut chars, 16, 8)),
            '0'..='7' => {
                let rest = take_digits(&mut chars, 8, 2);
                let first = e.to_digit(8).unwrap_or(0);
                let value = rest.map_or(first, |(v, n)| first * 8u32.pow(n) + v);
                push_code(&mut out, Some((value & 0xff, 1)));
            }
            'c' => {
                if let Some(ctl) = chars.next() {
                    push_code(&mut out, Some(((ctl as u32) & 0x1f, 1)));
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

fn take_digits(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    radix: u32,
    max: u32,
) -> Option<(u32, u32)> {
    let mut value = 0u32;
    let mut n = 0;
    while n < max {
        match chars.peek().and_then(|c| c.to_digit(radix)) {
            Some(d) => {
                value = value.saturating_mul(radix).saturating_add(d);
                n += 1;
                chars.next();
            }
            None => break,
        }
    }
    (n > 0).then_some((value, n))
}

fn push_code(out: &mut String, code: Option<(u32, u32)>) {
    if let Some((value, _)) = code {
        // Bytes that are not valid on their own become U+FFFD: the word then
        // matches no rule literally, which is the cautious outcome.
        out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
    }
}

/// Brace-expands a word. Returns `None` when the expansion would exceed
/// [`MAX_BRACE_WORDS`] words.
pub(crate) fn brace_expand(atoms: Vec<Atom>) -> Option<Vec<Vec<Atom>>> {
    let mut out = Vec::new();
    let mut work = vec![atoms];
    let mut steps = 0usize;
    // Bounds the work on long words: every step copies a word.
    let mut copied = 0usize;
    while let Some(word) = work.pop() {
        steps += 1;
        copied += word.len();
        if steps > MAX_BRACE_WORDS * 8 || copied > MAX_BRACE_ATOMS {
            return None;
        }
        match split_first_brace(&word) {
            Some(alternatives) if alternatives.is_empty() => return None,
            Some(alternatives) => {
                // Reverse so that the stack pops them in source order.
                work.extend(alternatives.into_iter().rev());
            }
            None => {
                out.push(word);
                if out.len() > MAX_BRACE_WORDS {
                    return None;
                }
            }
        }
    }
    Some(out)
}

fn is_unquoted(atom: Option<&Atom>, c: char) -> bool {
    matches!(atom, Some(Atom::Ch(x, false)) if *x == c)
}

/// Finds the first brace expression and returns the words it expands to
/// (prefix + each alternative + suffix).
fn split_first_brace(word: &[Atom]) -> Option<Vec<Vec<Atom>>> {
    for open in 0..word.len() {
        if !is_unquoted(word.get(open), '{') {
            continue;
        }
        // `${` is never brace expansion.
        if open > 0 && matches!(word.get(open - 1), Some(Atom::Ch('$', _))) {
            continue;
        }
        let mut depth = 0usize;
        let mut commas = Vec::new();
        for (i, atom) in word.iter().enumerate().skip(open + 1) {
            match atom {
                Atom::Ch('{', false) => depth += 1,
                Atom::Ch('}', false) if depth > 0 => depth -= 1,
                Atom::Ch('}', false) => {
                    let inner = word.get(open + 1..i)?;
                    let alternatives = if commas.is_empty() {
                        match sequence(inner) {
                            Sequence::Items(items) => items,
                            // Too many words: an empty list tells the caller to give up.
                            Sequence::TooLong => return Some(Vec::new()),
                            Sequence::NotOne => continue,
                        }
                    } else {
                        let mut alts = Vec::new();
                        let mut start = open + 1;
                        for &c in commas.iter().chain(std::iter::once(&i)) {
                            alts.push(word.get(start..c)?.to_vec());
                            start = c + 1;
                        }
                        alts
                    };
                    let prefix = word.get(..open)?;
                    let suffix = word.get(i + 1..)?;
                    return Some(
                        alternatives
                            .into_iter()
                            .map(|alt| [prefix, &alt, suffix].concat())
                            .collect(),
                    );
                }
                Atom::Ch(',', false) if depth == 0 => commas.push(i),
                _ => {}
            }
        }
    }
    None
}

enum Sequence {
    Items(Vec<Vec<Atom>>),
    TooLong,
    NotOne,
}

/// `{1..5}`, `{a..e}`, `{10..1..2}`: the alternatives.
fn sequence(inner: &[Atom]) -> Sequence {
    match sequence_items(inner) {
        Some(Some(items)) => Sequence::Items(items),
        Some(None) => Sequence::TooLong,
        None => Sequence::NotOne,
    }
}

/// `None`: not a sequence; `Some(None)`: too long.
fn sequence_items(inner: &[Atom]) -> Option<Option<Vec<Vec<Atom>>>> {
    let mut text = String::new();
    for atom in inner {
        match atom {
            Atom::Ch(c, false) => text.push(*c),
            _ => return None,
        }
    }
    let fields: Vec<&str> = text.split("..").collect();
    let (from, to, step) = match fields.as_slice() {
        [a, b] => (*a, *b, 1i64),
        [a, b, s] => (*a, *b, s.parse::<i64>().ok()?.checked_abs()?.max(1)),
        _ => return None,
    };
    let items: Vec<String> = if let (Ok(a), Ok(b)) = (from.parse::<i64>(), to.parse::<i64>()) {
        let count = a.abs_diff(b) / step.unsigned_abs() + 1;
        if count > MAX_BRACE_WORDS as u64 {
            return Some(None);
        }
        let dir = if a <= b { step } else { -step };
        (0..count as i64)
            .map(|k| (a + k * dir).to_string())
            .collect()
    } else {
        let (a, b) = (single_char(from)?, single_char(to)?);
        let (lo, hi) = (a.min(b) as u32, a.max(b) as u32);
        let mut chars: Vec<String> = (lo..=hi)
            .step_by(usize::try_from(step).ok()?)
            .filter_map(char::from_u32)
            .map(String::from)
            .collect();
        if a > b {
            chars.reverse();
        }
        chars
    };
    Some(Some(
        items
            .into_iter()
            .map(|s| s.chars().map(|c| Atom::Ch(c, true)).collect())
            .collect(),
    ))
}

fn single_char(s: &str) -> Option<char> {
    let mut it = s.chars();
    let c = it.next()?;
    (it.next().is_none() && c.is_ascii_alphabetic()).then_some(c)
}

/// True when the atoms contain an unquoted brace expression.
pub(crate) fn has_brace(atoms: &[Atom]) -> bool {
    split_first_brace(atoms).is_some()
}

/// Turns atoms into parts: quoted characters are literal; unquoted `*`, `?`
/// and bracket expressions are globs; a leading unquoted `~` is a tilde prefix.
pub(crate) fn to_parts(atoms: &[Atom]) -> Vec<Part> {
    let mut parts: Vec<Part> = Vec::new();
    let mut i = 0;
    if is_unquoted(atoms.first(), '~') {
        let mut tilde = String::new();
        while let Some(Atom::Ch(c, false)) = atoms.get(i) {
            if *c == '/' {
                break;
            }
            tilde.push(*c);
            i += 1;
        }
        parts.push(Part::Tilde(tilde));
    }
    while let Some(atom) = atoms.get(i) {
        match atom {
            Atom::Dyn(p) => parts.push(p.clone()),
            Atom::Ch(c @ ('*' | '?'), false) => push_glob(&mut parts, &c.to_string()),
            Atom::Ch('[', false) => match bracket_end(atoms, i) {
                Some(end) => {
                    let text: String = atoms
                        .get(i..=end)
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|a| match a {
                            Atom::Ch(c, _) => Some(*c),
                            Atom::Dyn(_) => None,
                        })
                        .collect();
                    push_glob(&mut parts, &text);
                    i = end;
                }
                None => push_literal(&mut parts, '['),
            },
            Atom::Ch(c, _) => push_literal(&mut parts, *c),
        }
        i += 1;
    }
    parts
}

fn bracket_end(atoms: &[Atom], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if is_unquoted(atoms.get(i), '!') || is_unquoted(atoms.get(i), '^') {
        i += 1;
    }
    if is_unquoted(atoms.get(i), ']') {
        i += 1;
    }
    while let Some(atom) = atoms.get(i) {
        match atom {
            Atom::Ch(']', false) => return Some(i),
            Atom::Dyn(_) => return None,
            _ => i += 1,
        }
    }
    None
}

fn push_literal(parts: &mut Vec<Part>, c: char) {
    if let Some(Part::Literal(s)) = parts.last_mut() {
        s.push(c);
    } else {
        parts.push(Part::Literal(c.to_string()));
    }
}

fn push_glob(parts: &mut Vec<Part>, text: &str) {
    if let Some(Part::Glob(s)) = parts.last_mut() {
        s.push_str(text);
    } else {
        parts.push(Part::Glob(text.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unquoted(s: &str) -> Vec<Atom> {
        let mut a = Vec::new();
        push_unquoted(&mut a, s);
        a
    }

    fn expand(s: &str) -> Vec<String> {
        brace_expand(unquoted(s))
            .unwrap()
            .iter()
            .map(|w| {
                w.iter()
                    .map(|a| if let Atom::Ch(c, _) = a { *c } else { '?' })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn backslash_removal() {
        assert_eq!(
            to_parts(&unquoted(r"\r\m")),
            vec![Part::Literal("rm".into())]
        );
        assert_eq!(
            to_parts(&unquoted("su\\\ndo")),
            vec![Part::Literal("sudo".into())]
        );
        assert_eq!(to_parts(&unquoted(r"\*")), vec![Part::Literal("*".into())]);
    }

    #[test]
    fn double_quote_escapes() {
        let mut a = Vec::new();
        push_double_quoted(&mut a, r#"a\$b\n\"c"#);
        let s: String = a
            .iter()
            .map(|x| if let Atom::Ch(c, _) = x { *c } else { '?' })
            .collect();
        assert_eq!(s, r#"a$b\n"c"#);
    }

    #[test]
    fn ansi_c() {
        assert_eq!(decode_ansi_c(r"\x72m"), "rm");
        assert_eq!(decode_ansi_c(r"\162\155"), "rm");
        assert_eq!(decode_ansi_c(r"a\nb\u0041\'"), "a\nbA'");
        assert_eq!(decode_ansi_c(r"\cA"), "\u{1}");
    }

    #[test]
    fn braces() {
        assert_eq!(expand("{rm,-rf,/}"), ["rm", "-rf", "/"]);
        assert_eq!(expand("a{b,c}d"), ["abd", "acd"]);
        assert_eq!(expand("{1..3}"), ["1", "2", "3"]);
        assert_eq!(expand("{a..c}"), ["a", "b", "c"]);
        assert_eq!(expand("{x}"), ["{x}"]);
        assert_eq!(expand(r"\{a,b}"), ["{a,b}"]);
        assert_eq!(expand("{a,{b,c}}"), ["a", "b", "c"]);
        assert!(brace_expand(unquoted(&"{a,b}".repeat(20))).is_none());
        assert!(brace_expand(unquoted("{1..100000}")).is_none());
    }

    #[test]
    fn globs_and_tilde() {
        assert_eq!(
            to_parts(&unquoted("~/x*.rs")),
            vec![
                Part::Tilde("~".into()),
                Part::Literal("/x".into()),
                Part::Glob("*".into()),
                Part::Literal(".rs".into())
            ]
        );
        assert_eq!(to_parts(&unquoted("[")), vec![Part::Literal("[".into())]);
        assert_eq!(
            to_parts(&unquoted("a[bc]")),
            vec![Part::Literal("a".into()), Part::Glob("[bc]".into())]
        );
    }
}
