//! The network supervisor: a thread of the runtime that answers the confined processes' `connect`
//! (and, with `sandbox.network = "loopback"`, their `bind` and `listen`) — seccomp user
//! notifications.
//!
//! A unix socket is reached only when its file lies in the workspace, the private `TMPDIR` or the
//! runtime's own directories, is one of the system's informational sockets (name service, journal),
//! or `sandbox.allowUnixSockets` lists it: not `/var/run/docker.sock` (a container of the host's
//! root), not the D-Bus buses (`systemd-run --user` starts a process outside the sandbox), not an
//! X server or an SSH agent in the shared `/tmp`. The path is resolved against the process's working
//! directory; a path swapped after the check only reaches another socket the same checks would
//! have to pass to be named (the check is of the path, as Landlock's are).
//!
//! A confined child installs, as the last step before `exec`, a filter that hands these calls to a
//! listener, and sends the listener's descriptor to the supervisor over a datagram socket (one
//! message per child). For each call the supervisor takes the socket itself (`pidfd_getfd`) and
//! reads its family from it (fixed at `socket()`); for an IP socket it reads the address once
//! (`process_vm_readv`), checks that the call is still pending, and performs the `connect` or `bind`
//! itself on its copy of the socket — the socket is shared, so the process's socket is connected or
//! bound — and returns that result: the kernel never reads the address a second time, so no other
//! thread of the process can swap it after the check. Unix and netlink sockets go on unchanged.
//!
//! - `bind` to a loopback address passes; to the wildcard (`0.0.0.0`, `::`) it is narrowed to
//!   loopback (`127.0.0.1`, `::1`): dev servers that bind every interface keep working and stay off
//!   the network. Any other address is refused. The port bound becomes one the sandbox owns.
//! - `listen` on an unbound socket binds it to loopback first (no automatic bind to every
//!   interface).
//! - `connect` passes only to a loopback address and a port the sandbox owns (a server one of its
//!   commands started) or `sandbox.allowLoopbackPorts` lists; anything else is refused with
//!   `EACCES` and recorded as a denial with its address: the model is told exactly what was refused.
//!
//! Each child sends, with its listener, the id of its sandbox: the policy it is answered by. A call
//! whose socket or address cannot be looked at is refused (fail closed), never let through unchecked.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout};
use nix::sys::socket::{socketpair, AddressFamily, SockFlag, SockType};

/// Denials kept for the results that report them; older ones are dropped.
const KEPT_DENIALS: usize = 64;

/// The epoll token of the channel the listeners arrive on, and of the stop pipe.
const CHANNEL: u64 = u64::MAX;
const STOP: u64 = u64::MAX - 1;

/// A refused connection or bind, as the supervisor saw it.
#[derive(Debug, Clone)]
pub(crate) struct NetDenial {
    pub at: Instant,
    /// `connect` or `bind`.
    pub op: &'static str,
    /// `1.1.1.1:80`, or a unix socket's path.
    pub address: String,
    /// The program that made the call (`/proc/<pid>/comm`).
    pub program: String,
}

/// What a sandbox allows its processes to reach, as the supervisor checks it.
#[derive(Debug, Clone)]
pub(crate) struct NetPolicy {
    /// Loopback-only IP (else IP is the kernel's and the seccomp program's matter).
    pub loopback: bool,
    /// Directories whose unix sockets may be reached (canonical).
    pub unix_roots: Vec<PathBuf>,
    /// Unix sockets that may be reached besides (canonical).
    pub unix_sockets: Vec<PathBuf>,
    /// Local ports that may be reached on loopback besides the owned ones.
    pub allowed_ports: Vec<u16>,
}

struct Shared {
    owned: Mutex<HashSet<u16>>,
    denials: Mutex<VecDeque<NetDenial>>,
    policies: Mutex<HashMap<u64, Arc<NetPolicy>>>,
}

pub(crate) struct Supervisor {
    shared: Arc<Shared>,
    /// The end confined children send their listener on (kept open here; each child has it until
    /// its `exec`).
    child_end: OwnedFd,
    stop: OwnedFd,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Supervisor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Supervisor").field("child_end", &self.child_end).finish_non_exhaustive()
    }
}

