//! What review reads: the files GitHub lists for the pull request (100 a page, up to its
//! 3,000-file cap), and the changed `ASSISTANT_CONTEXT` files at the head SHA.

use super::StageInput;
use crate::assistant_context;
use crate::error::{Error, Result};
use crate::github::GitHub;
use crate::review::{ContextCheck, DiffFacts, ReviewFacts, is_assistant_context};
use crate::stage::StageResult;

/// ASSISTANT_CONTEXT files read at most (one request each); more are reported unread.
const MAX_CONTEXT_FILES: usize = 20;

pub async fn evaluate(input: &StageInput<'_>) -> Result<StageResult> {
    let gh =
        input.clients.gh.as_ref().ok_or_else(|| {
            Error::no_token("review reads the pull request's files through the API")
        })?;
    let listed = gh.list_files(input.pr.number).await?;
    let diff = DiffFacts::new(listed.files, listed.capped, input.pr);
    let context_files = if input.policy.review.assistant_context {
        context_checks(gh, &diff, &input.pr.head_sha).await?
    } else {
        Vec::new()
    };
    Ok(crate::stage::review::evaluate(&ReviewFacts {
        pr: input.pr,
        policy: &input.policy.review,
        diff: &diff,
        context_files: &context_files,
    }))
}

/// Each changed (not removed) ASSISTANT_CONTEXT file, read at `sha` and validated.
async fn context_checks(gh: &GitHub, diff: &DiffFacts, sha: &str) -> Result<Vec<ContextCheck>> {
    let paths: Vec<&str> = diff
        .files
        .iter()
        .filter(|f| !f.is_removed() && is_assistant_context(&f.path))
        .map(|f| f.path.as_str())
        .collect();
    let mut checks = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let problems = if i >= MAX_CONTEXT_FILES {
            vec![format!(
                "{path}: not read: a review reads at most {MAX_CONTEXT_FILES} ASSISTANT_CONTEXT files"
            )]
        } else {
            match gh.get_file(path, Some(sha)).await? {
                None => vec![format!("{path}: not found at the head commit")],
                Some(text) => match assistant_context::validate(path, &text) {
                    Ok(_) => Vec::new(),
                    Err(problems) => problems.iter().map(ToString::to_string).collect(),
                },
            }
        };
        checks.push(ContextCheck {
            path: path.to_string(),
            problems,
        });
    }
    Ok(checks)
}
