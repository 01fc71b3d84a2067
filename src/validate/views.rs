//! Text views of a command: a quote-aware scan of the raw text.
//!
//! The scan is deliberately independent of tree-sitter, so that validators can
//! compare the two and ask when they disagree.

/// What a byte of the text is, as far as quoting goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    /// Outside any quotes.
    Normal,
    /// A backslash and the character it escapes, outside quotes.
    Escaped,
    /// Inside (or delimiting) single quotes.
    Single,
    /// Inside (or delimiting) double quotes.
    Double,
    /// Inside (or delimiting) `$'…'`.
    AnsiC,
    /// A `#` comment up to the end of the line.
    Comment,
    /// The delimiters of a substitution: `$(`, `)`, backticks, `<(`, `>(`.
    Subst,
}

/// The scan and the derived views.
#[derive(Debug, Clone)]
pub struct Views {
    /// The state of each byte.
    pub mask: Vec<Quote>,
    /// True for bytes that are quote delimiters (`'`, `"`, `$'`).
    pub delimiter: Vec<bool>,
    /// The scan ended inside a quote or substitution.
    pub unterminated: bool,
    /// The text with double-quoted content (and the quotes) removed.
    pub without_double_quoted: String,
    /// The text with every quoted part removed.
    pub unquoted: String,
    /// The text with quoted content removed but quote characters kept.
    pub quotes_kept: String,
    /// Heredoc bodies as bash reads them: from the body's first byte to the terminator line's first byte.
    pub heredocs: Vec<(usize, usize)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// Outside quotes; `parens` counts `(` opened inside a `$(`.
    Normal {
        parens: u32,
    },
    Double,
    Backtick,
}

