//! Reading one `<agent-state>` block into an [`AgentState`];
//! [`crate::agent_state::render_block`] is its inverse for any text and any JSON.
//!
//! Rules where the contract is silent (each one keeps a malformed block from being
//! read as something its author did not write; the rules of each field's value are in
//! `fields`):
//! - Element names are case-sensitive, as in XML; the product always writes lower case.
//! - Text that its writer left unescaped (`Fix A & B`, `n < 5`) is read as written and
//!   reported; `lenient` has the exact rule. Structure is never guessed: an unclosed
//!   root or a tag closed in the wrong order is an error.
//! - Only the five XML entities and numeric references are expanded. Numeric
//!   references may name any Unicode scalar value, including U+0000, so that any Rust
//!   string survives (XML 1.0 would reject a few control characters).
//! - `<!DOCTYPE>`, processing instructions and XML declarations make a block
//!   malformed; comments are allowed and dropped.
//! - An element name holding an invisible character (`<in\u{200b}tent>`) makes the
//!   block malformed: it looks like a known field to a reader but is not one.
//! - Unknown child elements are kept verbatim and written back after the known fields
//!   (text their writer left unescaped is kept in its escaped, well-formed form).
//!   Attributes on `<agent-state>` are kept verbatim; attributes on known fields are
//!   ignored.

use quick_xml::events::{BytesStart, Event};

use crate::agent_state::error::{BlockError, MAX_BLOCK_BYTES, ROOT};
use crate::agent_state::fields::{Seen, known_field, set_field};
use crate::agent_state::lenient::{Mend, mend};
use crate::agent_state::model::{AgentState, RootAttributes, UnknownElement};
use crate::agent_state::xml::{
    capture_element, check_attributes, describe, disallowed, element_name, next_event, position,
    read_text, reader, resolve_reference, stray,
};
use crate::chars::{is_ignorable_space, normalize_newlines, show_hidden};

/// A block as read, with what the lenient reader took as literal text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadBlock {
    pub state: AgentState,
    /// Each kind of unescaped `&` or `<` read as text; empty for a well-formed block.
    pub mends: Vec<Mend>,
}

/// Reads one block, from `<agent-state` to its closing `>`: stray `&` and `<` in text
/// are mended (see [`crate::agent_state::lenient`]), then every rule below applies.
pub fn read_block(xml: &str) -> Result<ReadBlock, BlockError> {
    if xml.len() > MAX_BLOCK_BYTES {
        return Err(BlockError::TooLarge {
            bytes: xml.len(),
            limit: MAX_BLOCK_BYTES,
        });
    }
    let xml = normalize_newlines(xml);
    let (xml, mends) = mend(xml.trim_matches(is_ignorable_space));
    let state = parse_strict(&xml)?;
    Ok(ReadBlock { state, mends })
}

/// [`read_block`] without the report of what was mended.
pub fn parse_block(xml: &str) -> Result<AgentState, BlockError> {
    read_block(xml).map(|read| read.state)
}

/// The strict XML reading of a trimmed, LF-normalized block.
fn parse_strict(xml: &str) -> Result<AgentState, BlockError> {
    let mut reader = reader(xml);
    let mut state = AgentState::default();
    match next_event(&mut reader)? {
        Event::Start(start) => {
            check_root(&start)?;
            state.root_attributes = RootAttributes(start.attributes_raw().trim().to_owned());
        }
        Event::Empty(start) => {
            check_root(&start)?;
            state.root_attributes = RootAttributes(start.attributes_raw().trim().to_owned());
            return after_root(state, xml, position(&reader));
        }
        Event::DocType(_) => return Err(BlockError::DocType),
        other => {
            return Err(BlockError::NotAgentState {
                found: describe(&other),
            });
        }
    }
    let mut seen = Seen::default();
    loop {
        let before = position(&reader);
        match next_event(&mut reader)? {
            Event::End(_) => return after_root(state, xml, position(&reader)),
            Event::Eof => return Err(BlockError::Unclosed),
            Event::Text(text) => {
                let text = text.into_inner();
                if !text.chars().all(is_ignorable_space) {
                    return Err(stray(&text));
                }
            }
            Event::CData(data) => {
                let data = data.into_inner();
                if !data.chars().all(is_ignorable_space) {
                    return Err(stray(&data));
                }
            }
            Event::GeneralRef(reference) => {
                let c = resolve_reference(&reference)?;
                if !is_ignorable_space(c) {
                    return Err(stray(&c.to_string()));
                }
            }
            Event::Comment(_) => {}
            Event::Start(start) => {
                let name = element_name(&start)?;
                if name == ROOT {
                    return Err(BlockError::Nested);
                }
                match known_field(name) {
                    Some(field) => {
                        seen.note(field)?;
                        let text = read_text(&mut reader, field)?;
                        set_field(&mut state, field, text)?;
                    }
                    None => {
                        check_attributes(&start)?;
                        let source = capture_element(&mut reader, xml, before)?;
                        state.unknown.push(unknown_element(&start, source)?);
                    }
                }
            }
            Event::Empty(start) => {
                let name = element_name(&start)?;
                if name == ROOT {
                    return Err(BlockError::Nested);
                }
                match known_field(name) {
                    Some(field) => {
                        seen.note(field)?;
                        set_field(&mut state, field, String::new())?;
                    }
                    None => {
                        check_attributes(&start)?;
                        let source = xml.get(before..position(&reader)).unwrap_or("");
                        state.unknown.push(unknown_element(&start, source)?);
                    }
                }
            }
            other => return Err(disallowed(&other)),
        }
    }
}

