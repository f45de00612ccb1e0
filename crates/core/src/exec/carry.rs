//! What a fresh shell took of a long-lived shell's state, and what a result says when it lacks some.

use std::fmt;

/// What a fresh shell started beside a busy long-lived one took of that shell's state (variables,
/// functions, aliases, options), captured when it was last idle.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Carry {
    /// All of it, as it was when the busy shell's current command started.
    All,
    /// The state as it was `missing` calls before the busy shell's current command: what those
    /// calls set is not there.
    Stale {
        /// Calls whose changes are missing.
        missing: u64,
    },
    /// None of it (what every fresh shell reads, the user's snapshot, is there), and why.
    Nothing {
        /// Why the state could not be carried.
        reason: String,
    },
}

impl Carry {
    /// What the model is told when the fresh shell lacks part of the state.
    pub fn notice(&self) -> Option<String> {
        self.notice_why("Another call was using this session's shell, so this one ran in a new shell")
    }

    /// The same, for the first call after the shell went on running a job.
    pub fn notice_handed(&self) -> Option<String> {
        self.notice_why("The session's shell went on running a job, so this call started a fresh one")
    }

    /// The same, for a call that ran in a shell of its own because its stdin is a pipe or a terminal
    /// (a job's input): the shell started from the session's state as last captured.
    pub fn notice_own_shell(&self) -> Option<String> {
        self.notice_why("This call's stdin is a pipe or a terminal, so it ran in a shell of its own")
    }

    fn notice_why(&self, why: &str) -> Option<String> {
        match self {
            Carry::All => None,
            Carry::Stale { missing } => Some(format!(
                "[{why} without what the last {} set there (variables, functions, aliases, options)]",
                if *missing == 1 { "call".to_string() } else { format!("{missing} calls") }
            )),
            Carry::Nothing { reason } => {
                Some(format!("[{why} without the variables, functions and aliases earlier calls set: {reason}]"))
            }
        }
    }
}

impl fmt::Display for Carry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Carry::All => f.write_str("a fresh shell with its state ran it"),
            Carry::Stale { missing } => {
                write!(f, "a fresh shell with its state as of {missing} call(s) earlier ran it")
            }
            Carry::Nothing { reason } => write!(f, "a fresh shell without its state ran it ({reason})"),
        }
    }
}
