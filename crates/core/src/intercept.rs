//! Optional interception: blocks a command that a dedicated tool does better, naming that
//! tool. A rule blocks only when its regex matches AND its tool is one the caller offers; rules are
//! matched per simple command (so `cd x && cat f` is caught), never against quoted text or heredoc
//! bodies, and never against a pipeline stage that reads piped stdin. Bad rules are skipped with a
//! warning; no rule and no command text can make this module panic. It is a nudge, not a sandbox:
//! `sudo cat f`, `eval "cat f"` or a quoted command name pass.

use brush_parser::ast::{
    Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, ExtendedTestExpr, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect, Pipeline, SimpleCommand, Word,
};
use brush_parser::word::WordPiece;
use brush_parser::ParserOptions;
use regex::{Regex, RegexBuilder};

use crate::parse::{self, Parsed};

/// One interception rule, as stored in settings (`bashInterceptor.patterns`).
///
/// `pattern` is a Rust `regex` (no look-around, no backreferences); `flags` takes the JavaScript
/// letters the reference accepted: `i` (ignore case), `m` (multi-line), `s` (dot matches newline),
/// and `g`/`u`, which change nothing here.
#[derive(serde::Deserialize, serde::Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
    /// The tool to use instead; the rule applies only when the caller offers this tool.
    pub tool: String,
    pub message: String,
}

/// Why a command was blocked; `suggested_tool` is surfaced structurally in the error details.
#[derive(serde::Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Block {
    /// The rule's name, or `rule-<index>` (its position in the rule list) when it has none.
    pub rule: String,
    pub suggested_tool: String,
    pub message: String,
}

impl Block {
    /// The tool error text, in the reference's exact format.
    pub fn error_text(&self, original_command: &str) -> String {
        format!("Blocked: {}\n\nOriginal command: {original_command}", self.message)
    }
}

const EDIT_SUFFIX: &str = "It provides diff preview and fuzzy matching.";

/// An output redirection to a file, as it appears in the text a rule sees (see [`Interceptor`]).
const OUTPUT_TO_FILE: &str = r"(>|>>|>\||&>|&>>)\s*[^\s<>&|(]";

/// The settings default: the reference's table and messages, with patterns that no longer fire on
/// `-i` inside a word, on `echo "a -> b"`, on harmless redirections, or on `cat <<EOF > f` as a read.
pub fn default_rules() -> Vec<Rule> {
    let rule = |name: &str, pattern: String, tool: &str, message: String| Rule {
        name: Some(name.to_owned()),
        pattern,
        flags: None,
        tool: tool.to_owned(),
        message,
    };
    let edit = |what: &str| format!("Use the `edit` tool instead of {what}. {EDIT_SUFFIX}");
    vec![
        rule(
            "file-reader",
            // A heredoc, here-string or output redirection right after the name is not reading a file.
            r"^\s*(cat|head|tail|less|more)\s+([^<>\s]|<\s*[^<\s])".to_owned(),
            "read",
            "Use the `read` tool instead of cat/head/tail. It provides better context and handles binary files."
                .to_owned(),
        ),
        rule(
            "search-tool",
            r"^\s*(grep|rg|ripgrep|ag|ack)\s+".to_owned(),
            "grep",
            "Use the `grep` tool instead of grep/rg. It respects .gitignore and provides structured output.".to_owned(),
        ),
        rule(
            "file-finder",
            r"^\s*(find|fd|locate)\s+.*(-name|-iname|-type|--type|-glob)".to_owned(),
            "find",
            "Use the `find` tool instead of find/fd. It respects .gitignore and is faster for glob patterns."
                .to_owned(),
        ),
        rule(
            "sed-in-place",
            // `-i` anywhere as an option, also inside a cluster such as `-Ei` or as `-i.bak`.
            r"^\s*sed\s+(.*\s)?(-[a-zA-Z]*i|--in-place)".to_owned(),
            "edit",
            edit("sed -i"),
        ),
        rule(
            "perl-in-place",
            // Only switches that take no argument may precede `i` in a cluster (`-pi`, `-ni`), so
            // `-Mstrict` or a word such as `--file-id` is not mistaken for `-i`.
            r"^\s*perl\s+(.*\s)?-[acnpstuwlTUWX0-9]*i".to_owned(),
            "edit",
            edit("perl -i"),
        ),
        rule(
            "awk-in-place",
            r"^\s*g?awk\s+(.*\s)?(-i\s*|--include[=\s]\s*)inplace".to_owned(),
            "edit",
            edit("awk -i inplace"),
        ),
        rule(
            "redirect-write",
            format!(
                r"^\s*(echo|printf)\s(.*[^<>&|])?{o}|^\s*cat\s(.*[^<>&|])?({o}.*<<|<<.*[^<>&|]{o})",
                o = OUTPUT_TO_FILE
            ),
            "write",
            "Use the `write` tool instead of echo/cat redirection. It handles encoding and provides confirmation."
                .to_owned(),
        ),
    ]
}