impl Supervisor {
    /// Starts the thread.
    pub(crate) fn start() -> io::Result<Self> {
        let (ours, child_end) = socketpair(
            AddressFamily::Unix,
            SockType::Datagram,
            None,
            SockFlag::SOCK_CLOEXEC | SockFlag::SOCK_NONBLOCK,
        )?;
        let (stop_read, stop) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
        let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC)?;
        epoll.add(&ours, EpollEvent::new(EpollFlags::EPOLLIN, CHANNEL))?;
        epoll.add(&stop_read, EpollEvent::new(EpollFlags::EPOLLIN, STOP))?;
        let shared = Arc::new(Shared {
            owned: Mutex::new(HashSet::new()),
            denials: Mutex::new(VecDeque::new()),
            policies: Mutex::new(HashMap::new()),
        });
        let for_thread = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("bashrt-sandbox-net".into())
            .spawn(move || run(&epoll, &ours, &stop_read, &for_thread))?;
        Ok(Self { shared, child_end, stop, thread: Some(thread) })
    }

    /// The descriptor a confined child sends its listener on.
    pub(crate) fn channel(&self) -> RawFd {
        self.child_end.as_raw_fd()
    }

    /// Registers the policy of the sandbox `id` (its children send the id with their listener).
    pub(crate) fn register(&self, id: u64, policy: NetPolicy) {
        self.shared.policies.lock().unwrap_or_else(PoisonError::into_inner).insert(id, Arc::new(policy));
    }

    /// The denials recorded since `since`.
    pub(crate) fn denials_since(&self, since: Instant) -> Vec<NetDenial> {
        let denials = self.shared.denials.lock().unwrap_or_else(PoisonError::into_inner);
        denials.iter().filter(|d| d.at >= since).cloned().collect()
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        let _ = nix::unistd::write(&self.stop, b"x");
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn run(epoll: &Epoll, channel: &OwnedFd, stop: &OwnedFd, shared: &Shared) {
    let mut listeners: Vec<Option<(OwnedFd, Arc<NetPolicy>)>> = Vec::new();
    let mut events = [EpollEvent::empty(); 16];
    loop {
        let n = match epoll.wait(&mut events, EpollTimeout::NONE) {
            Ok(n) => n,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return,
        };
        for event in &events[..n] {
            match event.data() {
                STOP => return,
                CHANNEL => {
                    while let Some((listener, id)) = receive_listener(channel) {
                        // A listener of a sandbox this runtime did not make answers nothing: closed.
                        let policies = shared.policies.lock().unwrap_or_else(PoisonError::into_inner);
                        let Some(policy) = policies.get(&id).cloned() else { continue };
                        drop(policies);
                        let slot = listeners.iter().position(Option::is_none).unwrap_or_else(|| {
                            listeners.push(None);
                            listeners.len() - 1
                        });
                        if epoll.add(&listener, EpollEvent::new(EpollFlags::EPOLLIN, slot as u64)).is_ok() {
                            listeners[slot] = Some((listener, policy));
                        }
                    }
                }
                slot => {
                    let Some(Some((listener, policy))) = listeners.get(slot as usize) else { continue };
                    if event.events().contains(EpollFlags::EPOLLHUP) && !event.events().contains(EpollFlags::EPOLLIN) {
                        // Every process of that filter is gone.
                        let _ = epoll.delete(listener);
                        listeners[slot as usize] = None;
                        continue;
                    }
                    answer(listener.as_raw_fd(), policy, shared);
                }
            }
        }
        let _ = stop;
    }
}

/// One listener sent by a confined child, and its sandbox's id, if one is waiting.
fn receive_listener(channel: &OwnedFd) -> Option<(OwnedFd, u64)> {
    let mut id = [0u8; 8];
    let mut iov = [io::IoSliceMut::new(&mut id)];
    let mut space = nix::cmsg_space!([RawFd; 1]);
    let message = nix::sys::socket::recvmsg::<()>(
        channel.as_raw_fd(),
        &mut iov,
        Some(&mut space),
        nix::sys::socket::MsgFlags::MSG_CMSG_CLOEXEC,
    )
    .ok()?;
    let mut listener = None;
    for cmsg in message.cmsgs().ok()? {
        if let nix::sys::socket::ControlMessageOwned::ScmRights(fds) = cmsg {
            // SAFETY: the kernel just installed these descriptors in this process, for us alone.
            listener = fds.first().map(|&fd| unsafe { OwnedFd::from_raw_fd(fd) });
        }
    }
    let bytes = message.bytes;
    (bytes == 8).then(|| listener.map(|l| (l, u64::from_ne_bytes(id)))).flatten()
}

/// Receives one notification on `listener` and answers it.
fn answer(listener: RawFd, policy: &NetPolicy, shared: &Shared) {
    // SAFETY: zeroed is the state the kernel requires the buffer in.
    let mut notif: libc::seccomp_notif = unsafe { std::mem::zeroed() };
    // SAFETY: the ioctl writes one `seccomp_notif` into the buffer.
    if unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut notif) } != 0 {
        return;
    }
    let (val, error, go_on) = match decide(listener, &notif, policy, shared) {
        Verdict::Continue => (0, 0, true),
        Verdict::Done(Ok(v)) => (v, 0, false),
        Verdict::Done(Err(errno)) => (0, -errno, false),
    };
    let mut resp = libc::seccomp_notif_resp {
        id: notif.id,
        val,
        error,
        flags: if go_on { libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32 } else { 0 },
    };
    // SAFETY: the ioctl reads one `seccomp_notif_resp`. A call that went away meanwhile fails with
    // ENOENT, which needs nothing more.
    unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_SEND, &mut resp) };
}

