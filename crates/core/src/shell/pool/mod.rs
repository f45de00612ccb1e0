//! The shell pool: long-lived bash processes keyed by [`ShellKey`], so that variables,
//! functions, aliases and options (and, for sessions, the cwd) carry from one call to the next, behind
//! the same [`Executor`] trait as the one-shot executor. Each result says which shell ran it
//! ([`ShellEvent`]), so a caller can tell the model when state was lost.
//!
//! Policies:
//! - **Busy.** A shell runs one command at a time. A call whose key's shell is running another command
//!   does not wait (one stuck command would block every later call of its session): it runs in a
//!   fresh one-shot shell, [`OneShotReason::ShellBusy`], which takes on the state the busy shell had
//!   when last captured (variables, functions, aliases, options: see [`super::carry`]) and says
//!   what it lacks ([`Carry`]); what it changes, its `cd` included, does not carry back. A tool
//!   call's shell is captured when it has been idle a moment after a call ([`capture`]), off any
//!   call's path; a call that comes during a capture waits for it.
//! - **Bounded.** At most `max_shells` shells. Starting one more evicts the least recently used idle
//!   shell; when all are busy the call runs one-shot ([`OneShotReason::PoolFull`]). Shells idle for
//!   `idle_timeout` are evicted on the next call (no timer thread). Evicting kills the shell but
//!   spares what it runs in the background (a server the session started): those live until
//!   shutdown, like what dead shells left.
//! - **Replaced.** A shell that died (`exit`, `set -e`, a signal), was killed with a command that timed
//!   out or was cancelled, or was evicted is replaced by the next call of its key, which says why
//!   ([`ShellEvent::Replaced`]); a session's cwd survives the replacement. Background processes of a
//!   shell that died or was killed with its command keep running (as with a one-shot shell).
//! - **Shutdown** ([`ShellPool::shutdown`], also on drop) kills every shell with its tree and what dead
//!   shells left running, and stops the pool thread. Later calls run one-shot.
//!
//! Only bash is kept (the protocol is bash's); other shells run one-shot ([`OneShotReason::NotBash`]).
//! A call cancelled before it starts touches no shell.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

mod capture;

use super::carry::Carried;
use super::persistent::{Call, CallResult, KillHandle, PersistentShell, ShellSpec, StartError};
use super::pool_thread::PoolThread;
use crate::cancel::CancelToken;
use crate::env::Vars;
use crate::exec::{
    Carry, CwdMode, ExecError, ExecRequest, Execution, Executor, OneShotExecutor, OneShotReason, OutputConsumer,
    ReplaceReason, ShellEvent,
};
use crate::process::procfs::{self, ProcEntry};
use crate::process::tree;

/// Bounds of a [`ShellPool`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolConfig {
    /// Shells kept at most, busy ones included.
    pub max_shells: usize,
    /// An idle shell unused this long is evicted on the next call to the pool.
    pub idle_timeout: Duration,
    /// A tool-call shell idle this long after a call has its state captured (by the pool's capture
    /// thread, off any call's path), for calls that will run beside it ([`crate::exec::Carry`]).
    pub capture_after_idle: Duration,
}

impl Default for PoolConfig {
    /// 8 shells (each is ~3 MiB of bash), 10 minutes: an agent's burst of calls stays warm, an
    /// abandoned session does not hold processes for the rest of the day. A capture after a quarter of
    /// a second: a model's pause between turns is longer, calls sent back to back are quicker.
    fn default() -> Self {
        Self { max_shells: 8, idle_timeout: Duration::from_secs(600), capture_after_idle: capture::CAPTURE_AFTER_IDLE }
    }
}

/// What makes two calls share a shell (as the reference keys its cache).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ShellKey {
    /// The shell binary.
    pub shell: PathBuf,
    /// The configured command prefix.
    pub prefix: Option<String>,
    /// The snapshot the shell sources.
    pub snapshot: Option<PathBuf>,
    /// The request's environment: one value per name, sorted by name ([`Vars`]), so that order does
    /// not split shells.
    pub env: Vars,
    /// The session, for session commands; `None` for tool calls.
    pub session: Option<String>,
}

