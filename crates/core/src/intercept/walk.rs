//! Finding the simple commands of a parsed program, in source order, and where each sits: whether its
//! output reaches the model (not captured, piped, redirected, tested, in the background or repeated),
//! and its words after quote removal (`None` for a word the shell would expand) with its redirections.

use brush_parser::ast::{
    AndOr, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, ExtendedTestExpr, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect, Pipeline, SeparatorOperator, SimpleCommand, Word,
};
use brush_parser::word::WordPiece;
use brush_parser::ParserOptions;

use super::form::{Invocation, Redirect};
use crate::parse::{self, Parsed};

/// How many `$( )` levels deep commands are still checked; deeper ones are ignored.
const MAX_SUBSTITUTION_DEPTH: usize = 8;

/// Where a simple command sits, as far as whether its output reaches the model.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Place {
    /// Inside `$( )`, backquotes or `<( )`/`>( )`: its output is captured.
    captured: bool,
    /// A stage of a pipeline of two or more, or inside one.
    piped: bool,
    /// Inside a compound command that has a redirection.
    redirected: bool,
    /// Its exit status is used (`&&`, `||`, `!`, conditions of `if`, `while`, `until`).
    tested: bool,
    /// Run asynchronously (`&`, `coproc`).
    background: bool,
    /// In the body of a loop, or timed with `time`: more than one call of a tool would do.
    repeated: bool,
    /// A second or later stage of a pipeline itself (not a command nested in one).
    pub(super) reads_pipe: bool,
}

impl Place {
    pub(super) fn shown(self) -> bool {
        !(self.captured || self.piped || self.redirected || self.tested || self.background || self.repeated)
    }
}

/// A simple command as the rules see it.
pub(super) struct Candidate {
    /// What a regex matches (see [`Interceptor`](super::Interceptor)).
    pub(super) text: String,
    pub(super) invocation: Invocation,
    pub(super) place: Place,
}

impl Candidate {
    /// `cd` only sets where the next command runs; a tool takes that as a path.
    pub(super) fn is_cd(&self) -> bool {
        self.invocation.name.as_deref() == Some("cd")
    }
}

/// Walks a parsed program and collects every simple command in source order (a command's own text
/// before the commands nested in its words).
#[derive(Default)]
pub(super) struct Walker {
    pub(super) candidates: Vec<Candidate>,
}

impl Walker {
    pub(super) fn program(&mut self, parsed: &Parsed<'_>, place: Place, depth: usize) {
        for list in &parsed.program.complete_commands {
            self.list(parsed, list, place, depth);
        }
    }

    fn list(&mut self, parsed: &Parsed<'_>, list: &CompoundList, place: Place, depth: usize) {
        for item in &list.0 {
            let place = Place { background: place.background || matches!(item.1, SeparatorOperator::Async), ..place };
            let and_or = &item.0;
            let tested = Place { tested: true, ..place };
            let pipelines = std::iter::once(&and_or.first).chain(and_or.additional.iter().map(|next| match next {
                AndOr::And(pipeline) | AndOr::Or(pipeline) => pipeline,
            }));
            let last = and_or.additional.len();
            for (index, pipeline) in pipelines.enumerate() {
                self.pipeline(parsed, pipeline, if index < last { tested } else { place }, depth);
            }
        }
    }

    fn pipeline(&mut self, parsed: &Parsed<'_>, pipeline: &Pipeline, place: Place, depth: usize) {
        let place = Place {
            tested: place.tested || pipeline.bang,
            piped: place.piped || pipeline.seq.len() > 1,
            repeated: place.repeated || pipeline.timed.is_some(),
            ..place
        };
        for (stage, command) in pipeline.seq.iter().enumerate() {
            self.command(parsed, command, Place { reads_pipe: stage > 0, ..place }, depth);
        }
    }

    fn command(&mut self, parsed: &Parsed<'_>, command: &Command, place: Place, depth: usize) {
        let nested = Place { reads_pipe: false, ..place };
        match command {
            Command::Simple(simple) => {
                let mut rendering = Rendering::new(parsed);
                let (text, invocation) = rendering.simple(simple);
                if !text.is_empty() {
                    self.candidates.push(Candidate { text, invocation, place });
                }
                self.nested(parsed, rendering, place, depth);
            }
            Command::Compound(compound, redirects) => {
                let place = Place { redirected: nested.redirected || redirects.is_some(), ..nested };
                self.compound(parsed, compound, place, depth)
            }
            Command::Function(function) => {
                let place = Place { redirected: nested.redirected || function.body.1.is_some(), ..nested };
                self.compound(parsed, &function.body.0, place, depth)
            }
            Command::ExtendedTest(test, _) => {
                let mut rendering = Rendering::new(parsed);
                rendering.test_words(&test.expr);
                self.nested(parsed, rendering, place, depth);
            }
        }
    }

