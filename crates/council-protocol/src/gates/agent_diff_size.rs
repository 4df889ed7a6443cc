//! `agent_diff_size`: an agent's pull request stays under `actors.agent.diff_size`,
//! which replaces `review.diff_size` for agents (that gate then does not run for it).
//! `actors.agent.diff_size: null` leaves agents to `review.diff_size`.

use super::diff_size::judge;
use super::{Check, Gate, GateOutcome};
use crate::review::ReviewFacts;

pub const GATE: Gate = Gate {
    name: "agent_diff_size",
    action: "check:agent-diff-size",
    config_key: "actors.agent.diff_size",
    check: Check::Review(check),
};

fn check(facts: &ReviewFacts) -> Option<GateOutcome> {
    let classified = facts.actor.filter(|a| a.is_agent())?;
    let config = classified.rules.diff_size.as_ref()?;
    Some(judge(&GATE, GATE.config_key, facts, config))
}
