//! `state get`: the latest trusted state of an issue → outputs, summary, warnings.

use super::read::{Latest, MAX_COMMENTS, read_latest};
use super::view::{self, ReadReport};
use super::{Target, outputs};
use crate::env::RunEnv;
use crate::request::{IssueRequest, StateGetRequest};
use crate::runner::Level;
use council_protocol::error::{Outcome, Result};
use council_protocol::event::Event;

pub async fn run(env: &RunEnv, req: &StateGetRequest, event: Option<Event>) -> Result<Outcome> {
    let target = Target::resolve(env, &req.target, event, "state get")?;
    let latest = read_latest(env, &req.target, &target.gh, target.issue).await?;
    announce(env, &latest);
    let repo = target.repo.full();
    let read = ReadReport {
        repo: &repo,
        issue: target.issue,
        latest: &latest,
        requests: target.gh.requests(),
    };
    finish(
        env,
        req.target.json,
        &latest,
        &view::get_markdown(&read),
        || view::get_json(&read),
        || view::get_plain(&read),
    )
}

/// How a command that read the latest state ends (`state get`, `context sync`): its
/// summary, the state's outputs, and its result on stdout (`--json`, or plain text
/// outside Actions).
pub(crate) fn finish(
    env: &RunEnv,
    json_wanted: bool,
    latest: &Latest,
    summary: &str,
    json: impl FnOnce() -> serde_json::Value,
    plain: impl FnOnce() -> String,
) -> Result<Outcome> {
    env.runner.append_summary(summary)?;
    let url = latest
        .selection
        .source
        .as_ref()
        .map_or("", |s| s.html_url.as_str());
    env.runner
        .set_outputs(&outputs(&latest.selection.state, url).pairs())?;
    if json_wanted {
        env.runner.println(&json().to_string());
    } else if !env.in_actions {
        env.runner.print(&plain());
    }
    Ok(Outcome::Passed)
}

/// One warning per skipped malformed block (with its comment's URL), and one when the
/// page cap left older comments unread.
pub(crate) fn announce(env: &RunEnv, latest: &Latest) {
    for message in warnings(latest) {
        env.runner
            .annotate(Level::Warning, "council state", &message);
    }
}

/// What [`announce`] says, as lines.
pub(crate) fn warnings(latest: &Latest) -> Vec<String> {
    let mut out: Vec<String> = latest
        .selection
        .warnings
        .iter()
        .map(|w| w.message.clone())
        .collect();
    out.extend(element_warnings(latest));
    if latest.capped {
        out.push(format!(
            "no trusted <agent-state> block in the newest {MAX_COMMENTS} comments; older \
             comments were not read, so the state is the initial one"
        ));
    }
    out
}

/// The latest trusted state of the target's issue as `council state get --json` prints
/// it, and the warnings about what was skipped; writes nothing, prints nothing.
pub(crate) async fn latest_json(
    env: &RunEnv,
    req: &IssueRequest,
    target: &Target,
) -> Result<(serde_json::Value, Vec<String>)> {
    let latest = read_latest(env, req, &target.gh, target.issue).await?;
    let repo = target.repo.full();
    let read = ReadReport {
        repo: &repo,
        issue: target.issue,
        latest: &latest,
        requests: target.gh.requests(),
    };
    Ok((view::get_json(&read), warnings(&latest)))
}

/// What is wrong with the chosen block's v2.1 elements, and a likely loop: more tool
/// calls than the policy allows (the origin proposed escalating above 15).
pub(super) fn element_warnings(latest: &Latest) -> Vec<String> {
    let state = &latest.selection.state;
    let url = latest
        .selection
        .source
        .as_ref()
        .map_or("the latest block", |s| s.html_url.as_str());
    let v21 = council_protocol::agent_state::v21::read(state);
    let mut out: Vec<String> = v21
        .warnings
        .iter()
        .map(|w| format!("{w} (in {url}); the rest of the block was read"))
        .collect();
    if let Some(calls) = v21
        .metrics
        .and_then(|m| m.too_many_tool_calls(latest.max_tool_calls))
    {
        out.push(format!(
            "metrics.tool_calls is {calls}, above agent_state.max_tool_calls ({}): the agent \
             may be looping; look at {url} before letting it continue",
            latest.max_tool_calls
        ));
    }
    out
}
