//! The tools the server offers, as `tools/list` shows them: names, descriptions a model can act on,
//! and schemas — the `bash` input schema is the one `bashrt schema` prints, its output schema the
//! result details of `bashrt-core`.

use std::sync::Arc;

use bashrt_core::{format_size, Settings};
use rmcp::model::{JsonObject, MetaObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::shape::ResultShape;

/// The name of the tool that runs a command.
pub const BASH_TOOL: &str = "bash";

/// The name of the tool that runs a command with more than the sandbox allows: `bash` with
/// `sandbox` required, which the user's client asks them about before each call (its permission
/// prompt is the approval).
pub const BASH_ESCALATED_TOOL: &str = "bash_escalated";

/// The name of the tool that follows, reads and kills the jobs `bash` calls became.
pub const JOB_TOOL: &str = "job";

/// The name of the tool that reads a window of an earlier output.
pub const READ_OUTPUT_TOOL: &str = "read_output";

/// The arguments of `read_output`, read the tolerant way ([`ReadOutputParams::read`]).
#[derive(Debug, Clone, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "Which output to read, and which part of it.")]
pub struct ReadOutputParams {
    /// The artifact named in a bash result's notice: `artifact://7` or `7`
    pub artifact_id: ArtifactRef,
    /// Only the first N lines
    pub head: Option<u64>,
    /// Only the last N lines
    pub tail: Option<u64>,
    /// Only lines A to B, 1-based and inclusive, e.g. "1200-1300"
    pub lines: Option<String>,
    /// Only the lines matching this regular expression, each prefixed with its line number
    pub grep: Option<String>,
    /// Arguments given that the tool does not take, ignored.
    #[schemars(skip)]
    pub ignored: Vec<String>,
}

impl ReadOutputParams {
    /// The arguments as a model sent them: numbers may come as strings, `artifact_id` or `uri` may
    /// name the artifact, a line number may stand for `lines`, and unknown arguments (a client's
    /// `wait_for_previous`) are ignored.
    pub fn read(arguments: &serde_json::Map<String, Value>) -> Result<Self, String> {
        let field = |names: &[&str]| names.iter().find_map(|name| arguments.get(*name).filter(|v| !v.is_null()));
        let invalid = |what: String| format!("Invalid arguments for tool {READ_OUTPUT_TOOL}: {what}");
        let artifact_id = match field(&["artifactId", "artifact_id", "artifact", "uri", "id"]) {
            Some(Value::Number(n)) => {
                ArtifactRef::Number(n.as_u64().ok_or_else(|| invalid(format!("no artifact {n}")))?)
            }
            Some(Value::String(text)) => ArtifactRef::Text(text.clone()),
            Some(other) => {
                return Err(invalid(format!("`artifactId` must be an artifact like \"artifact://7\", got {other}")))
            }
            None => {
                return Err(invalid(
                    "`artifactId` is required: the artifact named in a bash result (`artifact://7`)".into(),
                ))
            }
        };
        let count = |name: &str| bashrt_core::read_count_field(arguments, name).map_err(|e| e.to_string());
        let text = |name: &str| match arguments.get(name) {
            None | Some(Value::Null) => Ok(None),
            // One line, as a number or a string holding one: `12` is `12-12`.
            Some(Value::Number(n)) if name == "lines" => Ok(Some(format!("{n}-{n}"))),
            Some(Value::String(text)) if name == "lines" && text.trim().parse::<u64>().is_ok() => {
                Ok(Some(format!("{0}-{0}", text.trim())))
            }
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(invalid(format!("`{name}` must be a string, got {other}"))),
        };
        let read = |name: &str| count(name).map_err(|e| e.replace("tool bash", &format!("tool {READ_OUTPUT_TOOL}")));
        let known = ["artifactId", "artifact_id", "artifact", "uri", "id", "head", "tail", "lines", "grep"];
        let ignored = arguments.keys().filter(|k| !known.contains(&k.as_str())).cloned().collect();
        Ok(Self {
            artifact_id,
            head: read("head")?,
            tail: read("tail")?,
            lines: text("lines")?,
            grep: text("grep")?,
            ignored,
        })
    }
}

/// An artifact as a model names it: the number, or the whole `artifact://<id>`.
#[derive(Debug, Clone, JsonSchema)]
#[serde(untagged)]
pub enum ArtifactRef {
    /// `7`
    Number(u64),
    /// `"artifact://7"` or `"7"`
    Text(String),
}

impl ArtifactRef {
    /// The reference as the artifact directory resolves it.
    pub fn as_reference(&self) -> String {
        match self {
            ArtifactRef::Number(n) => n.to_string(),
            ArtifactRef::Text(text) => text.trim().to_string(),
        }
    }
}

/// What `read_output` returns besides the text.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadOutputDetails {
    /// The artifact read.
    pub artifact_id: u64,
    /// Bytes of window text returned.
    pub bytes: u64,
    /// The window was cut at the read limit; ask for a narrower one (a line range, or grep).
    pub truncated: bool,
}

