//! The calls that are running, so that a shutdown can cancel them and wait for them to end.
//!
//! Promises: at most [`MAX_RUNNING`] calls run at once (each holds a thread and a shell); once
//! [`Calls::close`] ran, no call registers any more (a late request is refused), every
//! registered call was cancelled, and [`Calls::wait_idle`] returns when the last of them has ended.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use bashrt_core::CancelToken;

/// The most `bash` calls that run at once; more are refused until one ends.
pub const MAX_RUNNING: usize = 64;

/// Why a call could not start.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error("too many running commands (limit {MAX_RUNNING}); wait for one to end or cancel one")]
    Busy,
    #[error("the server is shutting down")]
    Closed,
}

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

    /// Registers a call cancelled by `cancel`.
    pub fn register(self: &Arc<Self>, cancel: CancelToken) -> Result<Running, Refused> {
        let mut state = self.lock();
        if state.closed {
            return Err(Refused::Closed);
        }
        if state.running.len() >= MAX_RUNNING {
            return Err(Refused::Busy);
        }
        state.next += 1;
        let id = state.next;
        state.running.insert(id, cancel);
        Ok(Running { calls: self.clone(), id })
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
    fn calls_beyond_the_limit_are_refused_until_one_ends() {
        let calls = Arc::new(Calls::default());
        let mut running: Vec<Running> =
            (0..MAX_RUNNING).map(|_| calls.register(CancelToken::new().unwrap()).unwrap()).collect();
        assert!(matches!(calls.register(CancelToken::new().unwrap()), Err(Refused::Busy)));
        running.pop();
        assert!(calls.register(CancelToken::new().unwrap()).is_ok());
    }

    #[test]
    fn close_cancels_running_calls_and_refuses_new_ones() {
        let calls = Arc::new(Calls::default());
        let cancel = CancelToken::new().unwrap();
        let running = calls.register(cancel.clone()).unwrap();
        calls.close();
        assert!(cancel.is_cancelled());
        assert!(matches!(calls.register(CancelToken::new().unwrap()), Err(Refused::Closed)));
        let waiter = {
            let calls = calls.clone();
            std::thread::spawn(move || calls.wait_idle())
        };
        drop(running);
        waiter.join().unwrap();
    }
}
