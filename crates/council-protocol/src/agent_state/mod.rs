//! `<agent-state>` blocks on issues (the Context Protocol): the state a block carries,
//! reading and writing one block, finding blocks in a comment, choosing the trusted
//! latest one across comments, and fitting a comment under GitHub's size limit.
//!
//! Everything here is pure: no I/O, no environment, no clock. Each module depends only
//! on those listed before it:
//! - `error`: the root's name, the size bound, and why a block is refused;
//! - `model`: the state a block carries, valid by construction;
//! - `xml`: the XML rules on top of quick-xml (reader settings, references, escaping);
//! - `fields`: the known fields and how each one's text becomes a value;
//! - `lenient`: escaping what a careless writer left unescaped, before the strict parse;
//! - `parse`, `render`: one block to one state and back;
//! - `withhold`: secrets in any field or element, refused on write, withheld on read;
//! - `find`, `trust`: the blocks of a comment, the trusted latest state of an issue;
//! - `v21`: the typed view of the protocol's v2.1 elements (`<plan>`, `<input_request>`,
//!   `<metrics>`), kept verbatim in the block like any other element;
//! - `compact`, `comment`, `put`: writing a state as a comment that fits.

pub mod comment;
pub mod compact;
pub mod error;
mod fields;
pub mod find;
pub mod lenient;
pub mod model;
pub mod parse;
pub mod put;
pub mod render;
#[cfg(test)]
pub(crate) mod testing;
pub mod trust;
pub mod v21;
pub mod withhold;
mod xml;

pub use comment::{
    COMMENT_CHAR_LIMIT, CommentError, RenderedComment, find_run_key, render_comment,
};
pub use compact::{Compaction, KEY_FIELDS, compact_json};
pub use error::{BlockError, MAX_BLOCK_BYTES, ROOT};
pub use find::{CommentScan, count_blocks, scan_comment};
pub use lenient::Mend;
pub use model::{AgentState, Memory, Progress, RootAttributes, UnknownElement, is_step_token};
pub use parse::{ReadBlock, parse_block, read_block};
pub use render::render_block;
pub use trust::{
    IssueComment, Selection, StateScan, StateSource, StateWarning, TrustConfig, WarningKind,
    select_latest,
};
pub use withhold::Withheld;
