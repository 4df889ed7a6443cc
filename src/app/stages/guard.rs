//! The guard reads nothing beyond the event and the policy.

use super::StageInput;
use council_protocol::stage::StageResult;
use council_protocol::stage::guard::{GuardStage, evaluate as decide};

pub fn evaluate(input: &StageInput) -> StageResult {
    let previous_base = input.event.previous_base();
    decide(&GuardStage {
        pr: input.pr,
        previous_base: previous_base.as_deref(),
        policy: input.policy,
        close_on_fail: input.req.close_on_fail,
        run_url: input.run_url,
    })
}