/// The tools, built once per server: with their `outputSchema` when the details go in
/// `structuredContent` ([`ResultShape::structured`]).
pub fn list(settings: &Settings, shape: &ResultShape) -> Vec<Tool> {
    let mut tools = vec![bash_tool(settings), read_output_tool(settings), job_tool(settings)];
    if settings.sandbox.mode != bashrt_core::SandboxMode::Off {
        tools.push(bash_escalated_tool(settings));
    }
    if !shape.structured {
        for tool in &mut tools {
            tool.output_schema = None;
        }
    }
    tools
}

/// `_meta` of a tool, for Claude Code: load its schema up front rather than behind a tool search
/// (bashrt is the agent's shell), and pass answers up to `max_chars` whole rather than to a file.
fn tool_meta(max_chars: usize) -> MetaObject {
    let mut meta = serde_json::Map::new();
    meta.insert("anthropic/alwaysLoad".into(), Value::Bool(true));
    meta.insert("anthropic/maxResultSizeChars".into(), Value::from(max_chars.min(500_000)));
    MetaObject(meta)
}

/// The most characters a result of these settings has: the view, and room for its notices.
fn result_chars(settings: &Settings) -> usize {
    settings.max_output_bytes + 8 * 1024
}

fn bash_tool(settings: &Settings) -> Tool {
    let mut view = format_size(settings.max_output_bytes as u64);
    if settings.view_budget(true) < settings.max_output_bytes {
        view.push_str(&format!(" ({} when the command fails)", format_size(settings.view_budget(true) as u64)));
    }
    let timeout = settings.default_timeout_secs;
    let yield_secs = settings.yield_ms as f64 / 1000.0;
    let sandbox = match settings.sandbox.mode {
        bashrt_core::SandboxMode::Off => String::new(),
        _ => format!(
            "\n\nSandbox: commands write only in the workspace, /tmp and the package caches; credentials \
(~/.ssh, ~/.aws, …) are unreadable; the network reaches only servers the commands started. A refusal \
ends the result with `[Sandbox denied: …]`. When the command truly needs more, call `{BASH_ESCALATED_TOOL}` \
with the same arguments and `sandbox` (e.g. {{\"write\": [\"~/.cache/uv\"], \"reason\": \"…\"}}): the \
user decides."
        ),
    };
    let description = format!(
        "Run a bash command and get its output (stdout and stderr together).\n\
\n\
State: commands of this connection run in one long-lived bash, so variables, functions, aliases and \
shell options persist from one call to the next (calls sent at once each get that state). The working \
directory does not: every call starts in `cwd` (default: the directory the server started in), so pass \
`cwd` or write `cd dir && ...` in the same call. stdin is /dev/null unless `stdin` says \"pipe\" (a \
prompt returns the call as a job that `{JOB_TOOL}` answers) or \"pty\" (a terminal, for `read -p`, sudo, \
pagers and REPLs; `{JOB_TOOL}` types into it and presses keys).\n\
\n\
Long commands: a command still running after `yield_ms` (default {yield_secs} s) goes on as a job: the \
result shows its output so far and its job id, and the `{JOB_TOOL}` tool waits for it, reads its new output \
and kills it. A server returns as soon as it listens on a port; `background: true` returns after a short \
look. `timeout` still ends the command, job or not.\n\
\n\
Output: at most {view} is shown. A longer output shows its first lines, the lines that look like errors \
or warnings, and its last lines, followed by a notice naming an artifact (`artifact://N`) that holds the \
full output. Read more of it with the `{READ_OUTPUT_TOOL}` tool (head, tail, a line range, or grep) \
instead of running the command again. `head`/`tail` limit the lines shown; a trailing `| head -n N` or \
`| tail -n N` becomes the same limit, so the full output is still kept.\n\
\n\
Result: the last line says how the command ended when it failed (`Command exited with code N`, a \
signal, `[Command timed out after N seconds]`; timeout in seconds, default {timeout}, at most 3600).{sandbox}",
    );
    let mut tool = Tool::new(BASH_TOOL, description, object(bashrt_core::params_schema()))
        .with_title("Bash")
        .with_raw_output_schema(object(portable(bashrt_core::details_schema())));
    tool.annotations = Some(ToolAnnotations::new().read_only(false).destructive(true).open_world(true));
    tool.meta = Some(tool_meta(result_chars(settings)));
    tool
}

