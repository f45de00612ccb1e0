//! The budget's ledger (`<state>/budget`): what the state directory holds, as last walked by any
//! process, and the room each process's spills have reserved since. Every process sharing the state
//! directory reads and updates it under its lock, so that four `bashrt run`s spilling at once share
//! one budget instead of each spending all of it.
//!
//! ```text
//! used 1048576 1765093200000      bytes used (reservations included) and when walked, in ms since the epoch
//! hold 4242 987654 8388608 /home/u/.local/state/bashrt/sessions/s/artifacts/7.bash.log
//! ```
//!
//! A `hold` is one spill in progress: its process (pid and start time, so that a reused pid is not
//! taken for it), the room reserved for it (the most its file will hold), and its file. A walk counts
//! the reservation in place of what the file holds so far. A process that died keeps no reservation:
//! its lines go at the next update. What it wrote stays in `used` until the next walk, at most
//! [`WALK_FRESH`] later.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::locked_file::{self, Locked};
use crate::process::procfs;

/// The ledger's file in the state directory.
pub(crate) const LEDGER_FILE: &str = "budget";

/// How long a walk is trusted: between walks, the usage is what was reserved and settled, and a
/// process that died mid-spill or files removed by hand make it drift.
const WALK_FRESH: Duration = Duration::from_secs(30);

/// A process, as the ledger names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Holder {
    pid: u32,
    /// Its start time (clock ticks after boot), 0 when unknown.
    start: u64,
}

impl Holder {
    pub(super) fn this_process() -> Self {
        let pid = std::process::id();
        Self { pid, start: procfs::stat(pid as i32).and_then(|e| e.start_time).unwrap_or(0) }
    }

    /// Whether the process still runs (the same one: a pid given again has another start time).
    fn alive(self) -> bool {
        match procfs::stat(self.pid as i32) {
            Some(entry) => entry.alive && (self.start == 0 || entry.start_time == Some(self.start)),
            None => false,
        }
    }
}

/// The ledger, read and held under its lock until saved or dropped.
pub(super) struct Ledger {
    file: Locked,
    /// Bytes used and when walked (ms since the epoch); `None` before the first walk.
    used: Option<(u64, u64)>,
    holds: Vec<Hold>,
}

/// One spill in progress.
struct Hold {
    holder: Holder,
    /// Bytes reserved: the most its file will hold.
    bytes: u64,
    file: PathBuf,
}

impl Ledger {
    /// Opens and reads the ledger of `state`, dropping the reservations of processes that ended.
    /// A damaged ledger reads as a new one (the next reservation walks).
    pub(super) fn open(state: &Path) -> io::Result<Self> {
        let mut file = locked_file::lock(state, LEDGER_FILE)?;
        let text = file.read()?.unwrap_or_default();
        let mut used = None;
        let mut holds = Vec::new();
        for line in text.lines() {
            let mut fields = line.splitn(5, ' ');
            let kind = fields.next();
            let numbers: Vec<u64> = fields.by_ref().take(3).map_while(|f| f.parse().ok()).collect();
            match (kind, numbers.as_slice(), fields.next()) {
                (Some("used"), [bytes, at], None) => used = Some((*bytes, *at)),
                (Some("hold"), [pid, start, bytes], Some(file)) => {
                    if let Ok(pid) = u32::try_from(*pid) {
                        let holder = Holder { pid, start: *start };
                        if holder.alive() {
                            holds.push(Hold { holder, bytes: *bytes, file: PathBuf::from(file) });
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(Self { file, used, holds })
    }

    /// Bytes reserved by spills in progress, in every process, beyond what their files hold so far:
    /// what a walk of the state directory cannot see.
    pub(super) fn headroom(&self) -> u64 {
        self.holds.iter().fold(0u64, |room, hold| {
            let written = std::fs::symlink_metadata(&hold.file).map_or(0, |m| m.len());
            room.saturating_add(hold.bytes.saturating_sub(written))
        })
    }

    /// Whether `bytes` more fit under `budget` by a recent walk's count, with no walk.
    pub(super) fn fits(&self, bytes: u64, budget: u64) -> bool {
        match self.used {
            Some((used, at)) => {
                now_ms().saturating_sub(at) < WALK_FRESH.as_millis() as u64 && used.saturating_add(bytes) <= budget
            }
            None => false,
        }
    }

    /// Whether a spill in progress started after the one into `file`: its artifact has a larger id
    /// (ids are given in order, by one counter per state directory).
    pub(super) fn newer_than(&self, file: &Path) -> bool {
        let Some(mine) = crate::artifact::id_of(file) else { return false };
        self.holds.iter().filter_map(|hold| crate::artifact::id_of(&hold.file)).any(|id| id > mine)
    }

    /// Records a walk that found `used` bytes (reservations included).
    pub(super) fn walked(&mut self, used: u64) {
        self.used = Some((used, now_ms()));
    }

    /// Records `bytes` more reserved by `holder` for its spill into `file`, counted as used.
    pub(super) fn reserve(&mut self, holder: Holder, file: &Path, bytes: u64) {
        if let Some((used, _)) = self.used.as_mut() {
            *used = used.saturating_add(bytes);
        }
        match self.holds.iter_mut().find(|h| h.holder == holder && h.file == file) {
            Some(hold) => hold.bytes = hold.bytes.saturating_add(bytes),
            None => self.holds.push(Hold { holder, bytes, file: file.to_path_buf() }),
        }
    }

    /// `holder`'s spill into `file`, which reserved `reserved`, ended having written `written`.
    pub(super) fn settle(&mut self, holder: Holder, file: &Path, reserved: u64, written: u64) {
        if let Some((used, _)) = self.used.as_mut() {
            *used = used.saturating_sub(reserved).saturating_add(written);
        }
        self.holds.retain(|h| !(h.holder == holder && h.file == file));
    }

    /// Writes the ledger back; a failure (a full disk) is logged: the next update walks again.
    pub(super) fn save(mut self) {
        let mut text = String::new();
        if let Some((used, at)) = self.used {
            text.push_str(&format!("used {used} {at}\n"));
        }
        for hold in &self.holds {
            let Hold { holder, bytes, file } = hold;
            text.push_str(&format!("hold {} {} {bytes} {}\n", holder.pid, holder.start, file.display()));
        }
        if let Err(e) = self.file.replace(&text) {
            tracing::warn!("cannot update the budget ledger: {e}");
        }
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_are_shared_and_those_of_ended_processes_go() {
        let state = tempfile::tempdir().unwrap();
        let me = Holder::this_process();
        let file = state.path().join("7.bash.log");
        std::fs::write(&file, [b'x'; 10]).unwrap();
        let mut ledger = Ledger::open(state.path()).unwrap();
        assert!(!ledger.fits(1, 100), "no walk yet");
        ledger.walked(10);
        ledger.reserve(me, &file, 30);
        ledger.save();
        // A process that ended (pid 1's start time is not 1) left a reservation behind.
        let path = state.path().join(LEDGER_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{text}hold 1 1 500 /x y/1.bash.log\n")).unwrap();

        let mut ledger = Ledger::open(state.path()).unwrap();
        // Of the 30 bytes reserved, 10 are written.
        assert_eq!(ledger.headroom(), 20);
        assert!(ledger.fits(60, 100) && !ledger.fits(61, 100));
        ledger.settle(me, &file, 30, 12);
        assert_eq!(ledger.headroom(), 0);
        ledger.save();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("used 22 ") && !text.contains("hold"), "{text}");
    }
}
