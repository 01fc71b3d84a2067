//! The landlock sandbox, applied from a spawner thread.
//!
//! Landlock restricts the calling *thread*, and children inherit its domain.
//! So a spawner thread (one per distinct sandbox, kept for the life of the
//! process) builds the ruleset, restricts itself once (with `no_new_privs`),
//! and spawns every command for that sandbox; the rest of the process stays
//! unrestricted. No `pre_exec` hook is needed — the spawn keeps the fast
//! `posix_spawn` path — and no `unsafe` code either.
//!
//! Rules come from the policy's `[sandbox]` table: read-only roots (with
//! execute), read-write roots, and whether TCP bind/connect is allowed
//! (ABI ≥ 4). Abstract unix sockets and signals are scoped (ABI ≥ 6). What the
//! kernel enforced is reported in [`Enforcement`].
//!
//! # Security
//! Landlock does not cover UDP, nor files already open, nor resources reached
//! through another process (a daemon over a unix socket path in a writable root).

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};
use serde::Serialize;

use super::ExecError;

/// What the sandbox allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SandboxSpec {
    /// Readable (and executable) roots.
    pub read_only: Vec<PathBuf>,
    /// Readable and writable roots.
    pub read_write: Vec<PathBuf>,
    /// TCP bind/connect allowed.
    pub network: bool,
}

/// What the kernel actually enforced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Enforcement {
    /// `full`, `partial`, `none` or `disabled` (`--no-sandbox`).
    pub status: String,
    /// The landlock ABI in use (0 when unavailable).
    pub abi: u8,
    /// File-system access restricted.
    pub filesystem: bool,
    /// TCP bind/connect restricted.
    pub network: bool,
    /// Abstract unix sockets and signals scoped.
    pub scoped: bool,
    /// `no_new_privs` set.
    pub no_new_privs: bool,
}

impl Enforcement {
    /// The record for a run without a sandbox.
    pub fn disabled() -> Enforcement {
        Enforcement {
            status: "disabled".into(),
            abi: 0,
            filesystem: false,
            network: false,
            scoped: false,
            no_new_privs: false,
        }
    }
}

/// How strict to be about enforcement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requirement {
    /// Refuse unless every restriction is enforced.
    Full,
    /// Refuse only when landlock is unavailable.
    Some,
    /// Run without a sandbox.
    Off,
}

