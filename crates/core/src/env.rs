//! The environment of an unattended command: pagers off, editor and credential prompts off,
//! package managers in automation mode — so a command never waits for a human who is not there.
//!
//! The user's explicit values win: a variable already present in the runtime's own environment, or set by
//! `bash.env`, is never overridden by a hardening default.

use std::ffi::OsString;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// Hardening defaults, applied only where the variable is not already set.
pub const NON_INTERACTIVE_DEFAULTS: &[(&str, &str)] = &[
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("MANPAGER", "cat"),
    ("SYSTEMD_PAGER", "cat"),
    ("BAT_PAGER", "cat"),
    ("DELTA_PAGER", "cat"),
    ("GH_PAGER", "cat"),
    ("GLAB_PAGER", "cat"),
    ("PSQL_PAGER", "cat"),
    ("MYSQL_PAGER", "cat"),
    ("HOMEBREW_PAGER", "cat"),
    ("AWS_PAGER", ""),
    ("LESS", "FRX"),
    ("GIT_EDITOR", "true"),
    ("VISUAL", "true"),
    ("EDITOR", "true"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("SSH_ASKPASS", "/usr/bin/false"),
    ("GPG_TTY", "not a tty"),
    ("CI", "1"),
    ("npm_config_yes", "true"),
    ("npm_config_update_notifier", "false"),
    ("npm_config_fund", "false"),
    ("npm_config_audit", "false"),
    ("npm_config_progress", "false"),
    ("PNPM_DISABLE_SELF_UPDATE_CHECK", "true"),
    ("PNPM_UPDATE_NOTIFIER", "false"),
    ("YARN_ENABLE_TELEMETRY", "0"),
    ("YARN_ENABLE_PROGRESS_BARS", "0"),
    ("CARGO_TERM_PROGRESS_WHEN", "never"),
    ("DEBIAN_FRONTEND", "noninteractive"),
    ("PIP_NO_INPUT", "1"),
    ("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
    ("TF_INPUT", "0"),
    ("TF_IN_AUTOMATION", "1"),
    ("GH_PROMPT_DISABLED", "1"),
    ("COMPOSER_NO_INTERACTION", "1"),
    ("CLOUDSDK_CORE_DISABLE_PROMPTS", "1"),
    ("PYTHONUNBUFFERED", "1"),
];

/// The variables to set on top of the inherited environment for one command, built in two parts, so
/// that a caller making many calls pays for the settings part once.
///
/// Order: hardening defaults the user lacks, then `user` (settings), then `extra` (runtime-provided such
/// as `ARTIFACTS`), so later entries win when applied in order. The runtime appends its reaper's marker
/// last, so that nothing may override it.
///
/// The hardening defaults and `bash.env` depend only on the settings and on which variables the runtime's
/// own environment has; asking the process environment for 40 names takes its lock and allocates each
/// time, which was a measurable share of a warm call. Only `extra` (which differs per call) is added per
/// call (and, by the runtime, its marker).
///
/// The process environment is read once, by [`CommandEnv::from_process`]: a variable the runtime sets
/// in its own environment afterwards (`std::env::set_var`) no longer suppresses the matching hardening
/// default of an existing `BashTool` / `AgentSession`, whose commands then get the default instead of the
/// new value (a long-lived shell of the pool inherited the environment of its own start anyway). bashrt
/// does not change its environment after start-up; a caller that does should build a new tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandEnv {
    /// Hardening defaults and `user`, one entry per name (the last one given wins, as when applied in
    /// order), sorted by name: sorting an almost-sorted list into [`Vars`] is cheap.
    base: Vec<(OsString, OsString)>,
}

impl CommandEnv {
    /// The settings part: `is_set(name)` says whether the user already has the variable (normally
    /// `std::env::var_os`).
    pub fn new(harden: bool, is_set: impl Fn(&str) -> bool, user: &[(String, String)]) -> Self {
        let mut base = Vec::new();
        if harden {
            for (name, value) in NON_INTERACTIVE_DEFAULTS {
                let user_has = is_set(name) || user.iter().any(|(k, _)| k == name);
                if !user_has {
                    base.push((OsString::from(name), OsString::from(value)));
                }
            }
        }
        base.extend(user.iter().map(|(k, v)| (OsString::from(k), OsString::from(v))));
        normalize(&mut base);
        Self { base }
    }

    /// Reads the runtime's own environment now (see the type's docs for why only once).
    pub fn from_process(harden: bool, user: &[(String, String)]) -> Self {
        Self::new(harden, |name| std::env::var_os(name).is_some(), user)
    }

    /// The list for one command: the settings part, then `extra` (room is left for the marker).
    pub fn with(&self, extra: &[(&str, OsString)]) -> Vec<(OsString, OsString)> {
        let mut env = Vec::with_capacity(self.base.len() + extra.len() + 1);
        env.extend(self.base.iter().cloned());
        env.extend(extra.iter().map(|(k, v)| (OsString::from(k), v.clone())));
        env
    }
}

/// One entry per name, the last one given (as when the list is applied in order), sorted by name.
fn normalize(list: &mut Vec<(OsString, OsString)>) {
    // Reversed, a stable sort puts the last given of each name first in its run: the one `dedup_by`
    // keeps.
    list.reverse();
    list.sort_by(|a, b| a.0.cmp(&b.0));
    list.dedup_by(|later, first| later.0 == first.0);
}

/// Variables a command gets on top of the inherited environment, as one value per name (the last one
/// given wins, as when a list is applied in order), sorted by name, shared and hashed once.
///
/// A long-lived shell is keyed by its environment (about 40 variables with the hardening defaults).
/// Copying, sorting and hashing that list for every call was a measurable part of a warm call; built
/// once per distinct environment ([`crate::Runtime`] keeps the last one), a call clones an `Arc` and
/// compares pointers.
#[derive(Clone, Default)]
pub struct Vars {
    list: Arc<[(OsString, OsString)]>,
    hash: u64,
}

impl Vars {
    /// Normalizes `list` (later entries win, sorted by name) and hashes it.
    pub fn new(mut list: Vec<(OsString, OsString)>) -> Self {
        normalize(&mut list);
        let mut hasher = DefaultHasher::new();
        list.hash(&mut hasher);
        Self { hash: hasher.finish(), list: list.into() }
    }

    /// A hash of the list, computed when it was built.
    pub fn hash64(&self) -> u64 {
        self.hash
    }
}

impl Deref for Vars {
    type Target = [(OsString, OsString)];

    fn deref(&self) -> &Self::Target {
        &self.list
    }
}

impl From<Vec<(OsString, OsString)>> for Vars {
    fn from(list: Vec<(OsString, OsString)>) -> Self {
        Self::new(list)
    }
}

impl PartialEq for Vars {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.list, &other.list) || (self.hash == other.hash && self.list == other.list)
    }
}

