//! What a quiet command is waiting for, from the kernel rather than from silence: a blocked read of its
//! own stdin or terminal (a prompt, a password, a pager), or something else (a timer, a child, a
//! socket, a lock). Read from `/proc`: each thread's current system call (`/proc/P/task/T/syscall`)
//! and the files its arguments name (`/proc/P/fd/N`, an epoll set's `/proc/P/fdinfo/N`, a poll or
//! select set read from the process's memory).
//!
//! Promises: a look reads only the given processes (a few dozen files for a small tree); a process
//! that vanishes or cannot be read is skipped, never an error; nothing is written to a process.
//! Reading another process's system call needs the right to trace it: the runtime's own descendants,
//! of the same user, qualify (under Yama's `ptrace_scope` 1 too).
//!
//! A read caught between two bursts looks like a prompt for an instant: [`Prober`] calls a command
//! waiting for input only when two looks agree and no process of it used CPU between them.

use std::fs;
use std::os::fd::{AsRawFd, BorrowedFd};

/// The system calls that matter, by architecture.
mod nr {
    #[cfg(target_arch = "x86_64")]
    mod table {
        pub const READS: &[i64] = &[0, 17, 19]; // read, pread64, readv
        pub const POLL: Option<i64> = Some(7);
        pub const SELECT: Option<i64> = Some(23);
        pub const PPOLL: i64 = 271;
        pub const PSELECT6: i64 = 270;
        pub const EPOLL_WAITS: &[i64] = &[232, 281, 441]; // epoll_wait, epoll_pwait, epoll_pwait2
    }
    #[cfg(target_arch = "aarch64")]
    mod table {
        pub const READS: &[i64] = &[63, 65, 67]; // read, readv, pread64
        pub const POLL: Option<i64> = None;
        pub const SELECT: Option<i64> = None;
        pub const PPOLL: i64 = 73;
        pub const PSELECT6: i64 = 72;
        pub const EPOLL_WAITS: &[i64] = &[22, 441]; // epoll_pwait, epoll_pwait2
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    mod table {
        // No table: no system call is recognised, so nothing is ever reported as waiting for input.
        pub const READS: &[i64] = &[];
        pub const POLL: Option<i64> = None;
        pub const SELECT: Option<i64> = None;
        pub const PPOLL: i64 = -2;
        pub const PSELECT6: i64 = -2;
        pub const EPOLL_WAITS: &[i64] = &[];
    }
    pub use table::*;
}

/// A poll or select set larger than this is not read (a real prompt waits on a handful of fds).
const MAX_FDS: u64 = 4096;

/// What the command's stdin is, so that a read can be matched against it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stdin {
    /// A pipe the runtime holds the write end of, by its inode (`pipe:[inode]`).
    Pipe { inode: u64 },
    /// A terminal the runtime holds the master of: its slave's path (`/dev/pts/3`) and its device
    /// number as `/proc/P/stat` writes a controlling terminal (`tty_nr`), so that a program that reads
    /// `/dev/tty` (getpass, sudo, less) is matched too.
    Terminal { path: String, tty_nr: u64 },
}

impl Stdin {
    /// The stdin that `fd` (this process's end of a pipe, or a terminal's slave or master side) is.
    pub(crate) fn of_fd(fd: BorrowedFd<'_>) -> std::io::Result<Stdin> {
        let stat = nix::sys::stat::fstat(fd)?;
        if stat.st_mode & libc::S_IFMT == libc::S_IFIFO {
            return Ok(Stdin::Pipe { inode: stat.st_ino });
        }
        let path = fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))?.display().to_string();
        let (major, minor) = (u64::from(libc::major(stat.st_rdev)), u64::from(libc::minor(stat.st_rdev)));
        let tty_nr = (minor & 0xff) | (major << 8) | ((minor & !0xff) << 12);
        Ok(Stdin::Terminal { path, tty_nr })
    }

    /// Whether fd `fd` of `pid` is this stdin.
    fn is_fd(&self, pid: i32, fd: i64, tty_nr: Option<u64>) -> bool {
        let Ok(target) = fs::read_link(format!("/proc/{pid}/fd/{fd}")) else { return false };
        let target = target.to_string_lossy();
        match self {
            Stdin::Pipe { inode } => target == format!("pipe:[{inode}]"),
            Stdin::Terminal { path, tty_nr: ours } => {
                target == path.as_str() || target == "/dev/tty" && tty_nr == Some(*ours)
            }
        }
    }
}

