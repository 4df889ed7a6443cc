//! Which merge queues an event acts on (SPEC's events table). The event alone cannot
//! tell (`queue.enabled` lives in each base's policy), so this decides at run time, with
//! as few reads as it can:
//!
//! - a `check_suite`, `workflow_run` or `status` on a commit that is no open pull
//!   request's head: when the commit is one of council's queue merges (its message, a
//!   hint) or the event names a queue branch, the queue of the base it names (one read
//!   of the commit, one of that base's policy);
//! - a `push` to a branch whose policy enables the queue (not a queue or build branch);
//! - `schedule` (and `workflow_dispatch` with `command: release`): every base with a
//!   pull request carrying the queue label or a queue branch of the default prefix.
//!
//! A base counts only when its own policy (read from it, as always) has `queue.enabled`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::Queue;
use crate::app::policy_source;
use council_github::git::CommitInfo;
use council_protocol::error::Result;
use council_protocol::policy::Policy;
use council_protocol::policy::queue::QUEUED_LABEL;
use council_protocol::queue::message;

/// The bases whose queue the event acts on, each with its policy. `found_open`: the
/// event's commit is an open pull request's head (then it is not a queue commit).
pub async fn bases_of(
    q: &Queue<'_>,
    found_open: bool,
    policies: &mut BTreeMap<String, Policy>,
) -> Result<Vec<(String, Policy)>> {
    let event = q.event;
    let candidates: Vec<String> = match event.name.as_str() {
        "check_suite" | "workflow_run" | "status" if !found_open => of_commit(q).await?,
        "push" => of_push(q),
        "schedule" | "workflow_dispatch" => every_queue(q).await?,
        _ => Vec::new(),
    };
    let mut bases = Vec::new();
    for base in candidates {
        if bases.iter().any(|(b, _): &(String, Policy)| *b == base) {
            continue;
        }
        let policy = match policies.get(&base) {
            Some(policy) => policy.clone(),
            None => {
                let policy =
                    policy_source::load(q.env, &q.req.policy, q.clients.gh.as_ref(), &base).await?;
                policies.insert(base.clone(), policy.clone());
                policy
            }
        };
        let queue = &policy.queue;
        let own_branch =
            base.starts_with(&queue.branch_prefix) || base.starts_with(&queue.build_branch(""));
        if queue.enabled && !own_branch {
            bases.push((base, policy));
        }
    }
    Ok(bases)
}

/// The base of the queue commit a check or status reports on.
async fn of_commit(q: &Queue<'_>) -> Result<Vec<String>> {
    let event = q.event;
    let sha = match event.name.as_str() {
        "check_suite" => event.str_field("check_suite.head_sha"),
        "workflow_run" => event.str_field("workflow_run.head_sha"),
        _ => event.str_field("sha"),
    }?;
    let mut bases = Vec::new();
    // The branches the event names: a queue branch of the default prefix says its base.
    let default_prefix = Policy::default_policy().queue.branch_prefix;
    for branch in event_branches(&event.payload) {
        if let Some(base) = branch.strip_prefix(&default_prefix)
            && !base.is_empty()
        {
            bases.push(base.to_string());
        }
    }
    // The commit's own message: council's queue merges name their base. A payload
    // whose commit is the event's carries it (no request); else it is read.
    if let Some(message) = payload_message(event, &sha) {
        if let Some(base) = message::read(&message)
            .and(message::title_base(&message))
            .map(str::to_string)
        {
            bases.insert(0, base);
        }
        return Ok(bases);
    }
    let Some(gh) = q.clients.gh.as_ref() else {
        return Ok(bases);
    };
    match gh.commit_info(&sha).await {
        Ok(commit) => {
            if let Some(base) = queue_base(&commit) {
                bases.insert(0, base);
            }
        }
        Err(council_github::ApiError::NotFound { .. })
        | Err(council_github::ApiError::Rejected { status: 422, .. }) => {}
        Err(e) => return Err(e.into()),
    }
    Ok(bases)
}

/// The message of the event's commit as the payload carries it, when the payload names
/// that very commit (`head_commit.id`, a status's `commit.sha`).
fn payload_message(event: &council_protocol::event::Event, sha: &str) -> Option<String> {
    let (id, message) = match event.name.as_str() {
        "check_suite" => (
            "/check_suite/head_commit/id",
            "/check_suite/head_commit/message",
        ),
        "workflow_run" => (
            "/workflow_run/head_commit/id",
            "/workflow_run/head_commit/message",
        ),
        _ => ("/commit/sha", "/commit/commit/message"),
    };
    let payload = &event.payload;
    (payload.pointer(id).and_then(Value::as_str) == Some(sha))
        .then(|| payload.pointer(message).and_then(Value::as_str))
        .flatten()
        .map(str::to_string)
}

fn queue_base(commit: &CommitInfo) -> Option<String> {
    if commit.parents.len() != 2 || message::read(&commit.message).is_none() {
        return None;
    }
    message::title_base(&commit.message).map(str::to_string)
}

/// `check_suite.head_branch`, `workflow_run.head_branch`, a status's `branches`.
fn event_branches(payload: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for pointer in ["/check_suite/head_branch", "/workflow_run/head_branch"] {
        if let Some(name) = payload.pointer(pointer).and_then(Value::as_str) {
            names.push(name.to_string());
        }
    }
    if let Some(list) = payload.get("branches").and_then(Value::as_array) {
        names.extend(
            list.iter()
                .filter_map(|b| b.get("name").and_then(Value::as_str))
                .map(str::to_string),
        );
    }
    names
}

fn of_push(q: &Queue<'_>) -> Vec<String> {
    let event = q.event;
    let (Ok(git_ref), Ok(after)) = (event.str_field("ref"), event.str_field("after")) else {
        return Vec::new();
    };
    match git_ref.strip_prefix("refs/heads/") {
        Some(branch) if !after.bytes().all(|b| b == b'0') => vec![branch.to_string()],
        _ => Vec::new(),
    }
}

/// Every base with a pull request in line, and every base with a queue branch of the
/// default prefix (a queue whose last pull request left still has a branch to clean up).
async fn every_queue(q: &Queue<'_>) -> Result<Vec<String>> {
    let Some(gh) = q.clients.gh.as_ref() else {
        return Ok(Vec::new());
    };
    let mut bases: Vec<String> = Vec::new();
    for pull in gh.open_pulls_labelled(QUEUED_LABEL, None).await? {
        if let Some(base) = pull.pointer("/base/ref").and_then(Value::as_str)
            && !bases.iter().any(|b| b == base)
        {
            bases.push(base.to_string());
        }
    }
    let prefix = Policy::default_policy().queue.branch_prefix;
    for (branch, _) in gh.branches_starting(&prefix).await? {
        if let Some(base) = branch.strip_prefix(&prefix)
            && !base.is_empty()
            && !bases.iter().any(|b| b == base)
        {
            bases.push(base.to_string());
        }
    }
    Ok(bases)
}
