//! The Context Object, its timeline, and tamper evidence (pure).

pub mod adopt;
pub mod canonical;
pub mod chain;
pub mod context;
pub mod derive;
pub mod head;
mod number;
pub mod stored;
pub mod timeline;
pub mod verify;

#[cfg(test)]
mod tests;

pub use context::{ContextObject, Entry, GuardStatus, ReleaseStatus, ReviewStatus, Subject};
pub use timeline::RunInfo;
