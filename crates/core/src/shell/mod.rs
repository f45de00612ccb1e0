//! Long-lived shells: a pool of bash processes kept between calls, so that variables, functions,
//! aliases and options (and, for sessions, the working directory) carry from one call to the next.
//! The pool is an [`Executor`](crate::exec::Executor) like the one-shot executor; the protocol that
//! drives one shell and the snapshot of the user's interactive shell live here too.

mod carry;
mod messages;
mod persistent;
mod pool;
mod pool_thread;
mod protocol;
pub mod snapshot;

pub use pool::{PoolConfig, ShellKey, ShellPool};
