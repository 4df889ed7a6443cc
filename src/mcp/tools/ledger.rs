//! `verify_ledger` and `pr_status`: a pull request's Context Object, verified, and what
//! its timeline says.

use std::path::PathBuf;

#[cfg(test)]
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{client, decode, repo};
use crate::app::ledger::{TakenArtifact, newest_adopted_artifact, passed_over};
use crate::app::marked_comment::{self, FindError};
use crate::app::verify::verify_files;
use crate::settings::{Settings, VerifyOptions};
use council_github::ApiError;
use council_github::artifact::{DownloadOptions, Provenance};
use council_protocol::audit::adopt::{Adopted, Found, Subject, adopt};
use council_protocol::audit::context::context_id;
use council_protocol::audit::derive::derive;
use council_protocol::audit::stored::{self, MARKER};
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

pub async fn verify(settings: &Settings, args: &Map<String, Value>) -> Result<Value> {
    let args: VerifyArgs = decode(args)?;
    match (args.pr, args.file) {
        (Some(_), Some(_)) => Err(Error::Input(
            "arguments `pr` and `file`: give one, not both".to_string(),
        )),
        (None, None) => Err(Error::Input(
            "arguments `pr` or `file`: give the pull request or the audit file to verify"
                .to_string(),
        )),
        (None, Some(file)) => {
            let options = VerifyOptions {
                file: Some(PathBuf::from(file)),
                with: args.with.into_iter().map(PathBuf::from).collect(),
                allow_partial: args.allow_partial,
            };
            match verify_files(settings, &options) {
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
            let Ledger {
                adopted,
                source,
                from_artifact,
                notes,
            } = ledger_of(settings, pr).await?;
            let url = if from_artifact {
                String::new()
            } else {
                source.clone()
            };
            Ok(match (adopted.verified.first(), adopted.rejected.first()) {
                (Some(stored), _) => {
                    let report = stored
                        .verify(key(settings))
                        .map_err(|e| Error::Tampered(e.to_string()))?;
                    json!({
                        "verified": true,
                        "pr": pr,
                        "source": source,
                        "from_artifact": from_artifact,
                        "notes": notes,
                        "comment_url": url,
                        "entries": stored.total_entries(),
                        "entries_in_comment": stored.context.timeline.len(),
                        "signatures_checked": report.signatures_checked,
                        "head_hash": stored.last_hash(),
                        "rejected": adopted.rejected.iter().map(|r| r.warning()).collect::<Vec<_>>(),
                    })
                }
                (None, Some(rejected)) => json!({
                    "verified": false,
                    "pr": pr,
                    "comment_url": url,
                    "problem": rejected.warning(),
                    "notes": notes,
                }),
                (None, None) => json!({
                    "verified": false,
                    "pr": pr,
                    "problem": format!("pull request #{pr} has no Context Object comment of this token's identity, nor an audit artifact of this repository's own runs"),
                    "notes": notes,
                }),
            })
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

pub async fn pr_status(settings: &Settings, args: &Map<String, Value>) -> Result<Value> {
    let args: PrStatusArgs = decode(args)?;
    let wanted = args.entries.unwrap_or(10);
    if wanted > 100 {
        return Err(Error::Input(format!(
            "argument `entries`: {wanted} is more than 100"
        )));
    }
    let Ledger {
        adopted,
        source,
        from_artifact,
        notes,
    } = ledger_of(settings, args.pr).await?;
    let url = if from_artifact {
        String::new()
    } else {
        source.clone()
    };
    let mut rejected: Vec<String> = adopted.rejected.iter().map(|r| r.warning()).collect();
    rejected.extend(notes);
    let Some(stored) = adopted.verified.into_iter().next() else {
        return Ok(json!({
            "pr": args.pr,
            "found": false,
            "state": {"guard_status": "PENDING", "review_status": "PENDING", "release_status": "PENDING"},
            "message": if rejected.is_empty() {
                format!("no Context Object on pull request #{}: council has not run on it yet", args.pr)
            } else {
                format!("no Context Object on pull request #{} verifies", args.pr)
            },
            "rejected": rejected,
        }));
    };
    let complete = stored.is_complete();
    let total = stored.total_entries();
    let mut context = stored.context;
    // Derived from the timeline, never taken from the stored fields.
    derive(&mut context);
    let skip = context.timeline.len().saturating_sub(wanted as usize);
    let last: Vec<Value> = context.timeline[skip..]
        .iter()
        .map(|e| {
            json!({
                "agent": e.agent,
                "action": e.action,
                "result": e.result,
                "message": e.message,
                "timestamp": e.timestamp,
                "sha": e.sha,
            })
        })
        .collect();
    Ok(json!({
        "pr": args.pr,
        "found": true,
        "comment_url": url,
        "source": source,
        "from_artifact": from_artifact,
        "subject": context.subject,
        "state": context.state,
        "gates": context.gates,
        "entries": total,
        "complete_timeline_in_comment": complete,
        "timeline": last,
        "rejected": rejected,
    }))
}

fn key(settings: &Settings) -> Option<&[u8]> {
    settings.hmac_key.as_ref().map(|k| k.expose().as_bytes())
}

/// A pull request's Context Object as a run would adopt it (this PR's, verified): its
/// ledger comments of the token's identity, else the newest `audit-PR-<n>` artifact of a
/// run of this repository's own code (never a fork's); where it came from, and notes.
struct Ledger {
    adopted: Adopted,
    /// The comment's URL, or the artifact and the run that uploaded it.
    source: String,
    from_artifact: bool,
    notes: Vec<String>,
}

async fn ledger_of(settings: &Settings, pr: u64) -> Result<Ledger> {
    let repo = repo(settings)?;
    let gh = client(
        settings,
        "the Context Object is read from the pull request's comment",
    )?;
    let comments = marked_comment::find(&gh, pr, MARKER)
        .await
        .map_err(|e| match e {
            FindError::Api(ApiError::NotFound { .. }) => Error::Input(format!(
                "pull request #{pr} was not found in {repo}, or the token cannot read it"
            )),
            FindError::Api(e) => e.into(),
            e @ FindError::UnknownIdentity => Error::Api(e.to_string()),
        })?;
    let url = comments
        .first()
        .map(|c| c.html_url.clone())
        .unwrap_or_default();
    let found = comments
        .iter()
        .map(|c| Found {
            source: c.html_url.clone(),
            parsed: stored::parse(c.body()),
        })
        .collect();
    let id = context_id(pr);
    let full = repo.full();
    let subject = Subject {
        context_id: &id,
        repository: &full,
    };
    let adopted = adopt(found, key(settings), &subject);
    if !adopted.verified.is_empty() {
        return Ok(Ledger {
            adopted,
            source: url,
            from_artifact: false,
            notes: Vec::new(),
        });
    }
    from_artifacts(settings, &gh, pr, &subject, adopted, url).await
}

/// No comment verifies: the newest artifact that does, as the ledger's fallback takes it.
async fn from_artifacts(
    settings: &Settings,
    gh: &council_github::GitHub,
    pr: u64,
    subject: &Subject<'_>,
    mut adopted: Adopted,
    url: String,
) -> Result<Ledger> {
    let options = DownloadOptions {
        provenance: Provenance::OwnRuns {
            repository_id: None,
        },
        ..DownloadOptions::default()
    };
    let (result, rejected) =
        newest_adopted_artifact(gh, pr, &options, key(settings), subject).await;
    adopted.rejected.extend(rejected);
    let mut notes = Vec::new();
    match result {
        Ok((taken, passed)) => {
            if !passed.is_empty() {
                notes.push(passed_over(&passed));
            }
            if let Some(TakenArtifact { stored, source, .. }) = taken {
                adopted.verified.push(stored);
                return Ok(Ledger {
                    adopted,
                    source,
                    from_artifact: true,
                    notes,
                });
            }
        }
        Err(e) => notes.push(format!("audit artifacts were not read: {e}")),
    }
    Ok(Ledger {
        adopted,
        source: url,
        from_artifact: false,
        notes,
    })
}
