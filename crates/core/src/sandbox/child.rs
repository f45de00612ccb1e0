//! What a confined child does to itself between `fork` and `exec`: only system calls, on memory
//! prepared before the fork, so that it is safe in the child of a threaded parent.

use std::io;
use std::os::fd::RawFd;

/// No new privileges (set-user-ID programs and file capabilities gain nothing, and Landlock and
/// seccomp may be enforced without privilege), then the ruleset, then the filter. An error makes the
/// spawn fail with it: nothing runs unconfined by accident.
pub(super) fn enforce(ruleset: RawFd, filter: &[libc::sock_filter]) -> io::Result<()> {
    // SAFETY: plain system calls; `program` points at `filter`, which outlives the call (the kernel
    // copies it).
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) != 0 {
            return Err(io::Error::last_os_error());
        }
        let Ok(len) = u16::try_from(filter.len()) else {
            return Err(io::Error::from_raw_os_error(libc::E2BIG));
        };
        let program = libc::sock_fprog { len, filter: filter.as_ptr().cast_mut() };
        let flags: libc::c_ulong = 0;
        if libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, flags, &program as *const libc::sock_fprog)
            != 0
        {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
