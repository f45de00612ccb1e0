//! Long-lived threads that run the server's commands, so a request does not pay for a thread spawn
//! (tens of microseconds, a large part of a quick command's round trip).
//!
//! Why this shape: commands block for arbitrary times (a `bash` waits for its session's turn, a tool
//! call runs for minutes), so a fixed-size pool could deadlock — the command holding a session's turn
//! could sit in the queue behind the ones waiting for it. The pool therefore never makes a job wait for
//! a busy worker: a job goes to an idle worker if there is one, else to a new thread. Its size is thus
//! bounded by the jobs running at once (the server's `MAX_RUNNING` commands, plus their live-output
//! pumps), and idle workers park on a condition variable until the next job or [`Workers::join`].
//!
//! Promises: every submitted job runs exactly once, or [`Workers::submit`] returns the spawn error and
//! the job is dropped unrun; a panicking job is logged and its worker keeps serving; [`Workers::join`]
//! returns after every submitted job has finished and every worker has exited.

use std::collections::VecDeque;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

type Job = Box<dyn FnOnce() + Send + 'static>;

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    /// Workers parked in [`Inner::next_job`], not yet woken for a job.
    idle: usize,
    closed: bool,
    threads: Vec<JoinHandle<()>>,
}

#[derive(Default)]
struct Inner {
    state: Mutex<State>,
    wake: Condvar,
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next job, or `None` once the pool is closed and no job is left.
    fn next_job(&self) -> Option<Job> {
        let mut state = self.lock();
        loop {
            if let Some(job) = state.queue.pop_front() {
                return Some(job);
            }
            if state.closed {
                return None;
            }
            state.idle += 1;
            state = self.wake.wait(state).unwrap_or_else(PoisonError::into_inner);
            state.idle -= 1;
        }
    }

    fn work(&self, first: Job) {
        let mut job = Some(first);
        while let Some(run) = job.take().or_else(|| self.next_job()) {
            if catch_unwind(AssertUnwindSafe(run)).is_err() {
                tracing::error!("a command thread panicked");
            }
        }
    }
}

/// A pool of worker threads that grows on demand.
#[derive(Default)]
pub struct Workers {
    inner: Arc<Inner>,
}

impl Workers {
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `job` on an idle worker, or on a new one (named `name`) when none is idle.
    pub fn submit(&self, name: &str, job: impl FnOnce() + Send + 'static) -> io::Result<()> {
        let mut state = self.inner.lock();
        // Each parked worker takes one queued job; a job beyond them needs a thread of its own.
        if state.queue.len() < state.idle {
            state.queue.push_back(Box::new(job));
            drop(state);
            self.inner.wake.notify_one();
            return Ok(());
        }
        let inner = self.inner.clone();
        let first: Job = Box::new(job);
        let thread = std::thread::Builder::new().name(name.into()).spawn(move || inner.work(first))?;
        state.threads.push(thread);
        Ok(())
    }

    /// Lets every queued and running job finish, then stops the workers and waits for them.
    /// Jobs may still submit jobs meanwhile (a `bash` command starts its live-output pump): their threads
    /// are waited for too.
    pub fn join(&self) {
        self.inner.lock().closed = true;
        self.inner.wake.notify_all();
        loop {
            let threads = std::mem::take(&mut self.inner.lock().threads);
            if threads.is_empty() {
                return;
            }
            for thread in threads {
                if thread.join().is_err() {
                    tracing::error!("a worker thread panicked");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc::channel;
    use std::time::Duration;

    use super::*;

    #[test]
    fn every_job_runs_once_and_idle_workers_are_reused() {
        let workers = Workers::new();
        let count = Arc::new(AtomicUsize::new(0));
        for _ in 0..100 {
            let count = count.clone();
            let (done, wait) = channel();
            workers
                .submit("test", move || {
                    count.fetch_add(1, Ordering::SeqCst);
                    let _ = done.send(());
                })
                .unwrap();
            wait.recv().unwrap();
            // Let the worker park again before the next job.
            while workers.inner.lock().idle == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        assert_eq!(workers.inner.lock().threads.len(), 1);
        workers.join();
        assert_eq!(count.load(Ordering::SeqCst), 100);
    }

    #[test]
    fn blocked_jobs_do_not_hold_up_new_ones_and_join_waits_for_all() {
        let workers = Workers::new();
        let (release, blocked) = channel::<()>();
        let blocked = Arc::new(Mutex::new(blocked));
        let count = Arc::new(AtomicUsize::new(0));
        for _ in 0..8 {
            let (blocked, count) = (blocked.clone(), count.clone());
            workers
                .submit("test", move || {
                    let _ = blocked.lock().unwrap().recv();
                    count.fetch_add(1, Ordering::SeqCst);
                })
                .unwrap();
        }
        // A job submitted while all others block still runs.
        let (done, wait) = channel();
        workers.submit("test", move || done.send(()).unwrap()).unwrap();
        wait.recv_timeout(Duration::from_secs(10)).unwrap();
        for _ in 0..8 {
            release.send(()).unwrap();
        }
        workers.join();
        assert_eq!(count.load(Ordering::SeqCst), 8);
    }

    #[test]
    fn a_panicking_job_leaves_its_worker_serving() {
        let workers = Workers::new();
        workers.submit("test", || panic!("boom")).unwrap();
        let (done, wait) = channel();
        workers.submit("test", move || done.send(()).unwrap()).unwrap();
        wait.recv_timeout(Duration::from_secs(10)).unwrap();
        workers.join();
    }
}
