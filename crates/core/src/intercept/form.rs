//! Structural conditions of an interceptor rule: the exact shapes of a simple command (name, options,
//! operands, where its input comes from and where its output goes) that the rule's suggested tool
//! does completely. A form only ever matches a command whose every word is static text (no
//! expansion, no unquoted glob), so "matches" never depends on what the shell would compute.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;

/// One shape of command a rule blocks, as stored in settings (`when` of a rule).
///
/// Option specs are written as the user writes the option: `-r` (a flag; single letters may be
/// clustered, `-rn`), `-n NUM` (takes a value: `-n 20` or `-n20`), `--lines=NUM` (`--lines=20` or
/// `--lines 20`), `-name NAME` (a single-dash long option, find style: `-name x` only), `-NUM` (a dash
/// directly followed by a number, as in `head -20`), `-i[]` (a flag that must end its cluster, because
/// letters after it would be its value: sed's `-iE` is `-i` with the backup suffix `E`). A value is a class — `ANY`, `NUM`, `+NUM`,
/// `PATH`, `SUBST`, or a name defined in `values` — or else a literal (`-type f`).
#[derive(serde::Deserialize, serde::Serialize, Clone, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Form {
    /// Command names; the command word must be one of them, written without quotes or a path.
    pub command: Vec<String>,
    /// The options the command may have; any other option means the form does not match.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// Options (as written in `options`) that must be present; `a|b` means either.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub require: Vec<String>,
    /// The operands in order, each a value class; the last may end in `?` (optional), `*` (any
    /// number) or `+` (one or more). No entry means no operand.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operands: Vec<String>,
    /// Operands must all come before the first option (find's starting points).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub operands_first: bool,
    /// Instead of `options`, `require` and `operands`: a regex the arguments must match as a whole,
    /// joined by single spaces (each one static text without blanks). For shapes whose meaning
    /// depends on the order of their words (find's `-name A -o -name B`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<String>,
    /// Value classes of this form: a name (capital letters) and a regex the whole unquoted word must
    /// match.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub values: BTreeMap<String, String>,
    /// What the command reads on stdin.
    #[serde(default, skip_serializing_if = "is_default")]
    pub stdin: FormStdin,
    /// Where the command's output goes.
    #[serde(default, skip_serializing_if = "is_default")]
    pub stdout: FormStdout,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// What a form allows on stdin.
#[derive(serde::Deserialize, serde::Serialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum FormStdin {
    /// No input redirection (stdin is whatever the runtime gives, never piped: see [`FormStdout::Shown`]).
    #[default]
    None,
    /// Exactly one here-document or here-string whose text the shell does not expand.
    Text,
}

/// Where a form's command sends its output.
#[derive(serde::Deserialize, serde::Serialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum FormStdout {
    /// To the model: no output redirection at all.
    #[default]
    Shown,
    /// Replaces one named file: exactly one `>`, `>|`, `1>` or `&>` to a static path.
    File,
}

/// Why a form could not be used (the rule is then skipped with this as its warning).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormError {
    /// `command` is empty.
    #[error("a form needs at least one command name")]
    NoCommand,
    /// An entry of `options` that is not an option spec.
    #[error("option `{0}` does not start with `-` (or ends in `[]` without being a one-letter flag)")]
    NotAnOption(String),
    /// A value class that is neither built in nor defined in `values`.
    #[error("unknown value class `{0}` (built in: ANY, NUM, +NUM, PATH, SUBST; others are defined in `values`)")]
    UnknownClass(String),
    /// A class of `values` whose regex is invalid.
    #[error("value class `{name}`: {reason}")]
    BadClass {
        /// The class.
        name: String,
        /// What is wrong with its regex.
        reason: String,
    },
    /// An entry of `require` that `options` does not list.
    #[error("`require` names `{0}`, which is not one of the form's options")]
    UnknownRequired(String),
    /// A quantifier on an operand other than the last.
    #[error("only the last operand may end in `?`, `*` or `+` (`{0}`)")]
    MisplacedQuantifier(String),
    /// `args` given together with `options`, `require` or `operands`.
    #[error("`args` replaces `options`, `require` and `operands`: give one or the other")]
    ArgsWithOptions,
    /// An invalid `args` regex.
    #[error("`args`: {0}")]
    BadArgs(String),
}

