//! The reading role, passed between two threads so that the thread that read a quick command can run
//! it itself.
//!
//! Handing every command to a worker thread costs a wakeup and a context switch per request, and on a
//! machine with more than one CPU the worker often wakes on the other one, which is the slowest hop
//! there is (an inter-processor interrupt, more so in a virtual machine). Yet the input must be read
//! while commands run, or an `abort_bash` would wait behind the command it is meant to stop. So the
//! thread that read a command may run it when nothing else is buffered, after lending the reader
//! here: a second thread, parked on a timer, takes the reader over once the command has run for
//! [`TAKE_OVER_AFTER`], and reads on. A quick command is over before that and the lender takes its
//! reader back, having woken nobody; a long one costs one wakeup, off its own path.
//!
//! The second thread waits on a timer and not on a condition variable because setting a timer wakes
//! nobody. Each lend moves the timer to its own deadline, so while commands come back to back the
//! timer never fires: it fires only for a command that runs its time (or once after the last lend).
//! An earlier design set the timer once and let it fire every [`TAKE_OVER_AFTER`] while commands came
//! back to back, sparing the system call; but each wakeup lands in the middle of a command (on one
//! CPU it preempts the shell or the program it runs), and commands of about a millisecond
//! (`/bin/true`) woke it every second or third call. A lend moves the timer only when its deadline is
//! more than [`REARM_SLACK`] past the one set, so commands quicker than that share one setting.
//!
//! Promises: at most one thread reads at a time; a request that arrives while the reading thread runs
//! a command is read within [`TAKE_OVER_AFTER`] of the command's start (plus scheduling), and no
//! reader is taken from a command that ran less than [`TAKE_OVER_AFTER`] − [`REARM_SLACK`]; a lent
//! reader is never lost: either the lender takes it back or the other thread reads with it.

use std::io;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};

use crate::lines::LineReader;

/// How long a command runs on the reading thread before the other thread takes over the reading.
///
/// While commands come back to back, the parked thread wakes once per this long (a timer interrupt,
/// two context switches, the timer set again), and takes over from the commands that outlast it.
/// Commands of about a millisecond (`/bin/true`, 1.2 ms each) cost the server 30 µs more CPU per call
/// at 2 ms than at 5 ms, where it was measured. Longer would save little more and keep a request that
/// arrives meanwhile (an abort, another session's command) waiting longer.
pub const TAKE_OVER_AFTER: Duration = Duration::from_millis(5);

/// How much earlier than [`TAKE_OVER_AFTER`] after its start a command's reader may be taken over:
/// a lend whose deadline is at most this much past the timer's leaves the timer as it is.
pub const REARM_SLACK: Duration = Duration::from_millis(1);

struct State<R> {
    /// The reader, while its thread runs a command, and since when.
    lent: Option<(LineReader<R>, Instant)>,
    /// A thread runs a command it read itself: the other thread reads, or will, so neither may lend.
    busy: bool,
    /// When the timer fires, while it is set.
    deadline: Option<Instant>,
    /// The input ended or the server shuts down: the parked thread leaves.
    closed: bool,
}

pub struct Baton<R> {
    state: Mutex<State<R>>,
    timer: TimerFd,
}

impl<R> Baton<R> {
    pub fn new() -> io::Result<Self> {
        let timer = TimerFd::new(ClockId::CLOCK_MONOTONIC, TimerFlags::TFD_CLOEXEC)?;
        Ok(Self { state: Mutex::new(State { lent: None, busy: false, deadline: None, closed: false }), timer })
    }

    fn lock(&self) -> MutexGuard<'_, State<R>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the reading thread may run a command itself: only while the other thread is free to
    /// take over.
    pub fn can_lend(&self) -> bool {
        let state = self.lock();
        !state.busy && !state.closed
    }

    /// Leaves the reader for the other thread to take in [`TAKE_OVER_AFTER`], while the caller runs a
    /// command.
    pub fn lend(&self, reader: LineReader<R>) {
        let now = Instant::now();
        let due = now + TAKE_OVER_AFTER;
        let mut state = self.lock();
        state.busy = true;
        state.lent = Some((reader, now));
        // A timer set for an earlier lend would fire during this command: move it, unless it fires
        // within the slack of this lend's deadline. The timer is only ever set under the lock, with
        // `deadline`, so the two always agree.
        if moves_timer(state.deadline, due) {
            if !self.arm(TAKE_OVER_AFTER) {
                drop(state);
                self.give_up();
                return;
            }
            state.deadline = Some(due);
        }
    }

    /// The reader back after the command, unless the other thread took it (the caller then parks in
    /// [`Self::take`]).
    pub fn reclaim(&self) -> Option<LineReader<R>> {
        let mut state = self.lock();
        state.busy = false;
        state.lent.take().map(|(reader, _)| reader)
    }

    /// Parks until a lent reader is due, and takes it; `None` once the baton is closed.
    pub fn take(&self) -> Option<LineReader<R>> {
        loop {
            let mut state = self.lock();
            if state.closed {
                return None;
            }
            // Woken by the timer (or parked for the first time). The timer and `deadline` change
            // together under the lock, so a deadline that has passed is one the timer fired for (it
            // is set no more), and one still to come is what the timer is set for.
            let now = Instant::now();
            if state.deadline.is_some_and(|set| set <= now) {
                state.deadline = None;
            }
            match &state.lent {
                Some((_, since)) if now.duration_since(*since) + REARM_SLACK >= TAKE_OVER_AFTER => {
                    return state.lent.take().map(|(reader, _)| reader);
                }
                // Not due, and the timer is not set (woken for an earlier lend's deadline, whose
                // command ended): set it for this one's.
                Some((_, since)) if state.deadline.is_none() => {
                    let left = TAKE_OVER_AFTER.saturating_sub(now.duration_since(*since));
                    if !self.arm(left) {
                        drop(state);
                        self.give_up();
                        return None;
                    }
                    state.deadline = Some(now + left);
                }
                // Nothing lent (the next lend sets the timer), or the timer is set for what is lent.
                _ => {}
            }
            drop(state);
            if let Err(error) = self.timer.wait() {
                tracing::warn!(%error, "the standby reader's timer failed");
                self.give_up();
                return None;
            }
        }
    }

