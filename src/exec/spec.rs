//! The resolved sandbox specification: what the executor enforces, computed
//! once from the policy's `[sandbox]` table (`{workspace}`, `{tmp}` and `~`
//! expanded here and nowhere else).
//!
//! In: the workspace and the policy's raw `[sandbox]` table. Out: a
//! [`SandboxSpec`] holding absolute roots, the paths inside writable roots that
//! stay read-only (code that runs later: `.git/hooks`, `.git/config`, shell
//! start-up files, tool configuration), the credential files that are hidden,
//! the network and unix-socket switches and the extra environment names.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What the sandbox allows, resolved to absolute paths.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxSpec {
    /// Readable (and executable) roots.
    pub read_only: Vec<PathBuf>,
    /// Readable and writable roots.
    pub read_write: Vec<PathBuf>,
    /// Network of any kind allowed (off: no sockets but unix ones, an empty network namespace).
    pub network: bool,
    /// Connecting to named unix sockets allowed (off by default).
    pub unix_sockets: bool,
    /// Existing paths inside writable roots that stay read-only.
    pub protected: Vec<PathBuf>,
    /// Existing credential files and shellgate's own state: hidden (read as empty, not writable).
    pub hidden: Vec<PathBuf>,
    /// Environment names passed through besides the built-in allowlist.
    pub env: Vec<String>,
}

/// System directories and tool homes readable by default.
pub const DEFAULT_READ_ONLY: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/proc",
    "/sys",
    "/run",
    "/snap",
    "/nix",
    "/var/lib",
    "~/.rustup",
    "~/.gitconfig",
    "~/.config/git",
    "~/.local/bin",
    "~/.nvm",
    "~/.pyenv",
];

/// Writable by default: the workspace, the temp dir, build caches and the
/// terminal devices (`/dev/pts` is a private instance when the kernel allows a
/// mount namespace; without one the host's terminals are not granted).
pub const DEFAULT_READ_WRITE: &[&str] = &[
    "{workspace}",
    "{tmp}",
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/shm",
    "/dev/fd",
    "~/.cargo",
    "~/.npm",
    "~/.cache/pip",
    "~/.cache/uv",
    "~/.cache/pypoetry",
    "~/.cache/go-build",
    "~/.cache/yarn",
    "~/.cache/node-gyp",
    "~/.cache/sccache",
    "~/.cache/pre-commit",
];

/// Paths that run code later, outside the sandbox: read-only wherever they sit
/// inside a writable root. Relative entries are taken under every writable
/// root (the workspace's repository, project tool configuration); `~/` ones
/// under the home directory.
pub const PROTECTED: &[&str] = &[
    ".git/hooks",
    ".git/config",
    ".git/commondir",
    ".git/info",
    ".gitmodules",
    ".envrc",
    ".vscode",
    ".idea",
    ".cargo/config",
    ".cargo/config.toml",
    ".npmrc",
    ".shellgate.toml",
    "~/.bashrc",
    "~/.bash_profile",
    "~/.bash_login",
    "~/.bash_logout",
    "~/.profile",
    "~/.zshrc",
    "~/.zshenv",
    "~/.zprofile",
    "~/.zlogin",
    "~/.config/fish",
    "~/.cargo/bin",
    "~/.cargo/env",
    "~/.cargo/registry/src",
    "~/.cargo/git/checkouts",
    "~/.cargo/config",
    "~/.cargo/config.toml",
    "~/.npmrc",
    "~/.gitconfig",
    "~/.config/git",
    "~/.config/shellgate",
];

/// Credential files: neither readable nor writable, wherever they are granted.
pub const HIDDEN: &[&str] = &[
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "~/.npm/_authToken",
    "~/.cache/huggingface/token",
    "~/.cache/huggingface/stored_tokens",
    "~/.cache/gh",
    "~/.cache/pip/.credentials",
    "~/.ssh",
    "~/.aws",
    "~/.gnupg",
    "~/.azure",
    "~/.kube",
    "~/.config/gcloud",
    "~/.config/gh",
    "~/.docker/config.json",
    "~/.netrc",
    "~/.git-credentials",
    "~/.pypirc",
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/ssl/private",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/root",
];

/// Environment names every run keeps (when the caller has them).
pub const ENV_ALLOWED: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR",
];

