//! The seccomp filters a sandboxed command runs under, built in the parent
//! with `seccompiler` and installed in the child (see `sandbox.rs`).
//!
//! Always refused (`EPERM`): `ioctl` `TIOCSTI`/`TIOCLINUX` (typing into a
//! terminal), changes of the mount topology, new namespaces (`unshare`,
//! `setns`, `clone` with a namespace flag), `io_uring` (it creates sockets and
//! opens files without the system calls filtered here), the kernel keyring,
//! `bpf`, `perf_event_open`, module and `kexec` loading, `open_by_handle_at`.
//! `clone3` and `openat2` answer `ENOSYS`, so libc falls back to `clone` and
//! `openat`, whose arguments a filter can read. Setuid and setgid mode bits
//! (`chmod`, `open` with `O_CREAT` …) and `mknod` are refused: a file made in
//! the sandbox must not run with privileges later. On x86-64, x32 system
//! calls are refused as a whole.
//!
//! With the network off: `socket()` of any family but `AF_UNIX` (every
//! protocol of `AF_INET`/`AF_INET6` — MPTCP and raw included — netlink,
//! packet …). Without `unix_sockets`: `connect()`, `sendto()` with an address
//! and unix datagram sockets too, so no named (or abstract) socket outside the
//! run can be reached; `socketpair()` keeps working.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp as Op, SeccompCondition,
    SeccompFilter, SeccompRule, TargetArch,
};

use super::ExecError;

/// What the filter refuses beyond the fixed list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocketPolicy {
    /// Sockets of every family allowed.
    pub network: bool,
    /// Named unix sockets may be connected to.
    pub unix_sockets: bool,
}

const NS_FLAGS: [i32; 7] = [
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWNS,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWCGROUP,
];

fn cond(arg: u8, len: Len, op: Op, value: u64) -> Result<SeccompCondition, ExecError> {
    SeccompCondition::new(arg, len, op, value).map_err(seccomp_err)
}

fn rule(conds: Vec<SeccompCondition>) -> Result<SeccompRule, ExecError> {
    SeccompRule::new(conds).map_err(seccomp_err)
}

fn seccomp_err(e: impl std::fmt::Display) -> ExecError {
    ExecError::Sandbox(format!("seccomp filter: {e}"))
}

fn arch() -> Result<TargetArch, ExecError> {
    TargetArch::try_from(std::env::consts::ARCH).map_err(seccomp_err)
}