enum Verdict {
    /// Let the kernel run the call as made (not an IP socket).
    Continue,
    /// The call's result: its return value or an errno.
    Done(Result<i64, i32>),
}

fn decide(listener: RawFd, notif: &libc::seccomp_notif, policy: &NetPolicy, shared: &Shared) -> Verdict {
    let pid = notif.pid as libc::pid_t;
    let args = notif.data.args;
    let nr = i64::from(notif.data.nr);
    // Fail closed: a call whose socket cannot be looked at (the process is gone, or the runtime may
    // not reach it) is refused, not let through unchecked.
    let socket = match take_socket(pid, args[0] as i32) {
        Ok(socket) => socket,
        // Not a descriptor of the process: the call's own error.
        Err(e) if e.raw_os_error() == Some(libc::EBADF) => return Verdict::Done(Err(libc::EBADF)),
        Err(_) => return Verdict::Done(Err(libc::EACCES)),
    };
    let family = socket_domain(&socket);
    if family == Some(libc::AF_UNIX) && nr == libc::SYS_connect {
        return unix_connect(listener, notif, policy, shared);
    }
    let inet = matches!(family, Some(libc::AF_INET | libc::AF_INET6));
    if !inet || !policy.loopback {
        return Verdict::Continue;
    }
    if nr == libc::SYS_listen {
        if bound_port(&socket) == Some(0) {
            let any = match family {
                Some(libc::AF_INET6) => SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), 0),
                _ => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            };
            if let Err(errno) = sys_bind(&socket, any) {
                return Verdict::Done(Err(errno));
            }
            own(shared, &socket);
        }
        return Verdict::Continue;
    }
    let len = (args[2] as usize).min(128);
    let Some(address) = read_address(pid, args[1], len) else { return Verdict::Done(Err(libc::EINVAL)) };
    // The address was read from the process's memory: it counts only if the call is still the one
    // that was notified (the process could have been killed and its pid reused meanwhile).
    let mut id = notif.id;
    // SAFETY: the ioctl reads one u64.
    if unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_ID_VALID, &mut id) } != 0 {
        return Verdict::Done(Err(libc::EINTR));
    }
    if nr == libc::SYS_bind {
        let narrowed = match address.ip() {
            ip if ip.is_loopback() => address,
            IpAddr::V4(ip) if ip.is_unspecified() => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), address.port()),
            IpAddr::V6(ip) if ip.is_unspecified() => SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), address.port()),
            _ => {
                deny(shared, "bind", address.to_string(), pid);
                return Verdict::Done(Err(libc::EACCES));
            }
        };
        let result = sys_bind(&socket, narrowed);
        if result.is_ok() {
            own(shared, &socket);
        }
        return Verdict::Done(result.map(|()| 0));
    }
    // connect
    let port = address.port();
    let loopback = match address.ip() {
        IpAddr::V4(ip) => ip.is_loopback(),
        IpAddr::V6(ip) => ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
    };
    let owned = shared.owned.lock().unwrap_or_else(PoisonError::into_inner).contains(&port);
    if !(loopback && (owned || policy.allowed_ports.contains(&port))) {
        deny(shared, "connect", address.to_string(), pid);
        return Verdict::Done(Err(libc::EACCES));
    }
    Verdict::Done(sys_connect(&socket, address).map(|()| 0))
}

/// A unix socket's `connect`: to a path the policy allows (see the module docs), else refused.
fn unix_connect(listener: RawFd, notif: &libc::seccomp_notif, policy: &NetPolicy, shared: &Shared) -> Verdict {
    let pid = notif.pid as libc::pid_t;
    let len = (notif.data.args[2] as usize).min(std::mem::size_of::<libc::sockaddr_un>());
    let mut buf = [0u8; std::mem::size_of::<libc::sockaddr_un>()];
    let local = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: len };
    let remote = libc::iovec { iov_base: notif.data.args[1] as *mut libc::c_void, iov_len: len };
    // SAFETY: one local buffer of `len` bytes, one remote range the kernel checks.
    let read = unsafe { libc::process_vm_readv(pid, &local, 1, &remote, 1, 0) };
    if read < 2 {
        // Unreadable: refused (fail closed), as an address that cannot be checked.
        return Verdict::Done(Err(if read < 0 { libc::EACCES } else { libc::EINVAL }));
    }
    let path = &buf[2..read as usize];
    // An abstract name (a leading NUL), or none: Landlock's scope decides (ABI 6), not a path.
    if path.first().is_none_or(|&b| b == 0) {
        return Verdict::Continue;
    }
    let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
    let named = Path::new(std::ffi::OsStr::from_bytes(&path[..end]));
    let mut valid = notif.id;
    // SAFETY: the ioctl reads one u64.
    if unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_ID_VALID, &mut valid) } != 0 {
        return Verdict::Done(Err(libc::EINTR));
    }
    let absolute = match named.is_absolute() {
        true => named.to_path_buf(),
        false => match std::fs::read_link(format!("/proc/{pid}/cwd")) {
            Ok(cwd) => cwd.join(named),
            Err(_) => return Verdict::Done(Err(libc::EACCES)),
        },
    };
    // No such socket: the kernel says so (a name service cache that is not running, say).
    let Ok(real) = std::fs::canonicalize(&absolute) else { return Verdict::Continue };
    if policy.unix_roots.iter().any(|root| real.starts_with(root)) || policy.unix_sockets.contains(&real) {
        return Verdict::Continue;
    }
    deny(shared, "connect", real.display().to_string(), pid);
    Verdict::Done(Err(libc::EACCES))
}