impl ShellKey {
    /// The key of the shell that would run `req`.
    pub fn of(req: &ExecRequest) -> Self {
        KeyView::of(req).to_key()
    }
}

/// A request's [`ShellKey`] without copying it: what a call compares the pool's keys against, so that
/// the warm path finds its slot's key and copies nothing.
#[derive(Hash)]
struct KeyView<'a> {
    shell: &'a Path,
    prefix: Option<&'a str>,
    snapshot: Option<&'a Path>,
    env: &'a Vars,
    session: Option<&'a str>,
}

impl<'a> KeyView<'a> {
    fn of(req: &'a ExecRequest) -> Self {
        Self {
            shell: &req.shell,
            prefix: req.prefix.as_deref(),
            snapshot: req.snapshot.as_deref(),
            env: &req.env,
            session: req.session.as_deref(),
        }
    }

    fn to_key(&self) -> ShellKey {
        ShellKey {
            shell: self.shell.to_path_buf(),
            prefix: self.prefix.map(str::to_owned),
            snapshot: self.snapshot.map(Path::to_path_buf),
            env: self.env.clone(),
            session: self.session.map(str::to_owned),
        }
    }

    /// The hash stored in [`SlotKey`]: always computed from a view, so that equal keys hash alike (the
    /// environment's part was computed when it was built).
    fn hash64(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        self.hash(&mut hasher);
        hasher.finish()
    }

    fn matches(&self, key: &ShellKey) -> bool {
        self.shell == key.shell.as_path()
            && self.prefix == key.prefix.as_deref()
            && self.snapshot == key.snapshot.as_deref()
            && self.session == key.session.as_deref()
            && *self.env == key.env
    }
}

/// The pool's map key: a [`ShellKey`] hashed once, shared rather than cloned.
///
/// A tool call's key holds its whole environment (about 40 variables). Building, hashing (for each of a
/// call's lookups) and cloning it (for `entry`) were a measurable part of a warm call's own cost. Now a
/// call hashes a [`KeyView`] once and takes the `Arc` of the slot it finds (`Pool::key_for`); the
/// map hashes only the stored `hash`, and equality compares it first.
#[derive(PartialEq, Eq)]
struct SlotKey {
    hash: u64,
    key: ShellKey,
}

impl Hash for SlotKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// Long-lived shells behind the [`Executor`] trait; see the module docs for the policies.
pub struct ShellPool {
    pool: Arc<Pool>,
}

/// The pool itself, shared with its capture thread.
struct Pool {
    /// Itself, for starting the capture thread from a call.
    me: Weak<Pool>,
    config: PoolConfig,
    state: Mutex<State>,
    /// Signalled when a slot's capture ends: calls that found its shell busy wait for it.
    captured: Condvar,
    /// Wakes the capture thread: a capture became due, or the pool shut down.
    capture_wake: Condvar,
}

#[derive(Default)]
struct State {
    slots: HashMap<Arc<SlotKey>, Slot>,
    /// What dead or replaced shells left running; killed at shutdown.
    orphans: Vec<ProcEntry>,
    /// Started with the first shell; calls hold a clone so that they never need the lock for it.
    thread: Option<Arc<PoolThread>>,
    /// The capture thread runs (started with the first capture due).
    capturer: bool,
    /// When the capture thread wakes by itself; `None` while it waits to be woken.
    capture_alarm: Option<Instant>,
    shut_down: bool,
}

struct Slot {
    occupant: Occupant,
    /// The session's cwd ([`CwdMode::Persist`] calls), kept across replacements.
    session_cwd: Option<PathBuf>,
    /// Why the last shell of this key went away; told by the call that starts the next one.
    gone: Option<ReplaceReason>,
    last_used: Instant,
    /// Calls the current shell has run.
    generation: u64,
    /// Its state as last captured, for a call that finds it busy.
    carried: Option<Carried>,
    /// The capture thread has the shell: a call waits for it.
    capturing: bool,
    /// When the capture thread should capture the idle shell's state.
    capture_due: Option<Instant>,
    /// A call found this key's shell busy: its state is worth capturing whatever it costs.
    parallel_seen: bool,
    /// How long the last capture took.
    capture_cost: Option<Duration>,
}

