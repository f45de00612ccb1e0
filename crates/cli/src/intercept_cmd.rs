//! `bashrt intercept`: says whether commands would be blocked by the interceptor, and by which rule,
//! without running anything. Commands come one per line on stdin (plain text, or a JSON object with
//! `command` or `cmd`, for commands of several lines) or as arguments; one JSON verdict per command
//! goes to stdout. `--rules` prints the rules in effect in the settings format.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use bashrt_core::Interceptor;
use serde_json::{json, Map, Value};

use crate::config::load_settings;
use crate::{fail, EXIT_REFUSED};

/// Exit status when at least one command would be blocked.
const EXIT_BLOCKED: u8 = 1;

#[derive(clap::Args)]
pub struct InterceptArgs {
    /// Tools the caller has, comma separated (a rule blocks only when its tool is one of them).
    #[arg(long, value_delimiter = ',', value_parser = tool_name)]
    tools: Vec<String>,
    /// Print the rules in effect (the built-in ones unless settings replace them) as JSON, and exit.
    #[arg(long)]
    rules: bool,
    /// Settings file (default: $BASHRT_SETTINGS or ~/.config/bashrt/settings.json).
    #[arg(long)]
    settings: Option<PathBuf>,
    /// Override one setting: KEY=VALUE (VALUE is JSON, or a plain string).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// A command to check instead of reading stdin; several words are joined with spaces.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<String>,
}

/// One name of a `--tools` list, without the blanks around it (`--tools 'read, grep'`).
pub fn tool_name(raw: &str) -> Result<String, std::convert::Infallible> {
    Ok(raw.trim().to_owned())
}

/// The tool names of a `--tools` list, without empty ones (`--tools read,`).
pub fn tool_names(names: Vec<String>) -> Vec<String> {
    names.into_iter().filter(|name| !name.is_empty()).collect()
}

pub fn run(args: InterceptArgs) -> ExitCode {
    let settings = match load_settings(args.settings.as_ref(), &args.set) {
        Ok(settings) => settings,
        Err(e) => return fail(e),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.rules {
        // A reader that stops early (`| head`) is not an error: keep the kind of an I/O failure.
        let written = serde_json::to_writer_pretty(&mut out, &settings.interceptor_rules)
            .map_err(|e| e.io_error_kind().map_or_else(|| std::io::Error::other(e), std::io::Error::from))
            .and_then(|()| writeln!(out));
        return finish(written, false, false);
    }
    let interceptor = Interceptor::new(&settings.interceptor_rules);
    for warning in interceptor.warnings() {
        eprintln!("bashrt: warning: {warning}");
    }
    if !settings.interceptor_enabled {
        eprintln!("bashrt: warning: bashInterceptor.enabled is false: nothing is blocked");
    }
    let tools = tool_names(args.tools);
    let verdict = |command: &str| match settings.interceptor_enabled {
        true => interceptor.check(command, &tools),
        false => None,
    };
    let mut blocked = false;
    let mut bad_input = false;
    let written = if args.command.is_empty() {
        let stdin = std::io::stdin();
        check_lines(stdin.lock(), &mut out, |line, fields| {
            let result = verdict_line(line, fields, &verdict);
            blocked |= result.get("blocked") == Some(&Value::Bool(true));
            bad_input |= result.contains_key("error");
            result
        })
    } else {
        let result = verdict_line(1, Ok(command_fields(args.command.join(" "))), &verdict);
        blocked = result.get("blocked") == Some(&Value::Bool(true));
        write_line(&mut out, &result)
    };
    finish(written, blocked, bad_input)
}

/// The exit status: 2 when output failed or a line was bad, else 1 when something was blocked.
fn finish(written: std::io::Result<()>, blocked: bool, bad_input: bool) -> ExitCode {
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(format!("cannot write verdicts: {e}")),
        Ok(()) if bad_input => ExitCode::from(EXIT_REFUSED),
        Ok(()) if blocked => ExitCode::from(EXIT_BLOCKED),
        Ok(()) => ExitCode::SUCCESS,
    }
}

/// The fields of an input line: `command` and anything to echo back (`id`), or why the line is bad.
type Fields = Result<Map<String, Value>, String>;

fn command_fields(command: String) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("command".to_owned(), Value::String(command));
    fields
}

/// Reads commands line by line and writes what `judge` says about each, in order.
fn check_lines(
    input: impl BufRead,
    out: &mut impl Write,
    mut judge: impl FnMut(usize, Fields) -> Map<String, Value>,
) -> std::io::Result<()> {
    for (index, line) in input.split(b'\n').enumerate() {
        let line = line?;
        let fields = match String::from_utf8(line) {
            Ok(text) => parse_line(text.strip_suffix('\r').map(str::to_owned).unwrap_or(text)),
            Err(_) => Err("the line is not UTF-8".to_owned()),
        };
        write_line(out, &judge(index + 1, fields))?;
    }
    out.flush()
}

/// A JSON object gives `command` (or `cmd`) and an optional `id`; any other line is the command.
fn parse_line(line: String) -> Fields {
    if !line.trim_start().starts_with('{') {
        return Ok(command_fields(line));
    }
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(&line) else {
        return Ok(command_fields(line));
    };
    let command = match object.get("command").or_else(|| object.get("cmd")) {
        Some(Value::String(command)) => command.clone(),
        _ => return Err("a JSON line needs a string `command` (or `cmd`)".to_owned()),
    };
    let mut fields = command_fields(command);
    if let Some(id) = object.get("id") {
        fields.insert("id".to_owned(), id.clone());
    }
    Ok(fields)
}

fn verdict_line(
    line: usize,
    fields: Fields,
    verdict: &impl Fn(&str) -> Option<bashrt_core::Block>,
) -> Map<String, Value> {
    let mut result = Map::new();
    result.insert("line".to_owned(), json!(line));
    match fields {
        Err(error) => {
            result.insert("error".to_owned(), Value::String(error));
        }
        Ok(fields) => {
            let block = fields.get("command").and_then(Value::as_str).and_then(verdict);
            result.extend(fields);
            result.insert("blocked".to_owned(), Value::Bool(block.is_some()));
            if let Some(block) = block {
                result.insert("rule".to_owned(), Value::String(block.rule));
                result.insert("suggestedTool".to_owned(), Value::String(block.suggested_tool));
                result.insert("message".to_owned(), Value::String(block.message));
            }
        }
    }
    result
}

fn write_line(out: &mut impl Write, object: &Map<String, Value>) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, object).map_err(std::io::Error::other)?;
    out.write_all(b"\n")
}