/// Compiled rules, ready to check commands.
///
/// The text a rule sees, for each simple command (including those in `&&`/`||`/`;` lists, subshells,
/// brace groups, loop and `if` bodies, function bodies, `$( )`, backquotes and `<( )`):
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
/// A simple command that is a second or later stage of a pipeline reads piped stdin and is never
/// checked, even when it also names files (`git log | grep fix file`); commands nested inside such a
/// stage (`ls | while read f; do cat "$f"; done`) are checked, as they are not fed by the pipe.
/// Compound-command redirections (`{ …; } > f`) are not checked.
///
/// When the command cannot be parsed (syntax error, parser panic, nesting too deep), the rules are
/// matched against the whole trimmed command instead, as the reference did.
#[derive(Clone, Debug)]
pub struct Interceptor {
    rules: Vec<CompiledRule>,
    warnings: Vec<String>,
}

/// A rule whose pattern has been checked but is compiled only when first needed: compiling the default
/// rules costs about a millisecond, and most calls have none of their tools available.
#[derive(Clone, Debug)]
struct CompiledRule {
    name: String,
    pattern: String,
    flags: Option<String>,
    regex: std::sync::OnceLock<Option<Regex>>,
    tool: String,
    message: String,
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
}

impl Interceptor {
    /// Compiles `rules`; one that has an invalid regex or flags is skipped and described in
    /// [`Interceptor::warnings`], so one bad setting never disables the others.
    pub fn new(rules: &[Rule]) -> Interceptor {
        let mut compiled = Vec::with_capacity(rules.len());
        let mut warnings = Vec::new();
        for (index, rule) in rules.iter().enumerate() {
            match check_syntax(&rule.pattern, rule.flags.as_deref()) {
                Ok(()) => compiled.push(CompiledRule {
                    name: rule.name.clone().unwrap_or_else(|| format!("rule-{index}")),
                    pattern: rule.pattern.clone(),
                    flags: rule.flags.clone(),
                    regex: std::sync::OnceLock::new(),
                    tool: rule.tool.clone(),
                    message: rule.message.clone(),
                }),
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
    /// (in rule order) whose tool is in `tool_names` and whose regex matches.
    pub fn check(&self, command: &str, tool_names: &[String]) -> Option<Block> {
        let command = command.trim();
        let applicable: Vec<&CompiledRule> = self.rules.iter().filter(|rule| tool_names.contains(&rule.tool)).collect();
        if applicable.is_empty() || command.is_empty() {
            return None;
        }
        let texts = parse::with_parsed(command, |parsed| {
            let mut collector = Collector::default();
            collector.program(parsed, 0);
            collector.texts
        })
        .unwrap_or_else(|| vec![command.to_owned()]);
        texts.iter().find_map(|text| {
            applicable.iter().find(|rule| rule.is_match(text)).map(|rule| Block {
                rule: rule.name.clone(),
                suggested_tool: rule.tool.clone(),
                message: rule.message.clone(),
            })
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

/// How many `$( )` levels deep commands are still collected; deeper ones are ignored.
const MAX_SUBSTITUTION_DEPTH: usize = 8;

/// Walks a parsed program and collects the rule text of every checkable simple command.
#[derive(Default)]
struct Collector {
    texts: Vec<String>,
}

impl Collector {
    fn program(&mut self, parsed: &Parsed<'_>, depth: usize) {
        for list in &parsed.program.complete_commands {
            self.list(parsed, list, depth);
        }
    }

    fn list(&mut self, parsed: &Parsed<'_>, list: &CompoundList, depth: usize) {
        for item in &list.0 {
            self.pipeline(parsed, &item.0.first, depth);
            for next in &item.0.additional {
                let (brush_parser::ast::AndOr::And(pipeline) | brush_parser::ast::AndOr::Or(pipeline)) = next;
                self.pipeline(parsed, pipeline, depth);
            }
        }
    }

    fn pipeline(&mut self, parsed: &Parsed<'_>, pipeline: &Pipeline, depth: usize) {
        for (stage, command) in pipeline.seq.iter().enumerate() {
            self.command(parsed, command, stage > 0, depth);
        }
    }

    fn command(&mut self, parsed: &Parsed<'_>, command: &Command, piped: bool, depth: usize) {
        match command {
            Command::Simple(simple) => {
                let mut rendering = Rendering::new(parsed);
                let text = rendering.simple(simple);
                if !piped && !text.is_empty() {
                    self.texts.push(text);
                }
                self.nested(parsed, rendering, depth);
            }
            Command::Compound(compound, _) => self.compound(parsed, compound, depth),
            Command::Function(function) => self.compound(parsed, &function.body.0, depth),
            Command::ExtendedTest(test, _) => {
                let mut rendering = Rendering::new(parsed);
                rendering.test_words(&test.expr);
                self.nested(parsed, rendering, depth);
            }
        }
    }

    fn compound(&mut self, parsed: &Parsed<'_>, compound: &CompoundCommand, depth: usize) {
        let mut rendering = Rendering::new(parsed);
        match compound {
            CompoundCommand::Arithmetic(_) => {}
            CompoundCommand::ArithmeticForClause(clause) => self.list(parsed, &clause.body.list, depth),
            CompoundCommand::BraceGroup(group) => self.list(parsed, &group.list, depth),
            CompoundCommand::Subshell(subshell) => self.list(parsed, &subshell.list, depth),
            CompoundCommand::ForClause(clause) => {
                for value in clause.values.iter().flatten() {
                    rendering.word(value);
                }
                self.list(parsed, &clause.body.list, depth);
            }
            CompoundCommand::CaseClause(clause) => {
                rendering.word(&clause.value);
                for case in &clause.cases {
                    if let Some(body) = &case.cmd {
                        self.list(parsed, body, depth);
                    }
                }
            }
            CompoundCommand::IfClause(clause) => {
                self.list(parsed, &clause.condition, depth);
                self.list(parsed, &clause.then, depth);
                for branch in clause.elses.iter().flatten() {
                    if let Some(condition) = &branch.condition {
                        self.list(parsed, condition, depth);
                    }
                    self.list(parsed, &branch.body, depth);
                }
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => {
                self.list(parsed, &clause.0, depth);
                self.list(parsed, &clause.1.list, depth);
            }
            CompoundCommand::Coprocess(coprocess) => self.command(parsed, &coprocess.body, false, depth),
        }
        self.nested(parsed, rendering, depth);
    }

    /// Collects the commands a rendering found nested in words: `<( )` in the same source, and
    /// `$( )`/backquote bodies, which are parsed on their own.
    fn nested(&mut self, parsed: &Parsed<'_>, rendering: Rendering<'_, '_>, depth: usize) {
        for list in rendering.process_substitutions {
            self.list(parsed, list, depth);
        }
        if depth >= MAX_SUBSTITUTION_DEPTH {
            return;
        }
        for body in rendering.substitutions {
            if let Some(inner) = parse::parse_here(&body) {
                self.program(&inner, depth + 1);
            }
        }
    }
}

/// Builds the rule text of one simple command and remembers the commands nested in its words.
struct Rendering<'p, 'a> {
    parsed: &'p Parsed<'a>,
    /// Bodies of `$( )` and backquotes, as source text.
    substitutions: Vec<String>,
    /// Bodies of `<( )`/`>( )`, already parsed as part of the same source.
    process_substitutions: Vec<&'p CompoundList>,
}

impl<'p, 'a> Rendering<'p, 'a> {
    fn new(parsed: &'p Parsed<'a>) -> Self {
        Rendering { parsed, substitutions: Vec::new(), process_substitutions: Vec::new() }
    }

    fn simple(&mut self, command: &'p SimpleCommand) -> String {
        let mut parts = Vec::new();
        if let Some(name) = &command.word_or_name {
            parts.push(self.word(name));
        }
        let suffix = command.suffix.iter().flat_map(|suffix| suffix.0.iter());
        for item in suffix {
            if let Some(part) = self.item(item) {
                parts.push(part);
            }
        }
        for item in command.prefix.iter().flat_map(|prefix| prefix.0.iter()) {
            match item {
                CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                    self.word(word);
                }
                other => {
                    if let Some(part) = self.item(other) {
                        parts.push(part);
                    }
                }
            }
        }
        parts.join(" ")
    }

    fn item(&mut self, item: &'p CommandPrefixOrSuffixItem) -> Option<String> {
        match item {
            CommandPrefixOrSuffixItem::Word(word) | CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                Some(self.word(word))
            }
            CommandPrefixOrSuffixItem::IoRedirect(redirect) => self.redirect(redirect),
            CommandPrefixOrSuffixItem::ProcessSubstitution(_, subshell) => {
                self.process_substitutions.push(&subshell.list);
                None
            }
        }
    }

    /// The redirection as rule text, or `None` for one that writes no file.
    fn redirect(&mut self, redirect: &'p IoRedirect) -> Option<String> {
        let fd = |fd: &Option<i32>| fd.map(|n| n.to_string()).unwrap_or_default();
        match redirect {
            IoRedirect::File(number, kind, target) => {
                let operator = match kind {
                    IoFileRedirectKind::Read => "<",
                    IoFileRedirectKind::Write => ">",
                    IoFileRedirectKind::Append => ">>",
                    IoFileRedirectKind::ReadAndWrite => "<>",
                    IoFileRedirectKind::Clobber => ">|",
                    IoFileRedirectKind::DuplicateInput => "<&",
                    IoFileRedirectKind::DuplicateOutput => ">&",
                };
                match target {
                    IoFileRedirectTarget::Filename(word) => {
                        let target = self.word(word);
                        (!self.is_device(word)).then(|| format!("{}{operator}{target}", fd(number)))
                    }
                    IoFileRedirectTarget::Duplicate(word) => {
                        let target = self.word(word);
                        let source = self.source(word);
                        let closes_or_copies_fd = source.trim_end_matches('-').bytes().all(|b| b.is_ascii_digit());
                        (!closes_or_copies_fd && !self.is_device(word))
                            .then(|| format!("{}{operator}{target}", fd(number)))
                    }
                    IoFileRedirectTarget::Fd(_) => None,
                    IoFileRedirectTarget::ProcessSubstitution(_, subshell) => {
                        self.process_substitutions.push(&subshell.list);
                        None
                    }
                }
            }
            IoRedirect::HereDocument(number, heredoc) => {
                let dash = if heredoc.remove_tabs { "-" } else { "" };
                let delimiter = self.word(&heredoc.here_end);
                Some(format!("{}<<{dash}{delimiter}", fd(number)))
            }
            IoRedirect::HereString(number, word) => Some(format!("{}<<<{}", fd(number), self.word(word))),
            IoRedirect::OutputAndError(word, append) => {
                let target = self.word(word);
                let operator = if *append { "&>>" } else { "&>" };
                (!self.is_device(word)).then(|| format!("{operator}{target}"))
            }
        }
    }

    /// Whether a redirection target names a device that is not a file to write.
    fn is_device(&self, word: &Word) -> bool {
        let target = brush_parser::unquote_str(self.source(word));
        matches!(target.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty")
    }

    fn source(&self, word: &'p Word) -> &'p str {
        self.parsed.word(word).unwrap_or(&word.value)
    }

    /// The word as written, with quoted text and expansions masked; records nested commands.
    fn word(&mut self, word: &'p Word) -> String {
        let source = self.source(word);
        let pieces = std::panic::catch_unwind(|| brush_parser::word::parse(source, &ParserOptions::default()));
        match pieces {
            Ok(Ok(pieces)) => {
                let mut out = String::with_capacity(source.len());
                for piece in &pieces {
                    self.piece(source, piece, &mut out);
                }
                out
            }
            // A word the word parser cannot read is masked whole: better silent than wrong.
            _ => mask(source),
        }
    }

    fn piece(&mut self, source: &str, piece: &brush_parser::word::WordPieceWithSource, out: &mut String) {
        let text = source.get(piece.start_index..piece.end_index).unwrap_or("");
        match &piece.piece {
            WordPiece::Text(text) => out.push_str(text),
            WordPiece::TildeExpansion(_) => out.push_str(text),
            WordPiece::SingleQuotedText(inner) => {
                out.push('\'');
                out.push_str(&mask(inner));
                out.push('\'');
            }
            WordPiece::AnsiCQuotedText(inner) => {
                out.push_str("$'");
                out.push_str(&mask(inner));
                out.push('\'');
            }
            WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                let mut discarded = String::new();
                for nested in inner {
                    self.piece(source, nested, &mut discarded);
                }
                let open = if matches!(piece.piece, WordPiece::GettextDoubleQuotedSequence(_)) { "$\"" } else { "\"" };
                out.push_str(open);
                out.push_str(&mask(&discarded));
                out.push('"');
            }
            WordPiece::EscapeSequence(_) => out.push_str("\\x"),
            WordPiece::ParameterExpansion(_) => {
                if text.starts_with("${") {
                    out.push_str("${x}");
                } else {
                    out.push_str(text);
                }
            }
            WordPiece::CommandSubstitution(body) => {
                self.substitutions.push(body.clone());
                out.push_str("$(x)");
            }
            WordPiece::BackquotedCommandSubstitution(body) => {
                self.substitutions.push(body.clone());
                out.push_str("`x`");
            }
            WordPiece::ArithmeticExpression(_) => out.push_str("$((x))"),
        }
    }

    /// Visits the words of a `[[ ]]` test only for the commands nested in them.
    fn test_words(&mut self, expr: &'p ExtendedTestExpr) {
        match expr {
            ExtendedTestExpr::And(left, right) | ExtendedTestExpr::Or(left, right) => {
                self.test_words(left);
                self.test_words(right);
            }
            ExtendedTestExpr::Not(inner) | ExtendedTestExpr::Parenthesized(inner) => self.test_words(inner),
            ExtendedTestExpr::UnaryTest(_, word) => {
                self.word(word);
            }
            ExtendedTestExpr::BinaryTest(_, left, right) => {
                self.word(left);
                self.word(right);
            }
        }
    }
}

/// Replaces every character with `x`, so masked text can match no rule keyword or operator.
fn mask(text: &str) -> String {
    "x".repeat(text.chars().count())
}
