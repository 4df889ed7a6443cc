//! The action's outputs by name, typed: every writer goes through [`Outputs`], and a test
//! keeps [`Output::ALL`] equal to SPEC.md's list and action.yml's `outputs:`.

use super::Stage;
use super::result::StageResult;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Output {
    GuardStatus,
    ReviewStatus,
    ReleaseStatus,
    Context,
    AuditPath,
    ArtifactId,
    StateIntent,
    StateStep,
    StateProgress,
    StateMemory,
    StateNextAction,
    StateAgent,
    StatePlan,
    StateInputRequest,
    StateCommentUrl,
    RecommendedAgent,
    Actor,
    QueueStatus,
    QueueSha,
}

impl Output {
    pub const ALL: [Output; 19] = [
        Output::GuardStatus,
        Output::ReviewStatus,
        Output::ReleaseStatus,
        Output::Context,
        Output::AuditPath,
        Output::ArtifactId,
        Output::StateIntent,
        Output::StateStep,
        Output::StateProgress,
        Output::StateMemory,
        Output::StateNextAction,
        Output::StateAgent,
        Output::StatePlan,
        Output::StateInputRequest,
        Output::StateCommentUrl,
        Output::RecommendedAgent,
        Output::Actor,
        Output::QueueStatus,
        Output::QueueSha,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Output::GuardStatus => "guard-status",
            Output::ReviewStatus => "review-status",
            Output::ReleaseStatus => "release-status",
            Output::Context => "context",
            Output::AuditPath => "audit-path",
            Output::ArtifactId => "artifact-id",
            Output::StateIntent => "state-intent",
            Output::StateStep => "state-step",
            Output::StateProgress => "state-progress",
            Output::StateMemory => "state-memory",
            Output::StateNextAction => "state-next-action",
            Output::StateAgent => "state-agent",
            Output::StatePlan => "state-plan",
            Output::StateInputRequest => "state-input-request",
            Output::StateCommentUrl => "state-comment-url",
            Output::RecommendedAgent => "recommended-agent",
            Output::Actor => "actor",
            Output::QueueStatus => "queue-status",
            Output::QueueSha => "queue-sha",
        }
    }

    /// The status output of a pipeline stage.
    pub fn status_of(stage: Stage) -> Output {
        match stage {
            Stage::Guard => Output::GuardStatus,
            Stage::Review => Output::ReviewStatus,
            Stage::Release => Output::ReleaseStatus,
        }
    }
}

/// Outputs of one run; a later `set` of the same output replaces the earlier value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outputs {
    values: Vec<(Output, String)>,
}

impl Outputs {
    /// What every run reports at least: stages that did not run are `PENDING`, and
    /// nothing was uploaded.
    pub fn pending() -> Outputs {
        let mut out = Outputs::default();
        for stage in Stage::PIPELINE {
            out.set(Output::status_of(stage), "PENDING");
        }
        out.set(Output::ArtifactId, "");
        out
    }

    /// `pending()` with the status of every stage that ran, and `actor`: the class the
    /// last stage that decided one found (empty when none did).
    pub fn of_results(results: &[StageResult]) -> Outputs {
        let mut out = Outputs::pending();
        for result in results {
            out.set(Output::status_of(result.stage), result.status.as_str());
        }
        let class = results.iter().rev().find_map(|r| r.actor);
        out.set(
            Output::Actor,
            class.map_or("", crate::actors::Class::as_str),
        );
        out
    }

    pub fn set(&mut self, output: Output, value: impl Into<String>) -> &mut Outputs {
        let value = value.into();
        match self.values.iter_mut().find(|(o, _)| *o == output) {
            Some(slot) => slot.1 = value,
            None => self.values.push((output, value)),
        }
        self
    }

    pub fn get(&self, output: Output) -> Option<&str> {
        self.values
            .iter()
            .find(|(o, _)| *o == output)
            .map(|(_, v)| v.as_str())
    }

    /// `queue-status` and `queue-sha` (both empty when the run did nothing with a queue).
    pub fn set_queue(&mut self, queue: &crate::queue::QueueOutputs) -> &mut Outputs {
        self.set(
            Output::QueueStatus,
            queue.status.map_or("", crate::queue::QueueStatus::as_str),
        );
        self.set(Output::QueueSha, queue.sha.clone().unwrap_or_default());
        self
    }

    /// `(name, value)` pairs in the order they were first set.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        self.values
            .iter()
            .map(|(o, v)| (o.name(), v.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_outputs_and_replacement() {
        let mut out = Outputs::pending();
        out.set(Output::GuardStatus, "PASS");
        assert_eq!(
            out.pairs(),
            vec![
                ("guard-status", "PASS".to_string()),
                ("review-status", "PENDING".to_string()),
                ("release-status", "PENDING".to_string()),
                ("artifact-id", String::new()),
            ]
        );
    }

    /// action.yml declares exactly these outputs, in this order.
    #[test]
    #[allow(clippy::disallowed_methods)] // a test reads its fixture
    fn action_yml_declares_every_output() {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../action.yml"))
                .unwrap();
        let declared: Vec<&str> = text
            .lines()
            .skip_while(|l| *l != "outputs:")
            .skip(1)
            .take_while(|l| l.is_empty() || l.starts_with(' '))
            .filter_map(|l| l.strip_prefix("  ")?.strip_suffix(':'))
            .filter(|name| !name.starts_with(' '))
            .collect();
        let ours: Vec<&str> = Output::ALL.iter().map(|o| o.name()).collect();
        assert_eq!(declared, ours);
    }

    #[test]
    fn queue_outputs_are_empty_unless_the_queue_acted() {
        use crate::queue::{QueueOutputs, QueueStatus};
        let mut out = Outputs::pending();
        out.set_queue(&QueueOutputs::default());
        assert_eq!(out.get(Output::QueueStatus), Some(""));
        assert_eq!(out.get(Output::QueueSha), Some(""));
        out.set_queue(&QueueOutputs {
            status: Some(QueueStatus::Testing),
            sha: Some("abc".into()),
        });
        assert_eq!(out.get(Output::QueueStatus), Some("TESTING"));
        assert_eq!(out.get(Output::QueueSha), Some("abc"));
    }

    #[test]
    fn actor_is_the_last_class_decided_and_empty_without_one() {
        use crate::actors::Class;
        use crate::audit::{GuardStatus, ReviewStatus};
        use crate::stage::result::Status;
        let result = |stage, status, actor| StageResult {
            stage,
            status,
            gates: Vec::new(),
            effects: Vec::new(),
            notes: Vec::new(),
            actor,
        };
        let guard = result(Stage::Guard, Status::Guard(GuardStatus::Pass), None);
        assert_eq!(
            Outputs::of_results(std::slice::from_ref(&guard)).get(Output::Actor),
            Some("")
        );
        let review = result(
            Stage::Review,
            Status::Review(ReviewStatus::Approved),
            Some(Class::Agent),
        );
        assert_eq!(
            Outputs::of_results(&[guard, review]).get(Output::Actor),
            Some("agent")
        );
    }

    #[test]
    fn names_are_distinct() {
        for (i, o) in Output::ALL.iter().enumerate() {
            assert!(Output::ALL[..i].iter().all(|p| p.name() != o.name()));
        }
    }
}
