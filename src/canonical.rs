//! Canonical rendering: the text the executor runs, rebuilt from the IR.
//!
//! Every word the IR knows exactly (a static word written without
//! substitutions) is re-quoted from its value with shell-words; everything
//! else — operators, keywords, redirections, heredoc bodies, dynamic words —
//! is copied from the source as tree-sitter delimited it. A word bash and the
//! parser might split differently (escapes, `$'…'`, odd quoting) therefore
//! reaches bash in exactly the form that was judged.

use crate::parse::{Script, Span, Word};

/// The canonical form of `text` (`script` is `parse(text)`), or `None` when the
/// IR does not model the whole command.
pub fn render(text: &str, script: &Script) -> Option<String> {
    if !script.is_complete() {
        return None;
    }
    let mut edits: Vec<(Span, String)> = Vec::new();
    for cmd in &script.commands {
        let words = cmd
            .argv
            .iter()
            .chain(cmd.redirects.iter().filter_map(|r| r.target.as_ref()));
        let mut group: Vec<&Word> = Vec::new();
        for w in words {
            // Brace expansion gives several words one span: render them together.
            if group.first().is_some_and(|g| g.span != w.span) {
                push_edit(text, &group, &mut edits);
                group.clear();
            }
            group.push(w);
        }
        push_edit(text, &group, &mut edits);
    }
    edits.sort_by_key(|(s, _)| (s.start, s.end));
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for (span, replacement) in edits {
        if span.start < pos {
            continue; // inside a word already rendered
        }
        out.push_str(text.get(pos..span.start)?);
        out.push_str(&replacement);
        pos = span.end;
    }
    out.push_str(text.get(pos..)?);
    // INVARIANT: a canonical form is only ever one that parses back to the
    // same words; where tree-sitter would read the rendering differently,
    // there is none (and the command runs as it was given and judged).
    // Unchanged text (the usual case) is the parse we were given: nothing to verify.
    if out == text {
        return Some(out);
    }
    let again = crate::parse::parse(&out);
    (again.is_complete() && again.word_signature() == script.word_signature()).then_some(out)
}

fn push_edit(text: &str, group: &[&Word], edits: &mut Vec<(Span, String)>) {
    let Some(first) = group.first() else { return };
    let span = first.span;
    if span.start >= span.end {
        return; // synthetic word (`[[`), not in the source
    }
    let Some(raw) = text.get(span.start..span.end) else {
        return;
    };
    // Only words whose source holds no expansion at all are re-quoted.
    if raw.contains("$(")
        || raw.contains('`')
        || first.from_brace && group.iter().any(|w| !w.is_static())
    {
        return;
    }
    let values: Option<Vec<String>> = group.iter().map(|w| w.value()).collect();
    let Some(values) = values else { return };
    let rendered = values
        .iter()
        .map(|v| quote(v))
        .collect::<Vec<_>>()
        .join(" ");
    if rendered != raw {
        edits.push((span, rendered));
    }
}

/// Quotes a value so that bash reads it back exactly: bare when every
/// character is plainly literal, else single quotes, or `$'…'` when it holds
/// control characters (a raw CR or newline is
/// whitespace to a parser).
pub fn quote(v: &str) -> String {
    // Characters bash gives no meaning to where they stand: `%` after the
    // start (a leading one reads as a job), `~` after the start and not after
    // `=` or `:` (where it would expand), `@` anywhere.
    let mut prev: Option<char> = None;
    let plain = |c: char| {
        let ok = c.is_ascii_alphanumeric()
            || matches!(c, '_' | '+' | '=' | ':' | ',' | '.' | '/' | '-' | '@')
            || (c == '%' && prev.is_some())
            || (c == '~' && prev.is_some_and(|p| p != '=' && p != ':'));
        prev = Some(c);
        ok
    };
    if !v.is_empty() && v.chars().all(plain) {
        return v.to_owned();
    }
    if !v.chars().any(char::is_control) {
        // Everything else in single quotes: `{`, `~`, `#`, `!` … are never special there.
        return format!("'{}'", v.replace('\'', "'\\''"));
    }
    let mut out = String::from("$'");
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", u32::from(c) & 0xff)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(t: &str) -> String {
        render(t, &crate::parse::parse(t)).unwrap()
    }

    #[test]
    fn requotes_static_words() {
        assert_eq!(canon("r''m -rf /tmp/x"), "rm -rf /tmp/x");
        assert_eq!(
            canon("git diff HEAD~3 && date +%s"),
            "git diff HEAD~3 && date +%s"
        );
        assert_eq!(
            canon("echo \\~ a=\\~ a:\\~ \\%1"),
            "echo '~' 'a=~' 'a:~' '%1'"
        );
        assert_eq!(canon("$'\\x72m' a\\ b"), "rm 'a b'");
        assert_eq!(canon("echo {a,b}.rs && ls"), "echo a.rs b.rs && ls");
        assert_eq!(canon("echo \"$(ls x)\" > out"), "echo \"$(ls x)\" > out");
        assert_eq!(canon("[[ -f x ]] && echo 'y'"), "[[ -f x ]] && echo y");
    }

    #[test]
    fn control_characters_use_ansi_c_quoting() {
        assert_eq!(canon("$'\\r'7m x"), "$'\\r7m' x");
        assert_eq!(canon("echo $'a\\nb'"), "echo $'a\\nb'");
        assert_eq!(canon("\"\"{pwd x"), "'{pwd' x");
    }

    #[test]
    fn incomplete_scripts_have_no_canonical_form() {
        assert!(render("echo $(", &crate::parse::parse("echo $(")).is_none());
    }
}
