//! JSON read strictly, one way for every reader (pure). A member name that appears twice
//! in one object is refused: readers disagree on which one counts, so a verifier could be
//! shown one value while a hash was computed over another (the ledger), or a report
//! could say two things (context reports). And one scanner tells, character by
//! character, what is inside a string, for every pass that must not touch strings
//! (comments in reports, whitespace in agent-state memory).

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry as MapEntry;
use serde_json::{Map, Number, Value};

/// One step of a path into a document, for naming where a duplicate is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// Why a strict read stopped: serde's error type cannot carry it, so the reader keeps it
/// beside the parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// `path` is innermost first: each enclosing container adds its step on the way out.
    Duplicate { name: String, path: Vec<Step> },
    /// The reader refused the document's shape (a verifier wants a Context Object).
    Shape,
}

/// On the way out of a container: add its step to the path of a duplicate found inside.
pub fn within(stop: &mut Option<Stop>, step: Step) {
    if let Some(Stop::Duplicate { path, .. }) = stop {
        path.push(step);
    }
}

/// Records a duplicate member and makes the error that stops the parse.
pub fn duplicate<E: de::Error>(stop: &mut Option<Stop>, name: String) -> E {
    let message = format!("the member `{name}` appears twice in one object");
    *stop = Some(Stop::Duplicate {
        name,
        path: Vec::new(),
    });
    E::custom(message)
}

/// Builds a `Value` exactly as serde_json's own `Value` visitor does (so hashes agree),
/// but refuses duplicate member names.
pub struct ValueSeed<'s> {
    pub stop: &'s mut Option<Stop>,
    /// Members to make room for if the value is an object (0: unknown).
    pub members: usize,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
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
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        loop {
            match seq.next_element_seed(ValueSeed {
                stop: &mut *self.stop,
                members: 0,
            }) {
                Ok(Some(item)) => items.push(item),
                Ok(None) => return Ok(Value::Array(items)),
                Err(e) => {
                    within(self.stop, Step::Index(items.len()));
                    return Err(e);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::with_capacity(self.members);
        while let Some(name) = map.next_key::<String>()? {
            // One lookup per member: the free slot is held while its value is read.
            let slot = match members.entry(name) {
                MapEntry::Occupied(taken) => {
                    return Err(duplicate(self.stop, taken.key().clone()));
                }
                MapEntry::Vacant(slot) => slot,
            };
            match map.next_value_seed(ValueSeed {
                stop: &mut *self.stop,
                members: 0,
            }) {
                Ok(value) => {
                    slot.insert(value);
                }
                Err(e) => {
                    within(self.stop, Step::Key(slot.key().clone()));
                    return Err(e);
                }
            }
        }
        Ok(Value::Object(members))
    }
}

/// Reads a value only to check it (well-formed, no duplicate names), keeping nothing.
pub struct CheckSeed<'s> {
    pub stop: &'s mut Option<Stop>,
}

impl<'de> DeserializeSeed<'de> for CheckSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CheckSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        loop {
            match seq.next_element_seed(CheckSeed {
                stop: &mut *self.stop,
            }) {
                Ok(Some(())) => index += 1,
                Ok(None) => return Ok(()),
                Err(e) => {
                    within(self.stop, Step::Index(index));
                    return Err(e);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut names: HashSet<String> = HashSet::new();
        while let Some(name) = map.next_key::<String>()? {
            if names.contains(&name) {
                return Err(duplicate(self.stop, name));
            }
            if let Err(e) = map.next_value_seed(CheckSeed {
                stop: &mut *self.stop,
            }) {
                within(self.stop, Step::Key(name));
                return Err(e);
            }
            names.insert(name);
        }
        Ok(())
    }
}

/// Why a text is not the JSON it should be, with its 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

/// One JSON document, strictly: duplicate member names refused, nothing after it.
pub fn from_str(text: &str) -> Result<Value, JsonError> {
    let mut stop = None;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let seed = ValueSeed {
        stop: &mut stop,
        members: 0,
    };
    seed.deserialize(&mut deserializer)
        .and_then(|v| deserializer.end().map(|()| v))
        .map_err(|e| {
            let message = match &stop {
                Some(Stop::Duplicate { name, .. }) => format!(
                    "the member `{}` appears twice in one object",
                    crate::chars::show_hidden(name, 60)
                ),
                _ => e
                    .to_string()
                    .split(" at line ")
                    .next()
                    .unwrap_or("")
                    .to_owned(),
            };
            JsonError {
                line: e.line(),
                column: e.column(),
                message,
            }
        })
}

/// Tells, one character at a time, whether a JSON text is inside a string literal (its
/// quotes included): escapes are followed, so `"a\"b"` is one string.
#[derive(Debug, Clone, Copy, Default)]
pub struct Strings {
    in_string: bool,
    escaped: bool,
}

impl Strings {
    /// Whether `c`, the next character, belongs to a string literal.
    pub fn inside(&mut self, c: char) -> bool {
        if self.in_string {
            match (self.escaped, c) {
                (true, _) => self.escaped = false,
                (false, '\\') => self.escaped = true,
                (false, '"') => self.in_string = false,
                _ => {}
            }
            true
        } else if c == '"' {
            self.in_string = true;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_duplicate_member_is_refused_anywhere_with_its_path() {
        assert_eq!(
            from_str(r#"{"a": [1, {"b": 2}]}"#),
            Ok(json!({"a": [1, {"b": 2}]}))
        );
        let error = from_str("{\"a\": [0, {\"b\": 1,\n \"b\": 2}]}").unwrap_err();
        assert_eq!(
            (error.line, error.message.as_str()),
            (2, "the member `b` appears twice in one object")
        );
        let mut stop = None;
        let mut de = serde_json::Deserializer::from_str(r#"{"x": {"y": [{}, {"z": 1, "z": 2}]}}"#);
        assert!(CheckSeed { stop: &mut stop }.deserialize(&mut de).is_err());
        assert_eq!(
            stop,
            Some(Stop::Duplicate {
                name: "z".into(),
                path: vec![Step::Index(1), Step::Key("y".into()), Step::Key("x".into())],
            })
        );
        assert!(from_str(r#"{"a": 1} {"b": 2}"#).is_err(), "trailing data");
    }

    #[test]
    fn strings_are_told_apart_escapes_included() {
        let text = r#"{"a\"b": "c\\", d}"#;
        let mut strings = Strings::default();
        let inside: String = text.chars().filter(|&c| strings.inside(c)).collect();
        assert_eq!(inside, r#""a\"b""c\\""#);
    }
}
