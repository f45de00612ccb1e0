//! The tools the server offers, as `tools/list` shows them: names, descriptions a model can act on,
//! and schemas — the `bash` input schema is the one `bashrt schema` prints, its output schema the
//! result details of `bashrt-core`.

use std::sync::Arc;

use bashrt_core::settings::Settings;
use bashrt_core::view::format_size;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The name of the tool that runs a command.
pub const BASH_TOOL: &str = "bash";

/// The name of the tool that reads a window of an earlier output.
pub const READ_OUTPUT_TOOL: &str = "read_output";

/// The arguments of `read_output`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReadOutputParams {
    /// The artifact named in a bash result's notice: `artifact://7` or `7`
    pub artifact_id: ArtifactRef,
    /// Only the first N lines
    #[serde(default)]
    pub head: Option<u64>,
    /// Only the last N lines
    #[serde(default)]
    pub tail: Option<u64>,
    /// Only lines A to B, 1-based and inclusive, e.g. "1200-1300"
    #[serde(default)]
    pub lines: Option<String>,
    /// Only the lines matching this regular expression, each prefixed with its line number
    #[serde(default)]
    pub grep: Option<String>,
}

/// An artifact as a model names it: the number, or the whole `artifact://<id>`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
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

/// The tools, built once per server.
pub fn list(settings: &Settings) -> Vec<Tool> {
    vec![bash_tool(settings), read_output_tool()]
}

fn bash_tool(settings: &Settings) -> Tool {
    let view = format_size(settings.max_output_bytes as u64);
    let timeout = settings.default_timeout_secs;
    let description = format!(
        "Run a bash command and get its output (stdout and stderr together).\n\
\n\
State: commands of this connection run in one long-lived bash, so variables, functions, aliases and \
shell options persist from one call to the next. The working directory does not: every call starts in \
`cwd` (default: the directory the server started in), so pass `cwd` or write `cd dir && ...` in the \
same call. stdin is /dev/null: a command must not wait for input. A background process (`cmd &`) keeps \
running; the result says how many are left.\n\
\n\
Output: at most {view} is shown. A longer output shows its first lines, the lines that look like errors \
or warnings, and its last lines, followed by a notice naming an artifact (`artifact://N`) that holds the \
full output. Read more of it with the `{READ_OUTPUT_TOOL}` tool (head, tail, a line range, or grep) \
instead of running the command again. `head`/`tail` limit the lines shown; a trailing `| head -n N` or \
`| tail -n N` becomes the same limit, so the full output is still kept.\n\
\n\
Result: a non-zero exit, a signal, a timeout (default {timeout}s, at most 3600s) or a cancel makes it \
an error; its last line says how the command ended (`Command exited with code N`). The structured \
result holds the same as data: exitCode, outcome, durationMs, cwd, and meta.truncation (with the \
artifactId) when the output was cut.",
    );
    let mut tool = Tool::new(BASH_TOOL, description, object(bashrt_core::tool::params_schema()))
        .with_title("Bash")
        .with_raw_output_schema(object(portable(bashrt_core::tool::details_schema())));
    tool.annotations = Some(ToolAnnotations::new().read_only(false).destructive(true).open_world(true));
    tool
}

fn read_output_tool() -> Tool {
    let description = format!(
        "Read part of an earlier command's full output (an artifact, `artifact://N`, named in a `{BASH_TOOL}` \
result's notice) without running the command again: its first lines (`head`), last lines (`tail`), a \
line range (`lines`: \"A-B\"), or the lines matching a regular expression (`grep`, numbered like \
`grep -n`). Give at most one of them; none returns the whole output. One answer carries at most {}; \
narrow the window for more. Works on outputs of any size (a 100 MB build log included).",
        format_size(bashrt_core::artifact::MAX_READ_BYTES as u64)
    );
    let mut tool = Tool::new(READ_OUTPUT_TOOL, description, object(schema_of::<ReadOutputParams>(false)))
        .with_title("Read command output")
        .with_raw_output_schema(object(portable(schema_of::<ReadOutputDetails>(true))));
    tool.annotations = Some(ToolAnnotations::new().read_only(true).open_world(false));
    tool
}

fn schema_of<T: JsonSchema>(serialize: bool) -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12();
    let settings = if serialize { settings.for_serialize() } else { settings.for_deserialize() };
    serde_json::to_value(settings.into_generator().into_root_schema_for::<T>()).unwrap_or(Value::Null)
}

/// `schema` without the number formats schemars adds (`uint64`, `double`, …): JSON Schema does not
/// define them, and clients that validate results warn about every one.
fn portable(mut schema: Value) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                let numeric = map.get("format").and_then(Value::as_str).is_some_and(|f| {
                    matches!(
                        f,
                        "uint"
                            | "uint8"
                            | "uint16"
                            | "uint32"
                            | "uint64"
                            | "int8"
                            | "int16"
                            | "int32"
                            | "int64"
                            | "float"
                            | "double"
                    )
                });
                if numeric {
                    map.remove("format");
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut schema);
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
    fn every_tool_declares_object_schemas() {
        for tool in list(&Settings::default()) {
            assert_eq!(tool.input_schema.get("type"), Some(&Value::from("object")), "{}", tool.name);
            let output = tool.output_schema.as_ref().unwrap();
            assert_eq!(output.get("type"), Some(&Value::from("object")), "{}", tool.name);
        }
    }

    #[test]
    fn the_bash_input_schema_is_the_cli_schema() {
        let tools = list(&Settings::default());
        assert_eq!(Value::Object((*tools[0].input_schema).clone()), bashrt_core::tool::params_schema());
    }
}
