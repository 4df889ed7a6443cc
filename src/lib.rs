//! agent-council's program: the command line (`cli`), the run environment (`env`), one
//! typed request per command (`request`), the orchestration (`app`), the MCP server
//! (`mcp`) and how a run talks to the runner (`runner`). The rules are
//! `council_protocol`'s (pure: no I/O, clock or environment); GitHub is reached only
//! through `council_github`. The compiler keeps those borders: neither of them can call
//! into this crate, and `council_protocol` depends on nothing that does I/O.

// Unit tests slice freely: a panic there is a failing test. The lib itself is checked
// without `cfg(test)` (`cargo clippy --all-targets` builds both).
#![cfg_attr(test, allow(clippy::string_slice))]

pub mod app;
pub mod cli;
pub mod env;
pub mod exit;
pub mod invoke;
pub mod mcp;
pub mod request;
pub mod runner;
pub mod secret;