/// A simple command as a form sees it: the words after quote removal, and its redirections.
#[derive(Debug, Default)]
pub(crate) struct Invocation {
    /// The command name when it is written as plain text (no quotes, escapes or expansions).
    pub name: Option<String>,
    /// Each argument after quote removal; `None` for a word the shell would expand (a variable, a
    /// command substitution, an unquoted glob or brace pattern).
    pub args: Vec<Option<String>>,
    /// Whether variables are assigned for the command (`LC_ALL=C grep …`).
    pub assigns: bool,
    pub redirects: Vec<Redirect>,
}

/// A redirection, as far as forms care.
#[derive(Debug)]
pub(crate) enum Redirect {
    /// Standard output replaces a file: `>`, `>|`, `1>`, `&>`; the target when it is static.
    Replace(Option<String>),
    /// A here-document or here-string; whether its text is static.
    Text(bool),
    /// Anything else (appends, other descriptors, input files, duplications, `/dev/null`).
    Other,
}

/// A form checked and ready to match.
#[derive(Debug)]
pub(crate) struct CompiledForm {
    commands: Vec<String>,
    options: Vec<OptionSpec>,
    /// Each entry: indexes into `options`, one of which must be present.
    require: Vec<Vec<usize>>,
    operands: Vec<Class>,
    /// How many times the last operand class may repeat.
    last: Repeat,
    operands_first: bool,
    /// The arguments' regex (anchored), when the form gives one.
    args: Option<LazyRegex>,
    stdin: FormStdin,
    stdout: FormStdout,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Repeat {
    Once,
    Optional,
    Any,
    AtLeastOnce,
}

#[derive(Debug)]
struct OptionSpec {
    /// As written in the rule, for `require`.
    spec: String,
    name: String,
    kind: OptionKind,
    value: Option<Class>,
    /// Letters after it in a cluster would be its value (sed's and perl's `-i.bak`, `-ie`), so it must
    /// end the cluster.
    ends_cluster: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum OptionKind {
    /// `-x`: may be clustered; a value may be attached (`-n20`).
    Short(char),
    /// `--long`: a value may be attached with `=`.
    Long,
    /// `-name`: find style, only `-name VALUE`.
    SingleDashLong,
    /// `-NUM`: the dash and the value are one word.
    DashValue,
}

#[derive(Debug)]
enum Class {
    Any,
    Num,
    PlusNum,
    Path,
    Substitution,
    Literal(String),
    Pattern(LazyRegex),
}

impl LazyRegex {
    /// Whether the whole of `value` matches; a pattern that fails to compile (size limits, unknown
    /// Unicode names) matches nothing.
    fn is_match(&self, value: &str) -> bool {
        self.regex
            .get_or_init(|| Regex::new(&format!("^(?:{})$", self.pattern)).ok())
            .as_ref()
            .is_some_and(|regex| regex.is_match(value))
    }
}

/// A regex checked at load and compiled when first needed.
#[derive(Debug)]
struct LazyRegex {
    pattern: String,
    regex: OnceLock<Option<Regex>>,
}

impl Class {
    fn accepts(&self, value: &str) -> bool {
        match self {
            Class::Any => true,
            Class::Num => !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()),
            Class::PlusNum => value.strip_prefix('+').is_some_and(|n| Class::Num.accepts(n)),
            Class::Path => is_plain_path(value),
            Class::Substitution => is_literal_substitution(value),
            Class::Literal(literal) => value == literal,
            Class::Pattern(lazy) => lazy.is_match(value),
        }
    }
}

/// A file a tool can open by name: not stdin (`-`), not an obsolete `+N` count, not a device, not one
/// of the operators `find` and `test` take (`!`, `(`, `)`).
pub(crate) fn is_plain_path(value: &str) -> bool {
    !value.is_empty()
        && !matches!(value, "-" | "!" | "(" | ")")
        && !value.starts_with('+')
        && !value.starts_with("/dev/")
}

/// Characters that make a `s///` pattern more than literal text, in sed (basic or extended) or perl.
const REGEX_META: &[char] = &['\\', '.', '*', '[', ']', '^', '$', '+', '?', '(', ')', '{', '}', '|', '@', '\n'];
/// Characters that make a replacement more than literal text (`&` and `\1` in sed, `$x` in perl).
const REPLACEMENT_META: &[char] = &['\\', '&', '$', '@', '\n'];

/// One `s/OLD/NEW/g` (delimiter `/`, `|`, `#`, `,`, `:` or `!`), whose OLD and NEW are literal text
/// in sed and in perl: what an exact-text edit that replaces every occurrence does. Without `g` it
/// is not that (the first match on every line), nor with regexes, `&`, `\1` or `$1`.
fn is_literal_substitution(value: &str) -> bool {
    let Some(rest) = value.strip_prefix('s') else { return false };
    let Some(delimiter) = rest.chars().next().filter(|c| matches!(c, '/' | '|' | '#' | ',' | ':' | '!')) else {
        return false;
    };
    let mut parts = rest[1..].split(delimiter);
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(old), Some(new), Some("g"), None) => {
            !old.is_empty() && !old.contains(REGEX_META) && !new.contains(REPLACEMENT_META)
        }
        _ => false,
    }
}