impl SandboxSpec {
    /// The default roots for a workspace: the workspace and the temp dir
    /// writable; system directories and tool homes readable; the home
    /// directory itself (and so `~/.ssh`, `~/.aws`, `~/.gnupg`) not at all.
    pub fn for_workspace(workspace: &Path, policy: Option<&crate::policy::Sandbox>) -> SandboxSpec {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let tmp = std::env::temp_dir();
        let expand = |p: &str| -> Option<PathBuf> {
            let p = p
                .replace("{workspace}", &workspace.display().to_string())
                .replace("{tmp}", &tmp.display().to_string());
            match p.strip_prefix("~/") {
                Some(rest) => home.as_ref().map(|h| h.join(rest)),
                None => Some(PathBuf::from(p)),
            }
        };
        let (ro, rw, network) = match policy {
            Some(s) if !s.read_only.is_empty() || !s.read_write.is_empty() => {
                (s.read_only.clone(), s.read_write.clone(), s.network)
            }
            other => (
                DEFAULT_READ_ONLY.iter().map(|s| (*s).to_owned()).collect(),
                DEFAULT_READ_WRITE.iter().map(|s| (*s).to_owned()).collect(),
                other.is_some_and(|s| s.network),
            ),
        };
        SandboxSpec {
            read_only: ro
                .iter()
                .filter_map(|p| expand(p))
                .filter(|p| p.exists())
                .collect(),
            read_write: rw
                .iter()
                .filter_map(|p| expand(p))
                .filter(|p| p.exists())
                .collect(),
            network,
        }
    }
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

/// Writable by default: the workspace, the temp dir, build caches and the terminal devices.
pub const DEFAULT_READ_WRITE: &[&str] = &[
    "{workspace}",
    "{tmp}",
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/pts",
    "/dev/ptmx",
    "/dev/shm",
    "/dev/fd",
    "~/.cargo",
    "~/.cache",
    "~/.npm",
];

/// The highest landlock ABI the running kernel offers (probed once, in a throwaway thread).
pub fn kernel_abi() -> ABI {
    static ABI_CELL: std::sync::OnceLock<ABI> = std::sync::OnceLock::new();
    *ABI_CELL.get_or_init(|| {
        std::thread::spawn(|| {
            let status = Ruleset::default()
                .set_compatibility(CompatLevel::BestEffort)
                .handle_access(AccessFs::Execute)
                .and_then(|r| r.create())
                .and_then(|r| r.restrict_self());
            match status.map(|s| s.landlock) {
                Ok(LandlockStatus::Available { effective_abi, .. }) => effective_abi,
                _ => ABI::Unsupported,
            }
        })
        .join()
        .unwrap_or(ABI::Unsupported)
    })
}

/// Runs `spawn` in a new thread restricted by `spec`; returns its result and what was enforced.
///
/// # Errors
/// [`ExecError::Sandbox`] when the ruleset cannot be built or applied, or when
/// `requirement` is not met (nothing is spawned then).
pub fn run_restricted<T: Send + 'static>(
    spec: &SandboxSpec,
    requirement: Requirement,
    spawn: impl FnOnce() -> T + Send + 'static,
) -> Result<(T, Enforcement), ExecError> {
    if requirement == Requirement::Off {
        return Ok((spawn(), Enforcement::disabled()));
    }
    let abi = kernel_abi();
    if abi == ABI::Unsupported {
        return Err(ExecError::Sandbox(
            "landlock is not available on this kernel (use --no-sandbox to run anyway)".into(),
        ));
    }
    let (enforcement, jobs) = spawner(spec, abi)?;
    if requirement == Requirement::Full && enforcement.status != "full" {
        return Err(ExecError::Sandbox(format!(
            "the sandbox is only partially enforced (ABI {}); --require-sandbox refuses",
            enforcement.abi
        )));
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let job: Job = Box::new(move || {
        let _ = tx.send(spawn());
    });
    jobs.send(job)
        .map_err(|_| ExecError::Sandbox("the sandbox thread is gone".into()))?;
    let value = rx
        .recv()
        .map_err(|_| ExecError::Sandbox("the sandbox thread dropped a spawn".into()))?;
    Ok((value, enforcement))
}

type Job = Box<dyn FnOnce() + Send>;

/// One long-lived spawner thread per sandbox: it restricts itself once, then
/// runs spawn jobs, so every child after the first costs a plain spawn.
fn spawner(
    spec: &SandboxSpec,
    abi: ABI,
) -> Result<(Enforcement, std::sync::mpsc::Sender<Job>), ExecError> {
    type Entry = (Enforcement, std::sync::mpsc::Sender<Job>);
    static SPAWNERS: std::sync::Mutex<Vec<(SandboxSpec, Entry)>> =
        std::sync::Mutex::new(Vec::new());
    let mut cache = SPAWNERS
        .lock()
        .map_err(|_| ExecError::Sandbox("sandbox cache poisoned".into()))?;
    if let Some((_, entry)) = cache.iter().find(|(s, _)| s == spec) {
        return Ok(entry.clone());
    }
    let (jobs_tx, jobs_rx) = std::sync::mpsc::channel::<Job>();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let owned = spec.clone();
    std::thread::Builder::new()
        .name("shellgate-sandbox".into())
        .spawn(move || {
            let status = restrict_this_thread(&owned, abi);
            let ok = status.as_ref().is_ok_and(|e| e.status != "none");
            let _ = ready_tx.send(status);
            if ok {
                for job in jobs_rx {
                    job();
                }
            }
        })
        .map_err(|e| ExecError::Sandbox(format!("cannot start the sandbox thread: {e}")))?;
    let enforcement = ready_rx
        .recv()
        .map_err(|_| ExecError::Sandbox("the sandbox thread died".into()))??;
    if enforcement.status == "none" {
        return Err(ExecError::Sandbox(
            "the kernel enforced none of the sandbox".into(),
        ));
    }
    cache.push((spec.clone(), (enforcement.clone(), jobs_tx.clone())));
    Ok((enforcement, jobs_tx))
}

fn restrict_this_thread(spec: &SandboxSpec, abi: ABI) -> Result<Enforcement, ExecError> {
    let err = |e: landlock::RulesetError| ExecError::Sandbox(e.to_string());
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(err)?;
    let net = !spec.network && abi >= ABI::V4;
    if net {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(err)?;
    }
    let scoped = abi >= ABI::V6;
    if scoped {
        ruleset = ruleset.scope(Scope::from_all(abi)).map_err(err)?;
    }
    let created = ruleset
        .create()
        .map_err(err)?
        .add_rules(path_beneath_rules(
            &spec.read_only,
            AccessFs::from_read(abi),
        ))
        .map_err(err)?
        .add_rules(path_beneath_rules(
            &spec.read_write,
            AccessFs::from_all(abi),
        ))
        .map_err(err)?;
    let status = created.restrict_self().map_err(err)?;
    let state = match status.ruleset {
        RulesetStatus::FullyEnforced => "full",
        RulesetStatus::PartiallyEnforced => "partial",
        RulesetStatus::NotEnforced => "none",
    };
    Ok(Enforcement {
        status: state.into(),
        abi: abi as u8,
        filesystem: state != "none",
        network: net && state != "none",
        scoped: scoped && state != "none",
        no_new_privs: status.no_new_privs,
    })
}