enum Occupant {
    Idle(Box<PersistentShell>),
    /// A call has the shell (or is starting one); the handle kills it at shutdown.
    Busy(Option<KillHandle>),
    Vacant,
}

/// What a call gets from the pool.
enum Checkout {
    Shell {
        shell: Option<Box<PersistentShell>>,
        gone: Option<ReplaceReason>,
        session_cwd: Option<PathBuf>,
        thread: Arc<PoolThread>,
        /// Capture the shell's state before the command, recorded at this generation.
        capture: Option<u64>,
    },
    OneShot {
        reason: OneShotReason,
        session_cwd: Option<PathBuf>,
        /// The busy shell's state, for the fresh shell to take on.
        seed: Option<Arc<[u8]>>,
    },
}

/// Vacant slots (a session's cwd, why its shell went) kept at most, beyond the live shells.
const VACANT_SLOTS_PER_SHELL: usize = 8;

impl ShellPool {
    /// An empty pool: shells start with the first call of their key.
    pub fn new(config: PoolConfig) -> Self {
        let pool = Arc::new_cyclic(|me| Pool {
            me: me.clone(),
            config,
            state: Mutex::new(State::default()),
            captured: Condvar::new(),
            capture_wake: Condvar::new(),
        });
        Self { pool }
    }

    /// Live shells, busy or idle.
    pub fn len(&self) -> usize {
        self.pool.lock().slots.values().filter(|s| !matches!(s.occupant, Occupant::Vacant)).count()
    }

    /// No live shell.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Kills every shell with its whole tree (a running call ends as if its shell had been killed) and
    /// what dead shells left running, and stops the pool thread once no call uses it and the capture
    /// thread. Idempotent; later calls run one-shot.
    pub fn shutdown(&self) {
        self.pool.shutdown();
    }
}

