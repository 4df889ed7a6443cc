//! `<agent-state>` blocks on issues (the Context Protocol): parsing and rendering one
//! block, finding blocks in a comment, choosing the trusted latest one across
//! comments, and fitting a comment under GitHub's size limit.
//!
//! Everything here is pure: no I/O, no environment, no clock.

pub mod block;
pub mod comment;
pub mod compact;
pub mod find;
pub mod put;
pub mod trust;
mod xml;

pub use block::{
    AgentState, BlockError, Memory, Progress, RootAttributes, UnknownElement, is_step_token,
    parse_block, render_block,
};
pub use comment::{
    COMMENT_CHAR_LIMIT, CommentError, RenderedComment, find_run_key, render_comment,
};
pub use compact::{Compaction, KEY_FIELDS, compact_json};
pub use find::{CommentScan, count_blocks, scan_comment};
pub use trust::{
    IssueComment, Selection, StateScan, StateSource, StateWarning, TrustConfig, select_latest,
};