    /// No more lending; the parked thread leaves, and a reader still lent goes back to its lender.
    pub fn close(&self) {
        self.lock().closed = true;
        self.arm(Duration::from_nanos(1));
    }

    /// A timer that cannot be set or waited on (it cannot happen to a valid timerfd) would leave every
    /// later lend without anyone to take over: stop lending for good, so every command goes to a worker
    /// as it would without a baton. A reader lent meanwhile goes back to its lender.
    fn give_up(&self) {
        tracing::warn!("commands no longer run on the reading thread");
        self.close();
    }

    /// Sets the timer; false when it could not be set.
    fn arm(&self, after: Duration) -> bool {
        let when = Expiration::OneShot(TimeSpec::from_duration(after.max(Duration::from_nanos(1))));
        match self.timer.set(when, TimerSetTimeFlags::empty()) {
            Ok(()) => true,
            Err(error) => {
                tracing::warn!(%error, "cannot set the standby reader's timer");
                false
            }
        }
    }
}

/// Whether a lend due at `due` must set the timer, set to fire at `set` (`None`: not set): when it is
/// not set, or would fire more than [`REARM_SLACK`] before the lend is due. One that fires later
/// cannot be: every deadline set is a lend's, and lends come in order.
fn moves_timer(set: Option<Instant>, due: Instant) -> bool {
    set.is_none_or(|set| set + REARM_SLACK < due)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::lines::Frame;

    fn reader(text: &'static [u8]) -> LineReader<&'static [u8]> {
        LineReader::new(text, 1024)
    }

    #[test]
    fn a_reader_taken_back_stays_with_its_thread() {
        let baton = Baton::new().unwrap();
        assert!(baton.can_lend());
        baton.lend(reader(b"a\n"));
        assert!(!baton.can_lend(), "one command at a time runs on a reading thread");
        let mut back = baton.reclaim().expect("not taken");
        assert_eq!(back.next_frame().unwrap(), Some(Frame::Line(b"a".to_vec())));
        assert!(baton.can_lend());
    }

    #[test]
    fn the_parked_thread_takes_a_reader_lent_for_longer_and_reads_on() {
        let baton = Arc::new(Baton::new().unwrap());
        let standby = {
            let baton = baton.clone();
            std::thread::spawn(move || {
                let mut reader = baton.take()?;
                Some((reader.next_frame().unwrap(), Instant::now()))
            })
        };
        let lent_at = Instant::now();
        baton.lend(reader(b"next\n"));
        let (frame, taken_at) = standby.join().unwrap().expect("taken");
        assert_eq!(frame, Some(Frame::Line(b"next".to_vec())));
        assert!(taken_at - lent_at + REARM_SLACK >= TAKE_OVER_AFTER, "taken over before the command had run its time");
        assert!(baton.reclaim().is_none(), "the lender parks instead");
        assert!(baton.can_lend(), "the lender's command is over");
    }

    #[test]
    fn a_timer_set_for_an_earlier_lend_does_not_cut_a_later_one_short() {
        let baton = Arc::new(Baton::new().unwrap());
        baton.lend(reader(b"first\n"));
        assert!(baton.reclaim().is_some());
        // The timer set by the first lend is still running; the second lend comes later.
        let standby = {
            let baton = baton.clone();
            std::thread::spawn(move || baton.take().map(|_| Instant::now()))
        };
        let lent_at = Instant::now();
        baton.lend(reader(b"second\n"));
        let taken_at = standby.join().unwrap().expect("taken");
        assert!(taken_at - lent_at + REARM_SLACK >= TAKE_OVER_AFTER);
    }

    #[test]
    fn lends_in_quick_succession_share_one_timer_setting_and_move_it_on() {
        let start = Instant::now();
        let due = |after_ms: u64| start + Duration::from_millis(after_ms) + TAKE_OVER_AFTER;
        assert!(moves_timer(None, due(0)), "a timer not set is set");
        // Set by a lend at 0 ms: the lends of the next millisecond leave it, a later one moves it (so
        // it does not fire while that lend's command runs).
        let set = Some(due(0));
        assert!(!moves_timer(set, due(0)));
        assert!(!moves_timer(set, due(1)));
        assert!(moves_timer(set, due(2)));
    }

    #[test]
    fn a_broken_timer_stops_lending_and_the_lent_reader_goes_back() {
        let baton = Baton::new().unwrap();
        baton.lend(reader(b"a\n"));
        baton.give_up();
        assert!(baton.reclaim().is_some(), "the lender keeps reading");
        assert!(!baton.can_lend(), "every later command goes to a worker");
        assert!(baton.take().is_none(), "the parked thread leaves");
    }

    #[test]
    fn closing_releases_the_parked_thread() {
        let baton = Arc::new(Baton::<&'static [u8]>::new().unwrap());
        let standby = {
            let baton = baton.clone();
            std::thread::spawn(move || baton.take().is_none())
        };
        baton.close();
        assert!(standby.join().unwrap());
        assert!(!baton.can_lend());
    }
}
