//! A pull request's Context Object as a run would adopt it (this pull request's, and
//! verifying): its ledger comments of the token's identity, else the newest
//! `audit-PR-<n>` artifact of a run of this repository's own code (never a fork's); and
//! what `verify_ledger` and `pr_status` answer about it.

use serde_json::{Value, json};

use crate::app::ledger::{TakenArtifact, found_in, newest_adopted_artifact, passed_over};
use crate::app::marked_comment::{self, FindError};
use crate::app::{client, repository};
use crate::env::RunEnv;
use crate::request::Access;
use crate::secret::Secret;
use council_github::ApiError;
use council_github::artifact::{DownloadOptions, Provenance};
use council_protocol::audit::adopt::{Adopted, Subject, adopt};
use council_protocol::audit::context::context_id;
use council_protocol::audit::derive::derive;
use council_protocol::audit::stored::MARKER;
use council_protocol::error::{Error, Result};

/// Whether the pull request's Context Object verifies, with where it came from.
pub fn verify_json(ledger: &PrLedger, key: Option<&Secret>) -> Result<Value> {
    let key = key.map(|k| k.expose().as_bytes());
    let pr = ledger.pr;
    let PrLedger {
        adopted,
        source,
        from_artifact,
        notes,
        ..
    } = ledger;
    let from_artifact = *from_artifact;
    let url = if from_artifact {
        String::new()
    } else {
        source.clone()
    };
    Ok(match (adopted.verified.first(), adopted.rejected.first()) {
        (Some(stored), _) => {
            let report = stored
                .verify(key)
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

/// The statuses and gates derived from the verified timeline, and its `wanted` newest
/// entries.
pub fn status_json(ledger: PrLedger, wanted: u32) -> Value {
    let pr = ledger.pr;
    let PrLedger {
        adopted,
        source,
        from_artifact,
        notes,
        ..
    } = ledger;
    let url = if from_artifact {
        String::new()
    } else {
        source.clone()
    };
    let mut rejected: Vec<String> = adopted.rejected.iter().map(|r| r.warning()).collect();
    rejected.extend(notes);
    let Some(stored) = adopted.verified.into_iter().next() else {
        return json!({
            "pr": pr,
            "found": false,
            "state": {"guard_status": "PENDING", "review_status": "PENDING", "release_status": "PENDING"},
            "message": if rejected.is_empty() {
                format!("no Context Object on pull request #{}: council has not run on it yet", pr)
            } else {
                format!("no Context Object on pull request #{} verifies", pr)
            },
            "rejected": rejected,
        });
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
    json!({
        "pr": pr,
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
    })
}

/// A pull request's Context Object as a run would adopt it (this PR's, verified): its
/// ledger comments of the token's identity, else the newest `audit-PR-<n>` artifact of a
/// run of this repository's own code (never a fork's); where it came from, and notes.
pub struct PrLedger {
    pub pr: u64,
    pub adopted: Adopted,
    /// The comment's URL, or the artifact and the run that uploaded it.
    pub source: String,
    pub from_artifact: bool,
    pub notes: Vec<String>,
}

pub async fn read(
    env: &RunEnv,
    access: &Access,
    key: Option<&Secret>,
    pr: u64,
) -> Result<PrLedger> {
    let repo = repository(access, None)?;
    let gh = client(env, access, &repo)?.ok_or_else(|| {
        crate::exit::no_token("the Context Object is read from the pull request's comment")
    })?;
    let key = key.map(|k| k.expose().as_bytes());
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
    let found = comments.iter().map(found_in).collect();
    let id = context_id(pr);
    let full = repo.full();
    let subject = Subject {
        context_id: &id,
        repository: &full,
    };
    let adopted = adopt(found, key, &subject);
    if !adopted.verified.is_empty() {
        return Ok(PrLedger {
            pr,
            adopted,
            source: url,
            from_artifact: false,
            notes: Vec::new(),
        });
    }
    from_artifacts(key, &gh, pr, &subject, adopted, url).await
}

/// No comment verifies: the newest artifact that does, as the ledger's fallback takes it.
async fn from_artifacts(
    key: Option<&[u8]>,
    gh: &council_github::GitHub,
    pr: u64,
    subject: &Subject<'_>,
    mut adopted: Adopted,
    url: String,
) -> Result<PrLedger> {
    let options = DownloadOptions {
        provenance: Provenance::OwnRuns {
            repository_id: None,
        },
        ..DownloadOptions::default()
    };
    let (result, rejected) = newest_adopted_artifact(gh, pr, &options, key, subject).await;
    adopted.rejected.extend(rejected);
    let mut notes = Vec::new();
    match result {
        Ok((taken, passed)) => {
            if !passed.is_empty() {
                notes.push(passed_over(&passed));
            }
            if let Some(TakenArtifact { stored, source, .. }) = taken {
                adopted.verified.push(stored);
                return Ok(PrLedger {
                    pr,
                    adopted,
                    source,
                    from_artifact: true,
                    notes,
                });
            }
        }
        Err(e) => notes.push(format!("audit artifacts were not read: {e}")),
    }
    Ok(PrLedger {
        pr,
        adopted,
        source: url,
        from_artifact: false,
        notes,
    })
}
