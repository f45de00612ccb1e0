//! What a confined child does to itself between `fork` and `exec`: only system calls, on memory
//! prepared before the fork, so that it is safe in the child of a threaded parent.

use std::io;
use std::os::fd::RawFd;

/// No new privileges (set-user-ID programs and file capabilities gain nothing, and Landlock and
/// seccomp may be enforced without privilege), then the ruleset, then the filter, whose listener
/// goes over `channel` (the supervisor's socket) with the sandbox's id. An error makes the spawn
/// fail with it: nothing runs unconfined by accident.
pub(super) fn enforce(ruleset: RawFd, filter: &[libc::sock_filter], channel: (RawFd, u64)) -> io::Result<()> {
    // SAFETY: plain system calls on memory that outlives them (the kernel copies the programs).
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) != 0 {
            return Err(io::Error::last_os_error());
        }
        let listener = install(filter, libc::SECCOMP_FILTER_FLAG_NEW_LISTENER)?;
        let sent = send_fd(channel.0, listener as RawFd, channel.1);
        libc::close(listener as RawFd);
        sent?;
    }
    Ok(())
}

/// Installs `filter`; returns what `seccomp` returned (the listener with `NEW_LISTENER`).
unsafe fn install(filter: &[libc::sock_filter], flags: libc::c_ulong) -> io::Result<libc::c_long> {
    let Ok(len) = u16::try_from(filter.len()) else {
        return Err(io::Error::from_raw_os_error(libc::E2BIG));
    };
    let program = libc::sock_fprog { len, filter: filter.as_ptr().cast_mut() };
    // SAFETY: `program` points at `filter`, alive for the call.
    let rc = unsafe {
        libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, flags, &program as *const libc::sock_fprog)
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(rc)
}

/// Sends `fd` over the datagram socket `channel`, with `id` (8 bytes), on the stack.
unsafe fn send_fd(channel: RawFd, fd: RawFd, id: u64) -> io::Result<()> {
    let mut bytes = id.to_ne_bytes();
    let mut iov = libc::iovec { iov_base: bytes.as_mut_ptr().cast(), iov_len: bytes.len() };
    // Aligned for a cmsghdr, larger than one descriptor's control message.
    let mut control = [0u64; 8];
    // SAFETY: a zeroed msghdr is a valid empty one; the pointers set below outlive the sendmsg.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &raw mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if cmsg.is_null() {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fd);
        if libc::sendmsg(channel, &msg, 0) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
