//! What review reads: the diff between the base and the exact head SHA the event names
//! (GitHub's compare endpoint, by SHA: an answer that cannot change under the reader, up
//! to its 300-file cap) with the commits that make it (their messages carry the trailers
//! that tell an agent's pull request; the first 100 come in the same request), and the
//! changed `ASSISTANT_CONTEXT` files at that head SHA; then the pull request once more:
//! its head, and the author, head branch and labels the class is decided from. The
//! verdict is about that head whatever happens meanwhile; a run for an older head (a
//! late `synchronize`) leaves the decision to the run of the new head, so that the
//! approve label follows the newest head only.

use super::{Evaluated, StageInput, skipped_note};
use crate::runner::Level;
use council_github::{ApiError, GitHub};
use council_protocol::actors::{ActorFacts, Classified, CommitMessage, Commits, classify};
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
    let gh = input.clients.gh.as_ref().ok_or_else(|| {
        crate::exit::no_token("review reads the pull request's files through the API")
    })?;
    let pr = input.pr;
    let (diff, context_files, commits) = read_diff_and_commits(gh, pr, input.policy).await?;
    let now = read_again(gh, pr.number).await?;
    let unread = match review::head_now(pr, now.as_ref().and_then(|n| n.head_sha.as_deref())) {
        HeadNow::MovedOn(why) => {
            return Ok(Evaluated::Skipped(skipped_note(
                Stage::Review,
                &why.plain(),
            )));
        }
        HeadNow::Unread(note) => Some(note),
        HeadNow::Same => None,
    };
    // The class from live facts: the pull request as just read (its author as REST
    // writes it, its head branch and labels now), the event's where GitHub did not say;
    // and the commits of the head being decided.
    let live = match &now {
        Some(now) => now.applied_to(pr),
        None => pr.clone(),
    };
    let actor = classify(
        &input.policy.actors.agents,
        &ActorFacts {
            author: Some(&live.author),
            head: &live.head_ref,
            labels: Some(&live.labels),
            commits: Some(Commits {
                listed: &commits.0,
                total: commits.1,
            }),
        },
    );
    for warning in &actor.warnings {
        input
            .env
            .runner
            .annotate(Level::Warning, "council review: actors", &warning.plain());
    }
    let mut result = council_protocol::stage::review::evaluate(&ReviewFacts {
        pr: &live,
        policy: &input.policy.review,
        diff: &diff,
        context_files: &context_files,
        actor: Some(Classified {
            actor: &actor,
            rules: &input.policy.actors.agent,
        }),
    });
    result.notes.extend(unread);
    Ok(Evaluated::Decided(result))
}

/// The pull request as read again after the diff: what of it GitHub said.
struct ReadAgain {
    head_sha: Option<String>,
    head_ref: Option<String>,
    /// `user.login`, as REST writes it (`Copilot` for GitHub's coding agent).
    author: Option<String>,
    labels: Option<Vec<String>>,
}

impl ReadAgain {
    /// The event's pull request with what was read again in place of its own.
    fn applied_to(&self, pr: &PullRequest) -> PullRequest {
        let mut live = pr.clone();
        if let Some(head_ref) = &self.head_ref {
            live.head_ref.clone_from(head_ref);
        }
        if let Some(author) = &self.author {
            live.author.clone_from(author);
        }
        if let Some(labels) = &self.labels {
            live.labels.clone_from(labels);
        }
        live
    }
}

/// The pull request now (`GET /pulls/{n}`); `None` when the server answers 404 for the
/// single pull request (a proxy or a fake that serves only what the review used to
/// read), which leaves nothing to compare. Fields read leniently: one GitHub leaves out
/// is the event's.
async fn read_again(gh: &GitHub, number: u64) -> Result<Option<ReadAgain>> {
    let value = match gh.get_pull(number).await {
        Ok(value) => value,
        Err(ApiError::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let text = |pointer: &str| {
        value
            .pointer(pointer)
            .and_then(serde_json::Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let labels = value
        .get("labels")
        .and_then(serde_json::Value::as_array)
        .map(|labels| {
            labels
                .iter()
                .filter_map(|l| l.get("name").and_then(serde_json::Value::as_str))
                .map(str::to_string)
                .collect()
        });
    Ok(Some(ReadAgain {
        head_sha: text("/head/sha"),
        head_ref: text("/head/ref"),
        author: text("/user/login"),
        labels,
    }))
}

/// [`read_diff`], with the commits from the base to the head (the first 100 in the same
/// request) and how many there are in all.
async fn read_diff_and_commits(
    gh: &GitHub,
    pr: &PullRequest,
    policy: &Policy,
) -> Result<(DiffFacts, Vec<ContextCheck>, (Vec<CommitMessage>, u64))> {
    check_shas(pr)?;
    let compared = gh.compare_with_commits(&pr.base_sha, &pr.head_sha).await?;
    let diff = DiffFacts::new(compared.listed.files, compared.listed.capped, pr);
    let context_files = context_files(gh, &diff, pr, policy).await?;
    Ok((
        diff,
        context_files,
        (compared.commits, compared.total_commits),
    ))
}

fn check_shas(pr: &PullRequest) -> Result<()> {
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
    Ok(())
}

async fn context_files(
    gh: &GitHub,
    diff: &DiffFacts,
    pr: &PullRequest,
    policy: &Policy,
) -> Result<Vec<ContextCheck>> {
    if policy.review.assistant_context {
        context_checks(gh, diff, &pr.head_sha).await
    } else {
        Ok(Vec::new())
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
    check_shas(pr)?;
    let listed = gh.compare_files(&pr.base_sha, &pr.head_sha).await?;
    let diff = DiffFacts::new(listed.files, listed.capped, pr);
    let context_files = context_files(gh, &diff, pr, policy).await?;
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
