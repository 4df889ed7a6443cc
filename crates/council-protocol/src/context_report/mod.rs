//! The Agent Context Report protocol on GitHub: agents post `<context-report>` blocks
//! on a registry issue (`council report`), and `council assign` ranks them for an issue
//! with the seed's scoring rules, its bugs fixed. Pure: no I/O, no clock (`now` is
//! passed in); reading and writing comments and labels live in `app::reports`.
//!
//! Modules, each depending only on those before it: `strict_json` (JSON with comments,
//! no duplicate members), `report` (the strict shape), `comment` (the comment and its
//! block), `matching` (an issue's task and project ids), `score` (rules, freshness,
//! ranking), `registry` (each agent's latest trusted report).

pub mod comment;
pub mod matching;
pub mod registry;
pub mod report;
pub mod score;
pub mod strict_json;

#[cfg(test)]
mod tests;

pub use comment::{marker, render};
pub use matching::IssueFacts;
pub use registry::{Registry, RegistryComment, collect};
pub use report::{Report, ReportError, parse_report};
pub use score::{Candidate, Freshness, Ranking, Scored, rank};
