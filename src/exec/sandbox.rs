//! The sandbox, applied in the child between fork and exec — never in a
//! thread of shellgate's own process (a command shares its landlock domain
//! with whatever restricted it, and could then trace and write that
//! process's memory).
//!
//! The parent prepares everything ([`prepare`]: the landlock ruleset, the
//! seccomp programs, every path as a C string, the uid map); the `pre_exec`
//! hook then makes only async-signal-safe system calls:
//!
//! ```text
//! C0  setsid; unshare(user?, mount, net?, pid); uid/gid map; fork ──► waits, mirrors C1's report
//! C1  (PID 1 of the new namespace) private mounts: a read-only view of
//!     everything, writable roots made writable again, protected paths
//!     read-only, credential files hidden, a private /proc and /dev/pts;
//!     chdir; landlock; seccomp; fork ──► reaps, forwards SIGTERM/SIGINT/SIGHUP,
//!     exits with the command's status (the kernel then kills every
//!     descendant left in the namespace)
//! C2  setsid (+ TIOCSCTTY on its own PTY); drop capabilities; report; exec bash
//! ```
//!
//! Where the kernel refuses the namespaces, C0 is the command: landlock,
//! seccomp and the new session still apply, and the report says what is
//! missing. The report is a bit mask ([`super::enforcement::bits`]) written to
//! a pipe just before exec.
//!
//! # Security
//! Nothing here stops a command from using what its roots grant: a daemon
//! reached through a unix socket when `unix_sockets` is on, files it may
//! write, the network when `network = true`.

#![expect(
    unsafe_code,
    reason = "between fork and exec: namespaces, mounts, landlock and seccomp"
)]

use std::ffi::{CString, c_int};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, path_beneath_rules,
};
use seccompiler::BpfProgram;

use super::ExecError;
use super::enforcement::{Enforcement, bits};
use super::seccomp::{SocketPolicy, filters};
pub use super::spec::SandboxSpec;

/// How strict to be about enforcement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requirement {
    /// Refuse unless every protection asked for is enforced.
    Full,
    /// Refuse only when landlock is unavailable; report what is missing.
    Some,
    /// Run without a sandbox.
    Off,
}

/// The highest landlock ABI the running kernel offers (0 when none).
pub fn kernel_abi() -> u8 {
    static ABI_CELL: std::sync::OnceLock<u8> = std::sync::OnceLock::new();
    *ABI_CELL.get_or_init(|| {
        // SAFETY: `landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)`
        // only returns the ABI version (or -1); it reads no memory.
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<u8>(),
                0usize,
                1u32,
            )
        };
        u8::try_from(v).unwrap_or(0)
    })
}

fn abi_of(v: u8) -> ABI {
    match v {
        0 => ABI::Unsupported,
        1 => ABI::V1,
        2 => ABI::V2,
        3 => ABI::V3,
        4 => ABI::V4,
        5 => ABI::V5,
        6 => ABI::V6,
        _ => ABI::V7,
    }
}

/// A sandbox ready to be installed on one `Command`.
pub struct Prepared {
    plan: Arc<ChildPlan>,
    report: OwnedFd,
    abi: u8,
    network_off: bool,
    requirement: Requirement,
}

/// Everything the child needs, built before the fork.
struct ChildPlan {
    unshare: c_int,
    netns: Option<RawFd>,
    user_ns: bool,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    read_write: Vec<CString>,
    protected: Vec<CString>,
    hidden_files: Vec<CString>,
    hidden_dirs: Vec<CString>,
    proc_rule: bool,
    pts_rule: bool,
    shm_rule: bool,
    cwd: CString,
    ruleset: Option<OwnedFd>,
    read_access: u64,
    all_access: u64,
    filters: Vec<BpfProgram>,
    pty: bool,
    report: OwnedFd,
    require: u32,
}

