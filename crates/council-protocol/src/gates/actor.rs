//! `actor`: whose pull request this is (SPEC "Agents and humans"). Always a PASS: the
//! class is a fact to record, not a verdict; its message names the class and the
//! evidence (which login, branch, trailer or label matched), and the agents' gates
//! beside it read the same class.

use super::{Check, Gate, GateOutcome};
use crate::review::ReviewFacts;

pub const GATE: Gate = Gate {
    name: "actor",
    action: "check:actor",
    config_key: "actors.agents",
    check: Check::Review(check),
};

fn check(facts: &ReviewFacts) -> Option<GateOutcome> {
    let classified = facts.actor?;
    Some(GATE.pass(classified.actor.message()))
}