fn class(token: &str, values: &BTreeMap<String, String>) -> Result<Class, FormError> {
    if let Some(pattern) = values.get(token) {
        // The syntax only: translating the classes (what `regex` does when it compiles) costs hundreds
        // of microseconds for a negated class, on every start, and can only fail on size limits or
        // unknown Unicode names, which leave the class matching nothing.
        regex_syntax::ast::parse::Parser::new()
            .parse(pattern)
            .map_err(|e| FormError::BadClass { name: token.to_owned(), reason: super::describe(&e.to_string()) })?;
        return Ok(Class::Pattern(LazyRegex { pattern: pattern.clone(), regex: OnceLock::new() }));
    }
    Ok(match token {
        "ANY" => Class::Any,
        "NUM" => Class::Num,
        "+NUM" => Class::PlusNum,
        "PATH" => Class::Path,
        "SUBST" => Class::Substitution,
        _ if looks_like_class(token) => return Err(FormError::UnknownClass(token.to_owned())),
        _ => Class::Literal(token.to_owned()),
    })
}

/// Capital letters, digits and `_`, starting with a letter (or `+NUM`): a class name, not a literal.
fn looks_like_class(token: &str) -> bool {
    let body = token.strip_prefix('+').unwrap_or(token);
    body.starts_with(|c: char| c.is_ascii_uppercase())
        && body.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && body.len() > 1
}

fn option_spec(spec: &str, values: &BTreeMap<String, String>) -> Result<OptionSpec, FormError> {
    let not_an_option = || FormError::NotAnOption(spec.to_owned());
    let written = spec;
    let (spec, ends_cluster) = match spec.strip_suffix("[]") {
        Some(flag) => (flag, true),
        None => (spec, false),
    };
    let body = spec.strip_prefix('-').ok_or_else(not_an_option)?;
    if looks_like_class(body) {
        return Ok(OptionSpec {
            spec: written.to_owned(),
            name: "-".to_owned(),
            kind: OptionKind::DashValue,
            value: Some(class(body, values)?),
            ends_cluster,
        });
    }
    let (name, value) = match spec.find([' ', '=']) {
        Some(at) => (&spec[..at], Some(class(spec[at + 1..].trim(), values)?)),
        None => (spec, None),
    };
    let mut letters = name.chars().skip(1);
    let kind = match (letters.next(), letters.next()) {
        (None, _) => return Err(not_an_option()),
        (Some('-'), _) if name.len() > 2 => OptionKind::Long,
        (Some('-'), _) => return Err(not_an_option()),
        (Some(letter), None) => OptionKind::Short(letter),
        (Some(_), Some(_)) => OptionKind::SingleDashLong,
    };
    if ends_cluster && (value.is_some() || !matches!(kind, OptionKind::Short(_))) {
        return Err(not_an_option());
    }
    Ok(OptionSpec { spec: written.to_owned(), name: name.to_owned(), kind, value, ends_cluster })
}

