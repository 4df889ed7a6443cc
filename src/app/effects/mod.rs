//! The one effect executor: every write any command makes to GitHub goes through
//! [`Executor`]. Stage effects run in order ([`Executor::run`]); the other commands and
//! the ledger hand it one effect at a time ([`Executor::perform`]) and read back what it
//! wrote. Dry runs, missing tokens, read-only tokens (a refusal is a warning, not a
//! failure), the release token (merges and reverts only) and oversized comments are
//! handled here and nowhere else; retries live in the client. Whether an oversized
//! comment may be cut is the effect's to say ([`Effect::oversize`]), not the executor's:
//! only prose is cut, a block that is read back is posted whole or not at all.

mod comments;

use super::marked_comment::FindError;
use comments::{Once, Upserted};
use std::borrow::Cow;

use council_github::{ApiError, Comment, GitHub};
use council_protocol::agent_state::compact::thousands;
use council_protocol::event::PullRequest;
use council_protocol::render::text::Message;
use council_protocol::stage::effect::{Oversize, TooLong};
use council_protocol::stage::{Effect, EffectReport, EffectResult};

pub struct Executor<'a> {
    /// The workflow token's client (`github-token`).
    pub gh: Option<&'a GitHub>,
    /// The release token's client: merges, and nothing else.
    pub release: Option<&'a GitHub>,
    pub dry_run: bool,
    /// The pull request the effects are about, for the read-only explanation.
    pub pr: Option<&'a PullRequest>,
}

/// What one effect came to, with what a caller may need next.
#[derive(Debug)]
pub struct Performed {
    pub report: EffectReport,
    /// The comment a comment effect wrote or found in place.
    pub comment: Option<Comment>,
    /// That comment is new (posted), not edited or kept.
    pub created: bool,
    /// Worth a warning although the effect happened (a duplicate left undeleted).
    pub warnings: Vec<String>,
    /// The API's own error when the effect failed, for callers that explain it further.
    pub error: Option<ApiError>,
}

impl Performed {
    fn of(effect: &Effect, result: EffectResult) -> Performed {
        Performed {
            report: EffectReport::new(effect.action(), result),
            comment: None,
            created: false,
            warnings: Vec::new(),
            error: None,
        }
    }
}

/// What applying an effect produced, before it is reported.
struct Applied {
    result: EffectResult,
    comment: Option<Comment>,
    created: bool,
    warnings: Vec<String>,
}

impl Applied {
    fn result(result: EffectResult) -> Applied {
        Applied {
            result,
            comment: None,
            created: false,
            warnings: Vec::new(),
        }
    }

    fn comment(result: EffectResult, comment: Comment, created: bool) -> Applied {
        Applied {
            result,
            comment: Some(comment),
            created,
            warnings: Vec::new(),
        }
    }
}

