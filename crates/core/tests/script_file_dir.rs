//! Where a script too large for one argument is written: in a fresh 0700 directory under the user's
//! runtime directory (`$XDG_RUNTIME_DIR`) when there is one, never straight in the shared temp dir.
//! Its own test binary, because it sets the process's environment.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use bashrt_core::Outcome;
use support::run;

#[test]
fn a_large_script_goes_to_a_private_directory_under_the_users_runtime_dir() {
    let runtime = tempfile::tempdir().unwrap();
    std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    std::env::set_var("XDG_RUNTIME_DIR", runtime.path());
    let filler = format!("# {}\n", "x".repeat(200 * 1024));
    let script = format!("{filler}echo \"$0\"; stat -c %a \"$(dirname \"$0\")\"\n");
    let (execution, output) = run(&script);
    assert_eq!(execution.outcome, Outcome::Exited { code: 0 }, "{output}");
    let lines: Vec<&str> = output.lines().collect();
    let file = Path::new(lines[0]);
    assert_eq!(file.parent().and_then(Path::parent), Some(runtime.path()), "{output}");
    assert_eq!(lines[1], "700");
    assert!(!file.exists(), "{} kept", file.display());
}
