//! Building what a confined child enforces: the Landlock ruleset (as a file descriptor, populated
//! here, before any fork) and the seccomp program.

use std::collections::BTreeMap;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use landlock::{
    Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
    ABI,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

use super::paths::{Policy, DEVICES};
use super::settings::Network;
use super::SandboxError;

/// The obsolete packet socket type (`SOCK_PACKET`, 10), refused with the rest.
const SOCK_PACKET: i32 = 10;

/// The newest Landlock ABI whose rights are asked for; older kernels enforce what they know.
const WANTED: ABI = ABI::V6;

/// The test hook that makes the kernel look as if it had no Landlock (`BASHRT_SANDBOX_FORCE_ABI=0`).
const FORCE_ABI_VAR: &str = "BASHRT_SANDBOX_FORCE_ABI";

/// The kernel's Landlock ABI version; 0 without Landlock.
pub(super) fn abi() -> i64 {
    if std::env::var_os(FORCE_ABI_VAR).is_some_and(|v| v == "0") {
        return 0;
    }
    // SAFETY: the documented probe: no attribute, size 0, the version flag.
    let version = unsafe {
        libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, 1u32 /* VERSION */)
    };
    version.max(0)
}

fn build_error(step: &'static str) -> impl Fn(landlock::RulesetError) -> SandboxError {
    move |e| SandboxError::Build { step, reason: e.to_string() }
}

/// The populated ruleset: reads everywhere but the unreadable paths, writes to the writable roots,
/// the devices, and no abstract unix socket made outside the sandbox.
pub(super) fn landlock(policy: &Policy, abi: i64) -> Result<OwnedFd, SandboxError> {
    let all = AccessFs::from_all(WANTED);
    let read = AccessFs::from_read(WANTED);
    let device = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::IoctlDev | AccessFs::Truncate;
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(build_error("Landlock rights"))?;
    if abi >= 6 {
        ruleset = ruleset.scope(Scope::AbstractUnixSocket).map_err(build_error("Landlock scope"))?;
    }
    let mut grants: Vec<(PathBuf, landlock::BitFlags<AccessFs>)> = Vec::new();
    grants.extend(granted_beneath(Path::new("/"), &policy.deny_read).into_iter().map(|p| (p, read)));
    // Names, not contents, of the directories that hold an unreadable path.
    grants.extend(split_dirs(&policy.deny_read).into_iter().map(|p| (p, AccessFs::ReadDir.into())));
    // A writable root that holds an unreadable path (the workspace is the home directory) is
    // split the same way: the credential stays unreadable, and unwritable.
    grants.extend(policy.writable.iter().flat_map(|root| granted_beneath(root, &policy.deny_read)).map(|p| (p, all)));
    grants.extend(DEVICES.iter().map(|p| (PathBuf::from(p), device)));
    let mut created = ruleset.create().map_err(build_error("Landlock ruleset"))?;
    for (path, access) in grants {
        // A path that vanished since it was listed has nothing to grant.
        let Ok(fd) = PathFd::new(&path) else { continue };
        let access = match std::fs::metadata(&path) {
            Ok(meta) if !meta.is_dir() => access & AccessFs::from_file(WANTED),
            _ => access,
        };
        created = created.add_rule(PathBeneath::new(fd, access)).map_err(build_error("Landlock rule"))?;
    }
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| SandboxError::Unavailable("Landlock is not enforced by this kernel".into()))
}

/// Paths whose whole subtree is granted so that everything under `dir` is, but `deny`: `dir`
/// itself when nothing denied is under it, else each entry of it, recursing into those that hold a
/// denied path and leaving out the denied ones. Entries made later in a split directory get
/// nothing (the ruleset is fixed at the shell's start).
fn granted_beneath(dir: &Path, deny: &[PathBuf]) -> Vec<PathBuf> {
    if deny.iter().any(|d| d == dir) {
        return Vec::new();
    }
    if !deny.iter().any(|d| d.starts_with(dir)) {
        return vec![dir.to_path_buf()];
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        out.extend(granted_beneath(&entry.path(), deny));
    }
    out
}

