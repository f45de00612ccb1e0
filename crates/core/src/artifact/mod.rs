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

/// Why an `artifact://` reference could not be resolved. The texts are the reference's, which clients
/// and models already know.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ArtifactError {
    #[error("No session - artifacts unavailable")]
    NoSession,
    #[error("artifact:// URL requires a numeric ID: {0}")]
    MissingId(String),
    #[error("artifact:// ID must be numeric, got: {0}")]
    NonNumeric(String),
    #[error("No artifacts directory found")]
    NoDirectory,
    #[error("Artifact {id} not found. Available: {available}")]
    NotFound { id: String, available: String },
    #[error("Artifact {id} could not be read: {reason}")]
    Unreadable { id: ArtifactId, reason: String },
}

/// The artifact directory of one session. Creating it is deferred to the first allocation.
#[derive(Debug, Clone)]
pub struct ArtifactDir {
    dir: PathBuf,
}

const SUFFIX: &str = ".bash.log";

impl ArtifactDir {
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

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
    fn allocate(&mut self) -> Result<NewArtifact, String> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create artifact directory {}: {e}", self.dir.display()))?;
        let dir = ArtifactDir::new(self.dir.clone());
        let mut next = dir.list().last().map_or(1, |id| id.0 + 1);
        for _ in 0..1000 {
            let path = self.dir.join(format!("{next}{SUFFIX}"));
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => return Ok(NewArtifact { id: ArtifactId(next), path, file }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => next += 1,
                Err(e) => return Err(format!("cannot create {}: {e}", path.display())),
            }
        }
        Err(format!("cannot allocate an artifact id in {}", self.dir.display()))
    }
}

pub mod window;
pub use window::{write_window, Window};
