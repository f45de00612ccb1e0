//! Small files that every process sharing a state directory updates together: the next artifact id
//! and the ledger of the state directory's budget.
//!
//! A command can reach these files (they are under the directory `$ARTIFACTS` is in) and the runtime
//! treats them like any file a command can touch: opened never through a link and never waiting (a
//! FIFO planted in place is refused), only a regular file, and locked (`flock`, exclusive) within a
//! deadline. A command that holds the lock can make an update fail after [`LOCK_DEADLINE`]; it
//! cannot make the runtime wait longer.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

use nix::fcntl::OFlag;
use nix::sys::stat::Mode;

/// How long an update waits for another process's lock. Updates hold it for microseconds, so only a
/// stuck or hostile holder makes this run out.
pub(crate) const LOCK_DEADLINE: Duration = Duration::from_secs(2);

/// Larger contents are not these files' own (the ledger is a line per process using the budget).
const MAX_BYTES: u64 = 256 * 1024;

/// A file held under an exclusive lock until dropped.
pub(crate) struct Locked {
    file: File,
}

/// Opens `name` in the private directory `dir` (created 0600 when missing) and locks it.
pub(crate) fn lock(dir: &Path, name: &str) -> io::Result<Locked> {
    crate::private_dir::ensure(dir)?;
    let dir_fd = crate::private_dir::open_dir(dir)?;
    let flags = OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
    let path = dir.join(name).display().to_string();
    let fd = nix::fcntl::openat(&dir_fd, name, flags, Mode::from_bits_truncate(0o600))
        .map_err(|e| crate::private_dir::not_regular(&path, e))?;
    let file = crate::private_dir::regular(File::from(fd), &path)?;
    let deadline = Instant::now() + LOCK_DEADLINE;
    let mut pause = Duration::from_micros(200);
    loop {
        if try_flock(&file, libc::LOCK_EX) {
            return Ok(Locked { file });
        }
        let error = io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::EWOULDBLOCK) {
            return Err(error);
        }
        let now = Instant::now();
        if now >= deadline {
            let why = format!("{path} stayed locked by another process for {}s", LOCK_DEADLINE.as_secs());
            return Err(io::Error::new(io::ErrorKind::TimedOut, why));
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Takes `kind` (`LOCK_SH`, `LOCK_EX`) on `file` if no one holds a conflicting lock; never waits.
pub(crate) fn try_flock(file: &File, kind: libc::c_int) -> bool {
    // SAFETY: flock(2) on a descriptor we own; no pointers.
    unsafe { libc::flock(file.as_raw_fd(), kind | libc::LOCK_NB) == 0 }
}

impl Locked {
    /// The contents, or `None` when they are too large to be this file's own (see [`MAX_BYTES`]).
    pub(crate) fn read(&mut self) -> io::Result<Option<String>> {
        self.file.seek(SeekFrom::Start(0))?;
        let mut bytes = Vec::new();
        (&mut self.file).take(MAX_BYTES + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_BYTES {
            return Ok(None);
        }
        Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// Replaces the contents with `text`.
    pub(crate) fn replace(&mut self, text: &str) -> io::Result<()> {
        self.file.set_len(0)?;
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_survive_a_reopen_and_a_fifo_in_place_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut held = lock(dir.path(), "n").unwrap();
        assert_eq!(held.read().unwrap().as_deref(), Some(""));
        held.replace("12\n").unwrap();
        drop(held);
        assert_eq!(lock(dir.path(), "n").unwrap().read().unwrap().as_deref(), Some("12\n"));

        nix::unistd::mkfifo(&dir.path().join("f"), Mode::from_bits_truncate(0o600)).unwrap();
        let error = lock(dir.path(), "f").err().unwrap();
        assert!(error.to_string().ends_with("/f is not a regular file"), "{error}");
    }

    #[test]
    fn a_held_lock_makes_the_next_one_wait_until_it_goes() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock(dir.path(), "n").unwrap();
        let path = dir.path().to_path_buf();
        let (locked, got) = std::sync::mpsc::channel();
        let other = std::thread::spawn(move || {
            let mut second = lock(&path, "n").unwrap();
            second.replace("second").unwrap();
            locked.send(()).unwrap();
        });
        // The other thread cannot take the lock while it is held here.
        assert!(got.recv_timeout(Duration::from_millis(50)).is_err());
        drop(held);
        got.recv().unwrap();
        other.join().unwrap();
        assert_eq!(lock(dir.path(), "n").unwrap().read().unwrap().as_deref(), Some("second"));
    }
}