impl Views {
    /// Scans `text`.
    pub fn new(text: &str) -> Views {
        let bytes = text.as_bytes();
        let n = bytes.len();
        let mut mask = vec![Quote::Normal; n];
        let mut delimiter = vec![false; n];
        let mut stack: Vec<Ctx> = vec![Ctx::Normal { parens: 0 }];
        let mut pending: Vec<(String, bool, bool)> = Vec::new();
        let mut heredocs: Vec<(usize, usize)> = Vec::new();
        let mut i = 0;
        let set = |mask: &mut Vec<Quote>, from: usize, to: usize, q: Quote| {
            for m in mask.iter_mut().take(to.min(n)).skip(from) {
                *m = q;
            }
        };
        while i < n {
            let b = bytes.get(i).copied().unwrap_or(0);
            let next = bytes.get(i + 1).copied();
            let top = stack.last().copied().unwrap_or(Ctx::Normal { parens: 0 });
            match top {
                Ctx::Normal { parens } => {
                    let word_start = i == 0
                        || bytes.get(i - 1).is_some_and(|p| {
                            matches!(p, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')')
                        });
                    match b {
                        b'\\' => {
                            let len = next.map_or(1, |c| 1 + utf8_len(c));
                            set(&mut mask, i, i + len, Quote::Escaped);
                            i += len;
                            continue;
                        }
                        b'<' if next == Some(b'<')
                            && bytes.get(i + 2) != Some(&b'<')
                            && (i == 0 || bytes.get(i - 1) != Some(&b'<')) =>
                        {
                            if let Some((end, delim, strip, quoted)) = heredoc_start(text, i + 2) {
                                set(&mut mask, i + 2, end, Quote::Single);
                                pending.push((delim, strip, quoted));
                                i = end;
                                continue;
                            }
                        }
                        b'\n' if !pending.is_empty() => {
                            i = heredoc_bodies(text, i + 1, &mut pending, &mut mask, &mut heredocs);
                            continue;
                        }
                        b'\'' => {
                            let end = text
                                .get(i + 1..)
                                .and_then(|r| r.find('\''))
                                .map(|e| i + 1 + e);
                            let stop = end.map_or(n, |e| e + 1);
                            set(&mut mask, i, stop, Quote::Single);
                            flag(&mut delimiter, i);
                            if let Some(e) = end {
                                flag(&mut delimiter, e);
                            } else {
                                return Views::finish(text, mask, delimiter, true, heredocs);
                            }
                            i = stop;
                            continue;
                        }
                        b'$' if next == Some(b'\'') => {
                            let mut j = i + 2;
                            while j < n && bytes.get(j) != Some(&b'\'') {
                                j += if bytes.get(j) == Some(&b'\\') { 2 } else { 1 };
                            }
                            let stop = (j + 1).min(n);
                            set(&mut mask, i, stop, Quote::AnsiC);
                            flag(&mut delimiter, i);
                            flag(&mut delimiter, i + 1);
                            if j >= n {
                                return Views::finish(text, mask, delimiter, true, heredocs);
                            }
                            flag(&mut delimiter, j);
                            i = stop;
                            continue;
                        }
                        b'"' => {
                            put(&mut mask, i, Quote::Double);
                            flag(&mut delimiter, i);
                            stack.push(Ctx::Double);
                        }
                        b'#' if word_start => {
                            let end = text
                                .get(i..)
                                .and_then(|r| r.find('\n'))
                                .map_or(n, |e| i + e);
                            set(&mut mask, i, end, Quote::Comment);
                            i = end;
                            continue;
                        }
                        b'`' => {
                            put(&mut mask, i, Quote::Subst);
                            stack.push(Ctx::Backtick);
                        }
                        b'$' | b'<' | b'>' if next == Some(b'(') => {
                            set(&mut mask, i, i + 2, Quote::Subst);
                            stack.push(Ctx::Normal { parens: 0 });
                            i += 2;
                            continue;
                        }
                        b'(' if stack.len() > 1 => {
                            if let Some(Ctx::Normal { parens }) = stack.last_mut() {
                                *parens += 1;
                            }
                        }
                        b')' if stack.len() > 1 => {
                            if parens == 0 {
                                put(&mut mask, i, Quote::Subst);
                                stack.pop();
                            } else if let Some(Ctx::Normal { parens }) = stack.last_mut() {
                                *parens -= 1;
                            }
                        }
                        _ => {}
                    }
                }
                Ctx::Double => {
                    put(&mut mask, i, Quote::Double);
                    match b {
                        b'\\' => {
                            let len = next.map_or(1, |c| 1 + utf8_len(c));
                            set(&mut mask, i, i + len, Quote::Double);
                            i += len;
                            continue;
                        }
                        b'"' => {
                            flag(&mut delimiter, i);
                            stack.pop();
                        }
                        b'$' if next == Some(b'(') => {
                            set(&mut mask, i, i + 2, Quote::Subst);
                            stack.push(Ctx::Normal { parens: 0 });
                            i += 2;
                            continue;
                        }
                        b'`' => {
                            put(&mut mask, i, Quote::Subst);
                            stack.push(Ctx::Backtick);
                        }
                        _ => {}
                    }
                }
                Ctx::Backtick => match b {
                    b'\\' => {
                        i += 2;
                        continue;
                    }
                    b'`' => {
                        put(&mut mask, i, Quote::Subst);
                        stack.pop();
                    }
                    _ => {}
                },
            }
            i += 1;
        }
        Views::finish(
            text,
            mask,
            delimiter,
            stack.len() > 1 || !pending.is_empty(),
            heredocs,
        )
    }

    fn finish(
        text: &str,
        mask: Vec<Quote>,
        delimiter: Vec<bool>,
        unterminated: bool,
        heredocs: Vec<(usize, usize)>,
    ) -> Views {
        let mut without_double_quoted = String::new();
        let mut unquoted = String::new();
        let mut quotes_kept = String::new();
        for (i, c) in text.char_indices() {
            let q = mask.get(i).copied().unwrap_or(Quote::Normal);
            let delim = delimiter.get(i).copied().unwrap_or(false);
            let quoted = matches!(q, Quote::Single | Quote::Double | Quote::AnsiC);
            if q != Quote::Double {
                without_double_quoted.push(c);
            }
            if !quoted {
                unquoted.push(c);
            }
            if !quoted || delim {
                quotes_kept.push(c);
            }
        }
        Views {
            mask,
            delimiter,
            unterminated,
            without_double_quoted,
            unquoted,
            quotes_kept,
            heredocs,
        }
    }

