//! What review reads: the files GitHub lists for the pull request (100 a page, up to its
//! 3,000-file cap), and the changed `ASSISTANT_CONTEXT` files at the head SHA.

use super::StageInput;
use crate::error::{Error, Result};
use crate::review::{DiffFacts, ReviewFacts};
use crate::stage::StageResult;

pub async fn evaluate(input: &StageInput<'_>) -> Result<StageResult> {
    let gh = input.clients.gh.as_ref().ok_or_else(|| {
        Error::Usage(
            "review reads the pull request's files through the API: set `github-token` \
             (in a workflow the default `${{ github.token }}` is enough; on the CLI pass \
             --github-token)"
                .to_string(),
        )
    })?;
    let listed = gh.list_files(input.pr.number).await?;
    let diff = DiffFacts::new(listed.files, listed.capped, input.pr);
    Ok(crate::stage::review::evaluate(&ReviewFacts {
        pr: input.pr,
        policy: &input.policy.review,
        diff: &diff,
        context_files: &[],
    }))
}