fn bash_escalated_tool(settings: &Settings) -> Tool {
    let description = format!(
        "Run a bash command with more than the sandbox allows, after a `{BASH_TOOL}` result said \
`[Sandbox denied: …]`: the same arguments as `{BASH_TOOL}`, plus `sandbox`, which says what it needs and \
why: `write` (paths to make writable), `read` (credentials to make readable), `network`: \"on\", \
`loopbackPorts` (local services), or `off`: true (no sandbox at all), and `reason` (shown to the user). \
The user's client asks them before this tool runs; nothing else changes, and the next `{BASH_TOOL}` calls \
are sandboxed as before."
    );
    let mut schema = bashrt_core::params_schema();
    if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
        required.push(Value::String("sandbox".into()));
    }
    let mut tool = Tool::new(BASH_ESCALATED_TOOL, description, object(schema))
        .with_title("Bash, beyond the sandbox")
        .with_raw_output_schema(object(portable(bashrt_core::details_schema())));
    tool.annotations = Some(ToolAnnotations::new().read_only(false).destructive(true).open_world(true));
    tool.meta = Some(tool_meta(result_chars(settings)));
    tool
}

/// The most one `read_output` answer carries: what a command's view may show, so that it fits what
/// the client passes to its model.
pub fn read_limit(settings: &Settings) -> usize {
    settings.max_output_bytes.min(bashrt_core::MAX_READ_BYTES)
}

fn read_output_tool(settings: &Settings) -> Tool {
    let description = format!(
        "Read part of an earlier command's full output (an artifact, `artifact://N`, named in a `{BASH_TOOL}` \
result's notice) without running the command again: its first lines (`head`), last lines (`tail`), a \
line range (`lines`: \"A-B\"), or the lines matching a regular expression (`grep`, numbered like \
`grep -n`). Give at most one of them; none returns the whole output. One answer carries at most {}; \
narrow the window for more. Works on outputs of any size (a 100 MB build log included).",
        format_size(read_limit(settings) as u64)
    );
    let mut tool = Tool::new(READ_OUTPUT_TOOL, description, object(portable(schema_of::<ReadOutputParams>(false))))
        .with_title("Read command output")
        .with_raw_output_schema(object(portable(schema_of::<ReadOutputDetails>(true))));
    tool.annotations = Some(ToolAnnotations::new().read_only(true).open_world(false));
    tool.meta = Some(tool_meta(result_chars(settings)));
    tool
}

