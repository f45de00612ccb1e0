//! Approvals of a call's `sandbox` request by the client's user. Only when the client said it can
//! answer (`{"type":"set_capabilities","approvals":true}`): otherwise a request is refused at once,
//! so that a client that knows nothing of approvals never waits for a question it was not shown.
//! The question goes out as an `approval_request` event; the client answers with `approval`
//! (`once`, `session` or `deny`, and words for the model). No answer within the bound is a denial;
//! an abort of the call ends the wait.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bashrt_core::Approval;

/// How long a question waits for its answer.
pub(super) const APPROVAL_TIMEOUT: Duration = Duration::from_secs(600);

#[derive(Default)]
pub(super) struct Approvals {
    enabled: AtomicBool,
    next: AtomicU64,
    pending: Mutex<HashMap<String, SyncSender<Approval>>>,
}

impl Approvals {
    pub(super) fn enable(&self, on: bool) {
        self.enabled.store(on, Ordering::Relaxed);
    }

    pub(super) fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// A new question's id, and where its answer will come.
    pub(super) fn open(&self) -> (String, Receiver<Approval>) {
        let id = format!("ap-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let (sender, answers) = sync_channel(1);
        self.pending().insert(id.clone(), sender);
        (id, answers)
    }

    /// The question is no longer asked (answered, timed out, its call aborted).
    pub(super) fn close(&self, id: &str) {
        self.pending().remove(id);
    }

    /// Hands the client's answer to the call waiting for it; false when none waits under that id.
    pub(super) fn answer(&self, approval_id: &str, approval: Approval) -> bool {
        match self.pending().remove(approval_id) {
            Some(sender) => sender.try_send(approval).is_ok(),
            None => false,
        }
    }

    fn pending(&self) -> MutexGuard<'_, HashMap<String, SyncSender<Approval>>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
