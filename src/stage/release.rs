//! Stage 3, the Executor: merge an open pull request when both release gates pass, or
//! after the merge check the merge commit's pipeline and, when it is red and the policy
//! says `rollback: true`, ask for a revert (pure: the effects are data).

use super::Stage;
use super::effect::Effect;
use super::result::{StageResult, Status};
use crate::audit::ReleaseStatus;
use crate::event::PullRequest;
use crate::gates::release::{self, ReleaseFacts, short};
use crate::gates::{GateOutcome, Verdict};
use crate::render::text::{Message, escape_text};

pub struct ReleaseStage<'a> {
    pub pr: &'a PullRequest,
    pub facts: ReleaseFacts<'a>,
    /// The pull request's GraphQL node id (a revert names the pull request by it).
    pub pull_id: &'a str,
    /// Where the policy came from, for the summary.
    pub policy_source: &'a str,
}

pub fn evaluate(input: &ReleaseStage) -> StageResult {
    let facts = &input.facts;
    let gates = release::evaluate(facts);
    let passed = gates.iter().all(|g| g.verdict == Verdict::Pass);
    let red = gates.iter().any(|g| g.verdict == Verdict::Fail);
    let mut notes = vec![Message::new().text(format!("policy: {}", input.policy_source))];
    let mut effects = Vec::new();
    let status = match &facts.open {
        // Both gates passed: merge, with the head just read as the guard. The status is
        // what it would be without a release token; finish derives the real one from
        // what became of the merge.
        Some(open) if passed => {
            effects.push(Effect::Merge {
                number: input.pr.number,
                sha: open.head_sha.clone(),
                method: facts.policy.merge_method,
            });
            ReleaseStatus::Eligible
        }
        Some(_) => ReleaseStatus::Pending,
        None => {
            if red && facts.policy.rollback {
                effects.push(revert(input, &gates));
            } else if red {
                notes.push(Message::new().text(format!(
                    "rollback: off (`release.rollback: false`); merge commit {} stays on \
                     the base, and nothing is reverted",
                    short(&facts.pipeline.sha)
                )));
            }
            ReleaseStatus::Merged
        }
    };
    StageResult {
        stage: Stage::Release,
        status: Status::Release(status),
        gates,
        effects,
        notes,
    }
}

/// The revert of a merged pull request whose merge commit went red; its body says why.
fn revert(input: &ReleaseStage, gates: &[GateOutcome]) -> Effect {
    let pr = input.pr;
    let why: Vec<String> = gates
        .iter()
        .filter(|g| g.verdict == Verdict::Fail)
        .map(|g| g.message.markdown())
        .collect();
    Effect::Revert {
        number: pr.number,
        pull_id: input.pull_id.to_string(),
        title: format!("Revert \"{}\"", pr.title),
        body: format!(
            "Reverts #{}: the pipeline of its merge commit is red.\n\n{}\n\n<sub>Opened by \
             agent-council's release stage (`release.rollback: true` in {}); the Context \
             Object of #{} records it.</sub>\n",
            pr.number,
            why.join("\n\n"),
            escape_text(input.policy_source),
            pr.number
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gates::release::{
        AgentApproval, CheckFact, CheckKind, CheckState, Mergeable, OpenFacts, Pipeline,
    };
    use crate::policy::{MergeMethod, Release};

    const HEAD: &str = "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const MERGE: &str = "2222222aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

    fn pipeline(sha: &str, state: CheckState) -> Pipeline {
        Pipeline {
            sha: sha.to_string(),
            merge_commit: sha == MERGE,
            checks: vec![CheckFact {
                name: "ci".into(),
                kind: CheckKind::Run,
                state,
                id: Some(1),
                url: None,
            }],
            complete: true,
            ..Pipeline::default()
        }
    }

    fn open(approval: AgentApproval) -> OpenFacts {
        OpenFacts {
            head_sha: HEAD.into(),
            event_head: HEAD.into(),
            draft: false,
            mergeable: Mergeable::Clean,
            reads: 1,
            labels: vec!["bot-approved".into()],
            reviews: Vec::new(),
            auto_merge: None,
            in_merge_queue: false,
            approval,
        }
    }

    fn stage(policy: &Release, pipeline: Pipeline, open: Option<OpenFacts>) -> StageResult {
        let mut pr = crate::event::sample_pull_request();
        pr.title = "Add <login> @team".into();
        evaluate(&ReleaseStage {
            pr: &pr,
            facts: ReleaseFacts {
                policy,
                require_label: Some("bot-approved"),
                pipeline,
                open,
            },
            pull_id: "PR_node",
            policy_source: "default policy",
        })
    }

    #[test]
    fn green_and_ready_asks_to_merge_the_head_just_read_with_the_policy_method() {
        let policy = Release {
            merge_method: MergeMethod::Squash,
            ..Release::default()
        };
        let result = stage(
            &policy,
            pipeline(HEAD, CheckState::Success),
            Some(open(AgentApproval::Head)),
        );
        assert_eq!(result.status, Status::Release(ReleaseStatus::Eligible));
        assert_eq!(
            result.effects,
            [Effect::Merge {
                number: 2,
                sha: HEAD.into(),
                method: MergeMethod::Squash
            }]
        );
        assert!(!result.failed());
    }

    #[test]
    fn waiting_or_red_asks_for_nothing() {
        let policy = Release::default();
        let waiting = stage(
            &policy,
            pipeline(HEAD, CheckState::Success),
            Some(open(AgentApproval::None)),
        );
        assert_eq!(waiting.status, Status::Release(ReleaseStatus::Pending));
        assert!(waiting.effects.is_empty() && !waiting.failed());
        let red = stage(
            &policy,
            pipeline(HEAD, CheckState::Red("failure".into())),
            Some(open(AgentApproval::Head)),
        );
        assert!(red.effects.is_empty() && red.failed());
    }

    #[test]
    fn a_red_merge_commit_is_reverted_only_with_rollback() {
        let off = stage(
            &Release::default(),
            pipeline(MERGE, CheckState::Red("failure".into())),
            None,
        );
        assert!(off.failed() && off.effects.is_empty());
        assert_eq!(off.status, Status::Release(ReleaseStatus::Merged));
        assert!(off.notes[1].plain().starts_with("rollback: off"));

        let policy = Release {
            rollback: true,
            ..Release::default()
        };
        let on = stage(
            &policy,
            pipeline(MERGE, CheckState::Red("failure".into())),
            None,
        );
        let [
            Effect::Revert {
                number,
                pull_id,
                title,
                body,
            },
        ] = on.effects.as_slice()
        else {
            panic!("{:?}", on.effects);
        };
        assert_eq!((*number, pull_id.as_str()), (2, "PR_node"));
        assert_eq!(title, "Revert \"Add <login> @team\"");
        insta::assert_snapshot!(body, @r#"
        Reverts #2: the pipeline of its merge commit is red.

        1 red check on the merge commit <code>2222222</code>: <code>ci</code> (failure).

        <sub>Opened by agent-council's release stage (`release.rollback: true` in default policy); the Context Object of #2 records it.</sub>
        "#);
        let green = stage(&policy, pipeline(MERGE, CheckState::Success), None);
        assert!(green.effects.is_empty() && !green.failed());
        assert_eq!(
            green.gates.len(),
            1,
            "after the merge only the pipeline counts"
        );
    }
}
