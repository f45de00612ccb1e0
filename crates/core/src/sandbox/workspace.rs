//! The workspace of a directory: the git top level above it (with a linked worktree's common `.git`
//! directory, where git writes its objects and refs), else the directory itself.

use std::path::{Path, PathBuf};

/// The workspace roots of `cwd`, canonical.
pub(super) fn roots(cwd: &Path) -> Vec<PathBuf> {
    let Ok(cwd) = std::fs::canonicalize(cwd) else { return vec![cwd.to_path_buf()] };
    for dir in cwd.ancestors() {
        let dot_git = dir.join(".git");
        let Ok(meta) = std::fs::symlink_metadata(&dot_git) else { continue };
        let mut roots = vec![dir.to_path_buf()];
        if meta.is_file() {
            roots.extend(common_dir(&dot_git, dir));
        }
        return roots;
    }
    vec![cwd]
}

/// A worktree's `.git` file says `gitdir: <repo>/.git/worktrees/<name>`; that directory's
/// `commondir` names the repository's `.git`, which commits write to.
fn common_dir(dot_git: &Path, top: &Path) -> Option<PathBuf> {
    let text = read_small(dot_git)?;
    let gitdir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let gitdir = top.join(gitdir);
    let common = match read_small(&gitdir.join("commondir")) {
        Some(rel) => gitdir.join(rel.trim()),
        None => gitdir,
    };
    std::fs::canonicalize(common).ok()
}

/// A small regular file's text, read without waiting (a FIFO planted as `.git` is not read).
fn read_small(path: &Path) -> Option<String> {
    let file = crate::private_dir::open_regular(path).ok()?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(file, 4096), &mut text).ok()?;
    Some(text)
}
