//! The pool's slots: checking a shell out for a call and back in, vacating a slot whose shell is
//! gone, and choosing what to evict.

use super::*;

impl Pool {
    /// Takes the key's shell, or the right to start one, or says why the call runs one-shot. Also
    /// evicts idle shells past their time; the caller kills those outside the lock.
    pub(super) fn checkout(&self, key: &Arc<SlotKey>) -> (Checkout, Vec<PersistentShell>) {
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
                .wait_timeout_while(state, crate::shell::carry::CAPTURE_TIMEOUT, capturing)
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
                slot.occupant = Occupant::Busy(Some(shell.kill_handle()));
                // A capture due and not begun is made now, by this call, before its command.
                let capture = Self::capture_now(slot, now).then_some(slot.generation);
                slot.capturing = capture.is_some();
                slot.capture_due = None;
                Checkout::Shell {
                    shell: Some(shell),
                    gone: None,
                    session_cwd: session_cwd.clone(),
                    thread,
                    capture,
                    handed: None,
                }
            }
            Occupant::Vacant => {
                let gone = slot.gone.take();
                // The shell went on running a job: the new one starts from its state.
                let handed = std::mem::take(&mut slot.handed).then(|| slot.carry_to_fresh());
                Checkout::Shell { shell: None, gone, session_cwd: session_cwd.clone(), thread, capture: None, handed }
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
                    let (gone, session_cwd, handed) = match checkout {
                        Checkout::Shell { gone, session_cwd, handed, .. } => (gone, session_cwd, handed.is_some()),
                        Checkout::OneShot { session_cwd, .. } => (None, session_cwd, false),
                    };
                    if let Some(slot) = state.slots.get_mut(key) {
                        slot.occupant = Occupant::Vacant;
                        slot.gone = gone;
                        slot.handed = handed;
                    }
                    return (Checkout::OneShot { reason: OneShotReason::PoolFull, session_cwd, seed: None }, evicted);
                }
            }
        }
        prune_vacant(&mut state.slots, self.config.max_shells);
        (checkout, evicted)
    }

    /// Gives the shell back after a call (`retire` set: it must not run another command).
    pub(super) fn checkin(
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
    pub(super) fn vacate(&self, key: &SlotKey, gone: Option<ReplaceReason>, orphans: Vec<ProcEntry>) {
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
    pub(super) fn started(&self, key: &SlotKey, handle: Option<ChildKiller>) {
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
                handle.signal(nix::sys::signal::Signal::SIGKILL);
            }
        }
    }
}

impl Slot {
    /// What a call beside the busy shell gets of its state, and the script that recreates it.
    pub(super) fn carry(&self) -> (Carry, Option<Arc<[u8]>>) {
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

    /// What a fresh shell of this key starts from, when it replaces one that went on running a job:
    /// the state as last captured; when calls ran since, or none was captured, what it lacks.
    pub(super) fn carry_to_fresh(&self) -> (Carry, Option<Arc<[u8]>>) {
        match (&self.carried, self.generation) {
            (None, calls) if calls > 0 => (Carry::Stale { missing: calls }, None),
            _ => self.carry(),
        }
    }

    pub(super) fn evict(&mut self) -> Option<Box<PersistentShell>> {
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

/// Keeps the list short: entries that died are dropped once it grows.
pub(super) fn add_orphans(list: &mut Vec<ProcEntry>, more: Vec<ProcEntry>) {
    list.extend(more);
    if list.len() > 64 {
        list.retain(|e| procfs::stat(e.pid).is_some_and(|now| now.alive && now.start_time == e.start_time));
    }
}

/// Forgets the oldest vacant slots beyond the limit (their session cwd and replacement reason).
/// The slot of `key` (a vacant one if the key is new), marked as used at `now`.
pub(super) fn touch_slot<'a>(
    slots: &'a mut HashMap<Arc<SlotKey>, Slot>,
    key: &Arc<SlotKey>,
    now: Instant,
) -> &'a mut Slot {
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
        handed: false,
    });
    slot.last_used = now;
    slot
}

pub(super) fn prune_vacant(slots: &mut HashMap<Arc<SlotKey>, Slot>, max_shells: usize) {
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
