//! Anonymous in-memory files (memfd) that a child reads by path, `/proc/<our pid>/fd/<n>`: how a
//! long-lived shell gets each command's text without the runtime touching the filesystem, and without
//! a path the user's commands could delete or replace. Promises: the file is close-on-exec (no child
//! inherits it; children open it by path); its path stays the same for its life; after
//! [`MemFile::write`] it holds exactly the bytes given, and nothing can change them: each content is
//! a new memfd, sealed against writes, put in the place of the last (`dup3` onto the same number).
//! A path under `/proc/<pid>/fd` can be opened by any process of the user's, so an unsealed file
//! could be rewritten by a process an earlier command left running, between the write and the read.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::FileExt;

use nix::fcntl::{fcntl, FcntlArg, SealFlag};
use nix::sys::memfd::{memfd_create, MFdFlags};

pub(crate) struct MemFile {
    fd: OwnedFd,
    /// `/proc/<pid>/fd/<n>`, valid for as long as this value lives.
    path: String,
    name: String,
}

impl MemFile {
    /// `name` shows only in `/proc/<pid>/fd` listings (`/memfd:<name>`). Empty until written.
    pub(crate) fn new(name: &str) -> io::Result<Self> {
        Self::holding(name, b"")
    }

    /// A file holding `bytes` from the start.
    pub(crate) fn holding(name: &str, bytes: &[u8]) -> io::Result<Self> {
        let fd = sealed(name, bytes)?;
        let path = format!("/proc/{}/fd/{}", std::process::id(), fd.as_raw_fd());
        Ok(Self { fd, path, name: name.to_string() })
    }

    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// Replaces the content: a new sealed memfd holding `bytes`, put where the last one was.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        let fd = sealed(&self.name, bytes)?;
        nix::unistd::dup3(&fd, &mut self.fd, nix::fcntl::OFlag::O_CLOEXEC)?;
        Ok(())
    }
}

/// A memfd holding `bytes`, sealed: no write, no resize, no new seal.
fn sealed(name: &str, bytes: &[u8]) -> io::Result<OwnedFd> {
    let fd: OwnedFd = memfd_create(name, MFdFlags::MFD_CLOEXEC | MFdFlags::MFD_ALLOW_SEALING)?;
    let file = File::from(fd);
    file.write_all_at(bytes, 0)?;
    let seals = SealFlag::F_SEAL_WRITE | SealFlag::F_SEAL_SHRINK | SealFlag::F_SEAL_GROW | SealFlag::F_SEAL_SEAL;
    fcntl(&file, FcntlArg::F_ADD_SEALS(seals))?;
    Ok(OwnedFd::from(file))
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

    #[test]
    fn what_another_process_opens_by_path_cannot_change_the_content() {
        let mut file = MemFile::new("bashrt-test").unwrap();
        file.write(b"echo the command").unwrap();
        let mut other = std::fs::OpenOptions::new().write(true).open(file.path()).unwrap();
        assert!(std::io::Write::write_all(&mut other, b"rm -rf ~ #").is_err());
        assert!(other.set_len(0).is_err());
        assert_eq!(std::fs::read(file.path()).unwrap(), b"echo the command");
    }
}
