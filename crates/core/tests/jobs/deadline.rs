//! A job given more time: its timeout moves later (the executor's wait reads the new deadline), never
//! sooner; in a long-lived shell, a one-shot one and a terminal alike.

use super::*;

fn extend(fx: &Fixture, id: u64, secs: f64) -> ToolResult {
    let params =
        JobParams { action: Some(JobAction::Read), id: Some(id), deadline: Some(secs), ..JobParams::default() };
    fx.tool.job(&params, &CancelToken::new().unwrap())
}

fn wait_secs(fx: &Fixture, id: u64, secs: f64) -> ToolResult {
    let params = JobParams { action: Some(JobAction::Wait), id: Some(id), timeout: Some(secs), ..JobParams::default() };
    fx.tool.job(&params, &CancelToken::new().unwrap())
}

#[test]
fn more_time_keeps_a_job_past_its_timeout_in_every_executor() {
    let fx = Fixture::new();
    for (id, stdin) in [(1, None), (2, Some(StdinMode::Pipe)), (3, Some(StdinMode::Pty))] {
        let gate = fx.fifo(&format!("gate{id}"));
        // The command waits for the test; its timeout (1 s) would kill it long before.
        let command = format!("read line < '{}'; echo \"got $line\"", gate.display());
        let call = BashParams { timeout: Some(1.0), stdin, ..params(&command, 100) };
        let (yielded, thread) = fx.start(call);
        assert_eq!(yielded.details.job.as_ref().map(|j| j.id.0), Some(id), "{}", yielded.text());
        let extended = extend(&fx, id, 600.0);
        let info = extended.details.job.clone().unwrap();
        assert!(info.deadline_in_ms.is_some_and(|ms| ms > 500_000), "{info:?}");
        assert!(extended.text().contains("its timeout kills it in 9m"), "{}", extended.text());
        // Past the old deadline, it still runs.
        let waited = wait_secs(&fx, id, 2.0);
        assert!(waited.text().contains("[Waited 2s: it has not ended]"), "{}", waited.text());
        release(&gate, "go\n");
        let done = thread.join().unwrap();
        assert_eq!(done.details.exit_code, Some(0), "{}", done.text());
        assert!(done.text().starts_with("got go"), "{}", done.text());
    }
}

#[test]
fn a_deadline_is_never_moved_sooner_and_unknown_or_ended_jobs_say_why() {
    let fx = Fixture::new();
    let gate = fx.fifo("gate");
    let (_, thread) = fx.start(params(&format!("read line < '{}'", gate.display()), 100));
    let sooner = extend(&fx, 1, 5.0);
    assert!(sooner.is_error);
    assert!(
        sooner.text().starts_with("Deadline of job 1 not changed: its timeout kills it in 1m")
            && sooner.text().contains("already; to stop it sooner, kill it."),
        "{}",
        sooner.text()
    );
    release(&gate, "x\n");
    thread.join().unwrap();
    let ended = extend(&fx, 1, 600.0);
    assert!(ended.text().ends_with("Deadline of job 1 not changed: it has ended."), "{}", ended.text());
}
