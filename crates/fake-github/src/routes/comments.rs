//! Issue and pull-request comments: list (paginated), create, and read/edit/delete one.
//! Comments are stored as GitHub returns them, so tests can edit a body in place.

use serde_json::{Value, json};

use super::{Answer, Ctx, Reply, paginate_with};
use crate::tokens::{Access, Scope};
use crate::world::{World, parse_time, timestamp};

const READ: &[Scope] = &[Scope::Issues, Scope::PullRequests];

pub fn list(world: &mut World, ctx: &Ctx, issue: u64) -> Reply {
    ctx.need(world, Access::Read, READ)?;
    let world: &World = world;
    let all: Vec<&Value> = world.comments.on(issue).collect();
    Ok(paginate_with(world, ctx, &all, |c| (*c).clone()))
}

/// Any issue number is accepted (older tests post on the fixture's PR without
/// declaring it). A comment on a pull request updates it (`updated_at`, not before the
/// comment's `created_at`).
pub fn create(world: &mut World, ctx: &Ctx, issue: u64) -> Reply {
    refused_write(world, ctx)?;
    let body = ctx.json()?;
    let text = body["body"]
        .as_str()
        .ok_or_else(|| Answer::invalid("IssueComment", "body", "missing_field"))?;
    world.next_id += 1;
    let id = world.next_id;
    let login = ctx.login(world);
    let mut c = comment(&world.repo, id, issue, &login, text);
    // Made now, on the world clock, and after every comment before it (seeded ones are
    // dated by their ids): the clock does not leap to a made-up time.
    let newest = world
        .comments
        .iter()
        .filter_map(|c| c["created_at"].as_str().and_then(parse_time))
        .max()
        .unwrap_or(i64::MIN);
    let now = world.tick_after(newest);
    c["created_at"] = now.clone().into();
    c["updated_at"] = now.into();
    let created = c["created_at"].as_str().and_then(parse_time);
    let seq = world.next_number_id();
    world.comment_seq.insert(id, seq);
    world.comments.push(c.clone());
    world.touch_after(issue, created.unwrap_or(i64::MIN));
    Ok(Answer::json(201, c))
}

/// `GET`, `PATCH` (`{"body": …}`) or `DELETE /issues/comments/{id}`. An edit moves the
/// comment's `updated_at` (on the world clock), not its pull request's: GitHub does not
/// count it as an update of the pull request, so a reader that syncs by `updated_at`
/// must cope with a ledger comment edited after it.
pub fn one(world: &mut World, ctx: &Ctx, id: u64) -> Reply {
    let index = world.comments.iter().position(|c| c["id"] == id);
    match ctx.method.as_str() {
        "GET" => {
            ctx.need(world, Access::Read, READ)?;
            let index = index.ok_or_else(Answer::not_found)?;
            Ok(Answer::ok(world.comments[index].clone()))
        }
        "PATCH" => {
            refused_write(world, ctx)?;
            let body = ctx.json()?;
            let text = body["body"]
                .as_str()
                .ok_or_else(|| Answer::invalid("IssueComment", "body", "missing_field"))?;
            let index = index.ok_or_else(Answer::not_found)?;
            let created = world.comments[index]["created_at"]
                .as_str()
                .and_then(parse_time);
            let now = world.tick_after(created.unwrap_or(i64::MIN));
            let c = &mut world.comments[index];
            c["body"] = text.into();
            c["updated_at"] = now.into();
            Ok(Answer::ok(c.clone()))
        }
        "DELETE" => {
            ctx.need(world, Access::Write, READ)?;
            let index = index.ok_or_else(Answer::not_found)?;
            world.comments.remove(index);
            Ok(Answer::no_content())
        }
        _ => Err(Answer::not_found()),
    }
}

/// The token's permission, then the older tests' blanket `write_status`.
fn refused_write(world: &World, ctx: &Ctx) -> Result<(), Answer> {
    ctx.need(world, Access::Write, READ)?;
    match world.write_status {
        Some(status) => Err(Answer::message(
            status,
            "Resource not accessible by integration",
        )),
        None => Ok(()),
    }
}

/// A comment as REST returns it, plus the `issue` it is on. Ids grow with time, one
/// second apart, so ordering by `created_at` is ordering by id.
pub fn comment(repo: &str, id: u64, issue: u64, login: &str, body: &str) -> Value {
    let created = timestamp(id);
    json!({
        "id": id,
        "issue": issue,
        "body": body,
        "user": {"login": login, "type": if login.ends_with("[bot]") { "Bot" } else { "User" }},
        "author_association": "NONE",
        "html_url": format!("https://github.com/{repo}/pull/{issue}#issuecomment-{id}"),
        "created_at": created,
        "updated_at": created,
    })
}
