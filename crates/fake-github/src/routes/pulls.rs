//! Pull requests: one, the list (`state`, `head`, `base` filters), the pull requests of
//! a commit, and edits (close, reopen, title, body).

use serde_json::{Value, json};

use super::labels::label_json;
use super::{Answer, Ctx, Reply, paginate, user};
use crate::tokens::{Access, Scope};
use crate::world::{PullRequest, World, timestamp};

pub fn get(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Read, &[Scope::PullRequests])?;
    let pr = world.pr(number).ok_or_else(Answer::not_found)?;
    Ok(Answer::ok(pull_json(world, pr)))
}

/// `GET /pulls?state=open&head=owner:ref&base=…`: newest first unless `direction=asc`.
pub fn list(world: &mut World, ctx: &Ctx) -> Reply {
    ctx.need(world, Access::Read, &[Scope::PullRequests])?;
    let state = ctx.query("state").unwrap_or("open");
    if !matches!(state, "open" | "closed" | "all") {
        return Err(Answer::invalid("PullRequest", "state", "invalid"));
    }
    let mut pulls: Vec<Value> = world
        .pulls
        .values()
        .filter(|pr| state == "all" || pr.state() == state)
        // `head` is `owner:ref`, as GitHub documents it; a bare ref matches nothing.
        .filter(|pr| ctx.query("head").is_none_or(|h| pr.head_label() == h))
        .filter(|pr| ctx.query("base").is_none_or(|b| pr.base_ref == b))
        .map(|pr| simple(pull_json(world, pr)))
        .collect();
    if ctx.query("direction") != Some("asc") {
        pulls.reverse();
    }
    Ok(paginate(world, ctx, &pulls))
}

/// `GET /commits/{sha}/pulls`, as GitHub documents it: "the merged pull request that
/// introduced the commit to the repository. If the commit is not present in the default
/// branch, will only return open pull requests associated with the commit." So: open
/// pull requests whose head is the commit, and the merged one whose merge commit it is
/// only when it was merged into the default branch (a merge into `develop` is not
/// listed: a push there finds its pull request another way).
pub fn for_commit(world: &mut World, ctx: &Ctx, sha: &str) -> Reply {
    ctx.need(world, Access::Read, &[Scope::PullRequests])?;
    let pulls: Vec<Value> = world
        .pulls
        .values()
        .filter(|pr| {
            (pr.open && pr.head_sha == sha)
                || (pr.merge_commit_sha.as_deref() == Some(sha)
                    && pr.base_ref == world.default_branch)
        })
        .map(|pr| simple(pull_json(world, pr)))
        .collect();
    Ok(paginate(world, ctx, &pulls))
}

/// `PATCH /pulls/{n}`: `state` (open/closed), `title`, `body`.
pub fn update(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Write, &[Scope::PullRequests])?;
    let body = ctx.json()?;
    let pr = world.pr_mut(number).ok_or_else(Answer::not_found)?;
    match body.get("state").map(|s| s.as_str()) {
        None => {}
        Some(Some("closed")) => pr.open = false,
        Some(Some("open")) if !pr.merged => pr.open = true,
        Some(_) => return Err(Answer::invalid("PullRequest", "state", "invalid")),
    }
    if let Some(title) = body.get("title").and_then(Value::as_str) {
        pr.title = title.to_string();
    }
    if let Some(text) = body.get("body").and_then(Value::as_str) {
        pr.body = text.to_string();
    }
    let pr = world.pr(number).ok_or_else(Answer::not_found)?;
    Ok(Answer::ok(pull_json(world, pr)))
}

