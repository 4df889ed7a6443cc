//! The Context Object, its timeline, and tamper evidence (pure): entries chained by
//! SHA-256 over their RFC 8785 canonical form, signed with HMAC-SHA256 when a key is
//! given, sealed onto a stored object and verified by anyone from SPEC.md's rules alone.
//!
//! ```
//! use council_protocol::audit::ContextObject;
//! use council_protocol::audit::stored::merge;
//! use council_protocol::audit::timeline::{Record, RunInfo, new_entry};
//! use council_protocol::audit::verify::verify;
//! use council_protocol::event::Event;
//!
//! let payload = r#"{"action": "opened", "number": 7, "pull_request": {"number": 7,
//!     "title": "Login", "body": null, "user": {"login": "agent-7"}, "state": "open",
//!     "draft": false, "labels": [], "html_url": "https://github.com/o/r/pull/7",
//!     "head": {"ref": "feature/auth/PBI-7-login", "sha": "1111111111111111111111111111111111111111",
//!              "repo": {"full_name": "o/r"}},
//!     "base": {"ref": "develop", "sha": "2222222222222222222222222222222222222222",
//!              "repo": {"full_name": "o/r"}}}}"#;
//! let pr = Event::parse("pull_request", payload, "event.json")?.pull_request()?;
//! let now = "2026-01-01T00:00:00Z";
//! let mut ours = ContextObject::new("o/r", &pr, "webhook:pull_request.opened", now);
//! let record = Record {
//!     stage: "guard",
//!     agent: "agent_guard",
//!     action: "check:branch-name".into(),
//!     result: "PASS".into(),
//!     message: "matches rule feature".into(),
//! };
//! ours.timeline.push(new_entry(&RunInfo::local(), &record, &pr.head_sha, now));
//!
//! let key = Some(&b"a secret key"[..]);
//! let sealed = merge(None, &ours, key).expect("sealed").file_context();
//! let file = serde_json::to_value(&sealed)?;
//! assert!(verify(&file, key).is_ok());
//!
//! let mut forged = file.clone();
//! forged["timeline"][0]["result"] = "FAIL".into();
//! assert!(verify(&forged, key).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod adopt;
pub mod canonical;
pub mod chain;
pub mod context;
pub mod derive;
pub mod gates;
pub mod head;
mod number;
pub mod stored;
pub mod subject;
pub mod supersede;
pub mod timeline;
pub mod verify;

#[cfg(test)]
mod tests;

pub use context::{ContextObject, Entry, GuardStatus, ReleaseStatus, ReviewStatus, Subject};
pub use timeline::RunInfo;
