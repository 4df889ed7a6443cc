//! Stage 1, the Sentry: the branch gates, and with `close-on-fail` the explanation and
//! the close it wants (pure).

use super::Stage;
use super::effect::Effect;
use super::result::{StageResult, Status};
use crate::audit::GuardStatus;
use crate::event::PullRequest;
use crate::gates::guard::{self, GuardInput};
use crate::policy::Policy;
use crate::render::comment;
use crate::render::text::Message;

pub struct GuardStage<'a> {
    pub pr: &'a PullRequest,
    /// The base before an `edited` event retargeted the PR.
    pub previous_base: Option<&'a str>,
    pub policy: &'a Policy,
    pub close_on_fail: bool,
    /// The workflow run, linked from the explanation.
    pub run_url: Option<&'a str>,
}

pub fn evaluate(input: &GuardStage) -> StageResult {
    let pr = input.pr;
    let gates = guard::evaluate(GuardInput {
        pr_number: pr.number,
        head: &pr.head_ref,
        base: &pr.base_ref,
        previous_base: input.previous_base,
        policy: &input.policy.branches,
        policy_source: &input.policy.source,
    });
    let passed = guard::passed(&gates);
    let mut notes = vec![Message::new().text(format!("policy: {}", input.policy.source))];
    let mut effects = Vec::new();
    // An approval given to the branch before (e.g. for another base) does not stand for
    // what fails now: the label that shows it goes.
    let label = &input.policy.review.approve_label;
    if !passed && !label.is_empty() && pr.labels.iter().any(|l| l == label) {
        effects.push(Effect::RemoveLabel {
            issue: pr.number,
            label: label.clone(),
        });
    }
    if !passed && input.close_on_fail {
        if pr.state == "closed" {
            notes.push(Message::new().text("close-on-fail: the pull request is already closed"));
        } else {
            let shown: Vec<_> = gates.iter().collect();
            effects.push(Effect::CommentOnce {
                issue: pr.number,
                marker: comment::close_marker(pr),
                body: comment::close_on_fail(pr, &shown, &input.policy.source, input.run_url),
            });
            effects.push(Effect::ClosePr { number: pr.number });
        }
    }
    StageResult {
        stage: Stage::Guard,
        status: Status::Guard(if passed {
            GuardStatus::Pass
        } else {
            GuardStatus::Fail
        }),
        gates,
        effects,
        notes,
        // The guard reads nothing but the branches: the class is review's and release's.
        actor: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stage(pr: &PullRequest, close_on_fail: bool) -> StageResult {
        let policy = Policy::default_policy();
        evaluate(&GuardStage {
            pr,
            previous_base: None,
            policy: &policy,
            close_on_fail,
            run_url: None,
        })
    }

    #[test]
    fn a_failing_guard_asks_to_explain_then_close_only_with_close_on_fail() {
        let pr = crate::event::sample_pull_request();
        let quiet = stage(&pr, false);
        assert_eq!(quiet.status, Status::Guard(GuardStatus::Fail));
        assert!(quiet.effects.is_empty());
        let loud = stage(&pr, true);
        let actions: Vec<_> = loud.effects.iter().map(Effect::action).collect();
        assert_eq!(actions, ["action:comment", "action:close-pr"]);
        assert!(loud.effects[1].needs_previous());
    }

    #[test]
    fn a_failing_guard_takes_the_approve_label_off() {
        let mut pr = crate::event::sample_pull_request();
        pr.labels = vec!["bot-approved".into(), "other".into()];
        let quiet = stage(&pr, false);
        assert_eq!(
            quiet.effects,
            [Effect::RemoveLabel {
                issue: 2,
                label: "bot-approved".into()
            }]
        );
        let loud = stage(&pr, true);
        let actions: Vec<_> = loud.effects.iter().map(Effect::action).collect();
        assert_eq!(
            actions,
            ["action:label", "action:comment", "action:close-pr"]
        );
    }

    #[test]
    fn a_closed_or_passing_pr_wants_no_effect() {
        let mut pr = crate::event::sample_pull_request();
        pr.state = "closed".into();
        assert!(stage(&pr, true).effects.is_empty());
        let mut pr = crate::event::sample_pull_request();
        pr.head_ref = "feature/devops/PBI-001-login".into();
        pr.base_ref = "develop".into();
        let passed = stage(&pr, true);
        assert_eq!(passed.status, Status::Guard(GuardStatus::Pass));
        assert!(passed.effects.is_empty() && !passed.failed());
    }
}
