//! The second half of the fork-safe two-phase pattern: a workflow on `workflow_run`
//! (trusted, with a write token) applies what the pull request's own workflow (on
//! `pull_request`, read-only for forks) could not. The evaluate run hands over nothing:
//! the pull requests are the open ones whose head is the run's head commit, found by
//! that SHA with one lookup (never from the run's artifact names, which a fork's
//! workflow chooses), and the decision is made again from the API; the ledger never
//! continues from an artifact a fork's workflow wrote (see `ledger.rs`).

use serde_json::Value;

use super::pipeline::{Clients, run_pr};
use super::pulls_of_event::open_at_head;
use crate::runner::Level;
use crate::settings::Settings;
use council_protocol::error::{Error, Outcome, Result};
use council_protocol::event::Event;
use council_protocol::stage::Stage;

pub async fn apply(
    settings: &Settings,
    event: &Event,
    clients: &Clients,
    stages: &[Stage],
) -> Result<Outcome> {
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
    let gh = clients.gh.as_ref().ok_or_else(|| {
        Error::no_token("review on workflow_run reads the pull requests through the API")
    })?;
    let pulls = open_at_head(event, gh, head_sha).await?;
    if pulls.is_empty() {
        let short = head_sha.get(..7).unwrap_or(head_sha);
        let why = format!(
            "no open pull request has head {short}, the head of workflow run {run_id}; nothing \
             to apply (a pull request that moved on is decided by the run of its new head)"
        );
        settings
            .runner
            .annotate(Level::Notice, "council review", &why);
        settings
            .runner
            .set_outputs(&council_protocol::stage::Outputs::pending().pairs())?;
        return Ok(Outcome::Passed);
    }
    let mut outcome = Outcome::Passed;
    for pr in &pulls {
        outcome = outcome.worst(run_pr(settings, event, clients, pr, stages).await?);
    }
    Ok(outcome)
}