impl CompiledForm {
    pub(crate) fn new(form: &Form) -> Result<CompiledForm, FormError> {
        if form.command.is_empty() {
            return Err(FormError::NoCommand);
        }
        let options = form.options.iter().map(|spec| option_spec(spec, &form.values)).collect::<Result<Vec<_>, _>>()?;
        let mut require = Vec::new();
        for entry in &form.require {
            let mut any_of = Vec::new();
            for alternative in entry.split('|') {
                let index = options
                    .iter()
                    .position(|option| option.spec == alternative.trim())
                    .ok_or_else(|| FormError::UnknownRequired(alternative.trim().to_owned()))?;
                any_of.push(index);
            }
            require.push(any_of);
        }
        let mut operands = Vec::new();
        let mut last = Repeat::Once;
        for (index, entry) in form.operands.iter().enumerate() {
            let (token, repeat) = match entry.as_bytes().last() {
                Some(b'?') => (&entry[..entry.len() - 1], Repeat::Optional),
                Some(b'*') => (&entry[..entry.len() - 1], Repeat::Any),
                Some(b'+') => (&entry[..entry.len() - 1], Repeat::AtLeastOnce),
                _ => (entry.as_str(), Repeat::Once),
            };
            if repeat != Repeat::Once && index + 1 != form.operands.len() {
                return Err(FormError::MisplacedQuantifier(entry.clone()));
            }
            operands.push(class(token, &form.values)?);
            last = repeat;
        }
        let args = match &form.args {
            None => None,
            Some(_) if !(form.options.is_empty() && form.require.is_empty() && form.operands.is_empty()) => {
                return Err(FormError::ArgsWithOptions)
            }
            // Checked now, compiled when a command of the form is met (as the classes are).
            Some(pattern) => Some(
                regex_syntax::ast::parse::Parser::new()
                    .parse(pattern)
                    .map(|_| LazyRegex { pattern: pattern.clone(), regex: OnceLock::new() })
                    .map_err(|e| FormError::BadArgs(e.to_string().lines().last().unwrap_or("").trim().to_string()))?,
            ),
        };
        Ok(CompiledForm {
            commands: form.command.clone(),
            options,
            require,
            operands,
            last,
            operands_first: form.operands_first,
            args,
            stdin: form.stdin,
            stdout: form.stdout,
        })
    }

    /// Whether `invocation` has exactly this shape. The caller has already checked that the
    /// command's output is not captured, piped, tested or run in the background.
    pub(crate) fn matches(&self, invocation: &Invocation) -> bool {
        let Some(name) = &invocation.name else { return false };
        if invocation.assigns || !self.commands.iter().any(|command| command == name) {
            return false;
        }
        if !self.redirections_fit(&invocation.redirects) {
            return false;
        }
        if let Some(args) = &self.args {
            let words: Option<Vec<&str>> = invocation
                .args
                .iter()
                .map(|arg| arg.as_deref().filter(|word| !word.is_empty() && !word.contains(char::is_whitespace)))
                .collect();
            return words.is_some_and(|words| args.is_match(&words.join(" ")));
        }
        let mut seen = vec![0usize; self.options.len()];
        let mut operands = Vec::new();
        let mut args = invocation.args.iter();
        let mut options_ended = false;
        while let Some(arg) = args.next() {
            let Some(word) = arg else { return false };
            if !options_ended && word == "--" {
                options_ended = true;
            } else if !options_ended && word.len() > 1 && word.starts_with('-') {
                if !self.option(word, &mut args, &mut seen) {
                    return false;
                }
            } else if self.operands_first && seen.iter().any(|&count| count > 0) {
                return false;
            } else {
                operands.push(word.as_str());
            }
        }
        let value_repeated = self.options.iter().zip(&seen).any(|(option, &count)| option.value.is_some() && count > 1);
        let required = self.require.iter().all(|any_of| any_of.iter().any(|&index| seen[index] > 0));
        !value_repeated && required && self.operands_fit(&operands)
    }

