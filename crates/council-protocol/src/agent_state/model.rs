//! The state one `<agent-state>` block carries, as values that are valid by
//! construction: a progress is 0–100, a memory is JSON text, an unknown element is one
//! well-formed element. Reading and writing blocks live in `parse` and `render`.

use serde_json::Value;

use crate::agent_state::error::BlockError;
use crate::chars::{is_ignorable_space, normalize_newlines, show_hidden};

/// A percentage from 0 to 100.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Progress(u8);

impl Progress {
    pub fn new(value: u8) -> Option<Progress> {
        (value <= 100).then_some(Progress(value))
    }

    pub fn value(self) -> u8 {
        self.0
    }

    /// Reads `60` or `60%` (surrounding whitespace allowed).
    pub fn parse(text: &str) -> Result<Progress, BlockError> {
        let error = || BlockError::Progress {
            value: show_hidden(text.trim(), 40),
        };
        let trimmed = text.trim();
        let digits = trimmed.strip_suffix('%').unwrap_or(trimmed).trim_end();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(error());
        }
        let value = digits.parse::<u8>().map_err(|_| error())?;
        Progress::new(value).ok_or_else(error)
    }
}

/// A JSON value kept as the exact text it was written with, so that numbers beyond
/// `f64`, key order and formatting survive a round trip untouched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Memory {
    json: String,
}

impl Memory {
    /// Accepts any JSON value; surrounding whitespace is dropped and newlines normalized.
    pub fn from_json_text(text: &str) -> Result<Memory, BlockError> {
        let text = normalize_newlines(text);
        let json = text.trim_matches(is_ignorable_space);
        if let Err(error) = serde_json::from_str::<Value>(json) {
            return Err(BlockError::Memory {
                detail: error.to_string(),
            });
        }
        Ok(Memory {
            json: json.to_owned(),
        })
    }

    /// Compact JSON text of `value`.
    pub fn from_value(value: &Value) -> Memory {
        Memory {
            json: value.to_string(),
        }
    }

    /// Pretty-printed JSON text of `value`, easier to read in a comment.
    pub fn from_value_pretty(value: &Value) -> Memory {
        let json = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
        Memory { json }
    }

    pub fn as_str(&self) -> &str {
        &self.json
    }

    pub fn to_value(&self) -> Result<Value, BlockError> {
        serde_json::from_str(&self.json).map_err(|error| BlockError::Memory {
            detail: error.to_string(),
        })
    }

    /// The same JSON without insignificant whitespace, every token kept byte for byte.
    pub fn to_compact_string(&self) -> String {
        let mut strings = crate::json::Strings::default();
        self.json
            .chars()
            .filter(|&c| strings.inside(c) || !matches!(c, ' ' | '\t' | '\n' | '\r'))
            .collect()
    }
}

/// A child element the product does not know, kept as its exact source text. Built
/// only by the parser ([`UnknownElement::from_xml`] or [`crate::agent_state::parse_block`]),
/// so it is always one well-formed element that is safe to write back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownElement {
    name: String,
    xml: String,
}

impl UnknownElement {
    pub(super) fn new(name: &str, xml: &str) -> UnknownElement {
        UnknownElement {
            name: name.to_owned(),
            xml: xml.to_owned(),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn xml(&self) -> &str {
        &self.xml
    }
}

/// The state an agent leaves on an issue.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentState {
    /// Which agent wrote the block; agents often share one token.
    pub agent: Option<String>,
    pub intent: Option<String>,
    pub step: Option<String>,
    pub progress: Option<Progress>,
    pub memory: Option<Memory>,
    pub next_action: Option<String>,
    /// Later protocol versions' elements (`<plan>`, `<input_request>`, `<metrics>`…).
    pub unknown: Vec<UnknownElement>,
    /// Attributes of the `<agent-state …>` tag, kept as written.
    pub root_attributes: RootAttributes,
}

/// Attributes of the `<agent-state …>` tag as written, e.g. `version="2.1"`; only a
/// parsed block can set them, so they are always well-formed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootAttributes(pub(super) String);

impl RootAttributes {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl AgentState {
    /// The state of an issue that holds no block: `planning`, 0 %.
    pub fn initial() -> AgentState {
        AgentState {
            step: Some("planning".to_owned()),
            progress: Progress::new(0),
            ..AgentState::default()
        }
    }
}

/// A `step` written by `state put` is a lower-case token such as `waiting_for_review`.
pub fn is_step_token(step: &str) -> bool {
    let mut chars = step.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        && step.len() <= 64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_rules() {
        let progress = |text: &str| Progress::parse(text).map(Progress::value);
        assert_eq!(progress("0"), Ok(0));
        assert_eq!(progress(" 100 "), Ok(100));
        assert_eq!(progress("60%"), Ok(60));
        assert_eq!(progress("60 %"), Ok(60));
        assert_eq!(progress("007"), Ok(7));
        for bad in ["-1", "101", "60.5", "+5", "", "%", "sixty", "99999999999"] {
            assert!(progress(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn memory_keeps_its_exact_text() {
        let text = "{\"big\": 123456789012345678901234567890, \"f\": 0.1, \"z\": 1, \"a\": [ ]}";
        let memory = Memory::from_json_text(text).expect("valid");
        assert_eq!(memory.as_str(), text);
        assert_eq!(
            memory.to_compact_string(),
            "{\"big\":123456789012345678901234567890,\"f\":0.1,\"z\":1,\"a\":[]}"
        );
        assert_eq!(
            Memory::from_json_text("{\"s\": \"a b \\\" c\"}").map(|m| m.to_compact_string()),
            Ok("{\"s\":\"a b \\\" c\"}".to_owned())
        );
        assert_eq!(
            Memory::from_json_text("\u{feff} [1,\r\n2] \u{a0}").map(|m| m.as_str().to_owned()),
            Ok("[1,\n2]".to_owned())
        );
    }

    #[test]
    fn step_tokens() {
        assert!(is_step_token("waiting_for_review"));
        assert!(is_step_token("step-2"));
        assert!(!is_step_token("Coding"));
        assert!(!is_step_token("2nd"));
        assert!(!is_step_token(""));
        assert!(!is_step_token("a b"));
    }
}
