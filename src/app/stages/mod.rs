//! What each pipeline stage reads before it decides: one file per stage, each handing
//! facts to the stage's pure evaluation in `council_protocol::stage`.

mod guard;
mod release;
mod review;

use super::clients::Clients;
use crate::env::RunEnv;
use crate::request::PipelineRequest;
use council_protocol::error::Result;
use council_protocol::event::{Event, PullRequest};
use council_protocol::policy::Policy;
use council_protocol::render::text::Message;
use council_protocol::stage::{Stage, StageResult};

/// Everything a stage may read from: the run, the pull request and its base-branch
/// policy.
pub struct StageInput<'a> {
    pub env: &'a RunEnv,
    pub req: &'a PipelineRequest,
    pub event: &'a Event,
    pub clients: &'a Clients,
    pub pr: &'a PullRequest,
    pub policy: &'a Policy,
    /// The workflow run, for links.
    pub run_url: Option<&'a str>,
    /// Decided for the merge queue's run, which reads each queued pull request's
    /// timeline itself and performs none of the stage's effects.
    pub for_queue: bool,
}

/// What became of one planned stage.
pub enum Evaluated {
    Decided(StageResult),
    /// Decided on the pull request as read at decision time (the release stage), which
    /// the ledger and the audit file then describe instead of the event's.
    DecidedOn(StageResult, Box<PullRequest>),
    /// Nothing to decide: why, as a note for the summary.
    Skipped(Message),
}

pub async fn evaluate(stage: Stage, input: &StageInput<'_>) -> Result<Evaluated> {
    Ok(match stage {
        Stage::Guard => Evaluated::Decided(guard::evaluate(input)),
        Stage::Review => review::evaluate(input).await?,
        Stage::Release => release::evaluate(input).await?,
    })
}

/// The note a stage that did not run leaves on the summary.
pub fn skipped_note(stage: Stage, why: &str) -> Message {
    Message::new().text(format!("{stage}: {why}; {stage}-status stays PENDING"))
}