/// The socket's family (`SO_DOMAIN`: fixed when it was made).
fn socket_domain(socket: &OwnedFd) -> Option<i32> {
    let mut domain: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt writes one c_int and its length.
    let rc = unsafe {
        libc::getsockopt(socket.as_raw_fd(), libc::SOL_SOCKET, libc::SO_DOMAIN, (&raw mut domain).cast(), &mut len)
    };
    (rc == 0).then_some(domain)
}

/// A copy of descriptor `fd` of process `pid`.
fn take_socket(pid: libc::pid_t, fd: i32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open with a pid and no flags; checked.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if pidfd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a new descriptor, ours alone.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd as RawFd) };
    // SAFETY: pidfd_getfd with our pidfd, the target's number and no flags; checked.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), fd, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// The IP address at `ptr` in process `pid`'s memory.
fn read_address(pid: libc::pid_t, ptr: u64, len: usize) -> Option<SocketAddr> {
    let mut buf = [0u8; 128];
    let local = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: len };
    let remote = libc::iovec { iov_base: ptr as *mut libc::c_void, iov_len: len };
    // SAFETY: one local buffer of `len` ≤ 128 bytes, one remote range the kernel checks.
    let read = unsafe { libc::process_vm_readv(pid, &local, 1, &remote, 1, 0) };
    if read < 2 {
        return None;
    }
    let data = &buf[..read as usize];
    let family = u16::from_ne_bytes([data[0], data[1]]);
    let port = |d: &[u8]| u16::from_be_bytes([d[2], d[3]]);
    match i32::from(family) {
        libc::AF_INET if data.len() >= 8 => {
            Some(SocketAddr::new(IpAddr::V4(Ipv4Addr::new(data[4], data[5], data[6], data[7])), port(data)))
        }
        libc::AF_INET6 if data.len() >= 24 => {
            let mut octets = [0u8; 16];
            octets.copy_from_slice(&data[8..24]);
            Some(SocketAddr::new(IpAddr::V6(Ipv6Addr::from(octets)), port(data)))
        }
        _ => None,
    }
}

fn bound_port(socket: &OwnedFd) -> Option<u16> {
    let name: nix::sys::socket::SockaddrStorage = nix::sys::socket::getsockname(socket.as_raw_fd()).ok()?;
    name.as_sockaddr_in().map(|a| a.port()).or_else(|| name.as_sockaddr_in6().map(|a| a.port()))
}

fn own(shared: &Shared, socket: &OwnedFd) {
    if let Some(port) = bound_port(socket).filter(|&p| p != 0) {
        shared.owned.lock().unwrap_or_else(PoisonError::into_inner).insert(port);
    }
}

fn deny(shared: &Shared, op: &'static str, address: String, pid: libc::pid_t) {
    let program =
        std::fs::read_to_string(format!("/proc/{pid}/comm")).map(|s| s.trim().to_string()).unwrap_or_default();
    let mut denials = shared.denials.lock().unwrap_or_else(PoisonError::into_inner);
    if denials.len() >= KEPT_DENIALS {
        denials.pop_front();
    }
    denials.push_back(NetDenial { at: Instant::now(), op, address, program });
}

fn sys_bind(socket: &OwnedFd, address: SocketAddr) -> Result<(), i32> {
    let address = nix::sys::socket::SockaddrStorage::from(address);
    nix::sys::socket::bind(socket.as_fd().as_raw_fd(), &address).map_err(|e| e as i32)
}

fn sys_connect(socket: &OwnedFd, address: SocketAddr) -> Result<(), i32> {
    let address = nix::sys::socket::SockaddrStorage::from(address);
    nix::sys::socket::connect(socket.as_fd().as_raw_fd(), &address).map_err(|e| e as i32)
}
