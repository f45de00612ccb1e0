//! The answers a connection owes its client, counted so that a client that does not read them cannot
//! make the server hold them without bound.
//!
//! An answer is pending from the moment its request is read until its last byte is written to stdout
//! (or the client cancels the request before it is answered: then none comes). While
//! [`MAX_PENDING_ANSWERS`] answers, or [`MAX_PENDING_READS`] answers to `resources/read` (up to
//! 1 MiB each), are pending, the transport reads no more requests: the client's writes then block on a
//! full stdin pipe, which is the backpressure a pipe is for. A client that reads its answers never
//! loses one (nothing is refused or dropped, reading resumes as soon as it reads), and one that does
//! not makes the server hold at most that many answers, and run at most that many requests.
//!
//! Why pause rather than refuse: a refusal is an answer too, and a client that does not read would
//! pile up refusals; and a well-behaved client that sends many requests at once would get errors it
//! did not deserve. The limit on all answers is twice the `bash` calls that may run at once
//! ([`crate::MAX_RUNNING`]), so that running commands alone never stop the reading: a cancellation
//! still gets through.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rmcp::model::RequestId;
use tokio::sync::Notify;

/// The most answers pending (requests read, answers not yet written) before the server stops reading
/// requests until the client reads some.
pub const MAX_PENDING_ANSWERS: usize = 2 * crate::calls::MAX_RUNNING;

/// The most pending answers to `resources/read` (each up to [`crate::MAX_RESOURCE_BYTES`]) before the
/// server stops reading requests until the client reads some.
pub const MAX_PENDING_READS: usize = 8;

#[derive(Default)]
struct State {
    /// By request id: whether it is a `resources/read`, and whether its answer is on its way out.
    answers: HashMap<RequestId, Answer>,
    reads: usize,
    /// Answers to lines that were not requests (see [`crate::lines`]), not yet written.
    refusals: usize,
    /// Reading is paused (for the log: said once per pause).
    paused: bool,
}

struct Answer {
    read: bool,
    sending: bool,
}

impl State {
    fn count(&self) -> usize {
        self.answers.len() + self.refusals
    }

    fn has_room(&self) -> bool {
        self.count() < MAX_PENDING_ANSWERS && self.reads < MAX_PENDING_READS
    }

    fn remove(&mut self, id: &RequestId) -> bool {
        match self.answers.remove(id) {
            Some(answer) => {
                self.reads -= usize::from(answer.read);
                true
            }
            None => false,
        }
    }
}

/// The pending answers of one connection.
#[derive(Default)]
pub struct Pending {
    state: Mutex<State>,
    /// Wakes the reader when an answer is no longer pending.
    room: Notify,
}

impl Pending {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Request `id` was read; `read` when it is a `resources/read`. A request that reuses the id of
    /// one still pending adds nothing: rmcp sends one answer per id in flight.
    pub fn requested(&self, id: &RequestId, read: bool) {
        let mut state = self.lock();
        if !state.answers.contains_key(id) {
            state.answers.insert(id.clone(), Answer { read, sending: false });
            state.reads += usize::from(read);
        }
    }

    /// The answer to `id` was handed to the transport (so a later cancellation no longer drops it).
    pub fn sending(&self, id: &RequestId) {
        if let Some(answer) = self.lock().answers.get_mut(id) {
            answer.sending = true;
        }
    }

    /// The answer to `id` was written (or could not be: the client is gone).
    pub fn answered(&self, id: &RequestId) {
        if self.lock().remove(id) {
            self.room.notify_one();
        }
    }

    /// The client cancelled `id`: unless its answer is already on its way, none will come (rmcp drops
    /// the answer of a cancelled request, as the protocol asks).
    pub fn cancelled(&self, id: &RequestId) {
        let mut state = self.lock();
        if state.answers.get(id).is_some_and(|answer| !answer.sending) && state.remove(id) {
            drop(state);
            self.room.notify_one();
        }
    }

