//! The sandbox: what a model's command may write, read and reach, enforced by the kernel.
//!
//! A [`Sandbox`] is compiled once per workspace from the [`SandboxSettings`]: a Landlock ruleset
//! (writes only to the workspace, the temporary directories and the package caches; reads everywhere
//! but the credentials), a seccomp filter (no kernel keyrings, io_uring, BPF or perf; no IP sockets
//! when the network is off) and the names of the secret-looking variables left out of the
//! environment. A shell is confined when it is spawned ([`Sandbox::confine`]): the child, between
//! `fork` and `exec`, sets no-new-privileges and enforces the prepared ruleset and filter — three
//! system calls, no allocation — so a long-lived shell is confined once and its warm calls cost
//! nothing more, and everything it starts (background jobs, `setsid` children) stays confined.
//! Landlock and seccomp change no pid or process group: the marker, the tree kill and the reaper
//! work as without them.
//!
//! After a call, [`Sandbox::denials`] reads the output the model sees for the sandbox's refusals and
//! checks each named path against the same policy that built the ruleset and against the user's own
//! rights, so that an ordinary `Permission denied` is never blamed on the sandbox.

mod cache;
mod child;
mod denial;
mod grant;
mod paths;
mod rules;
mod secrets;
mod sensitive;
mod settings;
mod supervisor;
mod workspace;

use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub use denial::{Certainty, Denial, DenialKind};
pub use grant::{Approval, ApprovalAsk, Approver, RequestedNetwork, SandboxRequest};
pub use settings::{ApprovalPolicy, CacheRoots, Fallback, Mode, Network, SandboxSettings};

pub(crate) use cache::SandboxCache;

/// Why a sandbox could not be made; the call is refused (or, with `sandbox.fallback = "warn"`, runs
/// unconfined and says so).
#[derive(Debug, Clone, thiserror::Error)]
pub enum SandboxError {
    /// The kernel cannot enforce it (no Landlock, or a container's seccomp profile denies it).
    #[error("{0}")]
    Unavailable(String),
    /// A step of building the rules failed.
    #[error("{step}: {reason}")]
    Build {
        /// What was being done.
        step: &'static str,
        /// The system's answer.
        reason: String,
    },
}

impl SandboxError {
    /// The text of a refused call.
    pub fn refusal(&self) -> String {
        format!(
            "Sandbox unavailable: {self}. Set sandbox.mode = \"off\" to run commands unsandboxed, or \
             sandbox.fallback = \"warn\" to run them unsandboxed with a warning on every result."
        )
    }
}

/// A compiled policy, ready to confine shells; see the module docs. Shared by every shell of its
/// workspace (an `Arc`), so that compiling happens once.
#[derive(Debug)]
pub struct Sandbox {
    policy: paths::Policy,
    digest: u64,
    /// The Landlock ruleset, populated; each confined child enforces it on itself.
    ruleset: OwnedFd,
    /// The seccomp program.
    filter: Vec<libc::sock_filter>,
    /// The supervisor that answers the program's notifications.
    supervisor: Arc<supervisor::Supervisor>,
    /// Variables of the runtime's environment that look like secrets: left out of every shell's.
    env_removed: Vec<OsString>,
    /// The private `TMPDIR`.
    tmpdir: PathBuf,
    /// Where confined long-lived shells keep their runner's FIFOs (they cannot open the runtime's
    /// descriptors): private, writable by the ruleset, removed with the sandbox.
    runner_dir: tempfile::TempDir,
    /// The notice naming `env_removed` was given.
    told_env: AtomicBool,
    /// Files in the workspace that run outside the sandbox later, watched.
    sensitive: Option<sensitive::Sensitive>,
    /// Copies of the snapshots its shells source, by the runtime's path of each.
    snapshots: std::sync::Mutex<std::collections::HashMap<PathBuf, PathBuf>>,
}

// SAFETY: `sock_filter` is plain data; the program is only read (by confined children).
unsafe impl Send for Sandbox {}
// SAFETY: as above.
unsafe impl Sync for Sandbox {}

/// Two sandboxes are equal when they confine alike.
impl PartialEq for Sandbox {
    fn eq(&self, other: &Self) -> bool {
        self.digest == other.digest
    }
}

impl Eq for Sandbox {}

