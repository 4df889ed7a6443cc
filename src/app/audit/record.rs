//! The action's side of the store: with `database-url` set, each run's Context Object goes
//! to the store once the ledger comment holds it. Only then: an object the comment does
//! not hold (a dry run, a comment that could not be written) would be a chain the next
//! run does not continue, and the store would rightly refuse what comes after it.

use council_protocol::audit::ContextObject;
use council_protocol::audit::stored::Stored;
use council_protocol::event::PullRequest;
use council_protocol::render::text::Message;
use council_protocol::stage::{EffectReport, EffectResult};
use council_store::{Attribution, Offer, Verification};

use super::open;
use crate::app::now;
use crate::env::RunEnv;
use crate::request::PipelineRequest;

const ACTION: &str = "action:store";

/// Writes `context` to the run's store when one is set; what became of it (`None`: no
/// store set). `comment_written`: the ledger comment holds this object.
pub(crate) async fn record(
    env: &RunEnv,
    req: &PipelineRequest,
    context: &ContextObject,
    pr: &PullRequest,
    comment_written: bool,
) -> Option<EffectReport> {
    let url = req.database_url.as_ref()?;
    let report = |result| Some(EffectReport::new(ACTION, result));
    if req.access.dry_run {
        return report(EffectResult::Skipped(Message::new().text(
            "dry run: the Context Object was not written to the audit store",
        )));
    }
    if !comment_written {
        return report(EffectResult::Skipped(Message::new().text(
            "the Context Object was not written to the audit store: the ledger comment does \
             not hold it (the audit file does; `council audit import` or `council audit sync` \
             take it later)",
        )));
    }
    let mut store = match open(env, Some(url)).await {
        Ok(store) => store,
        Err(e) => return report(EffectResult::Failed(Message::new().text(e.to_string()))),
    };
    let stored = Stored::from_file(context.clone());
    let at = now();
    let source = match env.run.run_id.as_str() {
        "local" => "a local run".to_string(),
        run => format!("workflow run {run} (attempt {})", env.run.run_attempt),
    };
    // This run read the pull request itself (its event, or GitHub): a live read vouches.
    let live = Attribution {
        author: pr.author.clone(),
        source_branch: pr.head_ref.clone(),
        target_branch: pr.base_ref.clone(),
        head_sha: Some(pr.head_sha.clone()),
    };
    let offer = Offer {
        stored: &stored,
        source: &source,
        key: req.hmac_key.as_ref().map(|k| k.expose().as_bytes()),
        pr: None,
        attribution: Some(&live),
        now: &at,
        document: None,
    };
    match store.import(&offer).await {
        Err(e) => report(EffectResult::Failed(Message::new().text(e.to_string()))),
        Ok(i) => match (&i.refused, i.verification) {
            (Some(why), _) => report(EffectResult::Failed(Message::new().text(format!(
                "the audit store refused this run's Context Object and recorded why: {why}"
            )))),
            (None, v) => report(EffectResult::Done(Message::new().text(format!(
                "audit store {}: {} new entries; the stored ledger is {}{}{}",
                store.shown(),
                i.added,
                v.as_str(),
                match v {
                    Verification::Partial => " (its older entries are in earlier artifacts)",
                    _ => "",
                },
                i.disputed
                    .as_deref()
                    .map(|d| format!(
                        "; the ledger comment's header was recorded as a verification \
                         failure: {d}"
                    ))
                    .unwrap_or_default()
            )))),
        },
    }
}
