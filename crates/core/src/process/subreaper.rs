//! Shells as child subreapers (`PR_SET_CHILD_SUBREAPER`): a process the command orphans — the child of
//! `setsid -f`, a double-forked daemon, each generation of a process that forks and exits over and
//! over — is re-parented to the shell instead of to init, so it stays in the shell's tree by parent
//! links, where the tree kill finds it. Bash reaps such adopted children like its own (and ignores
//! their status), so no zombie is left.
//!
//! The attribute survives `execve` but is not inherited by forks: it is set in the child between
//! fork and exec, so the runtime itself never becomes a subreaper (it would have to reap every orphan
//! of every command).
//!
//! For long-lived shells (the pool's). The one-shot executor does not use it: `bash -c` execs the
//! last command of its text, and that program would inherit the attribute without reaping what it
//! adopts; a one-shot call finds its orphans by its marker instead ([`super::tree::CallMarker`]).

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Makes the program `command` starts a child subreaper. Spawning then forks the runtime rather than
/// using `posix_spawn` (the attribute can only be set by the process itself). Where the kernel
/// refuses (before Linux 3.4), the program still starts; its orphans just go to init as before.
pub(crate) fn on_exec(command: &mut Command) {
    // SAFETY: the closure runs between fork and exec and only calls `prctl`, which is
    // async-signal-safe, allocates nothing and takes no lock.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spawned_program_is_a_subreaper_and_its_orphans_stay_its_children() {
        // The orphan prints its parent once its own parent (the subshell) is gone, and the shell
        // waits for that line before it exits: the parent printed is the shell that adopted it.
        let script = r#"d=$(mktemp -d) && mkfifo "$d/go" "$d/done" || exit 1
( sh -c 'read x < "$1/go"; cut -d" " -f4 /proc/$$/stat; echo > "$1/done"' sh "$d" & )
echo $$; echo > "$d/go"; read x < "$d/done"; rm -r "$d""#;
        let mut command = Command::new("bash");
        command.args(["-c", script]);
        on_exec(&mut command);
        let Ok(out) = command.output() else {
            println!("skipped: bash cannot be started");
            return;
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert_eq!(lines[0], lines[1], "the orphan's parent is the shell");
    }
}
