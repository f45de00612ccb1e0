//! Processes a finished call left running (`server &`, `npm run dev &`), followed as a job: listed,
//! read, waited for (until a line, a port, their end) and killed like any other.
//!
//! The call's executor hands them over ([`LeftRunning`]) with the call's output pipes they still
//! write to; one thread per such job reads those pipes into the job's window (a writer to a full pipe
//! would block), looks at the ports they listen on while they are quiet, and watches each process's
//! pidfd. The job ends when every process it was given has exited — with no status, which went to
//! the shell that started them — or is killed on request with everything descending from them,
//! never the shell they share a process group with.

use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout};

use super::info::JobInfo;
use super::listen::listening;
use super::table::{Job, JobStart, Jobs};
use super::yielding::QUIET;
use crate::cancel::CancelToken;
use crate::exec::LeftRunning;
use crate::outcome::Outcome;
use crate::process::procfs::{self, ProcEntry};
use crate::process::{pidfd, tree};
use crate::sink::{OutputSink, SinkConfig, Spill};

/// Settles the budget of a left job's artifact once its sink is finished (the run stage's).
pub(crate) type Settle = Box<dyn FnOnce(&Spill) + Send>;

/// The first interval between looks at the ports, doubling up to [`LAST_LOOK`] while nothing changes.
const FIRST_LOOK: Duration = Duration::from_millis(100);
const LAST_LOOK: Duration = Duration::from_millis(3200);
const CHUNK: usize = 64 * 1024;
/// Processes watched for their exit, at most (one pidfd each).
const WATCHED: usize = 64;

/// Makes a job of what `command`'s call left running (it ran for `ran`), and starts following it;
/// `None` when no thread or cancel token could be had (the call's notice then says only that they
/// run). The processes are killed with `grace` on request. `keep`: a sink spilled to an artifact that
/// keeps their whole output from now on, and what settles its budget at the end.
pub(crate) fn adopt(
    jobs: &Jobs,
    command: &str,
    left: LeftRunning,
    ran: Duration,
    window: SinkConfig,
    grace: Duration,
    keep: Option<(OutputSink, Settle)>,
) -> Option<JobInfo> {
    let cancel = CancelToken::new().ok()?;
    let started = Instant::now().checked_sub(ran).unwrap_or_else(Instant::now);
    let job = jobs.add(JobStart {
        command: command.to_string(),
        call_id: None,
        started,
        deadline: None,
        cancel: cancel.clone(),
        window,
        lines_before: 0,
        bytes_before: 0,
        artifact: keep.as_ref().and_then(|(sink, _)| sink.spilled_to()),
        stdin: None,
        last_line: super::LastLine::default(),
    });
    let info = job.info();
    let follower = Arc::clone(&job);
    let spawned = std::thread::Builder::new()
        .name("bashrt-left-job".into())
        .spawn(move || follow(&follower, left, &cancel, grace, keep));
    match spawned {
        Ok(_) => Some(info),
        Err(_) => {
            job.end(Some(Outcome::Error), ran);
            None
        }
    }
}

/// Reads the pipes and watches the processes until they are all gone, or kills them on a cancel.
fn follow(job: &Job, left: LeftRunning, cancel: &CancelToken, grace: Duration, keep: Option<(OutputSink, Settle)>) {
    let (mut kept, settle) = match keep {
        Some((sink, settle)) => (Some(sink), Some(settle)),
        None => (None, None),
    };
    follow_into(job, left, cancel, grace, &mut kept);
    if let (Some(sink), Some(settle)) = (kept, settle) {
        let output = sink.finish();
        job.set_artifact(output.spill().artifact());
        settle(output.spill());
    }
}

