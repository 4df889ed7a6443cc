//! Webhook payloads that agree with the world: the real fixture's envelope (repository,
//! sender, installation) around the world's own pull request or commit, so the event a
//! run starts from and the API answers it then reads tell the same story. The payloads
//! are this repository's test data, so this is the tests' extension of the fake
//! (`use crate::support::events::Events as _`), not part of its crate.

use serde_json::{Value, json};

use super::fake_github::FakeGitHub;
use super::fixture;
use super::routes::{lock, pull_json};

/// Events from the world's pull requests and commits.
pub trait Events {
    /// `pull_request.<action>` for pull request `number` as the world holds it now.
    fn pr_event(&self, action: &str, number: u64) -> Value;
    /// `pull_request_review.submitted`: `user`'s review in `state` on the current head.
    fn review_event(&self, number: u64, user: &str, state: &str) -> Value;
    /// `status` for `context` turning `state` on commit `sha` (with the branches whose
    /// head it is).
    fn status_event(&self, sha: &str, context: &str, state: &str) -> Value;
    /// `pull_request.labeled`: `label` added to pull request `number` (the world's
    /// labels are left as they are).
    fn labeled_event(&self, number: u64, label: &str) -> Value;
    /// `check_suite.completed` on commit `sha` (its `pull_requests` left empty, as for
    /// forks: the product looks them up itself).
    fn check_suite_event(&self, sha: &str) -> Value;
    /// `workflow_run.completed` of a run on commit `sha` of `branch`, ending `conclusion`.
    fn workflow_run_event(&self, sha: &str, branch: &str, conclusion: &str) -> Value;
    /// `push` of `branch` from `before` to its head in the world now.
    fn push_event(&self, branch: &str, before: &str) -> Value;
}

impl Events for FakeGitHub {
    fn pr_event(&self, action: &str, number: u64) -> Value {
        let mut event = fixture(&format!("pull_request.{action}"));
        event["number"] = number.into();
        event["pull_request"] = pull_request_json(self, number);
        event
    }

    fn review_event(&self, number: u64, user: &str, state: &str) -> Value {
        let mut event = fixture("pull_request_review.submitted");
        let pull = pull_request_json(self, number);
        let review = &mut event["review"];
        review["user"]["login"] = user.into();
        review["state"] = state.to_ascii_lowercase().into();
        review["commit_id"] = pull["head"]["sha"].clone();
        event["pull_request"] = pull;
        event
    }

    fn status_event(&self, sha: &str, context: &str, state: &str) -> Value {
        let mut event = fixture("status");
        event["sha"] = sha.into();
        event["commit"]["sha"] = sha.into();
        event["context"] = context.into();
        event["state"] = state.into();
        let w = lock(&self.world);
        let branches: Vec<Value> = w
            .branches
            .iter()
            .filter(|(_, head)| *head == sha)
            .map(|(name, head)| json!({"name": name, "commit": {"sha": head}, "protected": false}))
            .collect();
        event["branches"] = branches.into();
        if let Some(c) = w.graph.get(sha) {
            event["commit"]["commit"]["message"] = c.message.clone().into();
        }
        event
    }

    fn labeled_event(&self, number: u64, label: &str) -> Value {
        let mut event = self.pr_event("labeled", number);
        event["label"]["name"] = label.into();
        event
    }

    fn check_suite_event(&self, sha: &str) -> Value {
        let mut event = fixture("check_suite.completed");
        let suite = &mut event["check_suite"];
        suite["head_sha"] = sha.into();
        suite["after"] = sha.into();
        suite["pull_requests"] = json!([]);
        head_commit(self, &mut suite["head_commit"], sha);
        if let Some(branch) = branch_at(self, sha) {
            suite["head_branch"] = branch.into();
        }
        event
    }

    fn workflow_run_event(&self, sha: &str, branch: &str, conclusion: &str) -> Value {
        let mut event = fixture("workflow_run.completed");
        let run = &mut event["workflow_run"];
        run["head_sha"] = sha.into();
        run["head_branch"] = branch.into();
        run["status"] = "completed".into();
        run["conclusion"] = conclusion.into();
        run["event"] = "push".into();
        run["pull_requests"] = json!([]);
        head_commit(self, &mut run["head_commit"], sha);
        event
    }

    fn push_event(&self, branch: &str, before: &str) -> Value {
        let after = self
            .branch_head(branch)
            .unwrap_or_else(|| panic!("no branch {branch} in the world"));
        let mut event = fixture("push");
        event["ref"] = format!("refs/heads/{branch}").into();
        event["before"] = before.into();
        event["after"] = after.clone().into();
        event["created"] = false.into();
        event["head_commit"]["id"] = after.into();
        event
    }
}

/// The payload's commit made the world's commit `sha` (its id and, when the world built
/// it, its message), as GitHub fills it: a payload names one commit throughout.
fn head_commit(gh: &FakeGitHub, commit: &mut Value, sha: &str) {
    commit["id"] = sha.into();
    if let Some(c) = lock(&gh.world).graph.get(sha) {
        commit["message"] = c.message.clone().into();
    }
}

/// The branch whose head `sha` is, when one is (a check suite names the pushed branch).
fn branch_at(gh: &FakeGitHub, sha: &str) -> Option<String> {
    lock(&gh.world)
        .branches
        .iter()
        .find(|(_, head)| *head == sha)
        .map(|(name, _)| name.clone())
}

/// The world's pull request `number` as REST returns it.
fn pull_request_json(gh: &FakeGitHub, number: u64) -> Value {
    let w = lock(&gh.world);
    let pr = w
        .pr(number)
        .unwrap_or_else(|| panic!("no pull request #{number} in the world"));
    pull_json(&w, pr)
}