/// Prepares the sandbox for one command run in `cwd`.
///
/// # Errors
/// [`ExecError::Sandbox`] when landlock is unavailable (unless `requirement`
/// is [`Requirement::Off`], which needs no preparation: use [`Enforcement::disabled`]),
/// or a ruleset or filter cannot be built.
pub fn prepare(
    spec: &SandboxSpec,
    requirement: Requirement,
    cwd: &Path,
    pty: Option<&Path>,
) -> Result<Prepared, ExecError> {
    let abi = kernel_abi();
    if abi == 0 {
        return Err(ExecError::Sandbox(
            "landlock is not available on this kernel (use --no-sandbox to run anyway)".into(),
        ));
    }
    let ruleset = ruleset(spec, abi_of(abi), pty)?;
    let filters = cached_filters(SocketPolicy {
        network: spec.network,
        unix_sockets: spec.unix_sockets,
    })?;
    let (report_r, report_w) = pipe_cloexec().map_err(ExecError::Io)?;
    set_nonblocking(&report_r).map_err(ExecError::Io)?;
    let uid = nix::unistd::geteuid().as_raw();
    let gid = nix::unistd::getegid().as_raw();
    let user_ns = uid != 0;
    let mut unshare = libc::CLONE_NEWNS | libc::CLONE_NEWPID;
    // An empty network namespace: one shared by this process's runs when we
    // may make it (root; making one costs more than the rest of a spawn), a
    // new one per run otherwise. Nothing in it is configured, not even `lo`.
    let netns = if spec.network || user_ns {
        None
    } else {
        shared_empty_netns()
    };
    if !spec.network && netns.is_none() {
        unshare |= libc::CLONE_NEWNET;
    }
    if user_ns {
        unshare |= libc::CLONE_NEWUSER;
    }
    if std::env::var_os("SHELLGATE_TEST_NO_NAMESPACES").is_some() {
        // Tests of the reporting: behave as on a kernel that refuses namespaces.
        unshare = 0;
    }
    let (hidden_dirs, hidden_files): (Vec<_>, Vec<_>) =
        spec.hidden.iter().partition(|p| p.is_dir());
    let granted_rw = |p: &str| spec.read_write.iter().any(|r| r == Path::new(p));
    let plan = ChildPlan {
        unshare,
        netns,
        user_ns,
        uid_map: format!("{uid} {uid} 1\n").into_bytes(),
        gid_map: format!("{gid} {gid} 1\n").into_bytes(),
        read_write: mount_points(&spec.read_write),
        protected: mount_points(&spec.protected),
        hidden_files: mount_points(&hidden_files),
        hidden_dirs: mount_points(&hidden_dirs),
        proc_rule: spec.read_only.iter().any(|r| r == Path::new("/proc")),
        pts_rule: granted_rw("/dev/ptmx"),
        shm_rule: granted_rw("/dev/shm"),
        cwd: c_path(cwd)?,
        read_access: AccessFs::from_read(abi_of(abi)).bits(),
        all_access: AccessFs::from_all(abi_of(abi)).bits(),
        ruleset: Some(ruleset),
        filters,
        pty: pty.is_some(),
        report: report_w,
        require: match requirement {
            Requirement::Full => required_bits(spec),
            _ => 0,
        },
    };
    Ok(Prepared {
        plan: Arc::new(plan),
        report: report_r,
        abi,
        network_off: !spec.network,
        requirement,
    })
}

/// The seccomp programs for a socket policy, compiled once per process.
fn cached_filters(policy: SocketPolicy) -> Result<Vec<BpfProgram>, ExecError> {
    type Cache = std::sync::Mutex<Vec<(SocketPolicy, Vec<BpfProgram>)>>;
    static CACHE: Cache = std::sync::Mutex::new(Vec::new());
    let mut cache = CACHE
        .lock()
        .map_err(|_| ExecError::Sandbox("seccomp cache poisoned".into()))?;
    if let Some((_, f)) = cache.iter().find(|(p, _)| *p == policy) {
        return Ok(f.clone());
    }
    let f = filters(policy)?;
    cache.push((policy, f.clone()));
    Ok(f)
}