impl Pool {
    fn shutdown(&self) {
        let (idle, busy, orphans, thread) = {
            let mut state = self.lock();
            state.shut_down = true;
            let mut idle = Vec::new();
            let mut busy = Vec::new();
            for slot in state.slots.values_mut() {
                match std::mem::replace(&mut slot.occupant, Occupant::Vacant) {
                    Occupant::Idle(shell) => idle.push(shell),
                    Occupant::Busy(handle) => {
                        busy.extend(handle.clone());
                        slot.occupant = Occupant::Busy(handle);
                    }
                    Occupant::Vacant => {}
                }
            }
            for slot in state.slots.values_mut() {
                slot.capture_due = None;
            }
            (idle, busy, std::mem::take(&mut state.orphans), state.thread.take())
        };
        self.capture_wake.notify_all();
        for handle in busy {
            handle.kill();
        }
        for shell in idle {
            shell.kill();
        }
        tree::terminate_orphans(&orphans);
        drop(thread);
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic under the lock leaves consistent slots (no multi-step updates); keep going.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The key of the view's slot if the pool has one (a scan of at most a few dozen hashes, cheaper
    /// than copying the key), else a new one. A slot inserted meanwhile by another call gets an equal
    /// key, which the map treats as the same.
    fn key_for(&self, view: &KeyView<'_>) -> Arc<SlotKey> {
        let hash = view.hash64();
        let found = self.lock().slots.keys().find(|k| k.hash == hash && view.matches(&k.key)).map(Arc::clone);
        found.unwrap_or_else(|| Arc::new(SlotKey { hash, key: view.to_key() }))
    }

    /// Takes the key's shell, or the right to start one, or says why the call runs one-shot. Also
    /// evicts idle shells past their time; the caller kills those outside the lock.
    fn checkout(&self, key: &Arc<SlotKey>) -> (Checkout, Vec<PersistentShell>) {
        let mut state = self.lock();
        let session_cwd = state.slots.get(key).and_then(|s| s.session_cwd.clone());
        if state.shut_down {
            return (Checkout::OneShot { reason: OneShotReason::PoolShutDown, session_cwd, seed: None }, Vec::new());
        }
        if state.slots.get(key).is_some_and(|s| s.capturing) {
            // The capture thread has the idle shell for a moment: wait for it rather than run beside it.
            let capturing = |state: &mut State| state.slots.get(key).is_some_and(|s| s.capturing) && !state.shut_down;
            state = self
                .captured
                .wait_timeout_while(state, super::carry::CAPTURE_TIMEOUT, capturing)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            if state.shut_down {
                let session_cwd = state.slots.get(key).and_then(|s| s.session_cwd.clone());
                return (
                    Checkout::OneShot { reason: OneShotReason::PoolShutDown, session_cwd, seed: None },
                    Vec::new(),
                );
            }
        }
        let now = Instant::now();
        let mut evicted = Vec::new();
        for slot in state.slots.values_mut() {
            let expired = now.saturating_duration_since(slot.last_used) >= self.config.idle_timeout;
            if expired && matches!(slot.occupant, Occupant::Idle(_)) {
                evicted.extend(slot.evict().map(|shell| *shell));
            }
        }
        let thread = match &state.thread {
            Some(thread) => Arc::clone(thread),
            None => match PoolThread::start() {
                Ok(thread) => Arc::clone(state.thread.insert(Arc::new(thread))),
                Err(error) => {
                    let reason = OneShotReason::StartFailed { error: format!("no pool thread: {error}") };
                    return (Checkout::OneShot { reason, session_cwd, seed: None }, evicted);
                }
            },
        };
        let live = state.slots.values().filter(|s| !matches!(s.occupant, Occupant::Vacant)).count();
        let slot = touch_slot(&mut state.slots, key, now);
        let checkout = match std::mem::replace(&mut slot.occupant, Occupant::Busy(None)) {
            Occupant::Busy(handle) => {
                slot.occupant = Occupant::Busy(handle);
                slot.parallel_seen = true;
                let (carried, seed) = slot.carry();
                let reason = OneShotReason::ShellBusy { carried };
                return (Checkout::OneShot { reason, session_cwd, seed }, evicted);
            }
            Occupant::Idle(shell) => {
                slot.occupant = Occupant::Busy(shell.kill_handle());
                // A capture due and not begun is made now, by this call, before its command.
                let capture = Self::capture_now(slot, now).then_some(slot.generation);
                slot.capturing = capture.is_some();
                slot.capture_due = None;
                Checkout::Shell { shell: Some(shell), gone: None, session_cwd: session_cwd.clone(), thread, capture }
            }
            Occupant::Vacant => {
                let gone = slot.gone.take();
                Checkout::Shell { shell: None, gone, session_cwd: session_cwd.clone(), thread, capture: None }
            }
        };
        if matches!(checkout, Checkout::Shell { shell: None, .. }) && live >= self.config.max_shells {
            let lru = state
                .slots
                .iter_mut()
                .filter(|(k, s)| *k != key && matches!(s.occupant, Occupant::Idle(_)))
                .min_by_key(|(_, s)| s.last_used);
            match lru {
                Some((_, slot)) => evicted.extend(slot.evict().map(|shell| *shell)),
                None => {
                    let (gone, session_cwd) = match checkout {
                        Checkout::Shell { gone, session_cwd, .. } => (gone, session_cwd),
                        Checkout::OneShot { session_cwd, .. } => (None, session_cwd),
                    };
                    if let Some(slot) = state.slots.get_mut(key) {
                        slot.occupant = Occupant::Vacant;
                        slot.gone = gone;
                    }
                    return (Checkout::OneShot { reason: OneShotReason::PoolFull, session_cwd, seed: None }, evicted);
                }
            }
        }
        prune_vacant(&mut state.slots, self.config.max_shells);
        (checkout, evicted)
    }

    /// Gives the shell back after a call (`retire` set: it must not run another command).
    fn checkin(
        &self,
        key: &Arc<SlotKey>,
        shell: Box<PersistentShell>,
        retire: Option<ReplaceReason>,
        cwd: Option<PathBuf>,
    ) {
        let (shell, orphans, gone) = match retire {
            None => (Some(shell), Vec::new(), None),
            // Outside the lock: retiring may have to kill the shell.
            Some(reason) => (None, shell.retire(), Some(reason)),
        };
        let mut state = self.lock();
        if state.shut_down {
            drop(state);
            if let Some(shell) = shell {
                shell.kill();
            }
            tree::terminate_orphans(&orphans);
            return;
        }
        add_orphans(&mut state.orphans, orphans);
        let now = Instant::now();
        let slot = touch_slot(&mut state.slots, key, now);
        if cwd.is_some() {
            slot.session_cwd = cwd;
        }
        match shell {
            Some(shell) => {
                slot.occupant = Occupant::Idle(shell);
                slot.generation += 1;
                // Tool calls only: a session's commands come one after another, never beside each other.
                if key.key.session.is_none() {
                    let due = now + self.config.capture_after_idle;
                    slot.capture_due = Some(due);
                    self.start_capturer(&mut state);
                    // Calls back to back wake it once: it finds the later dues when its alarm rings.
                    if state.capture_alarm.is_none_or(|alarm| alarm > due) {
                        self.capture_wake.notify_all();
                    }
                }
            }
            None => {
                slot.occupant = Occupant::Vacant;
                slot.gone = gone;
                slot.carried = None;
            }
        }
    }

    /// The call has no shell to give back (it could not start one, or retired it itself).
    fn vacate(&self, key: &SlotKey, gone: Option<ReplaceReason>, orphans: Vec<ProcEntry>) {
        let mut state = self.lock();
        if state.shut_down {
            drop(state);
            tree::terminate_orphans(&orphans);
            return;
        }
        add_orphans(&mut state.orphans, orphans);
        if let Some(slot) = state.slots.get_mut(key) {
            slot.occupant = Occupant::Vacant;
            slot.carried = None;
            slot.capturing = false;
            if gone.is_some() {
                slot.gone = gone;
            }
        }
        drop(state);
        self.captured.notify_all();
    }

    /// A new shell of `key` started: it can be killed from now on, and it has no state of its own yet.
    fn started(&self, key: &SlotKey, handle: Option<KillHandle>) {
        let mut state = self.lock();
        if let Some(slot) = state.slots.get_mut(key) {
            if matches!(slot.occupant, Occupant::Busy(_)) {
                slot.occupant = Occupant::Busy(handle.clone());
            }
            slot.generation = 0;
            slot.carried = Some(Carried::fresh());
        }
        let shut_down = state.shut_down;
        drop(state);
        if shut_down {
            // Shutdown came while the shell was starting and could not see it.
            if let Some(handle) = handle {
                handle.kill();
            }
        }
    }

    fn run_pooled(
        &self,
        call: &mut PooledCall<'_>,
        shell: Option<Box<PersistentShell>>,
        gone: Option<ReplaceReason>,
        session_cwd: Option<PathBuf>,
        capture: Option<u64>,
    ) -> Result<Execution, ExecError> {
        let req = call.req;
        let persist = req.cwd_mode == CwdMode::Persist;
        let mut target = match (session_cwd, persist) {
            (Some(cwd), true) => cwd,
            _ => req.cwd.clone(),
        };
        let (mut shell, mut event) = match shell {
            Some(shell) => (shell, ShellEvent::Reused),
            None => {
                let event = gone.clone().map_or(ShellEvent::Started, |reason| ShellEvent::Replaced { reason });
                match self.start(call, gone)? {
                    Started::Shell(shell) => (shell, event),
                    Started::Done(execution) => return Ok(execution.with(event, call.started)),
                }
            }
        };
        if let Some(generation) = capture {
            let captured = capture::capture_shell(&mut shell, &call.thread, call.cancel);
            let retire = captured.retire.clone();
            Self::record(&mut self.lock(), &call.lease.key, generation, captured);
            self.captured.notify_all();
            if let Some(reason) = retire {
                // The capture found the shell broken: the call gets a fresh one, as when a shell
                // cannot run the command.
                add_orphans(&mut self.lock().orphans, shell.retire());
                event = ShellEvent::Replaced { reason: reason.clone() };
                match self.start(call, Some(reason))? {
                    Started::Shell(fresh) => shell = fresh,
                    Started::Done(execution) => return Ok(execution.with(event, call.started)),
                }
            }
        }
        let mut replaced = false;
        loop {
            // A `cd` costs a round trip of its own: only when the shell is not in the directory yet.
            let there = shell.pwd() == Some(target.as_path()) && shell.is_in(&target);
            let cd = if there { None } else { Some(target.as_path()) };
            let step =
                Call { script: req.script.as_bytes(), cd, kill_grace: req.kill_grace, split_stdout: req.split_stdout };
            let report = shell.run(&step, call.out, call.cancel, call.deadline, &call.thread)?;
            match report.result {
                CallResult::Ran { outcome, final_cwd, background } => {
                    let session_cwd = if persist { final_cwd.clone() } else { None };
                    if report.lost {
                        if let Some(reason) = report.retire.clone() {
                            event = ShellEvent::Lost { reason };
                        }
                    }
                    self.checkin(&call.lease.key, shell, report.retire, session_cwd);
                    call.lease.open = false;
                    let duration = call.started.elapsed();
                    return Ok(Execution { outcome, duration, background, final_cwd, shell: event });
                }
                CallResult::CwdFailed if persist && target != req.cwd => {
                    // The session's directory is gone: start over where the session started.
                    target = req.cwd.clone();
                }
                CallResult::CwdFailed => {
                    self.checkin(&call.lease.key, shell, None, None);
                    call.lease.open = false;
                    return Err(cwd_error(&target));
                }
                CallResult::NotStarted => {
                    // The command did not run, so running it in a fresh shell runs it once.
                    let reason = report.retire.unwrap_or(ReplaceReason::Broken);
                    let orphans = shell.retire();
                    if replaced {
                        self.vacate(&call.lease.key, Some(reason.clone()), orphans);
                        call.lease.open = false;
                        return Err(ExecError::Setup(io::Error::other(format!(
                            "a fresh shell could not run the command either: {reason}"
                        ))));
                    }
                    add_orphans(&mut self.lock().orphans, orphans);
                    replaced = true;
                    event = ShellEvent::Replaced { reason: reason.clone() };
                    match self.start(call, Some(reason))? {
                        Started::Shell(fresh) => shell = fresh,
                        Started::Done(execution) => return Ok(execution.with(event, call.started)),
                    }
                }
            }
        }
    }

    /// Starts the key's shell. A shell that starts but does not answer makes the call run one-shot.
    fn start(&self, call: &mut PooledCall<'_>, gone: Option<ReplaceReason>) -> Result<Started, ExecError> {
        let req = call.req;
        let spec = ShellSpec { shell: &req.shell, env: &req.env, snapshot: req.snapshot.as_deref(), cwd: &req.cwd };
        match PersistentShell::start(&spec, &call.thread, call.cancel, call.deadline) {
            Ok(shell) => {
                self.started(&call.lease.key, shell.kill_handle());
                Ok(Started::Shell(Box::new(shell)))
            }
            Err(error) => {
                self.vacate(&call.lease.key, gone, Vec::new());
                call.lease.open = false;
                match error {
                    StartError::Exec(error) => Err(error),
                    StartError::Interrupted(outcome) => Ok(Started::Done(Execution {
                        outcome,
                        duration: Duration::ZERO,
                        background: 0,
                        final_cwd: None,
                        shell: ShellEvent::Started,
                    })),
                    StartError::Protocol(error) => {
                        tracing::warn!(%error, shell = %req.shell.display(), "long-lived shell unusable");
                        let reason = OneShotReason::StartFailed { error };
                        let session_cwd = (req.cwd_mode == CwdMode::Persist).then(|| req.cwd.clone());
                        // Nothing of the command ran yet: its output goes to the caller as usual.
                        Ok(Started::Done(one_shot(req, session_cwd, reason, call.out, call.cancel)?))
                    }
                }
            }
        }
    }
}

/// One call going through a pooled shell.
struct PooledCall<'a> {
    req: &'a ExecRequest,
    out: &'a mut dyn OutputConsumer,
    cancel: &'a CancelToken,
    thread: Arc<PoolThread>,
    started: Instant,
    deadline: Option<Instant>,
    lease: Lease<'a>,
}

