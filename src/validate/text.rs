//! Text-level validators: parser differentials that the raw text reveals.

use super::{Input, Quote, Step};

fn ask(reason: impl Into<String>) -> Step {
    Step::Ask(reason.into())
}

/// Control characters (other than tab and newline), CR and DEL anywhere.
pub(super) fn control_characters(i: &Input<'_>) -> Step {
    match i
        .text
        .char_indices()
        .find(|(_, c)| c.is_control() && *c != '\n' && *c != '\t')
    {
        Some((at, c)) => ask(format!("control character U+{:04X} at byte {at}", c as u32)),
        None => Step::Passthrough,
    }
}

fn invisible(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{180e}' | '\u{00ad}')
}

fn bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Non-ASCII whitespace or invisible characters outside quotes; bidi controls anywhere.
pub(super) fn unicode_whitespace(i: &Input<'_>) -> Step {
    for (at, c) in i.text.char_indices() {
        if bidi(c) {
            return ask(format!(
                "bidirectional control U+{:04X} at byte {at}",
                c as u32
            ));
        }
        let outside = !matches!(i.views.at(at), Quote::Single | Quote::Double | Quote::AnsiC);
        if outside && ((!c.is_ascii() && c.is_whitespace()) || invisible(c)) {
            return ask(format!(
                "unicode whitespace or invisible character U+{:04X} outside quotes at byte {at}",
                c as u32
            ));
        }
    }
    Step::Passthrough
}

/// A fragment rather than a command: empty, starting with a tab, a flag or an operator, or ending in one.
pub(super) fn incomplete_command(i: &Input<'_>) -> Step {
    let trimmed = i.text.trim();
    if trimmed.is_empty() {
        return ask("empty command");
    }
    if i.text.starts_with('\t') {
        return ask("command starts with a tab (looks like a fragment)");
    }
    if trimmed.starts_with('-') {
        return ask("command starts with a flag (looks like a fragment)");
    }
    for op in ["&&", "||", ";", "|", "&", ")"] {
        if trimmed.starts_with(op) {
            return ask(format!("command starts with `{op}`"));
        }
    }
    let end_ok = |op: &str| {
        trimmed.ends_with(op)
            && i.views.at(i.text.trim_end().len().saturating_sub(1)) == Quote::Normal
    };
    for op in ["&&", "||", "|"] {
        if end_ok(op) {
            return ask(format!("command ends with `{op}`"));
        }
    }
    Step::Passthrough
}

/// Unterminated quotes or substitutions, unbalanced parentheses outside quotes.
pub(super) fn malformed_tokens(i: &Input<'_>) -> Step {
    if i.views.unterminated {
        return ask("unterminated quote or substitution");
    }
    let mut depth: i64 = 0;
    for (at, b) in i.text.bytes().enumerate() {
        if i.views.at(at) != Quote::Normal {
            continue;
        }
        match b {
            b'(' => depth += 1,
            // `case` patterns close with a lone `)`: only an unclosed `(` is suspicious.
            b')' => depth = (depth - 1).max(0),
            _ => {}
        }
    }
    if depth != 0 {
        return ask("unbalanced parentheses");
    }
    Step::Passthrough
}

