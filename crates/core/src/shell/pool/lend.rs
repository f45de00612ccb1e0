//! A long-lived shell lent to the job its call became. A tool call that yields goes on in the shell
//! it started in (its command is that shell's), so the key's other calls would find it busy for as
//! long as the job runs — a dev server for the whole session — and run one-shot, their state lost.
//! Instead the call lends the shell at its yield ([`OutputConsumer::shell_on_loan`]): its slot is
//! emptied at once, and the next call of the key starts a fresh long-lived shell from the state the
//! lent one had as last captured, saying what it lacks ([`ShellEvent::Handed`]). When the job's
//! command ends, its shell comes back to the slot if no fresh one was started meanwhile (it has the
//! newest state), else it is retired, what it runs in the background spared like any other's.

use super::*;
use crate::exec::ShellLoan;

/// A shell on loan to a job: its pid, and its killer for shutdown.
pub(super) struct Lent {
    pid: i32,
    killer: ChildKiller,
}

impl Lent {
    pub(super) fn killer(&self) -> ChildKiller {
        self.killer.clone()
    }
}

impl Pool {
    /// What the call gives its output consumer: lending `shell` to the job the call may become.
    pub(super) fn loan(&self, call: &PooledCall<'_>, shell: &PersistentShell) -> ShellLoan {
        let pool = self.me.clone();
        let key = Arc::clone(&call.lease.key);
        let (pid, killer) = (shell.pid(), shell.kill_handle());
        ShellLoan::new(move || {
            if let Some(pool) = pool.upgrade() {
                pool.lend(&key, Lent { pid, killer });
            }
        })
    }

    /// The call yielded: its shell is the job's, and the slot is free for a fresh one.
    fn lend(&self, key: &SlotKey, lent: Lent) {
        let mut state = self.lock();
        if state.shut_down {
            return;
        }
        let Some(slot) = state.slots.get_mut(key) else { return };
        if !matches!(slot.occupant, Occupant::Busy(_)) {
            return;
        }
        slot.occupant = Occupant::Vacant;
        slot.handed = true;
        // Its state will be wanted again: capture it whatever a capture costs.
        slot.parallel_seen = true;
        state.lent.push(lent);
        self.lent_now.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether the shell with this pid went on running a job (it is then no longer on loan): its call
    /// ended, or failed.
    pub(super) fn take_lent(&self, pid: i32) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        if self.lent_now.load(Relaxed) == 0 {
            return false;
        }
        let mut state = self.lock();
        let before = state.lent.len();
        state.lent.retain(|l| l.pid != pid);
        let taken = state.lent.len() != before;
        if taken {
            self.lent_now.fetch_sub(1, Relaxed);
        }
        taken
    }

    /// The lent shell's command ended (and [`Pool::take_lent`] took it off loan): back to its slot when no fresh shell took it meanwhile (the
    /// lent shell has the newest state), else retired.
    pub(super) fn give_back(&self, key: &Arc<SlotKey>, shell: Box<PersistentShell>, retire: Option<ReplaceReason>) {
        let reclaim = {
            let mut state = self.lock();
            let shut_down = state.shut_down;
            match state.slots.get_mut(key) {
                Some(slot) if slot.handed && matches!(slot.occupant, Occupant::Vacant) && !shut_down => {
                    slot.handed = false;
                    slot.occupant = Occupant::Busy(Some(shell.kill_handle()));
                    true
                }
                _ => false,
            }
        };
        match reclaim {
            true => self.checkin(key, shell, retire, None),
            false => {
                let orphans = shell.retire();
                let mut state = self.lock();
                match state.shut_down {
                    true => {
                        drop(state);
                        tree::terminate_orphans(&orphans);
                    }
                    false => add_orphans(&mut state.orphans, orphans),
                }
            }
        }
    }

    /// A fresh shell replacing one that went on running a job takes on the state it had (`seed`, the
    /// restore script), before the call's command; what it then lacks is `carried`, or nothing of it
    /// when the restore did not run.
    pub(super) fn take_on(
        &self,
        call: &mut PooledCall<'_>,
        shell: &mut PersistentShell,
        carried: Carry,
        seed: Option<&[u8]>,
    ) -> Carry {
        let Some(seed) = seed else { return carried };
        let mut discard = |_: &[u8]| crate::exec::Flow::Continue;
        let step = Call { script: seed, cd: None, kill_grace: call.req.kill_grace, split_stdout: false };
        match shell.run(&step, &mut discard, call.cancel, call.deadline, &call.thread) {
            Ok(report) if report.retire.is_none() && matches!(report.result, CallResult::Ran { .. }) => {
                // A call beside the fresh shell takes on what it holds now, not an empty state.
                if let Some(slot) = self.lock().slots.get_mut(&call.lease.key) {
                    slot.carried = Some(Carried { generation: 0, state: Ok(Arc::from(seed)) });
                }
                carried
            }
            _ => Carry::Nothing { reason: "restoring it in the fresh shell failed".to_string() },
        }
    }
}
