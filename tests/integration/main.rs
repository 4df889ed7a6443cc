//! One integration-test binary, one module per feature.

#![allow(clippy::unwrap_used)] // a test or measurement: a panic is its failure, with the message
#![allow(clippy::string_slice)] // test code: a panic there is a failing test

mod support;

mod action_metadata;
mod actors;
mod audit;
mod audit_file;
mod audit_sync;
mod cli;
mod commit_races;
mod context;
mod docs;
mod faults;
mod forgery;
mod gate_json;
mod guard;
mod hardening;
mod hostile;
mod ledger;
mod mcp;
mod messages;
mod queue;
mod queue_races;
mod redaction;
mod registry;
mod release;
mod release_trust;
mod review;
mod state;
mod state_v21;
mod tools;
mod try_offline;
mod verify;
mod world;
