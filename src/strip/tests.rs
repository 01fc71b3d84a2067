//! Strip table: each row is a command and the argv of every invocation.

use super::*;

fn invocations(text: &str) -> Vec<(Vec<String>, Option<String>)> {
    let plan = strip(&parse::parse(text), &StripOptions::default());
    plan.invocations
        .iter()
        .map(|i| (i.argv.iter().map(Word::pattern).collect(), i.via.clone()))
        .collect()
}

macro_rules! strips {
    ($($name:ident: $text:expr => [$(($via:expr; $($w:expr),*)),*];)*) => {$(
        #[test]
        fn $name() {
            let expected: Vec<(Vec<String>, Option<String>)> =
                vec![$((vec![$($w.to_string()),*], $via.map(|v: &str| v.to_string()))),*];
            pretty_assertions::assert_eq!(invocations($text), expected, "input {:?}", $text);
        }
    )*};
}

const N: Option<&str> = None;

strips! {
    timeout_plain: "timeout 5 ls -la" => [(N; "ls", "-la")];
    timeout_kill_signal: "timeout -s KILL -k 5 10 rm -rf /" => [(N; "rm", "-rf", "/")];
    timeout_long_flags: "timeout --signal=TERM --preserve-status 30s make" => [(N; "make")];
    timeout_dynamic_value: "timeout -k$(id) 10 ls" => [(N; "timeout", "-k$(id)", "10", "ls"), (Some("timeout"); "ls"), (N; "id")];
    nice_nohup_time: "nohup nice -n 5 time ls" => [(N; "ls")];
    stdbuf: "stdbuf -oL -eL grep x" => [(N; "grep", "x")];
    ionice: "ionice -c 3 make" => [(N; "make")];
    command_p: "command -p ls" => [(N; "ls")];
    command_v_kept: "command -v ls" => [(N; "command", "-v", "ls")];
    safe_assignment: "LANG=C RUST_LOG=debug cargo test" => [(N; "cargo", "test")];
    env_safe: "env LANG=C ls" => [(N; "ls")];
    env_unsafe_kept: "env PATH=/x ls" => [(N; "env", "PATH=/x", "ls"), (Some("env"); "ls")];
    assignment_after_wrapper_is_program: "timeout 5 FOO=bar" => [(N; "FOO=bar")];
    sudo_inner: "sudo -u root rm -rf /" => [(N; "sudo", "-u", "root", "rm", "-rf", "/"), (Some("sudo"); "rm", "-rf", "/")];
    xargs_inner: "xargs -n1 -I{} rm {}" => [(N; "xargs", "-n1", "-I{}", "rm", "{}"), (Some("xargs"); "rm", "{}")];
    xargs_appends_stdin: "xargs grep -l x" => [(N; "xargs", "grep", "-l", "x"), (Some("xargs"); "grep", "-l", "x", "{stdin arguments}")];
    xargs_default_echo: "xargs" => [(N; "xargs"), (Some("xargs"); "echo")];
    find_exec: "find . -exec grep -l x {} + -execdir rm {} \\;" => [(N; "find", ".", "-exec", "grep", "-l", "x", "{}", "+", "-execdir", "rm", "{}", ";"), (Some("find -exec"); "grep", "-l", "x", "{}"), (Some("find -exec"); "rm", "{}")];
    bash_c: "bash -c 'ls; id'" => [(N; "bash", "-c", "ls; id"), (N; "ls"), (N; "id")];
    sh_lc: "sh -lc 'pwd'" => [(N; "sh", "-lc", "pwd"), (N; "pwd")];
    eval_joined: "eval echo hi" => [(N; "eval", "echo", "hi"), (N; "echo", "hi")];
    env_split_string: "env -S 'ls -la'" => [(N; "env", "-S", "ls -la"), (N; "ls", "-la")];
    watch_code: "watch -n 1 'date; ls'" => [(N; "watch", "-n", "1", "date; ls"), (N; "date"), (N; "ls")];
    nested_wrappers: "timeout 5 xargs nice sudo id" => [(N; "xargs", "nice", "sudo", "id"), (Some("xargs"); "sudo", "id", "{stdin arguments}"), (Some("sudo"); "id", "{stdin arguments}")];
    trap_code: "trap 'rm -f x' EXIT" => [(N; "trap", "rm -f x", "EXIT"), (N; "rm", "-f", "x")];
    heredoc_to_shell: "bash <<'EOF'\nls\nEOF" => [(N; "bash"), (N; "ls")];
    echo_piped_to_shell: "echo id | sh" => [(N; "echo", "id"), (N; "sh"), (N; "id")];
}

#[test]
fn program_names() {
    let name = |s: &str| program_name(&Word::literal(s, Span::default()));
    assert_eq!(name("/usr/bin/git").as_deref(), Some("git"));
    assert_eq!(name("/bin/ls").as_deref(), Some("ls"));
    assert_eq!(name("./cat").as_deref(), Some("./cat"));
    assert_eq!(name("/tmp/git").as_deref(), Some("/tmp/git"));
    assert_eq!(
        name("/usr/bin/../bin/ls").as_deref(),
        Some("/usr/bin/../bin/ls")
    );
    assert_eq!(name(""), None);
}

#[test]
fn stripping_is_idempotent() {
    for text in [
        "timeout 5 nice ls",
        "LANG=C env LC_ALL=C time ls -l",
        "nohup stdbuf -oL make",
    ] {
        let once = invocations(text);
        let rendered = once
            .first()
            .map(|(a, _)| shell_words::join(a))
            .unwrap_or_default();
        assert_eq!(invocations(&rendered), once, "{text}");
    }
}

#[test]
fn dynamic_shell_code_is_an_issue() {
    let plan = strip(&parse::parse("bash -c \"$x\""), &StripOptions::default());
    assert!(
        plan.issues
            .iter()
            .any(|i| matches!(i, Issue::Unmodelled { .. }))
    );
}
