//! Our marked comments on an issue or pull request, found by their hidden marker *and*
//! their author (the token's own identity, never "some bot"): the ledger's Context Object
//! comment, once-only comments (the close-on-fail explanation) and context reports. The
//! writes are the executor's (`effects::comments`).

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
