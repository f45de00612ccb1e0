//! Writes inside the workspace that run code outside the sandbox later: git hooks and git's
//! config (a hook, an `alias`, a `core.fsmonitor` or a filter runs at the user's next unconfined git
//! command), `.gitattributes` (filters), `.envrc` (direnv), an editor's tasks and dev-container
//! files. Landlock grants a subtree whole, so these cannot be refused inside a writable workspace;
//! they are looked at instead, and a result says which changed.
//!
//! Two ways to look, by how long the runtime lives. A long-lived one (RPC, MCP, TUI) watches
//! (inotify, set up once per workspace): per call, one non-blocking read. A runtime of one call
//! (`bashrt run`) compares the files' `stat`s before and after instead: an inotify instance costs
//! its process milliseconds when it is closed, even at exit (the kernel waits for a grace period),
//! more than the whole call.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify, WatchDescriptor};

/// Changes of these kinds count.
const CHANGES: AddWatchFlags = AddWatchFlags::IN_CLOSE_WRITE
    .union(AddWatchFlags::IN_MOVED_TO)
    .union(AddWatchFlags::IN_CREATE)
    .union(AddWatchFlags::IN_ATTRIB)
    .union(AddWatchFlags::IN_MODIFY);

/// A directory looked at: every name in it (`None`), or these names. Shown as `shown/name`.
struct Place {
    dir: PathBuf,
    shown: String,
    names: Option<&'static [&'static str]>,
}

fn places(top: &Path, common: Option<&Path>) -> Vec<Place> {
    let git = common.map(Path::to_path_buf).unwrap_or_else(|| top.join(".git"));
    let place = |dir: PathBuf, shown: &str, names| Place { dir, shown: shown.to_string(), names };
    vec![
        place(git.join("hooks"), ".git/hooks", None),
        place(git.clone(), ".git", Some(&["config"])),
        place(git.join("info"), ".git/info", Some(&["attributes"])),
        place(top.to_path_buf(), "", Some(&[".gitattributes", ".envrc", ".gitmodules"])),
        place(top.join(".vscode"), ".vscode", Some(&["tasks.json", "settings.json", "launch.json"])),
        place(top.join(".devcontainer"), ".devcontainer", None),
    ]
}

/// A name that counts: git runs no `*.sample` hook (`git init` writes them), nor editors' swap
/// files or git's own lock files.
fn counts(place: &Place, name: &str) -> bool {
    place.names.is_none_or(|names| names.contains(&name))
        && !name.ends_with(".sample")
        && !name.ends_with(".lock")
        && !name.ends_with('~')
}

fn shown(place: &Place, name: &str) -> String {
    match place.shown.as_str() {
        "" => name.to_string(),
        dir => format!("{dir}/{name}"),
    }
}

pub(super) struct Sensitive {
    how: How,
}

enum How {
    Watch { inotify: Inotify, watched: Vec<(WatchDescriptor, Place)> },
    Stat { places: Vec<Place>, last: Mutex<Vec<(String, FileStamp)>> },
}

/// What tells a file's change: its inode, size, and change time.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp(u64, u64, i64, i64);

impl std::fmt::Debug for Sensitive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.how {
            How::Watch { watched, .. } => f.debug_struct("Watch").field("watched", &watched.len()).finish(),
            How::Stat { places, .. } => f.debug_struct("Stat").field("places", &places.len()).finish(),
        }
    }
}

impl Sensitive {
    /// Looks at the workspace whose top level is `top` (and, for a linked worktree, whose
    /// repository's `.git` is `common`): watching when `watch`, else by `stat`. `None` where
    /// inotify is not available.
    pub(super) fn new(top: &Path, common: Option<&Path>, watch: bool) -> Option<Self> {
        let places = places(top, common);
        if !watch {
            let last = Mutex::new(stamps(&places));
            return Some(Self { how: How::Stat { places, last } });
        }
        let inotify = Inotify::init(InitFlags::IN_NONBLOCK | InitFlags::IN_CLOEXEC).ok()?;
        let watched = places
            .into_iter()
            .filter_map(|place| Some((inotify.add_watch(&place.dir, CHANGES).ok()?, place)))
            .collect();
        Some(Self { how: How::Watch { inotify, watched } })
    }

    /// The files that changed since the last look, as paths in the workspace, each once.
    pub(super) fn changed(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        match &self.how {
            How::Watch { inotify, watched } => {
                // Each read takes what is queued; an empty queue answers EAGAIN at once.
                while let Ok(events) = inotify.read_events() {
                    if events.is_empty() {
                        break;
                    }
                    for event in events {
                        let Some((_, place)) = watched.iter().find(|(wd, _)| *wd == event.wd) else { continue };
                        let Some(name) = event.name.as_ref().and_then(|n| n.to_str()) else { continue };
                        let path = shown(place, name);
                        if counts(place, name) && !out.contains(&path) {
                            out.push(path);
                        }
                    }
                }
            }
            How::Stat { places, last } => {
                let now = stamps(places);
                let mut last = last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                for (path, stamp) in &now {
                    if !last.iter().any(|(p, s)| p == path && s == stamp) {
                        out.push(path.clone());
                    }
                }
                *last = now;
            }
        }
        out
    }
}

/// The stamps of every file that counts in `places`.
fn stamps(places: &[Place]) -> Vec<(String, FileStamp)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    for place in places {
        let names: Vec<String> = match place.names {
            Some(names) => names.iter().map(|n| n.to_string()).collect(),
            None => match std::fs::read_dir(&place.dir) {
                Ok(entries) => entries.flatten().filter_map(|e| e.file_name().into_string().ok()).collect(),
                Err(_) => continue,
            },
        };
        for name in names.iter().filter(|n| counts(place, n)) {
            if let Ok(meta) = std::fs::symlink_metadata(place.dir.join(name)) {
                let stamp = FileStamp(meta.ino(), meta.size(), meta.ctime(), meta.ctime_nsec());
                out.push((shown(place, name), stamp));
            }
        }
    }
    out
}
