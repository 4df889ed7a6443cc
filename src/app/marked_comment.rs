//! Our marked comments on an issue or pull request: found by their hidden marker *and*
//! their author (the token's own identity, never "some bot"), created or edited only
//! when the body changes, duplicates from racing runs folded into the oldest. Used by
//! the ledger (the Context Object comment), by once-only comments (the close-on-fail
//! explanation) and by `council report` (one context-report comment per agent, through
//! [`upsert`]).

use council_github::{ApiError, Comment, GitHub};

#[derive(Debug)]
pub enum FindError {
    Api(ApiError),
    /// The token's login could not be found (GraphQL `viewer` and REST `/user` both
    /// failed): no comment is taken for ours, none is edited.
    UnknownIdentity,
}

impl std::fmt::Display for FindError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FindError::Api(e) => e.fmt(f),
            FindError::UnknownIdentity => f.write_str(
                "the token's own login could not be established (GraphQL `viewer` and REST \
                 `/user` both failed), so no comment can be proven to be ours: none is read \
                 back or edited",
            ),
        }
    }
}

/// Our comments that start with `marker`, oldest first.
pub async fn find(gh: &GitHub, issue: u64, marker: &str) -> Result<Vec<Comment>, FindError> {
    let Some(identity) = gh.identity().await else {
        // A token GitHub refuses (401) is the error to show, not "identity unknown".
        return Err(gh
            .bad_credentials()
            .map_or(FindError::UnknownIdentity, FindError::Api));
    };
    Ok(gh
        .list_comments(issue)
        .await
        .map_err(FindError::Api)?
        .into_iter()
        .filter(|c| c.body().starts_with(marker) && identity.is(c.author()))
        .collect())
}

/// Edits `existing` (only when its body differs: an unchanged re-run notifies nobody)
/// or creates a new comment. When `existing` was deleted after it was read (the edit
/// answers 404), `body` is posted as a new comment: it holds what the deleted one held.
pub async fn write(
    gh: &GitHub,
    issue: u64,
    existing: Option<&Comment>,
    body: &str,
) -> Result<Comment, ApiError> {
    match existing {
        Some(c) if c.body() == body => Ok(c.clone()),
        Some(c) => match gh.update_comment(c.id, body).await {
            Err(ApiError::NotFound { .. }) => gh.create_comment(issue, body).await,
            edited => edited,
        },
        None => gh.create_comment(issue, body).await,
    }
}

/// Deletes our duplicates; returns a warning per one that stays.
pub async fn delete(gh: &GitHub, duplicates: &[&Comment]) -> Vec<String> {
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
pub enum Once {
    Posted(Comment),
    /// Ours was already there (posted by an earlier run, or by a run racing this one).
    Present(Comment),
}

/// Posts `body` unless a comment of ours with `marker` exists. Two runs racing may both
/// post: after posting, the newest of ours is deleted again, so the oldest stays.
pub async fn post_once(
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
pub enum Upserted {
    Created(Comment),
    Updated(Comment),
    /// Ours already said exactly this; nothing was written.
    Unchanged(Comment),
}

impl Upserted {
    pub fn comment(&self) -> &Comment {
        match self {
            Upserted::Created(c) | Upserted::Updated(c) | Upserted::Unchanged(c) => c,
        }
    }
}

/// Makes the one comment of ours that starts with `marker` say `body`: the oldest is
/// edited (only when it differs), a new one is posted when there is none, and later
/// duplicates (racing runs, hand copies under our identity) are deleted. Returns what
/// happened and a warning per duplicate that could not be deleted.
pub async fn upsert(
    gh: &GitHub,
    issue: u64,
    marker: &str,
    body: &str,
) -> Result<(Upserted, Vec<String>), FindError> {
    let ours = find(gh, issue, marker).await?;
    let existing = ours.first();
    let written = write(gh, issue, existing, body)
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
