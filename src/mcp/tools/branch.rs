//! `check_branch`: the guard's verdicts for a branch and a target, before any push.

#[cfg(test)]
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::app::policy_source::read_local;
use crate::mcp::ToolContext;
use council_protocol::error::{Error, Result};
use council_protocol::gates::guard::{evaluate_branch, passed};
use council_protocol::gates::json::v1::GateVerdict;
use council_protocol::policy::Policy;

/// `check_branch`'s arguments.
#[derive(Deserialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CheckBranchArgs {
    /// The head branch a pull request would come from (e.g. the current branch)
    branch: String,
    /// The base branch it would target (e.g. main, develop)
    target: String,
    /// A local policy file to use instead of the target branch's (path in the working
    /// directory)
    policy: Option<String>,
}

pub async fn check_branch(ctx: &ToolContext, args: CheckBranchArgs) -> Result<Value> {
    for (field, value) in [("branch", &args.branch), ("target", &args.target)] {
        if value.trim().is_empty() {
            return Err(Error::Input(format!(
                "argument `{field}`: must not be empty"
            )));
        }
    }
    let policy = policy(ctx, args.policy.as_deref(), &args.target).await?;
    let gates = evaluate_branch(&policy, &args.branch, &args.target);
    let all_passed = passed(&gates);
    Ok(json!({
        "branch": args.branch,
        "target": args.target,
        "passed": all_passed,
        "policy": policy.source,
        "gates": GateVerdict::all(&gates),
    }))
}

/// The `policy` argument's file, else the server's `--policy` file, else the target
/// branch's policy through the API (the default policy when it has none), as the
/// action reads it.
async fn policy(ctx: &ToolContext, given: Option<&str>, target: &str) -> Result<Policy> {
    if let Some(path) = given {
        return read_local(&ctx.env.workspace, path, true);
    }
    if ctx.req.policy.explicit {
        return read_local(&ctx.env.workspace, &ctx.req.policy.path, true);
    }
    let gh = ctx.client("check_branch reads the policy at the target branch")?;
    let path = &ctx.req.policy.path;
    match gh.get_file(path, Some(target)).await? {
        Some(text) => Policy::parse(&text, &format!("{path}@{target}")),
        None => {
            let mut policy = Policy::default_policy();
            policy.source = format!("default policy (no {path} on {target})");
            Ok(policy)
        }
    }
}
