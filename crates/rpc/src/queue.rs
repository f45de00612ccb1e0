//! One session's `bash` commands run one at a time, in the order they arrived — so `cd x` then `ls`,
//! sent without waiting, behave as typed. Commands of different sessions do not wait for each other.
//!
//! Promises: a place is taken on the input thread, which dispatches requests (arrival order), waited
//! for on the command's thread, and given back when its [`Place`] is dropped (also on a panic); a
//! command aborted while it waits stops waiting at once (after [`SessionQueue::wake`]) and leaves the
//! queue.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use bashrt_core::CancelToken;

#[derive(Default)]
struct Order {
    next: u64,
    waiting: VecDeque<u64>,
    /// Threads blocked on `turn`: a place given back wakes them only when there are some (a wakeup is
    /// a system call; one command at a time, the common case, has nobody waiting).
    sleepers: usize,
}

impl Order {
    /// Waits on `turn` once, counted in `sleepers`.
    fn sleep<'a>(mut order: MutexGuard<'a, Order>, turn: &Condvar) -> MutexGuard<'a, Order> {
        order.sleepers += 1;
        let mut order = turn.wait(order).unwrap_or_else(PoisonError::into_inner);
        order.sleepers -= 1;
        order
    }
}

#[derive(Default)]
pub struct SessionQueue {
    order: Mutex<Order>,
    turn: Condvar,
}

impl SessionQueue {
    fn lock(&self) -> MutexGuard<'_, Order> {
        self.order.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Joins the end of the queue.
    pub fn enter(self: &Arc<Self>) -> Place {
        let mut order = self.lock();
        order.next += 1;
        let ticket = order.next;
        order.waiting.push_back(ticket);
        Place { queue: self.clone(), ticket }
    }

    /// The last place handed out: commands sent up to now hold places up to this one.
    pub fn issued(&self) -> u64 {
        self.lock().next
    }

    /// Blocks until every command holding a place up to `upto` has finished, or `cancel` fired —
    /// without taking a place, so nothing sent later waits for the caller.
    pub fn wait_done(&self, upto: u64, cancel: &CancelToken) {
        let mut order = self.lock();
        while order.waiting.front().is_some_and(|t| *t <= upto) && !cancel.is_cancelled() {
            order = Order::sleep(order, &self.turn);
        }
    }

    /// Wakes waiters so aborted ones can leave; call after cancelling.
    pub fn wake(&self) {
        self.turn.notify_all();
    }
}

/// A command's place in its session's queue.
pub struct Place {
    queue: Arc<SessionQueue>,
    ticket: u64,
}

impl Place {
    /// Blocks until every command ahead has finished, or `cancel` fired.
    pub fn wait_turn(&self, cancel: &CancelToken) {
        let mut order = self.queue.lock();
        while order.waiting.front() != Some(&self.ticket) && !cancel.is_cancelled() {
            order = Order::sleep(order, &self.queue.turn);
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut order = self.queue.lock();
        order.waiting.retain(|t| *t != self.ticket);
        let sleepers = order.sleepers;
        drop(order);
        if sleepers > 0 {
            self.queue.turn.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_served_in_order_and_an_aborted_one_stops_waiting() {
        let queue = Arc::new(SessionQueue::default());
        let first = queue.enter();
        let second = queue.enter();
        let never = CancelToken::new().unwrap();
        first.wait_turn(&never);
        // `second` waits for `first`, unless aborted.
        let aborted = CancelToken::new().unwrap();
        aborted.cancel();
        second.wait_turn(&aborted);
        let third = queue.enter();
        drop(first);
        drop(second);
        third.wait_turn(&never);
    }

    #[test]
    fn waiting_for_earlier_commands_takes_no_place() {
        let queue = Arc::new(SessionQueue::default());
        let never = CancelToken::new().unwrap();
        queue.wait_done(queue.issued(), &never);
        let first = queue.enter();
        let upto = queue.issued();
        let later = queue.enter();
        let waiter = {
            let queue = queue.clone();
            std::thread::spawn(move || queue.wait_done(upto, &CancelToken::new().unwrap()))
        };
        drop(first);
        waiter.join().unwrap();
        // The later command still runs when its turn comes: the waiter held no place.
        later.wait_turn(&never);
    }
}
