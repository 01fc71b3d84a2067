//! Layers: built-in default < system < user < project < `--policy` files.
//!
//! A project file (`.shellgate.toml`, found from the workspace up to the
//! repository root) comes with a repository that may be hostile: it can add
//! ask and deny rules, but its allow rules and anything else that loosens are
//! ignored (and reported) unless the user policy lists the project in
//! `trusted_projects`.

use std::path::{Path, PathBuf};

use super::{Decision, Policy, PolicyError, load_file};

/// Where the layers come from.
#[derive(Debug, Clone)]
pub struct LayerOptions {
    /// Start from the embedded default.
    pub embedded: bool,
    /// The workspace (for the project layer).
    pub workspace: PathBuf,
    /// `--policy` files.
    pub extra: Vec<PathBuf>,
    /// The system policy path (default `/etc/shellgate/policy.toml`).
    pub system: Option<PathBuf>,
    /// The user policy path.
    pub user: Option<PathBuf>,
}

/// A merged policy and what was done while merging.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The effective policy.
    pub policy: Policy,
    /// The layers that were loaded, in order: (name, path).
    pub layers: Vec<(String, String)>,
    /// Notes for the user (ignored project rules …).
    pub notes: Vec<String>,
}

/// `$XDG_CONFIG_HOME/shellgate/policy.toml` (or `~/.config/…`).
pub fn user_policy_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("shellgate").join("policy.toml"))
}

/// The project policy file: `.shellgate.toml` from `workspace` up to the repository root.
pub fn find_project_policy(workspace: &Path) -> Option<PathBuf> {
    let start = workspace.canonicalize().ok()?;
    let in_repo = start.ancestors().any(|d| d.join(".git").exists());
    for dir in start.ancestors() {
        let candidate = dir.join(".shellgate.toml");
        // A symlink is found too (and then refused by the loader, which never
        // follows one for a project file): a sandboxed command could point it
        // at any file shellgate can read and have its contents echoed back.
        if candidate.symlink_metadata().is_ok() {
            return Some(candidate);
        }
        if !in_repo || dir.join(".git").exists() {
            break;
        }
    }
    None
}

/// Loads and merges every layer.
///
/// # Errors
/// The first layer that fails to load; nothing is half-loaded.
pub fn load(opts: &LayerOptions) -> Result<Loaded, PolicyError> {
    let mut parts: Vec<(Policy, bool)> = Vec::new();
    let mut layers = Vec::new();
    let mut notes = Vec::new();
    // `--policy` files are read first: one that says `extends = "none"` replaces the embedded default.
    let mut extra = Vec::new();
    for path in &opts.extra {
        extra.push((path, load_file(path, &path.display().to_string())?));
    }
    let standalone = extra
        .iter()
        .any(|(_, p)| p.extends == Some(super::Extends::None));
    if opts.embedded && !standalone {
        parts.push((Policy::embedded()?, true));
        layers.push((
            "default".to_owned(),
            "(embedded) policies/default.toml".to_owned(),
        ));
    }
    let system = opts
        .system
        .clone()
        .unwrap_or_else(|| PathBuf::from("/etc/shellgate/policy.toml"));
    if system.is_file() {
        let p = load_file(&system, "system")?;
        let sets = p.default_set;
        parts.push((p, sets));
        layers.push(("system".to_owned(), system.display().to_string()));
    }
    let mut trusted: Vec<PathBuf> = Vec::new();
    if let Some(user) = opts.user.as_ref().filter(|u| u.is_file()) {
        let p = load_file(user, "user")?;
        trusted = p.trusted_projects.iter().map(PathBuf::from).collect();
        let sets = p.default_set;
        parts.push((p, sets));
        layers.push(("user".to_owned(), user.display().to_string()));
    }
    if let Some(project) = find_project_policy(&opts.workspace) {
        let mut p = load_file(&project, "project")?;
        let root = project.parent().map(Path::to_path_buf).unwrap_or_default();
        let is_trusted = trusted
            .iter()
            .any(|t| t.canonicalize().ok().as_deref() == Some(root.as_path()) || t == &root);
        if !is_trusted {
            let dropped: Vec<String> = p
                .rules
                .iter()
                .filter(|r| r.decision == Decision::Allow)
                .map(|r| r.id.clone())
                .collect();
            if !dropped.is_empty() {
                notes.push(format!(
                    "ignored allow rules of the untrusted project policy {}: {} (list the project in `trusted_projects` of your user policy to honour them)",
                    project.display(),
                    dropped.join(", ")
                ));
            }
            p.rules.retain(|r| r.decision != Decision::Allow);
            p.safe_env.clear();
            p.sandbox = None;
            p.trusted_projects.clear();
            if p.redirect_default.is_some_and(|d| d < Decision::Ask) {
                p.redirect_default = None;
            }
        }
        // A project may make the default stricter, never looser (unless trusted).
        let current = parts
            .iter()
            .rev()
            .find(|(_, s)| *s)
            .map_or(Decision::Ask, |(q, _)| q.default);
        let sets = p.default_set && (is_trusted || p.default >= current);
        parts.push((p, sets));
        layers.push((
            if is_trusted {
                "project (trusted)"
            } else {
                "project"
            }
            .to_owned(),
            project.display().to_string(),
        ));
    }
    for (path, p) in extra {
        let sets = p.default_set;
        parts.push((p, sets));
        layers.push(("--policy".to_owned(), path.display().to_string()));
    }
    Ok(Loaded {
        policy: Policy::merge(parts),
        layers,
        notes,
    })
}
