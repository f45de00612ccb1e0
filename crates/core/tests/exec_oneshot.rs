//! The one-shot executor with the real bash: exit mapping, merged output, stdin, background
//! processes, volume, large scripts, and start-up failures.

use std::ffi::OsString;

use crate::support::*;
use bashrt_core::{CancelToken, ExecError, ExecRequest, Executor, Flow, OneShotExecutor, Outcome};

#[test]
fn stdout_and_stderr_arrive_merged_in_order() {
    let (execution, output) = run("echo hi; echo err >&2; echo bye");
    assert_eq!(output, "hi\nerr\nbye\n");
    assert_eq!(execution.outcome, Outcome::Exited { code: 0 });
    assert_eq!(execution.background, 0);
}

#[test]
fn exit_status_is_reported() {
    assert_eq!(run("exit 7").0.outcome, Outcome::Exited { code: 7 });
}

#[test]
fn shell_killed_by_a_signal_is_signalled_not_exited() {
    assert_eq!(run("kill -TERM $$").0.outcome, Outcome::Signalled { signal: 15 });
}

#[test]
fn cat_reads_dev_null_and_returns_at_once() {
    let (execution, output) = run("cat");
    assert_eq!(output, "");
    assert_eq!(execution.outcome, Outcome::Exited { code: 0 });
}