/// An empty network namespace made once by a short-lived thread (which
/// alone enters it), kept open for the life of the process.
fn shared_empty_netns() -> Option<RawFd> {
    static NS: std::sync::OnceLock<Option<OwnedFd>> = std::sync::OnceLock::new();
    NS.get_or_init(|| {
        std::thread::spawn(|| {
            // SAFETY: unshare(CLONE_NEWNET) moves only this thread; open
            // returns a new descriptor we own.
            unsafe {
                if libc::unshare(libc::CLONE_NEWNET) != 0 {
                    return None;
                }
                let fd = libc::open(
                    c"/proc/thread-self/ns/net".as_ptr(),
                    libc::O_RDONLY | libc::O_CLOEXEC,
                );
                (fd >= 0).then(|| OwnedFd::from_raw_fd(fd))
            }
        })
        .join()
        .ok()
        .flatten()
    })
    .as_ref()
    .map(AsRawFd::as_raw_fd)
}

/// The bits a `full` run needs.
fn required_bits(spec: &SandboxSpec) -> u32 {
    let mut b = bits::SESSION
        | bits::MOUNT_NS
        | bits::PID_NS
        | bits::LANDLOCK
        | bits::SECCOMP
        | bits::CAPS
        | bits::NO_NEW_PRIVS
        | bits::DEVPTS;
    if !spec.network {
        b |= bits::NET_NS;
    }
    b
}

impl Prepared {
    /// Installs the sandbox on `cmd` (which must not set a process group: the
    /// child makes its own session).
    pub fn apply(&self, cmd: &mut Command) {
        let plan = Arc::clone(&self.plan);
        // SAFETY: the hook runs in the forked child before exec; `child_setup`
        // makes only async-signal-safe system calls on memory prepared before
        // the fork (no allocation, no locks), as its comments detail.
        unsafe {
            cmd.pre_exec(move || child_setup(&plan));
        }
    }

    /// What was enforced, read from the child's report once `spawn` returned
    /// (the caller has dropped the `Command`). A spawn error that the child
    /// raised is turned into a readable [`ExecError`].
    ///
    /// # Errors
    /// The spawn error, explained; or a `full` requirement that the kernel
    /// did not meet.
    pub fn finish<T>(self, spawned: io::Result<T>) -> Result<(T, Enforcement), ExecError> {
        let Prepared {
            plan,
            report,
            abi,
            network_off,
            requirement,
        } = self;
        drop(plan);
        let mut buf = [0u8; 4];
        let n = nix::unistd::read(&report, &mut buf).unwrap_or(0);
        let mask = if n == 4 { u32::from_ne_bytes(buf) } else { 0 };
        let enforcement = Enforcement::from_report(mask, abi, network_off);
        match spawned {
            Ok(v) => Ok((v, enforcement)),
            Err(e) => Err(explain(&e, &enforcement, requirement)),
        }
    }
}

fn explain(e: &io::Error, enforcement: &Enforcement, requirement: Requirement) -> ExecError {
    match e.raw_os_error().and_then(Step::decode) {
        Some((Step::Require, _)) if requirement == Requirement::Full => {
            ExecError::Sandbox(format!(
                "the sandbox is not fully enforced here; the requirement refuses to run. Missing: {}",
                enforcement.missing.join("; ")
            ))
        }
        Some((step, errno)) => ExecError::Sandbox(format!(
            "{} failed in the child: {}",
            step.name(),
            io::Error::from_raw_os_error(errno)
        )),
        None => ExecError::Spawn(io::Error::from_raw_os_error(e.raw_os_error().unwrap_or(0))),
    }
}

