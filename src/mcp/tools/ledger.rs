//! `verify_ledger` and `pr_status`: a pull request's Context Object, verified, and what
//! its timeline says; or an audit file, verified as `council verify` does.

use std::path::PathBuf;

#[cfg(test)]
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::app::pr_ledger::{self, status_json, verify_json};
use crate::app::verify::verify_files;
use crate::mcp::ToolContext;
use crate::request::VerifyRequest;
use council_protocol::error::{Error, Result};

/// `verify_ledger`'s arguments: a pull request, or a file.
#[derive(Deserialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct VerifyArgs {
    /// A pull request whose Context Object comment to verify
    pr: Option<u64>,
    /// An audit file (out/audit/PR-<n>.json) to verify instead
    file: Option<String>,
    /// Earlier audit files that hold the entries `file` leaves out
    #[serde(default)]
    with: Vec<String>,
    /// Pass a file that leaves entries out without proving them
    #[serde(default)]
    allow_partial: bool,
}

pub async fn verify(ctx: &ToolContext, args: VerifyArgs) -> Result<Value> {
    match (args.pr, args.file) {
        (Some(_), Some(_)) => Err(Error::Input(
            "arguments `pr` and `file`: give one, not both".to_string(),
        )),
        (None, None) => Err(Error::Input(
            "arguments `pr` or `file`: give the pull request or the audit file to verify"
                .to_string(),
        )),
        (None, Some(file)) => {
            let options = VerifyRequest {
                file: Some(PathBuf::from(file)),
                with: args.with.into_iter().map(PathBuf::from).collect(),
                allow_partial: args.allow_partial,
                hmac_key: ctx.req.hmac_key.clone(),
                ..VerifyRequest::default()
            };
            match verify_files(&ctx.env, &options) {
                Ok(report) => Ok(report),
                Err(Error::Tampered(problem)) => Ok(json!({"verified": false, "problem": problem})),
                Err(e) => Err(e),
            }
        }
        (Some(pr), None) => {
            if !args.with.is_empty() || args.allow_partial {
                return Err(Error::Input(
                    "arguments `with` and `allow_partial` go with `file`, not `pr`".to_string(),
                ));
            }
            let key = ctx.req.hmac_key.as_ref();
            let ledger = pr_ledger::read(&ctx.env, &ctx.req.access, key, pr).await?;
            verify_json(&ledger, key)
        }
    }
}

/// `pr_status`'s arguments.
#[derive(Deserialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PrStatusArgs {
    /// The pull request
    pr: u64,
    /// How many of the newest timeline entries to return (default 10, at most 100)
    entries: Option<u32>,
}

pub async fn pr_status(ctx: &ToolContext, args: PrStatusArgs) -> Result<Value> {
    let wanted = args.entries.unwrap_or(10);
    if wanted > 100 {
        return Err(Error::Input(format!(
            "argument `entries`: {wanted} is more than 100"
        )));
    }
    let key = ctx.req.hmac_key.as_ref();
    let ledger = pr_ledger::read(&ctx.env, &ctx.req.access, key, args.pr).await?;
    Ok(status_json(ledger, wanted))
}
