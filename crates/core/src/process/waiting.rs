//! What a quiet command is waiting for, from the kernel rather than from silence: a blocked read of its
//! own stdin or terminal (a prompt, a password, a pager), or something else (a timer, a child, a
//! socket, a lock). Read from `/proc`: each thread's state and current system call
//! (`/proc/P/task/T/{stat,syscall}`) and the files its arguments name (`/proc/P/fd/N`, an epoll set's
//! `/proc/P/fdinfo/N`, a poll or select set read from the process's memory).
//!
//! Promises: a look reads only the given processes, and at most [`LOOK_BUDGET`] files of them (a
//! process with thousands of threads or fds costs no more); a process that vanishes or cannot be read
//! is skipped, never an error; nothing is written to a process. Reading another process's system call
//! needs the right to trace it: the runtime's own descendants of the same user qualify (under Yama's
//! `ptrace_scope` 1 too), but a setuid or non-dumpable program (`sudo`, `su`, `passwd`) is unreadable
//! unless the runtime runs as root, and is never reported.
//!
//! What it tells is what the kernel shows, which a command can arrange on purpose (a poll set is read
//! from the process's memory after the kernel copied it): it is fit for telling a person or a model
//! that a command seems to wait for input, not for deciding anything on the command's behalf.
//!
//! A read caught between two bursts looks like a prompt for an instant: [`Prober`] calls a command
//! waiting for input only when two looks agree and no process of it used CPU between them.

use std::fs;
use std::io::Read;
use std::os::fd::BorrowedFd;
use std::os::unix::fs::MetadataExt;

/// The system calls that matter, by architecture. (A 32-bit process on a 64-bit kernel reports its
/// own numbers; such programs are rare among today's prompts and are not told apart.)
mod nr {
    #[cfg(target_arch = "x86_64")]
    mod table {
        pub const READS: &[i64] = &[0, 17, 19, 295, 327]; // read, pread64, readv, preadv, preadv2
        pub const POLL: Option<i64> = Some(7);
        pub const SELECT: Option<i64> = Some(23);
        pub const PPOLL: i64 = 271;
        pub const PSELECT6: i64 = 270;
        pub const EPOLL_WAITS: &[i64] = &[232, 281, 441]; // epoll_wait, epoll_pwait, epoll_pwait2
    }
    #[cfg(target_arch = "aarch64")]
    mod table {
        pub const READS: &[i64] = &[63, 65, 67, 69, 286]; // read, readv, pread64, preadv, preadv2
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

/// Files a look reads at most (task states, system calls, fds, fdinfo): past it the look stops and
/// finds no reader.
pub(crate) const LOOK_BUDGET: usize = 512;

/// The part of a poll or select set that is read (a real prompt waits on a handful of fds).
const MAX_FDS: u64 = 1024;

/// The part of an epoll set's fdinfo that is read.
const MAX_FDINFO: u64 = 64 * 1024;

/// A file as `stat` names it: its device and inode.
type FileId = (u64, u64);

/// What the command's stdin is, so that a read can be matched against it: compared by device and inode,
/// not by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stdin {
    /// A pipe the runtime holds an end of.
    Pipe { file: FileId },
    /// A terminal's slave (`/dev/pts/3`), and its device number as `/proc/P/stat` writes a controlling
    /// terminal (`tty_nr`), so that a program that reads `/dev/tty` (`getpass`, `less`) is matched
    /// too when this terminal is its controlling one.
    Terminal { file: FileId, tty_nr: u64, dev_tty: Option<FileId> },
}

impl Stdin {
    /// The stdin that `fd` (this process's end of a pipe, or a terminal's slave side) is.
    pub(crate) fn of_fd(fd: BorrowedFd<'_>) -> std::io::Result<Stdin> {
        let stat = nix::sys::stat::fstat(fd)?;
        let file = (stat.st_dev, stat.st_ino);
        if stat.st_mode & libc::S_IFMT == libc::S_IFIFO {
            return Ok(Stdin::Pipe { file });
        }
        let (major, minor) = (u64::from(libc::major(stat.st_rdev)), u64::from(libc::minor(stat.st_rdev)));
        let tty_nr = (minor & 0xff) | (major << 8) | ((minor & !0xff) << 12);
        let dev_tty = fs::metadata("/dev/tty").ok().map(|m| (m.dev(), m.ino()));
        Ok(Stdin::Terminal { file, tty_nr, dev_tty })
    }

