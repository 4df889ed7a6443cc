//! What one queue run reads, all of it from GitHub now ([`QueueFacts`]): the base's head
//! and whether a ruleset makes it require linear history, the release token's identity,
//! the open pull requests into the base that carry the queue label (each one's timeline:
//! when the label was last added, whether its head moved since), the queue branch, the
//! first-parent walk from its commit and the checks on it, and the pull requests its
//! merges name. "Now" is GitHub's clock (the `Date` of its answers), which dated the
//! queue commit: the timeout counts on one clock.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::Queue;
use crate::env::RunEnv;
use council_github::git::{CommitChecks, CommitInfo};
use council_github::{GitHub, RepoName};
use council_protocol::error::{Error, Result};
use council_protocol::event::PullRequest;
use council_protocol::gates::release::{CheckFact, CheckKind, CheckState, Pipeline};
use council_protocol::policy::Policy;
use council_protocol::policy::queue::{MAX_BATCH, QUEUED_LABEL, has_queued_label};
use council_protocol::queue::{
    BaseFacts, CommitFact, PrState, QueueBranch, QueueFacts, QueuedPr, label_time, next_in_chain,
    retargeted_since_label,
};

/// The facts, and the pull requests they name in the shape the release stage and the
/// ledger take.
pub struct Read {
    pub facts: QueueFacts,
    pub pulls: BTreeMap<u64, PullRequest>,
}

/// What reading the queue takes: the run's environment (this run's own job), the
/// workflow token's client (every read), the release token's (its identity), the
/// repository.
pub struct Reader<'a> {
    pub env: &'a RunEnv,
    pub gh: &'a GitHub,
    pub release: Option<&'a GitHub>,
    pub repo: &'a RepoName,
}

impl<'a> Reader<'a> {
    pub fn of(q: &'a Queue<'_>) -> Result<Reader<'a>> {
        let gh = q.clients.gh.as_ref().ok_or_else(|| {
            crate::exit::no_token(
                "the merge queue reads its pull requests and branches through the API",
            )
        })?;
        Ok(Reader {
            env: q.env,
            gh,
            release: q.clients.release.as_ref(),
            repo: &q.clients.repo,
        })
    }
}

pub async fn read(r: &Reader<'_>, base: &str, policy: &Policy) -> Result<Read> {
    let gh = r.gh;
    let base_sha = gh.branch_head(base).await?.ok_or_else(|| {
        Error::Api(format!(
            "the merge queue's base `{base}` is not a branch of {}",
            r.repo
        ))
    })?;
    let linear_history = linear_history(gh, base).await?;
    let release_login = match r.release {
        None => None,
        Some(release) => Some(
            release
                .identity()
                .await
                .ok_or_else(|| {
                    Error::Api(
                        "the release token's identity could not be read: the queue lands only \
                         commits that identity made, so it does not run"
                            .to_string(),
                    )
                })?
                .login,
        ),
    };
    let mut pulls = BTreeMap::new();
    let mut queued = Vec::new();
    for value in gh.open_pulls_labelled(QUEUED_LABEL, Some(base)).await? {
        let pr = PullRequest::from_api(&value, "GET /pulls")?;
        let timeline = gh.timeline(pr.number).await?;
        let (queued_at, head_moved) = label_time(&timeline);
        queued.push(QueuedPr {
            number: pr.number,
            head_sha: pr.head_sha.clone(),
            state: PrState::Open,
            labels: pr.labels.clone(),
            queued_at,
            head_moved,
            retargeted: retargeted_since_label(&timeline),
            verdict: None,
        });
        pulls.insert(pr.number, pr);
    }
    // Closed lately with the label still on (not merged: a landed pull request keeps
    // it): they leave the queue, with a note (one page, the most recently closed).
    for value in gh.recently_closed_into(base).await? {
        let pr = PullRequest::from_api(&value, "GET /pulls?state=closed")?;
        let labelled = has_queued_label(&pr.labels);
        if !labelled || state_of(&value, &pr) != PrState::Closed || pulls.contains_key(&pr.number) {
            continue;
        }
        queued.push(QueuedPr {
            number: pr.number,
            head_sha: pr.head_sha.clone(),
            state: PrState::Closed,
            labels: pr.labels.clone(),
            queued_at: None,
            head_moved: false,
            retargeted: false,
            verdict: None,
        });
        pulls.insert(pr.number, pr);
    }
    let branch_name = policy.queue.branch(base);
    let branch = match gh.branch_head(&branch_name).await? {
        None => None,
        Some(tip) => Some(queue_branch(r, &tip).await?),
    };
    // The pull requests the queue commit's merges name that are not in line (closed,
    // merged, unlabelled, retargeted): the plan tells from them why a merge no longer
    // belongs there.
    let named: Vec<u64> = branch
        .iter()
        .flat_map(|b| b.chain.links.iter().filter_map(|l| l.note.as_ref()))
        .map(|n| n.pull)
        .filter(|n| !pulls.contains_key(n))
        .collect();
    for number in named {
        let value = match gh.get_pull(number).await {
            Ok(value) => value,
            Err(council_github::ApiError::NotFound { .. }) => continue,
            Err(e) => return Err(e.into()),
        };
        let pr = PullRequest::from_api(&value, &format!("GET /pulls/{number}"))?;
        queued.push(QueuedPr {
            number,
            head_sha: pr.head_sha.clone(),
            state: state_of(&value, &pr),
            labels: pr.labels.clone(),
            queued_at: None,
            head_moved: false,
            retargeted: false,
            verdict: None,
        });
        pulls.insert(number, pr);
    }
    let now = gh.server_time().unwrap_or_else(Utc::now);
    Ok(Read {
        facts: QueueFacts {
            repository_url: format!("{}/{}", r.env.endpoints.server_url, r.repo),
            base: BaseFacts {
                name: base.to_string(),
                sha: base_sha,
                linear_history,
            },
            release_login,
            pulls: queued,
            branch,
            now,
        },
        pulls,
    })
}

