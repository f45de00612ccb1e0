//! Artifacts: the full raw output of a command that did not fit the model's view, kept as
//! `<session>/artifacts/<id>.bash.log` and addressed as `artifact://<id>`.
//!
//! Promises: ids are decimal and sequential per session; an id is consumed only when bytes are written
//! (allocation is lazy, driven by the sink); two processes sharing a session never get the same id
//! (files are created with `O_EXCL`); resolving an id never leaves the artifact directory.

use std::fmt;
use std::fs::File;
use std::path::PathBuf;

/// The number in `artifact://<id>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct ArtifactId(pub u64);

impl fmt::Display for ArtifactId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl ArtifactId {
    pub fn url(&self) -> String {
        format!("artifact://{}", self.0)
    }
}

/// A freshly created, empty artifact file, open for writing.
#[derive(Debug)]
pub struct NewArtifact {
    pub id: ArtifactId,
    pub path: PathBuf,
    pub file: File,
}

/// Something that can hand out a new artifact when the sink first needs to spill.
///
/// Called at most once per sink. An `Err` is a human-readable reason ("No space left on device");
/// the sink then goes on without a spill file and reports the reason.
pub trait ArtifactAllocator: Send {
    fn allocate(&mut self) -> Result<NewArtifact, String>;
}
