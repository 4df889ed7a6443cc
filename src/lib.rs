//! agent-council: Guard, Review and Release gates for pull requests, a tamper-evident
//! audit ledger, and `<agent-state>` pause/resume for agents, as one binary.
//!
//! Decision modules are pure; only `app`, `github`, `runner` and `settings` touch the world.

pub mod agent_state;
pub mod app;
pub mod assistant_context;
pub mod audit;
pub mod chars;
pub mod cli;
pub mod command;
pub mod context_report;
pub mod error;
pub mod event;
pub mod gates;
pub mod github;
pub mod jitter;
pub mod markdown;
pub mod plan;
pub mod policy;
pub mod redact;
pub mod render;
pub mod review;
pub mod runner;
pub mod secrets;
pub mod settings;
pub mod stage;