/// Whether a queue commit of `base` is in test or being built (its queue branch or its
/// build branch exists): two reads.
pub async fn busy(r: &Reader<'_>, base: &str, policy: &Policy) -> Result<bool> {
    let gh = r.gh;
    for branch in [policy.queue.branch(base), policy.queue.build_branch(base)] {
        if gh.branch_head(&branch).await?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A ruleset rule that makes the base require linear history, named; `None` when the
/// rules say nothing of it (classic branch protection is not readable without admin: its
/// refusal of the fast-forward names it instead).
async fn linear_history(gh: &GitHub, base: &str) -> Result<Option<String>> {
    let rules = gh.branch_rules(base).await?;
    let Some(rule) = rules.iter().find(|r| r.kind == "required_linear_history") else {
        return Ok(None);
    };
    let ruleset = match rule.ruleset_id {
        Some(id) => match gh.ruleset_name(id).await {
            Some(name) => format!("ruleset \"{name}\""),
            None => format!("ruleset {id}"),
        },
        None => "a ruleset".to_string(),
    };
    Ok(Some(format!("{ruleset}: Require linear history")))
}

fn state_of(value: &Value, pr: &PullRequest) -> PrState {
    let merged = value.get("merged_at").is_some_and(|v| !v.is_null())
        || value.get("merged").and_then(Value::as_bool) == Some(true);
    match (merged, pr.state.as_str()) {
        (true, _) => PrState::Merged,
        (false, "open") => PrState::Open,
        _ => PrState::Closed,
    }
}

/// The queue branch at `tip`: the first-parent walk down council's merges (at most a
/// batch's worth) and the checks on its commit.
async fn queue_branch(r: &Reader<'_>, tip: &str) -> Result<QueueBranch> {
    let gh = r.gh;
    let mut walk = vec![commit_fact(gh.commit_info(tip).await?)];
    while walk.len() < MAX_BATCH as usize {
        let Some(parent) = walk.last().and_then(next_in_chain).map(str::to_string) else {
            break;
        };
        walk.push(commit_fact(gh.commit_info(&parent).await?));
    }
    let checks = gh.commit_checks(tip).await?;
    let pipeline = pipeline(r, tip, checks).await;
    QueueBranch::from_commits(&walk, pipeline)
        .ok_or_else(|| Error::Api(format!("the queue branch's commit {tip} could not be read")))
}

fn commit_fact(info: CommitInfo) -> CommitFact {
    CommitFact {
        verified_committer: info.made_by().map(str::to_string),
        committed_at: DateTime::parse_from_rfc3339(&info.committed_at)
            .map_or_else(|_| Utc::now(), |t| t.with_timezone(&Utc)),
        sha: info.sha,
        parents: info.parents,
        message: info.message,
    }
}

/// The checks on the queue commit as the gates read them, this run's own job left out
/// (it would wait for itself) when a GitHub Actions check is still running there.
async fn pipeline(r: &Reader<'_>, sha: &str, read: CommitChecks) -> Pipeline {
    let running_actions = read
        .runs
        .iter()
        .any(|r| r.app_slug() == "github-actions" && !r.status.eq_ignore_ascii_case("completed"));
    let (own_ids, own_unknown) = match running_actions {
        true => own_jobs(r).await,
        false => (Vec::new(), None),
    };
    let mut checks = Vec::new();
    let mut own = Vec::new();
    for run in &read.runs {
        let fact = CheckFact {
            name: run.name.clone(),
            kind: CheckKind::Run,
            state: CheckState::of_check_run(&run.status, run.conclusion.as_deref()),
            id: Some(run.id),
            url: run.details_url.clone().or_else(|| run.html_url.clone()),
        };
        match own_ids.contains(&run.id) {
            true => own.push(fact),
            false => checks.push(fact),
        }
    }
    checks.extend(read.statuses.iter().map(|s| CheckFact {
        name: s.context.clone(),
        kind: CheckKind::Status,
        state: CheckState::of_status(&s.state),
        id: None,
        url: s.target_url.clone(),
    }));
    Pipeline {
        sha: sha.to_string(),
        merge_commit: false,
        checks,
        own,
        own_unknown,
        complete: read.complete,
    }
}

/// This workflow run's running jobs named as this step's job: their check runs.
async fn own_jobs(r: &Reader<'_>) -> (Vec<u64>, Option<String>) {
    let (env, gh) = (r.env, r.gh);
    if !env.in_actions || env.run.run_id == "local" {
        return (Vec::new(), None);
    }
    match gh.run_jobs(&env.run.run_id).await {
        Ok(jobs) => {
            let key = env.run.job.as_str();
            let ids = jobs
                .iter()
                .filter(|j| !j.status.eq_ignore_ascii_case("completed"))
                .filter(|j| j.name == key || j.name.starts_with(&format!("{key} (")))
                .filter_map(|j| j.check_run_id())
                .collect();
            (ids, None)
        }
        Err(e) => (
            Vec::new(),
            Some(format!(
                "this run's jobs could not be read ({e}); grant `actions: read`"
            )),
        ),
    }
}
