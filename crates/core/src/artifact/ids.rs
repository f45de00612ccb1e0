//! Artifact ids: each given once per state directory, never again.
//!
//! A model keeps `artifact://7` in its context for as long as the conversation lasts, while retention
//! removes old sessions and artifacts. An id that came back after its artifact was removed would show
//! the model another command's output as this one's; so ids come from one counter per state
//! directory (`<state>/artifact-ids`, updated under its lock by every process), not from the files a
//! session happens to hold. An old id then finds nothing, and says so.

use std::fs::File;
use std::os::fd::OwnedFd;
use std::path::Path;

use super::{file_name, parse_file_name, ArtifactId};
use crate::locked_file;

/// The counter's file in the state directory: the next id to give, in decimal.
pub(crate) const IDS_FILE: &str = "artifact-ids";

/// Creates the artifact file of the next id in `dir` (`dir_fd`, a session's artifact directory), the
/// id taken from `state`'s counter. An id whose file exists already (planted, say) is passed over.
pub(super) fn allocate(state: &Path, dir_fd: &OwnedFd, dir: &Path) -> Result<(ArtifactId, File), String> {
    let mut counter = locked_file::lock(state, IDS_FILE).map_err(|e| format!("cannot allocate an artifact id: {e}"))?;
    let stored = counter
        .read()
        .map_err(|e| format!("cannot read {}: {e}", state.join(IDS_FILE).display()))?
        .and_then(|text| text.trim().parse::<u64>().ok())
        // 0, or an id with no room after it (written there by a command, as anything in the state
        // directory can be): damaged, as is a counter that is not a number.
        .filter(|&id| id > 0 && id < u64::MAX / 2);
    // Missing (a state directory kept by an older bashrt, or a fresh one) or damaged: past every id
    // the state directory still holds.
    let mut next = match stored {
        Some(id) => Some(id),
        None => highest_id(state).checked_add(1),
    };
    for _ in 0..1000 {
        let Some(id) = next else { break };
        let name = file_name(ArtifactId(id));
        match crate::private_dir::create_new_in(dir_fd, &name) {
            Ok(file) => {
                if let Err(e) = counter.replace(&format!("{}\n", id.saturating_add(1))) {
                    // Unrecorded, the id could be given again once this file is removed: not used.
                    let _ = nix::unistd::unlinkat(dir_fd, name.as_str(), nix::unistd::UnlinkatFlags::NoRemoveDir);
                    return Err(format!("cannot record artifact id {id} in {}: {e}", state.join(IDS_FILE).display()));
                }
                return Ok((ArtifactId(id), file));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => next = id.checked_add(1),
            Err(e) => return Err(format!("cannot create {}: {e}", dir.join(name).display())),
        }
    }
    Err(format!("cannot allocate an artifact id in {}", dir.display()))
}

/// The highest artifact id under `state/sessions` (0 when there is none).
fn highest_id(state: &Path) -> u64 {
    let Ok(sessions) = std::fs::read_dir(state.join("sessions")) else { return 0 };
    sessions
        .flatten()
        .filter_map(|session| std::fs::read_dir(session.path().join("artifacts")).ok())
        .flat_map(|artifacts| artifacts.flatten())
        .filter_map(|artifact| parse_file_name(&artifact.file_name().to_string_lossy()))
        .map(|id| id.0)
        .max()
        .unwrap_or(0)
}
