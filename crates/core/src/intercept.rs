//! Optional interception: blocks a command that a dedicated tool does better, naming that tool. A rule
//! blocks only when its tool is one the caller offers, its regex matches a simple command, and — for
//! rules with forms, as all built-in rules have — that command has one of the exact shapes the tool
//! does completely, with its output going to the model. Bad rules are skipped with a warning; no rule
//! and no command text can make this module panic. It is a nudge, not a sandbox: `sudo cat f`,
//! `eval "cat f"` or a quoted command name pass.

mod defaults;
mod form;
mod names;
mod walk;

use regex::{Regex, RegexBuilder};

pub use defaults::default_rules;
use form::CompiledForm;
pub use form::{Form, FormError, FormStdin, FormStdout};
pub use names::KNOWN as KNOWN_TOOL_NAMES;

use crate::parse;
use walk::{Candidate, Place, Walker};

/// One interception rule, as stored in settings (`bashInterceptor.patterns`).
///
/// `pattern` is a Rust `regex` (no look-around, no backreferences); `flags` takes the JavaScript
/// letters the reference accepted: `i` (ignore case), `m` (multi-line), `s` (dot matches newline),
/// and `g`/`u`, which change nothing here. `when` lists the command shapes the rule blocks (see
/// [`Form`]); a rule without it blocks whatever its pattern matches.
#[derive(serde::Deserialize, serde::Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// A name for warnings and `details.interception.rule`; `rule-<index>` when none is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The regex a simple command's text must match.
    pub pattern: String,
    /// The regex's flags, as JavaScript letters (see above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
    /// The tool to use instead; the rule applies only when the caller offers this tool.
    pub tool: String,
    /// What the block says to the model (the generic tool name in it becomes the caller's).
    pub message: String,
    /// With forms, the pattern only pre-selects: the command must also have one of these shapes,
    /// and its output must reach the model (not a pipe, a substitution, a test or the background).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub when: Vec<Form>,
}

/// Why a command was blocked; `suggested_tool` is surfaced structurally in the error details.
#[derive(serde::Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Block {
    /// The rule's name, or `rule-<index>` (its position in the rule list) when it has none.
    pub rule: String,
    /// The tool to use instead, by the name the caller's model knows it.
    pub suggested_tool: String,
    /// The rule's message, naming that tool.
    pub message: String,
}

impl Block {
    /// The tool error text, in the reference's exact format.
    pub fn error_text(&self, original_command: &str) -> String {
        format!("Blocked: {}\n\nOriginal command: {original_command}", self.message)
    }
}

/// Compiled rules, ready to check commands.
///
/// Every simple command is visited: those in `&&`/`||`/`;` lists, subshells, brace groups, loop and
/// `if` bodies, function bodies, `$( )`, backquotes and `<( )`. For each, a rule's regex sees this text:
/// - the command name first, then its arguments and redirections in source order, then any
///   redirections written before the name, separated by single spaces; assignments before the name
///   (`LC_ALL=C grep …`) are left out;
/// - every word as written in the source, except that each character inside quotes (`'…'`, `"…"`,
///   `$'…'`) and each escaped character becomes `x`, and the body of `$( )`, backquotes, `${ }` and
///   `$(( ))` becomes a single `x`, delimiters kept (`cat "my file"` is seen as `cat "xxxxxxx"`,
///   `echo $(date) a\>b` as `echo $(x) a\xb`);
/// - redirections written as operator and target without a space (`>out`, `2>>log`, `<<EOF`, `&>f`);
///   heredoc bodies are never included; redirections to `/dev/null`, `/dev/stdout`, `/dev/stderr`,
///   `/dev/tty`, fd duplications and closings (`2>&1`, `>&2`, `<&-`) and process substitutions are
///   left out, as they write no file.
///
/// A rule without forms checks every simple command except a second or later stage of a pipeline,
/// which reads piped stdin (`git log | grep fix file`); commands nested inside such a stage
/// (`ls | while read f; do cat "$f"; done`) are checked. A rule with forms checks only a simple
/// command whose output reaches the model: not in `$( )`, backquotes or `<( )`, not a stage of a
/// pipeline of two or more (nor inside one), not inside a compound command with a redirection, not
/// tested (`a && b` tests `a`; `||`, `!`, and the conditions of `if`, `while`, `until` too), not in a
/// loop body or timed with `time`, not run in the background, and the only command of the whole text
/// besides `cd`s (`cd src && cat main.rs` is one read; `sleep 5 && cat log` is more than one).
///
/// When the command cannot be parsed (syntax error, parser panic, nesting too deep), rules without
/// forms are matched against the whole trimmed command instead, as the reference did; rules with
/// forms never block it.
#[derive(Clone, Debug)]
pub struct Interceptor {
    rules: Vec<std::sync::Arc<CompiledRule>>,
    warnings: Vec<String>,
}

/// A rule whose pattern has been checked but is compiled only when first needed: compiling regexes
/// costs time on every start, and most calls have none of their tools available.
#[derive(Debug)]
struct CompiledRule {
    name: String,
    pattern: String,
    flags: Option<String>,
    regex: std::sync::OnceLock<Option<Regex>>,
    tool: String,
    message: String,
    forms: Vec<CompiledForm>,
}

impl CompiledRule {
    fn is_match(&self, text: &str) -> bool {
        let regex = self.regex.get_or_init(|| match compile(&self.pattern, self.flags.as_deref()) {
            Ok(regex) => Some(regex),
            Err(reason) => {
                // Checked at load time; only a compile-size limit can still fail here.
                tracing::warn!("bashInterceptor rule {} disabled: {reason}", self.name);
                None
            }
        });
        regex.as_ref().is_some_and(|r| r.is_match(text))
    }

