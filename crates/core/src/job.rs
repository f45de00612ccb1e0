//! Jobs: commands that outlived the call that started them.
//!
//! A tool call waits for its command at most `yield_ms` (or until the command waits for input or
//! listens on a port); what still runs then becomes a **job**. The call returns what the command
//! printed so far, the job's id and when its own deadline will kill it; the command keeps running on
//! the thread that ran the call, into the same sink, whose artifact holds the whole output from its
//! first byte. The `job` tool then lists jobs, waits for new output (until a pattern, a port, or the
//! end), reads it through the usual view, and kills.
//!
//! Who owns what: the [`Jobs`] table (one per runtime) hands out ids, never reused; a [`Job`] is
//! shared by the table, the thread still running its command, and any waiter; its state changes only
//! under its lock, and every change wakes the waiters. The running thread is the only writer of its
//! output and of its end; everyone else reads. Killing a job is cancelling its call: the executor's
//! one kill sequence runs, and the end says `cancelled`, never "exit 0".
//!
//! - [`table`]: the table, a job's state, and ends the model has not seen; [`info`]: a job as a
//!   list, details and notices show it;
//! - [`yielding`]: the run stage's side — when a call yields, and what the job learns as it runs;
//! - [`left`]: processes a finished call left running (`server &`), followed as a job;
//! - [`listen`]: which TCP ports a job's processes listen on, from `/proc`;
//! - [`stdin`]: input to a job whose stdin is a pipe or a terminal, and [`keys`] pressed in a terminal;
//!   [`prompt`]: what a job waiting for input asks;
//! - [`notice`]: what other results say of jobs.
//!
//! The `job` tool that reads them is [`crate::job_tool`]; this module knows nothing of results or
//! of the runtime, which depend on it.

mod info;
mod keys;
mod left;
mod listen;
mod notice;
mod prompt;
mod stdin;
mod table;
mod yielding;

pub(crate) use info::format_secs;
pub use info::{JobId, JobInfo, JobState};
pub(crate) use keys::{encode as encode_keys, KEY_NAMES};
pub(crate) use left::{adopt, Settle};
pub(crate) use notice::{answer, ended_notice, left_notice, one_line, so_far_and_deadline, yield_notice};
pub(crate) use prompt::LastLine;
pub use prompt::{Prompt, PromptKind};
pub(crate) use stdin::JobInput;
pub(crate) use table::{Job, JobStart, Until};
pub use table::{JobObserver, Jobs};
pub use yielding::YieldNow;
pub(crate) use yielding::{YieldPlan, YieldReason};
