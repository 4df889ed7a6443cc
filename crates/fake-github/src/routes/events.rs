//! `GET /issues/{n}/events` and `GET /issues/{n}/timeline`: the `labeled` and
//! `unlabeled` events of an issue or pull request, oldest first, recorded when labels
//! are added or removed through the API or a scene (the only events the fake models).

use serde_json::{Value, json};

use super::{Answer, Ctx, Reply, paginate, user};
use crate::tokens::{Access, Scope};
use crate::world::{IssueEvent, World, fake_sha};

pub fn list(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Issues, Scope::PullRequests])?;
    world.issue_like(number).ok_or_else(Answer::not_found)?;
    let events: Vec<Value> = world
        .issue_events
        .get(&number)
        .into_iter()
        .flatten()
        .map(|e| event_json(world, number, e))
        .collect();
    Ok(paginate(world, ctx, &events))
}

fn event_json(world: &World, number: u64, e: &IssueEvent) -> Value {
    let api = &world.api;
    let repo = &world.repo;
    json!({
        "id": e.id,
        "node_id": format!("LE_kwDOfake{:06}", e.id),
        "url": format!("{api}/repos/{repo}/issues/events/{}", e.id),
        "actor": user(&e.actor),
        "event": e.event,
        "commit_id": null,
        "commit_url": null,
        "created_at": e.created_at,
        "performed_via_github_app": null,
        "label": {"name": e.label, "color": &fake_sha(&format!("label {}", e.label))[..6]},
        "issue_url": format!("{api}/repos/{repo}/issues/{number}"),
    })
}
