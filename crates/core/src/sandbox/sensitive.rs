//! Writes inside the workspace that run code outside the sandbox later: git hooks and git's
//! config (a hook, an `alias`, a `core.fsmonitor` or a filter runs at the user's next unconfined git
//! command), `.gitattributes` (filters), `.envrc` (direnv), an editor's tasks and dev-container
//! files. Landlock grants a subtree whole, so these cannot be refused inside a writable workspace;
//! they are watched instead (inotify, set up once per workspace), and a result says which changed.
//! Per call, one non-blocking read of the watch.

use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify, WatchDescriptor};

/// Changes of these kinds count.
const CHANGES: AddWatchFlags = AddWatchFlags::IN_CLOSE_WRITE
    .union(AddWatchFlags::IN_MOVED_TO)
    .union(AddWatchFlags::IN_CREATE)
    .union(AddWatchFlags::IN_ATTRIB)
    .union(AddWatchFlags::IN_MODIFY);

/// What is watched in a directory: every name (`None`), or these names.
struct Watched {
    wd: WatchDescriptor,
    /// How the directory is shown (`.git/hooks`).
    shown: String,
    names: Option<&'static [&'static str]>,
}

pub(super) struct Sensitive {
    inotify: Inotify,
    watched: Vec<Watched>,
}

impl std::fmt::Debug for Sensitive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sensitive").field("watched", &self.watched.len()).finish()
    }
}

impl Sensitive {
    /// Watches for the workspace whose top level is `top` (and, for a linked worktree, whose
    /// repository's `.git` is `common`). `None` where inotify is not available.
    pub(super) fn watch(top: &Path, common: Option<&Path>) -> Option<Self> {
        let inotify = Inotify::init(InitFlags::IN_NONBLOCK | InitFlags::IN_CLOEXEC).ok()?;
        let git = common.map(Path::to_path_buf).unwrap_or_else(|| top.join(".git"));
        let places: [(PathBuf, String, Option<&'static [&'static str]>); 5] = [
            (git.join("hooks"), ".git/hooks".into(), None),
            (git.clone(), ".git".into(), Some(&["config"])),
            (git.join("info"), ".git/info".into(), Some(&["attributes"])),
            (top.to_path_buf(), String::new(), Some(&[".gitattributes", ".envrc", ".gitmodules"])),
            (top.join(".vscode"), ".vscode".into(), Some(&["tasks.json", "settings.json", "launch.json"])),
        ];
        let mut watched = Vec::new();
        for (dir, shown, names) in places {
            if let Ok(wd) = inotify.add_watch(&dir, CHANGES) {
                watched.push(Watched { wd, shown, names });
            }
        }
        if let Ok(wd) = inotify.add_watch(&top.join(".devcontainer"), CHANGES) {
            watched.push(Watched { wd, shown: ".devcontainer".into(), names: None });
        }
        Some(Self { inotify, watched })
    }

    /// The watched files that changed since the last look, as paths in the workspace, each once.
    pub(super) fn changed(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        // Each read takes what is queued; an empty queue answers EAGAIN at once.
        while let Ok(events) = self.inotify.read_events() {
            if events.is_empty() {
                break;
            }
            for event in events {
                let Some(watched) = self.watched.iter().find(|w| w.wd == event.wd) else { continue };
                let Some(name) = event.name.as_ref().and_then(|n| n.to_str()) else { continue };
                // Git runs no `*.sample` hook (`git init` writes them), nor editors' swap files.
                if watched.names.is_some_and(|names| !names.contains(&name))
                    || name.ends_with(".sample")
                    || name.ends_with(".lock")
                    || name.ends_with('~')
                {
                    continue;
                }
                let path = match watched.shown.as_str() {
                    "" => name.to_string(),
                    dir => format!("{dir}/{name}"),
                };
                if !out.contains(&path) {
                    out.push(path);
                }
            }
        }
        let _ = self.inotify.as_fd();
        out
    }
}