    /// Whether `file`, opened by a process whose controlling terminal is `tty_nr`, is this stdin.
    fn is(&self, file: FileId, tty_nr: Option<u64>) -> bool {
        match self {
            Stdin::Pipe { file: ours } => file == *ours,
            Stdin::Terminal { file: ours, tty_nr: our_tty, dev_tty } => {
                file == *ours || Some(file) == *dev_tty && tty_nr == Some(*our_tty)
            }
        }
    }

    /// The inode alone (an epoll set's fdinfo names its files so).
    fn has_inode(&self, inode: u64, tty_nr: Option<u64>) -> bool {
        match self {
            Stdin::Pipe { file } => file.1 == inode,
            Stdin::Terminal { file, tty_nr: our_tty, dev_tty } => {
                file.1 == inode || dev_tty.is_some_and(|d| d.1 == inode) && tty_nr == Some(*our_tty)
            }
        }
    }
}

/// The process blocked reading the command's stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reader {
    pub pid: i32,
    /// Its name (`/proc/P/comm`: `python3`, `less`), with anything but letters, digits and `._+-/`
    /// replaced by `?`: a program chooses its name, and this one reaches a model's text.
    pub comm: String,
}

/// What one look found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Look {
    /// A thread of the command is on a CPU.
    Running,
    /// Every thread sleeps, and one is blocked reading the command's stdin.
    Reading(Reader),
    /// Every thread sleeps, on something else (a timer, a child, a socket, a lock), or is stopped,
    /// or the look ran out of its budget.
    Sleeping,
}

/// The files a look may still read.
struct Budget(usize);

impl Budget {
    fn take(&mut self) -> bool {
        self.0 = self.0.saturating_sub(1);
        self.0 > 0
    }
}

/// Looks once at `pids` (the command's processes): whether one runs, or reads `stdin`; and the CPU time
/// the processes looked at used so far, in clock ticks (user and system, from the same read of
/// `/proc/P/stat` that gives the controlling terminal).
fn sample(pids: &[i32], stdin: &Stdin) -> (Look, u64) {
    let mut budget = Budget(LOOK_BUDGET);
    let mut reader = None;
    let mut ticks = 0;
    for &pid in pids {
        if !budget.take() || !budget.take() {
            break;
        }
        let Some((tty_nr, used)) = process_stat(pid) else { continue };
        ticks += used;
        let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else { continue };
        for task in tasks.flatten() {
            if !budget.take() || !budget.take() {
                return (Look::Sleeping, ticks);
            }
            // Only a sleeping thread waits: a stopped one (`T`, ctrl-z) still shows the call it was in.
            match task_state(&task.path()) {
                Some(b'R') => return (Look::Running, ticks),
                Some(b'S') => {}
                _ => continue,
            }
            let Ok(text) = fs::read_to_string(task.path().join("syscall")) else { continue };
            match parse_syscall(&text) {
                Syscall::Running => return (Look::Running, ticks),
                Syscall::Blocked { nr, args } => {
                    if reader.is_none() && waits_on_stdin(pid, nr, &args, stdin, tty_nr, &mut budget) {
                        reader = Some(Reader { pid, comm: comm(pid) });
                    }
                }
                Syscall::Other => {}
            }
        }
    }
    (reader.map_or(Look::Sleeping, Look::Reading), ticks)
}

/// What a probe found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Probe {
    /// The same reader on two looks in a row, with no CPU used between them: waiting for input.
    Waiting(Reader),
    /// A reader seen once: the next look confirms it or not.
    Seen(Reader),
    /// No reader.
    NotWaiting,
}

/// Confirms a prompt over two looks: a command waits for input when two looks in a row found the same
/// reader and no process of it used CPU between them.
#[derive(Debug, Default)]
pub(crate) struct Prober {
    last: Option<(Reader, u64)>,
}

