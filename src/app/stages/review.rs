//! What review reads: the diff between the base and the exact head SHA the event names
//! (GitHub's compare endpoint, by SHA: an answer that cannot change under the reader, up
//! to its 300-file cap), and the changed `ASSISTANT_CONTEXT` files at that head SHA; then
//! the head once more. The verdict is about that head whatever happens meanwhile; a run
//! for an older head (a late `synchronize`) leaves the decision to the run of the new
//! head, so that the approve label follows the newest head only.

use super::{Evaluated, StageInput, skipped_note};
use council_github::{ApiError, GitHub};
use council_protocol::assistant_context;
use council_protocol::error::{Error, Result};
use council_protocol::event::PullRequest;
use council_protocol::policy::Policy;
use council_protocol::review::{ContextCheck, DiffFacts, ReviewFacts, is_assistant_context};
use council_protocol::stage::Stage;
use council_protocol::stage::review::{self, HeadNow};

/// ASSISTANT_CONTEXT files read at most (one request each); more are reported unread.
const MAX_CONTEXT_FILES: usize = 20;

pub async fn evaluate(input: &StageInput<'_>) -> Result<Evaluated> {
    let gh =
        input.clients.gh.as_ref().ok_or_else(|| {
            Error::no_token("review reads the pull request's files through the API")
        })?;
    let pr = input.pr;
    let (diff, context_files) = read_diff(gh, pr, input.policy).await?;
    let unread = match review::head_now(pr, head_now(gh, pr.number).await?.as_deref()) {
        HeadNow::MovedOn(why) => {
            return Ok(Evaluated::Skipped(skipped_note(
                Stage::Review,
                &why.plain(),
            )));
        }
        HeadNow::Unread(note) => Some(note),
        HeadNow::Same => None,
    };
    let mut result = council_protocol::stage::review::evaluate(&ReviewFacts {
        pr,
        policy: &input.policy.review,
        diff: &diff,
        context_files: &context_files,
        actor: None,
    });
    result.notes.extend(unread);
    Ok(Evaluated::Decided(result))
}

/// The pull request's head now; `None` when the server answers 404 for the single pull
/// request (a proxy or a fake that serves only what the review used to read), which
/// leaves nothing to compare.
async fn head_now(gh: &GitHub, number: u64) -> Result<Option<String>> {
    match gh.get_pull(number).await {
        Ok(value) => Ok(value
            .pointer("/head/sha")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)),
        Err(ApiError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The diff from `pr.base_sha` to `pr.head_sha` (by SHA: the files of exactly the commit
/// being decided), and its changed ASSISTANT_CONTEXT files read at `pr.head_sha` and
/// validated (when the policy checks them).
pub async fn read_diff(
    gh: &GitHub,
    pr: &PullRequest,
    policy: &Policy,
) -> Result<(DiffFacts, Vec<ContextCheck>)> {
    if pr.base_sha.is_empty() || pr.head_sha.is_empty() {
        return Err(Error::Api(format!(
            "pull request #{}: no {} SHA to read the diff by",
            pr.number,
            if pr.head_sha.is_empty() {
                "head"
            } else {
                "base"
            }
        )));
    }
    let listed = gh.compare_files(&pr.base_sha, &pr.head_sha).await?;
    let diff = DiffFacts::new(listed.files, listed.capped, pr);
    let context_files = if policy.review.assistant_context {
        context_checks(gh, &diff, &pr.head_sha).await?
    } else {
        Vec::new()
    };
    Ok((diff, context_files))
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
