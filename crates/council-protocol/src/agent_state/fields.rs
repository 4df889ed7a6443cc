//! The known fields of a block and how each one's text becomes a value.
//!
//! Rules where the contract is silent:
//! - Every field is optional (a block is a snapshot; the v2.1 protocol posts partial
//!   blocks). A field that appears twice makes the block malformed.
//! - Text fields are trimmed of literal surrounding whitespace (hand-written blocks
//!   indent their values); the renderer writes significant leading or trailing
//!   whitespace as character references, which are never trimmed.
//! - `<progress>` accepts a whole number 0–100, optionally followed by `%` (`60%` is a
//!   common way to write a percentage and is unambiguous); `-1`, `101`, `60.5` are
//!   malformed rather than clamped, because a silently altered value hides a broken
//!   writer. An empty `<progress/>` or `<memory/>` is the same as leaving it out.
//! - `<memory>` must be valid JSON; an agent resuming from garbled memory is worse off
//!   than one resuming from the previous good block.

use crate::agent_state::error::BlockError;
use crate::agent_state::model::{AgentState, Memory, Progress};
use crate::chars::is_ignorable_space;

/// Elements read as plain text into [`AgentState`]; any other child is kept verbatim.
const KNOWN_FIELDS: [&str; 6] = [
    "agent",
    "intent",
    "step",
    "progress",
    "memory",
    "next_action",
];

pub(crate) fn known_field(name: &str) -> Option<&'static str> {
    KNOWN_FIELDS.into_iter().find(|field| *field == name)
}

/// The fields met so far in one block.
#[derive(Debug, Default)]
pub(crate) struct Seen(Vec<&'static str>);

impl Seen {
    pub(crate) fn note(&mut self, field: &'static str) -> Result<(), BlockError> {
        if self.0.contains(&field) {
            return Err(BlockError::DuplicateField { field });
        }
        self.0.push(field);
        Ok(())
    }
}

pub(crate) fn set_field(
    state: &mut AgentState,
    field: &'static str,
    text: String,
) -> Result<(), BlockError> {
    let blank = text.chars().all(is_ignorable_space);
    match field {
        "progress" if blank => {}
        "progress" => state.progress = Some(Progress::parse(&text)?),
        "memory" if blank => {}
        "memory" => state.memory = Some(Memory::from_json_text(&text)?),
        "agent" => state.agent = Some(text),
        "intent" => state.intent = Some(text),
        "step" => state.step = Some(text),
        _ => state.next_action = Some(text),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_state::parse::parse_block;

    fn parse(xml: &str) -> Result<AgentState, BlockError> {
        parse_block(xml)
    }

    #[test]
    fn hand_written_values_are_trimmed() {
        let state = parse("<agent-state><intent>\n   fix_bug \u{a0}\n</intent></agent-state>");
        assert_eq!(state.map(|s| s.intent), Ok(Some("fix_bug".to_owned())));
    }

    #[test]
    fn cdata_comments_and_references_are_text() {
        let xml = "<agent-state><intent><![CDATA[a<b]]><!-- x -->&#x41;&#66;&quot;</intent></agent-state>";
        assert_eq!(parse(xml).map(|s| s.intent), Ok(Some("a<bAB\"".to_owned())));
    }

    #[test]
    fn progress_out_of_range_is_refused_with_the_rule() {
        assert_eq!(
            parse("<agent-state><progress>101</progress></agent-state>")
                .err()
                .map(|e| e.to_string()),
            Some("`<progress>` is `101`; expected a whole number from 0 to 100, optionally followed by `%`".to_owned())
        );
    }

    #[test]
    fn empty_progress_and_memory_are_absent() {
        let state = parse("<agent-state><progress/><memory> </memory><intent/></agent-state>");
        let state = state.expect("valid");
        assert_eq!((state.progress, state.memory), (None, None));
        assert_eq!(state.intent.as_deref(), Some(""));
    }
}
