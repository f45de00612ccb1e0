//! The text protocol between the runtime and a long-lived bash: the runner loop the shell is started
//! with, what the runtime sends per call, and how a call's report is recognised. Pure functions;
//! [`super::persistent`] moves the bytes.
//!
//! The shell reads one line from its stdin (a pipe the runtime closes right after it): the runner, a
//! loop that runs for the shell's whole life. Being parsed once, before any command ran, it is out of
//! reach of what commands define later (aliases such as `alias '{'=…`, `shopt` options that change
//! parsing), and being line 1 of the shell's input, the commands it `eval`s get bash's own line
//! numbers and prefix, as under `bash -c` (`bash: line 2: …`, never a file name). Per iteration:
//!
//! ```text
//! trap 'continue 99' INT; <prefix>=                                       # an abort comes back here
//! until ((0)); do until ((<status>=<broke>?-2:$?, <broke>=0, 0)); do       # $? of the last command
//!   command exec 0<call pipe 1>&- 2>&- || exit <status>                    # e.g. no fd left
//!   case $- in *[ax]*) set +x +a; <prefix>='set -a;set -x;';; esac         # never traced nor exported
//!   read -N 16 <h>; printf '<h> <status> <$!> <$PWD>\0' >report pipe       # the last call's report
//!   until read -N 24 <h>; do <a TMOUT ran out> || exit 97; done           # waits for the next call
//!   case <h> in <not a header>) exit 96;;                                  # one case, four branches:
//!     <inline or memfd, output or stdout:output>)                          # where the command is,
//!       read -N <length> <command>, or read it from <command memfd>        # where its output goes
//!       command exec 0<&-                                                  # the call pipe is closed
//!       builtin eval "<prefix><command>" </dev/null >/proc/<runtime>/fd/<output fd> 2>&1;;  # or >stdout 2>output
//!   esac
//! done; <broke>=1; done                                                   # a `break` of the command
//! ```
//!
//! - Every runner file is opened by path per call (`/proc/<runtime pid>/fd/<n>`), so a command that
//!   closes descriptors (`exec 10>&- 11>&-`) or redirects its own output for good (`exec >log`) breaks
//!   nothing: the next call opens everything afresh. While a command runs the shell holds none of
//!   the runner's descriptors (see [`runner`]), so there is nothing of the runner's for it to close
//!   or write to.
//!   The runner's variables have names drawn per shell, so `declare -i`/`readonly` on a guessed name
//!   changes nothing.
//! - Bash reads a pipe a byte per `read(2)` (so as not to take input meant for the next command),
//!   except under `read -N`, which asks for all N at once. So everything the runner reads has a
//!   length known beforehand: the secret (16 hex digits), a fixed-width header (the command's
//!   length, then the output fd field, each taken by position), then the command itself. That makes
//!   a call three `read(2)`s whatever the command's length. `read -N` counts characters, not bytes:
//!   only ASCII commands travel inline (one character per byte in every locale); others go through
//!   the memfd.
//! - The report's secret is written into the call pipe with the call, after the command, and read
//!   only after the command ended: no variable, file, descriptor or trace holds it while the command
//!   runs, so nothing a command prints or leaves behind passes for its report. (One that sets out to
//!   forge it can: it runs as the user and may open the call pipe by path, or use `extdebug` DEBUG
//!   traps; its cwd it cannot forge.) The runtime writes a first secret when it starts the shell, so
//!   every iteration begins with a report (the first one answers nothing and is skipped). Status
//!   and `$!` come from the report; the cwd is checked against `/proc/<shell>/cwd`, which no command
//!   can fake.
//! - `until ((0))` and not `while :`: a command skipped by a DEBUG trap under `extdebug` returns 0,
//!   which ends an `until` (the shell then reads the end of its input and exits, and is replaced),
//!   where a `while :` would spin for ever. The two loops keep a stray `break` or `continue` from
//!   ending the runner. But `eval` keeps bash's loop count: a `break` outside the command's own
//!   loops leaves the inner one, and the rest of the command does not run, where `bash -c` prints
//!   "only meaningful in a loop" and goes on. The statement after the inner loop marks the report
//!   ([`BROKE_OUT`]) and the output says so. Known gaps: a `continue` so placed ends the command
//!   as quietly, and a `break 2` or more ends the shell, which is replaced (the next call says so).
//! - An abort sends SIGINT to the shell after the command's processes are killed: the trap jumps back
//!   to the top of the loop (`continue 99` reaches the outermost loop, out of any loop of the
//!   command), so the shell keeps its state like an interactive shell after Ctrl-C.
//! - Whatever breaks the runner anyway (`enable -n printf echo`, `set -n`) leaves a shell that stops
//!   answering: the runtime notices that the secret was consumed with no report following, or that
//!   the shell stopped (`kill -STOP $$`), and replaces it. Functions named `eval` or `exec` (a
//!   helper's, the user's) change nothing: the runner calls `builtin eval` and `command exec`. A
//!   function named `command` makes the call pipe unopenable (the shell exits and is replaced); one
//!   named `builtin` turns every step of the runner into nothing, the reads included; the loop's
//!   condition spoils the header and the command each time, so the shell runs nothing more (no
//!   command again) until the call's deadline or abort, which kill it.
//! - Known gaps, in DEBUG traps only: the runner's steps run with the call pipe as stdin, or with
//!   descriptor 0 closed at the top of the loop. A DEBUG trap that reads stdin takes the call's
//!   record (the shell stops answering and is replaced), and one that opens a file for input onto a
//!   descriptor of its own (`exec 3<file`) while 0 is closed makes bash 5.2 crash (the shell is
//!   replaced). Commands themselves always run with `/dev/null` as stdin.
//!
//! Each statement of the loop costs the shell a few microseconds of interpretation per call, and
//! each redirection a few more (bash saves a descriptor it redirects and restores it afterwards,
//! seven system calls, unless the descriptor was closed): the loop is kept to the statements the
//! points above need, and its redirections land on closed descriptors.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The secret's length in characters (hex digits): fixed, so that the runner reads it in one `read`.
pub(crate) const SECRET_LEN: usize = 16;

