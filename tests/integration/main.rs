//! One integration-test binary, one module per feature.

mod support;

mod action_metadata;
mod agent_state_corpus;
mod artifact;
mod forgery;
mod guard;
mod hardening;
mod hostile;
mod ledger;
mod release;
mod review;
mod state;
mod verify;
mod world;