impl Default for ShellPool {
    fn default() -> Self {
        Self::new(PoolConfig::default())
    }
}

impl Drop for ShellPool {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl Executor for ShellPool {
    fn execute(
        &self,
        req: &ExecRequest,
        out: &mut dyn OutputConsumer,
        cancel: &CancelToken,
    ) -> Result<Execution, ExecError> {
        self.pool.execute(req, out, cancel)
    }

    fn shutdown(&self) {
        ShellPool::shutdown(self);
    }
}

impl Pool {
    fn execute(
        &self,
        req: &ExecRequest,
        out: &mut dyn OutputConsumer,
        cancel: &CancelToken,
    ) -> Result<Execution, ExecError> {
        let started = Instant::now();
        if cancel.is_cancelled() {
            return OneShotExecutor.execute(req, out, cancel);
        }
        if !is_bash(&req.shell) {
            return one_shot(req, None, OneShotReason::NotBash, out, cancel);
        }
        let key = self.key_for(&KeyView::of(req));
        let (checkout, evicted) = self.checkout(&key);
        if !evicted.is_empty() {
            let orphans: Vec<ProcEntry> = evicted.into_iter().flat_map(PersistentShell::evict).collect();
            add_orphans(&mut self.lock().orphans, orphans);
        }
        match checkout {
            Checkout::Shell { shell, gone, session_cwd, thread, capture } => {
                let lease = Lease { pool: self, key, open: true };
                let deadline = started.checked_add(req.timeout);
                let mut call = PooledCall { req, out, cancel, thread, started, deadline, lease };
                self.run_pooled(&mut call, shell, gone, session_cwd, capture)
            }
            Checkout::OneShot { reason, session_cwd, seed } => {
                let cwd = session_cwd.filter(|_| req.cwd_mode == CwdMode::Persist);
                match seed {
                    Some(seed) => {
                        let seeded = ExecRequest { seed: Some(seed), ..req.clone() };
                        one_shot(&seeded, cwd, reason, out, cancel)
                    }
                    None => one_shot(req, cwd, reason, out, cancel),
                }
            }
        }
    }
}

enum Started {
    Shell(Box<PersistentShell>),
    /// The call ended without a long-lived shell (interrupted while starting, or run one-shot).
    Done(Execution),
}

impl Execution {
    /// Keeps a one-shot fallback's own event; otherwise sets the pool's.
    fn with(mut self, event: ShellEvent, started: Instant) -> Self {
        if !matches!(self.shell, ShellEvent::OneShot { .. }) {
            self.shell = event;
        }
        self.duration = started.elapsed();
        self
    }
}

/// A checked-out slot: marked vacant again if the call leaves early (an error, a panicking consumer),
/// so that the key is not "busy" forever, and the next call says why. The shell itself is then
/// dropped, which kills it.
struct Lease<'a> {
    pool: &'a Pool,
    key: Arc<SlotKey>,
    open: bool,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if self.open {
            self.pool.vacate(&self.key, Some(ReplaceReason::CallFailed), Vec::new());
        }
    }
}