/// The call header's length: the command's length as four digits (`@@@@` for "read the memfd"),
/// then the output fd field (`<output fd>` or `<stdout fd>:<output fd>`) padded on the left with
/// slashes (`/proc/<pid>/fd////12` is `/proc/<pid>/fd/12`), so that the runner takes both fields by
/// position, with no expansion that searches. The longest field, two 7-digit fds, takes 15 of 20.
pub(crate) const HEADER_LEN: usize = 24;

/// The length field's width: [`INLINE_MAX`] has four digits.
const LENGTH_LEN: usize = 4;

/// The status a report carries when the command's `break` left the runner's inner loop: the rest of
/// the command did not run. Negative, so that no exit status can be taken for it.
pub(crate) const BROKE_OUT: i32 = -2;

/// Commands up to this long (ASCII, no NUL) travel in the call record: the whole record then stays
/// within `PIPE_BUF`, so it is written in one piece, and the runner reads the command in one `read`.
pub(crate) const INLINE_MAX: usize = 4000;

/// Paths the runner opens, all `/proc/<runtime pid>/fd/<n>`, fixed for the shell's life.
pub(crate) struct RunnerPaths<'a> {
    /// The call pipe: header, command and secret per call.
    pub call: &'a str,
    /// The command memfd.
    pub command: &'a str,
    /// The report pipe.
    pub report: &'a str,
    /// `/proc/<runtime pid>/fd/`: the output pipe's fd number is appended per call.
    pub fd_dir: &'a str,
}