#[test]
fn read_gets_end_of_input() {
    assert_eq!(run(r#"read x; echo "[$x]""#).1, "[]\n");
}

#[test]
fn background_process_holding_the_pipe_does_not_hold_the_call() {
    let (execution, output) = run("sleep 30 & echo $!");
    let pids = pids_in(&output);
    assert_eq!(execution.outcome, Outcome::Exited { code: 0 });
    assert!(execution.background >= 1, "{execution:?}");
    assert!(is_alive(pids[0]), "background processes are left running");
    kill_now(pids[0]);
}

#[test]
fn background_process_that_started_its_own_session_is_counted_while_its_parent_lives() {
    // The subshell stays in the group and waits; its setsid child leaves the group. The FIFO makes
    // the shell exit only after the subshell has started that child.
    let (execution, output) = run(r#"f=$(mktemp -u); mkfifo "$f"
        (setsid sleep 30 & echo $! > "$f"; wait) &
        read p < "$f"; rm "$f"; echo $p; echo $!"#);
    let pids = pids_in(&output);
    assert!(execution.background >= 2, "{execution:?} {output}");
    for pid in pids {
        kill_now(pid);
    }
}

#[test]
fn ten_megabytes_arrive_byte_exact() {
    const LINES: u64 = 1_500_000;
    let mut expected = Checksum::default();
    for i in 1..=LINES {
        expected.add(format!("{i}\n").as_bytes());
    }
    let mut seen = Checksum::default();
    let mut consumer = |chunk: &[u8]| {
        seen.add(chunk);
        Flow::Continue
    };
    let execution = OneShotExecutor
        .execute(&request(&format!("seq 1 {LINES}"), NO_TIMEOUT), &mut consumer, &CancelToken::new().unwrap())
        .unwrap();
    assert_eq!(execution.outcome, Outcome::Exited { code: 0 });
    assert!(seen.bytes > 10_000_000);
    assert_eq!(seen, expected);
}

/// Byte count and an order-sensitive hash (FNV-1a), so the consumer keeps no copy.
#[derive(Debug, PartialEq, Eq)]
struct Checksum {
    bytes: u64,
    hash: u64,
}

impl Default for Checksum {
    fn default() -> Self {
        Self { bytes: 0, hash: 0xcbf2_9ce4_8422_2325 }
    }
}

impl Checksum {
    fn add(&mut self, data: &[u8]) {
        self.bytes += data.len() as u64;
        for &b in data {
            self.hash = (self.hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[test]
fn script_larger_than_one_argument_runs_from_a_private_file_removed_afterwards() {
    let filler = format!("# {}\n", "x".repeat(200 * 1024));
    let script = format!("{filler}echo \"$0\"; stat -c %a \"$0\"; echo done\n{}", "true\n".repeat(10_000));
    assert!(script.len() > 128 * 1024);
    let (execution, output) = run(&script);
    assert_eq!(execution.outcome, Outcome::Exited { code: 0 });
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines[1..], ["600", "done"], "{output}");
    assert!(!std::path::Path::new(lines[0]).exists(), "{} kept", lines[0]);
}

#[test]
fn script_just_below_the_file_threshold_runs_inline() {
    // `$0` is the shell's name, as when a user types `bash -c`.
    let script = format!("# {}\necho \"$0\"", "x".repeat(99 * 1024));
    assert_eq!(run(&script).1, "bash\n");
}

#[test]
fn missing_shell_is_a_spawn_error_naming_the_shell() {
    let req = ExecRequest::new("/bin/bashx", "true", work_dir(), NO_TIMEOUT);
    let error =
        OneShotExecutor.execute(&req, &mut |_: &[u8]| Flow::Continue, &CancelToken::new().unwrap()).unwrap_err();
    assert!(matches!(error, ExecError::Spawn { .. }), "{error:?}");
    assert_eq!(error.to_string(), "Failed to start shell /bin/bashx: No such file or directory (os error 2)");
}

#[test]
fn missing_working_directory_is_named_as_such() {
    let req = ExecRequest::new(BASH, "true", "/nonexistent/bashrt-dir", NO_TIMEOUT);
    let error =
        OneShotExecutor.execute(&req, &mut |_: &[u8]| Flow::Continue, &CancelToken::new().unwrap()).unwrap_err();
    assert!(matches!(error, ExecError::Cwd { .. }), "{error:?}");
    assert!(error.to_string().contains("/nonexistent/bashrt-dir"));
}

#[test]
fn runs_in_the_requested_directory_with_the_extra_environment() {
    let dir = tempfile::tempdir().unwrap();
    let mut req = request(r#"pwd; echo "$BASHRT_A $BASHRT_B""#, NO_TIMEOUT);
    req.cwd = dir.path().to_path_buf();
    req.env =
        vec![(OsString::from("BASHRT_A"), OsString::from("one")), (OsString::from("BASHRT_B"), OsString::from("two"))]
            .into();
    let expected_dir = dir.path().canonicalize().unwrap();
    assert_eq!(run_request(&req).1, format!("{}\none two\n", expected_dir.display()));
}

#[test]
fn child_inherits_no_descriptor_of_the_executor() {
    // Whatever this test process inherited without close-on-exec passes through to every child;
    // anything beyond that and 0/1/2 would be the executor's leak.
    let inherited = open_fds_without_cloexec();
    let (_, output) = run("ls /proc/$$/fd; true");
    for fd in pids_in(&output) {
        assert!(fd <= 2 || inherited.contains(&fd), "fd {fd} leaked into the shell: {output}");
    }
}

fn open_fds_without_cloexec() -> Vec<i32> {
    let mut fds = Vec::new();
    for entry in std::fs::read_dir("/proc/self/fdinfo").unwrap() {
        let entry = entry.unwrap();
        let Ok(fd) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(info) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        let flags = info
            .lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
            .unwrap_or(0);
        if flags & 0o2000000 == 0 {
            fds.push(fd);
        }
    }
    fds
}

#[test]
fn already_cancelled_token_starts_nothing() {
    let cancel = CancelToken::new().unwrap();
    cancel.cancel();
    let marker = tempfile::tempdir().unwrap().path().join("started");
    let script = format!("touch {}", marker.display());
    let execution =
        OneShotExecutor.execute(&request(&script, NO_TIMEOUT), &mut |_: &[u8]| Flow::Continue, &cancel).unwrap();
    assert_eq!(execution.outcome, Outcome::Cancelled);
    assert!(!marker.exists());
}

#[test]
fn executor_is_usable_as_a_shared_trait_object() {
    let executor: std::sync::Arc<dyn Executor> = std::sync::Arc::new(OneShotExecutor);
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let executor = executor.clone();
            std::thread::spawn(move || {
                let mut output = Vec::new();
                let mut collect = |c: &[u8]| {
                    output.extend_from_slice(c);
                    Flow::Continue
                };
                let req = request(&format!("echo {i}"), NO_TIMEOUT);
                executor.execute(&req, &mut collect, &CancelToken::new().unwrap()).unwrap();
                output
            })
        })
        .collect();
    for (i, thread) in threads.into_iter().enumerate() {
        assert_eq!(thread.join().unwrap(), format!("{i}\n").into_bytes());
    }
}

#[test]
fn the_snapshot_comes_through_bash_env_off_the_script_lines_and_is_not_inherited() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("snapshot.sh");
    std::fs::write(
        &snapshot,
        "alias greet='echo hello from alias'\nsnapfn() { echo from function; }\nshopt -s expand_aliases\n",
    )
    .unwrap();
    let script = "greet\nsnapfn\necho \"[${BASH_ENV-unset}]\"\nbash -c 'type snapfn >/dev/null 2>&1 && echo inherited || echo clean'\necho $((1/0))\nif then";
    let mut req = request(script, NO_TIMEOUT);
    req.snapshot = Some(snapshot.clone());
    let (_, output) = run_request(&req);
    assert_eq!(
        output,
        "hello from alias\nfrom function\n[unset]\nclean\nbash: line 5: 1/0: division by 0 (error token is \"0\")\n"
            .to_string()
            + "bash: -c: line 6: syntax error near unexpected token `then'\nbash: -c: line 6: `if then'\n",
    );
    // A caller's own BASH_ENV is set back (and read, as bash would).
    let own = dir.path().join("own.sh");
    std::fs::write(&own, "echo own env file\n").unwrap();
    let mut req = request("greet; echo \"[$BASH_ENV]\"", NO_TIMEOUT);
    req.snapshot = Some(snapshot);
    req.env = vec![("BASH_ENV".into(), own.clone().into())].into();
    let (_, output) = run_request(&req);
    assert_eq!(output, format!("own env file\nhello from alias\n[{}]\n", own.display()));
}
