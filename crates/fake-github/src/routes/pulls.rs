//! Pull requests: one, the list (`state`, `head`, `base` filters, `sort`, `direction`),
//! the pull requests of a commit, and edits (close, reopen, title, body).

use serde_json::{Value, json};

use super::labels::label_json;
use super::{Answer, Ctx, Reply, paginate_with, user};
use crate::tokens::{Access, Scope};
use crate::world::{PullRequest, World};

pub fn get(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Read, &[Scope::PullRequests])?;
    let pr = world.pr(number).ok_or_else(Answer::not_found)?;
    Ok(Answer::ok(pull_json(world, pr)))
}

/// `GET /pulls?state=open&head=owner:ref&base=…&sort=…&direction=…`, paginated.
///
/// `sort` is `created` (the default) or `updated`, by that time, ties by number;
/// `popularity` and `long-running` are accepted and sorted as `created` (the fake counts
/// no reactions and keeps no calendar). `direction`, as GitHub documents it: "Default:
/// `desc` when sort is `created` or sort is not specified, otherwise `asc`". Only the
/// page's pull requests are turned into JSON.
pub fn list(world: &mut World, ctx: &Ctx) -> Reply {
    ctx.need(world, Access::Read, &[Scope::PullRequests])?;
    let state = ctx.query("state").unwrap_or("open");
    if !matches!(state, "open" | "closed" | "all") {
        return Err(Answer::invalid("PullRequest", "state", "invalid"));
    }
    let sort = ctx.query("sort").unwrap_or("created");
    if !matches!(sort, "created" | "updated" | "popularity" | "long-running") {
        return Err(Answer::invalid("PullRequest", "sort", "invalid"));
    }
    let descending = match ctx.query("direction") {
        None => sort == "created",
        Some("desc") => true,
        Some("asc") => false,
        Some(_) => return Err(Answer::invalid("PullRequest", "direction", "invalid")),
    };
    let world: &World = world;
    let time: fn(&PullRequest) -> &str = match sort {
        "updated" => |pr| &pr.updated_at,
        _ => |pr| &pr.created_at,
    };
    // Sorted on compact keys (the time's text, which sorts as the time does, then the
    // number): a list of 10,000 sorts in a millisecond, and only its page becomes JSON.
    let mut pulls: Vec<([u8; 20], u64, &PullRequest)> = world
        .pulls
        .values()
        .filter(|pr| state == "all" || pr.state() == state)
        // `head` is `owner:ref`, as GitHub documents it; a bare ref matches nothing.
        .filter(|pr| ctx.query("head").is_none_or(|h| pr.head_label() == h))
        .filter(|pr| ctx.query("base").is_none_or(|b| pr.base_ref == b))
        .map(|pr| (sort_key(time(pr)), pr.number, pr))
        .collect();
    pulls.sort_unstable_by_key(|&(time, number, _)| (time, number));
    if descending {
        pulls.reverse();
    }
    Ok(paginate_with(world, ctx, &pulls, |(_, _, pr)| {
        list_json(world, pr)
    }))
}

/// `YYYY-MM-DDTHH:MM:SSZ` as bytes, to compare without following a pointer.
fn sort_key(time: &str) -> [u8; 20] {
    let mut key = [0; 20];
    let bytes = time.as_bytes();
    let n = bytes.len().min(key.len());
    key[..n].copy_from_slice(&bytes[..n]);
    key
}

