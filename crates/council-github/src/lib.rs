//! Everything that talks to GitHub for agent-council: one concrete octocrab-backed client
//! (REST and GraphQL, bounded retries honouring `Retry-After`, a dry run's refusal of
//! every write), the Actions artifact service, and the randomness its backoff and
//! temporary names need. The rules it serves are `council_protocol`'s.

// Unit tests slice freely: a panic there is a failing test. The lib itself is checked
// without `cfg(test)` (`cargo clippy --all-targets` builds both).
#![cfg_attr(test, allow(clippy::string_slice))]

pub mod artifact;
pub mod client;
pub mod files;
pub mod git;
pub mod issue_state;
pub mod jitter;
pub mod pulls;
pub mod rest;
pub mod retry;

pub use client::{ApiError, GitHub, GitHubConfig};
pub use rest::{Comment, Identity, IssueInfo};

/// `owner/name`, split once at the edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoName {
    pub owner: String,
    pub name: String,
}

impl RepoName {
    pub fn parse(full: &str) -> Option<RepoName> {
        let (owner, name) = full.split_once('/')?;
        let valid = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        (valid(owner) && valid(name) && name != "." && name != "..").then(|| RepoName {
            owner: owner.to_string(),
            name: name.to_string(),
        })
    }

    pub fn full(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }
}

impl std::fmt::Display for RepoName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_names_are_validated() {
        assert_eq!(RepoName::parse("o/r").unwrap().full(), "o/r");
        assert!(RepoName::parse("o").is_none());
        assert!(RepoName::parse("o/r/x").is_none());
        assert!(RepoName::parse("o/..").is_none());
        assert!(RepoName::parse("o/r?x=1").is_none());
        assert!(RepoName::parse("/r").is_none());
    }
}
