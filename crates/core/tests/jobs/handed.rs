//! A call that yields in the long-lived shell hands that shell to its job: the next call starts a
//! fresh long-lived shell from its state (not a one-shot per call for as long as the job runs), and
//! the lent shell comes back when its job ends before anyone needed a fresh one.

use std::time::Duration;

use bashrt_core::{PoolConfig, ShellPool};

use super::*;

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    // Every call after any pause captures the shell's state first: what the last call left is there.
    let pool = ShellPool::new(PoolConfig { capture_after_idle: Duration::ZERO, ..PoolConfig::default() });
    let runtime =
        Runtime::builder(Settings::default()).state_dir(dir.path().join("state")).executor(Arc::new(pool)).build();
    Fixture { tool: Arc::new(runtime.tool()), dir }
}

fn run(fx: &Fixture, command: &str) -> ToolResult {
    let on_yield = Box::new(|_| {});
    fx.tool.execute_yielding(&params(command, 30_000), fx.ctx(), Yielding { call_id: None, on_yield }, None)
}

#[test]
fn the_next_call_starts_a_fresh_long_lived_shell_from_the_state_the_job_took() {
    let fx = fixture();
    run(&fx, "export A=1; f() { echo \"f$1\"; }");
    let gate = fx.fifo("gate");
    let (yielded, job) = fx.start(params(&format!("export B=2; read x < '{}'; echo \"got $x\"", gate.display()), 100));
    assert!(yielded.details.job.is_some(), "{}", yielded.text());

    let fresh = run(&fx, "echo \"A=$A B=${B-unset}\"; f 1; C=3");
    assert_eq!(fresh.text(), "A=1 B=unset\nf1\n", "what the job's own command set stays in its shell");
    assert_eq!(
        fresh.details.shell.as_deref(),
        Some("the previous shell went on running a job; a fresh shell with its state ran it")
    );
    // The fresh shell is the session's long-lived shell from now on.
    let next = run(&fx, "echo \"C=$C\"");
    assert_eq!(
        (next.text(), next.details.shell.as_deref()),
        ("C=3\n".into(), Some("reused the shell of earlier calls"))
    );

    release(&gate, "go\n");
    assert_eq!(job.join().unwrap().details.exit_code, Some(0));
    let after = run(&fx, "echo \"C=$C B=${B-unset}\"");
    // (after the notice of the job's end, told once)
    assert!(
        after.text().ends_with("]\nC=3 B=unset\n"),
        "the job's shell was retired, the fresh one kept: {}",
        after.text()
    );
}

#[test]
fn a_lent_shell_whose_job_ends_first_comes_back_with_its_state() {
    let fx = fixture();
    let gate = fx.fifo("gate");
    let (_, job) = fx.start(params(&format!("export D=4; read x < '{}'", gate.display()), 100));
    release(&gate, "go\n");
    job.join().unwrap();
    let back = run(&fx, "echo \"D=$D\"");
    assert!(back.text().ends_with("]\nD=4\n"), "{}", back.text());
    assert_eq!(back.details.shell.as_deref(), Some("reused the shell of earlier calls"));
}

#[test]
fn a_kill_ends_hundreds_of_processes_left_running_at_once_and_spares_the_shell() {
    let fx = fixture();
    let tag = format!("{}.{}", std::process::id(), 1234);
    let started = run(&fx, &format!("for i in $(seq 1 300); do sleep {tag} & done; marker=kept; echo spawned"));
    assert!(
        started.text().starts_with("spawned\n\n[300 background processes still running, followed as job 1."),
        "{}",
        started.text()
    );
    let killed = fx.job(JobAction::Kill, 1);
    assert_eq!(killed.details.job.as_ref().map(|j| j.state), Some(JobState::Cancelled), "{}", killed.text());
    let left = std::process::Command::new("pgrep").args(["-f", &format!("^sleep {tag}$")]).output().unwrap();
    assert!(left.stdout.is_empty(), "still running: {}", String::from_utf8_lossy(&left.stdout));
    // The long-lived shell they shared a process group with lives on, its state too.
    let after = run(&fx, "echo \"$marker\"");
    assert_eq!(
        (after.text(), after.details.shell.as_deref()),
        ("kept\n".into(), Some("reused the shell of earlier calls"))
    );
}
