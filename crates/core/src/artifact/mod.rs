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
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, schemars::JsonSchema)]
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

/// A freshly created, empty artifact file, open for reading and writing, and the limits it is written
/// under.
pub struct NewArtifact {
    /// Its id.
    pub id: ArtifactId,
    /// Where it is.
    pub path: PathBuf,
    /// Open for reading and writing (the tail is rotated in place past the cap), empty.
    pub file: File,
    /// The most the file keeps: past it, the stream's first and last bytes around a marker.
    pub max_bytes: u64,
    /// Asked before the file grows (the state directory's budget); `None`: no budget.
    pub budget: Option<Box<dyn ArtifactBudget>>,
}

impl NewArtifact {
    /// An artifact with no cap and no budget.
    pub fn unlimited(id: ArtifactId, path: PathBuf, file: File) -> Self {
        Self { id, path, file, max_bytes: u64::MAX, budget: None }
    }
}

impl fmt::Debug for NewArtifact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NewArtifact").field("id", &self.id).field("path", &self.path).finish_non_exhaustive()
    }
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
    /// The state directory whose counter gives the ids (see `ids`); `None` for a directory of its
    /// own, where the next id is the highest present plus one.
    state: Option<PathBuf>,
}

const SUFFIX: &str = ".bash.log";

impl ArtifactDir {
    /// The artifacts in `dir` (which need not exist yet), a directory of its own: ids go on from the
    /// highest one present. For reading, or for artifacts kept outside a state directory.
    pub fn new(dir: PathBuf) -> Self {
        Self { dir, state: None }
    }

    /// The artifacts in `dir`, one session's in the state directory `state`: ids come from the state
    /// directory's counter and are never given twice, even after retention removed their files.
    pub fn in_state(dir: PathBuf, state: PathBuf) -> Self {
        Self { dir, state: Some(state) }
    }

    /// The directory.
    pub fn path(&self) -> &std::path::Path {
        &self.dir
    }

    /// An allocator for one tool call; it touches the disk only if the sink asks for a file.
    pub fn allocator(&self) -> DirAllocator {
        DirAllocator { dir: self.dir.clone(), state: self.state.clone() }
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
    /// Prefer [`ArtifactDir::open`], which also refuses links planted in the directory.
    pub fn resolve(&self, reference: &str) -> Result<(ArtifactId, PathBuf), ArtifactError> {
        let (id, id_text) = parse_reference(reference)?;
        if !self.dir.is_dir() {
            return Err(ArtifactError::NoDirectory);
        }
        let path = self.dir.join(file_name(id));
        if path.is_file() {
            return Ok((id, path));
        }
        Err(self.not_found(id_text))
    }

    /// Opens the artifact `reference` names for reading: through a descriptor of the directory (which
    /// must be a real directory owned by the user), never following a symbolic link, and only a
    /// regular file — a command that planted `1.bash.log -> /etc/passwd` or replaced the directory
    /// with a link gets an error, not the link's target.
    pub fn open(&self, reference: &str) -> Result<(ArtifactId, File), ArtifactError> {
        let (id, id_text) = parse_reference(reference)?;
        let dir = match crate::private_dir::open_dir(&self.dir) {
            Ok(dir) => dir,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ArtifactError::NoDirectory),
            Err(e) => return Err(ArtifactError::Unreadable { id, reason: e.to_string() }),
        };
        match crate::private_dir::open_regular_in(&dir, &file_name(id)) {
            Ok(file) => Ok((id, file)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(self.not_found(id_text)),
            Err(e) => Err(ArtifactError::Unreadable { id, reason: e.to_string() }),
        }
    }

    /// Removes artifact `id` (one that could not be written whole).
    pub fn remove(&self, id: ArtifactId) -> std::io::Result<()> {
        let dir = crate::private_dir::open_dir(&self.dir)?;
        nix::unistd::unlinkat(&dir, file_name(id).as_str(), nix::unistd::UnlinkatFlags::NoRemoveDir)?;
        Ok(())
    }

    fn not_found(&self, id_text: String) -> ArtifactError {
        ArtifactError::NotFound { id: id_text, available: summarize(&self.list()) }
    }
}

/// `artifact://<id>` or `<id>` → the id, and its text for messages.
fn parse_reference(reference: &str) -> Result<(ArtifactId, String), ArtifactError> {
    let id_text = reference.strip_prefix("artifact://").unwrap_or(reference);
    let id_text = id_text.trim_end_matches('/');
    if id_text.is_empty() {
        return Err(ArtifactError::MissingId(format!("artifact://{id_text}")));
    }
    if !id_text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ArtifactError::NonNumeric(id_text.to_string()));
    }
    let id = id_text.parse::<u64>().map(ArtifactId).map_err(|_| ArtifactError::NonNumeric(id_text.to_string()))?;
    Ok((id, id_text.to_string()))
}

