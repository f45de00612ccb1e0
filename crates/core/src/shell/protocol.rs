//! The text protocol between the runtime and a long-lived bash: what the shell is told per call, and
//! how the end of a call is recognised. Pure functions; [`super::persistent`] moves the bytes.
//!
//! Per call the runtime rewrites two in-memory files that the shell reads by path: the command (the
//! caller's text, unchanged) and the runner (ours). The only bytes on the shell's stdin are one short
//! control line, `\. /proc/<pid>/fd/<runner>`, because bash reads a pipe one byte per `read()` so as not
//! to consume input meant for the commands it runs (docs/design.md, "Delivering a command"): text sourced from a file costs
//! the same whatever its length. The runner, run at the shell's top level:
//!
//! ```text
//! if \builtin cd -- '<cwd>'; then                         # only when the call sets the cwd
//! { __bashrt_ran=<id>; \. <command>; } </dev/null ><output> 2>&1
//! \builtin printf '\036bashrt-%s:%s:%s:%s:%s\0' <id> "$?" "${!-}" "${__bashrt_ran-}" "${PWD-}"
//! else \builtin printf '\036bashrt-%s:cwd\0' <id>; fi
//! ```
//!
//! - The command is *sourced*, from a brace group: it runs at top level (`declare` makes globals,
//!   `local` fails, `$1` is the shell's), `return` ends just the command, and a syntax error ends the
//!   command with bash's own message and status 2 while the shell lives on.
//! - Its stdin is /dev/null; its stdout and stderr go to a pipe made for this call alone, which the
//!   shell opens by path; the redirections are undone after the group, whatever `exec` did inside.
//! - `\builtin` and `\.` dodge aliases and functions named `cd` or `printf`; `${…-}` survives `set -u`.
//! - The report goes to the shell's own stdout (the control socket): an exact id that no earlier call
//!   or stray output can produce (its first byte is written only by `printf`), the status, `$!` (to
//!   notice new background jobs cheaply), proof that the redirections worked (they fail e.g. when a
//!   command lowered the open-file limit; bash then skips the group with status 1, which would look
//!   like `false`), and `$PWD` last, NUL-terminated: a path may hold newlines, never a NUL.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use memchr::memmem;

use crate::exec::quote_into;

/// The report's first byte: the ASCII record separator, not something commands print by accident.
const MARK: u8 = 0x1e;
const TAG: &[u8] = b"bashrt-";

/// What one call's report says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Report {
    /// The runner went through. `started` is false when the command's redirections failed, so that
    /// it never ran; `last_job` is `$!` (empty before the first background job).
    Ended { status: i32, started: bool, last_job: Vec<u8>, pwd: Vec<u8> },
    /// `cd` to the call's directory failed; the command did not run.
    CwdFailed,
}

/// The control line that makes the shell source `runner`.
pub(crate) fn control_line(runner: &str) -> Vec<u8> {
    format!("\\. {runner}\n").into_bytes()
}

