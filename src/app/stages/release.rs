//! What the release stage reads before it decides, fewest requests first: one GraphQL
//! query (the pull request, its mergeability, labels, each writer's latest review,
//! auto-merge, merge queue and every check on the decisive commit, with the token's
//! identity on the side), the stored ledger (did the review stage approve this head?
//! was this merge ours?), and, only when a job of GitHub Actions is still running on
//! the commit, this workflow run's jobs (to leave this very job out). A mergeability
//! GitHub is still computing is re-read a few times, briefly; nothing here waits for CI:
//! the next check, status or review event decides again.

use std::time::Duration;

use super::{Evaluated, StageInput, skipped_note};
use crate::app::ledger::Ledger;
use crate::audit::Entry;
use crate::audit::derive::{decision, release_done, review_approved_for};
use crate::audit::ledger::Links;
use crate::error::{Error, Result};
use crate::gates::release::{
    AgentApproval, AutoMerge, CheckFact, CheckKind, CheckState, Mergeable, OpenFacts, Pipeline,
    ReleaseFacts, ReviewFact,
};
use crate::github::GitHub;
use crate::github::pulls::{ContextNode, MAX_CHECK_PAGES, RollupPr};
use crate::settings::{CommandKind, Settings};
use crate::stage::Stage;
use crate::stage::release::{ReleaseStage, evaluate as decide};

/// Reads of a pull request whose mergeability GitHub is still computing, the first
/// included; the pauses between them double from twice the retry base (1 s, 2 s).
const MERGEABLE_READS: u32 = 3;

pub async fn evaluate(input: &StageInput<'_>) -> Result<Evaluated> {
    let gh = input.clients.gh.as_ref().ok_or_else(|| {
        Error::no_token(
            "release reads the pull request through the API (`release-token` is only for \
             the merge)",
        )
    })?;
    let pr = input.pr;
    // A closed pull request is asked about its merge commit's checks, an open one about
    // its head's: one query either way.
    let not_found = || {
        Error::Api(format!(
            "pull request #{} was not found in {}",
            pr.number, gh.repo
        ))
    };
    let mut rollup = gh
        .pull_rollup(pr.number, pr.state == "closed", None)
        .await?
        .ok_or_else(not_found)?;
    if rollup.state == "OPEN" && pr.state == "closed" {
        // Reopened since the event: ask about its head instead.
        rollup = gh
            .pull_rollup(pr.number, false, None)
            .await?
            .ok_or_else(not_found)?;
    }
    let skip = |why: String| Ok(Evaluated::Skipped(skipped_note(Stage::Release, &why)));
    if rollup.merged {
        if pr.state != "closed" || !post_merge_allowed(input) {
            return skip(format!(
                "#{} is already merged; its post-merge check runs on a push to (or a \
                 workflow_run on) {}",
                pr.number, pr.base_ref
            ));
        }
        return post_merge(input, gh, rollup).await;
    }
    if rollup.state != "OPEN" {
        return skip(format!("#{} is closed without being merged", pr.number));
    }
    open(input, gh, rollup).await
}

/// After the merge only a push to the base, a workflow run there, or an explicit
/// `release` command looks at the merge commit (SPEC: rollback runs on those).
fn post_merge_allowed(input: &StageInput) -> bool {
    matches!(input.event.name.as_str(), "push" | "workflow_run")
        || input.settings.command == CommandKind::Run(Stage::Release)
}

async fn open(input: &StageInput<'_>, gh: &GitHub, mut rollup: RollupPr) -> Result<Evaluated> {
    let pr = input.pr;
    let timeline = stored_timeline(input, gh).await?;
    let require_label = require_label(input);
    let mut reads = 1;
    // Only worth a pause when the answer could lead to a merge at all.
    let worth_asking = |r: &RollupPr| {
        approval(&timeline, &r.head_ref_oid) == AgentApproval::Head
            && !r.is_draft
            && r.auto_merge_request.is_none()
            && !r.is_in_merge_queue
            && require_label.is_none_or(|l| r.labels.iter().any(|n| n.name == l))
    };
    while mergeable(&rollup) == Mergeable::Unknown
        && reads < MERGEABLE_READS
        && worth_asking(&rollup)
    {
        pause(input.settings, reads).await;
        rollup = match gh.pull_rollup(pr.number, false, None).await? {
            Some(again) if !again.merged => again,
            _ => break,
        };
        reads += 1;
    }
    let head = rollup.head_ref_oid.clone();
    let pipeline = pipeline(input.settings, gh, pr.number, &rollup, false).await?;
    let open = OpenFacts {
        approval: approval(&timeline, &head),
        head_sha: head,
        event_head: pr.head_sha.clone(),
        draft: rollup.is_draft,
        mergeable: mergeable(&rollup),
        reads,
        labels: rollup.labels.iter().map(|l| l.name.clone()).collect(),
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
    };
    Ok(decided(input, &rollup, pipeline, Some(open), require_label))
}

