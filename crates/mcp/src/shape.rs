//! How a tool's answer is put into the protocol's result, so that the client's model reads bashrt's
//! text.
//!
//! Clients treat `content` and `structuredContent` as the same data and pick one: Claude Code and
//! Codex give their model `structuredContent` alone when a result has it, so a result with both
//! would show the model the details and none of the output. So by default a result is its text
//! (`content`, one text block) and the details travel in `_meta` under [`DETAILS_META`], which no
//! client shows its model; `--structured-content` puts them in `structuredContent` instead (and the
//! tools declare an `outputSchema`), for clients that read data. Gemini CLI shows its model an error
//! result as one JSON-escaped line of the whole result, so a client profile may leave failures
//! unflagged: the text still ends with how the command ended.

use rmcp::model::{CallToolResult, ContentBlock, MetaObject};
use serde_json::Value;

/// The `_meta` key of a result's details.
pub const DETAILS_META: &str = "bashrt/details";

/// How results are shaped for this client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultShape {
    /// Failed calls are results with `isError: true` (the default). Off for a client that shows an
    /// error result to its model as something other than its text.
    pub flag_errors: bool,
    /// The details are the result's `structuredContent` (and the tools declare their `outputSchema`)
    /// rather than its `_meta`.
    pub structured: bool,
}

impl Default for ResultShape {
    fn default() -> Self {
        Self { flag_errors: true, structured: false }
    }
}

impl ResultShape {
    /// The result of a call: `text` for the model, `details` beside it.
    pub fn result(&self, text: String, is_error: bool, details: Option<Value>) -> CallToolResult {
        let content = vec![ContentBlock::text(text)];
        let mut result = match is_error && self.flag_errors {
            true => CallToolResult::error(content),
            false => CallToolResult::success(content),
        };
        match (details, self.structured) {
            (Some(details), true) => result.structured_content = Some(details),
            (Some(details), false) => {
                let mut meta = serde_json::Map::new();
                meta.insert(DETAILS_META.to_string(), details);
                result.meta = Some(MetaObject(meta));
            }
            (None, _) => {}
        }
        result
    }

    /// A call that did not run (bad arguments, too many calls), as an error result the model reads.
    /// With structured results it is always flagged: a result with no `structuredContent` must be
    /// an error when the tool declares an `outputSchema`.
    pub fn refusal(&self, text: String) -> CallToolResult {
        let shape = ResultShape { flag_errors: self.flag_errors || self.structured, ..*self };
        shape.result(text, true, None)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_text_is_the_content_and_the_details_stay_out_of_the_models_way() {
        let result = ResultShape::default().result("out\n".into(), true, Some(json!({"exitCode": 1})));
        let wire = serde_json::to_value(&result).unwrap();
        assert_eq!(wire["content"], json!([{"type": "text", "text": "out\n"}]));
        assert_eq!(wire["isError"], true);
        assert!(wire.get("structuredContent").is_none(), "{wire}");
        assert_eq!(wire["_meta"][DETAILS_META]["exitCode"], 1);

        let plain = ResultShape { flag_errors: false, structured: true }.result("x".into(), true, Some(json!({})));
        let wire = serde_json::to_value(&plain).unwrap();
        assert_eq!((wire["isError"].clone(), wire["structuredContent"].clone()), (json!(false), json!({})));
    }

    #[test]
    fn a_refusal_without_details_stays_an_error_where_an_output_schema_is_declared() {
        let refused = |shape: ResultShape| serde_json::to_value(shape.refusal("no".into())).unwrap()["isError"].clone();
        assert_eq!(refused(ResultShape { flag_errors: false, structured: true }), json!(true));
        assert_eq!(refused(ResultShape { flag_errors: false, structured: false }), json!(false));
    }
}