/// `check_end_names` guarantees that an `End` at depth 1 closes the root.
fn after_root(state: AgentState, xml: &str, end: usize) -> Result<AgentState, BlockError> {
    let rest = xml.get(end..).unwrap_or("");
    if rest.chars().all(is_ignorable_space) {
        Ok(state)
    } else {
        Err(BlockError::Xml {
            detail: "text follows `</agent-state>`".to_owned(),
        })
    }
}

fn check_root(start: &BytesStart<'_>) -> Result<(), BlockError> {
    let name = element_name(start)?;
    if name != ROOT {
        return Err(BlockError::NotAgentState {
            found: format!("<{}>", show_hidden(name, 60)),
        });
    }
    check_attributes(start)
}

fn unknown_element(start: &BytesStart<'_>, source: &str) -> Result<UnknownElement, BlockError> {
    let name = element_name(start)?;
    if name == ROOT || source.contains("<agent-state") || source.contains("</agent-state") {
        return Err(BlockError::Nested);
    }
    Ok(UnknownElement::new(name, source))
}

impl UnknownElement {
    /// Checks that `xml` is exactly one well-formed element that is safe to write back.
    pub fn from_xml(xml: &str) -> Result<UnknownElement, BlockError> {
        let xml = normalize_newlines(xml);
        let xml = xml.trim();
        let mut reader = reader(xml);
        let (start, source) = match next_event(&mut reader)? {
            Event::Start(start) => {
                check_attributes(&start)?;
                let source = capture_element(&mut reader, xml, 0)?;
                (start, source)
            }
            Event::Empty(start) => {
                check_attributes(&start)?;
                (start, xml.get(..position(&reader)).unwrap_or(xml))
            }
            _ => return Err(BlockError::NotAnElement),
        };
        let element = unknown_element(&start, source)?;
        match next_event(&mut reader)? {
            Event::Eof => Ok(element),
            _ => Err(BlockError::NotAnElement),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_state::model::Progress;
    use crate::agent_state::testing::hostile_text;
    use proptest::prelude::*;
    use serde_json::json;

    fn parse(xml: &str) -> Result<AgentState, BlockError> {
        parse_block(xml)
    }

    #[test]
    fn errors_name_a_token_in_the_block_by_kind_and_length_only() {
        let token = "ghp_R8x2Lq9ZtV4mN7cJ1sK5wB3yH6dF0gPaE2uQ";
        for xml in [
            format!("<agent-state><progress>{token}</progress></agent-state>"),
            format!("<agent-state>{token}</agent-state>"),
            format!("<agent-state><intent>&{token};</intent></agent-state>"),
            format!("<{token}></{token}>"),
        ] {
            let message = parse(&xml).err().map(|e| e.to_string());
            let message = message.unwrap_or_else(|| panic!("{xml} should be refused"));
            assert!(!message.contains("ghp_R8x2"), "{xml}: {message}");
        }
        let error = parse(&format!(
            "<agent-state><progress>{token}</progress></agent-state>"
        ));
        assert_eq!(
            error.map_err(|e| e.to_string()),
            Err(
                "`<progress>` is `<GitHub token, 40 characters>`; expected a whole number \
                 from 0 to 100, optionally followed by `%`"
                    .to_owned()
            )
        );
    }

    #[test]
    fn reads_the_seed_example() {
        let xml = "<agent-state>\n  <!-- Intención actual del agente -->\n  <intent>implement_feature</intent>\n\
                   <step>waiting_for_review</step>\n  <progress>60</progress>\n  <memory>\n    {\n\
                   \"last_file_edited\": \"src/auth.ts\",\n      \"attempt_count\": 2\n    }\n  </memory>\n\
                   <next_action>run_tests_again</next_action>\n</agent-state>";
        let state = parse(xml).expect("valid");
        assert_eq!(state.intent.as_deref(), Some("implement_feature"));
        assert_eq!(state.step.as_deref(), Some("waiting_for_review"));
        assert_eq!(state.progress, Progress::new(60));
        assert_eq!(state.next_action.as_deref(), Some("run_tests_again"));
        let memory = state.memory.expect("memory").to_value().expect("json");
        assert_eq!(
            memory,
            json!({"last_file_edited": "src/auth.ts", "attempt_count": 2})
        );
    }

    #[test]
    fn malformed_blocks_are_refused() {
        let cases: [(&str, BlockError); 12] = [
            ("<agent-state><intent>x</intent>", BlockError::Unclosed),
            (
                "<agent-state><intent>x</agent-state>",
                BlockError::Xml {
                    detail:
                        "ill-formed document: expected `</intent>`, but `</agent-state>` was found"
                            .to_owned(),
                },
            ),
            (
                "<agent-state><agent-state></agent-state></agent-state>",
                BlockError::Nested,
            ),
            (
                "<agent-state><!DOCTYPE x></agent-state>",
                BlockError::DocType,
            ),
            (
                "<agent-state><intent>&lol;</intent></agent-state>",
                BlockError::UnknownEntity {
                    name: "lol".to_owned(),
                },
            ),
            (
                "<agent-state>loose</agent-state>",
                BlockError::StrayText {
                    text: "loose".to_owned(),
                },
            ),
            (
                "<agent-state><intent>a<b/></intent></agent-state>",
                BlockError::MarkupInField {
                    field: "intent",
                    element: "b".to_owned(),
                },
            ),
            (
                "<agent-state><step>a</step><step>b</step></agent-state>",
                BlockError::DuplicateField { field: "step" },
            ),
            (
                "<agent-state><in\u{200b}tent>x</in\u{200b}tent></agent-state>",
                BlockError::HiddenCharInName {
                    name: "in<U+200B>tent".to_owned(),
                },
            ),
            (
                "<agent-state><?php x ?></agent-state>",
                BlockError::Disallowed {
                    what: "a processing instruction (`<?…?>`)",
                },
            ),
            (
                "<agent-state><intent>&#xD800;</intent></agent-state>",
                BlockError::BadCharRef {
                    reference: "#xD800".to_owned(),
                },
            ),
            (
                "<agent-state><plan a=\"&x;\"/></agent-state>",
                BlockError::UnknownEntity {
                    name: "x".to_owned(),
                },
            ),
        ];
        for (xml, expected) in cases {
            assert_eq!(parse(xml), Err(expected), "{xml}");
        }
        assert!(matches!(
            parse("<agent-state><memory>{nope}</memory></agent-state>"),
            Err(BlockError::Memory { .. })
        ));
    }

    #[test]
    fn unknown_elements_can_be_built_from_xml() {
        let element = UnknownElement::from_xml(" <metrics><errors>0</errors></metrics>\r\n");
        assert_eq!(
            element.map(|e| e.xml().to_owned()),
            Ok("<metrics><errors>0</errors></metrics>".to_owned())
        );
        assert_eq!(
            UnknownElement::from_xml("<a/><b/>"),
            Err(BlockError::NotAnElement)
        );
        assert_eq!(
            UnknownElement::from_xml("text"),
            Err(BlockError::NotAnElement)
        );
        assert_eq!(
            UnknownElement::from_xml("<a><![CDATA[</agent-state>]]></a>"),
            Err(BlockError::Nested)
        );
    }

    #[test]
    fn an_empty_root_is_an_empty_state() {
        assert_eq!(parse("<agent-state/>"), Ok(AgentState::default()));
        assert_eq!(
            parse("<agent-state></agent-state>"),
            Ok(AgentState::default())
        );
    }

    #[test]
    fn entity_bomb_is_refused_without_expansion() {
        let mut xml = String::from("<agent-state><intent>");
        xml.push_str(&"&lol9;".repeat(10_000));
        xml.push_str("</intent></agent-state>");
        assert_eq!(
            parse(&xml),
            Err(BlockError::UnknownEntity {
                name: "lol9".to_owned()
            })
        );
    }

    proptest! {
        #[test]
        fn parsing_never_panics(xml in hostile_text()) {
            let _ = parse(&format!("<agent-state>{xml}</agent-state>"));
            let _ = parse(&xml);
            let _ = UnknownElement::from_xml(&xml);
        }
    }
}