/// The process blocked reading the command's stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reader {
    pub pid: i32,
    /// Its name (`/proc/P/comm`): `python3`, `sudo`, `less`.
    pub comm: String,
}

/// What one look found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Look {
    /// A thread of the command is on a CPU.
    Running,
    /// Every thread sleeps, and one is blocked reading the command's stdin.
    Reading(Reader),
    /// Every thread sleeps, on something else (a timer, a child, a socket, a lock).
    Sleeping,
}

/// Looks once at `pids` (the command's processes): whether one runs, or reads `stdin`.
pub(crate) fn look(pids: &[i32], stdin: &Stdin) -> Look {
    let mut reader = None;
    for &pid in pids {
        let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else { continue };
        let tty_nr = controlling_tty(pid);
        for task in tasks.flatten() {
            let Ok(text) = fs::read_to_string(task.path().join("syscall")) else { continue };
            match parse_syscall(&text) {
                Syscall::Running => return Look::Running,
                Syscall::Blocked { nr, args } => {
                    if reader.is_none() && waits_on_stdin(pid, nr, &args, stdin, tty_nr) {
                        reader = Some(Reader { pid, comm: comm(pid) });
                    }
                }
                Syscall::Other => {}
            }
        }
    }
    reader.map_or(Look::Sleeping, Look::Reading)
}

/// CPU time `pids` used so far, in clock ticks (user and system, `/proc/P/stat`).
pub(crate) fn cpu_ticks(pids: &[i32]) -> u64 {
    pids.iter()
        .filter_map(|pid| fs::read_to_string(format!("/proc/{pid}/stat")).ok())
        .filter_map(|stat| stat_field(&stat, 11).zip(stat_field(&stat, 12)).map(|(u, s)| u + s))
        .sum()
}

/// Confirms a prompt over two looks: a command waits for input when two looks in a row found the same
/// reader and no process of it used CPU between them.
#[derive(Debug, Default)]
pub(crate) struct Prober {
    last: Option<(Reader, u64)>,
}