/// A line continuation inside a word (`su\⏎do`), or padding that hides the rest of the command.
pub(super) fn unquoted_newline(i: &Input<'_>) -> Step {
    let bytes = i.text.as_bytes();
    for (at, _) in i.text.match_indices("\\\n") {
        let before = at
            .checked_sub(1)
            .and_then(|b| bytes.get(b))
            .is_some_and(|c| !c.is_ascii_whitespace());
        let after = bytes.get(at + 2).is_some_and(|c| !c.is_ascii_whitespace());
        if i.views.at(at) == Quote::Escaped && before && after {
            return ask("a backslash-newline joins a word across lines");
        }
    }
    for c in &i.script.commands {
        for w in c
            .argv
            .iter()
            .chain(c.redirects.iter().filter_map(|r| r.target.as_ref()))
        {
            let raw = i.raw(w);
            if let Some(pos) = raw.find("\\\n") {
                let abs = w.span.start + pos;
                if i.views.at(abs) == Quote::Escaped && pos > 0 && pos + 2 < raw.len() {
                    return ask("a backslash-newline joins a word across lines");
                }
            }
        }
    }
    let mut blank_lines = 0;
    let mut spaces = 0;
    for (at, c) in i.text.char_indices() {
        if i.views.at(at) != Quote::Normal {
            blank_lines = 0;
            spaces = 0;
            continue;
        }
        match c {
            '\n' => {
                blank_lines += 1;
                spaces = 0;
            }
            ' ' | '\t' => spaces += 1,
            _ => {
                if blank_lines >= 5 || spaces >= 40 {
                    return ask(
                        "long whitespace padding before more of the command (it may hide it)",
                    );
                }
                blank_lines = 0;
                spaces = 0;
            }
        }
    }
    Step::Passthrough
}

/// Comments that contain quotes, or comments the text scan and the parser disagree on.
pub(super) fn comment_quote_desync(i: &Input<'_>) -> Step {
    for span in &i.script.comments {
        let text = i.text.get(span.start..span.end).unwrap_or("");
        if text.contains(['\'', '"', '`']) {
            return ask("a comment contains quote characters");
        }
        if i.views.at(span.start) != Quote::Comment {
            return ask("the parser and the text scan disagree about a comment");
        }
    }
    let scan_comments = i
        .views
        .mask
        .iter()
        .enumerate()
        .filter(|(at, q)| {
            **q == Quote::Comment && (*at == 0 || i.views.at(at - 1) != Quote::Comment)
        })
        .count();
    if scan_comments > i.script.comments.len() && i.script.is_complete() {
        return ask("the text scan sees a comment the parser does not");
    }
    Step::Passthrough
}

/// A `#` directly after a quote, inside a word.
pub(super) fn mid_word_hash(i: &Input<'_>) -> Step {
    let bytes = i.text.as_bytes();
    for (at, b) in bytes.iter().enumerate() {
        if *b == b'#' && at > 0 && i.views.at(at) == Quote::Normal {
            let prev = bytes.get(at - 1).copied().unwrap_or(b' ');
            if matches!(prev, b'\'' | b'"' | b'}' | b'\\') {
                return ask(format!("`#` in the middle of a word at byte {at}"));
            }
        }
    }
    Step::Passthrough
}

/// A flag hidden by quoting or escapes (`''-exec`, `"-"rf`, `$'-exec'`, `-e\xec`).
pub(super) fn obfuscated_flags(i: &Input<'_>) -> Step {
    for c in &i.script.commands {
        for w in c.argv.iter().skip(1) {
            let Some(value) = w.value() else { continue };
            if !value.starts_with('-') || w.from_brace {
                continue;
            }
            let raw = i.raw(w);
            let name = raw.split('=').next().unwrap_or(raw);
            if !raw.starts_with('-') || name.contains(['\'', '"', '\\']) {
                return ask(format!(
                    "the option `{value}` is written with quotes or escapes (`{raw}`)"
                ));
            }
        }
    }
    Step::Passthrough
}

/// Operators inside what the parser took for one word: the parser and bash may disagree.
pub(super) fn shell_metacharacters(i: &Input<'_>) -> Step {
    for c in &i.script.commands {
        for w in c
            .argv
            .iter()
            .chain(c.redirects.iter().filter_map(|r| r.target.as_ref()))
        {
            let raw = i.raw(w);
            let (mut depth, mut tick) = (0i32, false);
            for (k, b) in raw.bytes().enumerate() {
                let q = i.views.at(w.span.start + k);
                if q == Quote::Subst {
                    match b {
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        b'`' => tick = !tick,
                        _ => {}
                    }
                    continue;
                }
                if depth > 0 || tick {
                    continue;
                }
                if matches!(b, b';' | b'|' | b'&' | b'<' | b'>' | b'(' | b')' | b'`')
                    && q == Quote::Normal
                {
                    return ask(format!("`{}` inside the word `{raw}`", b as char));
                }
            }
        }
    }
    Step::Passthrough
}

