//! agent-council's program: the orchestration (`app`), the command line (`cli`), how a
//! run is configured (`settings`) and how it talks to the runner (`runner`). The rules
//! are `council_protocol`'s (pure: no I/O, clock or environment); GitHub is reached only
//! through `council_github`. The compiler keeps those borders: neither of them can call
//! into this crate, and `council_protocol` depends on nothing that does I/O.

// Unit tests slice freely: a panic there is a failing test. The lib itself is checked
// without `cfg(test)` (`cargo clippy --all-targets` builds both).
#![cfg_attr(test, allow(clippy::string_slice))]

pub mod app;
pub mod cli;
pub mod flag_order;
pub mod mcp;
pub mod runner;
pub mod settings;