/// The landlock ruleset: read-only and writable roots, plus the run's own
/// PTY slave (and no other terminal) in PTY mode.
fn ruleset(spec: &SandboxSpec, abi: ABI, pty: Option<&Path>) -> Result<OwnedFd, ExecError> {
    let err = |e: landlock::RulesetError| ExecError::Sandbox(e.to_string());
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(err)?;
    if !spec.network && abi >= ABI::V4 {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(err)?;
    }
    if abi >= ABI::V6 {
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
        .map_err(err)?
        .add_rules(path_beneath_rules(pty, AccessFs::from_file(abi)))
        .map_err(err)?;
    Option::<OwnedFd>::from(created)
        .ok_or_else(|| ExecError::Sandbox("landlock gave no ruleset".into()))
}

fn c_path(p: &Path) -> Result<CString, ExecError> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| ExecError::Sandbox(format!("path `{}` holds a NUL byte", p.display())))
}

/// Paths to mount over: real (canonical) paths, symlinks resolved, so a
/// planted link cannot redirect a mount; paths that vanished are dropped.
fn mount_points<P: AsRef<Path>>(paths: &[P]) -> Vec<CString> {
    let mut out: Vec<CString> = Vec::new();
    for p in paths {
        if let Ok(real) = std::fs::canonicalize(p.as_ref())
            && let Ok(c) = CString::new(real.as_os_str().as_bytes())
            && !out.contains(&c)
        {
            out.push(c);
        }
    }
    out
}

fn pipe_cloexec() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as c_int; 2];
    // SAFETY: `pipe2` writes two descriptors into the array we own.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn set_nonblocking(fd: &OwnedFd) -> io::Result<()> {
    let raw = fd.as_raw_fd();
    // SAFETY: F_GETFL/F_SETFL on a descriptor we own.
    let flags = unsafe { libc::fcntl(raw, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(raw, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The child's steps, for error reports: `100_000 + step * 1000 + errno`
/// travels through std's exec-error pipe as the raw OS error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Setsid = 1,
    UserMap = 2,
    Fork = 3,
    MountPrivate = 4,
    BindWritable = 5,
    BindProtected = 6,
    Hide = 7,
    Writable = 8,
    Protect = 9,
    Chdir = 10,
    Landlock = 11,
    Seccomp = 12,
    Capabilities = 13,
    Terminal = 14,
    Require = 15,
}

const STEPS: [Step; 15] = [
    Step::Setsid,
    Step::UserMap,
    Step::Fork,
    Step::MountPrivate,
    Step::BindWritable,
    Step::BindProtected,
    Step::Hide,
    Step::Writable,
    Step::Protect,
    Step::Chdir,
    Step::Landlock,
    Step::Seccomp,
    Step::Capabilities,
    Step::Terminal,
    Step::Require,
];

impl Step {
    fn error(self, errno: i32) -> io::Error {
        io::Error::from_raw_os_error(100_000 + (self as i32) * 1000 + errno.clamp(0, 999))
    }

    fn last(self) -> io::Error {
        self.error(io::Error::last_os_error().raw_os_error().unwrap_or(0))
    }

    fn decode(raw: i32) -> Option<(Step, i32)> {
        let v = raw.checked_sub(100_000)?;
        let step = STEPS.iter().find(|s| **s as i32 == v / 1000)?;
        Some((*step, v % 1000))
    }

    fn name(self) -> &'static str {
        match self {
            Step::Setsid => "setsid",
            Step::UserMap => "writing the user namespace's uid/gid map",
            Step::Fork => "fork into the PID namespace",
            Step::MountPrivate => "making the mount namespace private",
            Step::BindWritable => "binding a writable root",
            Step::BindProtected => "binding a protected path",
            Step::Hide => "hiding a credential path",
            Step::Writable => "making a writable root writable",
            Step::Protect => "making a protected path read-only",
            Step::Chdir => "entering the working directory",
            Step::Landlock => "landlock_restrict_self",
            Step::Seccomp => "installing the seccomp filter",
            Step::Capabilities => "dropping capabilities",
            Step::Terminal => "taking the PTY as controlling terminal",
            Step::Require => "the sandbox requirement",
        }
    }
}

/// The command's PID inside the namespace, for C1's signal forwarding.
static COMMAND_PID: AtomicI32 = AtomicI32::new(0);

extern "C" fn forward_signal(sig: c_int) {
    let pid = COMMAND_PID.load(Ordering::Relaxed);
    if pid > 0 {
        // SAFETY: `kill` is async-signal-safe; a missing group falls back to the process.
        unsafe {
            if libc::kill(-pid, sig) != 0 {
                libc::kill(pid, sig);
            }
        }
    }
}

const FORWARDED: [c_int; 4] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT];

