//! Process primitives: what the executors and the reaper need from the kernel, and nothing about
//! commands or shells. One handle for a process the runtime started ([`child`]: the spawn, the reap,
//! a cloneable killer), which processes die ([`tree`]) apart from how they die ([`kill`]), process
//! file descriptors, the `/proc` process table, what a quiet process waits for ([`waiting`]), pipes and
//! in-memory files.

pub(crate) mod child;
pub(crate) mod children;
pub(crate) mod exit_watch;
pub(crate) mod kill;
pub(crate) mod marker;
pub(crate) mod memfile;
pub(crate) mod pidfd;
pub(crate) mod pinned;
pub(crate) mod pipe;
pub(crate) mod procfs;
pub(crate) mod spawn_gate;
pub(crate) mod subreaper;
pub(crate) mod tree;
pub(crate) mod waiting;