impl Slot {
    /// What a call beside the busy shell gets of its state, and the script that recreates it.
    fn carry(&self) -> (Carry, Option<Arc<[u8]>>) {
        match &self.carried {
            // The shell is still starting: it has no state of its own yet.
            None => (Carry::All, None),
            Some(Carried { state: Err(reason), .. }) => (Carry::Nothing { reason: reason.clone() }, None),
            Some(Carried { generation, state: Ok(script) }) => {
                let seed = (!script.is_empty()).then(|| Arc::clone(script));
                match self.generation.saturating_sub(*generation) {
                    0 => (Carry::All, seed),
                    missing => (Carry::Stale { missing }, seed),
                }
            }
        }
    }

    fn evict(&mut self) -> Option<Box<PersistentShell>> {
        match std::mem::replace(&mut self.occupant, Occupant::Vacant) {
            Occupant::Idle(shell) => {
                self.gone = Some(ReplaceReason::Evicted);
                Some(shell)
            }
            other => {
                self.occupant = other;
                None
            }
        }
    }
}

/// Runs the call in a fresh `bash -c` (which sources the snapshot itself, see [`OneShotExecutor`]),
/// in the session's `cwd` when there is one.
fn one_shot(
    req: &ExecRequest,
    cwd: Option<PathBuf>,
    reason: OneShotReason,
    out: &mut dyn OutputConsumer,
    cancel: &CancelToken,
) -> Result<Execution, ExecError> {
    let started = Instant::now();
    let mut execution = match cwd {
        Some(cwd) => OneShotExecutor.execute(&ExecRequest { cwd, ..req.clone() }, out, cancel)?,
        None => OneShotExecutor.execute(req, out, cancel)?,
    };
    execution.shell = ShellEvent::OneShot { reason };
    execution.duration = started.elapsed();
    Ok(execution)
}

