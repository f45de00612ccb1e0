//! The runtime: everything calls share, owned in one place rather than in process-wide statics.
//!
//! A [`Runtime`] holds the settings, the executor (a pool of long-lived shells by default), the
//! resolved shell, the settings' part of every command's environment, the reaper that makes sure no
//! process it started outlives it, the cache of shell snapshots, and the state directory where
//! sessions keep artifacts and logs. Every surface — the tool ([`BashTool`](crate::BashTool)), sessions
//! ([`AgentSession`](crate::AgentSession)), and the modes built on them (print, RPC, MCP, TUI) — gets all of this through
//! one runtime, so two runtimes in one process never share shells, artifacts or processes, and
//! dropping one ends only what it started.
//!
//! [`Runtime::new`] builds one with defaults in one call; [`Runtime::builder`] replaces any part.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::artifact::ArtifactDir;
use crate::env::{CommandEnv, Vars};
use crate::exec::{Executor, OneShotExecutor, ShellError, ShellResolver};
use crate::reaper::Reaper;
use crate::retention::{self, GcPlan, Retention};
use crate::session::{SessionError, SessionName, StateDir};
use crate::settings::Settings;
use crate::shell::snapshot::SnapshotCache;
use crate::shell::ShellPool;

/// The shared part of every call. See the module docs.
pub struct Runtime {
    settings: Arc<Settings>,
    executor: Arc<dyn Executor>,
    shell: ShellResolver,
    env: CommandEnv,
    /// The last `extra` given to [`Self::command_env`] and the variables built for it: a session's
    /// calls (and a tool's) ask for the same list every time.
    last_env: Mutex<Option<LastEnv>>,
    reaper: Reaper,
    snapshots: Option<SnapshotCache>,
    state: Option<StateDir>,
    /// Why there is no state directory, when one was named but refused (another user controls it).
    state_refused: Option<SessionError>,
    /// The state directory's budget and the sessions this runtime holds; `None` without state.
    retention: Option<Retention>,
    warnings: Vec<String>,
    /// Closed right after its one call: what a command leaves running is stopped then.
    single_call: bool,
    /// Commands that outlived their call.
    jobs: crate::job::Jobs,
    /// The sandboxes of the workspaces commands ran in.
    sandboxes: crate::sandbox::SandboxCache,
    /// Who a call's `sandbox` request is put to, set by the front.
    approver: std::sync::OnceLock<Arc<dyn crate::sandbox::Approver>>,
}

/// `extra` as given to [`Runtime::command_env`], and the variables built for it.
type LastEnv = (Vec<(String, OsString)>, Vars);

/// Where a runtime keeps its state; see [`RuntimeBuilder::state_dir`].
enum StateChoice {
    FromEnv,
    Dir(PathBuf),
    None,
}

/// Builds a [`Runtime`], replacing any of its defaults.
pub struct RuntimeBuilder {
    settings: Settings,
    executor: Option<Arc<dyn Executor>>,
    state: StateChoice,
    watchdog: bool,
    snapshot_dir: Option<PathBuf>,
    single_call: bool,
}

impl RuntimeBuilder {
    /// Runs commands with `executor` instead of a new [`ShellPool`].
    pub fn executor(mut self, executor: Arc<dyn Executor>) -> Self {
        self.executor = Some(executor);
        self
    }

    /// Runs every command in a fresh shell ([`OneShotExecutor`]): no state carries between calls. For a
    /// process that makes one call (`bashrt run`), where starting a long-lived shell would be waste.
    pub fn one_shot(self) -> Self {
        self.executor(Arc::new(OneShotExecutor))
    }

    /// A runtime for one call, closed right after it (`bashrt run`): commands run one-shot, and
    /// what a command leaves running is stopped with the runtime, so a result says "stopped", not
    /// "still running". The caller closes the runtime ([`Runtime::close`]) before it shows the result.
    pub fn single_call(mut self) -> Self {
        self.single_call = true;
        self.one_shot()
    }

