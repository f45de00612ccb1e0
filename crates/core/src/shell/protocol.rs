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
//! trap '<status>=-4; continue 99' INT; <status>= <prefix>=                # an abort comes back here
//! until ((0)); do until ((0)); do
//!   [[ <a nameref or an attribute on them> ]] && { unset -n <prefix> <h> <command>;  # what a command
//!     unset -v <the same> || <end>; }; <h>=                                # declared on them
//!   case <status>$- in                                                     # one pattern per call:
//!     0hBs) ;;                                                             # it succeeded, options as at start
//!     *[axu]*) set +x +a +u; <prefix>='<prefix>=;set -u;set -a;set -x;'   # not traced nor exported
//!              command exec 0<&- 1>&- 2>&-; builtin eval '' || <end>;;
//!     *) command exec 0<&- 1>&- 2>&-; builtin eval '' || <end>;;          # `eval` not disabled?
//!   esac
//!   { read -N 16 <h>; echo -E "<h> <status> $! $PWD <h>" >report pipe      # the last call's report
//!     read -N 5 <h> || until <the same>; do <a TMOUT ran out> || <end>; done  # the next header
//!     read -N "<h>" <command> || case <h> in                              # inline: the header is a count,
//!       @@@@M|@@@@S) read -d '' <command> <command memfd || <end>;;       # or the command is in the memfd,
//!       *) <end>;; esac                                                    # or not a header
//!   } <call pipe                                                           # one open per call
//!   case <h> in                                                            # merged:
//!     "<tab>"*|@@@@M) <status>=-3; builtin eval "<prefix><command>" </dev/null >/proc/<runtime>/fd/<slot> 2>&1;;
//!     *"<tab>"|@@@@S) <status>=-3; builtin eval "<prefix><command>" </dev/null >stdout slot 2>output slot;;
//!     *) <end>;; esac                                                      # no header: a read skipped
//!   case ${<status>@a} in *r*) <end>;; *) <status>=$?;; esac              # skipped by a `continue`
//! done; <status>=-2; done                                                 # a `break` of the command
//! ```
//!
//! `<end>` ends the shell in a way no command can redefine or disable, with last words on the report
//! pipe that carry the command's status: what the runner calls no longer works (a function named
//! `builtin`, or `enable -n` of it or of `read` or `eval`), and it would otherwise loop for good
//! without waiting for a call.
//!
//! - Every runner file is opened by path for the steps that use it (`/proc/<runtime pid>/fd/<n>`),
//!   so a command that closes descriptors (`exec 10>&- 11>&-`) or redirects its own
//!   output for good (`exec >log`) breaks nothing. Between calls the shell holds no descriptor at all
//!   (see [`runner`]), so there is nothing of the runner's for a command to close, read or write to.
//!   The runtime puts each call's output pipes at two descriptor numbers fixed for the shell's life
//!   (its output slots), so the runner's paths are all fixed text.
//!   The runner's variables have names drawn per shell, so `declare -i`/`readonly` on a fixed name
//!   changes nothing; and a command can still list them (`compgen -v`), so each is unset (`unset -n`,
//!   which also takes a nameref itself) before the runner gives it a value again: an attribute a
//!   command gave one (`declare -l` would lowercase the next command's text, `-i` read its length
//!   as octal, `-n` make the prefix another variable's value, `-x` export the command's text) never
//!   reaches a later call. One made read-only cannot be unset: the runner ends (`<end>`).
//! - Bash reads a pipe a byte per `read(2)` (so as not to take input meant for the next command),
//!   except under `read -N`, which asks for all N at once. So everything the runner reads has a
//!   length known beforehand: the secret (16 hex digits), a fixed-width header (the command's
//!   length, with a tab before or after it for whether stdout is split off), then the command
//!   itself. That makes
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
//!   ending the runner. But `eval` keeps bash's loop count: a `break` or `continue` outside the
//!   command's own loops reaches the runner's, and the rest of the command does not run, where
//!   `bash -c` prints "only meaningful in a loop" and goes on. Either skips the statement that takes
//!   the status, so the report says which ([`ReportStatus`]) and the output says so. Known gap: a
//!   `break 2` or more ends the shell, which is replaced (the next call says so).
//! - An abort sends SIGINT to the shell after the command's processes are killed: the trap jumps back
//!   to the top of the loop (`continue 99` reaches the outermost loop, out of any loop of the
//!   command), so the shell keeps its state like an interactive shell after Ctrl-C.
//! - Whatever breaks the runner anyway (`enable -n printf echo`, `set -n`) leaves a shell that stops
//!   answering: the runtime notices that the secret was consumed with no report following, or that
//!   the shell stopped (`kill -STOP $$`), and replaces it. Functions named `eval`, `exec`, `read`
//!   or `echo` (a helper's, the user's) change nothing: the runner calls `builtin eval` and the
//!   like. One named `command` only keeps the runner from closing what an interrupted command left
//!   open. One named `builtin` turns every step of the runner into nothing, and the runner ends
//!   itself (`<end>`) at its first failed step.
//! - Known gaps, in DEBUG traps only: the runner's steps run with the call pipe as stdin, or with
//!   descriptor 0 closed. A DEBUG trap that reads stdin takes the call's record (the shell stops
//!   answering and is replaced), and one that opens a file for input onto a descriptor of its own
//!   (`exec 3<file`) while 0 is closed makes bash 5.2 crash (the shell is replaced). Commands
//!   themselves always run with `/dev/null` as stdin.
//!
//! Each statement of the loop costs the shell a few microseconds of interpretation per call, each
//! redirection a few more (bash saves a descriptor it redirects and restores it afterwards, seven
//! system calls, unless the descriptor was closed), each character of a name or an unquoted word
//! some hundreds of instructions, each `case` pattern tried a few thousand: the loop is kept to the
//! statements the points above need, its common path to one pattern per `case`, its names short,
//! its paths quoted, and its redirections land on closed descriptors.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The secret's length in characters (hex digits): fixed, so that the runner reads it in one `read`.
pub(crate) const SECRET_LEN: usize = 16;