/// The protocol is bash's: `bash`, `bash5`, `bash-5.2`, by file name.
fn is_bash(shell: &Path) -> bool {
    shell.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("bash"))
}

fn cwd_error(cwd: &Path) -> ExecError {
    let source = match std::fs::metadata(cwd) {
        Err(e) => e,
        Ok(meta) if !meta.is_dir() => io::Error::from(io::ErrorKind::NotADirectory),
        Ok(_) => io::Error::from(io::ErrorKind::PermissionDenied),
    };
    ExecError::Cwd { cwd: cwd.to_path_buf(), source }
}

/// Keeps the list short: entries that died are dropped once it grows.
fn add_orphans(list: &mut Vec<ProcEntry>, more: Vec<ProcEntry>) {
    list.extend(more);
    if list.len() > 64 {
        list.retain(|e| procfs::stat(e.pid).is_some_and(|now| now.alive && now.start_time == e.start_time));
    }
}

/// Forgets the oldest vacant slots beyond the limit (their session cwd and replacement reason).
/// The slot of `key` (a vacant one if the key is new), marked as used at `now`.
fn touch_slot<'a>(slots: &'a mut HashMap<Arc<SlotKey>, Slot>, key: &Arc<SlotKey>, now: Instant) -> &'a mut Slot {
    let slot = slots.entry(Arc::clone(key)).or_insert_with(|| Slot {
        occupant: Occupant::Vacant,
        session_cwd: None,
        gone: None,
        last_used: now,
        generation: 0,
        carried: None,
        capturing: false,
        capture_due: None,
        parallel_seen: false,
        capture_cost: None,
    });
    slot.last_used = now;
    slot
}

