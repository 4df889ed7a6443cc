//! The pipeline stages (guard, review, release: the ledger's agents) and what one returns:
//! a [`StageResult`] holding its verdict, gate outcomes and the effects it wants, as data
//! (pure).

pub mod effect;
pub mod guard;
pub mod outputs;
pub mod release;
pub mod result;
pub mod review;

use std::fmt;

pub use effect::{Effect, EffectReport, EffectResult};
pub use outputs::{Output, Outputs};
pub use result::{StageResult, Status};

/// A pipeline stage: what decides about a pull request. The other commands (state,
/// context, reports, verify) are [`crate::command::Command`]s that are not stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    Guard,
    Review,
    Release,
}

impl Stage {
    /// The stages, in pipeline order.
    pub const PIPELINE: [Stage; 3] = [Stage::Guard, Stage::Review, Stage::Release];

    /// The name the `command` input, the CLI and messages use.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Guard => "guard",
            Stage::Review => "review",
            Stage::Release => "release",
        }
    }

    /// The timeline `agent` (SPEC: `agent_guard`, …).
    pub fn agent(self) -> &'static str {
        match self {
            Stage::Guard => "agent_guard",
            Stage::Review => "agent_review",
            Stage::Release => "agent_release",
        }
    }

    pub fn from_agent(agent: &str) -> Option<Stage> {
        Stage::PIPELINE.into_iter().find(|s| s.agent() == agent)
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_name_their_stages() {
        for stage in Stage::PIPELINE {
            assert_eq!(Stage::from_agent(stage.agent()), Some(stage));
        }
        assert_eq!(Stage::from_agent("agent_council"), None);
    }
}