/// The call header's length: the command's length as four digits and a tab, before them for a
/// call whose output is merged, after them for one that splits stdout off (either way a number to
/// bash, so that the runner reads the command with the header as its count), or `@@@@M` / `@@@@S`
/// for a command in the memfd. Nothing in it reaches a path.
pub(crate) const HEADER_LEN: usize = 5;

/// The length field's width: [`INLINE_MAX`] has four digits.
const LENGTH_LEN: usize = 4;

/// Commands up to this long (ASCII, no NUL) travel in the call record: the whole record then stays
/// within `PIPE_BUF`, so it is written in one piece, and the runner reads the command in one `read`.
pub(crate) const INLINE_MAX: usize = 4000;

/// What the runner's last words start with when it ends itself because what it calls no longer
/// works (see [`runner`]), followed by the command's status: bash prints them as
/// `<name>: line 1: BASH_VERSINFO[99]: <mark> <status>` on the report pipe.
const RUNNER_BROKEN: &str = "bashrt-runner-broken";

/// Paths the runner opens, all `/proc/<runtime pid>/fd/<n>`, fixed for the shell's life.
pub(crate) struct RunnerPaths<'a> {
    /// The call pipe: header, command and secret per call.
    pub call: &'a str,
    /// The command memfd.
    pub command: &'a str,
    /// The report pipe.
    pub report: &'a str,
    /// Where the runtime puts each call's output pipe (stdout and stderr, or stderr alone).
    pub output: &'a str,
    /// Where it puts the stdout pipe of a call that splits stdout off.
    pub stdout: &'a str,
}

