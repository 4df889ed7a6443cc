//! The Context Object, its timeline, and tamper evidence (pure).

pub mod context;
pub mod timeline;

pub use context::{ContextObject, Entry, GuardStatus, ReleaseStatus, ReviewStatus, Subject};
pub use timeline::RunInfo;