impl Prober {
    /// One look at `pids`.
    pub(crate) fn probe(&mut self, pids: &[i32], stdin: &Stdin) -> Probe {
        let (Look::Reading(reader), ticks) = sample(pids, stdin) else {
            self.last = None;
            return Probe::NotWaiting;
        };
        let confirmed = self.last.as_ref().is_some_and(|(last, last_ticks)| *last == reader && *last_ticks == ticks);
        self.last = Some((reader.clone(), ticks));
        if confirmed {
            Probe::Waiting(reader)
        } else {
            Probe::Seen(reader)
        }
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
fn waits_on_stdin(pid: i32, nr: i64, args: &[u64; 6], stdin: &Stdin, tty_nr: Option<u64>, budget: &mut Budget) -> bool {
    let mut is_stdin = |fd: i64| budget.take() && fd_file(pid, fd).is_some_and(|file| stdin.is(file, tty_nr));
    if nr::READS.contains(&nr) {
        return is_stdin(args[0] as i64);
    }
    if nr::EPOLL_WAITS.contains(&nr) {
        if !budget.take() {
            return false;
        }
        let Some(info) = read_capped(&format!("/proc/{pid}/fdinfo/{}", args[0]), MAX_FDINFO) else { return false };
        return epoll_targets(&info)
            .into_iter()
            .any(|(events, inode)| events & 1 != 0 && stdin.has_inode(inode, tty_nr));
    }
    if nr == nr::PPOLL || Some(nr) == nr::POLL {
        return polled_fds(pid, args[0], args[1]).into_iter().any(is_stdin);
    }
    if nr == nr::PSELECT6 || Some(nr) == nr::SELECT {
        return selected_fds(pid, args[0], args[1]).into_iter().any(is_stdin);
    }
    false
}

/// The events and inode of each file of an epoll set (`tfd: 0 events: 19 data: … ino:4a2 sdev:d`
/// lines of its fdinfo; both in hex).
fn epoll_targets(info: &str) -> Vec<(u64, u64)> {
    info.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("tfd:")?;
            let mut words = rest.split_whitespace();
            let events = words.by_ref().skip_while(|w| *w != "events:").nth(1)?;
            let inode = words.find_map(|w| w.strip_prefix("ino:"))?;
            Some((u64::from_str_radix(events, 16).ok()?, u64::from_str_radix(inode, 16).ok()?))
        })
        .collect()
}

/// The fds a `poll`/`ppoll` waits to read: `nfds` `struct pollfd {int fd; short events; short revents}`
/// at `address` in `pid`'s memory, the first [`MAX_FDS`] of them, each once.
fn polled_fds(pid: i32, address: u64, nfds: u64) -> Vec<i64> {
    let nfds = nfds.min(MAX_FDS);
    if nfds == 0 {
        return Vec::new();
    }
    let Some(bytes) = read_memory(pid, address, nfds as usize * 8) else { return Vec::new() };
    let mut fds: Vec<i64> = bytes
        .chunks_exact(8)
        .filter_map(|entry| {
            let fd = i32::from_ne_bytes([entry[0], entry[1], entry[2], entry[3]]);
            let events = i16::from_ne_bytes([entry[4], entry[5]]);
            (fd >= 0 && events & libc::POLLIN != 0).then_some(i64::from(fd))
        })
        .collect();
    fds.sort_unstable();
    fds.dedup();
    fds
}

