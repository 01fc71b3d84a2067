//! Parse table: each row is one input and the argv values bash would see.

use super::*;

/// The static argv of every command (dynamic words as their source text).
fn argvs(text: &str) -> Vec<Vec<String>> {
    parse(text)
        .commands
        .iter()
        .map(|c| c.argv.iter().map(Word::pattern).collect())
        .collect()
}

macro_rules! parses {
    ($($name:ident: $text:expr => [$([$($w:expr),*]),*];)*) => {$(
        #[test]
        fn $name() {
            let expected: Vec<Vec<String>> = vec![$(vec![$($w.to_string()),*]),*];
            pretty_assertions::assert_eq!(argvs($text), expected, "input {:?}", $text);
            assert!(parse($text).is_complete(), "issues for {:?}: {:?}", $text, parse($text).issues);
        }
    )*};
}

parses! {
    quote_removal_single: "r''m -rf /" => [["rm", "-rf", "/"]];
    quote_removal_double: "\"r\"m x" => [["rm", "x"]];
    backslashes: "\\r\\m x" => [["rm", "x"]];
    ansi_c_hex: "$'\\x72m' x" => [["rm", "x"]];
    ansi_c_newline: "echo $'a\\nb'" => [["echo", "a\nb"]];
    ansi_c_adjacent: "$'\\162\\$'\\1- ~" => [["r\\$1-", "~"]];
    line_continuation_word: "r\\\nm -rf /" => [["rm", "-rf", "/"]];
    line_continuation_between: "cargo build \\\n --release" => [["cargo", "build", "--release"]];
    list_and_pipeline: "a && b | c; d" => [["a"], ["b"], ["c"], ["d"]];
    substitution_nested: "echo $(ls $(pwd))" => [["echo", "$(ls $(pwd))"], ["ls", "$(pwd)"], ["pwd"]];
    backticks: "echo `id`" => [["echo", "`id`"], ["id"]];
    process_substitution: "diff <(ls a) >(cat)" => [["diff", "<(ls a)", ">(cat)"], ["ls", "a"], ["cat"]];
    brace_expansion: "echo {a,b}c" => [["echo", "ac", "bc"]];
    brace_sequence: "echo {1..3}" => [["echo", "1", "2", "3"]];
    glob_kept: "ls *.rs" => [["ls", "*.rs"]];
    tilde_kept: "ls ~/x" => [["ls", "~/x"]];
    escaped_semicolon: "find . -exec ls {} \\;" => [["find", ".", "-exec", "ls", "{}", ";"]];
    if_statement: "if a; then b; elif c; then d; else e; fi" => [["a"], ["b"], ["c"], ["d"], ["e"]];
    while_loop: "while a; do b; done" => [["a"], ["b"]];
    for_loop: "for i in $(ls); do echo $i; done" => [["ls"], ["echo", "$i"]];
    case_items: "case $x in a) b;; *) c;; esac" => [["b"], ["c"]];
    function_body: "f() { g; }; f" => [["g"], ["f"]];
    declaration: "export A=1 B" => [["export", "A=1", "B"]];
    test_command: "[[ -f $(pwd) ]]" => [["[[", "]]"], ["pwd"]];
    heredoc_cat_static: "git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"" => [["git", "commit", "-m", "msg"], ["cat"]];
    expansion_nested_subst: "echo ${x:-$(id)}" => [["echo", "${x:-$(id)}"], ["id"]];
    arithmetic_subscript: "echo $((a[$(id)]))" => [["echo", "$((a[$(id)]))"], ["id"]];
    assignment_only: "x=1" => [[]];
    redirect_only: "> f" => [[]];
}

#[test]
fn brace_command_is_modelled_despite_the_syntax_error() {
    assert_eq!(
        argvs("{rm,-rf,/}"),
        vec![vec!["rm".to_owned(), "-rf".to_owned(), "/".to_owned()]]
    );
    assert!(!parse("{rm,-rf,/}").is_complete());
}

#[test]
fn contexts_and_relations() {
    let s = parse("curl x | bash; (ls) & echo $(id)");
    let c = &s.commands;
    assert!(c[0].context.contains(Context::PIPELINE) && c[1].context.contains(Context::PIPELINE));
    assert_eq!(c[0].pipeline.map(|p| p.0), c[1].pipeline.map(|p| p.0));
    assert!(c[2].context.contains(Context::SUBSHELL) && c[2].context.contains(Context::BACKGROUND));
    assert_eq!(c[4].parent, Some(3));
    assert!(c[4].context.contains(Context::SUBSTITUTION));
}

#[test]
fn redirections() {
    let s = parse("ls 2>&1 >/dev/null < in >> out 2>&-");
    let kinds: Vec<RedirectKind> = s.commands[0].redirects.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [
            RedirectKind::Duplicate,
            RedirectKind::Write,
            RedirectKind::Read,
            RedirectKind::Write,
            RedirectKind::Duplicate
        ]
    );
    let h = parse("cat <<'EOF'\n$(x)\nEOF");
    let doc = h.commands[0].redirects[0]
        .heredoc
        .as_ref()
        .expect("heredoc");
    assert!(doc.quoted && !doc.dynamic);
    assert_eq!(
        h.commands.len(),
        1,
        "a quoted heredoc's substitution does not run"
    );
    let u = parse("cat <<EOF\n$(x)\nEOF");
    assert!(
        u.commands[0].redirects[0]
            .heredoc
            .as_ref()
            .is_some_and(|d| d.dynamic)
    );
    assert_eq!(u.commands.len(), 2);
}

macro_rules! incomplete {
    ($($name:ident: $text:expr => $pat:pat,)*) => {$(
        #[test]
        fn $name() {
            let s = parse(&$text);
            assert!(s.issues.iter().any(|i| matches!(i, $pat)), "issues for {:?}: {:?}", $text, s.issues);
        }
    )*};
}

incomplete! {
    syntax_error: "if true; then echo a" => Issue::SyntaxError { .. } | Issue::Missing { .. },
    missing_paren: "echo $(ls" => Issue::SyntaxError { .. } | Issue::Missing { .. },
    too_long: "a".repeat(MAX_INPUT + 1) => Issue::TooLong { .. },
    too_deep: format!("echo {}ls{}", "$(".repeat(40), ")".repeat(40)) => Issue::TooDeep { .. },
    too_many: vec!["ls"; 60].join(";") => Issue::TooManyCommands { .. },
    nul_byte: "echo a\0b" => Issue::InvalidText { .. },
    brace_overflow: format!("echo {}", "{a,b}".repeat(12)) => Issue::Unmodelled { .. },
}

#[test]
fn pathological_inputs_do_not_overflow_the_stack() {
    for text in [
        "$(".repeat(10_000),
        "(".repeat(30_000),
        "{ ".repeat(20_000),
        "a && ".repeat(13_000),
        "`".repeat(60_000),
        "\"$(".repeat(15_000),
    ] {
        let s = parse(&text);
        assert!(!s.is_complete() || s.commands.len() <= HARD_COMMAND_CAP);
    }
}
