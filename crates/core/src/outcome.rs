//! How a command ended. One value, never a bag of booleans: a command exited with a code, was killed by a
//! signal, ran out of time, or was cancelled by its caller.

use serde::Serialize;

/// The end of one command run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Outcome {
    /// The command finished on its own with this exit status (what `$?` would say).
    Exited {
        /// The exit status.
        code: i32,
    },
    /// The shell running the command was killed by a signal nobody in bashrt sent.
    Signalled {
        /// The signal number.
        signal: i32,
    },
    /// The runtime's deadline fired; the whole process tree was killed.
    TimedOut,
    /// The caller aborted the call; the whole process tree was killed.
    Cancelled,
    /// The runtime lost the command (a pseudo-terminal failed to start or to be read; the output says
    /// `PTY error: …`): its tree was killed, and it has no exit status.
    Error,
}

impl Outcome {
    /// The exit code, when the command exited on its own.
    pub fn exit_code(&self) -> Option<i32> {
        match self {
            Outcome::Exited { code } => Some(*code),
            _ => None,
        }
    }

    /// The conventional name of the signal (`SIGKILL`), when the command died by one.
    pub fn signal_name(&self) -> Option<String> {
        match self {
            Outcome::Signalled { signal } => Some(signal_name(*signal)),
            _ => None,
        }
    }
}

/// `SIGTERM` for 15; `SIG<n>` for numbers the platform does not name.
pub fn signal_name(signal: i32) -> String {
    match nix::sys::signal::Signal::try_from(signal) {
        Ok(sig) => sig.as_str().to_string(),
        Err(_) => format!("SIG{signal}"),
    }
}