    /// Keeps sessions, artifacts, logs and snapshots under `dir` instead of `$BASHRT_STATE_DIR` or the XDG
    /// state directory.
    pub fn state_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.state = StateChoice::Dir(dir.into());
        self
    }

    /// Keeps nothing on disk: output beyond the model's view is not kept, sessions are unavailable, and
    /// snapshots go to a private temporary directory removed with the runtime.
    pub fn no_state_dir(mut self) -> Self {
        self.state = StateChoice::None;
        self
    }

    /// Whether to start the watchdog process that kills this runtime's processes when it dies, even by
    /// SIGKILL (default: on). An embedder that confines processes by other means (a cgroup, a
    /// container) may turn it off; an orderly drop or [`Runtime::shutdown`] still ends them.
    pub fn watchdog(mut self, on: bool) -> Self {
        self.watchdog = on;
        self
    }

    /// Keeps shell snapshots in `dir` (created private) instead of `<state dir>/snapshots`.
    pub fn snapshot_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.snapshot_dir = Some(dir.into());
        self
    }

    /// The runtime. Nothing is started yet: the watchdog, the shells and the snapshot come with the first
    /// command that needs them. Problems that only limit it (no state directory) are in
    /// [`Runtime::warnings`].
    pub fn build(self) -> Arc<Runtime> {
        let mut warnings = Vec::new();
        let state = match self.state {
            StateChoice::Dir(dir) => Some(StateDir::new(dir)),
            StateChoice::None => None,
            StateChoice::FromEnv => StateDir::from_env().map(Some).unwrap_or_else(|e| {
                warnings.push(format!("{e}; output beyond the model's view is not kept, sessions are unavailable"));
                None
            }),
        };
        let mut state_refused = None;
        let state = state.filter(|state| match state.check() {
            Ok(()) => true,
            Err(e) => {
                warnings.push(format!("{e}; output beyond the model's view is not kept, sessions are unavailable"));
                state_refused = Some(e);
                false
            }
        });
        let settings = self.settings;
        let snapshots = settings.snapshot.then(|| {
            let dir = self.snapshot_dir.or_else(|| state.as_ref().map(|s| s.path().join("snapshots")));
            SnapshotCache::new(dir)
        });
        let watchdog_shell =
            self.watchdog.then(|| crate::exec::resolve_shell(None).unwrap_or_else(|_| PathBuf::from("/bin/bash")));
        Arc::new(Runtime {
            executor: self.executor.unwrap_or_else(|| Arc::new(ShellPool::default())),
            shell: ShellResolver::new(settings.shell_path.clone()),
            env: CommandEnv::from_process(settings.non_interactive_env, &settings.env),
            last_env: Mutex::new(None),
            reaper: Reaper::new(watchdog_shell, Duration::from_millis(settings.kill_grace_ms)),
            snapshots,
            retention: state.as_ref().map(|s| {
                Retention::new(
                    s.path().to_path_buf(),
                    settings.state_budget_bytes,
                    Duration::from_secs(settings.keep_recent_secs),
                )
            }),
            state,
            state_refused,
            warnings,
            single_call: self.single_call,
            jobs: crate::job::Jobs::default(),
            sandboxes: crate::sandbox::SandboxCache::new(self.single_call),
            approver: std::sync::OnceLock::new(),
            settings: Arc::new(settings),
        })
    }
}

impl Runtime {
    /// A runtime with every default: a pool of long-lived shells, the state directory from the
    /// environment, the watchdog, snapshots under the state directory.
    pub fn new(settings: Settings) -> Arc<Runtime> {
        Self::builder(settings).build()
    }

    /// Starts from the defaults of [`Runtime::new`]; see [`RuntimeBuilder`] for what can be replaced.
    pub fn builder(settings: Settings) -> RuntimeBuilder {
        RuntimeBuilder {
            settings,
            executor: None,
            state: StateChoice::FromEnv,
            watchdog: true,
            snapshot_dir: None,
            single_call: false,
        }
    }

    /// Whether the runtime serves one call and is closed after it ([`RuntimeBuilder::single_call`]).
    pub fn is_single_call(&self) -> bool {
        self.single_call
    }

    /// The sandbox for a tool call's command run in `cwd`; `Ok(None)` when `sandbox.mode` is `off`.
    pub fn sandbox_for(
        &self,
        cwd: &Path,
    ) -> Result<Option<Arc<crate::sandbox::Sandbox>>, crate::sandbox::SandboxError> {
        self.sandboxes.get(&self.settings.sandbox, cwd)
    }

    /// Sets who decides a call's `sandbox` request (an RPC client's user, the TUI's): once; `false`
    /// when one was set already.
    pub fn set_approver(&self, approver: Arc<dyn crate::sandbox::Approver>) -> bool {
        self.approver.set(approver).is_ok()
    }

    pub(crate) fn approver(&self) -> Option<&Arc<dyn crate::sandbox::Approver>> {
        self.approver.get()
    }

    /// Compiles the sandbox of the workspace of `cwd` now (a server's start), so that the first
    /// calls, which often arrive together, find it made instead of waiting on each other to make it.
    /// A failure is not reported here: the calls report it.
    pub fn prepare_sandbox(&self, cwd: &Path) {
        let _ = self.sandbox_for(cwd);
    }

    /// Grants `request` for the rest of the runtime's life, as a person decided (the terminal UI's
    /// ctrl+g): later calls run in a widened sandbox.
    pub fn grant_sandbox(&self, request: &crate::sandbox::SandboxRequest) {
        self.sandboxes.grant(request);
    }

    /// The requests granted for the runtime's life (`get_state` lists them).
    pub fn sandbox_grants(&self) -> Vec<crate::sandbox::SandboxRequest> {
        self.sandboxes.grants()
    }

    pub(crate) fn sandboxes(&self) -> &crate::sandbox::SandboxCache {
        &self.sandboxes
    }

