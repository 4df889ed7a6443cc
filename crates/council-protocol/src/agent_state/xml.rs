//! The XML rules of a block, on top of quick-xml: reader settings, what may appear
//! where, the only references that are expanded, and escaping that survives Markdown.

use std::borrow::Cow;

use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

use crate::agent_state::error::{BlockError, ROOT};
use crate::chars::{is_hidden_char, is_ignorable_space, show_hidden};

pub(crate) fn reader(xml: &str) -> Reader<&[u8]> {
    let mut reader = Reader::from_str(xml);
    let config = reader.config_mut();
    config.check_end_names = true;
    config.allow_dangling_amp = false;
    config.allow_unmatched_ends = false;
    config.expand_empty_elements = false;
    config.trim_text(false);
    reader
}

pub(crate) fn next_event<'a>(reader: &mut Reader<&'a [u8]>) -> Result<Event<'a>, BlockError> {
    reader.read_event().map_err(|error| BlockError::Xml {
        detail: show_hidden(&error.to_string(), 200),
    })
}

pub(crate) fn position(reader: &Reader<&[u8]>) -> usize {
    usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX)
}

/// Escapes text for an XML element. Markup characters become entities; characters
/// that Markdown, CRLF normalization or trimming would alter, or that hide text,
/// become numeric references.
pub(crate) fn escape_into(value: &str, out: &mut String) {
    let lead_end = value
        .char_indices()
        .find(|&(_, c)| !is_ignorable_space(c))
        .map_or(value.len(), |(i, _)| i);
    let trail_start = value
        .char_indices()
        .rev()
        .find(|&(_, c)| !is_ignorable_space(c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    for (index, c) in value.char_indices() {
        let keep_exact = index < lead_end || index >= trail_start;
        if keep_exact || is_hidden_char(c) || matches!(c, '\u{fffe}' | '\u{ffff}') {
            out.push_str(&format!("&#x{:X};", u32::from(c)));
            continue;
        }
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            _ => out.push(c),
        }
    }
}

/// How many characters `c` takes once [`escape_into`] has escaped it (away from the
/// value's edges, where whitespace becomes a reference too).
pub(crate) fn escaped_len(c: char) -> usize {
    if is_hidden_char(c) || matches!(c, '\u{fffe}' | '\u{ffff}') {
        return format!("&#x{:X};", u32::from(c)).len();
    }
    match c {
        '<' | '>' => 4,
        '&' => 5,
        _ => 1,
    }
}

pub(crate) fn resolve_reference(name: &str) -> Result<char, BlockError> {
    match name {
        "lt" => return Ok('<'),
        "gt" => return Ok('>'),
        "amp" => return Ok('&'),
        "quot" => return Ok('"'),
        "apos" => return Ok('\''),
        _ => {}
    }
    let Some(number) = name.strip_prefix('#') else {
        return Err(BlockError::UnknownEntity {
            name: show_hidden(name, 40),
        });
    };
    let parsed = match number.strip_prefix('x') {
        Some(hex) if !hex.is_empty() && hex.len() <= 8 => u32::from_str_radix(hex, 16).ok(),
        None if !number.is_empty() && number.len() <= 10 && !number.starts_with('+') => {
            number.parse::<u32>().ok()
        }
        _ => None,
    };
    parsed
        .and_then(char::from_u32)
        .ok_or_else(|| BlockError::BadCharRef {
            reference: show_hidden(name, 40),
        })
}

/// An attribute value with its references expanded (the same five entities and
/// numeric references as text).
pub(crate) fn unescape_attribute(raw: &str) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(start) = rest.find('&') {
        out.push_str(rest.get(..start).unwrap_or(""));
        let after = rest.get(start + 1..).unwrap_or("");
        let end = after
            .find(';')
            .ok_or("an `&` in an attribute is not followed by `;`")?;
        out.push(resolve_reference(after.get(..end).unwrap_or("")).map_err(|e| e.to_string())?);
        rest = after.get(end + 1..).unwrap_or("");
    }
    out.push_str(rest);
    Ok(out)
}

/// What a reader of `xml` (markup the parser accepted) is shown of it: each element's
/// name and attribute values, and its text with references expanded and CDATA opened.
/// The pieces of one run of text are joined as they read (`ghp_&#x41;…` reads as one
/// token), runs and names go on lines of their own. Used to look for secrets a
/// reference or CDATA would hide from a look at the source; on malformed input, what
/// was read up to the error.
pub(crate) fn decoded_text(xml: &str) -> String {
    fn line(out: &mut String, text: &str) {
        if !text.is_empty() {
            out.push_str(text);
            out.push('\n');
        }
    }
    let mut reader = reader(xml);
    let mut out = String::new();
    let mut run = String::new();
    while let Ok(event) = reader.read_event() {
        match event {
            Event::Text(text) => run.push_str(&text.into_inner()),
            Event::CData(data) => run.push_str(&data.into_inner()),
            Event::GeneralRef(reference) => {
                if let Ok(c) = resolve_reference(&reference) {
                    run.push(c);
                }
            }
            Event::Comment(_) => {}
            Event::Eof => break,
            other => {
                line(&mut out, &std::mem::take(&mut run));
                if let Event::Start(start) | Event::Empty(start) = &other {
                    line(&mut out, start.name().0);
                    for attribute in start.attributes().flatten() {
                        line(&mut out, attribute.key.0);
                        let raw = attribute.value.to_string();
                        line(&mut out, &unescape_attribute(&raw).unwrap_or(raw));
                    }
                }
            }
        }
    }
    line(&mut out, &run);
    out
}

pub(crate) fn element_name<'a>(start: &'a BytesStart<'_>) -> Result<&'a str, BlockError> {
    let name = start.name().0;
    if name.chars().any(is_hidden_char) {
        return Err(BlockError::HiddenCharInName {
            name: show_hidden(name, 60),
        });
    }
    Ok(name)
}

