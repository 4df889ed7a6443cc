//! What the release stage reads before it decides, all of it at decision time and none
//! of it from the ledger: one GraphQL query (the pull request as it is now: branches,
//! head, author, body, mergeability, labels, each writer's latest review and the commit
//! it reviewed, auto-merge, merge queue, its first 100 commits with their messages and
//! credited authors, from which its class is decided, and every check on the decisive
//! commit; more commits cost a request per 100, up to 250), the policy of its base branch
//! (already read, unless the pull request was retargeted since the event), and, only when
//! nothing else keeps it from merging, the head's diff for the review gates. This run's
//! own job is left out of the pipeline with one more request when a GitHub Actions job is
//! still running on the commit. A mergeability GitHub is still computing is re-read a few
//! times, briefly; nothing here waits for CI: the next check, status or review event
//! decides again.

use std::borrow::Cow;
use std::time::Duration;

use super::review::read_diff;
use super::{Evaluated, StageInput, skipped_note};
use crate::app::policy_source;
use crate::env::RunEnv;
use crate::runner::Level;
use council_github::GitHub;
use council_github::pulls::{ContextNode, MAX_CHECK_PAGES, RollupPr, RollupShape};
use council_protocol::actors::{
    ActorFacts, Classified, CommitMessage, Commits, MAX_LISTED_COMMITS, classify,
};
use council_protocol::command::Command;
use council_protocol::error::{Error, Result};
use council_protocol::event::PullRequest;
use council_protocol::gates::release::{
    AutoMerge, CheckFact, CheckKind, CheckState, Mergeable, OpenFacts, Pipeline, ReleaseFacts,
    ReviewFact,
};
use council_protocol::policy::Policy;
use council_protocol::render::text::Message;
use council_protocol::review::{ContextCheck, DiffFacts};
use council_protocol::stage::Stage;
use council_protocol::stage::release::merged::{self, MergedFacts, Referrer, Trigger};
use council_protocol::stage::release::{
    ReleaseStage, ReviewReading, evaluate as decide, in_line_already, waits_only_for_review,
};

/// Reads of a pull request whose mergeability GitHub is still computing, the first
/// included; the pauses between them double from twice the retry base (1 s, 2 s).
const MERGEABLE_READS: u32 = 3;

pub async fn evaluate(input: &StageInput<'_>) -> Result<Evaluated> {
    let gh = input.clients.gh.as_ref().ok_or_else(|| {
        crate::exit::no_token(
            "release reads the pull request through the API (`release-token` is only for \
             the merge)",
        )
    })?;
    let pr = input.pr;
    let mut shape = RollupShape::default();
    // A closed pull request is asked about its merge commit's checks, an open one about
    // its head's: one query either way.
    let mut rollup = read(gh, pr, pr.state == "closed", &mut shape).await?;
    if rollup.state == "OPEN" && pr.state == "closed" {
        // Reopened since the event: ask about its head instead.
        rollup = read(gh, pr, false, &mut shape).await?;
    }
    let skip = |why: String| Ok(Evaluated::Skipped(skipped_note(Stage::Release, &why)));
    if rollup.merged {
        return post_merge(input, gh, rollup, shape).await;
    }
    if rollup.state != "OPEN" {
        return skip(format!("#{} is closed without being merged", pr.number));
    }
    open(input, gh, rollup, shape).await
}

async fn read(
    gh: &GitHub,
    pr: &PullRequest,
    merged: bool,
    shape: &mut RollupShape,
) -> Result<RollupPr> {
    gh.pull_rollup(pr.number, merged, None, shape)
        .await?
        .ok_or_else(|| {
            Error::Api(format!(
                "pull request #{} was not found in {}",
                pr.number, gh.repo
            ))
        })
}

/// What set this run off, as the post-merge rule reads it.
fn trigger(input: &StageInput) -> Trigger {
    let event = input.event;
    match event.name.as_str() {
        "push" => Trigger::Push,
        "workflow_run" if event.run_is_from_fork() => Trigger::ForkWorkflowRun,
        "workflow_run" => Trigger::OwnWorkflowRun,
        // `council release --pr N`, or the action's `command: release`.
        _ if input.req.command == Command::Release && input.req.invoked_as == "release" => {
            Trigger::Explicit
        }
        _ => Trigger::Other,
    }
}

