//! Writing one `<agent-state>` block. Every value is escaped so that
//! [`crate::agent_state::parse_block`] reads back exactly the state that was written,
//! whatever its text or JSON holds, inside or outside a Markdown fence.

use crate::agent_state::model::AgentState;
use crate::agent_state::xml::escape_into;

/// Renders `state` as a block; [`crate::agent_state::parse_block`] gives the same state
/// back.
pub fn render_block(state: &AgentState) -> String {
    let mut out = String::from("<agent-state");
    if !state.root_attributes.as_str().is_empty() {
        out.push(' ');
        out.push_str(state.root_attributes.as_str());
    }
    out.push_str(">\n");
    let texts = [
        ("agent", &state.agent),
        ("intent", &state.intent),
        ("step", &state.step),
    ];
    for (name, value) in texts {
        if let Some(value) = value {
            push_field(&mut out, name, value);
        }
    }
    if let Some(progress) = state.progress {
        push_field(&mut out, "progress", &progress.value().to_string());
    }
    if let Some(memory) = &state.memory {
        push_field(&mut out, "memory", memory.as_str());
    }
    if let Some(next_action) = &state.next_action {
        push_field(&mut out, "next_action", next_action);
    }
    for element in &state.unknown {
        out.push_str("  ");
        out.push_str(element.xml());
        out.push('\n');
    }
    out.push_str("</agent-state>");
    out
}

fn push_field(out: &mut String, name: &str, value: &str) {
    out.push_str("  <");
    out.push_str(name);
    out.push('>');
    escape_into(value, out);
    out.push_str("</");
    out.push_str(name);
    out.push_str(">\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_state::error::BlockError;
    use crate::agent_state::model::{Memory, UnknownElement};
    use crate::agent_state::parse::read_block;
    use crate::agent_state::testing::{agent_state, hostile_text, json_value, text_state};
    use proptest::prelude::*;
    use serde_json::Value;

    /// Reads back what the renderer wrote, which never needs a lenient mend.
    fn parse(xml: &str) -> Result<AgentState, BlockError> {
        let read = read_block(xml)?;
        assert_eq!(read.mends, [], "{xml}");
        Ok(read.state)
    }

    #[test]
    fn hostile_text_round_trips() {
        for value in [
            "<",
            "&",
            "]]>",
            "</memory>",
            "-->",
            "```",
            "~~~",
            "`",
            " a ",
            "\r\n",
            "\0",
            "&amp;",
            "\u{a0}x\u{a0}",
            "\u{feff}",
            "\u{202e}",
            "</agent-state>",
            "",
        ] {
            let state = text_state(value);
            let xml = render_block(&state);
            assert_eq!(parse(&xml), Ok(state), "{value:?} rendered as {xml}");
        }
    }

    #[test]
    fn rendered_text_escapes_markup_and_protects_edges() {
        let state = AgentState {
            intent: Some(" a<b & c>\r ".to_owned()),
            ..AgentState::default()
        };
        assert_eq!(
            render_block(&state),
            "<agent-state>\n  <intent>&#x20;a&lt;b &amp; c&gt;&#xD;&#x20;</intent>\n</agent-state>"
        );
    }

    #[test]
    fn unknown_elements_and_root_attributes_are_kept_verbatim() {
        let plan = "<plan>\n    <item status=\"done\">a &amp; b</item>\n    <item status='pending'/>\n  </plan>";
        let xml = format!(
            "<agent-state version=\"2.1\">\n  <step>coding</step>\n  {plan}\n  <metrics><tool_calls>3</tool_calls></metrics>\n  <input_request/>\n</agent-state>"
        );
        let state = parse(&xml).expect("valid");
        assert_eq!(state.root_attributes.as_str(), "version=\"2.1\"");
        let names: Vec<_> = state.unknown.iter().map(UnknownElement::name).collect();
        assert_eq!(names, ["plan", "metrics", "input_request"]);
        assert_eq!(state.unknown[0].xml(), plan);
        let rendered = render_block(&state);
        assert!(rendered.contains(plan));
        assert_eq!(parse(&rendered), Ok(state));
    }

    #[test]
    fn memory_round_trips_as_written() {
        let text = "{\"big\": 123456789012345678901234567890, \"f\": 0.1, \"z\": 1, \"a\": [ ]}";
        let state = AgentState {
            memory: Memory::from_json_text(text).ok(),
            ..AgentState::default()
        };
        assert_eq!(parse(&render_block(&state)), Ok(state));
    }

    proptest! {
        #[test]
        fn any_text_survives_render_then_parse(value in hostile_text()) {
            let state = text_state(&value);
            prop_assert_eq!(parse(&render_block(&state)), Ok(state));
        }

        #[test]
        fn any_json_memory_survives_render_then_parse(value in json_value()) {
            let memory = Memory::from_value(&value);
            let state = AgentState { memory: Some(memory.clone()), ..AgentState::default() };
            let parsed = parse(&render_block(&state)).map(|s| s.memory);
            prop_assert_eq!(&parsed, &Ok(Some(memory)));
            // serde_json without `float_roundtrip` can move a float by one ulp on its
            // own; the text above is exact, and our layer must add no loss beyond that.
            let direct = serde_json::from_str::<Value>(&value.to_string()).ok();
            let reparsed = parsed.ok().flatten().and_then(|m| m.to_value().ok());
            prop_assert_eq!(reparsed, direct);
        }

        #[test]
        fn any_state_survives_render_then_parse(state in agent_state()) {
            prop_assert_eq!(parse(&render_block(&state)), Ok(state));
        }
    }
}