/// Escaped whitespace in a program name (`echo\ test/../../usr/bin/touch`).
pub(super) fn backslash_whitespace(i: &Input<'_>) -> Step {
    for c in &i.script.commands {
        if let Some(w) = c.argv.first() {
            let raw = i.raw(w);
            if raw.contains("\\ ") || raw.contains("\\\t") {
                return ask(format!("escaped whitespace in the program name `{raw}`"));
            }
        }
    }
    Step::Passthrough
}

/// Escaped operators (`\;`, `\|`, `\&`, `\>`, `\<`) other than `find`'s `\;` and `\+` terminators.
pub(super) fn backslash_operators(i: &Input<'_>) -> Step {
    let bytes = i.text.as_bytes();
    for (at, b) in bytes.iter().enumerate() {
        if *b != b'\\' || i.views.at(at) != Quote::Escaped {
            continue;
        }
        let Some(next) = bytes.get(at + 1) else {
            continue;
        };
        if !matches!(next, b';' | b'|' | b'&' | b'<' | b'>') {
            continue;
        }
        let standalone = (at == 0 || bytes.get(at - 1).is_some_and(u8::is_ascii_whitespace))
            && bytes.get(at + 2).is_none_or(|c| c.is_ascii_whitespace());
        let terminator = *next == b';'
            && standalone
            && i.script.commands.iter().any(|c| {
                c.argv
                    .iter()
                    .any(|w| w.span.start == at && w.value().as_deref() == Some(";"))
                    && c.argv
                        .first()
                        .and_then(crate::strip::program_name)
                        .is_some_and(|p| matches!(p.as_str(), "find" | "fd" | "fdfind"))
            });
        if !terminator {
            return ask(format!(
                "escaped operator `\\{}` at byte {at}",
                *next as char
            ));
        }
    }
    Step::Passthrough
}

/// A quoted newline followed by a `#` line inside the quotes (desynchronises line-based readers).
pub(super) fn quoted_newline(i: &Input<'_>) -> Step {
    let bytes = i.text.as_bytes();
    for (at, b) in bytes.iter().enumerate() {
        if *b != b'\n' || !matches!(i.views.at(at), Quote::Single | Quote::Double) {
            continue;
        }
        let rest = i.text.get(at + 1..).unwrap_or("");
        let line = rest.split('\n').next().unwrap_or("");
        if line.trim_start().starts_with('#') {
            return ask("a quoted string contains a line starting with `#`");
        }
    }
    Step::Passthrough
}

/// Heredoc bodies that end in a different place for bash than for the parser
/// (a terminator with leading spaces, a fake terminator, a body cut short).
pub(super) fn heredoc_desync(i: &Input<'_>) -> Step {
    let mut parsed: Vec<(usize, usize)> = i
        .script
        .commands
        .iter()
        .flat_map(|c| c.redirects.iter())
        .filter_map(|r| r.heredoc.as_ref())
        .map(|h| {
            (
                back_over_tabs(i.text, h.body_span.start),
                back_over_tabs(i.text, h.body_span.end),
            )
        })
        .collect();
    parsed.sort_unstable();
    parsed.dedup();
    let mut scanned = i.views.heredocs.clone();
    scanned.sort_unstable();
    if parsed != scanned {
        return ask("a heredoc ends in a different place for bash than for the parser");
    }
    Step::Passthrough
}

/// `<<-` strips leading tabs: the parser's spans start after them, bash's lines before.
fn back_over_tabs(text: &str, mut at: usize) -> usize {
    while at > 0 && text.as_bytes().get(at - 1) == Some(&b'\t') {
        at -= 1;
    }
    at
}