    /// The state of the byte at `i`.
    pub fn at(&self, i: usize) -> Quote {
        self.mask.get(i).copied().unwrap_or(Quote::Normal)
    }
}

/// After `<<`: the end of the delimiter word, the delimiter, `<<-`, quoted.
fn heredoc_start(text: &str, mut i: usize) -> Option<(usize, String, bool, bool)> {
    let bytes = text.as_bytes();
    let strip = bytes.get(i) == Some(&b'-');
    if strip {
        i += 1;
    }
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    let mut delim = String::new();
    let mut quoted = false;
    let mut quote: Option<char> = None;
    let rest = text.get(i..)?;
    let mut end = i;
    let mut chars = rest.char_indices().peekable();
    while let Some((k, c)) = chars.next() {
        end = i + k + c.len_utf8();
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => delim.push(c),
            (None, '\'' | '"') => {
                quoted = true;
                quote = Some(c);
            }
            (None, '\\') => {
                quoted = true;
                if let Some((k2, c2)) = chars.next() {
                    end = i + k2 + c2.len_utf8();
                    delim.push(c2);
                }
            }
            (None, c) if c.is_whitespace() || ";|&()<>".contains(c) => {
                end = i + k;
                break;
            }
            (None, c) => delim.push(c),
        }
    }
    (!delim.is_empty()).then_some((end, delim, strip, quoted))
}

/// Marks the bodies of pending heredocs starting at `from`; returns where scanning resumes.
fn heredoc_bodies(
    text: &str,
    from: usize,
    pending: &mut Vec<(String, bool, bool)>,
    mask: &mut [Quote],
    found: &mut Vec<(usize, usize)>,
) -> usize {
    let mut pos = from;
    for (delim, strip, quoted) in pending.drain(..) {
        let state = if quoted { Quote::Single } else { Quote::Double };
        let start = pos;
        loop {
            let Some(rest) = text.get(pos..) else {
                return text.len();
            };
            if rest.is_empty() {
                found.push((start, text.len()));
                return text.len();
            }
            let line_end = rest.find('\n').map_or(text.len(), |e| pos + e);
            let line = text.get(pos..line_end).unwrap_or("");
            let candidate = if strip {
                line.trim_start_matches('\t')
            } else {
                line
            };
            let next = (line_end + 1).min(text.len());
            if candidate == delim {
                found.push((start, pos));
                for m in mask.iter_mut().take(line_end).skip(pos) {
                    *m = Quote::Single;
                }
                pos = next;
                break;
            }
            for m in mask.iter_mut().take(next).skip(pos) {
                *m = state;
            }
            pos = next;
        }
    }
    pos
}

fn put(mask: &mut [Quote], i: usize, q: Quote) {
    if let Some(m) = mask.get_mut(i) {
        *m = q;
    }
}

fn flag(v: &mut [bool], i: usize) {
    if let Some(m) = v.get_mut(i) {
        *m = true;
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views() {
        let v = Views::new(r#"echo "a;b" 'c|d' e\;f # x'y"#);
        assert_eq!(v.unquoted, r"echo   e\;f # x'y");
        assert_eq!(v.quotes_kept, r#"echo "" '' e\;f # x'y"#);
        assert_eq!(v.without_double_quoted, r"echo  'c|d' e\;f # x'y");
        assert!(!v.unterminated);
        assert_eq!(v.at(22), Quote::Comment);
    }

    #[test]
    fn nested_quotes_in_substitution() {
        let v = Views::new(r#"echo "$(echo "hi" ; ls)" done"#);
        assert!(!v.unterminated);
        assert_eq!(v.at(v.mask.len() - 1), Quote::Normal);
        assert!(Views::new("echo 'abc").unterminated);
        assert!(Views::new("echo \"$(ls").unterminated);
    }

    #[test]
    fn heredoc_bodies_are_quoted() {
        let text = "git commit -m \"$(cat <<'EOF'\nmsg\n# not a comment\nEOF\n)\"";
        let v = Views::new(text);
        let hash = text.find('#').unwrap();
        assert_eq!(v.at(hash), Quote::Single);
        assert!(!v.unterminated);
        assert_eq!(v.at(text.len() - 1), Quote::Double);
    }
}
