//! Each tool's argument types and handler: a thin adapter from the decoded arguments to
//! a typed request and the app function the CLI calls for the same question.

pub mod branch;
pub mod ledger;
pub mod registry;
pub mod state;
