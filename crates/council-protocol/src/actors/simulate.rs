//! `council policy simulate`'s decision for one recorded pull request: the guard gates
//! from its recorded branches and the class from its recorded author and branch, under
//! a policy file, compared with what its ledger recorded.
//!
//! It runs over every pull request in the audit store (10,000 in well under a second):
//! the policy is compiled once by the caller, and a pull request whose verdicts do not
//! change costs the guard's matching and the class's, with no message built. Only a
//! changed gate is evaluated in full, by the gate itself, for its message and fix.

use super::{Actor, ActorFacts, Class, RecordedActor, classify};
use crate::gates::guard::{GuardFacts, GuardInput};
use crate::gates::{Check, GATES, GateOutcome, Verdict};
use crate::policy::Policy;

/// A pull request as the audit store recorded it.
#[derive(Debug, Clone, Copy)]
pub struct RecordedPull<'a> {
    /// The pull request's number (its fix commands name it).
    pub number: u64,
    pub head: &'a str,
    pub base: &'a str,
    /// The author's login (`subject.author`).
    pub author: &'a str,
    /// `gates.naming_convention` and `gates.target_policy`: `None` when not recorded.
    pub naming_convention: Option<Verdict>,
    pub target_policy: Option<Verdict>,
    /// The class its newest `check:actor` entry recorded ([`RecordedActor::parse`]).
    pub actor: Option<&'a RecordedActor>,
}

/// What would change for one pull request.
#[derive(Debug, Clone, Default)]
pub struct Replay {
    /// Each guard gate whose verdict would flip, in gate order.
    pub gates: Vec<GateChange>,
    /// The class, when it would change.
    pub class: Option<ClassChange>,
}

impl Replay {
    pub fn changes(&self) -> bool {
        !self.gates.is_empty() || self.class.is_some()
    }
}

/// A guard verdict that would flip (`PASS → FAIL` or `FAIL → PASS`).
#[derive(Debug, Clone)]
pub struct GateChange {
    pub recorded: Verdict,
    /// The gate as the policy now decides it, in the gate JSON shape
    /// ([`GateOutcome::json`]).
    pub now: GateOutcome,
}

/// A class that would change, so that agents' rules would newly apply or stop applying.
#[derive(Debug, Clone)]
pub struct ClassChange {
    pub recorded: Class,
    /// The class from the recorded author and branch, with its evidence.
    pub now: Actor,
}

/// What `policy` changes for `pr`. A recorded verdict other than PASS or FAIL, or none,
/// is not compared. A recorded class is compared only when it rests on the author and
/// branch alone: trailers and labels are not in the store, so an agent's class that
/// came from them can neither be confirmed nor undone here.
pub fn replay(policy: &Policy, pr: &RecordedPull) -> Replay {
    let facts = GuardFacts::of(GuardInput {
        pr_number: pr.number,
        head: pr.head,
        base: pr.base,
        previous_base: None,
        policy: &policy.branches,
        policy_source: &policy.source,
    });
    let mut gates = Vec::new();
    for (name, recorded, now_passes) in [
        (
            "naming_convention",
            pr.naming_convention,
            facts.names_pass(),
        ),
        ("target_policy", pr.target_policy, facts.target_passes()),
    ] {
        let Some(recorded) = recorded.filter(|v| matches!(v, Verdict::Pass | Verdict::Fail)) else {
            continue;
        };
        if (recorded == Verdict::Pass) == now_passes {
            continue;
        }
        let outcome = GATES
            .iter()
            .filter(|g| g.name == name)
            .find_map(|g| match g.check {
                Check::Guard(check) => check(&facts),
                _ => None,
            });
        if let Some(now) = outcome {
            gates.push(GateChange { recorded, now });
        }
    }
    let class = pr.actor.filter(|a| a.replayable()).and_then(|recorded| {
        let now = classify(
            &policy.actors.agents,
            &ActorFacts {
                author: Some(pr.author),
                head: pr.head,
                labels: None,
                commits: None,
            },
        );
        (now.class != recorded.class).then_some(ClassChange {
            recorded: recorded.class,
            now,
        })
    });
    Replay { gates, class }
}