async fn post_merge(input: &StageInput<'_>, gh: &GitHub, rollup: RollupPr) -> Result<Evaluated> {
    let pr = input.pr;
    let timeline = stored_timeline(input, gh).await?;
    let skip = |why: String| Ok(Evaluated::Skipped(skipped_note(Stage::Release, &why)));
    if !release_done(&timeline, "action:merge") {
        return skip(format!(
            "#{} was not merged by council's release stage (its Context Object records no \
             merge), so its merge commit is not council's to check or revert",
            pr.number
        ));
    }
    if release_done(&timeline, "action:revert") {
        return skip(format!("#{} was already reverted (ROLLED_BACK)", pr.number));
    }
    let pipeline = pipeline(input.settings, gh, pr.number, &rollup, true).await?;
    Ok(decided(
        input,
        &rollup,
        pipeline,
        None,
        require_label(input),
    ))
}

fn decided(
    input: &StageInput,
    rollup: &RollupPr,
    pipeline: Pipeline,
    open: Option<OpenFacts>,
    require_label: Option<&str>,
) -> Evaluated {
    Evaluated::Decided(decide(&ReleaseStage {
        pr: input.pr,
        facts: ReleaseFacts {
            policy: &input.policy.release,
            require_label,
            pipeline,
            open,
        },
        pull_id: &rollup.id,
        policy_source: &input.policy.source,
    }))
}

/// `release.require_label`: unset means the review stage's `approve_label`, empty means
/// none.
fn require_label<'p>(input: &StageInput<'p>) -> Option<&'p str> {
    let policy = input.policy;
    let label = match &policy.release.require_label {
        Some(label) => label.as_str(),
        None => policy.review.approve_label.as_str(),
    };
    (!label.is_empty()).then_some(label)
}

/// The stored timeline, read before deciding (one request: the identity came with the
/// rollup). A ledger that cannot be read leaves the verdict uncomputed (exit 3): merging
/// without knowing whether the review stage approved is not an option.
async fn stored_timeline(input: &StageInput<'_>, gh: &GitHub) -> Result<Vec<Entry>> {
    let ledger = Ledger {
        settings: input.settings,
        gh: Some(gh),
        pr: input.pr,
        links: Links::default(),
        stage: Stage::Release,
    };
    Ok(ledger
        .read()
        .await?
        .map(|stored| stored.context.timeline)
        .unwrap_or_default())
}

/// What the newest `agent_review` decision says about `head`.
fn approval(timeline: &[Entry], head: &str) -> AgentApproval {
    if review_approved_for(timeline, head) {
        return AgentApproval::Head;
    }
    let review = decision(timeline, Stage::Review);
    match review.sha() {
        "" => AgentApproval::None,
        sha => AgentApproval::Other {
            sha: sha.to_string(),
            approved: review.verdict() == Some(true),
        },
    }
}

fn mergeable(rollup: &RollupPr) -> Mergeable {
    Mergeable::of(&rollup.mergeable, &rollup.merge_state_status)
}

/// A short pause between reads of a mergeability GitHub is still computing, never past
/// the run's deadline.
async fn pause(settings: &Settings, reads: u32) {
    let wait = settings.retry.base_delay * 2u32.pow(reads);
    let wait = settings
        .retry
        .remaining()
        .map_or(wait, |left| wait.min(left))
        .min(Duration::from_secs(5));
    tokio::time::sleep(wait).await;
}

/// Every check on the decisive commit (the head, or the merge commit), further pages
/// read as needed, this run's own job left out.
async fn pipeline(
    settings: &Settings,
    gh: &GitHub,
    number: u64,
    first: &RollupPr,
    merged: bool,
) -> Result<Pipeline> {
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
        let next = gh.pull_rollup(number, merged, Some(&after)).await?;
        pages += 1;
        match next.as_ref().and_then(RollupPr::decisive_commit) {
            // The head moved between pages: what was read is not one commit's checks.
            Some(c) if c.oid == sha => page = c.status_check_rollup.clone().map(|r| r.contexts),
            _ => complete = false,
        }
    }
    let checks: Vec<CheckFact> = nodes.iter().filter_map(check_fact).collect();
    let (own, own_unknown) = own_checks(settings, gh, &nodes, &sha).await;
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
    settings: &Settings,
    gh: &GitHub,
    nodes: &[ContextNode],
    sha: &str,
) -> (Vec<u64>, Option<String>) {
    let running = nodes.iter().any(|n| {
        matches!(n, ContextNode::CheckRun(run)
            if run.app_slug() == "github-actions" && !run.status.eq_ignore_ascii_case("completed"))
    });
    if !settings.in_actions || settings.run.run_id == "local" || !running {
        return (Vec::new(), None);
    }
    match gh.run_jobs(&settings.run.run_id).await {
        Ok(jobs) => {
            let running: Vec<_> = jobs
                .iter()
                .filter(|j| !j.status.eq_ignore_ascii_case("completed"))
                .collect();
            let key = settings.run.job.as_str();
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