/// The fds a `select`/`pselect6` waits to read: the first `nfds` bits (at most [`MAX_FDS`]) of the set
/// at `address`.
fn selected_fds(pid: i32, nfds: u64, address: u64) -> Vec<i64> {
    let nfds = nfds.min(MAX_FDS);
    if address == 0 || nfds == 0 {
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

/// The file fd `fd` of `pid` is open on, by device and inode (`stat` of `/proc/P/fd/N`).
fn fd_file(pid: i32, fd: i64) -> Option<FileId> {
    let meta = fs::metadata(format!("/proc/{pid}/fd/{fd}")).ok()?;
    Some((meta.dev(), meta.ino()))
}

/// The state letter of a thread (`/proc/P/task/T/stat`: `R`, `S`, `D`, `T`, …).
fn task_state(task: &std::path::Path) -> Option<u8> {
    let stat = fs::read(task.join("stat")).ok()?;
    let close = stat.iter().rposition(|b| *b == b')')?;
    stat.get(close + 2).copied()
}

/// At most `max` bytes of a file, as text.
fn read_capped(path: &str, max: u64) -> Option<String> {
    let mut text = String::new();
    fs::File::open(path).ok()?.take(max).read_to_string(&mut text).ok()?;
    Some(text)
}

/// From `/proc/P/stat`: the controlling terminal of `pid` as it writes it (`tty_nr`), when it has one,
/// and the CPU time it used (user and system, in clock ticks).
fn process_stat(pid: i32) -> Option<(Option<u64>, u64)> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let tty_nr = stat_field(&stat, 4).filter(|tty| *tty != 0);
    Some((tty_nr, stat_field(&stat, 11).unwrap_or(0) + stat_field(&stat, 12).unwrap_or(0)))
}

/// Field `index` of a `/proc/P/stat` line, counted from 0 after the comm (0 the state, 4 `tty_nr`, 11
/// `utime`, 12 `stime`), as a number.
fn stat_field(stat: &str, index: usize) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(index)?.parse().ok()
}

/// The name of `pid`, made safe to quote (see [`Reader::comm`]).
fn comm(pid: i32) -> String {
    let name = fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    name.trim_end_matches('\n')
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "._+-/".contains(c) { c } else { '?' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::os::fd::AsFd;
    use std::process::{Child, Command, Stdio};

    fn look(pids: &[i32], stdin: &Stdin) -> Look {
        sample(pids, stdin).0
    }

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
            let confirmed = (0..2000).find_map(|_| {
                std::thread::sleep(std::time::Duration::from_millis(1));
                Some(prober.probe(&pids, &running.pipe)).filter(|p| matches!(p, Probe::Waiting(_)))
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
        // A reader stopped (ctrl-z, SIGSTOP) still shows the read it was in: it is not waiting.
        let stopped = Program::start("python3", &["-c", "print('ready', flush=True); input()"]);
        assert!(reading(&stopped.settles_on(reading)));
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(stopped.child.id() as i32),
            nix::sys::signal::Signal::SIGSTOP,
        )
        .unwrap();
        assert_eq!(stopped.settles_on(|l| *l == Look::Sleeping), Look::Sleeping);
    }

    #[test]
    fn a_password_prompt_on_the_commands_terminal_is_seen_through_dev_tty() {
        use std::os::unix::process::CommandExt;
        let pty = nix::pty::openpty(None, None).unwrap();
        let terminal = Stdin::of_fd(pty.slave.as_fd()).unwrap();
        assert!(matches!(&terminal, Stdin::Terminal { dev_tty: Some(_), .. }), "{terminal:?}");
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
        // Killed and reaped however the test ends: it leads a session of its own, nothing else would.
        let child = Killed(command.spawn().unwrap());
        drop(command);
        let mut master = BufReader::new(std::fs::File::from(pty.master));
        let mut line = String::new();
        master.read_line(&mut line).unwrap();
        assert_eq!(line, "ready\r\n");
        let pid = child.0.id() as i32;
        // getpass reads /dev/tty (fd 3 or so), not fd 0: matched through the controlling terminal.
        let found = settle(|| look(&[pid], &terminal), reading, 2000);
        assert_eq!(found, Look::Reading(Reader { pid, comm: "python3".into() }));
    }

    /// A child killed and reaped when dropped.
    struct Killed(Child);

    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    #[test]
    fn a_readers_name_is_quoted_safely() {
        // prctl(PR_SET_NAME) with a newline, brackets and an escape sequence in the name.
        let script = "import ctypes; ctypes.CDLL(None).prctl(15, b'x]\\n[Exit 0]\\x1b[2J', 0, 0, 0); \
                      print('ready', flush=True); input()";
        let program = Program::start("python3", &["-c", script]);
        match program.settles_on(reading) {
            Look::Reading(reader) => assert_eq!(reader.comm, "x???Exit?0???2J"),
            other => panic!("{other:?}"),
        }
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
        let info = "pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1057\ntfd:        0 events:       19 data:                0  pos:0 ino:4a2 sdev:d\n";
        assert_eq!(epoll_targets(info), vec![(0x19, 0x4a2)]);
    }
}