    /// Consumes one option word (and its value word, if it takes one).
    fn option<'a>(&self, word: &str, args: &mut impl Iterator<Item = &'a Option<String>>, seen: &mut [usize]) -> bool {
        let mut next_value = || args.next().and_then(|arg| arg.as_deref());
        // The whole word names an option: a flag, or an option whose value is the next word.
        let named: Vec<usize> = (0..self.options.len()).filter(|&index| self.options[index].name == word).collect();
        if !named.is_empty() {
            if let Some(&flag) = named.iter().find(|&&index| self.options[index].value.is_none()) {
                seen[flag] += 1;
                return true;
            }
            let Some(value) = next_value() else { return false };
            return self.take(&named, value, seen);
        }
        if let Some((name, value)) = word.split_once('=').filter(|_| word.starts_with("--")) {
            let long: Vec<usize> = (0..self.options.len())
                .filter(|&index| self.options[index].kind == OptionKind::Long && self.options[index].name == name)
                .collect();
            return self.take(&long, value, seen);
        }
        let dash_value: Vec<usize> =
            (0..self.options.len()).filter(|&index| self.options[index].kind == OptionKind::DashValue).collect();
        if self.take(&dash_value, &word[1..], seen) {
            return true;
        }
        if word.starts_with("--") {
            return false;
        }
        // A cluster of short options; one that takes a value takes the rest of the word, or the next.
        for (at, letter) in word.char_indices().skip(1) {
            let short: Vec<usize> = (0..self.options.len())
                .filter(|&index| self.options[index].kind == OptionKind::Short(letter))
                .collect();
            if let Some(&flag) = short.iter().find(|&&index| self.options[index].value.is_none()) {
                if self.options[flag].ends_cluster && at + letter.len_utf8() < word.len() {
                    return false;
                }
                seen[flag] += 1;
                continue;
            }
            if short.is_empty() {
                return false;
            }
            let rest = &word[at + letter.len_utf8()..];
            return match rest.is_empty() {
                true => next_value().is_some_and(|value| self.take(&short, value, seen)),
                false => self.take(&short, rest, seen),
            };
        }
        true
    }

    /// Records the first of `candidates` whose value class accepts `value`.
    fn take(&self, candidates: &[usize], value: &str, seen: &mut [usize]) -> bool {
        let accepted = candidates
            .iter()
            .find(|&&index| self.options[index].value.as_ref().is_some_and(|class| class.accepts(value)));
        match accepted {
            Some(&index) => {
                seen[index] += 1;
                true
            }
            None => false,
        }
    }

    fn operands_fit(&self, operands: &[&str]) -> bool {
        let Some((last, fixed)) = self.operands.split_last() else { return operands.is_empty() };
        if operands.len() < fixed.len() {
            return false;
        }
        let (head, tail) = operands.split_at(fixed.len());
        let count_fits = match self.last {
            Repeat::Once => tail.len() == 1,
            Repeat::Optional => tail.len() <= 1,
            Repeat::Any => true,
            Repeat::AtLeastOnce => !tail.is_empty(),
        };
        count_fits
            && fixed.iter().zip(head).all(|(class, value)| class.accepts(value))
            && tail.iter().all(|value| last.accepts(value))
    }

    fn redirections_fit(&self, redirects: &[Redirect]) -> bool {
        let mut text = 0;
        let mut replace = 0;
        for redirect in redirects {
            match redirect {
                Redirect::Text(true) if self.stdin == FormStdin::Text => text += 1,
                Redirect::Replace(Some(target)) if self.stdout == FormStdout::File && is_plain_path(target) => {
                    replace += 1
                }
                _ => return false,
            }
        }
        let wanted = |allowed: bool| usize::from(allowed);
        text == wanted(self.stdin == FormStdin::Text) && replace == wanted(self.stdout == FormStdout::File)
    }
}

#[cfg(test)]
mod tests;
