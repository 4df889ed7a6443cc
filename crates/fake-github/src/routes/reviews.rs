//! `GET /pulls/{n}/reviews`: submitted reviews in the order they were given, paginated.

use serde_json::{Value, json};

use super::{Answer, Ctx, Reply, paginate, user};
use crate::tokens::{Access, Scope};
use crate::world::World;

pub fn list(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Read, &[Scope::PullRequests])?;
    let pr = world.pr(number).ok_or_else(Answer::not_found)?;
    let api = &world.api;
    let repo = &world.repo;
    let reviews: Vec<Value> = pr
        .reviews
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "node_id": format!("PRR_kwDOfake{:06}", r.id),
                "user": user(&r.user),
                "body": r.body,
                "state": r.state,
                "html_url": format!("https://github.com/{repo}/pull/{number}#pullrequestreview-{}", r.id),
                "pull_request_url": format!("{api}/repos/{repo}/pulls/{number}"),
                "_links": {
                    "html": {"href": format!("https://github.com/{repo}/pull/{number}#pullrequestreview-{}", r.id)},
                    "pull_request": {"href": format!("{api}/repos/{repo}/pulls/{number}")},
                },
                "submitted_at": r.submitted_at,
                "commit_id": r.commit_id,
                "author_association": "MEMBER",
            })
        })
        .collect();
    Ok(paginate(world, ctx, &reviews))
}
