//! JSON that means one thing. serde_json keeps the last of two members with one key, silently: a
//! request `{"command":"ls","command":"rm -rf ~"}` would run what a client, a log or a reviewer
//! reading the first member never saw. The protocol fronts (RPC, MCP) read requests through
//! [`strict_json`], which refuses such a line.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Parses `bytes` as one JSON value, refusing a key given twice in one object, at any depth
/// (`duplicate key "command" at line 1 column 48`). Nesting is bounded as serde_json bounds it.
pub fn strict_json(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = Strict.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// Builds a [`Value`] as serde_json does, but refuses duplicate keys. Its recursion is bounded by the
/// deserializer's nesting limit, which it enforces before calling in.
struct Strict;

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // JSON text never reads as NaN or infinity (1e309 is an error of the parser's), so this is
        // always a number.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Strict)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            // Checked before the value is read, so the error's position is the key's end.
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate key {}", shown_key(&key))));
            }
            let value = map.next_value_seed(Strict)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// The longest key an error message quotes whole, in characters.
const SHOWN_KEY_MAX: usize = 64;

/// `key` as JSON, cut to [`SHOWN_KEY_MAX`] characters: an error about a 16 MiB key stays one line.
fn shown_key(key: &str) -> String {
    let cut = key.char_indices().nth(SHOWN_KEY_MAX).map(|(at, _)| at);
    let quoted = serde_json::to_string(&key[..cut.unwrap_or(key.len())]).unwrap_or_default();
    match cut {
        Some(_) => format!("{}…\"", quoted.strip_suffix('"').unwrap_or(&quoted)),
        None => quoted,
    }
}
