//! RFC 8785 (JCS) canonical JSON of a `serde_json::Value`.
//!
//! The hash and the signature of a timeline entry are computed over these bytes, so any
//! third party must be able to reproduce them from SPEC.md alone. serde_json's own
//! serializer is not enough: with `preserve_order` it keeps insertion order, and it
//! formats floats in Rust's style (`1e21`, not ECMAScript's `1e+21`).

use std::cmp::Ordering;

use serde_json::{Map, Value};
use thiserror::Error;

use super::number;

/// Deepest nesting of arrays/objects we canonicalize. serde_json's parser stops at 128,
/// so every parsed document fits; a `Value` built in code could be deeper and would
/// otherwise overflow the stack in this recursive writer.
pub const MAX_DEPTH: usize = 512;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CanonError {
    #[error("it is nested deeper than {MAX_DEPTH} levels")]
    TooDeep,
}

/// The canonical form of `value` as a string.
pub fn to_canonical_string(value: &Value) -> Result<String, CanonError> {
    let mut out = String::new();
    write_value(&mut out, value, 0)?;
    Ok(out)
}

/// Appends the canonical form of `map`, leaving out the top-level keys in `skip`
/// (an entry's `hash` and `signature`) without cloning the map.
pub fn write_object_without(
    out: &mut String,
    map: &Map<String, Value>,
    skip: &[&str],
) -> Result<(), CanonError> {
    let mut members: Vec<(&String, &Value)> = map
        .iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .collect();
    write_members(out, &mut members, 0)
}

/// Appends the object made of `members` (unique keys, any order; sorted in place).
pub fn write_object_members(
    out: &mut String,
    members: &mut [(&String, &Value)],
) -> Result<(), CanonError> {
    write_members(out, members, 0)
}

/// Appends the canonical form of `value`; `depth` is the nesting of `value` itself.
pub fn write_value(out: &mut String, value: &Value, depth: usize) -> Result<(), CanonError> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => number::write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            if depth >= MAX_DEPTH {
                return Err(CanonError::TooDeep);
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item, depth + 1)?;
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            write_members(out, &mut members, depth)?;
        }
    }
    Ok(())
}

fn write_members(
    out: &mut String,
    members: &mut [(&String, &Value)],
    depth: usize,
) -> Result<(), CanonError> {
    if depth >= MAX_DEPTH {
        return Err(CanonError::TooDeep);
    }
    // Keys in a Map are unique, so an unstable sort is deterministic.
    members.sort_unstable_by(|a, b| cmp_utf16(a.0, b.0));
    out.push('{');
    for (i, (key, value)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, key);
        out.push(':');
        write_value(out, value, depth + 1)?;
    }
    out.push('}');
    Ok(())
}

/// Orders strings by their UTF-16 code units, as RFC 8785 section 3.2.3 requires.
///
/// UTF-8 byte order equals code point order, which equals UTF-16 order except between
/// U+E000..U+FFFF (one unit, 0xE000..) and supplementary characters (surrogates,
/// 0xD800..). In UTF-8 those are the chars led by 0xEE/0xEF versus 0xF0..0xF4, so only
/// that case, at the first differing char, needs flipping. Avoids transcoding every key.
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let Some(i) = a.iter().zip(b).position(|(x, y)| x != y) else {
        return a.len().cmp(&b.len());
    };
    let (x, y) = (a[i], b[i]);
    // Both strings are valid UTF-8 with the same prefix, so `i` is a char start in
    // both or in neither; in the latter case the lead bytes are equal and so the class.
    let bmp_high = |c: u8| c == 0xEE || c == 0xEF;
    let supplementary = |c: u8| c >= 0xF0;
    if (bmp_high(x) && supplementary(y)) || (supplementary(x) && bmp_high(y)) {
        y.cmp(&x)
    } else {
        x.cmp(&y)
    }
}

/// Per byte: 0 = copy as is, b'u' = `\u00xx`, else the letter after the backslash.
/// A table rather than a `match` because the release profile optimizes for size and
/// would not turn the match into one.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x0C] = b'f';
    table[b'\n' as usize] = b'n';
    table[b'\r' as usize] = b'r';
    table[b'\t' as usize] = b't';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// Writes a JSON string with only the escapes JSON requires (RFC 8785 section 3.2.2.2).
// Slices at the escaped bytes, which are ASCII and so char boundaries; a hot path of
// hashing, where the alternatives cost a check per byte.
#[allow(clippy::string_slice)]
pub fn write_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = ESCAPE[usize::from(b)];
        if escape == 0 {
            continue;
        }
        // Only ASCII bytes are escaped, and they are char boundaries: no panic here.
        out.push_str(&s[start..i]);
        out.push('\\');
        out.push(char::from(escape));
        if escape == b'u' {
            out.push_str("00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xF)]));
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}
