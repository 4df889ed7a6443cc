//! One integration-test binary, one module per feature.

mod support;

mod action_metadata;
mod artifact;
mod agent_state_corpus;
mod guard;
mod hostile;