impl SandboxSpec {
    /// The spec for a workspace under the policy's `[sandbox]` table (the
    /// defaults when the table names no roots).
    pub fn for_workspace(workspace: &Path, policy: Option<&crate::policy::Sandbox>) -> SandboxSpec {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let tmp = std::env::temp_dir();
        let expand = |p: &str| expand(p, workspace, &tmp, home.as_deref());
        let explicit = policy.filter(|s| !s.read_only.is_empty() || !s.read_write.is_empty());
        let (ro, rw): (Vec<String>, Vec<String>) = match explicit {
            Some(s) => (s.read_only.clone(), s.read_write.clone()),
            None => (
                DEFAULT_READ_ONLY.iter().map(|s| (*s).to_owned()).collect(),
                DEFAULT_READ_WRITE.iter().map(|s| (*s).to_owned()).collect(),
            ),
        };
        let existing = |list: &[String]| -> Vec<PathBuf> {
            list.iter()
                .filter_map(|p| expand(p))
                .filter(|p| p.exists())
                .collect()
        };
        let read_only = existing(&ro);
        let read_write = existing(&rw);
        let state = crate::exec::files::state_dir();
        let protected = protected_paths(&read_write, home.as_deref());
        let mut hidden: Vec<PathBuf> = HIDDEN
            .iter()
            .filter_map(|p| expand(p))
            .filter(|p| p.exists() && is_under_any(p, &read_only, &read_write))
            .filter(|p| {
                !read_write
                    .iter()
                    .chain(&read_only)
                    .any(|r| r.starts_with(p))
            })
            .collect();
        if is_under_any(&state, &read_only, &read_write) && state.exists() {
            hidden.push(state);
        }
        SandboxSpec {
            read_only,
            read_write,
            network: policy.is_some_and(|s| s.network),
            unix_sockets: policy.is_some_and(|s| s.unix_sockets),
            protected,
            hidden,
            env: policy.map(|s| s.env.clone()).unwrap_or_default(),
        }
    }
}

/// `{workspace}`, `{tmp}` and a leading `~/` expanded; `None` when `~` is needed and unknown.
fn expand(p: &str, workspace: &Path, tmp: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let p = p
        .replace("{workspace}", &workspace.display().to_string())
        .replace("{tmp}", &tmp.display().to_string());
    match p.strip_prefix("~/") {
        Some(rest) => home.map(|h| h.join(rest)),
        None if p == "~" => home.map(Path::to_path_buf),
        None => Some(PathBuf::from(p)),
    }
}

fn is_under_any(p: &Path, a: &[PathBuf], b: &[PathBuf]) -> bool {
    a.iter().chain(b).any(|root| p.starts_with(root))
}

/// Existing [`PROTECTED`] paths that fall inside a writable root (a `.git`
/// that is a file — a worktree's pointer — is protected whole).
fn protected_paths(read_write: &[PathBuf], home: Option<&Path>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut add = |p: PathBuf| {
        if p.symlink_metadata().is_ok()
            && read_write.iter().any(|r| p.starts_with(r))
            && !out.contains(&p)
        {
            out.push(p);
        }
    };
    for entry in PROTECTED {
        match entry.strip_prefix("~/") {
            Some(rest) => {
                if let Some(h) = home {
                    add(h.join(rest));
                }
            }
            None => {
                for root in read_write.iter().filter(|r| r.is_dir()) {
                    add(root.join(entry));
                }
            }
        }
    }
    for root in read_write {
        let git = root.join(".git");
        if git.is_file() {
            add(git);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_placeholders_once() {
        let ws = Path::new("/w");
        let tmp = Path::new("/t");
        let home = Some(Path::new("/h"));
        assert_eq!(expand("{workspace}/x", ws, tmp, home), Some("/w/x".into()));
        assert_eq!(expand("{tmp}", ws, tmp, home), Some("/t".into()));
        assert_eq!(expand("~/.cargo", ws, tmp, home), Some("/h/.cargo".into()));
        assert_eq!(expand("~/.cargo", ws, tmp, None), None);
    }

    #[test]
    fn git_hooks_inside_the_workspace_are_protected() {
        let ws = std::env::temp_dir().join(format!("sg-spec-{}", std::process::id()));
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap_or_default();
        std::fs::write(ws.join(".git/config"), "").unwrap_or_default();
        let p = protected_paths(std::slice::from_ref(&ws), None);
        assert!(p.contains(&ws.join(".git/hooks")), "{p:?}");
        assert!(p.contains(&ws.join(".git/config")), "{p:?}");
        assert!(
            !p.contains(&ws.join(".envrc")),
            "missing paths are not listed"
        );
        let _ = std::fs::remove_dir_all(&ws);
    }
}