    fn compound(&mut self, parsed: &Parsed<'_>, compound: &CompoundCommand, place: Place, depth: usize) {
        let mut rendering = Rendering::new(parsed);
        let tested = Place { tested: true, ..place };
        let repeated = Place { repeated: true, ..place };
        match compound {
            CompoundCommand::Arithmetic(_) => {}
            CompoundCommand::ArithmeticForClause(clause) => self.list(parsed, &clause.body.list, repeated, depth),
            CompoundCommand::BraceGroup(group) => self.list(parsed, &group.list, place, depth),
            CompoundCommand::Subshell(subshell) => self.list(parsed, &subshell.list, place, depth),
            CompoundCommand::ForClause(clause) => {
                for value in clause.values.iter().flatten() {
                    rendering.word(value);
                }
                self.list(parsed, &clause.body.list, repeated, depth);
            }
            CompoundCommand::CaseClause(clause) => {
                rendering.word(&clause.value);
                for case in &clause.cases {
                    if let Some(body) = &case.cmd {
                        self.list(parsed, body, place, depth);
                    }
                }
            }
            CompoundCommand::IfClause(clause) => {
                self.list(parsed, &clause.condition, tested, depth);
                self.list(parsed, &clause.then, place, depth);
                for branch in clause.elses.iter().flatten() {
                    if let Some(condition) = &branch.condition {
                        self.list(parsed, condition, tested, depth);
                    }
                    self.list(parsed, &branch.body, place, depth);
                }
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => {
                self.list(parsed, &clause.0, Place { tested: true, ..repeated }, depth);
                self.list(parsed, &clause.1.list, repeated, depth);
            }
            CompoundCommand::Coprocess(coprocess) => {
                self.command(parsed, &coprocess.body, Place { background: true, ..place }, depth)
            }
        }
        self.nested(parsed, rendering, place, depth);
    }

    /// Visits the commands a rendering found nested in words: `<( )` in the same source, and
    /// `$( )`/backquote bodies, which are parsed on their own. Their output is captured.
    fn nested(&mut self, parsed: &Parsed<'_>, rendering: Rendering<'_, '_>, place: Place, depth: usize) {
        let captured = Place { captured: true, reads_pipe: false, ..place };
        for list in rendering.process_substitutions {
            self.list(parsed, list, captured, depth);
        }
        if depth >= MAX_SUBSTITUTION_DEPTH {
            return;
        }
        for body in rendering.substitutions {
            if let Some(inner) = parse::parse_here(&body) {
                self.program(&inner, captured, depth + 1);
            }
        }
    }
}

/// Builds the rule text and the [`Invocation`] of one simple command, and remembers the commands
/// nested in its words.
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

