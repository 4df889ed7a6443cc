//! `check_branch`: before any push, the guard's verdicts for a branch and a target, and
//! what the pull request will be held to: its class from the branch and the author, and
//! for an agent's the rules of `actors.agent` (the same functions decide at the pull
//! request's own checks: [`council_protocol::actors::preflight()`]).

#[cfg(test)]
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::app::policy_source::{at_branch, read_local};
use crate::mcp::ToolContext;
use council_protocol::actors::{Evidence, Preflight, preflight};
use council_protocol::error::{Error, Result};
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
    /// The login that will open the pull request, as GitHub's REST API writes it (an
    /// app's ends in `[bot]`, e.g. `copilot-swe-agent[bot]`): with it the answer says
    /// whether the login alone makes the pull request an agent's
    author: Option<String>,
}

pub async fn check_branch(ctx: &ToolContext, args: CheckBranchArgs) -> Result<Value> {
    for (field, value) in [("branch", &args.branch), ("target", &args.target)] {
        if value.trim().is_empty() {
            return Err(Error::Input(format!(
                "argument `{field}`: must not be empty"
            )));
        }
    }
    let author = args
        .author
        .as_deref()
        .map(str::trim)
        .filter(|a| !a.is_empty());
    if let Some(author) = author
        && (author.chars().count() > MAX_LOGIN_CHARS || author.chars().any(char::is_control))
    {
        return Err(Error::Input(format!(
            "argument `author`: not a GitHub login (at most {MAX_LOGIN_CHARS} characters, \
             no control characters)"
        )));
    }
    let policy = policy(ctx, args.policy.as_deref(), &args.target).await?;
    let preflight = preflight(&policy, &args.branch, &args.target, author);
    Ok(json!({
        "branch": args.branch,
        "target": args.target,
        "passed": preflight.passed(),
        "policy": policy.source,
        "gates": GateVerdict::all(&preflight.gates),
        "author": author,
        "actor": actor_json(&preflight),
    }))
}

/// Longer than any login GitHub allows (39 characters, `[bot]` apps a few more).
const MAX_LOGIN_CHARS: usize = 100;

/// The class the pull request will start with, why, and what it will be held to.
fn actor_json(preflight: &Preflight) -> Value {
    let actor = &preflight.actor;
    let evidence: Vec<Value> = actor
        .evidence
        .iter()
        .map(|e| match e {
            Evidence::Login { login, glob, alias } => json!({
                "kind": "login", "value": login, "glob": glob, "alias": alias,
            }),
            Evidence::Branch { branch, glob } => {
                json!({"kind": "branch", "value": branch, "glob": glob})
            }
            Evidence::Trailer { trailer, glob, .. } => {
                json!({"kind": "trailer", "value": trailer, "glob": glob})
            }
            Evidence::Label { label } => json!({"kind": "label", "value": label}),
        })
        .collect();
    json!({
        "class": actor.class.as_str(),
        "message": actor.message().plain(),
        "evidence": evidence,
        "expect": preflight.notes.iter().map(|n| n.plain()).collect::<Vec<_>>(),
    })
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
    at_branch(&gh, &ctx.req.policy.path, target).await
}