impl Executor<'_> {
    /// A stage's effects, in order; one that needs the effect before it is skipped when
    /// that one is not in place.
    pub async fn run(&self, effects: &[Effect]) -> Vec<EffectReport> {
        let mut reports: Vec<EffectReport> = Vec::new();
        for effect in effects {
            let report = match reports.last() {
                Some(previous) if effect.needs_previous() && !previous.in_place() => {
                    EffectReport::new(
                        effect.action(),
                        EffectResult::Skipped(Message::new().text(format!(
                            "not done: would {}, but {} did not happen first",
                            effect.describe(),
                            previous.action
                        ))),
                    )
                }
                _ => self.perform(effect).await.report,
            };
            reports.push(report);
        }
        reports
    }

    /// One effect, and what it came to.
    pub async fn perform(&self, effect: &Effect) -> Performed {
        if self.dry_run {
            return Performed::of(
                effect,
                skipped(format!("dry run: would {}", effect.describe())),
            );
        }
        let client = if effect.needs_release_token() {
            self.release.ok_or_else(|| {
                format!(
                    "no `release-token`: would {}; only the release token may merge",
                    effect.describe()
                )
            })
        } else {
            self.gh.ok_or_else(|| {
                format!(
                    "no `github-token`: would {}; nothing can be written",
                    effect.describe()
                )
            })
        };
        let gh = match client {
            Ok(gh) => gh,
            Err(why) => return Performed::of(effect, skipped(why)),
        };
        match apply(gh, effect).await {
            Ok(applied) => Performed {
                report: EffectReport::new(effect.action(), applied.result),
                comment: applied.comment,
                created: applied.created,
                warnings: applied.warnings,
                error: None,
            },
            Err(e) => {
                let result = self.classify(effect, &e);
                let mut performed = Performed::of(effect, result);
                if let Failure::Api(e) = e {
                    performed.error = Some(e);
                }
                performed
            }
        }
    }

    fn classify(&self, effect: &Effect, e: &Failure) -> EffectResult {
        match e {
            Failure::Api(ApiError::ReadOnly { .. }) => {
                skipped(format!("dry run: would {}", effect.describe()))
            }
            // A release token that may not merge is a setup error, not a fork's
            // read-only token: it fails the run (exit 3) with what to grant.
            Failure::Api(e) if effect.needs_release_token() && is_refusal(e) => {
                EffectResult::Failed(
                    Message::new()
                        .text(format!("could not {}: {e}. ", effect.describe()))
                        .append(read_only(self.pr, true)),
                )
            }
            Failure::Api(e) if e.is_forbidden() => EffectResult::Refused(
                Message::new()
                    .text(format!("would {}: ", effect.describe()))
                    .append(read_only(self.pr, effect.needs_release_token())),
            ),
            Failure::Api(e) => EffectResult::Failed(Message::new().text(e.to_string())),
            Failure::Identity(why) => EffectResult::Skipped(
                Message::new().text(format!("would {}, but {why}", effect.describe())),
            ),
            Failure::TooLong(TooLong { chars }) => {
                EffectResult::Failed(Message::new().text(format!(
                    "could not {}: the comment is {} characters, more than GitHub's limit \
                     of 65,536, and it is a block that is read back, so it is not cut \
                     (nothing was written)",
                    effect.describe(),
                    thousands(*chars)
                )))
            }
        }
    }
}

enum Failure {
    Api(ApiError),
    Identity(String),
    /// A body over the limit that the effect says may not be cut; nothing was sent.
    TooLong(TooLong),
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        Failure::Api(e)
    }
}

impl From<FindError> for Failure {
    fn from(e: FindError) -> Self {
        match e {
            FindError::Api(e) => Failure::Api(e),
            FindError::UnknownIdentity => Failure::Identity(e.to_string()),
        }
    }
}

/// The body to send for a comment effect: cut only when the effect says it may be.
fn sized<'b>(effect: &Effect, body: &'b str) -> Result<Cow<'b, str>, Failure> {
    effect
        .oversize()
        .unwrap_or(Oversize::Whole)
        .fit(body)
        .map_err(Failure::TooLong)
}