/// A pull request as `GET /pulls/{n}` returns it.
pub fn pull_json(world: &World, pr: &PullRequest) -> Value {
    let n = pr.number;
    let api = &world.api;
    let repo = &world.repo;
    let owner = world.owner();
    let head_repo = match pr.fork {
        true => format!("{}/{}", pr.head_owner, world.name()),
        false => repo.clone(),
    };
    let merged_at = pr.merged.then(|| timestamp(n * 1000 + 2));
    let closed_at = (!pr.open).then(|| timestamp(n * 1000 + 2));
    let mut pull = json!({
        "url": format!("{api}/repos/{repo}/pulls/{n}"),
        "id": 1_000_000 + n,
        "node_id": pr.node_id(),
        "html_url": format!("https://github.com/{repo}/pull/{n}"),
        "diff_url": format!("https://github.com/{repo}/pull/{n}.diff"),
        "patch_url": format!("https://github.com/{repo}/pull/{n}.patch"),
        "issue_url": format!("{api}/repos/{repo}/issues/{n}"),
        "commits_url": format!("{api}/repos/{repo}/pulls/{n}/commits"),
        "review_comments_url": format!("{api}/repos/{repo}/pulls/{n}/comments"),
        "review_comment_url": format!("{api}/repos/{repo}/pulls/comments{{/number}}"),
        "comments_url": format!("{api}/repos/{repo}/issues/{n}/comments"),
        "statuses_url": format!("{api}/repos/{repo}/statuses/{}", pr.head_sha),
        "number": n,
        "state": pr.state(),
        "locked": false,
        "title": pr.title,
        "user": user(&pr.author),
        "body": pr.body,
        "labels": pr.labels.iter().map(|l| label_json(world, l)).collect::<Vec<_>>(),
        // Not modelled: present, empty, as on a PR nobody assigned.
        "milestone": null,
        "active_lock_reason": null,
        "assignee": null,
        "assignees": [],
        "requested_reviewers": [],
        "requested_teams": [],
        "created_at": timestamp(n * 1000),
        "updated_at": timestamp(n * 1000 + 1),
        "closed_at": closed_at,
        "merged_at": merged_at,
        "merge_commit_sha": pr.merge_commit_sha,
        "draft": pr.draft,
    });
    // Two literals: one would pass `json!`'s recursion limit.
    let more = json!({
        "head": {
            "label": pr.head_label(),
            "ref": pr.head_ref,
            "sha": pr.head_sha,
            "user": user(&pr.head_owner),
            "repo": repo_json(world, &head_repo, pr.fork),
        },
        "base": {
            "label": format!("{owner}:{}", pr.base_ref),
            "ref": pr.base_ref,
            "sha": pr.base_sha,
            "user": user(owner),
            "repo": repo_json(world, repo, false),
        },
        "_links": links(api, repo, n, &pr.head_sha),
        "author_association": if pr.fork { "CONTRIBUTOR" } else { "MEMBER" },
        "auto_merge": pr.auto_merge.as_ref().map(|a| json!({
            "enabled_by": user(&a.enabled_by),
            "merge_method": a.merge_method,
            "commit_title": format!("{} (#{n})", pr.title),
            "commit_message": "",
        })),
        "merged": pr.merged,
        "mergeable": pr.mergeable,
        "rebaseable": pr.mergeable,
        "mergeable_state": pr.mergeable_state,
        "merged_by": pr.merged_by.as_deref().map(user),
        "comments": world.comments.iter().filter(|c| c["issue"] == n).count(),
        "review_comments": 0,
        "maintainer_can_modify": false,
        "commits": 1,
        "additions": pr.files.iter().map(|f| f.additions).sum::<u64>(),
        "deletions": pr.files.iter().map(|f| f.deletions).sum::<u64>(),
        "changed_files": pr.files.len(),
    });
    if let (Some(pull), Value::Object(more)) = (pull.as_object_mut(), more) {
        pull.extend(more);
    }
    pull
}

/// `_links`: where the PR's parts live.
fn links(api: &str, repo: &str, n: u64, head_sha: &str) -> Value {
    json!({
        "self": {"href": format!("{api}/repos/{repo}/pulls/{n}")},
        "html": {"href": format!("https://github.com/{repo}/pull/{n}")},
        "issue": {"href": format!("{api}/repos/{repo}/issues/{n}")},
        "comments": {"href": format!("{api}/repos/{repo}/issues/{n}/comments")},
        "review_comments": {"href": format!("{api}/repos/{repo}/pulls/{n}/comments")},
        "review_comment": {"href": format!("{api}/repos/{repo}/pulls/comments{{/number}}")},
        "commits": {"href": format!("{api}/repos/{repo}/pulls/{n}/commits")},
        "statuses": {"href": format!("{api}/repos/{repo}/statuses/{}", head_sha)},
    })
}

/// Lists return GitHub's "simple" pull request: no mergeability, no counts.
fn simple(mut pr: Value) -> Value {
    if let Some(object) = pr.as_object_mut() {
        for key in [
            "merged",
            "mergeable",
            "rebaseable",
            "mergeable_state",
            "merged_by",
            "comments",
            "review_comments",
            "maintainer_can_modify",
            "commits",
            "additions",
            "deletions",
            "changed_files",
        ] {
            object.remove(key);
        }
    }
    pr
}

pub fn repo_json(world: &World, full_name: &str, fork: bool) -> Value {
    let (owner, name) = full_name.split_once('/').unwrap_or((full_name, ""));
    json!({
        "name": name,
        "full_name": full_name,
        "owner": user(owner),
        "private": false,
        "fork": fork,
        "url": format!("{}/repos/{full_name}", world.api),
        "default_branch": world.default_branch,
    })
}