/// The runner loop, one line. `tag` draws its variable names per shell (two characters of
/// `[a-z0-9]`: see [`runner_tag`]).
pub(crate) fn runner(tag: &str, paths: &RunnerPaths<'_>) -> Vec<u8> {
    let v = |name: &str| format!("_{tag}{name}");
    let (s, h, c, x) = (v("s"), v("h"), v("c"), v("x"));
    // Every path is single-quoted: bash expands a quoted word several times faster than a bare one
    // (no character of it can start an expansion or a pattern), and a redirection's target is
    // expanded on every use.
    let q = |path: &str| format!("'{path}'");
    let (call, command, report) = (q(paths.call), q(paths.command), q(paths.report));
    let (output, stdout) = (q(paths.output), q(paths.stdout));
    let mut out = String::with_capacity(2500);
    // The runner's own end, for when what it calls no longer works: `builtin` taken by a function of
    // the user's or disabled, `read` or `eval` disabled. It would otherwise loop without ever
    // waiting for a call. Nothing in it can be redefined or disabled: a word expansion error ends a
    // non-interactive bash, and `${BASH_VERSINFO[99]:?…}` always is one (the array is read-only and
    // has no such element). Its message, on the report pipe, carries the command's status; where
    // the pipe cannot be opened (no descriptor left), `exit` keeps the status, and the last
    // expansion ends a shell whose `exit` is gone too.
    let end = format!(
        "{{ {{ {x}=${{BASH_VERSINFO[99]:?{RUNNER_BROKEN} ${s}}}; }} 2>{report} || \\builtin exit \"${{{s}:-1}}\"; \
         {x}=${{BASH_VERSINFO[99]:?}}; }}"
    );
    // Set once: an abort's SIGINT brings the shell back to the top of the loop (`continue 99` reaches
    // the outermost loop, out of any loop of the command). An inherited `TMOUT` (hardened hosts
    // export one) would be the timeout of the runner's idle `read` and end the shell after that long
    // without a call: it is unset once, before the loop (one a command sets later only makes that
    // wait start again, below). The loops' conditions are `((0))`, the cheapest false command; the
    // status is taken after the command, and what a command's `break` or `continue` skips marks the
    // report (see the end of the loop).
    out.push_str(&format!(
        "\\builtin trap '{s}={INTERRUPT_MARK}; continue 99' INT; \\builtin unset -v TMOUT; {s}=; {x}=; "
    ));
    out.push_str("until ((0)); do until ((0)); do ");
    // Nothing of what a command declared on the runner's variables survives into the next call (see
    // the module docs): those that carry text into the next command (the prefix, the secret that
    // then holds the header, the command) are unset here at the top of the loop, where an abort's
    // `continue 99` and a command's `break` or `continue` come back too: `unset -n` takes a
    // nameref itself (and leaves other variables alone), `unset -v` the rest, and fails on a
    // read-only one. The status only ever holds a number, which no attribute changes.
    // The assignment after them is for a `builtin` taken by a function (which makes both `unset`s
    // and every `read` below do nothing): the header variable must then hold no header, not the
    // last call's, for the runner to end rather than run the last command again.
    // Checked first (a `[[ ]]` costs a third of the two `unset`s, and no command declares anything on
    // them in the common call): a nameref (`-R`), or any attribute (`@a`, empty for none).
    out.push_str(&format!(
        "[[ -R {x} || -R {h} || -R {c} || -n ${{{x}@a}}${{{h}@a}}${{{c}@a}} ]] && \
         {{ \\builtin unset -n {x} {h} {c}; \\builtin unset -v {x} {h} {c} || {end}; }}; {h}=; "
    ));
    // Between calls the shell holds no descriptor at all: the command ran with 0, 1 and 2 redirected
    // by the runner's `eval`, which closes them again afterwards, and every runner file is opened
    // for the steps that use it and closed after them. So no redirection of the runner has anything to save and
    // restore (bash saves a descriptor with four `fcntl`s and restores it with three more), a command
    // finds no copy of the runner's files to close or write to, and what the runner's own steps
    // would print (traces, DEBUG-trap output, errors) goes nowhere.
    //
    // One `case` on the last status and the shell's options decides what the top of the loop does.
    // After a command that succeeded in a shell with the options it started with (`0hBs`), nothing:
    // one pattern. Otherwise:
    // - 0, 1 and 2 are closed for good (`command exec`, not `builtin exec`, whose redirections are
    //   undone; never `exec`, which a function of the user's may stand for), in case an interrupted
    //   command (an abort, which comes back here through the trap) left them open. Bash 5.2 undoes
    //   the `eval`'s redirections on the way back, so this is only a safety net, and the runner does
    //   not depend on it: a `command` or `exec` disabled or redefined by the user only takes it away;
    // - tracing (`set -x`), `set -a` (allexport) and `set -u` are turned off while the runner runs,
    //   and come back as a prefix of the command. Traced, the runner's steps would show in a
    //   `BASH_XTRACEFD` of the user's; under `set -a` every variable it assigns would be exported to
    //   the command's programs, the command's own text among them, which past 128 KiB makes every
    //   program fail to start ("Argument list too long"), so its variables lose the attribute the
    //   last call gave them; under `set -u`, `$!` before any background job ends the shell. The prefix
    //   starts with an assignment that empties it (it is emptied where it is used, and only when set)
    //   and ends with `set -x`, so that nothing else of it is traced;
    // - `eval` must still work (`enable -n eval` makes every later command fail with 1, in the same
    //   shell for good): when it does not, the runner ends.
    let close = "\\command exec 0<&- 1>&- 2>&-;";
    out.push_str(&format!(
        "case ${s}$- in 0hBs) ;; \
         *[axu]*) case $- in *x*) \\builtin set +x; {x}='set -x;';; *) {x}=;; esac; \
         case $- in *a*) \\builtin set +a; \\builtin export -n {s} {h} {c} {x}; {x}=\"set -a;${x}\";; esac; \
         case $- in *u*) \\builtin set +u; {x}=\"set -u;${x}\";; esac; \
         {x}=\"{x}=;${x}\"; {close} \\builtin eval '' || {end};; \
         *) {close} \\builtin eval '' || {end};; esac; "
    ));
    // The call pipe is opened once per call, for a group of the steps that read it (`{ …; }
    // <call pipe`: one open, and the descriptor closed again when the group ends, before the command
    // runs). First the last call's report (`$!` cannot change between the command and here): the
    // secret, the status, `$!`, `$PWD` and the secret again, which ends the record (a `$PWD` may hold
    // newlines). `echo -E` costs the shell less than `printf` (`-E`: no backslash of a `$PWD` is taken
    // for an escape, under `xpg_echo` too); `printf` stands in where `echo` was disabled (`enable -n
    // echo`).
    out.push_str(&format!(
        "{{ \\builtin read -N {n} {h}; \
         \\builtin echo -E \"${h} ${s} $! $PWD ${h}\" >{report} \
         || \\builtin printf '%s %s %s %s %s\\n' \"${h}\" \"${s}\" \"$!\" \"$PWD\" \"${h}\" >{report}; ",
        n = SECRET_LEN,
    ));
    // The wait for the next call is the only `read` that waits: under a `TMOUT` a command set (a
    // hardened profile's `readonly TMOUT=900`) it times out (a status above 128, nothing read) and
    // waits again; at the end of the input the runner ends. The header goes where the secret was
    // (spent once reported). A `read` that did not happen (a function named `builtin`) leaves the
    // variable empty, which is no header. Neither the secret nor the
    // header holds a backslash: no `-r` (one word less to expand). One name per `read` (a second
    // costs about 2,800 instructions).
    let read_header = format!("\\builtin read -N {HEADER_LEN} {h}");
    out.push_str(&format!(
        "{read_header} || until {read_header}; do case $? in 1[3-9][0-9]|2[0-5][0-9]) ;; *) {end};; esac; done; "
    ));
    // Then the command: inline, or from the memfd when it is not ASCII or long (ended by a NUL, so
    // that the `read` succeeds). An inline call's header is itself the `read`'s count (bash takes a
    // number with a tab before or after it), so the common call costs no pattern and no substring;
    // a memfd's header (`@@@@M`, `@@@@S`) is no number, and the `read` fails without reading.
    // Nothing of the header reaches a path (a command can write into the call pipe too): a header of
    // another form ends the shell. Every expansion is quoted: `IFS` may hold digits.
    out.push_str(&format!(
        "\\builtin read -r -N \"${h}\" {c} || case ${h} in \
         @@@@M|@@@@S) IFS= \\builtin read -r -d '' {c} <{command} || {end};; *) {end};; esac; }} <{call}; "
    ));
    // The status is marked [`CONTINUE_MARK`] until the command's own replaces it: a command whose
    // `continue` reaches the runner's loop skips the statement that sets the status, so its report
    // carries the mark. (Set here, not before: a runner that ends before the command ran says the
    // last command's status.)
    // The command runs with its output on the output slot, or its stdout on the stdout slot when
    // the call splits stdout off (an extracted `| head` limits the producer's stdout alone); the
    // common call (merged: a tab first) is the first pattern. What is no header at all (the status
    // that a `read` which did not happen left, under a function named `builtin`) ends the shell.
    // The redirections are `eval`'s own, not a group's around it (bash applies and undoes those a
    // few microseconds faster): a DEBUG trap runs before each simple command, and would run for the
    // `eval` with the command's output as its own.
    out.push_str(&format!(
        "case ${h} in \"\t\"*|@@@@M) {s}={CONTINUE_MARK}; \\builtin eval \"${x}${c}\" <'/dev/null' >{output} 2>&1;; \
         *\"\t\"|@@@@S) {s}={CONTINUE_MARK}; \\builtin eval \"${x}${c}\" <'/dev/null' >{stdout} 2>{output};; *) {end};; esac; "
    ));
    // The command's status, after `esac` (which gives the last command's). `eval` keeps bash's count
    // of enclosing loops: a `break` past the command's own loops ends the inner loop, and the
    // statement after it marks the next report with [`BREAK_MARK`]; a `continue` so placed goes
    // back to the inner loop's condition and skips this one, so the status stays the mark. (So
    // does an abort's `continue 99`; an aborted call's status is not the report's.) A `break 2` or
    // more ends the shell.
    // A status variable the command made read-only would end the shell at this assignment, with
    // status 1 for a command that may have succeeded: the runner ends first, with the command's
    // status (`$?` is still that inside the `case`, and goes where no attribute reaches: the
    // positional parameters; `$?` itself reads 1 inside the `:?` of `<end>`).
    let end_keeping_status = format!("\\builtin set -- $?; {}", end.replace(&format!("${s}"), "$1"));
    out.push_str(&format!(
        "case ${{{s}@a}} in *r*) {end_keeping_status};; *) {s}=$?;; esac; done; {s}={BREAK_MARK}; done\n"
    ));
    out.into_bytes()
}