    /// An answer to a line that was not a request is on its way.
    pub fn refusing(&self) {
        self.lock().refusals += 1;
    }

    /// That answer was written (or could not be).
    pub fn refused(&self) {
        let mut state = self.lock();
        state.refusals = state.refusals.saturating_sub(1);
        drop(state);
        self.room.notify_one();
    }

    /// How many answers are pending, and how many of them answer a `resources/read`.
    #[cfg(test)]
    fn counts(&self) -> (usize, usize) {
        let state = self.lock();
        (state.count(), state.reads)
    }

    /// Returns once fewer answers are pending than the limits allow.
    pub async fn room(&self) {
        loop {
            {
                let mut state = self.lock();
                if state.has_room() {
                    if std::mem::take(&mut state.paused) {
                        tracing::debug!("the client read answers: reading its requests again");
                    }
                    return;
                }
                if !state.paused {
                    state.paused = true;
                    tracing::info!(
                        "the client has not read {} answers ({} to resources/read): reading no more requests until \
                         it reads some",
                        state.count(),
                        state.reads
                    );
                }
            }
            // `notify_one` leaves a permit when nobody waits yet: a change between the check above and
            // this wait is not missed.
            self.room.notified().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn id(n: i64) -> RequestId {
        RequestId::Number(n)
    }

    /// Whether `room()` returns without waiting.
    fn has_room(pending: &Pending) -> bool {
        pending.lock().has_room()
    }

    #[test]
    fn answers_count_from_the_request_to_the_write() {
        let pending = Pending::default();
        for n in 0..MAX_PENDING_ANSWERS as i64 - 1 {
            pending.requested(&id(n), false);
        }
        assert!(has_room(&pending));
        pending.refusing();
        assert!(!has_room(&pending));
        pending.refused();
        pending.requested(&id(-1), false);
        assert!(!has_room(&pending));
        pending.sending(&id(-1));
        assert!(!has_room(&pending), "an answer handed over but not written is still pending");
        pending.answered(&id(-1));
        assert!(has_room(&pending));
    }

    #[test]
    fn resource_reads_have_their_own_limit() {
        let pending = Pending::default();
        for n in 0..MAX_PENDING_READS as i64 {
            pending.requested(&id(n), true);
        }
        assert_eq!(pending.counts(), (MAX_PENDING_READS, MAX_PENDING_READS));
        assert!(!has_room(&pending));
        pending.answered(&id(3));
        assert!(has_room(&pending));
    }

    #[test]
    fn a_cancelled_request_stops_counting_unless_its_answer_is_on_its_way() {
        let pending = Pending::default();
        pending.requested(&id(1), true);
        pending.requested(&id(2), true);
        pending.sending(&id(2));
        pending.cancelled(&id(1));
        pending.cancelled(&id(2));
        assert_eq!(pending.counts(), (1, 1));
        pending.answered(&id(2));
        assert_eq!(pending.counts(), (0, 0));
    }

    #[test]
    fn a_reused_id_counts_once_and_never_goes_negative() {
        let pending = Pending::default();
        pending.requested(&id(1), true);
        pending.requested(&id(1), true);
        assert_eq!(pending.counts(), (1, 1));
        pending.answered(&id(1));
        pending.answered(&id(1));
        pending.cancelled(&id(1));
        pending.refused();
        assert_eq!(pending.counts(), (0, 0));
    }

    #[tokio::test]
    async fn the_reader_waits_until_an_answer_is_written() {
        let pending = Arc::new(Pending::default());
        for n in 0..MAX_PENDING_READS as i64 {
            pending.requested(&id(n), true);
        }
        let reader = tokio::spawn({
            let pending = pending.clone();
            async move { pending.room().await }
        });
        // Let the reader run up to its wait (a yield, not a sleep: the runtime is single-threaded).
        tokio::task::yield_now().await;
        assert!(!reader.is_finished());
        pending.answered(&id(0));
        reader.await.unwrap();
    }
}