/// `GET /commits/{sha}/pulls`, as GitHub documents it: "the merged pull request that
/// introduced the commit to the repository. If the commit is not present in the default
/// branch, will only return open pull requests associated with the commit." So: open
/// pull requests whose head is the commit, and the merged one whose merge commit it is
/// only when it was merged into the default branch (a merge into `develop` is not
/// listed: a push there finds its pull request another way).
pub fn for_commit(world: &mut World, ctx: &Ctx, sha: &str) -> Reply {
    ctx.need(world, Access::Read, &[Scope::PullRequests])?;
    let world: &World = world;
    // Over the commit graph, a pull request is associated with each of its commits:
    // open ones with the commits their head has and their base has not, merged ones
    // with the commits their merge landed.
    let on_default = |pr: &PullRequest| pr.base_ref == world.default_branch;
    let pulls: Vec<&PullRequest> = world
        .pulls
        .values()
        .filter(|pr| {
            (pr.open && pr.head_sha == sha)
                || (pr.merge_commit_sha.as_deref() == Some(sha) && on_default(pr))
                || (pr.merged && on_default(pr) && pr.landed_commits.iter().any(|c| c == sha))
                || (pr.open
                    && world.graph.contains(sha)
                    && world
                        .pr_commits(pr.number)
                        .is_some_and(|commits| commits.iter().any(|c| c == sha)))
        })
        .collect();
    Ok(paginate_with(world, ctx, &pulls, |pr| list_json(world, pr)))
}

/// `PATCH /pulls/{n}`: `state` (open/closed), `title`, `body`. A change is an update
/// of the pull request (`updated_at`, and `closed_at` on a close, cleared on a reopen).
pub fn update(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Write, &[Scope::PullRequests])?;
    let body = ctx.json()?;
    let pr = world.pr_mut(number).ok_or_else(Answer::not_found)?;
    let before = pr.clone();
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
    let retarget = body
        .get("base")
        .and_then(Value::as_str)
        .filter(|b| *b != before.base_ref)
        .map(str::to_string);
    if let Some(base) = &retarget {
        let sha = world
            .branch_commit(base)
            .ok_or_else(|| Answer::invalid("PullRequest", "base", "invalid"))?;
        let pr = world.pr_mut(number).ok_or_else(Answer::not_found)?;
        pr.base_ref.clone_from(base);
        pr.base_sha = sha;
        let login = ctx.login(world);
        world.label_event(number, "base_ref_changed", "", &login);
    }
    let pr = world.pr(number).ok_or_else(Answer::not_found)?;
    if *pr != before {
        let now = world.touch(number);
        let pr = world.pr_mut(number).ok_or_else(Answer::not_found)?;
        match (before.open, pr.open) {
            (true, false) => pr.closed_at = now,
            (false, true) => pr.closed_at = None,
            _ => {}
        }
    }
    let pr = world.pr(number).ok_or_else(Answer::not_found)?;
    Ok(Answer::ok(pull_json(world, pr)))
}

/// A pull request as `GET /pulls/{n}` returns it.
pub fn pull_json(world: &World, pr: &PullRequest) -> Value {
    pull_value(world, pr, true)
}

/// A pull request as lists return it (GitHub's "simple" pull request).
pub fn list_json(world: &World, pr: &PullRequest) -> Value {
    simple(pull_value(world, pr, false))
}

/// The whole pull request; the counts a list leaves out are only counted when `full`.
fn pull_value(world: &World, pr: &PullRequest, full: bool) -> Value {
    let n = pr.number;
    let api = &world.api;
    let repo = &world.repo;
    let owner = world.owner();
    let head_repo = match pr.fork {
        true => format!("{}/{}", pr.head_owner, world.name()),
        false => repo.clone(),
    };
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
        "created_at": pr.created_at,
        "updated_at": pr.updated_at,
        "closed_at": pr.closed_at_shown(),
        "merged_at": pr.merged_at_shown(),
        "merge_commit_sha": pr.merge_commit_sha,
        "draft": pr.draft,
    });
    // The counts a list leaves out: the graph's diff is only computed for one pull
    // request.
    let files = match full {
        true => world.pr_files(n),
        false => Vec::new(),
    };
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
        "comments": if full { world.comments.count_on(n) } else { 0 },
        "review_comments": 0,
        "maintainer_can_modify": false,
        "commits": if full { world.pr_commits(n).map_or(1, |c| c.len().max(1)) } else { 1 },
        "additions": files.iter().map(|f| f.additions).sum::<u64>(),
        "deletions": files.iter().map(|f| f.deletions).sum::<u64>(),
        "changed_files": files.len(),
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
