//! `GET /issues/{n}`: a plain issue, or a pull request seen as an issue (with the
//! `pull_request` key, as GitHub marks them); `GET /issues`: the list, newest first,
//! filtered by `state` (`open` by default) and `labels` (comma-separated, each one
//! required, in any case).

use serde_json::json;

use super::labels::label_json;
use super::{Answer, Ctx, Reply, paginate_with, user};
use crate::tokens::{Access, Scope};
use crate::world::{World, timestamp};

pub fn get(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Issues, Scope::PullRequests])?;
    let issue = issue_json(world, number).ok_or_else(Answer::not_found)?;
    Ok(Answer::ok(issue))
}

pub fn list(world: &mut World, ctx: &Ctx) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Issues, Scope::PullRequests])?;
    let state = ctx.query("state").unwrap_or("open");
    let wanted: Vec<String> = ctx
        .query("labels")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_lowercase)
        .collect();
    let world: &World = world;
    let numbers: Vec<u64> = world
        .pulls
        .keys()
        .chain(world.issues.keys())
        .copied()
        .collect::<std::collections::BTreeSet<u64>>()
        .into_iter()
        .rev()
        .filter(|&n| {
            let (open, labels) = match world.pr(n) {
                Some(pr) => (pr.open, pr.labels.clone()),
                None => (
                    true,
                    world
                        .issues
                        .get(&n)
                        .map(|i| i.labels.clone())
                        .unwrap_or_default(),
                ),
            };
            let state_ok = match state {
                "all" => true,
                "closed" => !open,
                _ => open,
            };
            state_ok
                && wanted
                    .iter()
                    .all(|w| labels.iter().any(|l| l.to_lowercase() == *w))
        })
        .collect();
    Ok(paginate_with(world, ctx, &numbers, |&n| {
        issue_json(world, n).unwrap_or_default()
    }))
}

/// Issue `number` as GitHub answers it, `None` when there is no such issue or pull
/// request.
fn issue_json(world: &World, number: u64) -> Option<serde_json::Value> {
    let (author, body) = world.issue_like(number)?;
    let api = &world.api;
    let repo = &world.repo;
    let pr = world.pr(number);
    let labels = match pr {
        Some(pr) => pr.labels.clone(),
        None => world
            .issues
            .get(&number)
            .map(|i| i.labels.clone())
            .unwrap_or_default(),
    };
    let open = pr.is_none_or(|p| p.open);
    // A pull request's own times; a plain issue's are made up from its number.
    let (created_at, updated_at, closed_at) = match pr {
        Some(p) => (
            p.created_at.clone(),
            p.updated_at.clone(),
            p.closed_at_shown(),
        ),
        None => (timestamp(number * 1000), timestamp(number * 1000 + 1), None),
    };
    let mut issue = json!({
        "id": 2_000_000 + number,
        "node_id": format!("I_kwDOfake{number:06}"),
        "url": format!("{api}/repos/{repo}/issues/{number}"),
        "repository_url": format!("{api}/repos/{repo}"),
        "labels_url": format!("{api}/repos/{repo}/issues/{number}/labels{{/name}}"),
        "comments_url": format!("{api}/repos/{repo}/issues/{number}/comments"),
        "events_url": format!("{api}/repos/{repo}/issues/{number}/events"),
        "html_url": format!("https://github.com/{repo}/issues/{number}"),
        "number": number,
        "state": if open { "open" } else { "closed" },
        "state_reason": (!open).then_some("completed"),
        "title": match pr {
            Some(p) => p.title.clone(),
            None => world
                .issues
                .get(&number)
                .and_then(|i| i.title.clone())
                .unwrap_or_else(|| format!("Issue #{number}")),
        },
        "body": body,
        "user": user(&author),
        "labels": labels.iter().map(|l| label_json(world, l)).collect::<Vec<_>>(),
        // Not modelled: present, empty.
        "assignee": null,
        "assignees": [],
        "milestone": null,
        "locked": false,
        "active_lock_reason": null,
        "pinned_comment": null,
        "comments": world.comments.count_on(number),
        "created_at": created_at,
        "updated_at": updated_at,
        "closed_at": closed_at,
        "closed_by": null,
        "author_association": "MEMBER",
    });
    if pr.is_some() {
        issue["pull_request"] = json!({
            "url": format!("{api}/repos/{repo}/pulls/{number}"),
            "html_url": format!("https://github.com/{repo}/pull/{number}"),
        });
    }
    Some(issue)
}
