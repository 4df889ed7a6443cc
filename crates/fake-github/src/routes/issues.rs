//! `GET /issues/{n}`: a plain issue, or a pull request seen as an issue (with the
//! `pull_request` key, as GitHub marks them).

use serde_json::json;

use super::labels::label_json;
use super::{Answer, Ctx, Reply, user};
use crate::tokens::{Access, Scope};
use crate::world::{World, timestamp};

pub fn get(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Issues, Scope::PullRequests])?;
    let (author, body) = world.issue_like(number).ok_or_else(Answer::not_found)?;
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
    Ok(Answer::ok(issue))
}
