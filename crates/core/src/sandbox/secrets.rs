//! Secret-looking variables, left out of a confined shell's environment: by a segment of the name
//! (`API_KEY`, `AWS_SECRET_ACCESS_KEY`, `NPM_TOKEN`; not `KEYBOARD`), by a known name
//! (`DATABASE_URL`, `*_DSN`), or by the shape of the value (a PEM block, a GitHub, OpenAI,
//! Anthropic, AWS, Slack or Google key, a JWT, a URL with a password). Names are reported, values
//! never.

use std::ffi::{OsStr, OsString};

/// Name segments (split on `_`, `-`, `.`, case-folded) that mark a secret.
const SECRET_SEGMENTS: &[&str] = &[
    "TOKEN",
    "TOKENS",
    "SECRET",
    "SECRETS",
    "PASSWORD",
    "PASSWD",
    "PASS",
    "KEY",
    "APIKEY",
    "CREDENTIAL",
    "CREDENTIALS",
    "CREDS",
    "PRIVATE",
    "COOKIE",
    "AUTH",
];

/// Whole names that hold credentials without saying so.
const SECRET_NAMES: &[&str] = &[
    "DATABASE_URL",
    "REDIS_URL",
    "MONGODB_URI",
    "MONGO_URL",
    "SENTRY_DSN",
    "AWS_ACCESS_KEY_ID",
    "AWS_SESSION_TOKEN",
    "GOOGLE_APPLICATION_CREDENTIALS",
];

/// Kept whatever their name says (their values are still checked where said).
const ALWAYS_KEEP: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "PWD",
    "OLDPWD",
    "LANG",
    "TERM",
    "COLORTERM",
    "TZ",
    "TMPDIR",
    "SSH_AUTH_SOCK",
];

/// The names among `vars` to leave out, in the order given.
pub(super) fn to_remove(vars: impl Iterator<Item = (OsString, OsString)>, keep: &[String]) -> Vec<OsString> {
    vars.filter(|(name, value)| is_secret(name, value, keep)).map(|(name, _)| name).collect()
}

fn is_secret(name: &OsStr, value: &OsStr, keep: &[String]) -> bool {
    let Some(name) = name.to_str() else { return false };
    if keep.iter().any(|k| k == name) || name.starts_with("BASHRT_") {
        return false;
    }
    let value = value.to_string_lossy();
    if ALWAYS_KEEP.contains(&name) || name.starts_with("LC_") {
        return false;
    }
    if name.starts_with("XDG_") {
        return secret_value(&value);
    }
    let upper = name.to_ascii_uppercase();
    SECRET_NAMES.contains(&upper.as_str())
        || upper.ends_with("_DSN")
        || upper.split(['_', '-', '.']).any(|segment| SECRET_SEGMENTS.contains(&segment))
        || secret_value(&value)
}

/// A value shaped like a credential.
fn secret_value(value: &str) -> bool {
    let value = value.trim();
    if value.contains("-----BEGIN ") {
        return true;
    }
    const PREFIXES: &[(&str, usize)] = &[
        ("ghp_", 30),
        ("gho_", 30),
        ("ghu_", 30),
        ("ghs_", 30),
        ("ghr_", 30),
        ("github_pat_", 30),
        ("glpat-", 20),
        ("sk-", 20),
        ("xoxa-", 10),
        ("xoxb-", 10),
        ("xoxp-", 10),
        ("xoxr-", 10),
        ("AIza", 35),
        ("npm_", 30),
    ];
    let token = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
    if PREFIXES.iter().any(|(p, min)| value.strip_prefix(p).is_some_and(|rest| rest.len() >= *min && token(rest))) {
        return true;
    }
    // AWS access key ids.
    if value.len() == 20
        && (value.starts_with("AKIA") || value.starts_with("ASIA"))
        && value.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    {
        return true;
    }
    // A JWT: three base64url parts, the first a JSON header.
    let parts: Vec<&str> = value.split('.').collect();
    if parts.len() == 3 && parts[0].starts_with("eyJ") && parts.iter().all(|p| p.len() >= 8 && token(p)) {
        return true;
    }
    url_with_password(value)
}

/// `scheme://user:password@host…`.
fn url_with_password(value: &str) -> bool {
    let Some((scheme, rest)) = value.split_once("://") else { return false };
    if scheme.is_empty() || !scheme.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')) {
        return false;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    match authority.rsplit_once('@') {
        Some((userinfo, _)) => userinfo.split_once(':').is_some_and(|(_, password)| !password.is_empty()),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(name: &str, value: &str) -> bool {
        is_secret(OsStr::new(name), OsStr::new(value), &[])
    }

    #[test]
    fn names_by_segment_not_by_substring() {
        for name in ["OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "NPM_TOKEN", "GH_TOKEN", "db.password", "MY-AUTH"] {
            assert!(secret(name, "x"), "{name}");
        }
        for name in ["KEYBOARD", "PASSTHROUGH", "MONKEY", "TOKENIZERS_PARALLELISM", "PATH", "LC_ALL", "FOO"] {
            assert!(!secret(name, "x"), "{name}");
        }
        assert!(secret("DATABASE_URL", "x") && secret("APP_DSN", "x"));
    }

    #[test]
    fn values_by_shape() {
        assert!(secret("X", "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
        assert!(secret("X", "sk-proj-abcdefghijklmnopqrstuvwxyz"));
        assert!(secret("X", "AKIAABCDEFGHIJKLMNOP"));
        assert!(secret("X", "-----BEGIN OPENSSH PRIVATE KEY-----\nabc"));
        assert!(secret("X", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU"));
        assert!(secret("X", "postgres://app:hunter2@db:5432/app"));
        assert!(secret("XDG_X", "https://u:p@h/"));
        assert!(!secret("X", "https://example.com/a@b"));
        assert!(!secret("X", "sk-short"));
        assert!(!secret("XDG_CONFIG_HOME", "/home/u/.config"));
    }

    #[test]
    fn kept_by_the_user() {
        assert!(!is_secret(OsStr::new("GH_TOKEN"), OsStr::new("x"), &["GH_TOKEN".to_string()]));
        assert!(!secret("BASHRT_TOKEN", "x"));
    }
}