fn forwarded_set() -> libc::sigset_t {
    // SAFETY: sigemptyset/sigaddset initialise a set on our stack.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in FORWARDED {
            libc::sigaddset(&mut set, s);
        }
        set
    }
}

fn mask(how: c_int, set: &libc::sigset_t) {
    // SAFETY: sigprocmask is async-signal-safe; the set lives on our stack.
    unsafe {
        libc::sigprocmask(how, set, std::ptr::null_mut());
    }
}

/// Runs in the forked child (C0). Async-signal-safe throughout.
fn child_setup(plan: &ChildPlan) -> io::Result<()> {
    let mut report = 0u32;
    // SAFETY: setsid has no memory effects.
    if unsafe { libc::setsid() } < 0 {
        return Err(Step::Setsid.last());
    }
    report |= bits::SESSION;
    // SAFETY: unshare has no memory effects; failure leaves us as we were.
    let namespaces = plan.unshare != 0 && unsafe { libc::unshare(plan.unshare) } == 0;
    if namespaces {
        if plan.user_ns {
            write_user_maps(plan)?;
            report |= bits::USER_NS;
        }
        report |= bits::PID_NS;
        if plan.unshare & libc::CLONE_NEWNET != 0 {
            report |= bits::NET_NS;
        }
        if let Some(fd) = plan.netns {
            // SAFETY: setns on a namespace descriptor kept open by the parent.
            if unsafe { libc::setns(fd, libc::CLONE_NEWNET) } == 0 {
                report |= bits::NET_NS;
            }
        }
        let blocked = forwarded_set();
        mask(libc::SIG_BLOCK, &blocked);
        let (status_r, status_w) = raw_pipe()?;
        // SAFETY: fork in a single-threaded child; the parent branch only
        // waits and exits, the child branch continues the setup.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(Step::Fork.last());
        }
        if pid > 0 {
            // SAFETY: closing our own descriptors.
            unsafe { libc::close(status_w) };
            mirror(pid, status_r);
        }
        // SAFETY: closing our copy of the read end.
        unsafe { libc::close(status_r) };
        report |= mount_setup(plan)?;
        return init_and_command(plan, report, status_w);
    }
    restrict(plan, &mut report)?;
    command_side(plan, report, false)
}

/// C0 after the fork: drop every descriptor but the status pipe, wait for
/// C1, then end the way the command ended. Never returns.
fn mirror(c1: libc::pid_t, status_r: RawFd) -> ! {
    // SAFETY: descriptor juggling and waiting with raw, async-signal-safe calls.
    unsafe {
        libc::dup2(status_r, 3);
        libc::syscall(libc::SYS_close_range, 4u32, u32::MAX, 0u32);
        for fd in 0..3 {
            libc::close(fd);
        }
        let mut st: c_int = 0;
        while libc::waitpid(c1, &mut st, 0) < 0 {
            if io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                libc::_exit(125);
            }
        }
        let mut cmd_status: c_int = 0;
        let got = libc::read(3, (&raw mut cmd_status).cast(), 4) == 4;
        let end = if got { cmd_status } else { st };
        if libc::WIFEXITED(end) {
            libc::_exit(libc::WEXITSTATUS(end));
        }
        let sig = if libc::WIFSIGNALED(end) {
            libc::WTERMSIG(end)
        } else {
            libc::SIGKILL
        };
        // End by the same signal, without a core dump of this copy of shellgate.
        let nocore = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &nocore);
        for s in FORWARDED {
            libc::signal(s, libc::SIG_IGN);
        }
        libc::signal(sig, libc::SIG_DFL);
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut all);
        libc::sigprocmask(libc::SIG_SETMASK, &all, std::ptr::null_mut());
        libc::kill(libc::getpid(), sig);
        libc::_exit(128 + sig)
    }
}

