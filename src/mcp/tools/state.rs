//! `get_agent_state` and `put_agent_state`: the Context Protocol's `<agent-state>`
//! blocks on an issue, with `council state get/put`'s trust rules, compaction and
//! secret refusal.

#[cfg(test)]
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::app::state::{Target, latest_json, put_json};
use crate::mcp::ToolContext;
use crate::request::{StateFields, StatePutRequest};
use council_protocol::error::{Error, Result};

/// `get_agent_state`'s arguments.
#[derive(Deserialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GetStateArgs {
    /// The issue whose latest trusted <agent-state> to read
    issue: u64,
}

pub async fn get(ctx: &ToolContext, args: GetStateArgs) -> Result<Value> {
    let req = ctx.issue(Some(args.issue));
    let target = Target::resolve_issue(&ctx.env, &req, args.issue, "get_agent_state")?;
    let (mut out, warnings) = latest_json(&ctx.env, &req, &target).await?;
    out["warnings"] = json!(warnings);
    Ok(out)
}

/// `put_agent_state`'s arguments: the block's fields; those left out keep the latest
/// state's values.
#[derive(Deserialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PutStateArgs {
    /// The issue to post the <agent-state> comment on
    issue: u64,
    /// What you are trying to do
    intent: Option<String>,
    /// The current step (a lower-case token, e.g. planning, coding, testing, review, done)
    step: Option<String>,
    /// 0-100, or "auto" (checked items of the issue's task list)
    progress: Option<Progress>,
    /// Any JSON value worth handing over (compacted to fit a comment)
    memory: Option<Value>,
    /// The suggested next action
    next_action: Option<String>,
    /// The human summary shown above the block
    summary: Option<String>,
    /// Your name (<agent>)
    agent: Option<String>,
    /// The plan: [{"status": "pending|in_progress|done", "text": "..."}]
    plan: Option<Vec<PlanItem>>,
    /// A question for the human: a string, or {"status", "question"}
    input_request: Option<Value>,
    /// {"tool_calls", "errors", "cost_estimate", "generated_at"}
    metrics: Option<Value>,
}

/// 0-100 or "auto".
#[derive(Deserialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(untagged)]
enum Progress {
    Percent(u8),
    Auto(String),
}

#[derive(Deserialize, serde::Serialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct PlanItem {
    /// pending, in_progress or done
    status: String,
    text: String,
}

pub async fn put(ctx: &ToolContext, args: PutStateArgs) -> Result<Value> {
    let json_text = |field: &str, v: &Value| {
        serde_json::to_string(v).map_err(|e| Error::Input(format!("argument `{field}`: {e}")))
    };
    // The block's JSON fields are written as the JSON they are; `state put` validates
    // them as it validates any input.
    let fields = StateFields {
        intent: args.intent,
        step: args.step,
        progress: args.progress.map(|p| match p {
            Progress::Percent(n) => n.to_string(),
            Progress::Auto(text) => text,
        }),
        memory: args
            .memory
            .as_ref()
            .map(|m| json_text("memory", m))
            .transpose()?,
        next_action: args.next_action,
        agent: args.agent,
        plan: args
            .plan
            .as_ref()
            .map(|p| {
                serde_json::to_string(p).map_err(|e| Error::Input(format!("argument `plan`: {e}")))
            })
            .transpose()?,
        input_request: args
            .input_request
            .as_ref()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => json_text("input_request", other),
            })
            .transpose()?,
        metrics: args
            .metrics
            .as_ref()
            .map(|m| json_text("metrics", m))
            .transpose()?,
    };
    let req = StatePutRequest {
        target: ctx.issue(Some(args.issue)),
        fields,
        summary: args.summary,
        // Secrets are always refused here: there is no --allow-secrets for agents.
        allow_secrets: false,
    };
    let target = Target::resolve_issue(&ctx.env, &req.target, args.issue, "put_agent_state")?;
    let (mut out, warnings) = put_json(&ctx.env, &req, &target).await?;
    out["warnings"] = json!(warnings);
    Ok(out)
}
