//! The one vocabulary of stages (the `command` input, the CLI subcommands, `auto`
//! planning and the ledger's agents all name stages through [`Stage`]), and what a
//! pipeline stage returns: a [`StageResult`] holding its verdict, gate outcomes and the
//! effects it wants, as data (pure).

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    Guard,
    Review,
    Release,
    StateGet,
    StatePut,
    ContextValidate,
    ContextSync,
    Report,
    Assign,
    Verify,
}

impl Stage {
    pub const ALL: [Stage; 10] = [
        Stage::Guard,
        Stage::Review,
        Stage::Release,
        Stage::StateGet,
        Stage::StatePut,
        Stage::ContextValidate,
        Stage::ContextSync,
        Stage::Report,
        Stage::Assign,
        Stage::Verify,
    ];

    /// The stages that decide about a pull request, in pipeline order.
    pub const PIPELINE: [Stage; 3] = [Stage::Guard, Stage::Review, Stage::Release];

    /// The name used by the `command` input (and, spaced, by the CLI: `state-get` is
    /// `council state get`).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Guard => "guard",
            Stage::Review => "review",
            Stage::Release => "release",
            Stage::StateGet => "state-get",
            Stage::StatePut => "state-put",
            Stage::ContextValidate => "context-validate",
            Stage::ContextSync => "context-sync",
            Stage::Report => "report",
            Stage::Assign => "assign",
            Stage::Verify => "verify",
        }
    }

    pub fn from_name(name: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The timeline `agent` of a pipeline stage (SPEC: `agent_guard`, …).
    pub fn agent(self) -> Option<&'static str> {
        match self {
            Stage::Guard => Some("agent_guard"),
            Stage::Review => Some("agent_review"),
            Stage::Release => Some("agent_release"),
            _ => None,
        }
    }

    pub fn from_agent(agent: &str) -> Option<Stage> {
        Stage::PIPELINE
            .into_iter()
            .find(|s| s.agent() == Some(agent))
    }

    /// Every `command` input value, for messages.
    pub fn command_list() -> String {
        let mut names = vec!["auto"];
        names.extend(Stage::ALL.iter().map(|s| s.name()));
        names.join(", ")
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
    fn names_round_trip_and_agents_belong_to_the_pipeline() {
        for stage in Stage::ALL {
            assert_eq!(Stage::from_name(stage.name()), Some(stage));
            if let Some(agent) = stage.agent() {
                assert!(Stage::PIPELINE.contains(&stage));
                assert_eq!(Stage::from_agent(agent), Some(stage));
            }
        }
        assert_eq!(Stage::from_name("auto"), None);
        assert_eq!(
            Stage::command_list(),
            "auto, guard, review, release, state-get, state-put, context-validate, \
             context-sync, report, assign, verify"
        );
    }
}