async fn open(
    input: &StageInput<'_>,
    gh: &GitHub,
    mut rollup: RollupPr,
    mut shape: RollupShape,
) -> Result<Evaluated> {
    let event_pr = input.pr;
    // The base as it is now: a pull request retargeted since the event is judged under
    // its new base's policy (one more request, only then).
    let policy: Cow<Policy> = match rollup.base_ref_name.as_str() {
        "" => Cow::Borrowed(input.policy),
        base if base == event_pr.base_ref => Cow::Borrowed(input.policy),
        base => {
            Cow::Owned(policy_source::load(input.env, &input.req.policy, Some(gh), base).await?)
        }
    };
    let require_label = require_label(&policy);
    let mut reads = 1;
    // Only worth a pause when the answer could lead to a merge at all.
    let worth_asking = |r: &RollupPr| {
        !r.is_draft
            && r.auto_merge_request.is_none()
            && !r.is_in_merge_queue
            && require_label.is_none_or(|l| r.labels.iter().any(|n| n.name == l))
    };
    while mergeable(&rollup) == Mergeable::Unknown
        && reads < MERGEABLE_READS
        && worth_asking(&rollup)
    {
        pause(input.env, reads).await;
        rollup = match gh
            .pull_rollup(event_pr.number, false, None, &mut shape)
            .await?
        {
            Some(again) if !again.merged => again,
            _ => break,
        };
        reads += 1;
    }
    let live = live_pull_request(event_pr, &rollup);
    let diff: (DiffFacts, Vec<ContextCheck>);
    let pipeline = pipeline(input.env, gh, &rollup, false, &mut shape).await?;
    let commits = listed_commits(gh, &rollup).await?;
    let actor = classify(
        &policy.actors.agents,
        &ActorFacts {
            author: Some(&live.author),
            head: &live.head_ref,
            labels: Some(&live.labels),
            commits: Some(Commits {
                listed: &commits.listed,
                total: commits.total,
            }),
        },
    );
    for warning in &actor.warnings {
        input
            .env
            .runner
            .annotate(Level::Warning, "council release: actors", &warning.plain());
    }
    let open = OpenFacts {
        head_sha: live.head_sha.clone(),
        event_head: event_pr.head_sha.clone(),
        draft: rollup.is_draft,
        mergeable: mergeable(&rollup),
        reads,
        labels: live.labels.clone(),
        reviews: rollup
            .latest_opinionated_reviews
            .iter()
            .map(|r| ReviewFact {
                login: r
                    .author
                    .as_ref()
                    .map(|a| a.rest_login())
                    .unwrap_or_default(),
                state: r.state.to_ascii_uppercase(),
                bot: r.author.as_ref().is_some_and(|a| a.typename == "Bot"),
                commit: r
                    .commit
                    .as_ref()
                    .map(|c| c.oid.clone())
                    .filter(|oid| !oid.is_empty()),
            })
            .collect(),
        auto_merge: rollup.auto_merge_request.as_ref().map(|a| AutoMerge {
            enabled_by: a
                .enabled_by
                .as_ref()
                .map(|b| b.rest_login())
                .unwrap_or_default(),
            method: a.merge_method.clone(),
        }),
        in_merge_queue: rollup.is_in_merge_queue,
        author: live.author.clone(),
        commit_authors: commits.authors,
        queued_before_a_move: false,
    };
    let mut stage = ReleaseStage {
        pr: &live,
        policy: &policy,
        facts: ReleaseFacts {
            policy: &policy.release,
            require_label,
            pipeline,
            open: Some(open),
            queue: policy.queue.enabled,
            actor: Some(Classified {
                actor: &actor,
                rules: &policy.actors.agent,
            }),
        },
        review: None,
        pull_id: &rollup.id,
    };
    if waits_only_for_review(&stage) {
        diff = read_diff(gh, &live, &policy).await?;
        stage.review = Some(ReviewReading {
            diff: &diff.0,
            context_files: &diff.1,
        });
    }
    let mut result = decide(&stage);
    // Labelled already and every gate passing: was the label put there for this head
    // and this base?
    // One read of the issue timeline, only then (the queue's own runs read it anyway).
    if !input.for_queue && in_line_already(&stage, &result) {
        let timeline = gh.timeline(live.number).await?;
        let (_, moved) = council_protocol::queue::label_time(&timeline);
        let moved = moved || council_protocol::queue::retargeted_since_label(&timeline);
        if let (true, Some(open)) = (moved, stage.facts.open.as_mut()) {
            open.queued_before_a_move = true;
            result = decide(&stage);
        }
    }
    result.notes.extend(degraded(&shape));
    Ok(Evaluated::DecidedOn(result, Box::new(live.clone())))
}

