//! `GET /issues/{n}`: a plain issue, or a pull request seen as an issue (with the
//! `pull_request` key, as GitHub marks them).

use serde_json::json;

use super::labels::label_json;
use super::{Answer, Ctx, Reply, user};
use crate::support::REPO;
use crate::support::tokens::{Access, Scope};
use crate::support::world::World;

pub fn get(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Issues, Scope::PullRequests])?;
    let (author, body) = world.issue_like(number).ok_or_else(Answer::not_found)?;
    let api = &world.api;
    let pr = world.pr(number);
    let labels = match pr {
        Some(pr) => pr.labels.clone(),
        None => world
            .issues
            .get(&number)
            .map(|i| i.labels.clone())
            .unwrap_or_default(),
    };
    let mut issue = json!({
        "url": format!("{api}/repos/{REPO}/issues/{number}"),
        "html_url": format!("https://github.com/{REPO}/issues/{number}"),
        "number": number,
        "title": pr.map(|p| p.title.clone()).unwrap_or_else(|| format!("Issue #{number}")),
        "state": pr.map(|p| p.state()).unwrap_or("open"),
        "user": user(&author),
        "body": body,
        "labels": labels.iter().map(|l| label_json(world, l)).collect::<Vec<_>>(),
        "comments": world.comments.iter().filter(|c| c["issue"] == number).count(),
    });
    if pr.is_some() {
        issue["pull_request"] = json!({
            "url": format!("{api}/repos/{REPO}/pulls/{number}"),
            "html_url": format!("https://github.com/{REPO}/pull/{number}"),
        });
    }
    Ok(Answer::ok(issue))
}
