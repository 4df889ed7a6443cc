//! Reading the inside of a v2.1 element with the block's own XML rules (references,
//! CDATA and comments as in a field; no markup where text is expected).

use quick_xml::events::Event;

use crate::agent_state::error::BlockError;
use crate::agent_state::xml::{
    next_event, read_text, reader, resolve_reference, unescape_attribute,
};
use crate::chars::{is_ignorable_space, show_hidden};

/// A child element: its name, attributes (name, unescaped value) and text.
pub(super) struct Child {
    pub name: String,
    pub attributes: Vec<(String, String)>,
    pub text: String,
}

/// The children of the element whose source is `xml`: each must be a text-only
/// element; whitespace and comments between them are allowed.
pub(super) fn children(xml: &str, element: &'static str) -> Result<Vec<Child>, String> {
    let mut reader = reader(xml);
    match next_event(&mut reader).map_err(|e| e.to_string())? {
        Event::Start(_) => {}
        Event::Empty(_) => return Ok(Vec::new()),
        _ => return Err(format!("`<{element}>` is not an element")),
    }
    let mut children = Vec::new();
    loop {
        match next_event(&mut reader).map_err(|e| e.to_string())? {
            Event::End(_) | Event::Eof => return Ok(children),
            Event::Comment(_) => {}
            Event::Text(text) => {
                let text = text.into_inner();
                if !text.chars().all(is_ignorable_space) {
                    return Err(format!(
                        "text `{}` sits directly inside `<{element}>`; put it in a child element",
                        show_hidden(text.trim(), 40)
                    ));
                }
            }
            Event::GeneralRef(reference) => {
                let c = resolve_reference(&reference).map_err(|e| e.to_string())?;
                if !is_ignorable_space(c) {
                    return Err(format!("text sits directly inside `<{element}>`"));
                }
            }
            Event::CData(_) => return Err(format!("CDATA sits directly inside `<{element}>`")),
            Event::Start(start) => {
                let name = start.name().0.to_owned();
                let attributes = attributes(&start)?;
                let text = read_text(&mut reader, element).map_err(|e| match e {
                    BlockError::MarkupInField { element: inner, .. } => format!(
                        "`<{}>` must hold plain text but contains the element `<{inner}>`",
                        show_hidden(&name, 40)
                    ),
                    other => other.to_string(),
                })?;
                children.push(Child {
                    name,
                    attributes,
                    text,
                });
            }
            Event::Empty(start) => {
                let name = start.name().0.to_owned();
                let attributes = attributes(&start)?;
                children.push(Child {
                    name,
                    attributes,
                    text: String::new(),
                });
            }
            _ => return Err(format!("`<{element}>` holds markup that is not allowed")),
        }
    }
}

fn attributes(start: &quick_xml::events::BytesStart<'_>) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|e| e.to_string())?;
        let key = attribute.key.0.to_owned();
        let raw = attribute.value.to_string();
        out.push((key, unescape_attribute(&raw)?));
    }
    Ok(out)
}

/// Escapes text or an attribute value for writing.
pub(super) fn escape(value: &str) -> String {
    let mut out = String::new();
    crate::agent_state::xml::escape_into(value, &mut out);
    out.replace('"', "&quot;")
}
