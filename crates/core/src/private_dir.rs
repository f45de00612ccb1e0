//! Directories only the user can enter. Everything bashrt keeps on disk (snapshots it sources, artifacts,
//! session logs) lives under one, because a file another local user could write or replace would let
//! them run code as you, or read what your commands printed.
//!
//! Promises: [`ensure`] returns `Ok` only for a real directory (not a symlink) owned by the current user
//! with no group or other permissions, creating it (mode 0700) when missing and tightening the mode of
//! one of ours that is too open.

use std::fs::{DirBuilder, File, Metadata};
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use nix::fcntl::OFlag;
use nix::sys::stat::Mode;

/// Creates `dir` (and missing parents, mode 0700) and checks it with `lstat`.
pub(crate) fn ensure(dir: &Path) -> io::Result<()> {
    match DirBuilder::new().recursive(true).mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) => return Err(io::Error::new(e.kind(), format!("cannot create {}: {e}", dir.display()))),
    }
    let meta = std::fs::symlink_metadata(dir)?;
    let refuse = |why: &str| Err(io::Error::new(io::ErrorKind::PermissionDenied, format!("{}: {why}", dir.display())));
    if meta.file_type().is_symlink() {
        return refuse("is a symbolic link; refusing to use it");
    }
    if !meta.is_dir() {
        return refuse("is not a directory");
    }
    if meta.uid() != current_uid() {
        return refuse("is owned by another user; refusing to use it");
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// The user's own runtime directory (`$XDG_RUNTIME_DIR`), when it is set and passes [`ensure`]'s
/// checks; never created here (the system makes it at login).
fn runtime_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("XDG_RUNTIME_DIR")?);
    (dir.is_absolute() && dir.is_dir() && ensure(&dir).is_ok()).then_some(dir)
}

/// A fresh directory of random name, mode 0700 from its creation (the umask would leave it 0755 and
/// listable by everyone), removed when dropped: under the user's runtime directory when there is
/// one, else under the system's temporary directory. For private files that need no state directory.
/// The error names the parent it was tried in.
pub(crate) fn temp_dir(prefix: &str) -> Result<TempDir, (PathBuf, io::Error)> {
    let parent = runtime_dir().unwrap_or_else(std::env::temp_dir);
    tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(&parent)
        .map_err(|e| (parent, e))
}

/// Opens `dir` for `*at` calls: a real directory (a symlink in its place is refused) owned by the user.
/// Resolving names against this fd rather than the path means the directory cannot be swapped for a
/// link between the check and the use.
pub(crate) fn open_dir(dir: &Path) -> io::Result<OwnedFd> {
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let fd = nix::fcntl::open(dir, flags, Mode::empty()).map_err(|e| {
        let e = io::Error::from(e);
        if e.raw_os_error() == Some(libc::ELOOP) || e.raw_os_error() == Some(libc::ENOTDIR) {
            io::Error::new(io::ErrorKind::PermissionDenied, format!("{}: not a real directory", dir.display()))
        } else {
            e
        }
    })?;
    let stat = nix::sys::stat::fstat(&fd)?;
    if stat.st_uid != current_uid() {
        let why = format!("{}: owned by another user; refusing to use it", dir.display());
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, why));
    }
    Ok(fd)
}

/// Opens `name` in `dir` for reading: a regular file only, never through a symbolic link.
pub(crate) fn open_regular_in(dir: &OwnedFd, name: &str) -> io::Result<File> {
    let flags = OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
    let fd = nix::fcntl::openat(dir, name, flags, Mode::empty())?;
    let file = File::from(fd);
    if !file.metadata()?.file_type().is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{name} is not a regular file")));
    }
    Ok(file)
}

/// Creates `name` in `dir` for reading and writing, mode 0600: fails if anything (a file, a link) is there already.
pub(crate) fn create_new_in(dir: &OwnedFd, name: &str) -> io::Result<File> {
    let flags = OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let fd = nix::fcntl::openat(dir, name, flags, Mode::from_bits_truncate(0o600))?;
    Ok(File::from(fd))
}

/// Opens `name` in `dir` for appending (created 0600 when missing), never through a symbolic link.
pub(crate) fn append_in(dir: &OwnedFd, name: &str) -> io::Result<File> {
    let flags = OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_APPEND | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let fd = nix::fcntl::openat(dir, name, flags, Mode::from_bits_truncate(0o600))?;
    let file = File::from(fd);
    if !file.metadata()?.file_type().is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{name} is not a regular file")));
    }
    Ok(file)
}

/// Whether `lstat` metadata describes a regular file (not a symlink) owned by the current user.
pub(crate) fn is_own_regular_file(meta: &Metadata) -> bool {
    meta.file_type().is_file() && meta.uid() == current_uid()
}

fn current_uid() -> u32 {
    // SAFETY: getuid(2) takes nothing and cannot fail.
    unsafe { libc::getuid() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_directory_is_private_from_its_creation_whatever_the_umask() {
        let dir = temp_dir("bashrt-test-").unwrap();
        let meta = std::fs::symlink_metadata(dir.path()).unwrap();
        assert!(meta.is_dir());
        assert_eq!((meta.mode() & 0o777, meta.uid()), (0o700, current_uid()));
    }

    #[test]
    fn creates_private_and_tightens_an_open_one() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("a/b");
        ensure(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        ensure(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
    }

    #[test]
    fn files_are_opened_without_following_links() {
        let base = tempfile::tempdir().unwrap();
        std::fs::write(base.path().join("real"), "x").unwrap();
        std::os::unix::fs::symlink(base.path().join("real"), base.path().join("link")).unwrap();
        std::fs::create_dir(base.path().join("sub")).unwrap();
        let dir = open_dir(base.path()).unwrap();
        assert!(open_regular_in(&dir, "real").is_ok());
        assert!(open_regular_in(&dir, "link").is_err());
        assert!(open_regular_in(&dir, "sub").is_err());
        assert!(create_new_in(&dir, "link").is_err());
        assert!(append_in(&dir, "link").is_err());
        assert!(open_dir(&base.path().join("link")).is_err());
    }

    #[test]
    fn refuses_a_symlink() {
        let base = tempfile::tempdir().unwrap();
        let real = base.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = base.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let error = ensure(&link).unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
    }
}