async fn apply(gh: &GitHub, effect: &Effect) -> Result<Applied, Failure> {
    Ok(match effect {
        Effect::CommentOnce {
            issue,
            marker,
            body,
        } => match comments::post_once(gh, *issue, marker, &sized(effect, body)?).await? {
            Once::Posted(c) => {
                let result = done(Message::new().text("posted: ").link(&c.html_url));
                Applied::comment(result, c, true)
            }
            Once::Present(c) => {
                let result = EffectResult::Unchanged(
                    Message::new().text("already posted: ").link(&c.html_url),
                );
                Applied::comment(result, c, false)
            }
        },
        Effect::PostComment { issue, body } => {
            let c = gh.create_comment(*issue, &sized(effect, body)?).await?;
            let result = done(Message::new().text("posted: ").link(&c.html_url));
            Applied::comment(result, c, true)
        }
        Effect::UpsertComment {
            issue,
            marker,
            body,
        } => {
            let (upserted, warnings) =
                comments::upsert(gh, *issue, marker, &sized(effect, body)?).await?;
            let url = upserted.comment().html_url.clone();
            let (result, created) = match &upserted {
                Upserted::Created(_) => (done(Message::new().text("posted: ").link(&url)), true),
                Upserted::Updated(_) => (done(Message::new().text("edited: ").link(&url)), false),
                Upserted::Unchanged(_) => (
                    EffectResult::Unchanged(Message::new().text("unchanged: ").link(&url)),
                    false,
                ),
            };
            let mut applied = Applied::comment(result, upserted.comment().clone(), created);
            applied.warnings = warnings;
            applied
        }
        Effect::WriteComment {
            issue,
            comment,
            body,
        } => {
            let c = comments::write(gh, *issue, *comment, &sized(effect, body)?).await?;
            let created = Some(c.id) != *comment;
            let result = done(Message::new().text("written: ").link(&c.html_url));
            Applied::comment(result, c, created)
        }
        Effect::DeleteComment { id } => {
            gh.delete_comment(*id).await?;
            Applied::result(done(Message::new().text(format!("deleted comment {id}"))))
        }
        Effect::ClosePr { number } => {
            gh.close_pull(*number).await?;
            Applied::result(done(Message::new().text(format!("closed #{number}"))))
        }
        Effect::AddLabel { issue, label } => {
            gh.add_label(*issue, label).await?;
            Applied::result(done(Message::new().text("added ").value(label)))
        }
        Effect::RemoveLabel { issue, label } => {
            Applied::result(match gh.remove_label(*issue, label).await {
                Ok(()) => done(Message::new().text("removed ").value(label)),
                Err(ApiError::NotFound { .. }) => {
                    EffectResult::Unchanged(Message::new().text("not set: ").value(label))
                }
                Err(e) => return Err(e.into()),
            })
        }
        Effect::Merge(m) => {
            Applied::result(match gh.merge_pull(m.number, &m.sha, m.method).await {
                Ok(merged) => done(
                    Message::new()
                        .text(format!(
                            "merged #{} ({}) into ",
                            m.number,
                            m.method.as_str()
                        ))
                        .value(&m.base)
                        .text(format!(
                            " as {merged}, decided on base {} ← head {}",
                            short(&m.base_sha),
                            short(&m.sha)
                        )),
                ),
                Err(e) => merge_refused(m.number, &m.sha, m.method, e)?,
            })
        }
        Effect::Enqueue { number, label } => {
            gh.add_label(*number, label).await?;
            Applied::result(done(
                Message::new()
                    .text(format!("queued #{number}: added "))
                    .value(label),
            ))
        }
        // The merge queue's ref writes and merges: decided by council_protocol::queue,
        // not performed by this build yet (no command plans them).
        Effect::CreateRef { .. }
        | Effect::ResetRef { .. }
        | Effect::FastForward { .. }
        | Effect::DeleteRef { .. }
        | Effect::MergeInto { .. } => Applied::result(skipped(format!(
            "not wired yet: would {}; this build does not run the merge queue",
            effect.describe()
        ))),
        Effect::Revert(r) => {
            let opened = gh.revert_pull(&r.pull_id, &r.title, &r.body).await?;
            Applied::result(done(
                Message::new()
                    .text(format!(
                        "opened #{} reverting #{}: ",
                        opened.number, r.number
                    ))
                    .link(&opened.url),
            ))
        }
    })
}