/// The runner loop, one line. `tag` makes its variable names unguessable (hex digits only).
pub(crate) fn runner(tag: &str, paths: &RunnerPaths<'_>) -> Vec<u8> {
    let v = |name: &str| format!("__b{tag}{name}");
    let (s, h, f, c, x, b) = (v("s"), v("h"), v("f"), v("c"), v("x"), v("b"));
    let mut out = String::with_capacity(1000);
    // The status is taken in the loop's condition (in the body, `$?` would be the condition's), by
    // one arithmetic command that is always false; it also spoils the header and the command, so
    // that a runner whose `builtin` was shadowed by a function (its reads then do nothing) cannot run
    // the last command again. Set once: an abort's SIGINT brings the shell back to the top of the
    // loop (`continue 99` reaches the outermost loop, out of any loop of the command). An inherited
    // `TMOUT` (hardened hosts export one) would be the timeout of the runner's idle `read` and end
    // the shell after that long without a call: it is unset once, before the loop (one a command
    // sets later only makes that wait start again, below).
    // `eval` keeps bash's count of enclosing loops: a `break` past the command's own loops ends the
    // inner loop, and the statement after it marks the next report with [`BROKE_OUT`] (the inner
    // loop's condition is never true, so nothing else gets there; an abort's `continue 99` skips
    // it). A `continue` so placed, or a `break 2`, is not seen (that would take a statement per call).
    out.push_str(&format!("\\builtin trap 'continue 99' INT; \\builtin unset -v TMOUT; {b}=0; "));
    out.push_str(&format!(
        "until ((0)); do until (({s}={b}?{broke}:$?, {b}=0, {h}=-1, {c}=0, 0)); do ",
        broke = BROKE_OUT
    ));
    // The shell holds no descriptor but the call pipe's, and that only until the command is read: 1
    // and 2 are closed here, 0 holds the call pipe and is closed before the command, and the
    // command's redirections are undone after it. So no redirection of the runner has anything to
    // save and restore (bash saves a descriptor with four `fcntl`s and restores it with three more),
    // a command finds no saved copy of the runner's files to close or write to, and what the
    // runner's own steps would print (traces, DEBUG-trap output, errors) goes nowhere. Closing them again each time also ends what
    // an interrupted command left open. `command exec` (not `builtin exec`, whose redirections are
    // undone; not `exec`, which a function of the user's may stand for: a helper named `exec` or
    // `eval` is theirs to call, never the runner's, which takes `eval` through `builtin` too) opens
    // the call pipe afresh for every call, as descriptor 0 (the lowest free one, so bash needs
    // no `dup2`, and never `{var}`: bash 5.2 crashes moving a descriptor opened as 0 while 0 is
    // where it read its own input from); a shell that cannot open it any more ends with the
    // command's status.
    out.push_str(&format!("\\command exec 0<{call} 1>&- 2>&- || \\builtin exit \"${s}\"; ", call = paths.call));
    // Tracing is off while the runner runs (`BASH_XTRACEFD` may name a file of the user's) and back
    // on for the command. So is `set -a` (allexport), under which every variable the runner assigns
    // would be exported to the command's programs: the command's own text among them, which past
    // 128 KiB makes every program fail to start ("Argument list too long"). Its variables lose the
    // export attribute the loop's condition gave them. Both come back as a prefix of the command,
    // `set -a` first so that it is not traced. The common case, neither on, costs one pattern.
    out.push_str(&format!(
        "case $- in *[ax]*) {x}=; \
         case $- in *x*) \\builtin set +x; {x}='set -x;';; esac; \
         case $- in *a*) \\builtin set +a; \\builtin export -n {s} {h} {c} {f} {x} {b}; {x}=\"set -a;${x}\";; esac;; \
         *) {x}=;; esac; "
    ));
    // The last call's report (`$!` cannot change between the command and here). The secret's variable
    // is overwritten by the header right after.
    out.push_str(&format!(
        "\\builtin read -r -N {n} {h}; \
         \\builtin printf '%s %s %s %s\\0' \"${h}\" \"${s}\" \"${{!-}}\" \"${{PWD-}}\" >{report} \
         || \\builtin echo -ne \"${h} ${s} ${{!-}}\\0\" >{report}; ",
        n = SECRET_LEN,
        report = paths.report
    ));
    // The header, checked (only digits, `:`, `@` and `/` may reach a path or `read -N`: a command can
    // write into the call pipe too), then the command, then the call pipe is closed (no descriptor of
    // the shell holds the secret while the command runs), then the command. One `case` does it all:
    // each statement of the loop costs the shell microseconds. A command that is not ASCII or is long
    // is in the memfd, ended by a NUL (so that the `read` succeeds, under `set -e` too). The output fd
    // field is `<stdout>:<stderr>` when the call splits stdout off (an extracted `| head` limits the
    // producer's stdout alone). The redirections are `eval`'s own, not a group's around it (bash
    // applies and undoes those a few microseconds faster): a DEBUG trap runs before each simple
    // command, and would run for the `eval` with the command's output as its own. Every expansion
    // is quoted: `IFS` may hold digits.
    let memfd = format!("IFS= \\builtin read -r -d '' {c} <{command}; \\command exec 0<&-;", command = paths.command);
    let inline = format!(
        "\\builtin read -r -N \"${{{h}:0:{len}}}\" {c} || \\builtin exit 97; \\command exec 0<&-;",
        len = LENGTH_LEN
    );
    let split = format!(
        "{f}=${{{h}:{len}}}; \\builtin eval \"${x}${c}\" </dev/null >{dir}\"${{{f}%:*}}\" 2>{dir}\"${{{f}#*:}}\";;",
        len = LENGTH_LEN,
        dir = paths.fd_dir
    );
    let merged = format!(
        "\\builtin eval \"${x}${c}\" </dev/null >{dir}\"${{{h}:{len}}}\" 2>&1;;",
        len = LENGTH_LEN,
        dir = paths.fd_dir
    );
    // The wait for the next call is the only `read` that waits: under a `TMOUT` a command set (a
    // hardened profile's `readonly TMOUT=900`) it times out (a status above 128, nothing read) and
    // waits again; at the end of the input it ends the shell.
    out.push_str(&format!(
        "until \\builtin read -r -N {n} {h}; do case $? in 1[3-9][0-9]|2[0-5][0-9]) ;; \
         *) \\builtin exit 97;; esac; done; \
         case ${h} in *[!0-9:@/]*) \\builtin exit 96;; \
         @*:*) {memfd} {split} @*) {memfd} {merged} \
         *:*) {inline} {split} *) {inline} {merged} esac; ",
        n = HEADER_LEN,
    ));
    out.push_str(&format!("done; {b}=1; done\n"));
    out.into_bytes()
}