    /// Whether this rule blocks `candidate`; `alone` says it is the only command of the whole text
    /// besides `cd`s.
    fn blocks(&self, candidate: &Candidate, alone: bool) -> bool {
        let in_place = match self.forms.is_empty() {
            true => !candidate.place.reads_pipe,
            false => {
                alone && candidate.place.shown() && self.forms.iter().any(|form| form.matches(&candidate.invocation))
            }
        };
        in_place && self.is_match(&candidate.text)
    }

    /// The block, naming the tool as the caller knows it (`shown`).
    fn block(&self, shown: &str) -> Block {
        Block {
            rule: self.name.clone(),
            suggested_tool: shown.to_string(),
            message: names::rename_in_message(&self.message, &self.tool, shown),
        }
    }
}

impl Interceptor {
    /// Compiles `rules`; one that has an invalid regex, flags or form is skipped and described in
    /// [`Interceptor::warnings`], so one bad setting never disables the others.
    pub fn new(rules: &[Rule]) -> Interceptor {
        let mut compiled = Vec::with_capacity(rules.len());
        let mut warnings = Vec::new();
        for (index, rule) in rules.iter().enumerate() {
            let forms = rule
                .when
                .iter()
                .enumerate()
                .map(|(number, form)| {
                    CompiledForm::new(form).map_err(|error| format!("form {} of `when`: {error}", number + 1))
                })
                .collect::<Result<Vec<_>, String>>();
            match check_syntax(&rule.pattern, rule.flags.as_deref()).and(forms) {
                Ok(forms) => compiled.push(std::sync::Arc::new(CompiledRule {
                    name: rule.name.clone().unwrap_or_else(|| format!("rule-{index}")),
                    pattern: rule.pattern.clone(),
                    flags: rule.flags.clone(),
                    regex: std::sync::OnceLock::new(),
                    tool: rule.tool.clone(),
                    message: rule.message.clone(),
                    forms,
                })),
                Err(reason) => warnings
                    .push(format!("bashInterceptor rule {index} (pattern `{}`) skipped: {reason}", rule.pattern)),
            }
        }
        Interceptor { rules: compiled, warnings }
    }

    /// One line per skipped rule, for the caller to report once.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The first block for `command`: simple commands in source order, and for each the first rule
    /// (in rule order) whose tool is one of `tool_names` and that blocks it. `tool_names` are the
    /// caller's tools as its model knows them (`Read`, `read_file`, `find=Glob`): the block names
    /// the tool so (see [`KNOWN_TOOL_NAMES`]).
    pub fn check(&self, command: &str, tool_names: &[String]) -> Option<Block> {
        let command = command.trim();
        let applicable: Vec<(&CompiledRule, &str)> = self
            .rules
            .iter()
            .filter_map(|rule| names::resolve(&rule.tool, tool_names).map(|shown| (rule.as_ref(), shown)))
            .collect();
        if applicable.is_empty() || command.is_empty() {
            return None;
        }
        let walked = parse::with_parsed(command, |parsed| {
            let mut walker = Walker::default();
            walker.program(parsed, Place::default(), 0);
            walker.candidates
        });
        let Some(candidates) = walked else {
            // Unparseable: the reference's plain match of the whole text, for rules without forms.
            return applicable
                .iter()
                .find(|(rule, _)| rule.forms.is_empty() && rule.is_match(command))
                .map(|(rule, shown)| rule.block(shown));
        };
        let alone = candidates.iter().filter(|candidate| !candidate.is_cd()).count() == 1;
        candidates.iter().find_map(|candidate| {
            applicable.iter().find(|(rule, _)| rule.blocks(candidate, alone)).map(|(rule, shown)| rule.block(shown))
        })
    }
}

/// Checks flags and pattern syntax without building the matcher (parsing is microseconds; compiling is
/// the expensive part).
fn check_syntax(pattern: &str, flags: Option<&str>) -> Result<(), String> {
    let mut parser = regex_syntax::ParserBuilder::new();
    for flag in parse_flags(flags)? {
        match flag {
            'i' => parser.case_insensitive(true),
            'm' => parser.multi_line(true),
            's' => parser.dot_matches_new_line(true),
            _ => &mut parser,
        };
    }
    parser.build().parse(pattern).map(|_| ()).map_err(|error| describe(&error.to_string()))
}

/// regex's message spans several lines (pattern, caret); its last line names the problem.
fn describe(text: &str) -> String {
    let last = text.lines().last().unwrap_or("");
    format!("invalid regex: {}", last.trim().trim_start_matches("error: "))
}

/// The flags, each at most once, from the supported set.
fn parse_flags(flags: Option<&str>) -> Result<Vec<char>, String> {
    let mut seen = Vec::new();
    for flag in flags.unwrap_or("").chars() {
        if seen.contains(&flag) {
            return Err(format!("flag `{flag}` repeated in flags `{}`", flags.unwrap_or("")));
        }
        if !matches!(flag, 'i' | 'm' | 's' | 'g' | 'u') {
            return Err(format!(
                "unsupported flag `{flag}` in flags `{}` (supported: i, m, s, g, u)",
                flags.unwrap_or("")
            ));
        }
        seen.push(flag);
    }
    Ok(seen)
}

fn compile(pattern: &str, flags: Option<&str>) -> Result<Regex, String> {
    let mut builder = RegexBuilder::new(pattern);
    for flag in parse_flags(flags)? {
        match flag {
            'i' => builder.case_insensitive(true),
            'm' => builder.multi_line(true),
            's' => builder.dot_matches_new_line(true),
            // JavaScript's global and unicode flags: `is_match` has no state, and regex is Unicode.
            _ => &mut builder,
        };
    }
    builder.build().map_err(|error| describe(&error.to_string()))
}
