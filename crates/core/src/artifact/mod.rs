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
    /// `artifact://<id>`, as results and notices name it.
    pub fn url(&self) -> String {
        format!("artifact://{}", self.0)
    }
}

/// A freshly created, empty artifact file, open for writing.
#[derive(Debug)]
pub struct NewArtifact {
    /// Its id.
    pub id: ArtifactId,
    /// Where it is.
    pub path: PathBuf,
    /// Open for writing, empty.
    pub file: File,
}

/// Something that can hand out a new artifact when the sink first needs to spill.
///
/// Called at most once per sink. On an error the sink goes on without a spill file and reports the
/// error's text ("cannot create …: No space left on device") in the result.
pub trait ArtifactAllocator: Send {
    /// A new, empty artifact file, or why none could be made.
    fn allocate(&mut self) -> Result<NewArtifact, AllocateError>;
}

/// Why no artifact file could be made; its text is what the result says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AllocateError(pub String);

impl From<String> for AllocateError {
    fn from(reason: String) -> Self {
        Self(reason)
    }
}

/// Why an `artifact://` reference could not be resolved. The texts are the reference's, which clients
/// and models already know.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArtifactError {
    /// The runtime keeps no state, so there are no artifacts.
    #[error("No session - artifacts unavailable")]
    NoSession,
    /// `artifact://` with nothing after it.
    #[error("artifact:// URL requires a numeric ID: {0}")]
    MissingId(String),
    /// The id is not a decimal number (which also refuses `artifact://../x`).
    #[error("artifact:// ID must be numeric, got: {0}")]
    NonNumeric(String),
    /// The session never wrote an artifact.
    #[error("No artifacts directory found")]
    NoDirectory,
    /// No artifact has this id; `available` says which ids exist.
    #[error("Artifact {id} not found. Available: {available}")]
    NotFound {
        /// The id asked for.
        id: String,
        /// The ids that exist, summarized.
        available: String,
    },
    /// The file exists but reading it failed.
    #[error("Artifact {id} could not be read: {reason}")]
    Unreadable {
        /// The artifact.
        id: ArtifactId,
        /// What the OS said.
        reason: String,
    },
}

/// The artifact directory of one session. Creating it is deferred to the first allocation.
#[derive(Debug, Clone)]
pub struct ArtifactDir {
    dir: PathBuf,
}

const SUFFIX: &str = ".bash.log";

impl ArtifactDir {
    /// The artifacts in `dir` (which need not exist yet).
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// The directory.
    pub fn path(&self) -> &std::path::Path {
        &self.dir
    }

    /// An allocator for one tool call; it touches the disk only if the sink asks for a file.
    pub fn allocator(&self) -> DirAllocator {
        DirAllocator { dir: self.dir.clone() }
    }

    /// Ids present, ascending. A missing directory has none.
    pub fn list(&self) -> Vec<ArtifactId> {
        let mut ids: Vec<ArtifactId> = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries
                .filter_map(|e| e.ok())
                .filter_map(|e| parse_file_name(&e.file_name().to_string_lossy()))
                .collect(),
            Err(_) => Vec::new(),
        };
        ids.sort();
        ids.dedup();
        ids
    }

    /// Resolves `artifact://<id>` (or a bare `<id>`) to a file inside this directory.
    ///
    /// Only decimal ids are accepted, so `artifact://../x` can never name a path outside the directory.
    pub fn resolve(&self, reference: &str) -> Result<(ArtifactId, PathBuf), ArtifactError> {
        let id_text = reference.strip_prefix("artifact://").unwrap_or(reference);
        let id_text = id_text.trim_end_matches('/');
        if id_text.is_empty() {
            return Err(ArtifactError::MissingId(format!("artifact://{id_text}")));
        }
        if !id_text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ArtifactError::NonNumeric(id_text.to_string()));
        }
        let id = id_text.parse::<u64>().map(ArtifactId).map_err(|_| ArtifactError::NonNumeric(id_text.to_string()))?;
        if !self.dir.is_dir() {
            return Err(ArtifactError::NoDirectory);
        }
        let path = self.dir.join(format!("{}{SUFFIX}", id.0));
        if path.is_file() {
            return Ok((id, path));
        }
        let available = self.list();
        let available = if available.is_empty() {
            "none".to_string()
        } else {
            available.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
        };
        Err(ArtifactError::NotFound { id: id_text.to_string(), available })
    }
}

fn parse_file_name(name: &str) -> Option<ArtifactId> {
    let digits = name.strip_suffix(SUFFIX)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().map(ArtifactId)
}

/// Allocates `<max id + 1>.bash.log` with `O_EXCL`, retrying when another process won the race.
#[derive(Debug)]
pub struct DirAllocator {
    dir: PathBuf,
}

impl ArtifactAllocator for DirAllocator {
    fn allocate(&mut self) -> Result<NewArtifact, AllocateError> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create artifact directory {}: {e}", self.dir.display()))?;
        let dir = ArtifactDir::new(self.dir.clone());
        let mut next = dir.list().last().map_or(1, |id| id.0 + 1);
        for _ in 0..1000 {
            let path = self.dir.join(format!("{next}{SUFFIX}"));
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => return Ok(NewArtifact { id: ArtifactId(next), path, file }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => next += 1,
                Err(e) => return Err(format!("cannot create {}: {e}", path.display()).into()),
            }
        }
        Err(format!("cannot allocate an artifact id in {}", self.dir.display()).into())
    }
}

mod read;
pub mod window;
pub use read::{read_window, ArtifactContent, ReadError, WindowRequest, MAX_READ_BYTES};
pub use window::{write_window, Window};
