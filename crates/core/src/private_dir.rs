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

/// Checks that no other user controls `dir` (which need not exist yet): every directory on its
/// canonical path, from `/` down to `dir` itself where it exists, is owned by the user or by root, and
/// none is writable by others unless it is sticky (like `/tmp`, where others cannot rename or remove
/// what is ours). A directory another user owns or may write to, anywhere above, would let them put
/// their own tree (a session, its log, a snapshot) where bashrt looks. `dir` itself, when it is the
/// user's, is made private (0700) rather than refused, as [`ensure`] does.
pub(crate) fn check_trusted(dir: &Path) -> io::Result<()> {
    // The nearest part of the path that exists, resolved: the rest will be created by us, 0700.
    let mut existing = dir;
    let canonical = loop {
        match std::fs::canonicalize(existing) {
            Ok(path) => break path,
            Err(_) => match existing.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => existing = parent,
                _ => return Ok(()),
            },
        }
    };
    let me = current_uid();
    let mut at = PathBuf::new();
    for part in canonical.components() {
        at.push(part);
        let meta = std::fs::symlink_metadata(&at)?;
        let refuse =
            |why: String| Err(io::Error::new(io::ErrorKind::PermissionDenied, format!("{}: {why}", at.display())));
        if meta.uid() != me && meta.uid() != 0 {
            return refuse(format!("owned by another user (uid {}); refusing to use {}", meta.uid(), dir.display()));
        }
        if meta.mode() & 0o022 != 0 && meta.mode() & 0o1000 == 0 {
            if at == canonical && existing == dir && meta.uid() == me {
                std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o700))?;
                continue;
            }
            return refuse(format!("writable by other users; refusing to use {}", dir.display()));
        }
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
    temp_dir_in(runtime_dir().unwrap_or_else(std::env::temp_dir), prefix)
}

/// [`temp_dir`] in a memory file system: the user's runtime directory, else `/dev/shm`, else the
/// system's temporary directory. For files made and renamed often (a confined shell's FIFOs), where
/// a disk file system would journal every change.
pub(crate) fn memory_temp_dir(prefix: &str) -> Result<TempDir, (PathBuf, io::Error)> {
    temp_dir_in(memory_parent(), prefix).or_else(|_| temp_dir(prefix))
}

/// `<prefix><pid>-`: the start of the name of a directory this process makes under a shared parent,
/// so that one left by a process that was killed can be told ([`prune_left`]).
pub(crate) fn owned_prefix(prefix: &str) -> String {
    format!("{prefix}{}-", std::process::id())
}

/// Removes what processes that no longer run left in `parent` under names made by [`owned_prefix`]
/// (a runtime killed with SIGKILL removes nothing itself): each entry of the user's whose pid is not
/// alive. A pid reused by another live process keeps its entry, for now.
pub(crate) fn prune_left(parent: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    let uid = current_uid();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else { continue };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<i32>().ok()) else { continue };
        let gone = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) == Err(nix::errno::Errno::ESRCH);
        let mine = entry.metadata().is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == uid);
        if gone && mine {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The parent [`memory_temp_dir`] makes its directories in.
pub(crate) fn memory_parent() -> PathBuf {
    let shm = Path::new("/dev/shm");
    runtime_dir().or_else(|| shm.is_dir().then(|| shm.to_path_buf())).unwrap_or_else(std::env::temp_dir)
}

pub(crate) fn temp_dir_in(parent: PathBuf, prefix: &str) -> Result<TempDir, (PathBuf, io::Error)> {
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
    let fd = nix::fcntl::openat(dir, name, flags, Mode::empty()).map_err(|e| match e {
        nix::errno::Errno::ENOENT => io::Error::from(e),
        other => not_regular(name, other),
    })?;
    regular(File::from(fd), name)
}

/// Creates `name` in `dir` for reading and writing, mode 0600: fails if anything (a file, a link) is there already.
pub(crate) fn create_new_in(dir: &OwnedFd, name: &str) -> io::Result<File> {
    let flags = OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let fd = nix::fcntl::openat(dir, name, flags, Mode::from_bits_truncate(0o600))?;
    Ok(File::from(fd))
}

/// Opens `name` in `dir` for appending (created 0600 when missing), never through a symbolic link,
/// never waiting (a FIFO planted there is refused, not waited on), and only a regular file.
pub(crate) fn append_in(dir: &OwnedFd, name: &str) -> io::Result<File> {
    let flags =
        OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_APPEND | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
    let fd = nix::fcntl::openat(dir, name, flags, Mode::from_bits_truncate(0o600)).map_err(|e| not_regular(name, e))?;
    regular(File::from(fd), name)
}

/// Opens `path` for reading the way every file bashrt keeps is opened: never through a symbolic
/// link, never waiting (a FIFO or a device planted in its place would block `open` for good: it is
/// refused), and only a regular file. For files named by a path the user gives (settings) or that
/// a listing found (an artifact, a log).
pub fn open_regular(path: &Path) -> io::Result<File> {
    let flags = OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
    let name = path.display().to_string();
    let fd = nix::fcntl::open(path, flags, Mode::empty()).map_err(|e| not_regular(&name, e))?;
    regular(File::from(fd), &name)
}

/// `file` when it is a regular file, with `O_NONBLOCK` cleared (it changes nothing for a regular
/// file, but a reader may hand the file on).
pub(crate) fn regular(file: File, name: &str) -> io::Result<File> {
    if !file.metadata()?.file_type().is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{name} is not a regular file")));
    }
    let flags = nix::fcntl::fcntl(&file, nix::fcntl::FcntlArg::F_GETFL)?;
    let flags = OFlag::from_bits_truncate(flags) & !OFlag::O_NONBLOCK;
    nix::fcntl::fcntl(&file, nix::fcntl::FcntlArg::F_SETFL(flags))?;
    Ok(file)
}

/// An `open` error, said plainly for a link (`O_NOFOLLOW` gives ELOOP) and for a FIFO without a reader
/// or writer (`O_NONBLOCK` gives ENXIO).
pub(crate) fn not_regular(name: &str, error: nix::errno::Errno) -> io::Error {
    match error {
        nix::errno::Errno::ELOOP | nix::errno::Errno::ENXIO => {
            io::Error::new(io::ErrorKind::InvalidInput, format!("{name} is not a regular file"))
        }
        other => io::Error::from(other),
    }
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
    fn a_directory_under_the_users_own_and_root_owned_ones_is_trusted() {
        let base = tempfile::tempdir().unwrap();
        assert!(check_trusted(&base.path().join("state/sub")).is_ok());
        assert!(check_trusted(Path::new("/")).is_ok());
        // The directory itself, the user's and open to others, is made private; above it, a
        // directory others may write to (and rename things in) is refused, whoever owns it.
        let state = base.path().join("state");
        std::fs::create_dir(&state).unwrap();
        std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(check_trusted(&state).is_ok());
        assert_eq!(std::fs::metadata(&state).unwrap().mode() & 0o777, 0o700);
        std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let error = check_trusted(&state).unwrap_err();
        let expected = format!("writable by other users; refusing to use {}", state.display());
        assert!(error.to_string().ends_with(&expected), "{error}");
        std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        assert!(check_trusted(&state).is_ok());
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
