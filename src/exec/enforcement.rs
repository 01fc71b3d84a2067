//! What the sandbox actually enforced for one run, reported truthfully:
//! `full` only when every protection asked for is in force, otherwise the
//! list of what is missing and why.
//!
//! The child reports the layers it applied as a bit mask (see `sandbox.rs`);
//! the landlock ABI decides which file-system and network rights exist.

use serde::Serialize;

/// Bits the child reports, one per layer it applied.
pub mod bits {
    /// `setsid`: a new session, no controlling terminal (or only its own PTY).
    pub const SESSION: u32 = 1;
    /// A user namespace (needed for the others when not root).
    pub const USER_NS: u32 = 1 << 1;
    /// A mount namespace: read-only view, protected and hidden paths.
    pub const MOUNT_NS: u32 = 1 << 2;
    /// An empty network namespace.
    pub const NET_NS: u32 = 1 << 3;
    /// A PID namespace: every descendant ends with the run.
    pub const PID_NS: u32 = 1 << 4;
    /// A private `/proc` for the PID namespace.
    pub const PROC: u32 = 1 << 5;
    /// A private `/dev/pts` instance.
    pub const DEVPTS: u32 = 1 << 6;
    /// Landlock applied.
    pub const LANDLOCK: u32 = 1 << 7;
    /// The seccomp filters installed.
    pub const SECCOMP: u32 = 1 << 8;
    /// Capabilities dropped (bounding set emptied, no root privileges on exec).
    pub const CAPS: u32 = 1 << 9;
    /// `no_new_privs` set.
    pub const NO_NEW_PRIVS: u32 = 1 << 10;
}

/// What the kernel actually enforced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Enforcement {
    /// `full` (every protection asked for), `partial` (see `missing`) or `disabled` (`--no-sandbox`).
    pub status: String,
    /// The landlock ABI in use (0 when unavailable).
    pub abi: u8,
    /// File-system access restricted (landlock).
    pub filesystem: bool,
    /// Truncation restricted (landlock ABI ≥ 3).
    pub truncate: bool,
    /// Network off enforced (seccomp refuses sockets; TCP also by landlock ABI ≥ 4).
    pub network: bool,
    /// Abstract unix sockets and signals scoped (landlock ABI ≥ 6).
    pub scoped: bool,
    /// The seccomp filters installed.
    pub seccomp: bool,
    /// A new session without the caller's terminal.
    pub session: bool,
    /// Mount namespace: read-only view outside the writable roots, protected and hidden paths.
    pub mount_namespace: bool,
    /// Empty network namespace (only asked for with the network off).
    pub network_namespace: bool,
    /// PID namespace: nothing outlives the run.
    pub pid_namespace: bool,
    /// Capabilities dropped.
    pub capabilities_dropped: bool,
    /// `no_new_privs` set.
    pub no_new_privs: bool,
    /// The environment is an allowlist.
    pub env_allowlist: bool,
    /// Every protection asked for and not in force, with why.
    pub missing: Vec<String>,
}

impl Enforcement {
    /// The record for a run without a sandbox.
    pub fn disabled() -> Enforcement {
        Enforcement {
            status: "disabled".into(),
            abi: 0,
            filesystem: false,
            truncate: false,
            network: false,
            scoped: false,
            seccomp: false,
            session: false,
            mount_namespace: false,
            network_namespace: false,
            pid_namespace: false,
            capabilities_dropped: false,
            no_new_privs: false,
            env_allowlist: false,
            missing: vec!["the sandbox is disabled (--no-sandbox)".into()],
        }
    }

    /// From the child's report `mask`, the landlock `abi` and whether the network was asked off.
    pub fn from_report(mask: u32, abi: u8, network_off: bool) -> Enforcement {
        let has = |b: u32| mask & b != 0;
        let landlock = has(bits::LANDLOCK);
        let mut e = Enforcement {
            status: String::new(),
            abi,
            filesystem: landlock,
            truncate: landlock && abi >= 3,
            network: network_off && has(bits::SECCOMP),
            scoped: landlock && abi >= 6,
            seccomp: has(bits::SECCOMP),
            session: has(bits::SESSION),
            mount_namespace: has(bits::MOUNT_NS),
            network_namespace: network_off && has(bits::NET_NS),
            pid_namespace: has(bits::PID_NS),
            capabilities_dropped: has(bits::CAPS),
            no_new_privs: has(bits::NO_NEW_PRIVS),
            env_allowlist: true,
            missing: Vec::new(),
        };
        let mut need = |ok: bool, what: &str| {
            if !ok {
                e.missing.push(what.to_owned());
            }
        };
        need(
            landlock,
            "landlock file-system restriction (the kernel has no landlock)",
        );
        need(
            !landlock || abi >= 3,
            "landlock truncate right (needs landlock ABI 3, Linux 6.2)",
        );
        if network_off {
            need(
                !landlock || abi >= 4,
                "landlock TCP bind/connect restriction (needs landlock ABI 4, Linux 6.7)",
            );
            need(
                has(bits::NET_NS),
                "empty network namespace (the kernel refused a network namespace)",
            );
        }
        need(
            !landlock || abi >= 6,
            "landlock scoping of abstract unix sockets and signals (needs landlock ABI 6, Linux 6.12)",
        );
        need(
            has(bits::SECCOMP),
            "seccomp filters (refused by the kernel)",
        );
        need(has(bits::SESSION), "a new session (setsid failed)");
        need(
            has(bits::MOUNT_NS),
            "mount namespace: read-only .git/hooks, .git/config and tool configuration inside writable roots, no chmod/chown/utimes outside them (the kernel refused a mount namespace)",
        );
        need(
            has(bits::PID_NS),
            "PID namespace: descendants that leave the process group may outlive the run (the kernel refused a PID namespace)",
        );
        need(
            has(bits::DEVPTS) || !has(bits::MOUNT_NS),
            "private /dev/pts instance",
        );
        need(has(bits::CAPS), "capabilities dropped");
        need(has(bits::NO_NEW_PRIVS), "no_new_privs");
        e.status = if e.missing.is_empty() {
            "full"
        } else {
            "partial"
        }
        .into();
        e
    }

    /// True when every protection asked for is in force.
    pub fn is_full(&self) -> bool {
        self.status == "full"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: u32 = (1 << 11) - 1;

    #[test]
    fn full_needs_every_layer_and_a_recent_abi() {
        assert!(Enforcement::from_report(ALL, 7, true).is_full());
        assert!(Enforcement::from_report(ALL, 6, false).is_full());
        let old = Enforcement::from_report(ALL, 3, true);
        assert!(!old.is_full());
        assert!(old.missing.iter().any(|m| m.contains("TCP")), "{old:?}");
        let no_truncate = Enforcement::from_report(ALL, 2, false);
        assert!(no_truncate.missing.iter().any(|m| m.contains("truncate")));
        let no_ns = Enforcement::from_report(ALL & !bits::MOUNT_NS & !bits::PID_NS, 7, false);
        assert_eq!(no_ns.missing.len(), 2, "{no_ns:?}");
    }
}
