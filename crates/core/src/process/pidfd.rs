//! Process file descriptors (Linux ≥ 5.3): a handle on one process that cannot be confused with a
//! later process reusing its pid, that `poll` reports readable once the process has exited, and that
//! can be signalled. Promises: every fd is close-on-exec (the kernel sets it), so no child inherits one.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

use nix::poll::{PollFd, PollFlags, PollTimeout};
use nix::sys::signal::Signal;

/// Fails with `ENOSYS` on old kernels, `EPERM` under some seccomp filters, `ESRCH` if the process is
/// gone (a zombie still counts as present).
pub(crate) fn open(pid: i32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open(pid_t, unsigned int) has no pointer arguments.
    let rc = unsafe { libc::syscall(libc::SYS_pidfd_open, libc::c_long::from(pid), 0 as libc::c_long) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = i32::try_from(rc).map_err(|_| io::Error::other("pidfd_open returned no fd"))?;
    // SAFETY: the kernel just returned this fd to us and nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Signals exactly the process the fd was opened for, never a successor with the same pid.
pub(crate) fn send_signal(pidfd: BorrowedFd<'_>, signal: Signal) -> io::Result<()> {
    // SAFETY: pidfd_send_signal(int, int, siginfo_t *, unsigned int); a null siginfo is allowed.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            libc::c_long::from(pidfd.as_raw_fd()),
            libc::c_long::from(signal as libc::c_int),
            std::ptr::null::<libc::siginfo_t>(),
            0 as libc::c_long,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// True once the process has exited (zombies included: they run no code and hold no resources but
/// their pid).
pub(crate) fn has_exited(pidfd: BorrowedFd<'_>) -> bool {
    let mut fds = [PollFd::new(pidfd, PollFlags::POLLIN)];
    matches!(nix::poll::poll(&mut fds, PollTimeout::ZERO), Ok(n) if n > 0)
}