/// Every directory above a denied path (its names stay listable).
fn split_dirs(deny: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = deny.iter().flat_map(|d| d.ancestors().skip(1).map(Path::to_path_buf)).collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

/// The seccomp programs: what is refused, and (with the network on loopback) what the supervisor
/// answers.
///
/// Refused with EPERM: the kernel keyrings (credentials), io_uring (it performs I/O no filter sees),
/// BPF and perf (kernel attack surface no build needs); with the network off, IP and packet sockets;
/// on loopback, every IP socket but a stream one (no UDP: no way out by DNS), packet sockets, and
/// TCP Fast Open (a `sendto` that connects). On x86_64 the x32 system call numbers are refused first
/// (they would reach the same calls under other numbers). `connect` goes to the supervisor
/// ([`super::supervisor`]), and on loopback `bind` and `listen` too.
///
/// One program: the supervisor's part follows the refusals, each of their "allow" answers turned into
/// a jump to it, so that every system call of a confined process runs one filter, not two; it is
/// installed with a listener.
pub(super) fn seccomp(network: Network) -> Result<Vec<libc::sock_filter>, SandboxError> {
    let error = |e: seccompiler::BackendError| SandboxError::Build { step: "seccomp filter", reason: e.to_string() };
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| {
        SandboxError::Unavailable(format!("no seccomp syscall table for {}: {e}", std::env::consts::ARCH))
    })?;
    let cond = |arg: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(error)
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for nr in [
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
    ] {
        rules.insert(nr, Vec::new());
    }
    let mut socket = Vec::new();
    match network {
        Network::On => {}
        Network::Off => {
            for domain in [libc::AF_INET, libc::AF_INET6, libc::AF_PACKET] {
                socket.push(SeccompRule::new(vec![cond(0, SeccompCmpOp::Eq, domain as u64)?]).map_err(error)?);
            }
        }
        Network::Loopback => {
            socket.push(SeccompRule::new(vec![cond(0, SeccompCmpOp::Eq, libc::AF_PACKET as u64)?]).map_err(error)?);
            for domain in [libc::AF_INET, libc::AF_INET6] {
                for kind in [
                    libc::SOCK_DGRAM,
                    libc::SOCK_RAW,
                    libc::SOCK_RDM,
                    libc::SOCK_SEQPACKET,
                    libc::SOCK_DCCP,
                    SOCK_PACKET,
                ] {
                    let domain = cond(0, SeccompCmpOp::Eq, domain as u64)?;
                    // The type's low bits; SOCK_NONBLOCK and SOCK_CLOEXEC sit above them.
                    let kind = cond(1, SeccompCmpOp::MaskedEq(0xf), kind as u64)?;
                    socket.push(SeccompRule::new(vec![domain, kind]).map_err(error)?);
                }
            }
            let fast_open = libc::MSG_FASTOPEN as u64;
            for (nr, arg) in [(libc::SYS_sendto, 3), (libc::SYS_sendmsg, 2), (libc::SYS_sendmmsg, 3)] {
                let rule =
                    SeccompRule::new(vec![cond(arg, SeccompCmpOp::MaskedEq(fast_open), fast_open)?]).map_err(error)?;
                rules.insert(nr, vec![rule]);
            }
        }
    }
    if !socket.is_empty() {
        rules.insert(libc::SYS_socket, socket);
    }
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch)
        .map_err(error)?;
    let program: BpfProgram = filter.try_into().map_err(error)?;
    let mut out = x32_guard();
    out.extend(program.into_iter().map(|f| libc::sock_filter { code: f.code, jt: f.jt, jf: f.jf, k: f.k }));
    // The supervisor answers every `connect` (a unix socket's path is checked whatever the
    // network), and on loopback `bind` and `listen` too.
    let calls: &[i64] = match network {
        Network::Loopback => &[libc::SYS_connect, libc::SYS_bind, libc::SYS_listen],
        Network::Off | Network::On => &[libc::SYS_connect],
    };
    let rules: BTreeMap<i64, Vec<SeccompRule>> = calls.iter().map(|&nr| (nr, Vec::new())).collect();
    // seccompiler has no user-notification action: compiled as a trace, and the return words patched.
    let tag = SeccompAction::Trace(0);
    let traced = u32::from(tag.clone());
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, tag, arch).map_err(error)?;
    let notify: BpfProgram = filter.try_into().map_err(error)?;
    let ret = (libc::BPF_RET | libc::BPF_K) as u16;
    let jump = (libc::BPF_JMP | libc::BPF_JA) as u16;
    let len = out.len();
    let mut merged: Vec<libc::sock_filter> = out
        .into_iter()
        .enumerate()
        .map(|(i, f)| match f.code == ret && f.k == libc::SECCOMP_RET_ALLOW {
            // Forward to the first instruction after this program.
            true => libc::sock_filter { code: jump, jt: 0, jf: 0, k: (len - i - 1) as u32 },
            false => f,
        })
        .collect();
    merged.extend(notify.into_iter().map(|f| {
        let k = if f.code == ret && f.k == traced { libc::SECCOMP_RET_USER_NOTIF } else { f.k };
        libc::sock_filter { code: f.code, jt: f.jt, jf: f.jf, k }
    }));
    Ok(merged)
}

/// `nr >= 0x40000000` (the x32 bit) → EPERM, on x86_64; nothing elsewhere.
fn x32_guard() -> Vec<libc::sock_filter> {
    if !cfg!(target_arch = "x86_64") {
        return Vec::new();
    }
    let stmt = |code: u32, k: u32| libc::sock_filter { code: code as u16, jt: 0, jf: 0, k };
    let jump = |code: u32, k: u32, jt: u8, jf: u8| libc::sock_filter { code: code as u16, jt, jf, k };
    vec![
        // Load the system call number (offset 0 of seccomp_data).
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0),
        // Below the x32 bit: go on to the filter; else return the error.
        jump(libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K, 0x4000_0000, 0, 1),
        stmt(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
    ]
}