/// The filters, in the order to install them.
///
/// # Errors
/// When the architecture is not supported or the filter cannot be compiled.
pub fn filters(policy: SocketPolicy) -> Result<Vec<BpfProgram>, ExecError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let always: &[i64] = &[
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_mount_setattr,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_add_key,
        libc::SYS_keyctl,
        libc::SYS_request_key,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_open_by_handle_at,
        libc::SYS_userfaultfd,
    ];
    for nr in always {
        rules.insert(*nr, Vec::new());
    }
    // `ioctl`'s request is an `unsigned int` in the kernel: compare 32 bits,
    // so high bits set by the caller cannot hide it.
    rules.insert(
        libc::SYS_ioctl,
        vec![
            rule(vec![cond(1, Len::Dword, Op::Eq, libc::TIOCSTI)?])?,
            rule(vec![cond(1, Len::Dword, Op::Eq, libc::TIOCLINUX)?])?,
        ],
    );
    let clone = NS_FLAGS
        .iter()
        .map(|f| {
            let f = u64::from(f.unsigned_abs());
            rule(vec![cond(0, Len::Qword, Op::MaskedEq(f), f)?])
        })
        .collect::<Result<Vec<_>, _>>()?;
    rules.insert(libc::SYS_clone, clone);
    // No setuid or setgid bits: a file made here must not run with its
    // owner's privileges later, outside the sandbox.
    let set_id = |arg: u8| -> Result<Vec<SeccompRule>, ExecError> {
        [libc::S_ISUID, libc::S_ISGID]
            .iter()
            .map(|bit| {
                let b = u64::from(*bit);
                rule(vec![cond(arg, Len::Dword, Op::MaskedEq(b), b)?])
            })
            .collect()
    };
    rules.insert(libc::SYS_chmod, set_id(1)?);
    rules.insert(libc::SYS_fchmod, set_id(1)?);
    rules.insert(libc::SYS_fchmodat, set_id(2)?);
    rules.insert(libc::SYS_fchmodat2, set_id(2)?);
    rules.insert(libc::SYS_creat, set_id(1)?);
    rules.insert(libc::SYS_open, set_id(2)?);
    rules.insert(libc::SYS_openat, set_id(3)?);
    rules.insert(libc::SYS_mknod, Vec::new());
    rules.insert(libc::SYS_mknodat, Vec::new());
    if !policy.network {
        rules.insert(
            libc::SYS_socket,
            vec![
                rule(vec![cond(0, Len::Dword, Op::Ne, unix())?])?,
                // A unix datagram socket reaches any named socket with `sendto`.
                rule(vec![
                    cond(0, Len::Dword, Op::Eq, unix())?,
                    cond(1, Len::Dword, Op::MaskedEq(0xf), sock_dgram())?,
                ])?,
            ]
            .into_iter()
            .take(if policy.unix_sockets { 1 } else { 2 })
            .collect(),
        );
        if !policy.unix_sockets {
            rules.insert(libc::SYS_connect, Vec::new());
            rules.insert(
                libc::SYS_sendto,
                vec![rule(vec![cond(4, Len::Qword, Op::Ne, 0)?])?],
            );
        }
    }
    let eperm = SeccompAction::Errno(libc::EPERM.unsigned_abs());
    let main: BpfProgram = SeccompFilter::new(rules, SeccompAction::Allow, eperm, arch()?)
        .map_err(seccomp_err)?
        .try_into()
        .map_err(seccomp_err)?;
    // `clone3` and `openat2` pass structures a filter cannot read: ENOSYS
    // makes libc fall back to `clone` and `openat`.
    let mut clone3 = BTreeMap::new();
    clone3.insert(libc::SYS_clone3, Vec::new());
    clone3.insert(libc::SYS_openat2, Vec::new());
    let enosys = SeccompAction::Errno(libc::ENOSYS.unsigned_abs());
    let clone3: BpfProgram = SeccompFilter::new(clone3, SeccompAction::Allow, enosys, arch()?)
        .map_err(seccomp_err)?
        .try_into()
        .map_err(seccomp_err)?;
    let mut out = vec![main, clone3];
    if let Some(x32) = x32_filter() {
        out.push(x32);
    }
    Ok(out)
}

fn unix() -> u64 {
    u64::from(libc::AF_UNIX.unsigned_abs())
}

fn sock_dgram() -> u64 {
    u64::from(libc::SOCK_DGRAM.unsigned_abs())
}

/// On x86-64: refuse every x32 system call (numbers with bit 30 set), which
/// the filters above, keyed by x86-64 numbers, would otherwise let through.
fn x32_filter() -> Option<BpfProgram> {
    if std::env::consts::ARCH != "x86_64" {
        return None;
    }
    const X32_BIT: u32 = 0x4000_0000;
    const RET_ERRNO_EPERM: u32 = 0x0005_0000 | 1;
    const RET_ALLOW: u32 = 0x7fff_0000;
    let stmt = |code: u16, k: u32| seccompiler::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    let jump = |code: u16, k: u32, jt: u8, jf: u8| seccompiler::sock_filter { code, jt, jf, k };
    // BPF_LD|BPF_W|BPF_ABS = 0x20; BPF_JMP|BPF_JGE|BPF_K = 0x35; BPF_RET|BPF_K = 0x06.
    Some(vec![
        stmt(0x20, 0), // A = seccomp_data.nr
        jump(0x35, X32_BIT, 0, 1),
        stmt(0x06, RET_ERRNO_EPERM),
        stmt(0x06, RET_ALLOW),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_combination_compiles() {
        for network in [false, true] {
            for unix_sockets in [false, true] {
                let f = filters(SocketPolicy {
                    network,
                    unix_sockets,
                });
                assert!(f.is_ok_and(|f| f.len() >= 2), "{network} {unix_sockets}");
            }
        }
    }
}
