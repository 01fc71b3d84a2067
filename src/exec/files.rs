//! shellgate's own files: artifacts, job state and their directories.
//!
//! They live in the XDG state directory (`$XDG_STATE_HOME/shellgate`, else
//! `~/.local/state/shellgate`), outside every root the default sandbox grants,
//! and are hidden from the command when a policy grants a root that holds them.
//! Files are created with `O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600, in
//! directories of mode 0700 that must not be symlinks and must belong to us:
//! a command cannot plant a symlink that shellgate then writes through.
//!
//! Finished jobs and artifacts older than [`TTL`] are pruned when a job starts
//! or the jobs are listed.

use std::fs::File;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How long finished jobs and artifacts are kept.
pub const TTL: Duration = Duration::from_secs(7 * 24 * 3600);

/// shellgate's state directory (`$SHELLGATE_STATE_DIR` overrides it, for tests).
pub fn state_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SHELLGATE_STATE_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(d);
    }
    let base = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .unwrap_or_else(|| PathBuf::from("/nonexistent"));
    base.join("shellgate")
}

/// Where spilled output goes.
pub fn artifacts_dir() -> PathBuf {
    state_dir().join("artifacts")
}

/// Creates `dir` (and its parents) and checks the last two levels: real
/// directories, ours, mode 0700.
///
/// # Errors
/// When it cannot be created, or it is a symlink, someone else's, or open to others.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let check = |d: &Path| -> io::Result<()> {
        let m = std::fs::symlink_metadata(d)?;
        if !m.file_type().is_dir() {
            return Err(io::Error::other(format!(
                "`{}` is not a directory (a symlink?)",
                d.display()
            )));
        }
        if m.uid() != nix::unistd::geteuid().as_raw() {
            return Err(io::Error::other(format!(
                "`{}` belongs to another user",
                d.display()
            )));
        }
        if m.mode() & 0o077 != 0 {
            // Our own state directory (made by an older version): tighten it.
            // Anything else open to others is refused, never changed.
            if !d.starts_with(state_dir()) {
                return Err(io::Error::other(format!(
                    "`{}` is open to other users (mode {:o}); shellgate keeps its files only in private directories",
                    d.display(),
                    m.mode() & 0o777
                )));
            }
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700))?;
        }
        Ok(())
    };
    check(dir)?;
    if let Some(parent) = dir.parent().filter(|p| p.ends_with("shellgate")) {
        check(parent)?;
    }
    Ok(())
}

/// Creates a new file, mode 0600, never through a symlink and never over an existing file.
///
/// # Errors
/// When it exists or cannot be created.
pub fn create_private(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Opens an existing file of ours for reading, never through a symlink.
///
/// # Errors
/// When it is missing, a symlink, or unreadable.
pub fn open_private(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Writes a whole new private file.
///
/// # Errors
/// As [`create_private`], or when the write fails.
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    create_private(path)?.write_all(bytes)
}

/// A job id as shellgate makes them (`MILLIS-PID`, digits only): anything else
/// is refused before it comes near a path.
pub fn valid_job_id(id: &str) -> bool {
    let mut parts = id.split('-');
    let ok = |p: Option<&str>| {
        p.is_some_and(|s| !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit()))
    };
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

/// Removes entries of `dir` older than [`TTL`] for which `finished` holds.
pub fn prune(dir: &Path, finished: impl Fn(&Path) -> bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for e in entries.filter_map(Result::ok) {
        let path = e.path();
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > TTL);
        if old && finished(&path) {
            let _ = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_ids_are_digits_only() {
        assert!(valid_job_id("1732280000000-4242"));
        for bad in [
            "",
            "..",
            "../x",
            "/etc/passwd",
            "1-2-3",
            "1-",
            "-1",
            "a-1",
            "1 -2",
        ] {
            assert!(!valid_job_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn private_files_refuse_symlinks_and_existing_files() {
        let d = std::env::temp_dir().join(format!("sg-files-{}", std::process::id()));
        private_dir(&d).unwrap_or_default();
        let target = d.join("target");
        let link = d.join("link");
        let _ = std::os::unix::fs::symlink(&target, &link);
        assert!(create_private(&link).is_err(), "followed a symlink");
        assert!(!target.exists());
        write_private(&d.join("f"), b"x").unwrap_or_default();
        assert!(create_private(&d.join("f")).is_err(), "overwrote a file");
        let mode = std::fs::metadata(d.join("f")).map(|m| m.mode() & 0o777);
        assert_eq!(mode.ok(), Some(0o600));
        let _ = std::fs::remove_dir_all(&d);
    }
}
