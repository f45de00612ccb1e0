//! Starting a long-lived shell: the spawn the pool thread runs, and the start-up call.

use super::*;

impl PersistentShell {
    /// Spawns `<shell> --noprofile --norc` (from the pool thread, see there) reading the runner, and
    /// runs the start-up call: the snapshot, then `shopt -s expand_aliases`. Honours the call's
    /// deadline and cancel.
    pub(crate) fn start(
        spec: &ShellSpec<'_>,
        thread: &PoolThread,
        cancel: &CancelToken,
        deadline: Option<Instant>,
    ) -> Result<Self, StartError> {
        let setup = |e: io::Error| StartError::Exec(ExecError::Setup(e));
        let transport = Transport::for_shell(spec.sandbox).map_err(setup)?;
        let calls_pipe = RunnerPipe::new(&transport, "calls").map_err(setup)?;
        let reports = RunnerPipe::new(&transport, "reports").map_err(setup)?;
        let command = CommandFile::new(&transport).map_err(setup)?;
        let slots = OutputSlots::new(&transport).map_err(setup)?;
        let nonce = RandomState::new().hash_one((std::process::id(), Instant::now(), calls_pipe.read.as_raw_fd()));
        let tag = protocol::runner_tag(nonce);
        let (call_path, report_path) = (calls_pipe.path(), reports.path());
        let (output_path, stdout_path) = slots.paths();
        let command_path = command.path();
        let paths = RunnerPaths {
            call: &call_path,
            command: &command_path,
            report: &report_path,
            output: &output_path,
            stdout: &stdout_path,
        };
        let runner = protocol::runner(&tag, &paths);
        // The runner starts by reporting on a call before the first: this first secret lets it.
        nix::unistd::write(&calls_pipe.write, secret(nonce, 0).as_bytes()).map_err(|e| setup(e.into()))?;
        let (script_read, script_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(|e| setup(e.into()))?;
        // The runner is one line of about 800 bytes: it fits the pipe, so writing never waits. The
        // write end is closed at once: if the runner ever ends, the shell reads EOF and exits.
        let mut script_write = std::fs::File::from(script_write);
        script_write.write_all(&runner).map_err(setup)?;
        drop(script_write);

        let child = thread
            .spawn(spawn_fn(spec, script_read))
            .map_err(|source| StartError::Exec(spawn_error(spec.shell, spec.cwd, source)))?;
        let pid = child.pid();
        let mut shell = Self {
            pid,
            name: spec.shell.file_name().map_or_else(|| "bash".into(), |n| n.to_string_lossy().into_owned()),
            child,
            calls_pipe,
            reports,
            report_buf: Vec::new(),
            command,
            slots,
            record: Vec::new(),
            nonce,
            died_on_interrupt: false,
            calls: 0,
            secret: String::new(),
            pwd: None,
            last_job: Vec::new(),
            background: Vec::new(),
            background_fds: Vec::new(),
            walked_at: Instant::now(),
            children: std::fs::File::open(format!("/proc/{pid}/task/{pid}/children")).ok(),
            children_buf: Vec::new(),
            _transport: transport,
        };

        let init = protocol::init_script(spec.snapshot);
        let mut discard = |_: &[u8]| Flow::Continue;
        let call = Call { script: &init, cd: None, kill_grace: Duration::ZERO, split_stdout: false };
        let report = shell.run(&call, &mut discard, cancel, deadline, thread).map_err(StartError::Exec)?;
        match (report.result, report.retire) {
            (CallResult::Ran { outcome: Outcome::Exited { .. }, .. }, None) => Ok(shell),
            (CallResult::Ran { outcome: outcome @ (Outcome::TimedOut | Outcome::Cancelled), .. }, _) => {
                Err(StartError::Interrupted(outcome))
            }
            (CallResult::Ran { outcome, .. }, retire) => Err(StartError::Protocol(match retire {
                Some(ReplaceReason::FileLimit { limit }) => format!("its open-file limit ({limit}) is too low"),
                Some(reason @ (ReplaceReason::Stopped | ReplaceReason::Unresponsive)) => {
                    format!("it stopped answering while sourcing its start-up files ({reason})")
                }
                _ => format!("it ended while sourcing its start-up files ({outcome:?})"),
            })),
            (_, _) => Err(StartError::Protocol(format!(
                "it could not open the files it is given as {} (is /proc mounted and readable?)",
                shell.command.path()
            ))),
        }
    }
}

/// The closure the pool thread runs to start a shell: `bash --noprofile --norc` reading its runner
/// from `script`, named as bash names itself (`$0` is the shell's file name, so messages read
/// `bash: line 1: …` as under `bash -c`), in a session of its own (no controlling terminal, so
/// nothing it runs can be stopped by the terminal or read from it) and killed by the kernel if the
/// pool thread (and so the process) ends before it.
fn spawn_fn(spec: &ShellSpec<'_>, script: OwnedFd) -> crate::shell::pool_thread::SpawnFn {
    let shell = spec.shell.to_path_buf();
    let cwd = spec.cwd.to_path_buf();
    let env = spec.env.to_vec();
    let marker = marker_of(&env).map(std::ffi::OsStr::to_os_string);
    let sandbox = spec.sandbox.cloned();
    Box::new(move || {
        let parent = nix::unistd::getpid();
        let name = shell.file_name().map_or_else(|| shell.clone().into_os_string(), |n| n.to_os_string());
        let mut command = Command::new(&shell);
        // The runner on stdin, not as `-c`: under `-c`, bash undoes the `eval`'s redirections before
        // an EXIT trap runs, so what `trap 'echo bye' EXIT; exit 3` prints would be lost.
        command
            .arg0(name)
            .args(["--noprofile", "--norc"])
            .current_dir(cwd)
            .envs(env)
            .stdin(Stdio::from(script))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // What a command orphans (`setsid -f`, a double fork, each generation of a pid-hopper) is
        // re-parented to the shell, not to init: it stays in the shell's tree, where an abort's kill,
        // the background count and the shutdown find it.
        crate::process::subreaper::on_exec(&mut command);
        // SAFETY: the closure runs in the child between fork and exec and calls only async-signal-safe
        // functions (signal, setsid, prctl, getppid), allocating nothing.
        unsafe {
            command.pre_exec(move || {
                // The runner interrupts a command with SIGINT (its trap), and bash cannot undo a
                // signal ignored when it started: a process started with SIGINT ignored (a job a
                // script started with `&`) would start shells that no interrupt reaches.
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGQUIT, libc::SIG_DFL);
                // A new session (and so process group) with no controlling terminal.
                if libc::setsid() < 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // The parent may have died before the prctl: then no signal would ever come.
                if libc::getppid() != parent.as_raw() {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
        if let Some(sandbox) = &sandbox {
            sandbox.confine(&mut command);
        }
        // Spawning is rare (once per shell), so the fork+exec that `pre_exec` forces is acceptable.
        OwnedChild::spawn(command, marker.as_deref().map_or(Mark::Unmarked, Mark::Runtime)).map_err(|e| match e {
            SpawnError::Io(e) => e,
            closed => io::Error::other(closed),
        })
    })
}
