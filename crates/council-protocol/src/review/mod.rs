//! What the review stage looks at, worked out once from the diff GitHub lists and the
//! base-branch policy (pure). The gates are in `crate::gates`; each reads [`ReviewFacts`].

pub mod diff;
pub mod paths;

use crate::actors::Classified;
use crate::event::PullRequest;
use crate::policy::Review;

pub use diff::{DiffFacts, FileChange};

/// An `ASSISTANT_CONTEXT` file the pull request changes, as validated at the head SHA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextCheck {
    pub path: String,
    /// What is wrong with it, each naming line, column and field (empty: valid).
    pub problems: Vec<String>,
}

/// Everything a review gate may look at.
#[derive(Debug, Clone, Copy)]
pub struct ReviewFacts<'a> {
    pub pr: &'a PullRequest,
    /// The policy's `review:` section.
    pub policy: &'a Review,
    pub diff: &'a DiffFacts,
    /// The changed `ASSISTANT_CONTEXT` files, validated (empty when none changed or the
    /// gate is off).
    pub context_files: &'a [ContextCheck],
    /// The pull request's class ([`crate::actors::classify`] on live facts) and the
    /// rules for agents. `None`: the caller did not classify it, and review runs as it
    /// did before `actors` (no `check:actor`, no agents' gates, no agent label).
    pub actor: Option<Classified<'a>>,
}

impl ReviewFacts<'_> {
    /// The skip label that is set on the pull request, if `label` is one.
    pub fn labelled<'l>(&self, label: Option<&'l String>) -> Option<&'l str> {
        label
            .filter(|l| self.pr.labels.iter().any(|have| have == *l))
            .map(String::as_str)
    }
}

/// Whether a path names an `ASSISTANT_CONTEXT` file (RFC 0001: `.md` or `.yaml`).
pub fn is_assistant_context(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(name, "ASSISTANT_CONTEXT.md" | "ASSISTANT_CONTEXT.yaml")
}
