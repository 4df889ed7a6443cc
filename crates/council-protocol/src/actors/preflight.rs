//! What a branch will meet before its pull request exists (MCP `check_branch`, `council
//! policy check`): the guard's verdicts, the class from the branch and the author
//! alone, and for an agent the rules its pull request will be held to. The same
//! functions decide as at the pull request's own checks ([`crate::gates::guard`],
//! [`super::classify`]), so a branch this says passes the guard passes it there, and a
//! branch this calls an agent's is an agent's there.

use super::{Actor, ActorFacts, classify};
use crate::gates::GateOutcome;
use crate::gates::guard::{evaluate_branch, passed};
use crate::gates::thousands;
use crate::policy::Policy;
use crate::render::text::Message;

/// The preflight's answer.
#[derive(Debug, Clone)]
pub struct Preflight {
    /// The guard's gates (`naming_convention`, `target_policy`).
    pub gates: Vec<GateOutcome>,
    /// The class from the branch and, when given, the author.
    pub actor: Actor,
    /// For an agent: what its pull request will be held to, one line each. For a human:
    /// what could still make it an agent's.
    pub notes: Vec<Message>,
}

impl Preflight {
    /// The guard passes: the pull request's own guard will pass on the same names and
    /// policy.
    pub fn passed(&self) -> bool {
        passed(&self.gates)
    }
}

/// The guard and the class for `head` targeting `base`, by `author` when known (for an
/// agent asking through MCP, the token's own login).
pub fn preflight(policy: &Policy, head: &str, base: &str, author: Option<&str>) -> Preflight {
    let gates = evaluate_branch(policy, head, base);
    let actor = classify(
        &policy.actors.agents,
        &ActorFacts {
            author,
            head,
            labels: None,
            commits: None,
        },
    );
    let notes = if actor.is_agent() {
        agent_rules(policy)
    } else if policy.actors.agents.is_off() {
        Vec::new()
    } else {
        vec![Message::new().text(
            "actors: decided from the branch and author only; a commit trailer or a label \
             of actors.agents makes the pull request an agent's once it exists",
        )]
    };
    Preflight {
        gates,
        actor,
        notes,
    }
}

/// The rules of `actors.agent`, as an agent about to open a pull request reads them.
fn agent_rules(policy: &Policy) -> Vec<Message> {
    let rules = &policy.actors.agent;
    let mut notes = Vec::new();
    if !rules.forbidden_paths.is_empty() {
        let mut m = Message::new().text("review: changing ");
        for (i, glob) in rules.forbidden_paths.iter().take(10).enumerate() {
            if i > 0 {
                m = m.text(", ");
            }
            m = m.value(glob);
        }
        if rules.forbidden_paths.len() > 10 {
            m = m.text(format!(" and {} more", rules.forbidden_paths.len() - 10));
        }
        notes.push(m.text(" fails check:agent-paths (actors.agent.forbidden_paths)"));
    }
    match &rules.diff_size {
        Some(limits) if limits.max_files.is_some() || limits.max_changed_lines.is_some() => {
            let mut within = Vec::new();
            if let Some(files) = limits.max_files {
                within.push(format!("{} files", thousands(files)));
            }
            if let Some(lines) = limits.max_changed_lines {
                within.push(format!("{} changed lines", thousands(lines)));
            }
            notes.push(Message::new().text(format!(
                "review: at most {} (actors.agent.diff_size, instead of review.diff_size)",
                within.join(" and ")
            )));
        }
        _ => {}
    }
    if rules.human_approvals > 0 {
        notes.push(Message::new().text(format!(
            "release: waits for {} on the head from {} who can write, did not open the \
             pull request and did not author or co-author its commits \
             (actors.agent.human_approvals)",
            if rules.human_approvals == 1 {
                "1 approval".to_string()
            } else {
                format!("{} approvals", rules.human_approvals)
            },
            if rules.human_approvals == 1 {
                "a person"
            } else {
                "people"
            }
        )));
    }
    if !rules.label.is_empty() {
        notes.push(
            Message::new()
                .text("review: adds the label ")
                .value(&rules.label)
                .text(" (actors.agent.label)"),
        );
    }
    notes
}