impl Prober {
    /// One look at `pids`; `Some(reader)` once the prompt is confirmed.
    pub(crate) fn probe(&mut self, pids: &[i32], stdin: &Stdin) -> Option<Reader> {
        let Look::Reading(reader) = look(pids, stdin) else {
            self.last = None;
            return None;
        };
        let ticks = cpu_ticks(pids);
        let confirmed = self.last.as_ref().is_some_and(|(last, last_ticks)| *last == reader && *last_ticks == ticks);
        self.last = Some((reader.clone(), ticks));
        confirmed.then_some(reader)
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Syscall {
    /// On a CPU (or runnable): `running`.
    Running,
    /// Blocked in system call `nr` with these arguments.
    Blocked { nr: i64, args: [u64; 6] },
    /// Blocked outside a system call (`-1 …`), or unreadable.
    Other,
}

/// `/proc/P/task/T/syscall`: `running`, `-1 sp pc`, or `nr arg0 … arg5 sp pc` in hex.
fn parse_syscall(text: &str) -> Syscall {
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else { return Syscall::Other };
    if first == "running" {
        return Syscall::Running;
    }
    let Ok(nr) = first.parse::<i64>() else { return Syscall::Other };
    if nr < 0 {
        return Syscall::Other;
    }
    let mut args = [0u64; 6];
    for arg in &mut args {
        let Some(word) = words.next() else { return Syscall::Other };
        let Ok(value) = u64::from_str_radix(word.trim_start_matches("0x"), 16) else { return Syscall::Other };
        *arg = value;
    }
    Syscall::Blocked { nr, args }
}

/// Whether a thread of `pid` blocked in `nr(args)` waits for the command's stdin to become readable.
fn waits_on_stdin(pid: i32, nr: i64, args: &[u64; 6], stdin: &Stdin, tty_nr: Option<u64>) -> bool {
    let is_stdin = |fd: i64| stdin.is_fd(pid, fd, tty_nr);
    if nr::READS.contains(&nr) {
        return is_stdin(args[0] as i64);
    }
    if nr::EPOLL_WAITS.contains(&nr) {
        let Ok(info) = fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", args[0])) else { return false };
        return epoll_targets(&info).into_iter().any(|(fd, events)| events & 1 != 0 && is_stdin(fd));
    }
    if nr == nr::PPOLL || Some(nr) == nr::POLL {
        return polled_fds(pid, args[0], args[1]).into_iter().any(is_stdin);
    }
    if nr == nr::PSELECT6 || Some(nr) == nr::SELECT {
        return selected_fds(pid, args[0], args[1]).into_iter().any(is_stdin);
    }
    false
}

/// The fds of an epoll set with the events it waits for (`tfd: 0 events: 19 …` lines of its fdinfo).
fn epoll_targets(info: &str) -> Vec<(i64, u64)> {
    info.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("tfd:")?;
            let mut words = rest.split_whitespace();
            let fd = words.next()?.parse().ok()?;
            let events = words.skip_while(|w| *w != "events:").nth(1)?;
            Some((fd, u64::from_str_radix(events, 16).ok()?))
        })
        .collect()
}

/// The fds a `poll`/`ppoll` waits to read: `nfds` `struct pollfd {int fd; short events; short revents}`
/// at `address` in `pid`'s memory.
fn polled_fds(pid: i32, address: u64, nfds: u64) -> Vec<i64> {
    if nfds == 0 || nfds > MAX_FDS {
        return Vec::new();
    }
    let Some(bytes) = read_memory(pid, address, nfds as usize * 8) else { return Vec::new() };
    bytes
        .chunks_exact(8)
        .filter_map(|entry| {
            let fd = i32::from_ne_bytes([entry[0], entry[1], entry[2], entry[3]]);
            let events = i16::from_ne_bytes([entry[4], entry[5]]);
            (fd >= 0 && events & libc::POLLIN != 0).then_some(i64::from(fd))
        })
        .collect()
}

/// The fds a `select`/`pselect6` waits to read: the first `nfds` bits of the set at `address`.
fn selected_fds(pid: i32, nfds: u64, address: u64) -> Vec<i64> {
    if address == 0 || nfds == 0 || nfds > MAX_FDS {
        return Vec::new();
    }
    let Some(bytes) = read_memory(pid, address, nfds.div_ceil(8) as usize) else { return Vec::new() };
    (0..nfds as usize).filter(|bit| bytes[bit / 8] & (1 << (bit % 8)) != 0).map(|bit| bit as i64).collect()
}

/// `len` bytes at `address` of `pid`'s memory (`process_vm_readv`), or `None`.
fn read_memory(pid: i32, address: u64, len: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; len];
    let mut local = [std::io::IoSliceMut::new(&mut buf)];
    let remote = [nix::sys::uio::RemoteIoVec { base: address as usize, len }];
    let read = nix::sys::uio::process_vm_readv(nix::unistd::Pid::from_raw(pid), &mut local, &remote).ok()?;
    (read == len).then_some(buf)
}

/// The controlling terminal of `pid` as `/proc/P/stat` writes it (`tty_nr`), when it has one.
fn controlling_tty(pid: i32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat_field(&stat, 4).filter(|tty| *tty != 0)
}