impl Sandbox {
    /// Compiles the policy of `settings` for commands run in `workspace` (its roots), with `tmpdir`
    /// as their private temporary directory; `watch`: a long-lived runtime's (see `sensitive`).
    fn compile(
        settings: &SandboxSettings,
        workspace: Vec<PathBuf>,
        tmpdir: &Path,
        supervisor: Arc<supervisor::Supervisor>,
        watch: bool,
    ) -> Result<Arc<Self>, SandboxError> {
        let abi = rules::abi();
        if abi == 0 {
            return Err(SandboxError::Unavailable(
                "Landlock is not supported here (ABI 0): the kernel is older than 5.13, Landlock is not \
                 enabled at boot, or a container's seccomp profile denies it"
                    .into(),
            ));
        }
        let home = std::env::var_os("HOME").map(PathBuf::from);
        crate::private_dir::prune_left(&crate::private_dir::memory_parent(), "bashrt-shells-");
        let runner_dir = crate::private_dir::memory_temp_dir(&crate::private_dir::owned_prefix("bashrt-shells-"))
            .map_err(|(path, e)| SandboxError::Build {
                step: "runner directory",
                reason: format!("{}: {e}", path.display()),
            })?;
        let sensitive = workspace
            .first()
            .and_then(|top| sensitive::Sensitive::new(top, workspace.get(1).map(PathBuf::as_path), watch));
        let policy = paths::Policy::resolve(settings, workspace, home.as_deref(), &[tmpdir, runner_dir.path()]);
        let ruleset = rules::landlock(&policy, abi)?;
        let filter = rules::seccomp(settings.network)?;
        let env_removed = match settings.env_filter {
            true => secrets::to_remove(std::env::vars_os(), &settings.env_keep),
            false => Vec::new(),
        };
        let digest = policy.digest(&env_removed);
        supervisor.register(digest, policy.net_policy(settings));
        Ok(Arc::new(Self {
            policy,
            digest,
            ruleset,
            filter,
            supervisor,
            env_removed,
            tmpdir: tmpdir.to_path_buf(),
            runner_dir,
            told_env: AtomicBool::new(false),
            sensitive,
            snapshots: Default::default(),
        }))
    }

    /// Sets `command` up to start confined: the secret variables removed, `TMPDIR` the private one,
    /// and the ruleset and filter enforced by the child on itself just before `exec` (after any
    /// `pre_exec` set before this one).
    pub(crate) fn confine(self: &Arc<Self>, command: &mut Command) {
        for name in &self.env_removed {
            command.env_remove(name);
        }
        command.env("TMPDIR", &self.tmpdir);
        let me = Arc::clone(self);
        let ruleset = self.ruleset.as_raw_fd();
        // SAFETY: the closure runs in the child between fork and exec and makes only system calls
        // (prctl, landlock_restrict_self, seccomp) on memory prepared before the fork.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(command, move || {
                let channel = (me.supervisor.channel(), me.digest);
                child::enforce(ruleset, &me.filter, channel)
            });
        }
    }

    /// Where confined long-lived shells keep their runner's files.
    pub(crate) fn runner_dir(&self) -> &Path {
        self.runner_dir.path()
    }

    /// The snapshot at `held` (the runtime's `/proc/<pid>/fd/<n>`, which a confined shell cannot
    /// open) as a file its shells can source: a copy in the runner directory, made once.
    pub(crate) fn snapshot(&self, held: &Path) -> Option<PathBuf> {
        let mut copies = self.snapshots.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(copy) = copies.get(held) {
            return Some(copy.clone());
        }
        let text = std::fs::read(held).ok()?;
        let copy = self.runner_dir.path().join(format!("snapshot-{}.sh", copies.len()));
        std::fs::write(&copy, text).ok()?;
        copies.insert(held.to_path_buf(), copy.clone());
        Some(copy)
    }

    /// What keys shells: two sandboxes of the same digest confine alike.
    pub fn digest(&self) -> u64 {
        self.digest
    }

    /// The mode and network the policy enforces.
    pub fn mode(&self) -> (Mode, Network) {
        (self.policy.mode, self.policy.network)
    }

    /// The workspace roots (writable in `workspace-write`).
    pub fn workspace(&self) -> &[PathBuf] {
        &self.policy.workspace
    }

    /// Every writable root, as enforced.
    pub fn writable(&self) -> &[PathBuf] {
        &self.policy.writable
    }

    /// The paths no command may read, as enforced.
    pub fn unreadable(&self) -> &[PathBuf] {
        &self.policy.deny_read
    }

    /// The names of the variables left out of the environment.
    pub fn env_removed(&self) -> impl Iterator<Item = String> + '_ {
        self.env_removed.iter().map(|n| n.to_string_lossy().into_owned())
    }

    /// True once: the first result that should name the variables left out.
    pub(crate) fn tell_env_once(&self) -> bool {
        !self.env_removed.is_empty() && !self.told_env.swap(true, Ordering::Relaxed)
    }

    /// The sandbox's refusals that `text` (what the model sees of a call's output) shows, each checked
    /// against the policy; `cwd` resolves relative paths.
    pub fn denials(&self, text: &str, cwd: &Path) -> Vec<Denial> {
        denial::find(&self.policy, text, cwd)
    }

    /// The connections and binds the network supervisor refused since `since` (any command of
    /// this runtime's sandboxes: two calls running at once may see each other's).
    pub(crate) fn network_denials(&self, since: std::time::Instant) -> Vec<Denial> {
        self.supervisor
            .denials_since(since)
            .into_iter()
            .map(|d| Denial {
                kind: DenialKind::Network,
                path: None,
                address: Some(d.address.to_string()),
                certainty: Certainty::Exact,
                line: format!("{} to {} by {}", d.op, d.address, d.program),
            })
            .collect()
    }

    /// The watched files of the workspace that run outside the sandbox later (git hooks and config,
    /// `.envrc`, …) and changed since the last look.
    pub(crate) fn sensitive_changes(&self) -> Vec<String> {
        self.sensitive.as_ref().map(sensitive::Sensitive::changed).unwrap_or_default()
    }

    /// A summary for `bashrt sandbox`: one line per part of the policy.
    pub fn explain(&self) -> String {
        self.policy.explain(&self.env_removed)
    }
}