impl Eq for Vars {}

impl Hash for Vars {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl std::fmt::Debug for Vars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.list.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_values_win_over_hardening() {
        let env = CommandEnv::new(true, |n| n == "PAGER", &[("EDITOR".into(), "vim".into())]).with(&[]);
        assert!(!env.iter().any(|(k, _)| k == "PAGER"));
        let editors: Vec<_> = env.iter().filter(|(k, _)| k == "EDITOR").collect();
        assert_eq!(editors, vec![&(OsString::from("EDITOR"), OsString::from("vim"))]);
        assert!(env.iter().any(|(k, v)| k == "GIT_PAGER" && v == "cat"));
    }

    #[test]
    fn hardening_can_be_switched_off() {
        let env = CommandEnv::new(false, |_| false, &[]).with(&[]);
        assert!(env.is_empty());
    }

    /// Applying the list in order gives what it gave before it was deduplicated and sorted.
    #[test]
    fn the_last_value_per_name_wins_and_extra_comes_last() {
        let user = vec![("ZED".into(), "1".into()), ("PAGER".into(), "less".into()), ("ZED".into(), "2".into())];
        let env = CommandEnv::new(true, |n| n == "EDITOR", &user).with(&[("ARTIFACTS", OsString::from("/a"))]);
        let values = |name: &str| env.iter().filter(|(k, _)| k == name).map(|(_, v)| v.clone()).collect::<Vec<_>>();
        assert_eq!(values("ZED"), [OsString::from("2")]);
        assert_eq!(values("PAGER"), [OsString::from("less")]);
        assert!(values("EDITOR").is_empty());
        assert_eq!(values("ARTIFACTS"), [OsString::from("/a")]);
        assert_eq!(env.last().map(|(k, _)| k.as_os_str()), Some(std::ffi::OsStr::new("ARTIFACTS")));
        let names: Vec<_> = env[..env.len() - 1].iter().map(|(k, _)| k).collect();
        assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted, one per name: {names:?}");
    }

    #[test]
    fn vars_keep_the_last_value_per_name_and_ignore_order() {
        let pair = |k: &str, v: &str| (OsString::from(k), OsString::from(v));
        let a = Vars::new(vec![pair("B", "1"), pair("A", "x"), pair("B", "2")]);
        assert_eq!(&*a, &[pair("A", "x"), pair("B", "2")]);
        let b = Vars::new(vec![pair("A", "x"), pair("B", "2")]);
        assert_eq!(a, b);
        assert_eq!(a.hash64(), b.hash64());
        assert_ne!(a, Vars::new(vec![pair("A", "x"), pair("B", "1")]));
        assert_eq!(a.clone(), a);
    }
}