    /// The settings every call of this runtime uses.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Where sessions keep artifacts and logs; `None` when the runtime keeps nothing on disk.
    pub fn state_dir(&self) -> Option<&StateDir> {
        self.state.as_ref()
    }

    /// What limits this runtime (no state directory, say), for the caller to show once.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The state directory sessions live in, or why there is none (`Runtime::session`, in
    /// `agent_session`, builds on it).
    pub(crate) fn sessions_state(&self) -> Result<&StateDir, SessionError> {
        self.state.as_ref().ok_or_else(|| self.state_refused.clone().unwrap_or(SessionError::NoStateDir))
    }

    /// The artifact directory of session `name`, if the runtime keeps state.
    pub fn artifacts(&self, name: &SessionName) -> Option<ArtifactDir> {
        self.state.as_ref().map(|s| s.session(name).artifacts())
    }

    /// Captures the user's shell snapshot now (if enabled), so that the first command does not wait for
    /// it. Errors only leave the runtime without a snapshot, as at the first command.
    pub fn warm_up(&self) {
        if let Ok(shell) = self.shell() {
            self.snapshot(&shell);
        }
    }

    /// Brings the state directory under its budget (`state.maxBytes`): the least recently used sessions
    /// no process is using go first, then the oldest artifacts. With `dry_run`, only says what it would
    /// remove. Runs by itself before an output spills; this is for running it by hand (`bashrt gc`).
    pub fn collect_garbage(&self, dry_run: bool) -> std::io::Result<GcPlan> {
        let Some(retention) = &self.retention else { return Ok(GcPlan::default()) };
        let plan = retention::plan(retention.state(), retention.budget(), retention.keep())?;
        if !dry_run {
            let (_, errors) = retention::apply(&plan);
            if let Some(error) = errors.first() {
                return Err(std::io::Error::other(format!("cannot remove {error}")));
            }
        }
        Ok(plan)
    }

    /// Ends everything this runtime started: its shells, and every process that carries its marker
    /// (background servers included) — SIGTERM, `grace`, then SIGKILL. Returns how many processes were
    /// signalled. Later calls still work (they start new shells); see [`Runtime::close`] for the end.
    pub fn shutdown(&self, grace: Duration) -> usize {
        self.jobs.kill_all();
        self.executor.shutdown();
        self.reaper.terminate_all(grace, false)
    }

    /// [`Runtime::shutdown`] for good: from now on the runtime starts no process (a call fails with
    /// "the runtime is shutting down"), so nothing another thread was about to start outlives it (the
    /// snapshot's warm-up, say, when a server ends right after it began). For a front that is
    /// exiting; dropping the runtime does the same with no grace.
    pub fn close(&self, grace: Duration) -> usize {
        self.jobs.kill_all();
        self.executor.shutdown();
        self.reaper.terminate_all(grace, true)
    }

    /// The commands that outlived their call ([`Jobs`](crate::Jobs)).
    pub fn jobs(&self) -> &crate::job::Jobs {
        &self.jobs
    }

    /// The token in `BASHRT_RUNTIME` of every process this runtime starts.
    pub fn marker_token(&self) -> &str {
        self.reaper.token()
    }

    /// The state directory's budget, when the runtime keeps state.
    pub(crate) fn retention(&self) -> Option<&Retention> {
        self.retention.as_ref()
    }

    pub(crate) fn executor(&self) -> &dyn Executor {
        &*self.executor
    }

    pub(crate) fn shell(&self) -> Result<PathBuf, ShellError> {
        self.shell.get()
    }

    /// A call failed to start: the shell may have vanished, so look for it again next time.
    pub(crate) fn forget_shell(&self) {
        self.shell.forget();
    }

    /// The environment of one command: the settings' part, `extra`, and last this runtime's marker.
    pub(crate) fn command_env(&self, extra: &[(&str, OsString)]) -> Vars {
        let mut last = self.last_env.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((names, vars)) = &*last {
            if names.len() == extra.len() && names.iter().zip(extra).all(|(a, b)| a.0 == b.0 && a.1 == b.1) {
                return vars.clone();
            }
        }
        let mut env = self.env.with(extra);
        env.push(self.reaper.marker());
        let vars = Vars::new(env);
        *last = Some((extra.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect(), vars.clone()));
        vars
    }

    /// Why commands of `shell` run without the user's aliases and functions, when a snapshot was
    /// tried and failed.
    pub(crate) fn snapshot_problem(&self, shell: &Path) -> Option<String> {
        self.snapshots.as_ref()?.problem(shell).map(|e| e.to_string())
    }

    /// The snapshot file for `shell`, when snapshots are on and one could be made.
    pub(crate) fn snapshot(&self, shell: &Path) -> Option<PathBuf> {
        self.snapshots.as_ref()?.for_shell(shell, || self.reaper.marker())
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.close(Duration::ZERO);
    }
}