/// The pull request's commits as GitHub lists them for the head just read: their
/// messages (trailers) and the persons credited as their authors and co-authors.
struct ListedCommits {
    listed: Vec<CommitMessage>,
    /// The pull request's commit count.
    total: u64,
    /// Logins, each once.
    authors: Vec<String>,
}

/// The commits the rollup brought (the first 100), and, for a pull request with more,
/// the next pages (one request per 100) up to [`MAX_LISTED_COMMITS`]; reading stops at a
/// page listed for another head (a push meanwhile: what was read is what is known).
async fn listed_commits(gh: &GitHub, rollup: &RollupPr) -> Result<ListedCommits> {
    let mut out = ListedCommits {
        listed: Vec::new(),
        total: 0,
        authors: Vec::new(),
    };
    let Some(first) = &rollup.listed_commits else {
        return Ok(out);
    };
    out.total = first.total_count;
    let take = |page: &council_github::pulls::ListedCommits, out: &mut ListedCommits| {
        for commit in page.iter() {
            if out.listed.len() as u64 >= MAX_LISTED_COMMITS {
                break;
            }
            for login in commit.author_logins() {
                if !out.authors.iter().any(|a| a.eq_ignore_ascii_case(login)) {
                    out.authors.push(login.to_string());
                }
            }
            out.listed.push(CommitMessage {
                sha: commit.oid.clone(),
                message: commit.message.clone(),
            });
        }
    };
    take(first, &mut out);
    let mut page_info = first.page_info.clone();
    while page_info.has_next_page && (out.listed.len() as u64) < MAX_LISTED_COMMITS {
        let Some(after) = page_info.end_cursor.clone() else {
            break;
        };
        let Some((head, page)) = gh.pull_commits(rollup.number, &after).await? else {
            break;
        };
        if head != rollup.head_ref_oid {
            break;
        }
        take(&page, &mut out);
        page_info = page.page_info;
    }
    out.total = out.total.max(out.listed.len() as u64);
    Ok(out)
}

/// The pull request as GitHub answered just now, in the shape the gates read; what the
/// query does not carry (the repositories) is the event's. Its head and base SHAs are
/// the two commits the decision is about: the diff is read between them, and the merge
/// names the head.
fn live_pull_request(event_pr: &PullRequest, rollup: &RollupPr) -> PullRequest {
    let or = |live: &str, event: &str| {
        if live.is_empty() {
            event.to_string()
        } else {
            live.to_string()
        }
    };
    PullRequest {
        number: event_pr.number,
        title: or(&rollup.title, &event_pr.title),
        body: rollup.body.clone().unwrap_or_default(),
        author: rollup
            .author
            .as_ref()
            .map_or_else(|| event_pr.author.clone(), |a| a.rest_login()),
        head_ref: or(&rollup.head_ref_name, &event_pr.head_ref),
        head_sha: or(&rollup.head_ref_oid, &event_pr.head_sha),
        base_ref: or(&rollup.base_ref_name, &event_pr.base_ref),
        base_sha: or(&rollup.base_ref_oid, &event_pr.base_sha),
        state: "open".to_string(),
        draft: rollup.is_draft,
        labels: rollup.labels.iter().map(|l| l.name.clone()).collect(),
        html_url: or(&rollup.url, &event_pr.html_url),
        changed_files: rollup.changed_files,
        additions: rollup.additions,
        deletions: rollup.deletions,
        ..event_pr.clone()
    }
}

