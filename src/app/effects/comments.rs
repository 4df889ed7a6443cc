//! How the executor writes comments: our marked ones created or edited only when the
//! body changes, duplicates from racing runs folded into the oldest. Only
//! [`super::Executor`] calls these, after its dry-run and token checks.

use crate::app::marked_comment::{FindError, find};
use council_github::{ApiError, Comment, GitHub};

/// Edits comment `id` (posting `body` as a new comment when it was deleted after it was
/// read: the edit answers 404, and the new one holds what the deleted one held), or posts
/// a new comment when there is none.
pub(super) async fn write(
    gh: &GitHub,
    issue: u64,
    id: Option<u64>,
    body: &str,
) -> Result<Comment, ApiError> {
    match id {
        Some(id) => match gh.update_comment(id, body).await {
            Err(ApiError::NotFound { .. }) => gh.create_comment(issue, body).await,
            edited => edited,
        },
        None => gh.create_comment(issue, body).await,
    }
}

/// Edits `existing` only when its body differs (an unchanged re-run notifies nobody).
async fn write_changed(
    gh: &GitHub,
    issue: u64,
    existing: Option<&Comment>,
    body: &str,
) -> Result<Comment, ApiError> {
    match existing {
        Some(c) if c.body() == body => Ok(c.clone()),
        other => write(gh, issue, other.map(|c| c.id), body).await,
    }
}

/// Deletes our duplicates; returns a warning per one that stays.
async fn delete(gh: &GitHub, duplicates: &[&Comment]) -> Vec<String> {
    let mut warnings = Vec::new();
    for dup in duplicates {
        if let Err(e) = gh.delete_comment(dup.id).await {
            warnings.push(format!(
                "a duplicate comment ({}) could not be deleted: {e}",
                dup.html_url
            ));
        }
    }
    warnings
}

/// What became of a once-only comment.
#[derive(Debug)]
pub(super) enum Once {
    Posted(Comment),
    /// Ours was already there (posted by an earlier run, or by a run racing this one).
    Present(Comment),
}

/// Posts `body` unless a comment of ours with `marker` exists. Two runs racing may both
/// post: after posting, the newest of ours is deleted again, so the oldest stays.
pub(super) async fn post_once(
    gh: &GitHub,
    issue: u64,
    marker: &str,
    body: &str,
) -> Result<Once, FindError> {
    let ours = find(gh, issue, marker).await?;
    if let Some(existing) = ours.into_iter().next() {
        return Ok(Once::Present(existing));
    }
    let posted = gh
        .create_comment(issue, body)
        .await
        .map_err(FindError::Api)?;
    let now = find(gh, issue, marker).await?;
    match now.first() {
        Some(oldest) if oldest.id != posted.id => {
            // Best effort: a leftover duplicate is only noise, never a wrong decision.
            let _ = gh.delete_comment(posted.id).await;
            Ok(Once::Present(oldest.clone()))
        }
        _ => Ok(Once::Posted(posted)),
    }
}

/// What [`upsert`] did to the one comment of ours with a marker.
#[derive(Debug)]
pub(super) enum Upserted {
    Created(Comment),
    Updated(Comment),
    /// Ours already said exactly this; nothing was written.
    Unchanged(Comment),
}

impl Upserted {
    pub(super) fn comment(&self) -> &Comment {
        match self {
            Upserted::Created(c) | Upserted::Updated(c) | Upserted::Unchanged(c) => c,
        }
    }
}

/// Makes the one comment of ours that starts with `marker` say `body`: the oldest is
/// edited (only when it differs), a new one is posted when there is none, and later
/// duplicates (racing runs, hand copies under our identity) are deleted. Returns what
/// happened and a warning per duplicate that could not be deleted.
pub(super) async fn upsert(
    gh: &GitHub,
    issue: u64,
    marker: &str,
    body: &str,
) -> Result<(Upserted, Vec<String>), FindError> {
    let ours = find(gh, issue, marker).await?;
    let existing = ours.first();
    let written = write_changed(gh, issue, existing, body)
        .await
        .map_err(FindError::Api)?;
    let outcome = match existing {
        None => Upserted::Created(written),
        Some(old) if old.body() == body => Upserted::Unchanged(written),
        Some(_) => Upserted::Updated(written),
    };
    let duplicates: Vec<&Comment> = ours.iter().skip(1).collect();
    let warnings = delete(gh, &duplicates).await;
    Ok((outcome, warnings))
}