/// Writes the runner of call `id` into `out` (cleared first). `cd` is the directory to run in, when
/// the call sets one; `command` and `output` are paths the shell opens.
pub(crate) fn runner(out: &mut Vec<u8>, id: &str, cd: Option<&Path>, command: &str, output: &str) {
    out.clear();
    if let Some(dir) = cd {
        out.extend_from_slice(b"if \\builtin cd -- ");
        quote_into(out, dir.as_os_str().as_bytes());
        out.extend_from_slice(b"; then ");
    }
    for part in ["{ __bashrt_ran=", id, "; \\. ", command, "; } </dev/null >", output, " 2>&1\n"] {
        out.extend_from_slice(part.as_bytes());
    }
    for part in
        ["\\builtin printf '\\036bashrt-%s:%s:%s:%s:%s\\0' ", id, r#" "$?" "${!-}" "${__bashrt_ran-}" "${PWD-}""#]
    {
        out.extend_from_slice(part.as_bytes());
    }
    if cd.is_some() {
        for part in ["\nelse \\builtin printf '\\036bashrt-%s:cwd\\0' ", id, "; fi"] {
            out.extend_from_slice(part.as_bytes());
        }
    }
    out.push(b'\n');
}

/// The report of call `id` in what the control socket delivered so far, or `None` while it is not
/// complete. Anything around it (an EXIT trap's output, bash's own error messages, `set -x` traces of
/// the runner) is ignored.
pub(crate) fn find_report(buf: &[u8], id: &str) -> Option<Report> {
    let mut needle = Vec::with_capacity(1 + TAG.len() + id.len() + 1);
    needle.push(MARK);
    needle.extend_from_slice(TAG);
    needle.extend_from_slice(id.as_bytes());
    needle.push(b':');
    let start = memmem::find(buf, &needle)? + needle.len();
    let len = memchr::memchr(0, &buf[start..])?;
    let body = &buf[start..start + len];
    if body == b"cwd" {
        return Some(Report::CwdFailed);
    }
    let mut fields = body.splitn(4, |&b| b == b':');
    let status = std::str::from_utf8(fields.next()?).ok()?.parse().ok()?;
    let last_job = fields.next()?.to_vec();
    let started = fields.next()? == id.as_bytes();
    let pwd = fields.next()?.to_vec();
    Some(Report::Ended { status, started, last_job, pwd })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_control_line_is_one_short_line() {
        let line = control_line("/proc/4194304/fd/1023");
        assert_eq!(line, b"\\. /proc/4194304/fd/1023\n");
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
    }

    #[test]
    fn runner_without_cd_sources_the_command_and_reports() {
        let mut out = Vec::new();
        runner(&mut out, "a.1", None, "/proc/9/fd/4", "/proc/9/fd/7");
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "{ __bashrt_ran=a.1; \\. /proc/9/fd/4; } </dev/null >/proc/9/fd/7 2>&1\n\
             \\builtin printf '\\036bashrt-%s:%s:%s:%s:%s\\0' a.1 \"$?\" \"${!-}\" \"${__bashrt_ran-}\" \"${PWD-}\"\n"
        );
    }

    #[test]
    fn runner_quotes_the_directory() {
        let mut out = Vec::new();
        runner(&mut out, "a.1", Some(Path::new("/tmp/it's\nhere")), "/c", "/o");
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("if \\builtin cd -- '/tmp/it'\\''s\nhere'; then {"), "{text}");
        assert!(text.ends_with("else \\builtin printf '\\036bashrt-%s:cwd\\0' a.1; fi\n"), "{text}");
    }

    #[test]
    fn report_is_found_among_garbage_and_only_for_its_id() {
        let buf = b"bye\n\x1ebashrt-a.1:0:::/x\0\x1ebashrt-a.2:3:41:a.2:/tmp/new\nline:x\0junk";
        assert_eq!(
            find_report(buf, "a.2"),
            Some(Report::Ended {
                status: 3,
                started: true,
                last_job: b"41".to_vec(),
                pwd: b"/tmp/new\nline:x".to_vec()
            })
        );
        assert_eq!(
            find_report(buf, "a.1"),
            Some(Report::Ended { status: 0, started: false, last_job: vec![], pwd: b"/x".to_vec() })
        );
        assert_eq!(find_report(buf, "a.3"), None);
    }

    #[test]
    fn incomplete_report_is_not_found() {
        assert_eq!(find_report(b"\x1ebashrt-a.1:0:1:a.1:/tm", "a.1"), None);
        assert_eq!(find_report(b"\x1ebashrt-a.1:cwd\0", "a.1"), Some(Report::CwdFailed));
        // An id that is a prefix of another must not match it.
        assert_eq!(find_report(b"\x1ebashrt-a.10:0::a.10:/\0", "a.1"), None);
    }
}