/// The runner's tag, from a random `nonce`: two characters of `[a-z0-9]`. Short, because bash pays
/// for each character of a name at every use (a longer tag cost the loop about 1,700 instructions
/// per character per call); drawn per shell, so that no fixed name a user's rc or command gives
/// attributes to (`readonly`, `declare -i`) is ever the runner's.
pub(crate) fn runner_tag(nonce: u64) -> String {
    const DIGITS: &[u8; 36] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let pick = |n: u64| char::from(DIGITS[(n % 36) as usize]);
    [pick(nonce), pick(nonce / 36)].iter().collect()
}

/// What the runtime writes into the call pipe for one call: the header ([`HEADER_LEN`] characters:
/// the command's length as four digits after a tab, or before one when the call splits stdout off;
/// `@@@@M` or `@@@@S` for "read the memfd"), the command when `inline`, then the secret the report
/// must carry ([`SECRET_LEN`] characters), which the runner reads only once the command is over.
pub(crate) fn call_record(out: &mut Vec<u8>, split_stdout: bool, inline: Option<&[u8]>, secret: &str) {
    use std::io::Write;
    out.clear();
    // Writing into a Vec cannot fail.
    let _ = match (inline, split_stdout) {
        (Some(text), false) => write!(out, "\t{:0width$}", text.len(), width = LENGTH_LEN),
        (Some(text), true) => write!(out, "{:0width$}\t", text.len(), width = LENGTH_LEN),
        (None, false) => write!(out, "@@@@M"),
        (None, true) => write!(out, "@@@@S"),
    };
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

/// How the command ended, as its report says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReportStatus {
    /// It ran to its end, with this exit status.
    Exited(i32),
    /// A `break` or `continue` of it reached the runner's loop: the rest did not run.
    LeftLoops(LoopExit),
    /// The shell got a SIGINT while it ran (the runner's trap took it back to the loop). Not sent by
    /// the runtime (an abort or a timeout is not read as a report): the command sent it to its own
    /// shell (`kill -INT $$`, `kill -INT 0`), which `bash -c` dies of.
    Interrupted,
}

