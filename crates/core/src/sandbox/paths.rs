//! The policy as paths: what is writable, what is unreadable, resolved once per workspace.

use std::ffi::OsString;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Component, Path, PathBuf};

use super::settings::{CacheRoots, Mode, Network, SandboxSettings};

/// Package caches writable under `sandbox.cacheRoots = "auto"`, when they exist: what builds write
/// to, never a directory on `PATH` or a file sourced at login (`~/.cargo/bin`, `~/.local/bin`,
/// `~/go/bin`, toolchains), where a confined command could plant code the user later runs unconfined.
const AUTO_CACHES: &[&str] = &[
    "~/.cache",
    "~/.npm",
    "~/.pnpm-store",
    "~/.local/share/pnpm/store",
    "~/.bun/install/cache",
    "~/.yarn/berry/cache",
    "~/.cargo/registry",
    "~/.cargo/git",
    "~/.cargo/.package-cache",
    "~/.cargo/.package-cache-mutate",
    "~/.cargo/.global-cache",
    "~/.rustup/tmp",
    "~/.rustup/downloads",
    "~/.rustup/settings.toml",
    "~/go/pkg/mod",
    "~/.m2/repository",
    "~/.gradle/caches",
    "~/.gradle/wrapper/dists",
    "~/.ivy2/cache",
    "~/.nuget/packages",
];

/// Variables naming a cache directory, writable when set (under `"auto"`).
const CACHE_VARS: &[&str] =
    &["GOMODCACHE", "GOCACHE", "npm_config_cache", "PIP_CACHE_DIR", "UV_CACHE_DIR", "XDG_CACHE_HOME"];

/// Always writable (in both modes): the null device and its kind, and terminals.
pub(super) const DEVICES: &[&str] =
    &["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"];

/// Unix sockets that answer questions and change nothing: name service caches, the journal and the
/// system log, systemd's resolver and user database.
const SYSTEM_SOCKETS: &[&str] = &[
    "/run/nscd/socket",
    "/var/run/nscd/socket",
    "/var/lib/sss/pipes/nss",
    "/run/systemd/resolve/io.systemd.Resolve",
    "/run/systemd/userdb/io.systemd.Multiplexer",
    "/run/systemd/userdb/io.systemd.NameServiceSwitch",
    "/run/systemd/journal/socket",
    "/run/systemd/journal/stdout",
    "/dev/log",
];

/// Writable in `workspace-write` besides the workspace: test tooling writes `/tmp/...` directly.
const SHARED_TMP: &[&str] = &["/tmp", "/dev/shm", "/var/tmp"];

/// The resolved policy; every path canonical (symbolic links resolved, as the kernel sees them).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Policy {
    pub mode: Mode,
    pub network: Network,
    /// The git top level of the directory (and a linked worktree's common `.git`), else the directory.
    pub workspace: Vec<PathBuf>,
    /// Every writable root that exists, the workspace's included.
    pub writable: Vec<PathBuf>,
    /// Every unreadable path that exists.
    pub deny_read: Vec<PathBuf>,
    /// `$HOME`, for showing paths as `~/…`.
    pub home: Option<PathBuf>,
    /// The runtime's own directories the commands write to (their `TMPDIR`, the runner's).
    pub own: Vec<PathBuf>,
}

impl Policy {
    /// `own`: the runtime's private directories the commands write to (their `TMPDIR`, the runner's).
    pub fn resolve(settings: &SandboxSettings, workspace: Vec<PathBuf>, home: Option<&Path>, own: &[&Path]) -> Self {
        let expand = |p: &Path| expand_home(p, home);
        let mut writable: Vec<PathBuf> = own.iter().map(|p| p.to_path_buf()).collect();
        if settings.mode == Mode::WorkspaceWrite {
            writable.extend(workspace.iter().cloned());
            writable.extend(SHARED_TMP.iter().map(PathBuf::from));
            match &settings.cache_roots {
                CacheRoots::Auto => {
                    writable.extend(AUTO_CACHES.iter().filter_map(|p| expand(Path::new(p))));
                    writable.extend(
                        CACHE_VARS.iter().filter_map(std::env::var_os).filter(|v| !v.is_empty()).map(PathBuf::from),
                    );
                    if let Some(cargo) = std::env::var_os("CARGO_HOME").filter(|v| !v.is_empty()).map(PathBuf::from) {
                        for part in ["registry", "git", ".package-cache", ".package-cache-mutate", ".global-cache"] {
                            writable.push(cargo.join(part));
                        }
                    }
                }
                CacheRoots::Listed(list) => writable.extend(list.iter().filter_map(|p| expand(p))),
            }
            writable.extend(settings.writable_roots.iter().filter_map(|p| expand(p)));
        }
        let mut writable: Vec<PathBuf> = writable.iter().filter_map(|p| canonical(p)).collect();
        writable.sort();
        writable.dedup();
        let mut deny_read: Vec<PathBuf> =
            settings.deny_read.iter().filter_map(|p| expand(p)).filter_map(|p| canonical(&p)).collect();
        deny_read.sort();
        deny_read.dedup();
        let own = own.iter().filter_map(|p| canonical(p)).collect();
        Self {
            mode: settings.mode,
            network: settings.network,
            workspace,
            writable,
            deny_read,
            home: home.map(Path::to_path_buf),
            own,
        }
    }

