//! Directories only the user can enter. Everything bashrt keeps on disk (snapshots it sources, artifacts,
//! session logs) lives under one, because a file another local user could write or replace would let
//! them run code as you, or read what your commands printed.
//!
//! Promises: [`ensure`] returns `Ok` only for a real directory (not a symlink) owned by the current user
//! with no group or other permissions, creating it (mode 0700) when missing and tightening the mode of
//! one of ours that is too open.

use std::fs::{DirBuilder, Metadata};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::Path;

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