/// The merged pull request's merge commit: checked only when GitHub says the release
/// token's own identity merged it, and reverted (with `rollback: true`) only when red and
/// not reverted by that identity already. The ledger has no say: a recorded merge proves
/// nothing, and a merge recorded nowhere is still ours when GitHub says so.
async fn post_merge(
    input: &StageInput<'_>,
    gh: &GitHub,
    rollup: RollupPr,
    mut shape: RollupShape,
) -> Result<Evaluated> {
    let pr = input.pr;
    let skip = |why: String| Ok(Evaluated::Skipped(skipped_note(Stage::Release, &why)));
    let merged_by = rollup
        .merged_by
        .as_ref()
        .map(|a| a.rest_login())
        .unwrap_or_default();
    let referrers = referrers(&rollup);
    let mut facts = MergedFacts {
        number: pr.number,
        base: &pr.base_ref,
        closed: pr.state == "closed",
        trigger: trigger(input),
        merged_by: &merged_by,
        release_token: input.clients.release.is_some(),
        release_identity: None,
        referrers: &referrers,
    };
    // The event alone may rule it out: then no request is made for the identity.
    if let Err(why) = merged::triggered(&facts) {
        return skip(why);
    }
    let identity = match input.clients.release.as_ref() {
        Some(release) => release.identity().await.map(|i| i.login),
        None => None,
    };
    facts.release_identity = identity.as_deref();
    if let Err(why) = merged::may_check(&facts) {
        return skip(why);
    }
    let pipeline = pipeline(input.env, gh, &rollup, true, &mut shape).await?;
    let stage = ReleaseStage {
        pr,
        policy: input.policy,
        facts: ReleaseFacts {
            policy: &input.policy.release,
            require_label: require_label(input.policy),
            pipeline,
            open: None,
            queue: input.policy.queue.enabled,
            actor: None,
        },
        review: None,
        pull_id: &rollup.id,
    };
    let mut result = decide(&stage);
    result.notes.extend(degraded(&shape));
    Ok(Evaluated::Decided(result))
}

