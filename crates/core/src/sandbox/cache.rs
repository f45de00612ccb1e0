//! A runtime's sandboxes: one per workspace, compiled at its first call, found by the call's
//! directory after that (one hash lookup on the warm path).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use super::paths::PrivateTmp;
use super::settings::{Mode, SandboxSettings};
use super::supervisor::Supervisor;
use super::{workspace, Sandbox, SandboxError, SandboxRequest};

/// Directories remembered at most; past it the map starts again (the sandboxes stay shared through
/// the workspaces' map and the shells that hold them).
const MAX_DIRS: usize = 256;

#[derive(Default)]
pub(crate) struct SandboxCache {
    inner: Mutex<Inner>,
    /// The runtime serves one call (`bashrt run`): nothing is watched (see `sensitive`).
    single_call: bool,
}

#[derive(Default)]
struct Inner {
    by_dir: HashMap<PathBuf, Arc<Sandbox>>,
    by_workspace: HashMap<Vec<PathBuf>, Arc<Sandbox>>,
    /// The commands' `TMPDIR`, made with the first sandbox and removed with the runtime.
    tmp: Option<PrivateTmp>,
    /// The network supervisor, started with the first sandbox.
    supervisor: Option<Arc<Supervisor>>,
    /// Requests a person granted for the rest of the runtime's life.
    grants: Vec<SandboxRequest>,
}

impl SandboxCache {
    pub(crate) fn new(single_call: bool) -> Self {
        Self { single_call, ..Self::default() }
    }

    /// The sandbox for commands run in `cwd`; `Ok(None)` when the mode is `off`.
    pub(crate) fn get(&self, settings: &SandboxSettings, cwd: &Path) -> Result<Option<Arc<Sandbox>>, SandboxError> {
        if settings.mode == Mode::Off {
            return Ok(None);
        }
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = inner.by_dir.get(cwd) {
            return Ok(Some(Arc::clone(found)));
        }
        let settings = &inner.grants.iter().fold(settings.clone(), |s, g| g.widened(&s));
        let roots = workspace::roots(cwd);
        let sandbox = match inner.by_workspace.get(&roots) {
            Some(found) => Arc::clone(found),
            None => {
                let sandbox = compile(&mut inner, settings, roots.clone(), !self.single_call)?;
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

    /// The sandbox for one call in `cwd` widened by `request` (granted once): compiled for it alone.
    pub(crate) fn once(
        &self,
        settings: &SandboxSettings,
        cwd: &Path,
        request: &SandboxRequest,
    ) -> Result<Arc<Sandbox>, SandboxError> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let settings = inner.grants.iter().fold(request.widened(settings), |s, g| g.widened(&s));
        compile(&mut inner, &settings, workspace::roots(cwd), !self.single_call)
    }

    /// Grants `request` for the rest of the runtime's life: later calls get a widened sandbox (and
    /// so new shells).
    pub(crate) fn grant(&self, request: &SandboxRequest) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.grants.push(SandboxRequest { reason: request.reason.clone(), off: false, ..request.clone() });
        inner.by_dir.clear();
        inner.by_workspace.clear();
    }

    /// The standing grants.
    pub(crate) fn grants(&self) -> Vec<SandboxRequest> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner).grants.clone()
    }
}

/// Compiles a sandbox with the runtime's private directories, starting the network supervisor first
/// when the policy needs it.
fn compile(
    inner: &mut Inner,
    settings: &SandboxSettings,
    roots: Vec<std::path::PathBuf>,
    watch: bool,
) -> Result<Arc<Sandbox>, SandboxError> {
    if inner.tmp.is_none() {
        let tmp =
            PrivateTmp::create().map_err(|e| SandboxError::Build { step: "private TMPDIR", reason: e.to_string() })?;
        inner.tmp = Some(tmp);
    }
    let supervisor = match &inner.supervisor {
        Some(supervisor) => Arc::clone(supervisor),
        None => {
            let started = Supervisor::start()
                .map_err(|e| SandboxError::Build { step: "network supervisor", reason: e.to_string() })?;
            Arc::clone(inner.supervisor.insert(Arc::new(started)))
        }
    };
    let tmp = inner.tmp.as_ref().map(PrivateTmp::path).unwrap_or(Path::new("/tmp"));
    Sandbox::compile(settings, roots, tmp, supervisor, watch)
}
