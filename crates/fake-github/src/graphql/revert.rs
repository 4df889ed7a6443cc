//! `RevertPullRequest`: the `revertPullRequest` mutation opens a pull request that
//! reverts a merged one, onto the same base. It needs `contents: write` and
//! `pull-requests: write` (the release token). Variables: `input` as GitHub's
//! `RevertPullRequestInput` (`pullRequestId`, `title`, `body`, `draft`,
//! `clientMutationId`), or the same fields as top-level variables.

use serde_json::{Value, json};

use super::{Call, typed_error};
use crate::routes::Answer;
use crate::tokens::{Access, Scope};
use crate::world::{PullRequest, World, fake_sha};

pub fn revert(world: &mut World, call: &Call) -> Answer {
    let empty = json!({"revertPullRequest": null});
    if !call.may(Scope::Contents, Access::Write) || !call.may(Scope::PullRequests, Access::Write) {
        return typed_error(
            empty,
            "FORBIDDEN",
            "revertPullRequest",
            "Resource not accessible by integration",
        );
    }
    let input = match &call.variables["input"] {
        Value::Object(_) => &call.variables["input"],
        _ => &call.variables,
    };
    let id = input["pullRequestId"].as_str().unwrap_or("");
    let Some(original) = world.pulls.values().find(|pr| pr.node_id() == id).cloned() else {
        return typed_error(
            empty,
            "NOT_FOUND",
            "revertPullRequest",
            &format!("Could not resolve to a node with the global id of '{id}'"),
        );
    };
    let Some(merge_sha) = original
        .merge_commit_sha
        .clone()
        .filter(|_| original.merged)
    else {
        return typed_error(
            empty,
            "UNPROCESSABLE",
            "revertPullRequest",
            "Pull request is not merged, so it cannot be reverted",
        );
    };
    let repo = world.repo.clone();
    let number = next_number(world);
    let mut pr = PullRequest::new(number, world.owner());
    pr.title = input["title"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| format!("Revert \"{}\"", original.title));
    pr.body = input["body"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| format!("Reverts {repo}#{}", original.number));
    pr.draft = input["draft"].as_bool().unwrap_or(false);
    pr.author = call
        .token
        .as_ref()
        .map(|t| t.login.clone())
        .unwrap_or_default();
    pr.head_ref = format!("revert-{}-{}", original.number, original.head_ref);
    pr.head_sha = fake_sha(&format!("revert {merge_sha}"));
    pr.base_ref = original.base_ref.clone();
    pr.base_sha = world.resolve(&original.base_ref);
    if pr.draft {
        pr.mergeable_state = "draft".to_string();
    }
    world
        .branches
        .insert(pr.head_ref.clone(), pr.head_sha.clone());
    let created = json!({
        "id": pr.node_id(),
        "number": number,
        "url": format!("https://github.com/{repo}/pull/{number}"),
        "title": pr.title,
        "state": "OPEN",
        "isDraft": pr.draft,
        "headRefName": pr.head_ref,
        "baseRefName": pr.base_ref,
    });
    // Opened now, on the world clock (not at a time made up from its number, which for a
    // world of 10,000 lies months ahead of every other update).
    let now = world.tick();
    pr.created_at = now.clone();
    pr.updated_at = now;
    world.pulls.insert(number, pr);
    Answer::ok(json!({"data": {"revertPullRequest": {
        "clientMutationId": input["clientMutationId"],
        "pullRequest": {
            "id": original.node_id(),
            "number": original.number,
            "url": format!("https://github.com/{repo}/pull/{}", original.number),
            "state": "MERGED",
        },
        "revertPullRequest": created,
    }}}))
}

/// Issues and pull requests share one sequence of numbers.
pub fn next_number(world: &World) -> u64 {
    let pulls = world.pulls.keys().max().copied().unwrap_or(0);
    let issues = world.issues.keys().max().copied().unwrap_or(0);
    pulls.max(issues) + 1
}
