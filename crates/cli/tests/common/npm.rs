//! Programs from the npm registry that the tests drive (real clients nobody here wrote), with the
//! Node they need (newer than many machines have, from the registry's `node-linux-<arch>`
//! package), installed pinned once per machine under `target/tmp/npm-tools/` and reused after.
//! Needs `npm` (any version: it only downloads) and the network on the first run; `.ci/run`
//! installs npm.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The Node every npm-installed client runs on.
pub const NODE: &str = "22.23.3";

/// Runs `install` once per machine (a stamp file names what was installed), under a lock so that two
/// test processes never install into the same place at once; returns the directory.
pub fn installed(root: &Path, name: &str, what: &str, install: impl FnOnce(&Path)) -> PathBuf {
    std::fs::create_dir_all(root).unwrap();
    let lock = File::create(root.join(format!("{name}.lock"))).unwrap();
    // SAFETY: flock on a descriptor we own; released when `lock` is dropped.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    let dir = root.join(name);
    let stamp = root.join(format!("{name}.installed"));
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(what) {
        let _ = std::fs::remove_dir_all(&dir);
        eprintln!("installing {what} into {} (once)", dir.display());
        install(&dir);
        std::fs::write(&stamp, what).unwrap();
    }
    dir
}

/// `output`, which must be a success: else the test fails with what the program printed.
pub fn checked(what: &str, output: std::io::Result<Output>) -> Output {
    let output = output.unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A prefix with Node and packages installed.
pub struct Prefix {
    /// `<prefix>/node_modules`.
    pub modules: PathBuf,
}

impl Prefix {
    /// Installs (once) `packages` and Node into `target/tmp/npm-tools/<name>`. Install scripts do not
    /// run (the machine's npm and Node may be old), except `scripts`: `(package, script)` pairs run
    /// afterwards with the prefix's Node.
    pub fn install(name: &str, packages: &[&str], scripts: &[(&str, &str)]) -> Prefix {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("npm-tools");
        let node_package = format!("node-linux-{}@{NODE}", arch());
        let what = format!("{node_package} {}", packages.join(" "));
        let dir = installed(&root, name, &what, |dir| {
            checked(
                "npm install (Debian: apt-get install npm)",
                Command::new("npm")
                    .arg("install")
                    .arg("--prefix")
                    .arg(dir)
                    .args(["--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", &node_package])
                    .args(packages)
                    .output(),
            );
            let prefix = Prefix { modules: dir.join("node_modules") };
            for (package, script) in scripts {
                let what = format!("{package}'s install script");
                let dir = prefix.modules.join(package);
                checked(&what, Command::new(prefix.node()).arg(script).current_dir(dir).output());
            }
        });
        Prefix { modules: dir.join("node_modules") }
    }

    /// The Node of this prefix.
    pub fn node(&self) -> PathBuf {
        self.modules.join(format!("node-linux-{}/bin/node", arch()))
    }

    /// A directory to put first on `PATH`: the prefix's programs and its Node.
    pub fn bin(&self) -> PathBuf {
        self.modules.join(".bin")
    }
}

fn arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    }
}
