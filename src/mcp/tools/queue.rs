//! `queue_status`: a base's merge queue as GitHub says it is now (the pull requests in
//! line, in order; the commit being tested and its checks), and a pull request's place
//! in line for `pr_status`. Reads only.

#[cfg(test)]
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::Value;

use crate::app::policy_source::{at_branch, read_local};
use crate::app::queue::view;
use crate::mcp::ToolContext;
use council_github::GitHub;
use council_protocol::error::{Error, Result};
use council_protocol::policy::Policy;
use council_protocol::policy::queue::has_queued_label;

/// `queue_status`'s arguments.
#[derive(Deserialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct QueueStatusArgs {
    /// The base branch whose merge queue to show (e.g. main)
    base: String,
}

pub async fn queue_status(ctx: &ToolContext, args: QueueStatusArgs) -> Result<Value> {
    let base = args.base.trim();
    if base.is_empty() || base.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(Error::Input(
            "argument `base`: a branch name, without spaces or control characters".to_string(),
        ));
    }
    let gh = ctx.client("queue_status reads the queue through the API")?;
    let repo = ctx.repo()?;
    let policy = policy_at(ctx, &gh, base).await?;
    let facts = view::read(&ctx.env, &gh, &repo, base, &policy).await?;
    Ok(view::status_json(&facts, &policy))
}

/// Where pull request `pr` stands in its base's merge queue: `null` when it does not
/// carry the queue's label (it is in no line), or when it cannot be read.
pub async fn place(ctx: &ToolContext, pr: u64) -> Value {
    let Ok(gh) = ctx.client("pr_status reads the pull request") else {
        return Value::Null;
    };
    let Ok(repo) = ctx.repo() else {
        return Value::Null;
    };
    let Ok(pull) = gh.pull_request(pr).await else {
        return Value::Null;
    };
    if !has_queued_label(&pull.labels) {
        return Value::Null;
    }
    let base = pull.base_ref;
    let Ok(policy) = policy_at(ctx, &gh, &base).await else {
        return Value::Null;
    };
    match view::read(&ctx.env, &gh, &repo, &base, &policy).await {
        Ok(facts) => view::place_json(&facts, &policy, pr),
        Err(_) => Value::Null,
    }
}

/// The server's `--policy` file, else the base branch's policy through the API (the
/// default policy when it has none), as the action reads it.
async fn policy_at(ctx: &ToolContext, gh: &GitHub, base: &str) -> Result<Policy> {
    if ctx.req.policy.explicit {
        return read_local(&ctx.env.workspace, &ctx.req.policy.path, true);
    }
    at_branch(gh, &ctx.req.policy.path, base).await
}