/// The statement that left the command's loops for the runner's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoopExit {
    /// Left the runner's inner loop.
    Break,
    /// Went back to the runner's inner loop.
    Continue,
}

impl LoopExit {
    /// The statement's name, as bash's messages give it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            LoopExit::Break => "break",
            LoopExit::Continue => "continue",
        }
    }
}

/// The status field of a report whose command's `break` left the runner's inner loop. Negative, so
/// that no exit status can be taken for it.
const BREAK_MARK: i32 = -2;

/// The status field of a report whose command's `continue` went back to the runner's inner loop:
/// the status the runner sets before the command runs.
const CONTINUE_MARK: i32 = -3;

/// The status field of a report whose shell got a SIGINT during the command: set by the runner's
/// trap.
const INTERRUPT_MARK: i32 = -4;

/// What one call's report says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Report {
    pub status: ReportStatus,
    /// `$!` (empty before the first background job).
    pub last_job: Vec<u8>,
    /// `$PWD` (empty when unset).
    pub pwd: Vec<u8>,
}

/// The report carrying `secret` among the bytes read from the report pipe, or `None` while there is
/// none. A record is `<secret> <status> <$!> <$PWD> <secret>` and a newline (the status is the
/// call's header after a `continue` out of the command, see [`ReportStatus`]; `echo -E` under `set -o posix` and
/// `xpg_echo` prints `-E ` first). Anything else (forged records, partial ones, junk) is skipped:
/// only the runner knows the secret, so the record is found wherever it starts, and ends where the
/// secret comes again.
pub(crate) fn find_report(buf: &[u8], secret: &str) -> Option<Report> {
    let mut needle = Vec::with_capacity(secret.len() + 2);
    needle.extend_from_slice(secret.as_bytes());
    needle.push(b' ');
    let start = memchr::memmem::find(buf, &needle)? + needle.len();
    needle.clear();
    needle.push(b' ');
    needle.extend_from_slice(secret.as_bytes());
    needle.push(b'\n');
    let len = memchr::memmem::find(&buf[start..], &needle)?;
    let mut fields = buf[start..start + len].splitn(3, |&b| b == b' ');
    let status = match fields.next()? {
        header if header.len() == HEADER_LEN && (header.contains(&b'\t') || header.starts_with(b"@@@@")) => {
            ReportStatus::LeftLoops(LoopExit::Continue)
        }
        text => match std::str::from_utf8(text).ok()?.parse().ok()? {
            BREAK_MARK => ReportStatus::LeftLoops(LoopExit::Break),
            CONTINUE_MARK => ReportStatus::LeftLoops(LoopExit::Continue),
            INTERRUPT_MARK => ReportStatus::Interrupted,
            code => ReportStatus::Exited(code),
        },
    };
    let last_job = fields.next().unwrap_or_default().to_vec();
    let pwd = fields.next().unwrap_or_default().to_vec();
    Some(Report { status, last_job, pwd })
}

