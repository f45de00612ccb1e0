//! Process primitives: what the executors and the reaper need from the kernel, and nothing about
//! commands or shells. Process file descriptors, the `/proc` process table, killing a whole process
//! tree, learning that a child exited, pipes and in-memory files.

pub(crate) mod exit_watch;
pub(crate) mod marker;
pub(crate) mod memfile;
pub(crate) mod pidfd;
pub(crate) mod pinned;
pub(crate) mod pipe;
pub(crate) mod procfs;
pub(crate) mod spawn;
pub(crate) mod spawn_gate;
pub(crate) mod subreaper;
pub(crate) mod tree;