fn file_name(id: ArtifactId) -> String {
    format!("{}{SUFFIX}", id.0)
}

/// Ids as ranges (`1-4990, 5000`), at most a few dozen of them: a message never lists 200,000 ids.
fn summarize(ids: &[ArtifactId]) -> String {
    const MAX_RANGES: usize = 20;
    if ids.is_empty() {
        return "none".to_string();
    }
    let ranges = summary::ranges(ids);
    let shown: Vec<String> = ranges
        .iter()
        .take(MAX_RANGES)
        .map(|r| if r.start == r.end { r.start.to_string() } else { format!("{}-{}", r.start, r.end) })
        .collect();
    let mut text = shown.join(", ");
    if ranges.len() > MAX_RANGES {
        text.push_str(&format!(" and {} more ranges ({} ids in all)", ranges.len() - MAX_RANGES, ids.len()));
    }
    text
}

/// The id of the artifact at `path`, if its name is an artifact's.
pub(crate) fn id_of(path: &std::path::Path) -> Option<ArtifactId> {
    parse_file_name(path.file_name()?.to_str()?)
}

/// The id of `<id>.bash.log`, written as [`file_name`] writes it: `007.bash.log` is no artifact (no
/// reference would find it).
fn parse_file_name(name: &str) -> Option<ArtifactId> {
    let digits = name.strip_suffix(SUFFIX)?;
    let canonical = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits.len() == 1 || !digits.starts_with('0'));
    canonical.then(|| digits.parse().ok().map(ArtifactId)).flatten()
}

/// Allocates the next id's `<id>.bash.log` with `O_EXCL`: the state directory's next id (see
/// `ids`), or in a directory of its own the highest id present plus one; an id whose file exists
/// (another process won the race, or a file was planted) is passed over.
#[derive(Debug)]
pub struct DirAllocator {
    dir: PathBuf,
    state: Option<PathBuf>,
}

impl ArtifactAllocator for DirAllocator {
    fn allocate(&mut self) -> Result<NewArtifact, AllocateError> {
        crate::private_dir::ensure(&self.dir)
            .map_err(|e| format!("cannot create artifact directory {}: {e}", self.dir.display()))?;
        let dir = crate::private_dir::open_dir(&self.dir)
            .map_err(|e| format!("cannot use artifact directory {}: {e}", self.dir.display()))?;
        let (id, file) = match &self.state {
            Some(state) => ids::allocate(state, &dir, &self.dir)?,
            None => self.allocate_alone(&dir)?,
        };
        // Held while the file is open: retention never removes an artifact being written.
        crate::locked_file::try_flock(&file, libc::LOCK_SH);
        Ok(NewArtifact::unlimited(id, self.dir.join(file_name(id)), file))
    }
}

impl DirAllocator {
    /// The next id in a directory of its own: the highest present plus one.
    fn allocate_alone(&self, dir: &std::os::fd::OwnedFd) -> Result<(ArtifactId, File), String> {
        // Checked: a file named after the largest id (planted, say) must give an error, not a panic.
        let mut next = ArtifactDir::new(self.dir.clone()).list().last().map_or(Some(1), |id| id.0.checked_add(1));
        for _ in 0..1000 {
            let Some(id) = next else { break };
            let name = file_name(ArtifactId(id));
            match crate::private_dir::create_new_in(dir, &name) {
                Ok(file) => return Ok((ArtifactId(id), file)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => next = id.checked_add(1),
                Err(e) => return Err(format!("cannot create {}: {e}", self.dir.join(name).display())),
            }
        }
        Err(format!("cannot allocate an artifact id in {}", self.dir.display()))
    }
}

mod ids;
mod read;
mod summary;
pub mod window;
pub(crate) mod writer;
pub use read::{read_window, ArtifactContent, ReadError, WindowRequest, MAX_READ_BYTES};
pub use summary::{ArtifactSize, ArtifactSummary, IdRange, MAX_RANGES as SUMMARY_RANGES, NEWEST as SUMMARY_NEWEST};
pub use window::{write_window_from, Window, GREP_LINE_CAP};
pub use writer::ArtifactBudget;