/// What the runtime writes into the call pipe for one call: the header (the command's length as four
/// digits, or `@@@@` for "read the memfd", then the output fd field padded to [`HEADER_LEN`] on the
/// left with slashes), the command when `inline`, then the secret the report must carry
/// ([`SECRET_LEN`] characters), which the runner reads only once the command is over.
///
/// With `stdout_fd`, the field is `<stdout_fd>:<output_fd>`: stdout goes to its own pipe, stderr to
/// the output.
pub(crate) fn call_record(
    out: &mut Vec<u8>,
    output_fd: i32,
    stdout_fd: Option<i32>,
    inline: Option<&[u8]>,
    secret: &str,
) {
    use std::io::Write;
    out.clear();
    // Writing into a Vec cannot fail.
    let _ = match inline {
        Some(text) => write!(out, "{:0width$}", text.len(), width = LENGTH_LEN),
        None => write!(out, "{}", "@".repeat(LENGTH_LEN)),
    };
    let field = match stdout_fd {
        Some(fd) => format!("{fd}:{output_fd}"),
        None => output_fd.to_string(),
    };
    out.resize(HEADER_LEN.saturating_sub(field.len()).max(LENGTH_LEN), b'/');
    out.extend_from_slice(field.as_bytes());
    if let Some(text) = inline {
        out.extend_from_slice(text);
    }
    out.extend_from_slice(secret.as_bytes());
}

/// The command travels inline when it is ASCII (see the module's notes), not empty (`read -N 0`
/// reads nothing but is not portable across bash versions), without NUL, and short.
pub(crate) fn inline(script: &[u8]) -> Option<&[u8]> {
    (!script.is_empty() && script.len() <= INLINE_MAX && script.iter().all(|&b| b != 0 && b.is_ascii()))
        .then_some(script)
}

/// What one call's report says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Report {
    pub status: i32,
    /// `$!` (empty before the first background job).
    pub last_job: Vec<u8>,
    /// `$PWD` (empty when the fallback report without it was used).
    pub pwd: Vec<u8>,
}

/// The report carrying `secret` among the bytes read from the report pipe, or `None` while there is
/// none. A record is `<secret> <status> <$!> <$PWD>` and a NUL (the fallback without `printf` has no
/// `$PWD`). Anything else (forged records, partial ones, junk without a NUL) is skipped: only the
/// runner knows the secret, so the record is found wherever it starts.
pub(crate) fn find_report(buf: &[u8], secret: &str) -> Option<Report> {
    let mut needle = Vec::with_capacity(secret.len() + 1);
    needle.extend_from_slice(secret.as_bytes());
    needle.push(b' ');
    let start = memchr::memmem::rfind(buf, &needle)? + needle.len();
    let len = memchr::memchr(0, &buf[start..])?;
    let mut fields = buf[start..start + len].splitn(3, |&b| b == b' ');
    let status = std::str::from_utf8(fields.next()?).ok()?.parse().ok()?;
    let last_job = fields.next().unwrap_or_default().to_vec();
    let pwd = fields.next().unwrap_or_default().to_vec();
    Some(Report { status, last_job, pwd })
}