/// The pull requests that refer to a merged one (its revert among them), as the
/// post-merge rule reads them.
fn referrers(rollup: &RollupPr) -> Vec<Referrer> {
    rollup
        .timeline_items
        .iter()
        .filter_map(|item| {
            let source = item.source.as_ref()?;
            Some(Referrer {
                number: source.number?,
                head_ref: source.head_ref_name.clone()?,
                author: source
                    .author
                    .as_ref()
                    .map(|a| a.rest_login())
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// A summary note when the server did not know some fields of the query.
fn degraded(shape: &RollupShape) -> Option<Message> {
    (!shape.dropped.is_empty()).then(|| {
        Message::new().text(format!(
            "this GitHub does not know {}: decided without {}",
            shape.dropped.join(", "),
            if shape.dropped.len() == 1 {
                "it"
            } else {
                "them"
            }
        ))
    })
}

/// `release.require_label`: unset means the review stage's `approve_label`, empty means
/// none.
fn require_label(policy: &Policy) -> Option<&str> {
    let label = match &policy.release.require_label {
        Some(label) => label.as_str(),
        None => policy.review.approve_label.as_str(),
    };
    (!label.is_empty()).then_some(label)
}

fn mergeable(rollup: &RollupPr) -> Mergeable {
    Mergeable::of(&rollup.mergeable, &rollup.merge_state_status)
}

/// A short pause between reads of a mergeability GitHub is still computing, never past
/// the run's deadline.
async fn pause(env: &RunEnv, reads: u32) {
    let wait = env.retry.base_delay * 2u32.pow(reads);
    let wait = env
        .retry
        .remaining()
        .map_or(wait, |left| wait.min(left))
        .min(Duration::from_secs(5));
    tokio::time::sleep(wait).await;
}

/// Every check on the decisive commit (the head, or the merge commit), further pages
/// read as needed, this run's own job left out.
async fn pipeline(
    env: &RunEnv,
    gh: &GitHub,
    first: &RollupPr,
    merged: bool,
    shape: &mut RollupShape,
) -> Result<Pipeline> {
    let number = first.number;
    let Some(commit) = first.decisive_commit() else {
        return Err(Error::Api(format!(
            "pull request #{number}: GitHub's answer names no {} commit",
            if merged { "merge" } else { "head" }
        )));
    };
    let sha = commit.oid.clone();
    let mut nodes: Vec<ContextNode> = Vec::new();
    let mut page = commit.status_check_rollup.clone().map(|r| r.contexts);
    let mut pages = 1;
    let mut complete = true;
    while let Some(contexts) = page.take() {
        nodes.extend(contexts.nodes.into_iter().flatten());
        if !contexts.page_info.has_next_page {
            break;
        }
        if pages >= MAX_CHECK_PAGES {
            complete = false;
            break;
        }
        let after = contexts.page_info.end_cursor.unwrap_or_default();
        let next = gh.pull_rollup(number, merged, Some(&after), shape).await?;
        pages += 1;
        match next.as_ref().and_then(RollupPr::decisive_commit) {
            // The head moved between pages: what was read is not one commit's checks.
            Some(c) if c.oid == sha => page = c.status_check_rollup.clone().map(|r| r.contexts),
            _ => complete = false,
        }
    }
    let checks: Vec<CheckFact> = nodes.iter().filter_map(check_fact).collect();
    let (own, own_unknown) = own_checks(env, gh, &nodes, &sha).await;
    let (own, checks): (Vec<CheckFact>, Vec<CheckFact>) = checks
        .into_iter()
        .partition(|c| c.id.is_some_and(|id| own.contains(&id)));
    Ok(Pipeline {
        sha,
        merge_commit: merged,
        checks,
        own,
        own_unknown,
        complete,
    })
}

fn check_fact(node: &ContextNode) -> Option<CheckFact> {
    Some(match node {
        ContextNode::CheckRun(run) => CheckFact {
            name: run.name.clone(),
            kind: CheckKind::Run,
            state: CheckState::of_check_run(&run.status, run.conclusion.as_deref()),
            id: run.database_id,
            url: run.details_url.clone(),
        },
        ContextNode::StatusContext(status) => CheckFact {
            name: status.context.clone(),
            kind: CheckKind::Status,
            state: CheckState::of_status(&status.state),
            id: None,
            url: status.target_url.clone(),
        },
        ContextNode::Other => return None,
    })
}

/// The check run ids of this very job, when a GitHub Actions check is still running on
/// the commit (else nothing of ours can be pending there, and no request is made); or
/// why it could not be told apart.
async fn own_checks(
    env: &RunEnv,
    gh: &GitHub,
    nodes: &[ContextNode],
    sha: &str,
) -> (Vec<u64>, Option<String>) {
    let running = nodes.iter().any(|n| {
        matches!(n, ContextNode::CheckRun(run)
            if run.app_slug() == "github-actions" && !run.status.eq_ignore_ascii_case("completed"))
    });
    if !env.in_actions || env.run.run_id == "local" || !running {
        return (Vec::new(), None);
    }
    match gh.run_jobs(&env.run.run_id).await {
        Ok(jobs) => {
            let running: Vec<_> = jobs
                .iter()
                .filter(|j| !j.status.eq_ignore_ascii_case("completed"))
                .collect();
            let key = env.run.job.as_str();
            let named: Vec<_> = running
                .iter()
                .filter(|j| j.name == key || j.name.starts_with(&format!("{key} (")))
                .collect();
            let ours: Vec<u64> = match (named.as_slice(), running.as_slice()) {
                ([], [only]) => only.check_run_id().into_iter().collect(),
                (named, _) => named.iter().filter_map(|j| j.check_run_id()).collect(),
            };
            let unknown =
                (ours.is_empty() && running.iter().any(|j| j.head_sha == sha)).then(|| {
                    format!(
                        "{} jobs of this workflow run are running and none is named `{key}`; \
                         leave the council job without a `name:`",
                        running.len()
                    )
                });
            (ours, unknown)
        }
        Err(e) => (
            Vec::new(),
            Some(format!(
                "this run's jobs could not be read ({e}); grant `actions: read`"
            )),
        ),
    }
}
