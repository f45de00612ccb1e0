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
//! A job may also run on a thread of the caller's ([`Workers::here`]: the reading thread runs quick
//! commands itself); it is counted all the same, so that [`Workers::join`] waits for it.
//!
//! Promises: every submitted job runs exactly once, or [`Workers::submit`] returns the spawn error and
//! the job is dropped unrun; a panicking job is logged and its thread keeps serving; [`Workers::join`]
//! returns after every submitted job and every job taken with [`Workers::here`] has finished and every
//! worker has exited.

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
    /// Jobs taken with [`Workers::here`] and not finished yet.
    here: usize,
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
            run_caught(run);
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

    /// Takes `job` to be run on the caller's thread ([`Here::run`]); [`Self::join`] waits for it. Take
    /// it before whatever makes [`Self::join`] run (the server takes it while it accepts requests).
    pub fn here(&self, job: impl FnOnce() + Send + 'static) -> Here {
        self.inner.lock().here += 1;
        Here { inner: self.inner.clone(), job: Some(Box::new(job)) }
    }

    /// Lets every queued and running job finish (those taken with [`Self::here`] included), then stops
    /// the workers and waits for them. Jobs may still submit jobs meanwhile (a `bash` command starts its
    /// live-output pump): their threads are waited for too.
    pub fn join(&self) {
        self.inner.lock().closed = true;
        self.inner.wake.notify_all();
        loop {
            let mut state = self.inner.lock();
            while state.here > 0 {
                state = self.inner.wake.wait(state).unwrap_or_else(PoisonError::into_inner);
            }
            let threads = std::mem::take(&mut state.threads);
            drop(state);
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

fn run_caught(job: Job) {
    if catch_unwind(AssertUnwindSafe(job)).is_err() {
        tracing::error!("a command thread panicked");
    }
}

/// A job to run on the caller's thread, counted until it has run (or is dropped unrun).
pub struct Here {
    inner: Arc<Inner>,
    job: Option<Job>,
}

impl Here {
    pub fn run(mut self) {
        if let Some(job) = self.job.take() {
            run_caught(job);
        }
    }
}

impl Drop for Here {
    fn drop(&mut self) {
        let mut state = self.inner.lock();
        state.here -= 1;
        // Only `join` waits for this: idle workers are not woken for nothing on every quick command.
        let joining = state.closed;
        drop(state);
        if joining {
            self.inner.wake.notify_all();
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
    fn join_waits_for_a_job_run_here() {
        let workers = Arc::new(Workers::new());
        let ran = Arc::new(AtomicUsize::new(0));
        let here = {
            let ran = ran.clone();
            workers.here(move || {
                ran.fetch_add(1, Ordering::SeqCst);
            })
        };
        let (go, wait) = channel::<()>();
        let runner = std::thread::spawn(move || {
            wait.recv().unwrap();
            here.run();
        });
        let joiner = {
            let (workers, ran) = (workers.clone(), ran.clone());
            std::thread::spawn(move || {
                workers.join();
                ran.load(Ordering::SeqCst)
            })
        };
        go.send(()).unwrap();
        assert_eq!(joiner.join().unwrap(), 1, "join returned before the job ran");
        runner.join().unwrap();
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
