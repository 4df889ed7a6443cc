//! The second half of the fork-safe two-phase pattern: a workflow on `workflow_run`
//! (trusted, with a write token) applies what the pull request's own workflow (on
//! `pull_request`, read-only for forks) could not. The evaluate run hands over nothing:
//! the pull requests are the open ones whose head is the run's head commit, found by
//! that SHA with one lookup (never from the run's artifact names, which a fork's
//! workflow chooses), and the decision is made again from the API; the ledger never
//! continues from an artifact a fork's workflow wrote (see `ledger.rs`).

use serde_json::Value;

use super::pulls_of_event::{Pulls, open_at_head};
use council_github::GitHub;
use council_protocol::error::{Error, Result};
use council_protocol::event::Event;

/// The open pull requests whose head is the `workflow_run`'s head commit, or why there
/// are none.
pub async fn pulls(event: &Event, gh: Option<&GitHub>) -> Result<Pulls> {
    let run = &event.payload["workflow_run"];
    let (Some(run_id), Some(head_sha)) = (
        run.get("id").and_then(Value::as_u64),
        run.get("head_sha").and_then(Value::as_str),
    ) else {
        return Err(Error::Event {
            path: event.source.clone(),
            message: "field `workflow_run.id` or `workflow_run.head_sha` is missing".into(),
        });
    };
    let gh = gh.ok_or_else(|| {
        crate::exit::no_token("review on workflow_run reads the pull requests through the API")
    })?;
    let pulls = open_at_head(event, gh, head_sha).await?;
    if pulls.is_empty() {
        let short = head_sha.get(..7).unwrap_or(head_sha);
        return Ok(Pulls::Nothing(format!(
            "no open pull request has head {short}, the head of workflow run {run_id}; nothing \
             to apply (a pull request that moved on is decided by the run of its new head)"
        )));
    }
    Ok(Pulls::Found(pulls))
}