/// The runner's last words among the bytes read from the report pipe, when it ended itself because
/// what it calls no longer works (see [`runner`]): the status of the command that broke it, `None`
/// inside when there was none to give (a `continue` out of the command). `None` when the shell
/// ended otherwise.
pub(crate) fn runner_broken(buf: &[u8]) -> Option<Option<i32>> {
    let mut needle = Vec::with_capacity(RUNNER_BROKEN.len() + 1);
    needle.extend_from_slice(RUNNER_BROKEN.as_bytes());
    needle.push(b' ');
    let start = memchr::memmem::rfind(buf, &needle)? + needle.len();
    let rest = &buf[start..];
    let status = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
    Some(
        std::str::from_utf8(status)
            .ok()
            .and_then(|text| text.parse().ok())
            .filter(|&code| code != CONTINUE_MARK && code != INTERRUPT_MARK),
    )
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
        RunnerPaths {
            call: "/proc/9/fd/3",
            command: "/proc/9/fd/4",
            report: "/proc/9/fd/5",
            output: "/proc/9/fd/6",
            stdout: "/proc/9/fd/7",
        }
    }

    #[test]
    fn the_runner_is_one_line_and_names_its_files() {
        let text = String::from_utf8(runner("a1", &paths())).unwrap();
        assert_eq!(text.matches('\n').count(), 1, "{text}");
        assert!(text.ends_with("*) _a1s=$?;; esac; done; _a1s=-2; done\n"), "{text}");
        assert!(
            text.contains(
                "do until ((0)); do [[ -R _a1x || -R _a1h || -R _a1c || -n ${_a1x@a}${_a1h@a}${_a1c@a} ]] && \
                 { \\builtin unset -n _a1x _a1h _a1c; \\builtin unset -v _a1x _a1h _a1c ||"
            ),
            "{text}"
        );
        assert!(text.contains("_a1x=${BASH_VERSINFO[99]:?}; }; }; _a1h=; case $_a1s$- in 0hBs)"), "{text}");
        assert!(text.contains("case $_a1h in \"\t\"*|@@@@M) _a1s=-3; \\builtin eval"), "{text}");
        for path in [
            "{ \\builtin read -N 16 _a1h;",
            "\\builtin read -N 5 _a1h ||",
            "\\builtin read -r -N \"$_a1h\" _a1c || case $_a1h in @@@@M|@@@@S)",
            "esac; } <'/proc/9/fd/3';",
            "\" >'/proc/9/fd/5' ||",
            "<'/proc/9/fd/4' ||",
            "\\command exec 0<&- 1>&- 2>&-;",
        ] {
            assert!(text.contains(path), "{path} in {text}");
        }
        for eval in [
            "\\builtin eval \"$_a1x$_a1c\" <'/dev/null' >'/proc/9/fd/6' 2>&1;;",
            "\\builtin eval \"$_a1x$_a1c\" <'/dev/null' >'/proc/9/fd/7' 2>'/proc/9/fd/6';;",
        ] {
            assert!(text.contains(eval), "{eval} in {text}");
        }
    }

    #[test]
    fn runner_tags_are_two_name_characters() {
        for nonce in [0, 1, 35, 36, u64::MAX, 0x1234_5678_9abc_def0] {
            let tag = runner_tag(nonce);
            assert_eq!(tag.len(), 2, "{tag}");
            assert!(tag.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()), "{tag}");
        }
        assert_ne!(runner_tag(0), runner_tag(1));
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
        call_record(&mut out, false, inline(b"true"), "s3cr3t");
        assert_eq!(out, b"\t0004trues3cr3t");
        call_record(&mut out, true, inline(b"true"), "s3cr3t");
        assert_eq!(out, b"0004\ttrues3cr3t");
        call_record(&mut out, false, inline(&[b'x'; INLINE_MAX + 1]), "s3cr3t");
        assert_eq!(out, b"@@@@Ms3cr3t");
        call_record(&mut out, true, inline("echo é".as_bytes()), "s3cr3t");
        assert_eq!(out, b"@@@@Ss3cr3t");
        call_record(&mut out, true, inline(&[b'x'; INLINE_MAX]), "k");
        assert_eq!(&out[..HEADER_LEN], b"4000\t");
        assert_eq!(inline(b"a\0b"), None);
        assert_eq!(inline("echo é".as_bytes()), None, "read -N counts characters");
        assert_eq!(inline(b""), None);
    }

    #[test]
    fn the_runners_last_words_give_the_commands_status() {
        assert_eq!(
            runner_broken(b"k1 0  / k1\nbash: line 1: BASH_VERSINFO[99]: bashrt-runner-broken 3\n"),
            Some(Some(3))
        );
        assert_eq!(runner_broken(b"bash: line 1: BASH_VERSINFO[99]: bashrt-runner-broken \n"), Some(None));
        assert_eq!(runner_broken(b"k1 0  / k1\n"), None);
    }

    #[test]
    fn only_the_report_with_the_secret_counts() {
        let report = |status, job: &str, pwd: &str| {
            Some(Report { status, last_job: job.as_bytes().to_vec(), pwd: pwd.as_bytes().to_vec() })
        };
        let buf = b"forged 0 1 /tmp forged\njunk without an end\nk1 3 41 /tmp/new dir k1\n";
        assert_eq!(find_report(buf, "k1"), report(ReportStatus::Exited(3), "41", "/tmp/new dir"));
        assert_eq!(find_report(buf, "k2"), None);
        assert_eq!(find_report(b"k1 0 ", "k1"), None, "incomplete");
        assert_eq!(find_report(b"k1 0  /a\nb k1", "k1"), None, "incomplete");
        assert_eq!(find_report(b"k1 5  / k1\n", "k1"), report(ReportStatus::Exited(5), "", "/"));
        assert_eq!(find_report(b"k1 x 1 / k1\n", "k1"), None, "a status that is not a number");
        // A newline in `$PWD`, `echo -E` under `set -o posix` and `xpg_echo`, no `$PWD`.
        assert_eq!(find_report(b"k1 0 7 /a\nb k1\n", "k1"), report(ReportStatus::Exited(0), "7", "/a\nb"));
        assert_eq!(find_report(b"-E k1 0  /x k1\n", "k1"), report(ReportStatus::Exited(0), "", "/x"));
        assert_eq!(find_report(b"k1 0   k1\n", "k1"), report(ReportStatus::Exited(0), "", ""));
        // The marks of a `break` and a `continue` that left the command's loops.
        assert_eq!(find_report(b"k1 -2  / k1\n", "k1"), report(ReportStatus::LeftLoops(LoopExit::Break), "", "/"));
        for header in ["\t0012", "0012\t", "@@@@M", "@@@@S"] {
            assert_eq!(
                find_report(format!("k1 {header} 9 / k1\n").as_bytes(), "k1"),
                report(ReportStatus::LeftLoops(LoopExit::Continue), "9", "/")
            );
        }
        assert_eq!(find_report(b"k1  9 / k1\n", "k1"), None, "no status at all");
    }
}
