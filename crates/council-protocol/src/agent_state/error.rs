//! What every block module shares, kept apart so that the XML layer, the data model and
//! the parser can all name it without depending on one another: the root element's
//! name, the size bound, and why a block cannot be read.

/// The root element name.
pub const ROOT: &str = "agent-state";

/// The largest block read: a GitHub comment holds 65,536 code points of up to 4 bytes.
pub const MAX_BLOCK_BYTES: usize = 262_144;

/// Why a block was refused; the text is shown to the block's author, so each message
/// says what to change.
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
