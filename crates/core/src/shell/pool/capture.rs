//! The pool's capture thread: it captures the state of tool-call shells while they are idle, so that
//! a call that later finds its shell busy starts beside it with that state ([`super::super::carry`]).
//!
//! A shell is captured when it has been idle for [`PoolConfig::capture_after_idle`] after a call
//! that ran in it: a model's pause between turns is longer, so the state is ready when its next batch
//! of parallel calls comes; calls sent back to back are quicker, and never wait for a capture. A call
//! that comes while a capture runs waits for it (a few milliseconds; about a second in a shell with
//! thousands of functions), and one that comes when a capture is due but not begun makes it itself,
//! before its command, so that a capture due is never skipped. A capture that proved expensive (over [`CHEAP`]) is made again only for a
//! key whose shell a call has found busy: an agent that never sends calls at once does not pay for it.
//!
//! One thread per pool, started with the first capture due, ended at shutdown.

use std::time::{Duration, Instant};

use super::{Carried, Occupant, Pool, SlotKey, State};
use crate::cancel::CancelToken;
use crate::exec::ReplaceReason;
use crate::outcome::Outcome;
use crate::shell::carry::{Capture, Collect, CAPTURE_TIMEOUT};
use crate::shell::persistent::{Call, CallResult, PersistentShell};
use crate::shell::pool_thread::PoolThread;

use std::sync::{Arc, PoisonError, Weak};

/// The default of [`PoolConfig::capture_after_idle`](super::PoolConfig::capture_after_idle).
pub(super) const CAPTURE_AFTER_IDLE: Duration = Duration::from_millis(250);

/// A capture that takes longer is repeated only for keys that have had parallel calls.
const CHEAP: Duration = Duration::from_millis(50);

/// How long a capture's interrupted shell gets to come back (it runs builtins only).
const CAPTURE_GRACE: Duration = Duration::from_millis(200);

/// A shell the thread took to capture.
struct Job {
    key: Arc<SlotKey>,
    shell: Box<PersistentShell>,
    generation: u64,
    thread: Arc<PoolThread>,
}

impl Pool {
    /// Starts the capture thread if it does not run yet (under the state's lock).
    pub(super) fn start_capturer(&self, state: &mut State) {
        if state.capturer || state.shut_down {
            return;
        }
        let pool = self.me.clone();
        match std::thread::Builder::new().name("bashrt-capture".into()).spawn(move || serve(&pool)) {
            Ok(_) => state.capturer = true,
            Err(error) => tracing::warn!(%error, "no capture thread: calls beside a busy shell carry no state"),
        }
    }

