//! JSON Schemas as every client takes them. schemars writes what Rust types say: number formats
//! (`uint64`, `double`) that JSON Schema does not define and that a validating client (Gemini CLI)
//! warns about on every call, and `"default": null` for an optional field, which says nothing. An
//! optional field keeps `"type": ["integer", "null"]`: a client that checks arguments against the
//! schema before the call then passes a model's `null` on.

use serde_json::Value;

/// Number formats JSON Schema does not define.
const NUMERIC_FORMATS: &[&str] =
    &["uint", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float", "double"];

/// `schema` without numeric formats and `null` defaults, at every depth.
pub fn portable_schema(mut schema: Value) -> Value {
    strip(&mut schema);
    schema
}

fn strip(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("format").and_then(Value::as_str).is_some_and(|f| NUMERIC_FORMATS.contains(&f)) {
                map.remove("format");
            }
            if map.get("default").is_some_and(Value::is_null) {
                map.remove("default");
            }
            map.values_mut().for_each(strip);
        }
        Value::Array(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn numeric_formats_and_null_defaults_go() {
        let schema = json!({"properties": {"head": {"type": ["integer", "null"], "format": "uint64", "default": null,
            "minimum": 0}, "name": {"type": "string", "format": "uri"}}});
        assert_eq!(
            portable_schema(schema),
            json!({"properties": {"head": {"type": ["integer", "null"], "minimum": 0},
                "name": {"type": "string", "format": "uri"}}})
        );
    }
}