fn raw_pipe() -> io::Result<(RawFd, RawFd)> {
    let mut fds = [0 as c_int; 2];
    // SAFETY: pipe2 writes two descriptors into our array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(Step::Fork.last());
    }
    Ok((fds[0], fds[1]))
}

fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: open/write/close on a NUL-terminated path and a byte slice we own.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(Step::UserMap.last());
        }
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        if n < 0 || n.unsigned_abs() != bytes.len() {
            return Err(Step::UserMap.last());
        }
    }
    Ok(())
}

fn write_user_maps(plan: &ChildPlan) -> io::Result<()> {
    write_file(c"/proc/self/setgroups", b"deny")?;
    write_file(c"/proc/self/uid_map", &plan.uid_map)?;
    write_file(c"/proc/self/gid_map", &plan.gid_map)
}

fn mount(
    src: *const libc::c_char,
    dst: *const libc::c_char,
    fstype: *const libc::c_char,
    flags: libc::c_ulong,
    data: *const libc::c_char,
    step: Step,
) -> io::Result<()> {
    // SAFETY: every pointer is NULL or a NUL-terminated string prepared before the fork.
    if unsafe { libc::mount(src, dst, fstype, flags, data.cast()) } != 0 {
        return Err(step.last());
    }
    Ok(())
}

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const MOUNT_ATTR_RDONLY: u64 = 1;
const MOUNT_ATTR_NOSUID: u64 = 2;

