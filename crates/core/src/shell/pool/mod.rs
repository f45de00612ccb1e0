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
//! - **Lent.** A tool call that yields (its command goes on as a job) lends its shell to the job: the
//!   slot is free at once, and the next call starts a fresh long-lived shell from the lent one's
//!   captured state ([`ShellEvent::Handed`]); see [`lend`].
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

mod call;
mod capture;
mod lend;
mod slots;

use slots::add_orphans;

use super::carry::Carried;
use super::persistent::{Call, CallResult, PersistentShell, ShellSpec, StartError};
use super::pool_thread::PoolThread;
use crate::cancel::CancelToken;
use crate::env::Vars;
use crate::exec::is_bash;
use crate::exec::{
    Carry, CwdMode, ExecError, ExecRequest, Execution, Executor, OneShotExecutor, OneShotReason, OutputConsumer,
    ReplaceReason, ShellEvent,
};
use crate::process::child::ChildKiller;
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
    /// The digest of the sandbox that confines the shell; `None`: unconfined.
    pub sandbox: Option<u64>,
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
    sandbox: Option<u64>,
}

impl<'a> KeyView<'a> {
    fn of(req: &'a ExecRequest) -> Self {
        Self {
            shell: &req.shell,
            prefix: req.prefix.as_deref(),
            snapshot: req.snapshot.as_deref(),
            env: &req.env,
            session: req.session.as_deref(),
            sandbox: req.sandbox.as_ref().map(|s| s.digest()),
        }
    }

    fn to_key(&self) -> ShellKey {
        ShellKey {
            shell: self.shell.to_path_buf(),
            prefix: self.prefix.map(str::to_owned),
            snapshot: self.snapshot.map(Path::to_path_buf),
            env: self.env.clone(),
            session: self.session.map(str::to_owned),
            sandbox: self.sandbox,
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
            && self.sandbox == key.sandbox
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
    /// Shells on loan to jobs now (`State::lent`'s length): a call's end looks there only if any.
    lent_now: std::sync::atomic::AtomicUsize,
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
    /// Shells that went on running a job, until their call ends; killed at shutdown.
    lent: Vec<lend::Lent>,
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
    /// Its shell went on running a job (see [`lend`]): the next shell starts from its state.
    handed: bool,
}

enum Occupant {
    Idle(Box<PersistentShell>),
    /// A call has the shell (or is starting one); the handle kills it at shutdown.
    Busy(Option<ChildKiller>),
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
        /// The key's last shell went on running a job: what of its state the new one starts from,
        /// and the script that recreates it.
        handed: Option<(Carry, Option<Arc<[u8]>>)>,
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
            lent_now: std::sync::atomic::AtomicUsize::new(0),
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
            busy.extend(state.lent.iter().map(lend::Lent::killer));
            (idle, busy, std::mem::take(&mut state.orphans), state.thread.take())
        };
        self.capture_wake.notify_all();
        for handle in busy {
            handle.signal(nix::sys::signal::Signal::SIGKILL);
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

    /// What a shell of its own for `req` starts from: the state of the shell `req` would have run in,
    /// captured now when that shell is idle and behind, else as last captured (see
    /// [`Executor::carried`]). Such calls make that state worth capturing from now on, whatever a
    /// capture costs.
    fn carried(&self, req: &ExecRequest) -> Option<(Carry, Option<Arc<[u8]>>)> {
        if !is_bash(&req.shell) {
            return None;
        }
        let view = KeyView::of(req);
        let hash = view.hash64();
        let key = self.lock().slots.keys().find(|k| k.hash == hash && view.matches(&k.key)).map(Arc::clone)?;
        self.capture_idle_now(&key);
        let mut state = self.lock();
        let slot = state.slots.get_mut(&key)?;
        slot.parallel_seen = true;
        match (&slot.carried, slot.generation) {
            // Calls ran and none was captured yet: what they set is not there.
            (None, calls) if calls > 0 => Some((Carry::Stale { missing: calls }, None)),
            _ => Some(slot.carry()),
        }
    }

    /// The key of the view's slot if the pool has one (a scan of at most a few dozen hashes, cheaper
    /// than copying the key), else a new one. A slot inserted meanwhile by another call gets an equal
    /// key, which the map treats as the same.
    fn key_for(&self, view: &KeyView<'_>) -> Arc<SlotKey> {
        let hash = view.hash64();
        let found = self.lock().slots.keys().find(|k| k.hash == hash && view.matches(&k.key)).map(Arc::clone);
        found.unwrap_or_else(|| Arc::new(SlotKey { hash, key: view.to_key() }))
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

    fn carried(&self, req: &ExecRequest) -> Option<(Carry, Option<Arc<[u8]>>)> {
        self.pool.carried(req)
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
        if req.stdin_pipe {
            return one_shot(req, None, OneShotReason::StdinPipe, out, cancel);
        }
        let key = self.key_for(&KeyView::of(req));
        let (checkout, evicted) = self.checkout(&key);
        if !evicted.is_empty() {
            let orphans: Vec<ProcEntry> = evicted.into_iter().flat_map(PersistentShell::evict).collect();
            add_orphans(&mut self.lock().orphans, orphans);
        }
        match checkout {
            Checkout::Shell { shell, gone, session_cwd, thread, capture, handed } => {
                let lease = Lease { pool: self, key, open: true, loaned: None };
                let deadline = started.checked_add(req.timeout);
                let mut call = PooledCall { req, out, cancel, thread, started, deadline, lease };
                self.run_pooled(&mut call, shell, gone, session_cwd, capture, handed)
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
    /// The pid of the shell the call offered to lend to the job it may become (see [`lend`]).
    loaned: Option<i32>,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if self.open {
            // A lent shell died with the call's error: the slot has moved on.
            if !self.loaned.is_some_and(|pid| self.pool.take_lent(pid)) {
                self.pool.vacate(&self.key, Some(ReplaceReason::CallFailed), Vec::new());
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

fn cwd_error(cwd: &Path) -> ExecError {
    let source = match std::fs::metadata(cwd) {
        Err(e) => e,
        Ok(meta) if !meta.is_dir() => io::Error::from(io::ErrorKind::NotADirectory),
        Ok(_) => io::Error::from(io::ErrorKind::PermissionDenied),
    };
    ExecError::Cwd { cwd: cwd.to_path_buf(), source }
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