pub(crate) fn check_attributes(start: &BytesStart<'_>) -> Result<(), BlockError> {
    let mut attributes = start.attributes();
    attributes.with_checks(true);
    for attribute in attributes {
        let attribute = attribute.map_err(|error| BlockError::Xml {
            detail: show_hidden(&error.to_string(), 200),
        })?;
        let name = attribute.key.0;
        if name.chars().any(is_hidden_char) {
            return Err(BlockError::HiddenCharInName {
                name: show_hidden(name, 60),
            });
        }
        check_references(&attribute.value)?;
    }
    Ok(())
}

/// Every `&…;` in an attribute value must be one the reader would expand.
fn check_references(value: &str) -> Result<(), BlockError> {
    let mut rest = value;
    while let Some(start) = rest.find('&') {
        let after = rest.get(start + 1..).unwrap_or("");
        let Some(end) = after.find(';') else {
            return Err(BlockError::Xml {
                detail: "an `&` in an attribute value is not followed by `;`".to_owned(),
            });
        };
        resolve_reference(after.get(..end).unwrap_or(""))?;
        rest = after.get(end + 1..).unwrap_or("");
    }
    Ok(())
}

/// A piece of field text: literal text may be trimmed, a reference never is.
enum Piece<'a> {
    Literal(Cow<'a, str>),
    Reference(char),
}

/// Reads a known field's text up to its end tag, refusing nested markup.
pub(crate) fn read_text(
    reader: &mut Reader<&[u8]>,
    field: &'static str,
) -> Result<String, BlockError> {
    let mut pieces = Vec::new();
    loop {
        match next_event(reader)? {
            Event::Text(text) => pieces.push(Piece::Literal(text.into_inner())),
            Event::CData(data) => pieces.push(Piece::Literal(data.into_inner())),
            Event::GeneralRef(reference) => {
                pieces.push(Piece::Reference(resolve_reference(&reference)?));
            }
            Event::Comment(_) => {}
            Event::End(_) => return Ok(join_trimmed(pieces)),
            Event::Eof => return Err(BlockError::Unclosed),
            Event::Start(start) | Event::Empty(start) => {
                return Err(BlockError::MarkupInField {
                    field,
                    element: show_hidden(start.name().0, 60),
                });
            }
            other => return Err(disallowed(&other)),
        }
    }
}

fn join_trimmed(mut pieces: Vec<Piece<'_>>) -> String {
    for piece in pieces.iter_mut() {
        match piece {
            Piece::Literal(text) => {
                let trimmed = text.trim_start_matches(is_ignorable_space);
                let done = !trimmed.is_empty();
                *text = Cow::Owned(trimmed.to_owned());
                if done {
                    break;
                }
            }
            Piece::Reference(_) => break,
        }
    }
    for piece in pieces.iter_mut().rev() {
        match piece {
            Piece::Literal(text) => {
                let trimmed = text.trim_end_matches(is_ignorable_space);
                let done = !trimmed.is_empty();
                *text = Cow::Owned(trimmed.to_owned());
                if done {
                    break;
                }
            }
            Piece::Reference(_) => break,
        }
    }
    let mut out = String::new();
    for piece in pieces {
        match piece {
            Piece::Literal(text) => out.push_str(&text),
            Piece::Reference(c) => out.push(c),
        }
    }
    out
}

/// Reads the rest of an element whose start tag began at `start`, checking what it
/// holds, and returns its exact source text. A block tag hidden in CDATA or a comment
/// would confuse the finder once written back, so it is refused too.
pub(crate) fn capture_element<'x>(
    reader: &mut Reader<&[u8]>,
    xml: &'x str,
    start: usize,
) -> Result<&'x str, BlockError> {
    let mut depth = 1usize;
    while depth > 0 {
        match next_event(reader)? {
            Event::Start(inner) => {
                check_nested_element(&inner)?;
                depth += 1;
            }
            Event::Empty(inner) => check_nested_element(&inner)?,
            Event::End(_) => depth -= 1,
            Event::GeneralRef(reference) => {
                resolve_reference(&reference)?;
            }
            Event::Text(_) | Event::CData(_) | Event::Comment(_) => {}
            Event::Eof => return Err(BlockError::Unclosed),
            other => return Err(disallowed(&other)),
        }
    }
    let source = xml
        .get(start..position(reader))
        .ok_or(BlockError::NotAnElement)?;
    if source.contains("<agent-state") || source.contains("</agent-state") {
        return Err(BlockError::Nested);
    }
    Ok(source)
}

fn check_nested_element(start: &BytesStart<'_>) -> Result<(), BlockError> {
    if element_name(start)? == ROOT {
        return Err(BlockError::Nested);
    }
    check_attributes(start)
}

pub(crate) fn stray(text: &str) -> BlockError {
    BlockError::StrayText {
        text: show_hidden(text.trim(), 40),
    }
}

pub(crate) fn disallowed(event: &Event<'_>) -> BlockError {
    match event {
        Event::DocType(_) => BlockError::DocType,
        Event::Decl(_) => BlockError::Disallowed {
            what: "an XML declaration (`<?xml …?>`)",
        },
        _ => BlockError::Disallowed {
            what: "a processing instruction (`<?…?>`)",
        },
    }
}

pub(crate) fn describe(event: &Event<'_>) -> String {
    match event {
        Event::Start(start) | Event::Empty(start) => {
            format!("<{}>", show_hidden(start.name().0, 40))
        }
        Event::End(end) => format!("</{}>", show_hidden(end.name().0, 40)),
        Event::Text(text) => show_hidden(text.trim(), 40),
        _ => "other markup".to_owned(),
    }
}
