//! A runtime's sandboxes: one per workspace, compiled at its first call, found by the call's
//! directory after that (one hash lookup on the warm path).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use super::paths::PrivateTmp;
use super::settings::{Mode, SandboxSettings};
use super::{workspace, Sandbox, SandboxError};

/// Directories remembered at most; past it the map starts again (the sandboxes stay shared through
/// the workspaces' map and the shells that hold them).
const MAX_DIRS: usize = 256;

#[derive(Default)]
pub(crate) struct SandboxCache {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    by_dir: HashMap<PathBuf, Arc<Sandbox>>,
    by_workspace: HashMap<Vec<PathBuf>, Arc<Sandbox>>,
    /// The commands' `TMPDIR`, made with the first sandbox and removed with the runtime.
    tmp: Option<PrivateTmp>,
}

impl SandboxCache {
    /// The sandbox for commands run in `cwd`; `Ok(None)` when the mode is `off`.
    pub(crate) fn get(&self, settings: &SandboxSettings, cwd: &Path) -> Result<Option<Arc<Sandbox>>, SandboxError> {
        if settings.mode == Mode::Off {
            return Ok(None);
        }
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = inner.by_dir.get(cwd) {
            return Ok(Some(Arc::clone(found)));
        }
        let roots = workspace::roots(cwd);
        let sandbox = match inner.by_workspace.get(&roots) {
            Some(found) => Arc::clone(found),
            None => {
                if inner.tmp.is_none() {
                    let tmp = PrivateTmp::create()
                        .map_err(|e| SandboxError::Build { step: "private TMPDIR", reason: e.to_string() })?;
                    inner.tmp = Some(tmp);
                }
                let tmp = inner.tmp.as_ref().map(PrivateTmp::path).unwrap_or(Path::new("/tmp"));
                let sandbox = Sandbox::compile(settings, roots.clone(), tmp)?;
                inner.by_workspace.insert(roots, Arc::clone(&sandbox));
                sandbox
            }
        };
        if inner.by_dir.len() >= MAX_DIRS {
            inner.by_dir.clear();
        }
        inner.by_dir.insert(cwd.to_path_buf(), Arc::clone(&sandbox));
        Ok(Some(sandbox))
    }
}