fn prune_vacant(slots: &mut HashMap<Arc<SlotKey>, Slot>, max_shells: usize) {
    let limit = max_shells.saturating_mul(VACANT_SLOTS_PER_SHELL).max(VACANT_SLOTS_PER_SHELL);
    if slots.len() <= limit {
        return;
    }
    let mut vacant: Vec<(Instant, Arc<SlotKey>)> = slots
        .iter()
        .filter(|(_, s)| matches!(s.occupant, Occupant::Vacant))
        .map(|(k, s)| (s.last_used, Arc::clone(k)))
        .collect();
    vacant.sort_by_key(|(t, _)| *t);
    for (_, key) in vacant.into_iter().take(slots.len() - limit) {
        slots.remove(&key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_ignores_env_order_and_keeps_the_last_value() {
        let env = vec![("B".into(), "1".into()), ("A".into(), "x".into()), ("B".into(), "2".into())];
        let a = ExecRequest { env: Vars::new(env), ..Default::default() };
        let mut b =
            ExecRequest { env: vec![("A".into(), "x".into()), ("B".into(), "2".into())].into(), ..Default::default() };
        assert_eq!(ShellKey::of(&a), ShellKey::of(&b));
        b.session = Some("s".into());
        assert_ne!(ShellKey::of(&a), ShellKey::of(&b));
    }

    #[test]
    fn a_view_matches_and_hashes_like_its_key() {
        let env = vec![("B".into(), "1".into()), ("A".into(), "x".into()), ("B".into(), "2".into())];
        let a = ExecRequest { env: Vars::new(env), session: Some("s".into()), ..Default::default() };
        let b = ExecRequest { env: vec![("A".into(), "x".into()), ("B".into(), "2".into())].into(), ..a.clone() };
        let key = KeyView::of(&a).to_key();
        assert!(KeyView::of(&a).matches(&key) && KeyView::of(&b).matches(&key));
        assert_eq!(KeyView::of(&a).hash64(), KeyView::of(&b).hash64());
        let other = ExecRequest { session: None, ..b.clone() };
        assert!(!KeyView::of(&other).matches(&key));
    }

    #[test]
    fn only_bash_is_pooled() {
        assert!(is_bash(Path::new("/bin/bash")) && is_bash(Path::new("bash-5.2")));
        assert!(!is_bash(Path::new("/bin/sh")) && !is_bash(Path::new("/usr/bin/zsh")));
    }
}
