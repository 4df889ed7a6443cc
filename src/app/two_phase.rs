//! The second half of the fork-safe two-phase pattern: a workflow on `workflow_run`
//! (trusted, with a write token) applies what the pull request's own workflow (on
//! `pull_request`, read-only for forks) could not. The evaluate run hands over nothing
//! but pull request numbers (its payload's list, its artifacts' names), and each number
//! counts only when the API says it is an open pull request whose head is the run's head
//! commit: the decision is made again from the API, and the ledger never continues from
//! an artifact a fork's workflow wrote (see `ledger.rs`).

use serde_json::Value;

use super::pipeline::{Clients, run_pr};
use crate::runner::Level;
use crate::settings::Settings;
use council_github::artifact::run_artifact_names;
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
    let mut numbers: Vec<u64> = run["pull_requests"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("number").and_then(Value::as_u64))
        .collect();
    // Fork pull requests are not listed in `pull_requests`; their audit artifacts name them.
    for name in run_artifact_names(gh, run_id).await? {
        if let Some(n) = name.strip_prefix("audit-PR-").and_then(|n| n.parse().ok()) {
            numbers.push(n);
        }
    }
    numbers.sort_unstable();
    numbers.dedup();
    if numbers.is_empty() {
        let why = format!(
            "workflow run {run_id} names no pull request and uploaded no audit-PR-<n> artifact; nothing to apply"
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
    for number in numbers {
        let pr = gh.pull_request(number).await?;
        if pr.state != "open" {
            settings.runner.annotate(
                Level::Notice,
                "council review",
                &format!("#{number} is not open: nothing to apply for workflow run {run_id}"),
            );
            continue;
        }
        if pr.head_sha != head_sha {
            settings.runner.annotate(
                Level::Notice,
                "council review",
                &format!(
                    "#{number} moved on since workflow run {run_id} (head {} now, {head_sha} then): the run of its new head decides",
                    pr.head_sha
                ),
            );
            continue;
        }
        outcome = outcome.worst(run_pr(settings, event, clients, &pr, stages).await?);
    }
    Ok(outcome)
}
