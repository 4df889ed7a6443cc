//! JSON as agents write it in reports, read strictly: `//` and `/* */` comments (the
//! protocol's own example carries `// HOT | WARM | COLD`) are allowed and become
//! whitespace, so line and column numbers in errors stay true; a member name that
//! appears twice in one object is an error (readers disagree on which one counts).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Why the text is not the JSON it should be, with its 1-based line and column.
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

/// Parses `text` (comments allowed, duplicate member names refused).
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let plain = strip_comments(text)?;
    let mut deserializer = serde_json::Deserializer::from_str(&plain);
    let value = Strict::deserialize(&mut deserializer)
        .and_then(|v| deserializer.end().map(|()| v.0))
        .map_err(|e| JsonError {
            line: e.line(),
            column: e.column(),
            message: e
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or("")
                .to_owned(),
        })?;
    Ok(value)
}

/// `//` to the end of the line and `/* … */` outside strings become spaces (line
/// breaks inside a block comment are kept).
fn strip_comments(text: &str) -> Result<String, JsonError> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let (mut line, mut column) = (1usize, 1usize);
    let mut in_string = false;
    let mut escaped = false;
    while let Some(c) = chars.next() {
        let (start_line, start_column) = (line, column);
        let mut advance = |c: char| {
            if c == '\n' {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
        };
        advance(c);
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                out.push(' ');
                while let Some(&next) = chars.peek() {
                    if next == '\n' {
                        break;
                    }
                    chars.next();
                    advance(next);
                    out.push(' ');
                }
            }
            ('/', Some('*')) => {
                chars.next();
                advance('*');
                out.push_str("  ");
                let mut closed = false;
                while let Some(next) = chars.next() {
                    advance(next);
                    if next == '*' && chars.peek() == Some(&'/') {
                        chars.next();
                        advance('/');
                        out.push_str("  ");
                        closed = true;
                        break;
                    }
                    out.push(if next == '\n' { '\n' } else { ' ' });
                }
                if !closed {
                    return Err(JsonError {
                        line: start_line,
                        column: start_column,
                        message: "a `/*` comment is not closed".to_owned(),
                    });
                }
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// A JSON value whose objects may not repeat a member name.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Strict, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
        Ok(Value::from(v))
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
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "the member `{}` appears twice in one object",
                    crate::chars::show_hidden(&key, 60)
                )));
            }
            let Strict(value) = map.next_value()?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn comments_are_whitespace_and_strings_are_untouched() {
        let text = "{\n  \"a\": \"http://x/*y*/\", // note\n  /* block\n  comment */ \"b\": [1, 2] // end\n}";
        assert_eq!(parse(text), Ok(json!({"a": "http://x/*y*/", "b": [1, 2]})));
        assert_eq!(parse("\"a\\\"//b\""), Ok(json!("a\"//b")));
    }

    #[test]
    fn errors_keep_their_true_position() {
        let error = parse("{ // c\n  \"a\": 1,\n  \"a\": 2\n}").unwrap_err();
        assert_eq!((error.line, error.column), (3, 5));
        assert_eq!(error.message, "the member `a` appears twice in one object");
        let error = parse("{\n  /* open\n").unwrap_err();
        assert_eq!(
            (error.line, error.column, error.message.as_str()),
            (2, 3, "a `/*` comment is not closed")
        );
        let error = parse("{\"a\": 1} trailing").unwrap_err();
        assert_eq!(error.line, 1);
        assert!(parse("[1, 2,]").is_err());
    }
}