fn set_readonly(path: &std::ffi::CStr, readonly: bool) -> c_int {
    let attr = MountAttr {
        attr_set: if readonly {
            MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID
        } else {
            0
        },
        attr_clr: if readonly { 0 } else { MOUNT_ATTR_RDONLY },
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: mount_setattr reads `attr` (on our stack) and the path string.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            libc::AT_RECURSIVE,
            &raw const attr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if rc == 0 { 0 } else { -1 }
}

/// C1: the private mount table. Returns the report bits it achieved.
fn mount_setup(plan: &ChildPlan) -> io::Result<u32> {
    let null = std::ptr::null();
    mount(
        c"none".as_ptr(),
        c"/".as_ptr(),
        null,
        libc::MS_REC | libc::MS_PRIVATE,
        null,
        Step::MountPrivate,
    )?;
    let bind = libc::MS_BIND | libc::MS_REC;
    for p in &plan.read_write {
        mount(p.as_ptr(), p.as_ptr(), null, bind, null, Step::BindWritable)?;
    }
    for p in &plan.protected {
        mount(
            p.as_ptr(),
            p.as_ptr(),
            null,
            bind,
            null,
            Step::BindProtected,
        )?;
    }
    for p in &plan.hidden_files {
        mount(
            c"/dev/null".as_ptr(),
            p.as_ptr(),
            null,
            libc::MS_BIND,
            null,
            Step::Hide,
        )?;
    }
    for p in &plan.hidden_dirs {
        mount(
            c"tmpfs".as_ptr(),
            p.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            c"size=4k,mode=0500".as_ptr(),
            Step::Hide,
        )?;
    }
    let mut achieved = 0;
    if set_readonly(c"/", true) == 0 {
        for p in &plan.read_write {
            if set_readonly(p, false) != 0 {
                return Err(Step::Writable.last());
            }
        }
        for p in plan
            .protected
            .iter()
            .chain(&plan.hidden_files)
            .chain(&plan.hidden_dirs)
        {
            if set_readonly(p, true) != 0 {
                return Err(Step::Protect.last());
            }
        }
        achieved |= bits::MOUNT_NS;
    }
    let nosuid = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    if plan.shm_rule
        && mount(
            c"tmpfs".as_ptr(),
            c"/dev/shm".as_ptr(),
            c"tmpfs".as_ptr(),
            nosuid,
            c"mode=1777,size=50%".as_ptr(),
            Step::MountPrivate,
        )
        .is_ok()
    {
        // A private /dev/shm: the host's shared memory is out of reach.
        add_rule(plan, c"/dev/shm", plan.all_access)?;
    }
    if mount(
        c"proc".as_ptr(),
        c"/proc".as_ptr(),
        c"proc".as_ptr(),
        nosuid | libc::MS_RDONLY,
        null,
        Step::MountPrivate,
    )
    .is_ok()
    {
        achieved |= bits::PROC;
        if plan.proc_rule {
            add_rule(plan, c"/proc", plan.read_access)?;
        }
    }
    if plan.pty {
        // The run's own PTY lives on the host's devpts (granted alone by
        // landlock); a private instance would hide it from `tty`.
        return Ok(achieved | bits::DEVPTS);
    }
    if mount(
        c"devpts".as_ptr(),
        c"/dev/pts".as_ptr(),
        c"devpts".as_ptr(),
        libc::MS_NOSUID | libc::MS_NOEXEC,
        c"newinstance,ptmxmode=0666,mode=0620".as_ptr(),
        Step::MountPrivate,
    )
    .is_ok()
        && mount(
            c"/dev/pts/ptmx".as_ptr(),
            c"/dev/ptmx".as_ptr(),
            null,
            libc::MS_BIND,
            null,
            Step::MountPrivate,
        )
        .is_ok()
    {
        achieved |= bits::DEVPTS;
        if plan.pts_rule {
            add_rule(plan, c"/dev/pts", plan.all_access)?;
        }
    }
    Ok(achieved)
}

/// `struct landlock_path_beneath_attr` (packed in the kernel's ABI).
#[repr(C, packed)]
struct PathBeneath {
    allowed_access: u64,
    parent_fd: i32,
}

/// Grants `access` beneath `path` in the (not yet enforced) ruleset: for
/// file systems mounted in the child, whose inodes the parent never saw.
fn add_rule(plan: &ChildPlan, path: &std::ffi::CStr, access: u64) -> io::Result<()> {
    let Some(ruleset) = &plan.ruleset else {
        return Ok(());
    };
    // SAFETY: open/landlock_add_rule/close with a NUL-terminated path and an attribute on our stack.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(Step::Landlock.last());
        }
        let attr = PathBeneath {
            allowed_access: access,
            parent_fd: fd,
        };
        let rc = libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            1u32, // LANDLOCK_RULE_PATH_BENEATH
            &raw const attr,
            0u32,
        );
        libc::close(fd);
        if rc != 0 {
            return Err(Step::Landlock.last());
        }
    }
    Ok(())
}

/// landlock, then seccomp, on the calling process.
fn restrict(plan: &ChildPlan, report: &mut u32) -> io::Result<()> {
    // SAFETY: prctl and the two landlock/seccomp system calls take only
    // integers and pointers to data prepared before the fork.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(Step::Landlock.last());
        }
        *report |= bits::NO_NEW_PRIVS;
        if let Some(ruleset) = &plan.ruleset {
            if libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) != 0 {
                return Err(Step::Landlock.last());
            }
            *report |= bits::LANDLOCK;
        }
        for f in &plan.filters {
            let prog = libc::sock_fprog {
                len: u16::try_from(f.len()).unwrap_or(u16::MAX),
                filter: f.as_ptr().cast_mut().cast(),
            };
            if libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0u32,
                &raw const prog,
            ) != 0
            {
                return Err(Step::Seccomp.last());
            }
        }
        *report |= bits::SECCOMP;
    }
    Ok(())
}

