//! The queue as an agent asks about it (MCP `queue_status`, `pr_status`), read the way a
//! queue run reads it and decided by nothing: the pull requests in line in order, and
//! the queue commit in test with its checks and the queue gate's verdict on them now.
//! Nothing is written and no gate of a pull request is decided (that costs the release
//! stage's reads per pull request): a pull request in line is one the label, its state
//! and its timeline keep there.

use serde_json::{Value, json};

use super::facts::{self, Reader};
use crate::env::RunEnv;
use council_github::{GitHub, RepoName};
use council_protocol::error::Result;
use council_protocol::gates::json::v1::GateVerdict;
use council_protocol::gates::release::{CheckState, Pipeline};
use council_protocol::gates::{QueueCheck, queue_verdict};
use council_protocol::policy::Policy;
use council_protocol::queue::{QueueBranch, QueueFacts, line};

/// The queue of `base` as GitHub says it is now.
pub async fn read(
    env: &RunEnv,
    gh: &GitHub,
    repo: &RepoName,
    base: &str,
    policy: &Policy,
) -> Result<QueueFacts> {
    let reader = Reader {
        env,
        gh,
        release: None,
        repo,
    };
    Ok(facts::read(&reader, base, policy).await?.facts)
}

/// `queue_status`'s answer.
pub fn status_json(facts: &QueueFacts, policy: &Policy) -> Value {
    let q = &policy.queue;
    let in_test = testing_numbers(facts);
    let line: Vec<Value> = line(facts, q)
        .iter()
        .enumerate()
        .map(|(i, p)| {
            json!({
                "position": i + 1,
                "pr": p.number,
                "head_sha": p.head_sha,
                "queued_at": p.queued_at.map(|t| t.to_rfc3339()),
                "priority": q.is_priority(&p.labels),
                "testing": in_test.contains(&p.number),
            })
        })
        .collect();
    json!({
        "base": facts.base.name,
        "base_sha": facts.base.sha,
        "enabled": q.enabled,
        "policy": policy.source,
        "queue_branch": q.branch(&facts.base.name),
        "batch_size": q.batch_size,
        "timeout_minutes": q.timeout_minutes,
        "line": line,
        "testing": facts.branch.as_ref().map(|b| testing_json(facts, policy, b)),
    })
}

/// Where pull request `pr` stands in its base's queue (`pr_status`'s `queue`).
pub fn place_json(facts: &QueueFacts, policy: &Policy, pr: u64) -> Value {
    let line = line(facts, &policy.queue);
    let place = line.iter().position(|p| p.number == pr).map(|i| i + 1);
    let testing = testing_numbers(facts).contains(&pr);
    json!({
        "base": facts.base.name,
        "enabled": policy.queue.enabled,
        "in_line": place.is_some(),
        "position": place,
        "of": line.len(),
        "testing": testing,
        "queue_sha": facts.branch.as_ref().filter(|_| testing).map(|b| b.sha.clone()),
    })
}

/// The pull requests the queue commit's merges hold (by their heads, else their
/// messages).
fn testing_numbers(facts: &QueueFacts) -> Vec<u64> {
    let Some(branch) = &facts.branch else {
        return Vec::new();
    };
    branch
        .chain
        .links
        .iter()
        .filter_map(|l| {
            facts
                .pulls
                .iter()
                .find(|p| p.head_sha == l.head)
                .map(|p| p.number)
                .or(l.note.as_ref().map(|n| n.pull))
        })
        .collect()
}

fn testing_json(facts: &QueueFacts, policy: &Policy, branch: &QueueBranch) -> Value {
    let q = &policy.queue;
    let checks = if branch.checks.sha == branch.sha {
        branch.checks.clone()
    } else {
        Pipeline {
            sha: branch.sha.clone(),
            complete: true,
            ..Pipeline::default()
        }
    };
    let age = (facts.now - branch.created_at).num_minutes().max(0);
    let name = q.branch(&facts.base.name);
    let gate = queue_verdict(&QueueCheck {
        pipeline: &checks,
        branch: &name,
        required: &q.required_checks,
        required_key: q.required_checks_key,
        neutral_is_green: policy.release.neutral_is_green,
        age_minutes: age,
        timeout_minutes: q.timeout_minutes,
    });
    let merges: Vec<Value> = branch
        .chain
        .links
        .iter()
        .map(|l| {
            json!({
                "sha": l.sha,
                "head": l.head,
                "pr": l.note.as_ref().map(|n| n.pull),
                "made_by": l.made_by,
            })
        })
        .collect();
    json!({
        "sha": branch.sha,
        "built_on": branch.chain.built_on,
        "created_at": branch.created_at.to_rfc3339(),
        "age_minutes": age,
        "pull_requests": testing_numbers(facts),
        "merges": merges,
        "problem": branch.chain.problem,
        "base_moved": !branch.chain.built_on.is_empty() && branch.chain.built_on != facts.base.sha,
        "checks": checks.checks.iter().map(|c| json!({
            "name": c.name,
            "state": state_word(&c.state),
            "url": c.url,
        })).collect::<Vec<_>>(),
        "verdict": GateVerdict::from(&gate),
    })
}

fn state_word(state: &CheckState) -> String {
    match state {
        CheckState::Success => "success".to_string(),
        CheckState::Neutral(w) | CheckState::Pending(w) | CheckState::Red(w) => w.clone(),
    }
}
