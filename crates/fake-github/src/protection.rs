//! Branch protection as data: a ruleset (or a classic protection rule) over branch
//! globs, refusing ref writes by anyone not on its bypass list, as GitHub refuses them.
//!
//! The answers: a ruleset's refusal is 422 `Repository rule violations found` followed
//! by one line per rule broken (the text GitHub shows after `GH013` on a push, and in
//! REST answers such as "Repository rule violations found\n\nChanges must be made
//! through a pull request." from `PATCH /git/refs`); a classic rule's is 422 `Protected
//! branch update failed for refs/heads/<branch>.` (`GH006`) with the same lines. Both
//! bodies carry the refs documentation URL.

use council_protocol::policy::glob::Glob;

use crate::graph::Graph;
use crate::routes::Answer;

/// Ruleset or classic protection: the same rules, worded differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A repository ruleset, by name.
    Ruleset(String),
    Classic,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protection {
    /// Branch glob (`main`, `release/**`).
    pub branch: String,
    pub kind: Kind,
    /// Logins that may do what the rules forbid (the ruleset's bypass list).
    pub bypass: Vec<String>,
    /// Only bypass actors may update the branch at all (the ruleset's `update` rule,
    /// classic "restrict who can push").
    pub restrict_updates: bool,
    /// Updates must come through a pull request (a ref write is refused).
    pub require_pull_request: bool,
    /// No forced (non-fast-forward) updates.
    pub block_force_pushes: bool,
    /// No deletion.
    pub restrict_deletions: bool,
    /// No merge commit may land on the branch.
    pub required_linear_history: bool,
}

/// What a ref write does to a branch, for the rules to judge.
pub enum Write<'a> {
    /// Moves it from `old` to `new` (`forced`: not a fast-forward).
    Update {
        old: Option<&'a str>,
        new: &'a str,
        forced: bool,
    },
    Delete,
}

impl Protection {
    /// A ruleset named after the branch: updates restricted to the bypass list (empty),
    /// no force pushes, no deletion.
    pub fn ruleset(branch: &str) -> Protection {
        Protection {
            branch: branch.to_string(),
            kind: Kind::Ruleset(branch.to_string()),
            bypass: Vec::new(),
            restrict_updates: true,
            require_pull_request: false,
            block_force_pushes: true,
            restrict_deletions: true,
            required_linear_history: false,
        }
    }

    fn covers(&self, branch: &str) -> bool {
        Glob::new(&self.branch, true).is_match(branch)
    }

    /// The rules `write` by `login` breaks, as GitHub words them.
    fn broken(&self, graph: &Graph, write: &Write, login: &str) -> Vec<&'static str> {
        if self.bypass.iter().any(|b| b == login) {
            return Vec::new();
        }
        let mut broken = Vec::new();
        match write {
            Write::Delete => {
                if self.restrict_deletions {
                    broken.push("Cannot delete this protected ref.");
                }
            }
            Write::Update { old, new, forced } => {
                if self.restrict_updates {
                    broken.push("Cannot update this protected ref.");
                }
                if self.require_pull_request {
                    broken.push("Changes must be made through a pull request.");
                }
                if *forced && self.block_force_pushes {
                    broken.push("Cannot force-push to this branch");
                }
                if self.required_linear_history && brings_a_merge(graph, *old, new) {
                    broken.push("This branch must not contain merge commits.");
                }
            }
        }
        broken
    }
}

/// Whether moving a branch from `old` to `new` lands a commit with two parents.
fn brings_a_merge(graph: &Graph, old: Option<&str>, new: &str) -> bool {
    let landed = match old {
        Some(old) if graph.contains(old) => graph.only_in(new, old).unwrap_or_default(),
        _ => vec![new.to_string()],
    };
    landed
        .iter()
        .any(|sha| graph.get(sha).is_some_and(|c| c.parents.len() > 1))
}

/// GitHub's refusal of `write` to `branch` by `login`, when a protection refuses it.
pub fn refusal(
    protections: &[Protection],
    graph: &Graph,
    branch: &str,
    write: &Write,
    login: &str,
) -> Option<Answer> {
    for protection in protections.iter().filter(|p| p.covers(branch)) {
        let broken = protection.broken(graph, write, login);
        if broken.is_empty() {
            continue;
        }
        let head = match &protection.kind {
            Kind::Ruleset(_) => "Repository rule violations found".to_string(),
            Kind::Classic => format!("Protected branch update failed for refs/heads/{branch}."),
        };
        let message = format!("{head}\n\n{}", broken.join("\n\n"));
        return Some(Answer::json(
            422,
            serde_json::json!({
                "message": message,
                "documentation_url": "https://docs.github.com/rest/git/refs#update-a-reference",
                "status": "422",
            }),
        ));
    }
    None
}