/// What GitHub's refusal of a merge means. The head SHA guard (409, or 422 from some
/// proxies and GHES versions) and a mergeable state that changed since it was read (405
/// "not mergeable") are the world moving: the pull request waits for the next event, and
/// nothing failed. A merge method the repository forbids is the policy's to fix.
/// Anything else is a failure for the executor to classify.
fn merge_refused(
    number: u64,
    sha: &str,
    method: council_protocol::policy::MergeMethod,
    e: ApiError,
) -> Result<EffectResult, Failure> {
    let short = short(sha);
    Ok(match e {
        ApiError::Rejected {
            status: 409 | 422,
            message,
            ..
        } => EffectResult::Pending(Message::new().text(format!(
            "not merged: the head of #{number} is no longer {short} (GitHub: {message}); the \
             new head's checks decide next"
        ))),
        ApiError::Rejected {
            status: 405,
            message,
            ..
        } if message.contains("not allowed") => EffectResult::Failed(Message::new().text(format!(
            "GitHub refused to merge #{number}: {message} Set `release.merge_method` \
                 (now `{}`) to a method the repository allows.",
            method.as_str()
        ))),
        ApiError::Rejected {
            status: 405,
            message,
            ..
        } => EffectResult::Pending(Message::new().text(format!(
            "not merged: GitHub will not merge #{number} now ({message}); its state changed \
             since it was read, and the next event decides again"
        ))),
        e => return Err(e.into()),
    })
}

fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

fn done(message: Message) -> EffectResult {
    EffectResult::Done(message)
}

fn skipped(why: String) -> EffectResult {
    EffectResult::Skipped(Message::new().text(why))
}

/// A token without the permission: 403, or GraphQL's `FORBIDDEN`/"not accessible"
/// (which arrives as an error in a 200 reply).
fn is_refusal(e: &ApiError) -> bool {
    match e {
        ApiError::Forbidden { .. } => true,
        ApiError::Rejected { message, .. } => {
            message.contains("not accessible") || message.contains("FORBIDDEN")
        }
        _ => false,
    }
}

/// Why a write was refused, and what to do about it.
pub fn read_only(pr: Option<&PullRequest>, release: bool) -> Message {
    let why = if release {
        "The release token may not merge or revert here: it needs `contents: write` and \
         `pull-requests: write` on this repository (a GitHub App installation token or a \
         fine-grained personal access token with those permissions; see 'Set-up: a release \
         token' in agent-council's docs/src/release.md)"
    } else if pr.is_some_and(PullRequest::is_from_fork) {
        "the token is read-only (pull requests from forks get a read-only GITHUB_TOKEN on \
         `pull_request`); the verdict and the check still stand. Evaluate on `pull_request` and \
         apply on `workflow_run` (the two-phase pattern in agent-council's docs/src/forks.md), \
         or use `pull_request_target` (council never runs PR code)"
    } else {
        "the token may not write: grant `pull-requests: write` and `issues: write` in the \
         workflow's `permissions:`; the verdict and the check still stand"
    };
    Message::new().text(why)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(body: String) -> Effect {
        Effect::PostComment { issue: 1, body }
    }

    /// The regression this guards: an `<agent-state>` comment sized to GitHub's limit
    /// was cut 512 characters short of it, losing `</memory></agent-state>`.
    #[test]
    fn a_block_at_the_limit_is_sent_whole_and_prose_is_cut() {
        let block = format!("<agent-state>{}</agent-state>", "😀".repeat(65_536 - 27));
        assert_eq!(block.chars().count(), 65_536);
        let effect = post(block.clone());
        assert!(matches!(sized(&effect, &block), Ok(Cow::Borrowed(b)) if b == block));
        let explanation = Effect::CommentOnce {
            issue: 1,
            marker: "m".into(),
            body: block.clone(),
        };
        let cut = sized(&explanation, &block).ok().unwrap();
        assert!(cut.ends_with("the job summary has the whole text)\n"));
    }

    #[test]
    fn a_block_over_the_limit_fails_without_a_request() {
        let body = "x".repeat(65_537);
        let effect = post(body.clone());
        let Err(failure) = sized(&effect, &body) else {
            panic!("sent");
        };
        let executor = Executor {
            gh: None,
            release: None,
            dry_run: false,
            pr: None,
        };
        let result = executor.classify(&effect, &failure);
        assert!(matches!(result, EffectResult::Failed(_)));
        insta::assert_snapshot!(EffectReport::new(effect.action(), result).message().plain(), @"could not post a comment on #1: the comment is 65,537 characters, more than GitHub's limit of 65,536, and it is a block that is read back, so it is not cut (nothing was written)");
    }
}
