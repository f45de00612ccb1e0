//! Jobs in the UI. A tool call that runs past its yield time (`bash.yieldMs`) while its console is
//! not open, that listens on a port, or that is sent away with ctrl+b goes on as a job and leaves
//! the prompt free; so do processes a call leaves running (`server &`). The strip above the input
//! lists the runtime's running jobs; ctrl+t selects one, enter attaches to it (its console, for a
//! call in a terminal, where the person types what the program asks — a password the model must not
//! see; else its output in the pager) and ctrl+x kills it. When a job's command ends, its entry in
//! the transcript gets the final result.

use std::sync::Arc;

use bashrt_core::{CancelToken, JobId, JobInfo, JobState, PtyControl};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::console::Screen;

/// A call of this UI that yielded and still runs: where its entry is, and what attaching to it needs.
pub struct Backgrounded {
    /// The entry's command id.
    pub id: u64,
    pub index: usize,
    pub job: JobId,
    pub cancel: CancelToken,
    pub screen: Arc<Screen>,
    /// Its terminal, when it runs in one: attaching opens its console.
    pub control: Option<PtyControl>,
}

/// The job after `current` among `running` (in id order), or the first; `None` past the last.
pub fn next_selection(running: &[JobInfo], current: Option<JobId>) -> Option<JobId> {
    match current {
        None => running.first().map(|j| j.id),
        Some(id) => running.iter().map(|j| j.id).find(|j| j.0 > id.0),
    }
}

/// `jobs: [1] npm run dev · listening 127.0.0.1:5173   2 pytest · 1m 4s`, the selected one reversed.
pub fn strip(running: &[JobInfo], selected: Option<JobId>, width: usize) -> Line<'static> {
    let mut spans = vec![Span::styled("jobs: ", Style::default().add_modifier(Modifier::DIM))];
    let mut used = 6;
    for job in running {
        let state = match job.state {
            JobState::Listening => format!("listening {}", job.listening.join(", ")),
            JobState::AwaitingInput => format!("{} waits for input", job.reading.as_deref().unwrap_or("it")),
            _ => crate::text::duration(job.elapsed_ms),
        };
        let command: String = job.command.split_whitespace().collect::<Vec<_>>().join(" ");
        let command: String = command.chars().take(40).collect();
        let text = format!(" {} {command} · {state} ", job.id);
        let width_of = text.chars().count();
        if used + width_of > width && used > 6 {
            spans.push(Span::raw("…"));
            break;
        }
        used += width_of + 1;
        let style =
            if Some(job.id) == selected { Style::default().add_modifier(Modifier::REVERSED) } else { Style::default() };
        spans.push(Span::styled(text, style));
        spans.push(Span::raw(" "));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: u64) -> JobInfo {
        JobInfo {
            id: JobId(id),
            command: format!("sleep {id}"),
            state: JobState::Running,
            exit_code: None,
            signal: None,
            listening: vec![],
            reading: None,
            prompt: None,
            stdin_open: false,
            terminal: false,
            elapsed_ms: 1000,
            deadline_in_ms: None,
            artifact_id: None,
            total_bytes: 0,
            total_lines: 0,
            unread_bytes: 0,
        }
    }

    #[test]
    fn selection_cycles_through_the_running_jobs_then_none() {
        let running = [job(2), job(5)];
        assert_eq!(next_selection(&running, None), Some(JobId(2)));
        assert_eq!(next_selection(&running, Some(JobId(2))), Some(JobId(5)));
        assert_eq!(next_selection(&running, Some(JobId(5))), None);
        assert_eq!(next_selection(&[], None), None);
    }
}
