//! Anonymous in-memory files (memfd) that a child reads by path, `/proc/<our pid>/fd/<n>`: how a
//! long-lived shell gets each command's text without the runtime touching the filesystem, and without
//! a path the user's commands could delete or replace. Promises: the file is close-on-exec (no child
//! inherits it; children open it by path), rewritten in place (no new file per call), and after
//! [`MemFile::write`] holds exactly the bytes given.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::FileExt;

use nix::sys::memfd::{memfd_create, MFdFlags};

pub(crate) struct MemFile {
    file: File,
    /// `/proc/<pid>/fd/<n>`, valid for as long as this value lives.
    path: String,
    len: u64,
}

impl MemFile {
    /// `name` shows only in `/proc/<pid>/fd` listings (`/memfd:<name>`).
    pub(crate) fn new(name: &str) -> io::Result<Self> {
        let fd: OwnedFd = memfd_create(name, MFdFlags::MFD_CLOEXEC)?;
        let path = format!("/proc/{}/fd/{}", std::process::id(), fd.as_raw_fd());
        Ok(Self { file: File::from(fd), path, len: 0 })
    }

    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// Replaces the content. Two syscalls at most: the write, and a truncate only when shrinking.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all_at(bytes, 0)?;
        let len = bytes.len() as u64;
        if len < self.len {
            self.file.set_len(len)?;
        }
        self.len = len;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_by_path_sees_the_latest_content() {
        let mut file = MemFile::new("bashrt-test").unwrap();
        file.write(b"a longer first text").unwrap();
        file.write(b"short").unwrap();
        assert_eq!(std::fs::read(file.path()).unwrap(), b"short");
        file.write(b"").unwrap();
        assert_eq!(std::fs::read(file.path()).unwrap(), b"");
    }
}
