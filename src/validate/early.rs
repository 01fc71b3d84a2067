//! Early allows: shapes known to be safe whose text trips later validators.

use super::{Input, Step};
use crate::parse::{Context, RedirectKind};

/// `git commit -m '…'` with only static words: the message may contain anything.
pub(super) fn git_commit(i: &Input<'_>) -> Step {
    let [c] = i.script.commands.as_slice() else {
        return Step::Passthrough;
    };
    if !i.script.is_complete() || !c.assignments.is_empty() || !c.redirects.is_empty() {
        return Step::Passthrough;
    }
    let values: Option<Vec<String>> = c.argv.iter().map(crate::parse::Word::value).collect();
    let Some(values) = values else {
        return Step::Passthrough;
    };
    let is_commit = values.first().map(String::as_str) == Some("git")
        && values.get(1).map(String::as_str) == Some("commit");
    let has_message = values.iter().any(|v| {
        v == "-m"
            || v == "--message"
            || v.starts_with("--message=")
            || (v.starts_with("-m") && !v.starts_with("--"))
    });
    if is_commit && has_message {
        return Step::Allow("`git commit` with a literal message".into());
    }
    Step::Passthrough
}

/// `cmd "$(cat <<'EOF' … EOF)"`: a quoted-delimiter heredoc read by `cat`, in argument position only.
pub(super) fn safe_heredoc(i: &Input<'_>) -> Step {
    let [outer, inner] = i.script.commands.as_slice() else {
        return Step::Passthrough;
    };
    if !i.script.is_complete()
        || outer.parent.is_some()
        || outer.depth != 0
        || !outer.redirects.is_empty()
    {
        return Step::Passthrough;
    }
    let cat_only = inner.argv.len() == 1
        && inner
            .argv
            .first()
            .and_then(crate::parse::Word::value)
            .as_deref()
            == Some("cat")
        && inner.parent == Some(0)
        && inner.context == Context::SUBSTITUTION
        && inner.assignments.is_empty();
    let heredoc_ok = match inner.redirects.as_slice() {
        [r] => {
            r.kind == RedirectKind::Heredoc
                && r.heredoc.as_ref().is_some_and(|h| h.quoted && !h.dynamic)
        }
        _ => false,
    };
    let outer_static =
        outer.argv.iter().all(crate::parse::Word::is_static) && outer.assignments.is_empty();
    let substitution_arg = outer.argv.iter().skip(1).any(|w| {
        let raw = i.raw(w);
        raw.starts_with("\"$(cat <<") && raw.ends_with(")\"")
    });
    if cat_only && heredoc_ok && outer_static && substitution_arg {
        return Step::Allow("a quoted heredoc read by `cat` as an argument".into());
    }
    Step::Passthrough
}