/// C1: enter the working directory, restrict, fork the command and stay as
/// the namespace's init. Returns only in the command (C2).
fn init_and_command(plan: &ChildPlan, mut report: u32, status_w: RawFd) -> io::Result<()> {
    // SAFETY: chdir to a NUL-terminated path prepared before the fork.
    if unsafe { libc::chdir(plan.cwd.as_ptr()) } != 0 {
        return Err(Step::Chdir.last());
    }
    restrict(plan, &mut report)?;
    // SAFETY: installing a handler that only calls `kill`.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = forward_signal as *const () as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        for s in FORWARDED {
            libc::sigaction(s, &sa, std::ptr::null_mut());
        }
    }
    // SAFETY: fork of a single-threaded process; see `child_setup`.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(Step::Fork.last());
    }
    if pid == 0 {
        // SAFETY: closing the status pipe's write end in the command.
        unsafe { libc::close(status_w) };
        for s in FORWARDED {
            // SAFETY: back to the default disposition before exec.
            unsafe { libc::signal(s, libc::SIG_DFL) };
        }
        return command_side(plan, report, true);
    }
    COMMAND_PID.store(pid, Ordering::Relaxed);
    reap(pid, status_w)
}

/// C1 after forking the command: reap everything, and when the command
/// ends, hand its status to C0 and exit (the kernel then kills the rest).
fn reap(command: libc::pid_t, status_w: RawFd) -> ! {
    // SAFETY: raw descriptor and wait calls; no allocation.
    unsafe {
        libc::dup2(status_w, 3);
        libc::syscall(libc::SYS_close_range, 4u32, u32::MAX, 0u32);
        for fd in 0..3 {
            libc::close(fd);
        }
        mask(libc::SIG_UNBLOCK, &forwarded_set());
        loop {
            let mut st: c_int = 0;
            let r = libc::waitpid(-1, &mut st, 0);
            if r == command {
                libc::write(3, (&raw const st).cast(), 4);
                libc::_exit(0);
            }
            if r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                libc::_exit(125);
            }
        }
    }
}

/// The process that execs the command: its own session (and PTY), no
/// capabilities, default signals; reports and returns to std's exec.
fn command_side(plan: &ChildPlan, mut report: u32, own_session: bool) -> io::Result<()> {
    // SAFETY: setsid/ioctl/prctl/sigprocmask take integers and stack data only.
    unsafe {
        if own_session && libc::setsid() < 0 {
            return Err(Step::Setsid.last());
        }
        if plan.pty && libc::ioctl(0, libc::TIOCSCTTY, 0) != 0 {
            return Err(Step::Terminal.last());
        }
        if drop_capabilities() {
            report |= bits::CAPS;
        }
        // Descriptors the caller left open (a file outside the roots, a
        // connected socket) must not reach the command: every one above
        // stderr closes on exec.
        const CLOSE_RANGE_CLOEXEC: u32 = 4;
        if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC) != 0 {
            return Err(Step::Capabilities.last());
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        let bytes = report.to_ne_bytes();
        libc::write(plan.report.as_raw_fd(), bytes.as_ptr().cast(), 4);
    }
    if report & plan.require != plan.require {
        return Err(Step::Require.error(0));
    }
    Ok(())
}

/// For an unsandboxed PTY run: only a new session with the PTY (fd 0) as its
/// controlling terminal.
pub fn session_only(cmd: &mut Command) {
    // SAFETY: setsid and ioctl are async-signal-safe and touch no memory.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Empties the capability bounding and ambient sets and locks "no root
/// privileges on exec"; true when the command will hold no capability.
fn drop_capabilities() -> bool {
    const SECBITS: libc::c_ulong = 0x2f; // NOROOT, NOROOT_LOCKED, NO_SETUID_FIXUP(_LOCKED), KEEP_CAPS_LOCKED
    // SAFETY: prctl calls with integer arguments.
    unsafe {
        let secure = libc::prctl(libc::PR_SET_SECUREBITS, SECBITS, 0, 0, 0) == 0;
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        let mut dropped = true;
        for cap in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
                if io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) {
                    break;
                }
                dropped = false;
            }
        }
        (secure && dropped) || libc::geteuid() != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_codes_round_trip() {
        for s in STEPS {
            let e = s.error(libc::EPERM);
            assert_eq!(
                e.raw_os_error().and_then(Step::decode),
                Some((s, libc::EPERM))
            );
        }
        assert_eq!(Step::decode(libc::ENOENT), None);
    }
}