    fn simple(&mut self, command: &'p SimpleCommand) -> (String, Invocation) {
        let mut parts = Vec::new();
        let mut invocation = Invocation::default();
        if let Some(name) = &command.word_or_name {
            let (text, value) = self.word_and_value(name);
            // Only a name written as plain text is the command it looks like (`\cat` skips aliases).
            invocation.name = value.filter(|value| value.as_str() == self.source(name));
            parts.push(text);
        }
        for item in command.suffix.iter().flat_map(|suffix| suffix.0.iter()) {
            match item {
                CommandPrefixOrSuffixItem::Word(word) | CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                    let (text, value) = self.word_and_value(word);
                    parts.push(text);
                    invocation.args.push(value);
                }
                CommandPrefixOrSuffixItem::IoRedirect(redirect) => {
                    parts.extend(self.redirect(redirect));
                    invocation.redirects.push(self.redirect_kind(redirect));
                }
                CommandPrefixOrSuffixItem::ProcessSubstitution(_, subshell) => {
                    self.process_substitutions.push(&subshell.list);
                    invocation.args.push(None);
                }
            }
        }
        for item in command.prefix.iter().flat_map(|prefix| prefix.0.iter()) {
            match item {
                CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                    self.word(word);
                    invocation.assigns = true;
                }
                CommandPrefixOrSuffixItem::IoRedirect(redirect) => {
                    parts.extend(self.redirect(redirect));
                    invocation.redirects.push(self.redirect_kind(redirect));
                }
                CommandPrefixOrSuffixItem::Word(word) => parts.push(self.word(word)),
                CommandPrefixOrSuffixItem::ProcessSubstitution(_, subshell) => {
                    self.process_substitutions.push(&subshell.list);
                    invocation.redirects.push(Redirect::Other);
                }
            }
        }
        (parts.join(" "), invocation)
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

    /// The redirection as a form sees it.
    fn redirect_kind(&self, redirect: &IoRedirect) -> Redirect {
        let stdout = |fd: &Option<i32>| matches!(fd, None | Some(1));
        match redirect {
            IoRedirect::File(fd, IoFileRedirectKind::Write | IoFileRedirectKind::Clobber, target) if stdout(fd) => {
                match target {
                    IoFileRedirectTarget::Filename(word) => Redirect::Replace(static_value(self.source(word))),
                    _ => Redirect::Other,
                }
            }
            IoRedirect::OutputAndError(word, false) => Redirect::Replace(static_value(self.source(word))),
            IoRedirect::HereDocument(None | Some(0), heredoc) => {
                Redirect::Text(!heredoc.requires_expansion || !heredoc.doc.value.contains(['$', '`', '\\']))
            }
            IoRedirect::HereString(None | Some(0), word) => Redirect::Text(static_value(self.source(word)).is_some()),
            _ => Redirect::Other,
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
        self.word_and_value(word).0
    }

    /// The masked word (see [`Rendering::word`]) and its value after quote removal, `None` when the
    /// shell would expand something in it.
    fn word_and_value(&mut self, word: &'p Word) -> (String, Option<String>) {
        let source = self.source(word);
        match parse_word(source) {
            Some(pieces) => {
                let mut out = String::with_capacity(source.len());
                let mut value = Some(String::with_capacity(source.len()));
                for piece in &pieces {
                    self.piece(source, piece, &mut out, &mut value, false);
                }
                (out, value)
            }
            // A word the word parser cannot read is masked whole: better silent than wrong.
            None => (mask(source), None),
        }
    }

    fn piece(
        &mut self,
        source: &str,
        piece: &brush_parser::word::WordPieceWithSource,
        out: &mut String,
        value: &mut Option<String>,
        quoted: bool,
    ) {
        let text = source.get(piece.start_index..piece.end_index).unwrap_or("");
        push_value(value, &piece.piece, text, quoted);
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
                let mut inner_value =
                    value.take().filter(|_| matches!(piece.piece, WordPiece::DoubleQuotedSequence(_)));
                for nested in inner {
                    self.piece(source, nested, &mut discarded, &mut inner_value, true);
                }
                *value = inner_value;
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

/// brush's word parser, which panics on some input.
fn parse_word(source: &str) -> Option<Vec<brush_parser::word::WordPieceWithSource>> {
    std::panic::catch_unwind(|| brush_parser::word::parse(source, &ParserOptions::default())).ok()?.ok()
}

/// The value of a word after quote removal, `None` when the shell would expand something in it.
fn static_value(source: &str) -> Option<String> {
    let mut value = Some(String::with_capacity(source.len()));
    for piece in parse_word(source)? {
        let text = source.get(piece.start_index..piece.end_index).unwrap_or("");
        push_value(&mut value, &piece.piece, text, false);
        if let WordPiece::DoubleQuotedSequence(inner) = &piece.piece {
            for nested in inner {
                let text = source.get(nested.start_index..nested.end_index).unwrap_or("");
                push_value(&mut value, &nested.piece, text, true);
            }
        }
    }
    value
}

/// Appends what `piece` contributes to a word's static value, or makes it `None` when the piece is
/// expanded by the shell. A double-quoted sequence contributes through its inner pieces.
fn push_value(value: &mut Option<String>, piece: &WordPiece, text: &str, quoted: bool) {
    let Some(out) = value.as_mut() else { return };
    match piece {
        // An unquoted glob or brace pattern becomes whatever the file system or the braces say; `!`
        // is history expansion in an interactive shell.
        WordPiece::Text(text) if !quoted && text.contains(['*', '?', '[', '{', '!']) => *value = None,
        WordPiece::Text(text) | WordPiece::SingleQuotedText(text) => out.push_str(text),
        WordPiece::AnsiCQuotedText(text) if !text.contains('\\') => out.push_str(text),
        // `\` and a newline is a line continuation: nothing.
        WordPiece::EscapeSequence(escaped) => out.push_str(escaped.get(1..).unwrap_or("").trim_start_matches('\n')),
        WordPiece::TildeExpansion(_) if !quoted => out.push_str(text),
        WordPiece::DoubleQuotedSequence(_) => {}
        _ => *value = None,
    }
}

/// Replaces every character with `x`, so masked text can match no rule keyword or operator.
fn mask(text: &str) -> String {
    "x".repeat(text.chars().count())
}
