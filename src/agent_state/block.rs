//! One `<agent-state>` block: the state it carries, and a parser/renderer pair that
//! round-trips any text and any JSON exactly.
//!
//! Rules where the contract is silent (each one keeps a malformed block from being
//! read as something its author did not write):
//! - Element names are case-sensitive, as in XML; the product always writes lower case.
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
//! - Only the five XML entities and numeric references are expanded. Numeric
//!   references may name any Unicode scalar value, including U+0000, so that any Rust
//!   string survives (XML 1.0 would reject a few control characters).
//! - `<!DOCTYPE>`, processing instructions and XML declarations make a block
//!   malformed; comments are allowed and dropped.
//! - An element name holding an invisible character (`<in\u{200b}tent>`) makes the
//!   block malformed: it looks like a known field to a reader but is not one.
//! - Unknown child elements are kept verbatim and written back after the known fields.
//!   Attributes on `<agent-state>` are kept verbatim; attributes on known fields are
//!   ignored.

use quick_xml::events::{BytesStart, Event};
use serde_json::Value;

use crate::agent_state::xml::{
    capture_element, check_attributes, describe, disallowed, element_name, escape_into,
    is_ignorable_space, next_event, position, read_text, reader, resolve_reference, stray,
};
use crate::chars::{normalize_newlines, show_hidden};
use crate::secrets::{SecretMatch, find_secrets};

/// The root element name.
pub const ROOT: &str = "agent-state";

/// The largest block read: a GitHub comment holds 65,536 code points of up to 4 bytes.
pub const MAX_BLOCK_BYTES: usize = 262_144;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlockError {
    #[error("the block is not closed: no `</agent-state>` follows `<agent-state>`")]
    Unclosed,
    #[error("the block holds another `<agent-state>` inside it; blocks cannot be nested")]
    Nested,
    #[error("the block is {bytes} bytes long, more than the {limit} bytes a comment can hold")]
    TooLarge { bytes: usize, limit: usize },
    #[error("expected `<agent-state>` but found `{found}`")]
    NotAgentState { found: String },
    #[error("the block is not well-formed XML: {detail}")]
    Xml { detail: String },
    #[error(
        "`<!DOCTYPE>` is not allowed in an `<agent-state>` block; entity definitions are never processed"
    )]
    DocType,
    #[error("{what} is not allowed in an `<agent-state>` block")]
    Disallowed { what: &'static str },
    #[error(
        "the entity `&{name};` is not allowed; use `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;` or a numeric reference such as `&#60;`"
    )]
    UnknownEntity { name: String },
    #[error("`&{reference};` is not a valid character reference")]
    BadCharRef { reference: String },
    #[error(
        "text `{text}` sits directly inside `<agent-state>`; put it inside a field such as `<intent>`"
    )]
    StrayText { text: String },
    #[error("`<{field}>` must hold plain text but contains the element `<{element}>`")]
    MarkupInField {
        field: &'static str,
        element: String,
    },
    #[error("`<{field}>` appears more than once")]
    DuplicateField { field: &'static str },
    #[error(
        "`<progress>` is `{value}`; expected a whole number from 0 to 100, optionally followed by `%`"
    )]
    Progress { value: String },
    #[error("`<memory>` is not valid JSON: {detail}")]
    Memory { detail: String },
    #[error("the element name `{name}` contains invisible characters")]
    HiddenCharInName { name: String },
    #[error("an unknown element must be a single element such as `<plan>…</plan>`")]
    NotAnElement,
}

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
            value: show_hidden(text.trim(), 20),
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
        let mut out = String::with_capacity(self.json.len());
        let (mut in_string, mut escaped) = (false, false);
        for c in self.json.chars() {
            if in_string {
                out.push(c);
                match (escaped, c) {
                    (true, _) => escaped = false,
                    (false, '\\') => escaped = true,
                    (false, '"') => in_string = false,
                    _ => {}
                }
            } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
                in_string = c == '"';
                out.push(c);
            }
        }
        out
    }
}

/// A child element the product does not know, kept as its exact source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownElement {
    name: String,
    xml: String,
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
pub struct RootAttributes(String);

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

    /// Token patterns in any field, with the field they were found in.
    pub fn find_secrets(&self) -> Vec<(&'static str, SecretMatch)> {
        let texts = [
            ("agent", self.agent.as_deref()),
            ("intent", self.intent.as_deref()),
            ("step", self.step.as_deref()),
            ("memory", self.memory.as_ref().map(Memory::as_str)),
            ("next_action", self.next_action.as_deref()),
        ];
        let unknown = self
            .unknown
            .iter()
            .map(|u| ("unknown element", Some(u.xml())));
        texts
            .into_iter()
            .chain(unknown)
            .flat_map(|(field, text)| {
                find_secrets(text.unwrap_or(""))
                    .into_iter()
                    .map(move |m| (field, m))
            })
            .collect()
    }
}

/// A `step` written by `state put` is a lower-case token such as `waiting_for_review`.
pub fn is_step_token(step: &str) -> bool {
    let mut chars = step.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        && step.len() <= 64
}

