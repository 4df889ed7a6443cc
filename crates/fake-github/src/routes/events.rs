//! `GET /issues/{n}/events` and `GET /issues/{n}/timeline`: the `labeled` and
//! `unlabeled` events of an issue or pull request, oldest first, recorded when labels
//! are added or removed through the API or a scene, and its `base_ref_changed` events
//! (a retarget through the API or [`crate::builders::PrBuilder::retarget`]); the timeline also holds a pull
//! request's pushes, as GitHub's does: a `committed` item per new head (its committer
//! date is the push) and a `head_ref_force_pushed` event when the push was not a
//! fast-forward (that one is an issue event too), and its comments (`commented`).

use serde_json::{Value, json};

use super::{Answer, Ctx, Reply, paginate, user};
use crate::tokens::{Access, Scope};
use crate::world::{HeadMove, IssueEvent, World, fake_sha};

pub fn list(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    items(world, ctx, number, false)
}

pub fn timeline(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    items(world, ctx, number, true)
}

fn items(world: &mut World, ctx: &Ctx, number: u64, timeline: bool) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Issues, Scope::PullRequests])?;
    world.issue_like(number).ok_or_else(Answer::not_found)?;
    // Label events and pushes in the order they happened (one counter numbers both; a
    // scene may date a label back, but it happened when the scene added it).
    let mut items: Vec<(u64, Value)> = world
        .issue_events
        .get(&number)
        .into_iter()
        .flatten()
        .map(|e| (2 * e.id, event_json(world, number, e)))
        .collect();
    let moves = world.head_moves.get(&number).into_iter().flatten();
    for m in moves {
        if timeline {
            items.push((2 * m.seq, committed_json(world, m)));
        }
        if m.forced {
            items.push((2 * m.seq + 1, force_pushed_json(world, number, m)));
        }
    }
    if timeline {
        for c in world.comments.on(number) {
            let id = c["id"].as_u64().unwrap_or(0);
            let seq = world.comment_seq.get(&id).copied().unwrap_or(0);
            items.push((2 * seq, commented_json(c)));
        }
    }
    items.sort_by_key(|(seq, _)| *seq);
    let items: Vec<Value> = items.into_iter().map(|(_, v)| v).collect();
    Ok(paginate(world, ctx, &items))
}

/// A `commented` timeline item: the comment as `GET /issues/comments/{id}` answers it,
/// with `event` and `actor` added, as GitHub lists it.
fn commented_json(comment: &Value) -> Value {
    let mut item = comment.clone();
    item["event"] = "commented".into();
    item["actor"] = comment["user"].clone();
    item
}

/// A `committed` timeline item: no `id`, `actor` or `created_at`, the commit's own
/// author and committer instead, as GitHub lists it.
fn committed_json(world: &World, m: &HeadMove) -> Value {
    let api = &world.api;
    let repo = &world.repo;
    let person = json!({
        "name": m.actor,
        "email": format!("{}@users.noreply.github.com", m.actor),
        "date": m.at,
    });
    json!({
        "event": "committed",
        "sha": m.sha,
        "node_id": format!("C_kwDOfake{}", &m.sha[..m.sha.len().min(12)]),
        "url": format!("{api}/repos/{repo}/git/commits/{}", m.sha),
        "html_url": format!("https://github.com/{repo}/commit/{}", m.sha),
        "author": person,
        "committer": person,
        "message": "",
        "parents": [],
        "verification": {"verified": false, "reason": "unsigned", "signature": null, "payload": null},
    })
}

fn force_pushed_json(world: &World, number: u64, m: &HeadMove) -> Value {
    let api = &world.api;
    let repo = &world.repo;
    let id =
        u64::from_str_radix(&fake_sha(&format!("force {number} {}", m.sha))[..8], 16).unwrap_or(0);
    json!({
        "id": id,
        "node_id": format!("HRFPE_kwDOfake{id:06}"),
        "url": format!("{api}/repos/{repo}/issues/events/{id}"),
        "actor": user(&m.actor),
        "event": "head_ref_force_pushed",
        "commit_id": m.sha,
        "commit_url": format!("{api}/repos/{repo}/commits/{}", m.sha),
        "created_at": m.at,
        "performed_via_github_app": null,
    })
}

fn event_json(world: &World, number: u64, e: &IssueEvent) -> Value {
    let api = &world.api;
    let repo = &world.repo;
    if e.label.is_empty() {
        // A retarget (`base_ref_changed`): no label.
        return json!({
            "id": e.id,
            "node_id": format!("BRCE_kwDOfake{:06}", e.id),
            "url": format!("{api}/repos/{repo}/issues/events/{}", e.id),
            "actor": user(&e.actor),
            "event": e.event,
            "commit_id": null,
            "commit_url": null,
            "created_at": e.created_at,
            "performed_via_github_app": null,
            "issue_url": format!("{api}/repos/{repo}/issues/{number}"),
        });
    }
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