    /// What the network supervisor checks for this policy: unix sockets in the workspace and the
    /// runtime's own directories, the system's informational ones, the listed ones; loopback ports.
    pub fn net_policy(&self, settings: &SandboxSettings) -> super::supervisor::NetPolicy {
        let home = self.home.as_deref();
        let mut unix_sockets: Vec<PathBuf> = SYSTEM_SOCKETS.iter().filter_map(|p| canonical(Path::new(p))).collect();
        unix_sockets.extend(
            settings.allow_unix_sockets.iter().filter_map(|p| expand_home(p, home)).filter_map(|p| canonical(&p)),
        );
        super::supervisor::NetPolicy {
            loopback: self.network == Network::Loopback,
            unix_roots: self.workspace.iter().chain(&self.own).cloned().collect(),
            unix_sockets,
            allowed_ports: settings.allow_loopback_ports.clone(),
        }
    }

    pub fn digest(&self, env_removed: &[OsString]) -> u64 {
        let mut hasher = DefaultHasher::new();
        self.hash(&mut hasher);
        env_removed.hash(&mut hasher);
        hasher.finish()
    }

    /// `path` lies in a writable root.
    pub fn writable(&self, path: &Path) -> bool {
        self.writable.iter().any(|root| path.starts_with(root))
    }

    /// `path` lies in an unreadable one.
    pub fn unreadable(&self, path: &Path) -> bool {
        self.deny_read.iter().any(|root| path.starts_with(root))
    }

    /// `path` as the user knows it: `~/…` under the home directory.
    pub fn show(&self, path: &Path) -> String {
        match self.home.as_deref().and_then(|home| path.strip_prefix(home).ok()) {
            Some(rest) if rest.as_os_str().is_empty() => "~".into(),
            Some(rest) => format!("~/{}", rest.display()),
            None => path.display().to_string(),
        }
    }

    pub fn explain(&self, env_removed: &[OsString]) -> String {
        let list = |paths: &[PathBuf]| paths.iter().map(|p| self.show(p)).collect::<Vec<_>>().join(", ");
        let mode = match self.mode {
            Mode::WorkspaceWrite => "workspace-write",
            Mode::ReadOnly => "read-only",
            Mode::Off => "off",
        };
        let network = match self.network {
            Network::Off => "off",
            Network::Loopback => "loopback",
            Network::On => "on",
        };
        let names = env_removed.iter().map(|n| n.to_string_lossy()).collect::<Vec<_>>().join(", ");
        format!(
            "mode: {mode}\nnetwork: {network}\nworkspace: {}\nwritable: {}\nunreadable: {}\nenvironment left out: {}\n",
            list(&self.workspace),
            list(&self.writable),
            if self.deny_read.is_empty() { "(none)".into() } else { list(&self.deny_read) },
            if names.is_empty() { "(none)" } else { &names },
        )
    }
}

/// `~` and `~/x` against `home`; other paths as given; `None` for `~` without a home.
pub(super) fn expand_home(path: &Path, home: Option<&Path>) -> Option<PathBuf> {
    match path.strip_prefix("~") {
        Ok(rest) => home.map(|h| h.join(rest)),
        Err(_) => Some(path.to_path_buf()),
    }
}

/// The path with its links resolved, when it exists. Most listed paths do not (a cache of a tool
/// the user lacks): one `stat` tells, before `realpath` reads every component's link.
fn canonical(path: &Path) -> Option<PathBuf> {
    std::fs::symlink_metadata(path).ok()?;
    std::fs::canonicalize(path).ok()
}

/// `path` made absolute against `cwd` and normalized lexically (`.` and `..` removed), then the
/// longest existing prefix resolved: what the kernel would have looked up.
pub(super) fn resolve_against(path: &Path, cwd: &Path) -> PathBuf {
    let joined = cwd.join(path);
    let mut lexical = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                lexical.pop();
            }
            Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    let mut existing = lexical.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return lexical,
        }
    }
}

/// The private temporary directory of a runtime's confined commands (`TMPDIR`): a fresh directory of
/// random name, 0700 from its creation, in the system's temporary directory (`bashrt-tmp-<pid>-…`:
/// no name another user could make first), removed with its contents when the runtime ends, or by
/// the next runtime when this one was killed.
#[derive(Debug)]
pub(crate) struct PrivateTmp {
    path: PathBuf,
}

/// The start of a private `TMPDIR`'s name.
const TMP_PREFIX: &str = "bashrt-tmp-";

impl PrivateTmp {
    pub(crate) fn create() -> std::io::Result<Self> {
        let parent = std::env::temp_dir();
        // What runtimes killed before they could remove theirs left.
        crate::private_dir::prune_left(&parent, TMP_PREFIX);
        let dir = crate::private_dir::temp_dir_in(parent, &crate::private_dir::owned_prefix(TMP_PREFIX))
            .map_err(|(path, e)| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        Ok(Self { path: dir.keep() })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PrivateTmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
