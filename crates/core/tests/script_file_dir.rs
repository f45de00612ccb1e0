//! Where a script too large for one argument is written: in a fresh 0700 directory under the user's
//! runtime directory (`$XDG_RUNTIME_DIR`) when there is one, never straight in the shared temp dir.
//! The runtime directory comes from the process's environment, which the other tests of this binary
//! share: the test runs itself again, alone, in a child process whose environment names a runtime
//! directory of its own.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use bashrt_core::Outcome;

use crate::support::{run, test_name};

/// Set in the child that the test starts; the test's runtime directory is then `$XDG_RUNTIME_DIR`.
const CHILD: &str = "BASHRT_TEST_SCRIPT_FILE_DIR_CHILD";

#[test]
fn a_large_script_goes_to_a_private_directory_under_the_users_runtime_dir() {
    const NAME: &str = "a_large_script_goes_to_a_private_directory_under_the_users_runtime_dir";
    if std::env::var_os(CHILD).is_none() {
        let runtime = tempfile::tempdir().unwrap();
        std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let name = test_name(module_path!(), NAME);
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &name, "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .env("XDG_RUNTIME_DIR", runtime.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let report = format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{report}");
        // The child ran this very test (a name that matches nothing passes too, with 0 tests).
        assert!(stdout.contains(&format!("test {name} ... ok")), "{report}");
        assert!(stdout.contains("test result: ok. 1 passed"), "{report}");
        return;
    }
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").expect("the parent sets XDG_RUNTIME_DIR");
    let runtime = Path::new(&runtime);
    let filler = format!("# {}\n", "x".repeat(200 * 1024));
    let script = format!("{filler}echo \"$0\"; stat -c %a \"$(dirname \"$0\")\"\n");
    let (execution, output) = run(&script);
    assert_eq!(execution.outcome, Outcome::Exited { code: 0 }, "{output}");
    let lines: Vec<&str> = output.lines().collect();
    let file = Path::new(lines[0]);
    assert_eq!(file.parent().and_then(Path::parent), Some(runtime), "{output}");
    assert_eq!(lines[1], "700");
    assert!(!file.exists(), "{} kept", file.display());
}