    /// Waits for the next shell due for a capture and takes it; `None` at shutdown.
    fn next_capture(&self) -> Option<Job> {
        let mut state = self.lock();
        loop {
            if state.shut_down {
                state.capturer = false;
                return None;
            }
            let now = Instant::now();
            let due =
                state.slots.iter().filter_map(|(key, slot)| Some((slot.capture_due?, key))).min_by_key(|(d, _)| *d);
            let Some((due, key)) = due.map(|(due, key)| (due, Arc::clone(key))) else {
                state.capture_alarm = None;
                state = self.capture_wake.wait(state).unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            if due > now {
                state.capture_alarm = Some(due);
                state = self.capture_wake.wait_timeout(state, due - now).unwrap_or_else(PoisonError::into_inner).0;
                continue;
            }
            state.capture_alarm = Some(now);
            let thread = state.thread.clone();
            let Some(slot) = state.slots.get_mut(&key) else { continue };
            let now_due = Self::capture_now(slot, now);
            slot.capture_due = None;
            let (true, Some(thread), Occupant::Idle(_)) = (now_due, thread, &slot.occupant) else { continue };
            let Occupant::Idle(shell) = std::mem::replace(&mut slot.occupant, Occupant::Vacant) else { continue };
            slot.occupant = Occupant::Busy(Some(shell.kill_handle()));
            slot.capturing = true;
            return Some(Job { key, shell, generation: slot.generation, thread });
        }
    }

    /// Captures the idle shell of `key` now, on the caller's thread, when its state is behind (a call
    /// that starts a shell of its own from it, so that what the last calls set is there). Returns
    /// once the shell is back; does nothing when it is busy, capturing, or not behind.
    pub(super) fn capture_idle_now(&self, key: &Arc<SlotKey>) {
        let Ok(cancel) = CancelToken::new() else { return };
        let job = {
            let mut state = self.lock();
            let thread = state.thread.clone();
            let Some(slot) = state.slots.get_mut(key) else { return };
            let behind = slot.carried.as_ref().map_or(slot.generation > 0, |c| c.generation < slot.generation);
            let (true, false, Some(thread), Occupant::Idle(_)) = (behind, slot.capturing, thread, &slot.occupant)
            else {
                return;
            };
            let Occupant::Idle(shell) = std::mem::replace(&mut slot.occupant, Occupant::Vacant) else { return };
            slot.occupant = Occupant::Busy(Some(shell.kill_handle()));
            slot.capturing = true;
            slot.capture_due = None;
            Job { key: Arc::clone(key), shell, generation: slot.generation, thread }
        };
        self.capture(job, &cancel);
    }

    /// Captures the job's shell and gives it back.
    fn capture(&self, job: Job, cancel: &CancelToken) {
        let Job { key, mut shell, generation, thread } = job;
        let captured = capture_shell(&mut shell, &thread, cancel);
        // A shell the capture broke (a command left it unable to run one) is retired, as after a call.
        let (shell, orphans) = match captured.retire {
            Some(_) => (None, shell.retire()),
            None => (Some(shell), Vec::new()),
        };
        let mut pool = self.lock();
        if pool.shut_down {
            drop(pool);
            if let Some(shell) = shell {
                shell.kill();
            }
            crate::process::tree::terminate_orphans(&orphans);
            self.captured.notify_all();
            return;
        }
        super::add_orphans(&mut pool.orphans, orphans);
        if let Some(slot) = pool.slots.get_mut(&key) {
            match shell {
                Some(shell) => slot.occupant = Occupant::Idle(shell),
                None => {
                    slot.occupant = Occupant::Vacant;
                    slot.gone = captured.retire.clone();
                }
            }
        }
        Self::record(&mut pool, &key, generation, captured);
        drop(pool);
        self.captured.notify_all();
    }

    /// Keeps what a capture of `key`'s shell at `generation` gave (under the state's lock); the
    /// caller notifies [`Pool::captured`] once the lock is released.
    pub(super) fn record(state: &mut State, key: &SlotKey, generation: u64, captured: Captured) {
        let Some(slot) = state.slots.get_mut(key) else { return };
        slot.capturing = false;
        slot.capture_cost = Some(captured.cost);
        slot.carried = match captured.retire {
            None => Some(Carried { generation, state: captured.state }),
            Some(_) => None,
        };
    }

    /// Whether the slot's shell, idle, should be captured now: a capture is due, its state changed
    /// since the last one, and capturing it is cheap or has proved useful.
    pub(super) fn capture_now(slot: &super::Slot, now: Instant) -> bool {
        let due = slot.capture_due.is_some_and(|due| due <= now);
        let behind = slot.carried.as_ref().is_none_or(|c| c.generation < slot.generation);
        let worth = slot.parallel_seen || slot.capture_cost.is_none_or(|cost| cost < CHEAP);
        due && behind && worth
    }
}

/// What one capture gave.
pub(super) struct Captured {
    state: Result<Arc<[u8]>, String>,
    /// The shell must be replaced (the capture found it broken).
    pub(super) retire: Option<ReplaceReason>,
    cost: Duration,
}

/// Runs the capture script in `shell` (idle, taken from its slot).
pub(super) fn capture_shell(shell: &mut PersistentShell, thread: &PoolThread, cancel: &CancelToken) -> Captured {
    let capture = Capture::new(&shell.runner_tag());
    let script = capture.script();
    let step = Call { script: script.as_bytes(), cd: None, kill_grace: CAPTURE_GRACE, split_stdout: true };
    let mut collect = Collect::default();
    let started = Instant::now();
    let (state, retire) = match shell.run(&step, &mut collect, cancel, Some(started + CAPTURE_TIMEOUT), thread) {
        Ok(report) => {
            let state = match report.result {
                CallResult::Ran { outcome: Outcome::Exited { code: 0 }, .. } => capture.restore_script(&collect.stdout),
                CallResult::Ran { outcome: Outcome::TimedOut, .. } => {
                    Err(format!("capturing its state took longer than {}s", CAPTURE_TIMEOUT.as_secs()))
                }
                _ => Err("its state could not be captured".to_string()),
            };
            (state, report.retire)
        }
        Err(error) => (Err(format!("capturing its state failed: {error}")), Some(ReplaceReason::CallFailed)),
    };
    Captured { state, retire, cost: started.elapsed() }
}

fn serve(pool: &Weak<Pool>) {
    let Ok(cancel) = CancelToken::new() else {
        if let Some(pool) = pool.upgrade() {
            pool.lock().capturer = false;
        }
        return;
    };
    loop {
        let Some(strong) = pool.upgrade() else { return };
        let Some(job) = strong.next_capture() else { return };
        strong.capture(job, &cancel);
    }
}