fn follow_into(job: &Job, left: LeftRunning, cancel: &CancelToken, grace: Duration, kept: &mut Option<OutputSink>) {
    let LeftRunning { mut processes, mut outputs } = left;
    // Each process by a pidfd opened while it is still the process listed (a pid may be reused); the
    // ones whose parent is not among them first, and at most [`WATCHED`] (a command that left
    // thousands must not take as many descriptors). All of them are killed on request.
    let listed: Vec<i32> = processes.iter().map(|e| e.pid).collect();
    processes.sort_by_key(|e| listed.contains(&e.ppid));
    let mut alive: Vec<(ProcEntry, OwnedFd)> = processes
        .iter()
        .take(WATCHED)
        .filter_map(|e| {
            let fd = pidfd::open(e.pid).ok()?;
            procfs::stat(e.pid).is_some_and(|now| now.alive && now.start_time == e.start_time).then_some((*e, fd))
        })
        .collect();
    let (mut lines, mut bytes) = (0u64, 0u64);
    let mut buf = vec![0u8; CHUNK];
    let mut last_output = Instant::now();
    let mut next_look = last_output + QUIET;
    let mut look_every = FIRST_LOOK;
    loop {
        if alive.is_empty() {
            read_ready(job, kept, &mut outputs, &mut buf, &mut lines, &mut bytes);
            job.end(None, job.elapsed());
            return;
        }
        let (woken, exited) = {
            let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(1 + outputs.len() + alive.len());
            fds.push(PollFd::new(cancel.fd(), PollFlags::POLLIN));
            fds.extend(outputs.iter().map(|fd| PollFd::new(fd.as_fd(), PollFlags::POLLIN)));
            fds.extend(alive.iter().map(|(_, fd)| PollFd::new(fd.as_fd(), PollFlags::POLLIN)));
            let wait = next_look.saturating_duration_since(Instant::now());
            let timeout = PollTimeout::try_from(wait.as_millis().clamp(1, 60_000) as u64).unwrap_or(PollTimeout::MAX);
            let _ = nix::poll::poll(&mut fds, timeout);
            let ready = |fd: &PollFd<'_>| fd.revents().is_some_and(|r| !r.is_empty());
            let woken = outputs.iter().zip(&fds[1..]).any(|(_, fd)| ready(fd));
            let exited: Vec<bool> = fds[1 + outputs.len()..].iter().map(ready).collect();
            (woken, exited)
        };
        if cancel.is_cancelled() {
            tree::terminate_left(&processes, grace);
            read_ready(job, kept, &mut outputs, &mut buf, &mut lines, &mut bytes);
            job.end(Some(Outcome::Cancelled), job.elapsed());
            return;
        }
        if woken && read_ready(job, kept, &mut outputs, &mut buf, &mut lines, &mut bytes) {
            last_output = Instant::now();
            look_every = FIRST_LOOK;
        }
        let mut gone = exited.into_iter();
        alive.retain(|_| !gone.next().unwrap_or(false));
        let now = Instant::now();
        if now >= next_look && now >= last_output + QUIET {
            let mut pids: Vec<i32> = Vec::new();
            for (entry, _) in &alive {
                pids.push(entry.pid);
                procfs::visit_descendants(entry.pid, |pid| {
                    pids.push(pid);
                    pids.len() < 256
                });
            }
            job.set_listening(listening(&pids));
            look_every = if job.eager() { FIRST_LOOK } else { (look_every * 2).min(LAST_LOOK) };
            next_look = now + look_every;
        } else if now >= next_look {
            next_look = last_output + QUIET;
        }
    }
}

/// Reads what the pipes hold now, a few chunks of each at most (a writer that never pauses cannot
/// keep the loop from its other work), into the job; a pipe at its end is dropped. True when any
/// output came.
fn read_ready(
    job: &Job,
    kept: &mut Option<OutputSink>,
    outputs: &mut Vec<OwnedFd>,
    buf: &mut [u8],
    lines: &mut u64,
    bytes: &mut u64,
) -> bool {
    const READS_PER_WAKE: usize = 16;
    let mut any = false;
    outputs.retain(|fd| {
        for _ in 0..READS_PER_WAKE {
            match nix::unistd::read(fd, buf) {
                Ok(0) => return false,
                Ok(n) => {
                    let chunk = &buf[..n];
                    *lines += bytecount::count(chunk, b'\n') as u64;
                    *bytes += n as u64;
                    if let Some(sink) = kept.as_mut() {
                        sink.push(chunk);
                        sink.flush_spill();
                    }
                    job.push(chunk, *lines, *bytes);
                    any = true;
                }
                Err(nix::errno::Errno::EINTR) => {}
                Err(nix::errno::Errno::EAGAIN) => return true,
                Err(_) => return false,
            }
        }
        true
    });
    any
}