/// Renders `state` as a block; [`parse_block`] gives the same state back.
pub fn render_block(state: &AgentState) -> String {
    let mut out = String::from("<agent-state");
    if !state.root_attributes.0.is_empty() {
        out.push(' ');
        out.push_str(&state.root_attributes.0);
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

/// Parses one block, from `<agent-state` to its closing `>`, LF-normalized.
pub fn parse_block(xml: &str) -> Result<AgentState, BlockError> {
    if xml.len() > MAX_BLOCK_BYTES {
        return Err(BlockError::TooLarge {
            bytes: xml.len(),
            limit: MAX_BLOCK_BYTES,
        });
    }
    let xml = normalize_newlines(xml);
    let xml = xml.trim_matches(is_ignorable_space);
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
    let mut seen: Vec<&'static str> = Vec::new();
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
                        note_field(&mut seen, field)?;
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
                        note_field(&mut seen, field)?;
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
            found: format!("<{name}>"),
        });
    }
    check_attributes(start)
}

fn known_field(name: &str) -> Option<&'static str> {
    [
        "agent",
        "intent",
        "step",
        "progress",
        "memory",
        "next_action",
    ]
    .into_iter()
    .find(|field| *field == name)
}

fn note_field(seen: &mut Vec<&'static str>, field: &'static str) -> Result<(), BlockError> {
    if seen.contains(&field) {
        return Err(BlockError::DuplicateField { field });
    }
    seen.push(field);
    Ok(())
}

fn set_field(state: &mut AgentState, field: &'static str, text: String) -> Result<(), BlockError> {
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

fn unknown_element(start: &BytesStart<'_>, source: &str) -> Result<UnknownElement, BlockError> {
    let name = element_name(start)?;
    if name == ROOT || source.contains("<agent-state") || source.contains("</agent-state") {
        return Err(BlockError::Nested);
    }
    Ok(UnknownElement {
        name: name.to_owned(),
        xml: source.to_owned(),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn parse(xml: &str) -> Result<AgentState, BlockError> {
        parse_block(xml)
    }

    fn text_state(value: &str) -> AgentState {
        AgentState {
            agent: Some(value.to_owned()),
            intent: Some(value.to_owned()),
            step: Some(value.to_owned()),
            next_action: Some(value.to_owned()),
            ..AgentState::default()
        }
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
    fn memory_keeps_its_exact_text() {
        let text = "{\"big\": 123456789012345678901234567890, \"f\": 0.1, \"z\": 1, \"a\": [ ]}";
        let memory = Memory::from_json_text(text).expect("valid");
        assert_eq!(
            memory.to_compact_string(),
            "{\"big\":123456789012345678901234567890,\"f\":0.1,\"z\":1,\"a\":[]}"
        );
        let state = AgentState {
            memory: Some(memory),
            ..AgentState::default()
        };
        assert_eq!(parse(&render_block(&state)), Ok(state));
        assert_eq!(
            Memory::from_json_text("{\"s\": \"a b \\\" c\"}").map(|m| m.to_compact_string()),
            Ok("{\"s\":\"a b \\\" c\"}".to_owned())
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

    #[test]
    fn secrets_are_found_in_any_field() {
        let state = AgentState {
            memory: Memory::from_json_text("{\"password\": \"hunter2\"}").ok(),
            ..AgentState::default()
        };
        let found: Vec<_> = state.find_secrets().into_iter().map(|(f, _)| f).collect();
        assert_eq!(found, ["memory"]);
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

    pub(crate) fn hostile_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            any::<String>(),
            Just("<".to_owned()),
            Just("&".to_owned()),
            Just("]]>".to_owned()),
            Just("</memory>".to_owned()),
            Just("-->".to_owned()),
            Just("```".to_owned()),
            Just("~~~~".to_owned()),
            Just("`".to_owned()),
            Just("\n> ".to_owned()),
            Just("\n    ".to_owned()),
            Just("\r\n".to_owned()),
            Just("\r".to_owned()),
            Just(" ".to_owned()),
            Just("\u{a0}".to_owned()),
            Just("\u{feff}".to_owned()),
            Just("\u{200b}".to_owned()),
            Just("<agent-state>".to_owned()),
            Just("</agent-state>".to_owned()),
            Just("&lt;".to_owned()),
            Just("<!--".to_owned()),
            Just("\0".to_owned()),
        ];
        prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
    }

    pub(crate) fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            hostile_text().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((hostile_text(), inner), 0..6)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    pub(crate) fn agent_state() -> impl Strategy<Value = AgentState> {
        let text = || prop::option::of(hostile_text());
        (
            (text(), text(), text(), text()),
            prop::option::of(0u8..=100),
            prop::option::of(json_value()),
            any::<bool>(),
        )
            .prop_map(
                |((agent, intent, step, next_action), progress, memory, pretty)| {
                    let memory = memory.map(|value| match pretty {
                        true => Memory::from_value_pretty(&value),
                        false => Memory::from_value(&value),
                    });
                    AgentState {
                        agent,
                        intent,
                        step,
                        progress: progress.and_then(Progress::new),
                        memory,
                        next_action,
                        ..AgentState::default()
                    }
                },
            )
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

        #[test]
        fn parsing_never_panics(xml in hostile_text()) {
            let _ = parse(&format!("<agent-state>{xml}</agent-state>"));
            let _ = parse(&xml);
            let _ = UnknownElement::from_xml(&xml);
        }
    }
}