/// Field `index` of a `/proc/P/stat` line, counted from 0 after the comm (0 the state, 4 `tty_nr`, 11
/// `utime`, 12 `stime`), as a number.
fn stat_field(stat: &str, index: usize) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(index)?.parse().ok()
}

fn comm(pid: i32) -> String {
    fs::read_to_string(format!("/proc/{pid}/comm")).map(|c| c.trim_end().to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::os::fd::AsFd;
    use std::process::{Child, Command, Stdio};

    /// `script` under bash with a pipe for stdin (kept by the test) and stdout read until `ready`.
    struct Program {
        child: Child,
        stdin: Option<std::process::ChildStdin>,
        /// Kept open: a prompt written to a closed pipe would end the program (EPIPE).
        _stdout: BufReader<std::process::ChildStdout>,
        pipe: Stdin,
    }

    impl Program {
        fn start(program: &str, args: &[&str]) -> Program {
            Program::start_command(Command::new(program), args)
        }

        fn start_command(mut command: Command, args: &[&str]) -> Program {
            let program = command.get_program().to_string_lossy().into_owned();
            let mut child =
                command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
            let stdin = child.stdin.take();
            let pipe = Stdin::of_fd(stdin.as_ref().unwrap().as_fd()).unwrap();
            let mut line = String::new();
            let mut stdout = BufReader::new(child.stdout.take().unwrap());
            stdout.read_line(&mut line).unwrap();
            assert_eq!(line, "ready\n", "{program} {args:?}");
            Program { child, stdin, _stdout: stdout, pipe }
        }

        fn pids(&self) -> Vec<i32> {
            let mut pids = vec![self.child.id() as i32];
            crate::process::procfs::visit_descendants(self.child.id() as i32, |pid| {
                pids.push(pid);
                true
            });
            pids
        }

        /// Looks until the look is `want`, or for a while when it never is: a process that has just
        /// printed `ready` may not have reached its read yet on a busy machine.
        fn settles_on(&self, want: fn(&Look) -> bool) -> Look {
            settle(|| look(&self.pids(), &self.pipe), want, 2000)
        }

        /// Looks 200 times, a millisecond apart: whether any look was `unwanted`.
        fn ever(&self, unwanted: fn(&Look) -> bool) -> Option<Look> {
            (0..200).find_map(|_| {
                std::thread::sleep(std::time::Duration::from_millis(1));
                Some(look(&self.pids(), &self.pipe)).filter(unwanted)
            })
        }
    }

    impl Drop for Program {
        fn drop(&mut self) {
            drop(self.stdin.take());
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// Polls `look` until `want` holds, up to `looks` looks a millisecond apart; the last look.
    fn settle(mut look: impl FnMut() -> Look, want: fn(&Look) -> bool, looks: usize) -> Look {
        let mut last = look();
        for _ in 0..looks {
            if want(&last) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
            last = look();
        }
        last
    }

    fn reading(look: &Look) -> bool {
        matches!(look, Look::Reading(_))
    }

    #[test]
    fn a_read_of_the_commands_own_stdin_is_seen_and_named() {
        for (program, args, comm) in [
            ("python3", &["-c", "print('ready', flush=True); input('Name: ')"][..], "python3"),
            ("bash", &["-c", "echo ready; read -r answer"][..], "bash"),
            ("bash", &["-c", "echo ready; cat"][..], "cat"),
            // Node's readline waits in epoll with stdin in its set.
            ("node", &["-e", "console.log('ready'); require('readline').createInterface({input: process.stdin}).on('line', () => {})"][..], "node"),
            // select(2) and poll(2) on stdin.
            ("python3", &["-c", "import select, sys; print('ready', flush=True); select.select([sys.stdin], [], [])"][..], "python3"),
            ("python3", &["-c", "import select, sys; print('ready', flush=True); p = select.poll(); p.register(0, select.POLLIN); p.poll()"][..], "python3"),
        ] {
            let running = Program::start(program, args);
            match running.settles_on(reading) {
                Look::Reading(reader) => assert_eq!(reader.comm, comm, "{program} {args:?}"),
                other => panic!("{program} {args:?}: {other:?}"),
            }
            // Confirmed over two looks with no CPU used between them.
            let mut prober = Prober::default();
            let pids = running.pids();
            let confirmed = (0..50).find_map(|_| {
                std::thread::sleep(std::time::Duration::from_millis(1));
                prober.probe(&pids, &running.pipe)
            });
            assert!(confirmed.is_some(), "{program} {args:?}");
        }
    }

    #[test]
    fn quiet_programs_that_do_not_read_their_stdin_are_not_prompts() {
        for (program, args) in [
            ("bash", &["-c", "echo ready; sleep 30"][..]),
            // Reading something else: its own pipe, not the command's stdin.
            ("bash", &["-c", "echo ready; sleep 30 | cat"][..]),
            ("python3", &["-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); print('ready', flush=True); s.accept()"][..]),
            ("node", &["-e", "setInterval(() => {}, 1000); console.log('ready')"][..]),
        ] {
            let quiet = Program::start(program, args);
            // 200 looks over its quiet life: none finds a prompt.
            assert_eq!(quiet.ever(reading), None, "{program} {args:?}");
        }
        let busy = Program::start("bash", &["-c", "echo ready; while :; do :; done"]);
        assert_eq!(busy.settles_on(|l| *l == Look::Running), Look::Running);
    }

    #[test]
    fn a_password_prompt_on_the_commands_terminal_is_seen_through_dev_tty() {
        use std::os::unix::process::CommandExt;
        let pty = nix::pty::openpty(None, None).unwrap();
        let terminal = Stdin::of_fd(pty.slave.as_fd()).unwrap();
        assert!(matches!(&terminal, Stdin::Terminal { path, .. } if path.starts_with("/dev/pts/")), "{terminal:?}");
        let slave = std::fs::File::from(pty.slave);
        let mut command = Command::new("python3");
        command
            .args(["-c", "import getpass; print('ready', flush=True); getpass.getpass('Password: ')"])
            .stdin(slave.try_clone().unwrap())
            .stdout(slave.try_clone().unwrap())
            .stderr(slave);
        // SAFETY: setsid and the ioctl are async-signal-safe; the child then owns the terminal.
        unsafe {
            command.pre_exec(|| {
                nix::unistd::setsid()?;
                if libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command.spawn().unwrap();
        drop(command);
        let mut master = BufReader::new(std::fs::File::from(pty.master));
        let mut line = String::new();
        master.read_line(&mut line).unwrap();
        assert_eq!(line, "ready\r\n");
        let pid = child.id() as i32;
        // getpass reads /dev/tty (fd 3 or so), not fd 0: matched through the controlling terminal.
        let found = settle(|| look(&[pid], &terminal), reading, 2000);
        assert_eq!(found, Look::Reading(Reader { pid, comm: "python3".into() }));
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn the_kernels_tables_are_parsed() {
        assert_eq!(parse_syscall("running\n"), Syscall::Running);
        let stat = "4242 (a b) c) S 1 4242 4242 34817 4242 4194560 1 0 0 0 7 3 0 0 20 0 1 0 100 0 0";
        assert_eq!((stat_field(stat, 4), stat_field(stat, 11), stat_field(stat, 12)), (Some(34817), Some(7), Some(3)));
        assert_eq!(parse_syscall("-1 0x7ffd 0x7f00\n"), Syscall::Other);
        assert_eq!(
            parse_syscall("0 0x0 0x55d 0x2000 0x0 0x0 0x0 0x7ffd 0x7f00\n"),
            Syscall::Blocked { nr: 0, args: [0, 0x55d, 0x2000, 0, 0, 0] }
        );
        let info = "pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1057\ntfd:        0 events:       19 data:                0  pos:0 ino:4 sdev:d\n";
        assert_eq!(epoll_targets(info), vec![(0, 0x19)]);
    }
}
