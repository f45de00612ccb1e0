//! What a long-lived shell runs besides itself: the walk, the cheap checks that spare most calls a
//! walk, and the count a call reports.

use super::*;
use crate::exec::LeftRunning;

impl PersistentShell {
    /// Lists what the shell's tree runs besides the shell (see [`ChildKiller::background`]).
    pub(super) fn walk_background(&mut self) {
        self.background = self.child.killer().background();
        self.background_fds = self.background.iter().filter_map(|e| pidfd::open(e.pid).ok()).collect();
        self.walked_at = Instant::now();
    }

    /// True when the last walk is recent and every process it found is still running: one `poll`.
    pub(super) fn background_unchanged(&mut self) -> bool {
        if self.has_unknown_child() {
            return false;
        }
        if self.background.is_empty() {
            return true;
        }
        if self.walked_at.elapsed() > BACKGROUND_FRESH || self.background_fds.len() != self.background.len() {
            return false;
        }
        let mut fds: Vec<PollFd<'_>> =
            self.background_fds.iter().map(|fd| PollFd::new(fd.as_fd(), PollFlags::POLLIN)).collect();
        matches!(nix::poll::poll(&mut fds, PollTimeout::ZERO), Ok(0))
    }

    /// Whether the shell has a child the last walk did not list: an orphan it adopted (`setsid -f`
    /// with its output elsewhere, no `$!`) shows here, and must be spared by the next call's kill
    /// and counted. A `pread` of a few bytes; false when the file cannot be read.
    pub(super) fn has_unknown_child(&mut self) -> bool {
        use std::os::unix::fs::FileExt;
        let Some(file) = &self.children else { return false };
        self.children_buf.resize(4096, 0);
        let mut len = 0;
        loop {
            match file.read_at(&mut self.children_buf[len..], len as u64) {
                Ok(0) => break,
                Ok(n) => {
                    len += n;
                    if len == self.children_buf.len() {
                        let grown = self.children_buf.len() * 2;
                        self.children_buf.resize(grown, 0);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
        let background = &self.background;
        self.children_buf[..len]
            .split(|b| b.is_ascii_whitespace())
            .filter_map(|word| std::str::from_utf8(word).ok()?.parse::<i32>().ok())
            .any(|pid| !background.iter().any(|e| e.pid == pid))
    }

    /// Hands `out` what this call left running: the processes of the last walk that `before` (the
    /// walk before) did not list and that started since the call `began`, with the call's output
    /// pipes they still write to (taken out of `outputs`, so no drainer gets them).
    pub(super) fn hand_left(
        &mut self,
        before: &[ProcEntry],
        began: Instant,
        outputs: &mut Vec<OutputReader>,
        out: &mut dyn OutputConsumer,
    ) {
        let fresh = |e: &&ProcEntry| !before.iter().any(|b| b.pid == e.pid && b.start_time == e.start_time);
        if !self.background.iter().any(|e| fresh(&e)) {
            return;
        }
        let since = procfs::ticks_before(began.elapsed());
        let processes: Vec<ProcEntry> = self
            .background
            .iter()
            .filter(fresh)
            .filter(|e| e.start_time.is_some_and(|t| t >= since))
            .copied()
            .collect();
        if processes.is_empty() {
            return;
        }
        let (held, free): (Vec<OutputReader>, Vec<OutputReader>) =
            std::mem::take(outputs).into_iter().partition(OutputReader::has_writers);
        *outputs = free;
        let outputs = held.into_iter().filter_map(OutputReader::into_fd).collect();
        out.left_running(LeftRunning::new(processes, outputs));
    }

    pub(super) fn count(&self) -> u32 {
        u32::try_from(self.background.len()).unwrap_or(u32::MAX)
    }

    /// Closes the call's pipe, or hands it to the drainer if background processes still write to it.
    /// True when handed over.
    pub(super) fn release(&mut self, outputs: &mut Vec<OutputReader>, thread: &PoolThread) -> bool {
        let mut held = false;
        for output in outputs.drain(..) {
            if !output.has_writers() {
                // Read to its end: a FIFO slot's next call may write through it again.
                if let Some((fd, stdout)) = output.into_spent() {
                    self.slots.give_back(fd, stdout);
                }
                continue;
            }
            if let Some(fd) = output.into_fd() {
                thread.drain(fd);
                held = true;
            }
        }
        held
    }
}

/// The entries that are still the same live processes.
pub(super) fn alive(entries: &[ProcEntry]) -> Vec<ProcEntry> {
    entries
        .iter()
        .filter(|e| procfs::stat(e.pid).is_some_and(|now| now.alive && now.start_time == e.start_time))
        .copied()
        .collect()
}
