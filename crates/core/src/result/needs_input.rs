//! A command that wanted input and met the end of `/dev/null`: the signs its last lines show, so that
//! the model learns why it failed and how to run it without a prompt, instead of retrying it as is.
//!
//! Promises: only a failed command is looked at (a log that merely holds these words, printed by a
//! command that succeeded, says nothing), and only its last lines.

use std::sync::OnceLock;

use regex::Regex;

use crate::lines::last_lines;

/// How many of the last lines are looked at: a refused read ends the program, so its message is last
/// but for a summary or a usage hint.
const LAST_LINES: u64 = 6;

/// The notice of a command that wanted input (its stdin was `/dev/null`).
pub(crate) const NOTICE: &str = "[The command wanted input, but its stdin is /dev/null: rerun it with a \
non-interactive flag (--yes, -y, --no-input, …) or with the answer piped in (printf 'y\\n' | cmd); a \
password is the user's to give]";

/// The same, where the call could have given it input (a front with jobs: RPC, MCP).
pub(crate) const NOTICE_JOBS: &str = "[The command wanted input, but its stdin is /dev/null: rerun it with \
`stdin: \"pty\"` (a terminal; the call returns when it asks, and the job tool's write answers) or \
`stdin: \"pipe\"`, or with a non-interactive flag (--yes, -y, --no-input, …); a password is the user's to give]";

/// What programs print when a read of their stdin or their terminal found none.
fn refused_read() -> &'static Option<Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            // Python's input(); Ruby's gets on a closed stdin; Go's and C's open of the terminal.
            r"EOFError: EOF when reading a line|end of file reached \(EOFError\)",
            r"|/dev/tty: [Nn]o such device or address",
            // sudo, ssh, docker, gpg, stty, git with prompts off, Node's prompt libraries.
            r"|a terminal is required|no tty present|the input device is not a TTY",
            r"|(?:stdin|[Ii]nput) is not a (?:terminal|tty|TTY)",
            r"|terminal prompts disabled|can not be meaningfully rendered in non-TTY environments",
            // A prompt answered by the end of input: apt's `[Y/n] Abort.`
            r"|\[[Yy]/[Nn]\] Abort\.$",
        ))
        .ok()
    })
}

/// A question left unanswered as the output's last line, with no newline after it: `Proceed? [y/N] `,
/// `Password: `.
fn prompt_left() -> &'static Option<Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?:\[[Yy]/[Nn]\]|\([Yy]/[Nn]\)|\[yes/no\]|\(yes/no[^)]*\)\??|[Pp]ass(?:word|phrase)[^:]{0,40}:)\s*$",
        )
        .ok()
    })
}

/// Whether `command` may give itself its input: a redirection from a file, a here-document or
/// here-string (`<`, `<<`, `<<<`), or a pipe (`a | b`; `||` and a process substitution `<(…)` are
/// not). Read on the text alone, quotes included: when in doubt, it says yes, and no notice is given.
pub(crate) fn gives_itself_input(command: &str) -> bool {
    let text = command.replace("||", "").replace("<(", "");
    text.contains(['<', '|'])
}

/// Whether the last lines of `tail`, the end of a failed command's output, say it wanted input.
pub(crate) fn wanted_input(tail: &[u8]) -> bool {
    let last = String::from_utf8_lossy(last_lines(tail, LAST_LINES));
    let refused = refused_read().as_ref().is_some_and(|re| last.lines().any(|line| re.is_match(line)));
    let prompt = || {
        let line = last.rsplit('\n').next().unwrap_or("");
        prompt_left().as_ref().is_some_and(|re| re.is_match(line))
    };
    refused || prompt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signs_of_a_refused_read_are_seen_in_the_last_lines() {
        for tail in [
            "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nEOFError: EOF when reading a line\n",
            "cat: /dev/tty: No such device or address\n",
            "sudo: a terminal is required to read the password; either use the -S option to read from standard input or configure an askpass helper\n",
            "the input device is not a TTY\n",
            "fatal: could not read Username for 'https://example.com': terminal prompts disabled\n",
            "Do you want to continue? [Y/n] Abort.\n",
            "Overwrite config.yml? [y/N] ",
            "Enter passphrase for key '/home/u/.ssh/id_ed25519': ",
        ] {
            assert!(wanted_input(tail.as_bytes()), "{tail}");
        }
    }

    #[test]
    fn a_command_that_feeds_itself_is_told_apart() {
        for command in ["python3 a.py < answers.txt", "yes | ./install.sh", "cat <<EOF | sh\nx\nEOF", "read x <<< y"] {
            assert!(gives_itself_input(command), "{command}");
        }
        for command in ["python3 a.py || exit 1", "diff <(sort a) <(sort b)", "./install.sh"] {
            assert!(!gives_itself_input(command), "{command}");
        }
    }

    #[test]
    fn other_endings_are_not() {
        for tail in [
            "error: could not compile `demo`\n",
            "EOFError: EOF when reading a line\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\n",
            "password: changed\nall done\n",
            "Password:\n",
            "blockdev: ioctl error on BLKGETSIZE64: Inappropriate ioctl for device\n",
            "",
        ] {
            assert!(!wanted_input(tail.as_bytes()), "{tail}");
        }
    }
}
