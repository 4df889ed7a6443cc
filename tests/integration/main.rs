//! One integration-test binary, one module per feature.

mod support;

mod action_metadata;
mod guard;
mod hostile;
