//! What a non-zero exit status means for well-known programs.

/// The meaning of `code` for `program`, when it is not plain failure.
pub fn exit_meaning(program: Option<&str>, code: i32) -> Option<String> {
    let generic = match code {
        0 => return None,
        124 if program == Some("timeout") => Some("timed out"),
        126 => Some("found but not executable"),
        127 => Some("command not found"),
        130 => Some("interrupted (SIGINT)"),
        137 => Some("killed (SIGKILL)"),
        143 => Some("terminated (SIGTERM)"),
        _ => None,
    };
    if let Some(g) = generic {
        return Some(g.to_owned());
    }
    let m = match (program?, code) {
        ("grep" | "egrep" | "fgrep" | "rg" | "zgrep" | "ag", 1) => "no match (not an error)",
        ("grep" | "egrep" | "fgrep" | "rg" | "zgrep", 2) => {
            "error (unreadable file or bad pattern)"
        }
        ("diff" | "cmp", 1) => "the files differ (not an error)",
        ("diff" | "cmp", 2) => "trouble (missing file)",
        ("git", 1) => "git reported a difference or a non-fatal failure (e.g. `diff --exit-code`)",
        ("test" | "[" | "[[", 1) => "the condition is false (not an error)",
        ("false", 1) => "false (by design)",
        ("find", 1) => "some files could not be visited",
        ("cargo", 101) => "build or test failure",
        ("make", 2) => "a target failed",
        ("curl", 6) => "could not resolve host",
        ("curl", 7) => "could not connect",
        ("curl", 22) => "HTTP error status",
        ("ls", 2) => "a file operand does not exist",
        (_, c) if c > 128 && c < 160 => return Some(format!("killed by signal {}", c - 128)),
        _ => return None,
    };
    Some(m.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meanings() {
        assert_eq!(
            exit_meaning(Some("grep"), 1).as_deref(),
            Some("no match (not an error)")
        );
        assert_eq!(
            exit_meaning(Some("diff"), 1).as_deref(),
            Some("the files differ (not an error)")
        );
        assert_eq!(
            exit_meaning(Some("test"), 1).as_deref(),
            Some("the condition is false (not an error)")
        );
        assert_eq!(exit_meaning(Some("ls"), 0), None);
        assert_eq!(
            exit_meaning(Some("x"), 127).as_deref(),
            Some("command not found")
        );
    }
}
