//! A session's artifacts summed up in a size that does not grow with them: a list of every id made
//! one `get_state` of a session with 200,000 artifacts a 1.3 MB line, which a client reading answers
//! into a bounded buffer cannot take.
//!
//! Promises: at most [`MAX_RANGES`] ranges and [`NEWEST`] artifacts, whatever the directory holds;
//! only what [`ArtifactDir::open`] would serve counts (regular files named `<id>.bash.log`, never
//! through a link); the directory is read once, and only the newest [`NEWEST`] are `stat`ed for
//! their sizes.

use serde::Serialize;

use super::{file_name, parse_file_name, ArtifactDir, ArtifactId};

/// How many of the newest artifacts are listed with their sizes.
pub const NEWEST: usize = 5;

/// How many ranges of ids are listed: the newest (older ones are counted in `rangesLeftOut`). A gap
/// is an artifact removed, or an id another session got.
pub const MAX_RANGES: usize = 16;

/// `{"count", "ranges":[{"start","end"}], "rangesLeftOut"?, "newest":[{"id","bytes"}]}`
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactSummary {
    /// How many artifacts there are.
    pub count: usize,
    /// The ids that exist, as inclusive ranges, ascending: the newest [`MAX_RANGES`].
    pub ranges: Vec<IdRange>,
    /// Older ranges not listed (left out when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub ranges_left_out: usize,
    /// The newest [`NEWEST`] artifacts, newest first.
    pub newest: Vec<ArtifactSize>,
}

/// Ids `start` to `end`, both included.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct IdRange {
    /// The first id.
    pub start: u64,
    /// The last id.
    pub end: u64,
}

/// One artifact and its size in bytes.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct ArtifactSize {
    /// The artifact's id.
    pub id: u64,
    /// Its size.
    pub bytes: u64,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Ascending `ids` as ranges of consecutive ids.
pub(super) fn ranges(ids: &[ArtifactId]) -> Vec<IdRange> {
    let mut ranges: Vec<IdRange> = Vec::new();
    for id in ids {
        match ranges.last_mut() {
            Some(range) if range.end.checked_add(1) == Some(id.0) => range.end = id.0,
            _ => ranges.push(IdRange { start: id.0, end: id.0 }),
        }
    }
    ranges
}

impl ArtifactDir {
    /// The summary of the artifacts here, of a size that does not grow with them: at most
    /// [`MAX_RANGES`] ranges and [`NEWEST`] sizes; only what [`ArtifactDir::open`] would serve counts.
    /// Empty when the directory does not exist or cannot be read. An artifact that vanishes while it is read is left out of `newest`.
    pub fn summary(&self) -> ArtifactSummary {
        let Ok(entries) = std::fs::read_dir(self.path()) else { return ArtifactSummary::default() };
        let mut ids: Vec<ArtifactId> = entries
            .flatten()
            // `file_type` does not follow a link: a planted `1.bash.log -> /etc/passwd` is no artifact.
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| parse_file_name(&e.file_name().to_string_lossy()))
            .collect();
        ids.sort_unstable();
        let mut ranges = ranges(&ids);
        let ranges_left_out = ranges.len().saturating_sub(MAX_RANGES);
        ranges.drain(..ranges_left_out);
        let newest = ids
            .iter()
            .rev()
            .take(NEWEST)
            .filter_map(|id| {
                let meta = std::fs::symlink_metadata(self.path().join(file_name(*id))).ok()?;
                Some(ArtifactSize { id: id.0, bytes: meta.len() })
            })
            .collect();
        ArtifactSummary { count: ids.len(), ranges, ranges_left_out, newest }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_become_ranges_and_the_newest_come_with_their_sizes() {
        let root = tempfile::tempdir().unwrap();
        let dir = ArtifactDir::new(root.path().to_path_buf());
        for id in (1..=10).chain(12..=13).chain([20]) {
            std::fs::write(root.path().join(format!("{id}.bash.log")), "x".repeat(id)).unwrap();
        }
        // Not artifacts: another name, a leading zero, a directory, a link.
        std::fs::write(root.path().join("notes.txt"), "x").unwrap();
        std::fs::write(root.path().join("030.bash.log"), "x").unwrap();
        std::fs::create_dir(root.path().join("40.bash.log")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.path().join("50.bash.log")).unwrap();
        let range = |start, end| IdRange { start, end };
        assert_eq!(
            dir.summary(),
            ArtifactSummary {
                count: 13,
                ranges: vec![range(1, 10), range(12, 13), range(20, 20)],
                ranges_left_out: 0,
                newest: [20, 13, 12, 10, 9].map(|id| ArtifactSize { id, bytes: id }).to_vec(),
            }
        );
        assert_eq!(ArtifactDir::new(root.path().join("none")).summary(), ArtifactSummary::default());
    }

    #[test]
    fn only_the_newest_ranges_are_listed() {
        let root = tempfile::tempdir().unwrap();
        // Every other id: 40 ranges of one.
        for id in (1..=80).step_by(2) {
            std::fs::write(root.path().join(format!("{id}.bash.log")), "").unwrap();
        }
        let summary = ArtifactDir::new(root.path().to_path_buf()).summary();
        assert_eq!((summary.count, summary.ranges.len(), summary.ranges_left_out), (40, MAX_RANGES, 40 - MAX_RANGES));
        assert_eq!(summary.ranges.last(), Some(&IdRange { start: 79, end: 79 }));
        assert_eq!(summary.ranges[0], IdRange { start: 49, end: 49 });
    }
}
