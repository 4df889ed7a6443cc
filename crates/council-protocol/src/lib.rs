//! The rules of [agent-council](https://github.com/OWNER/agent-council), with no I/O: the
//! formats it reads and writes and the decisions it makes from them. No network, no file
//! system, no environment, no clock: every input is a value and every effect is data, so
//! another tool can read and write what council reads and writes, and decide as it does.
//!
//! - [`agent_state`]: `<agent-state>` blocks in issue comments (the Context Protocol,
//!   v2.1 elements included): find the latest trusted one, parse, render, compact.
//! - [`assistant_context`]: `ASSISTANT_CONTEXT.md`/`.yaml` files (RFC 0001): validate with
//!   file, line, column and field; edit fields keeping every other byte.
//! - [`audit`]: the Context Object and its hash-chained, optionally signed timeline: build,
//!   seal, verify, and derive `state` and `gates`.
//! - [`context_report`]: `<context-report>` blocks and the assignment ranking.
//! - [`policy`]: `.github/council.yml`, strict, with limits; [`gates`] and [`stage`]: the
//!   guard, review and release decisions; [`actors`]: whether a pull request is an
//!   agent's or a human's, commit trailers, and `policy simulate`'s replay; [`queue`]: the
//!   merge queue's decisions (what a run lands, tests, rebuilds or dequeues); [`plan`] and [`command`]: which command an event
//!   runs; [`event`]: webhook payloads; [`render`] and [`markdown`]: what comments and
//!   summaries show; [`secrets`] and [`redact`]: token patterns, never echoed.
//!
//! Reading an agent's latest state from an issue's comments (the newest valid block
//! written by someone the issue trusts; a stranger's block is counted, never read):
//!
//! ```
//! use council_protocol::agent_state::{IssueComment, TrustConfig, select_latest};
//!
//! let body = "Paused for review.\n\n```xml\n<agent-state>\n  <intent>add_login</intent>\n  \
//!             <step>testing</step>\n  <progress>60</progress>\n  \
//!             <memory>{\"files_changed\": [\"auth.rs\"]}</memory>\n  \
//!             <next_action>run_e2e</next_action>\n</agent-state>\n```\n";
//! let comments = [IssueComment {
//!     id: 1,
//!     author: "octocat",
//!     association: "MEMBER",
//!     body,
//!     html_url: "https://github.com/o/r/issues/1#issuecomment-1",
//!     created_at: "2026-01-01T00:00:00Z",
//! }];
//! let trust = TrustConfig { issue_author: "alice".into(), ..TrustConfig::default() };
//! let latest = select_latest(&comments, &trust);
//! assert_eq!(latest.state.step.as_deref(), Some("testing"));
//! assert_eq!(latest.state.progress.map(|p| p.value()), Some(60));
//! ```

// Unit tests slice freely: a panic there is a failing test. The lib itself is checked
// without `cfg(test)` (`cargo clippy --all-targets` builds both).
#![cfg_attr(test, allow(clippy::string_slice))]

pub mod actors;
pub mod agent_state;
pub mod assistant_context;
pub mod audit;
pub mod chars;
pub mod command;
pub mod context_report;
pub mod error;
pub mod event;
pub mod gates;
pub mod json;
pub mod markdown;
pub mod plan;
pub mod policy;
pub mod queue;
pub mod redact;
pub mod render;
pub mod review;
pub mod secrets;
pub mod stage;

#[cfg(test)]
mod multibyte_tests;
