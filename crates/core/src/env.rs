//! The environment of an unattended command (SPEC 3.4): pagers off, editor and credential prompts off,
//! package managers in automation mode — so a command never waits for a human who is not there.
//!
//! The user's explicit values win: a variable already present in the runtime's own environment, or set by
//! `bash.env`, is never overridden by a hardening default.

use std::ffi::OsString;

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

/// The variables to set on top of the inherited environment for one command.
///
/// `is_set(name)` says whether the user already has the variable (normally `std::env::var_os`).
/// Order: hardening defaults the user lacks, then `user` (settings), then `extra` (runtime-provided such
/// as `ARTIFACTS`), so later entries win when applied in order; last the reaper's marker
/// ([`crate::reaper`]), which nothing may override.
pub fn command_env(
    harden: bool,
    is_set: impl Fn(&str) -> bool,
    user: &[(String, String)],
    extra: &[(&str, OsString)],
) -> Vec<(OsString, OsString)> {
    let mut env = Vec::new();
    if harden {
        for (name, value) in NON_INTERACTIVE_DEFAULTS {
            let user_has = is_set(name) || user.iter().any(|(k, _)| k == name);
            if !user_has {
                env.push((OsString::from(name), OsString::from(value)));
            }
        }
    }
    env.extend(user.iter().map(|(k, v)| (OsString::from(k), OsString::from(v))));
    env.extend(extra.iter().map(|(k, v)| (OsString::from(k), v.clone())));
    env.push(crate::reaper::Reaper::global().marker());
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_values_win_over_hardening() {
        let env = command_env(true, |n| n == "PAGER", &[("EDITOR".into(), "vim".into())], &[]);
        assert!(!env.iter().any(|(k, _)| k == "PAGER"));
        let editors: Vec<_> = env.iter().filter(|(k, _)| k == "EDITOR").collect();
        assert_eq!(editors, vec![&(OsString::from("EDITOR"), OsString::from("vim"))]);
        assert!(env.iter().any(|(k, v)| k == "GIT_PAGER" && v == "cat"));
    }

    #[test]
    fn hardening_can_be_switched_off() {
        let env = command_env(false, |_| false, &[], &[]);
        assert_eq!(env.len(), 1);
        assert_eq!(env[0].0, crate::reaper::MARKER_VAR);
    }
}