/// The start-up command: the snapshot (aliases, functions) and alias expansion for what follows.
pub(crate) fn init_script(snapshot: Option<&Path>) -> Vec<u8> {
    let mut init = Vec::new();
    if let Some(snapshot) = snapshot {
        init.extend_from_slice(b"\\. ");
        crate::exec::quote_into(&mut init, snapshot.as_os_str().as_bytes());
        init.push(b'\n');
    }
    init.extend_from_slice(b"shopt -s expand_aliases\n");
    init
}

/// A `cd` before the command, for calls that set the directory: `cd -- <dir> || exit-code 1`; the
/// runtime compares the shell's cwd afterwards, so a `cd` that failed is seen from outside.
pub(crate) fn cd_script(out: &mut Vec<u8>, dir: &Path) {
    out.clear();
    out.extend_from_slice(b"\\builtin cd -- ");
    crate::exec::quote_into(out, dir.as_os_str().as_bytes());
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> RunnerPaths<'static> {
        RunnerPaths { call: "/proc/9/fd/3", command: "/proc/9/fd/4", report: "/proc/9/fd/5", fd_dir: "/proc/9/fd/" }
    }

    #[test]
    fn the_runner_is_one_line_and_names_its_files() {
        let text = String::from_utf8(runner("a1", &paths())).unwrap();
        assert_eq!(text.matches('\n').count(), 1, "{text}");
        assert!(text.ends_with("done; __ba1b=1; done\n"));
        for path in [
            "\\command exec 0</proc/9/fd/3 1>&- 2>&- ||",
            "\" >/proc/9/fd/5 ||",
            "</proc/9/fd/4",
            "\\command exec 0<&-;",
        ] {
            assert!(text.contains(path), "{path} in {text}");
        }
        assert!(
            text.contains("\\builtin eval \"$__ba1x$__ba1c\" </dev/null >/proc/9/fd/\"${__ba1h:4}\" 2>&1"),
            "{text}"
        );
    }

    #[test]
    fn the_runner_parses() {
        let text = runner("a1", &paths());
        let status = std::process::Command::new("bash")
            .arg("-n")
            .arg("-c")
            .arg(std::str::from_utf8(&text).unwrap())
            .status()
            .unwrap();
        assert!(status.success());
    }

    #[test]
    fn call_record_is_header_command_secret() {
        let mut out = Vec::new();
        call_record(&mut out, 12, None, inline(b"true"), "s3cr3t");
        assert_eq!(out, b"0004//////////////////12trues3cr3t");
        call_record(&mut out, 12, Some(13), inline(b"true"), "s3cr3t");
        assert_eq!(out, b"0004///////////////13:12trues3cr3t");
        call_record(&mut out, 12, None, inline(&[b'x'; INLINE_MAX + 1]), "s3cr3t");
        assert_eq!(out, b"@@@@//////////////////12s3cr3t");
        call_record(&mut out, 1_048_575, Some(1_048_574), inline(&[b'x'; INLINE_MAX]), "k");
        assert_eq!(&out[..HEADER_LEN], b"4000/////1048574:1048575");
        assert_eq!(inline(b"a\0b"), None);
        assert_eq!(inline("echo é".as_bytes()), None, "read -N counts characters");
        assert_eq!(inline(b""), None);
    }

    #[test]
    fn only_the_report_with_the_secret_counts() {
        let buf = b"forged 0 1 /tmp\0junk without a nul\nk1 3 41 /tmp/new dir\0";
        assert_eq!(
            find_report(buf, "k1"),
            Some(Report { status: 3, last_job: b"41".to_vec(), pwd: b"/tmp/new dir".to_vec() })
        );
        assert_eq!(find_report(buf, "k2"), None);
        assert_eq!(find_report(b"k1 0", "k1"), None, "incomplete");
        assert_eq!(find_report(b"k1 5 \0", "k1"), Some(Report { status: 5, last_job: vec![], pwd: vec![] }));
        assert_eq!(find_report(b"k1 x 1 /\0", "k1"), None, "a status that is not a number");
    }
}
