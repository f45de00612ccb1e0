//! What a line of JSON that is not a message says about itself, read without building it: whether it
//! is an object, a notification or a response, and its top-level `id` members.

use std::fmt;

use rmcp::model::RequestId;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// The top-level `id` members seen so far.
#[derive(Debug, Default)]
pub(super) enum Ids {
    #[default]
    None,
    /// Every one of them says this.
    One(RequestId),
    /// One is not a number or string that makes an id, or two disagree.
    Unclear,
}

impl Ids {
    pub(super) fn add(&mut self, id: Option<RequestId>) {
        *self = match (std::mem::take(self), id) {
            (Ids::None, Some(id)) => Ids::One(id),
            (Ids::One(seen), Some(id)) if seen == id => Ids::One(seen),
            _ => Ids::Unclear,
        };
    }

    pub(super) fn id(self) -> Option<RequestId> {
        match self {
            Ids::One(id) => Some(id),
            Ids::None | Ids::Unclear => None,
        }
    }
}

/// What a JSON line that is not a message says about itself. Deserializing it checks the whole line
/// as serde_json checks any JSON (nesting, the range of numbers, UTF-8) without building a tree.
#[derive(Default)]
pub(super) struct Outline {
    object: bool,
    method: bool,
    /// A `result` or an `error` member.
    outcome: bool,
    pub(super) ids: Ids,
}

impl Outline {
    /// A notification or a response, which JSON-RPC never answers.
    pub(super) fn unanswerable(&self) -> bool {
        self.object && ((self.method && matches!(self.ids, Ids::None)) || (!self.method && self.outcome))
    }
}

impl<'de> Deserialize<'de> for Outline {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(OutlineVisitor)
    }
}

struct OutlineVisitor;

impl<'de> Visitor<'de> for OutlineVisitor {
    type Value = Outline;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Outline, A::Error> {
        let mut outline = Outline { object: true, ..Outline::default() };
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Id => outline.ids.add(map.next_value::<Id>()?.0),
                Key::Method => {
                    outline.method = true;
                    map.next_value::<Valid>()?;
                }
                Key::Outcome => {
                    outline.outcome = true;
                    map.next_value::<Valid>()?;
                }
                Key::Other => {
                    map.next_value::<Valid>()?;
                }
            }
        }
        Ok(outline)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Outline, A::Error> {
        ValidVisitor.visit_seq(seq)?;
        Ok(Outline::default())
    }

    fn visit_bool<E>(self, _: bool) -> Result<Outline, E> {
        Ok(Outline::default())
    }

    fn visit_i64<E>(self, _: i64) -> Result<Outline, E> {
        Ok(Outline::default())
    }

    fn visit_u64<E>(self, _: u64) -> Result<Outline, E> {
        Ok(Outline::default())
    }

    fn visit_f64<E>(self, _: f64) -> Result<Outline, E> {
        Ok(Outline::default())
    }

    fn visit_str<E>(self, _: &str) -> Result<Outline, E> {
        Ok(Outline::default())
    }

    fn visit_unit<E>(self) -> Result<Outline, E> {
        Ok(Outline::default())
    }
}

/// An object key, as far as the outline cares.
enum Key {
    Id,
    Method,
    Outcome,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }

            fn visit_str<E>(self, key: &str) -> Result<Key, E> {
                Ok(match key {
                    "id" => Key::Id,
                    "method" => Key::Method,
                    "result" | "error" => Key::Outcome,
                    _ => Key::Other,
                })
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// An `id` value read as rmcp reads one: an integer (also written as a float, exactly), or a string;
/// anything else (checked as JSON all the same) makes no id.
pub(super) struct Id(pub(super) Option<RequestId>);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(IdVisitor)
    }
}

struct IdVisitor;

impl<'de> Visitor<'de> for IdVisitor {
    type Value = Id;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an id")
    }

    fn visit_i64<E>(self, n: i64) -> Result<Id, E> {
        Ok(Id(Some(RequestId::Number(n))))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Id, E> {
        Ok(Id(i64::try_from(n).ok().map(RequestId::Number)))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Id, E> {
        // `1.0` and `1e2` are integers in float form; past 2^53 a float no longer says which one.
        const MAX_EXACT: f64 = 9_007_199_254_740_992.0;
        Ok(Id((n.fract() == 0.0 && n.abs() < MAX_EXACT).then_some(RequestId::Number(n as i64))))
    }

    fn visit_str<E>(self, s: &str) -> Result<Id, E> {
        Ok(Id(Some(RequestId::String(s.into()))))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Id, E> {
        Ok(Id(None))
    }

    fn visit_unit<E>(self) -> Result<Id, E> {
        Ok(Id(None))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Id, A::Error> {
        ValidVisitor.visit_seq(seq)?;
        Ok(Id(None))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Id, A::Error> {
        ValidVisitor.visit_map(map)?;
        Ok(Id(None))
    }
}

/// Any JSON value, checked (through `deserialize_any`, so with serde_json's nesting limit and number
/// range) and thrown away.
struct Valid;

impl<'de> Deserialize<'de> for Valid {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValidVisitor)
    }
}

struct ValidVisitor;

impl<'de> Visitor<'de> for ValidVisitor {
    type Value = Valid;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_str<E>(self, _: &str) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_unit<E>(self) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Valid, A::Error> {
        while seq.next_element::<Valid>()?.is_some() {}
        Ok(Valid)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Valid, A::Error> {
        while map.next_key::<Valid>()?.is_some() {
            map.next_value::<Valid>()?;
        }
        Ok(Valid)
    }
}
