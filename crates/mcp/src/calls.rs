//! The calls that are running, so that a shutdown can cancel them and wait for them to end.
//!
//! Promises: once [`Calls::close`] ran, no call registers any more (a late request is refused), every
//! registered call was cancelled, and [`Calls::wait_idle`] returns when the last of them has ended.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use bashrt_core::CancelToken;

#[derive(Default)]
struct State {
    next: u64,
    running: HashMap<u64, CancelToken>,
    closed: bool,
}

/// The running calls of a server.
#[derive(Default)]
pub struct Calls {
    state: Mutex<State>,
    idle: Condvar,
}

impl Calls {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a call cancelled by `cancel`; `None` once the server is shutting down.
    pub fn register(self: &Arc<Self>, cancel: CancelToken) -> Option<Running> {
        let mut state = self.lock();
        if state.closed {
            return None;
        }
        state.next += 1;
        let id = state.next;
        state.running.insert(id, cancel);
        Some(Running { calls: self.clone(), id })
    }

    /// Refuses new calls and cancels every running one.
    pub fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        for cancel in state.running.values() {
            cancel.cancel();
        }
    }

    /// Blocks until no call is running.
    pub fn wait_idle(&self) {
        let mut state = self.lock();
        while !state.running.is_empty() {
            state = self.idle.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A registered call; dropping it (also on a panic) says the call ended.
pub struct Running {
    calls: Arc<Calls>,
    id: u64,
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut state = self.calls.lock();
        state.running.remove(&self.id);
        if state.running.is_empty() {
            self.calls.idle.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_cancels_running_calls_and_refuses_new_ones() {
        let calls = Arc::new(Calls::default());
        let cancel = CancelToken::new().unwrap();
        let running = calls.register(cancel.clone()).unwrap();
        calls.close();
        assert!(cancel.is_cancelled());
        assert!(calls.register(CancelToken::new().unwrap()).is_none());
        let waiter = {
            let calls = calls.clone();
            std::thread::spawn(move || calls.wait_idle())
        };
        drop(running);
        waiter.join().unwrap();
    }
}