fn job_tool(settings: &Settings) -> Tool {
    let description = format!(
        "Follow the jobs `{BASH_TOOL}` calls became (a command still running at its yield time, a server, a \
`background` call). `wait` returns when the job ends, or as soon as a new output line matches `until` (a \
regular expression) or it listens on `port`, at most `timeout` seconds (default 30), with the output \
printed since the last read; `read` returns that output at once; `kill` stops the job; `list` shows every \
job and its state. The end of a job that was not read is told once, at the start of the next result.",
    );
    let mut tool = Tool::new(JOB_TOOL, description, object(portable(bashrt_core::job_params_schema())))
        .with_title("Jobs")
        .with_raw_output_schema(object(portable(bashrt_core::details_schema())));
    tool.annotations = Some(ToolAnnotations::new().read_only(false).destructive(true).open_world(false));
    tool.meta = Some(tool_meta(result_chars(settings)));
    tool
}

fn schema_of<T: JsonSchema>(serialize: bool) -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12();
    let settings = if serialize { settings.for_serialize() } else { settings.for_deserialize() };
    serde_json::to_value(settings.into_generator().into_root_schema_for::<T>()).unwrap_or(Value::Null)
}

/// `schema` as every client takes it (no number formats a validator warns about; see
/// [`bashrt_core::schema`]), without the Rust type's name as its title.
fn portable(schema: Value) -> Value {
    let mut schema = bashrt_core::portable_schema(schema);
    if let Value::Object(map) = &mut schema {
        map.remove("title");
    }
    schema
}

/// A schema as the protocol carries it: a JSON object (an empty one if serialization ever failed).
fn object(schema: Value) -> Arc<JsonObject> {
    Arc::new(match schema {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_declares_object_schemas_and_an_output_schema_only_with_structured_results() {
        let structured = ResultShape { structured: true, ..ResultShape::default() };
        for tool in list(&Settings::default(), &structured) {
            assert_eq!(tool.input_schema.get("type"), Some(&Value::from("object")), "{}", tool.name);
            let output = tool.output_schema.as_ref().unwrap();
            assert_eq!(output.get("type"), Some(&Value::from("object")), "{}", tool.name);
        }
        for tool in list(&Settings::default(), &ResultShape::default()) {
            assert!(tool.output_schema.is_none(), "{}", tool.name);
            let text = serde_json::to_string(&*tool.input_schema).unwrap();
            assert!(!text.contains("uint") && !text.contains("format"), "{text}");
        }
    }

    #[test]
    fn the_bash_input_schema_is_the_cli_schema() {
        let tools = list(&Settings::default(), &ResultShape::default());
        assert_eq!(Value::Object((*tools[0].input_schema).clone()), bashrt_core::params_schema());
    }

    #[test]
    fn read_output_arguments_are_read_the_tolerant_way() {
        let read = |value: Value| ReadOutputParams::read(value.as_object().unwrap());
        let p = read(serde_json::json!({"artifactId": 7, "head": "20", "wait_for_previous": true})).unwrap();
        assert_eq!((p.artifact_id.as_reference(), p.head), ("7".to_string(), Some(20)));
        let p = read(serde_json::json!({"artifact_id": "artifact://3", "lines": 12, "offset": 5})).unwrap();
        assert_eq!((p.artifact_id.as_reference(), p.lines.as_deref()), ("artifact://3".to_string(), Some("12-12")));
        assert_eq!(p.ignored, ["offset"]);
        assert_eq!(read(serde_json::json!({"artifactId": 3, "lines": " 7 "})).unwrap().lines.as_deref(), Some("7-7"));
        let e = read(serde_json::json!({"head": 3})).unwrap_err();
        assert!(e.starts_with("Invalid arguments for tool read_output: `artifactId` is required"), "{e}");
        let e = read(serde_json::json!({"artifactId": 1, "tail": "x"})).unwrap_err();
        assert_eq!(e, "Invalid arguments for tool read_output: `tail` must be a whole number of lines, got \"x\"");
    }
}
