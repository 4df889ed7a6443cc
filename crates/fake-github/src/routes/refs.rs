//! Git references of branches, with GitHub's rules: `GET /git/ref/heads/{branch}`
//! (singular `ref`), `GET /git/matching-refs/heads/{prefix}`, `POST /git/refs`,
//! `PATCH /git/refs/heads/{branch}` (fast-forward only unless `force: true`) and
//! `DELETE /git/refs/heads/{branch}`. Writes need `contents: write`, are judged by the
//! world's protections, and are recorded with the writer ([`World::ref_log`]). Tags and
//! other namespaces are not modelled.

use serde_json::{Value, json};

use super::{Answer, Ctx, Reply, encode, paginate};
use crate::git::Writer;
use crate::protection::{self, Write};
use crate::tokens::{Access, Scope};
use crate::world::World;

/// GitHub's 422 for a ref write, with the refs documentation URL.
fn unprocessable(message: &str) -> Answer {
    Answer::json(
        422,
        json!({
            "message": message,
            "documentation_url": "https://docs.github.com/rest/git/refs#update-a-reference",
            "status": "422",
        }),
    )
}

/// GitHub's answer to a body without a required field.
fn missing(field: &str) -> Answer {
    unprocessable(&format!("Invalid request.\n\n\"{field}\" wasn't supplied."))
}

/// The branch of `heads/<branch>`; `None` for any other namespace.
fn branch_of(path: &str) -> Option<&str> {
    path.strip_prefix("heads/").filter(|b| !b.is_empty())
}

pub fn get(world: &mut World, ctx: &Ctx, path: &str) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Contents])?;
    let branch = branch_of(path).ok_or_else(Answer::not_found)?;
    let sha = world.branches.get(branch).ok_or_else(Answer::not_found)?;
    Ok(Answer::ok(ref_json(world, branch, sha)))
}

/// Every branch whose name starts with the prefix (all of them for `heads` alone),
/// sorted by name.
pub fn matching(world: &mut World, ctx: &Ctx, path: &str) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Contents])?;
    let prefix = match path {
        "" | "heads" | "heads/" => "",
        _ => match path.strip_prefix("heads/") {
            Some(prefix) => prefix,
            None => return Ok(paginate(world, ctx, &Vec::<Value>::new())),
        },
    };
    let refs: Vec<Value> = world
        .branches
        .iter()
        .filter(|(name, _)| name.starts_with(prefix))
        .map(|(name, sha)| ref_json(world, name, sha))
        .collect();
    Ok(paginate(world, ctx, &refs))
}

/// `POST /git/refs {ref, sha}`: 201, or 422 when it exists or the commit does not.
pub fn create(world: &mut World, ctx: &Ctx) -> Reply {
    ctx.need(world, Access::Write, &[Scope::Contents])?;
    let body = ctx.json()?;
    let full = body["ref"].as_str().ok_or_else(|| missing("ref"))?;
    let sha = body["sha"].as_str().ok_or_else(|| missing("sha"))?;
    // "If it doesn't start with 'refs' and have at least two slashes, it will be rejected."
    if !full.starts_with("refs/") || full.matches('/').count() < 2 {
        return Err(unprocessable(&format!("{full} is not a valid ref name.")));
    }
    let branch = full
        .strip_prefix("refs/heads/")
        .filter(|b| !b.is_empty())
        .ok_or_else(|| unprocessable("this fake GitHub models branch refs only (refs/heads/…)"))?;
    if world.branches.contains_key(branch) {
        return Err(unprocessable("Reference already exists"));
    }
    if !world.ensure_commit(sha) {
        return Err(unprocessable("Object does not exist"));
    }
    let write = Write::Update {
        old: None,
        new: sha,
        forced: false,
    };
    let login = ctx.login(world);
    if let Some(refused) =
        protection::refusal(&world.protections, &world.graph, branch, &write, &login)
    {
        return Err(refused);
    }
    world.set_branch(branch, sha, &writer(ctx, login));
    let location = format!("{}/repos/{}/git/{full}", world.api, world.repo);
    Ok(Answer::json(201, ref_json(world, branch, sha)).header("location", &location))
}

/// `PATCH /git/refs/heads/{branch} {sha, force}`.
pub fn update(world: &mut World, ctx: &Ctx, path: &str) -> Reply {
    ctx.need(world, Access::Write, &[Scope::Contents])?;
    let body = ctx.json()?;
    let sha = body["sha"].as_str().ok_or_else(|| missing("sha"))?;
    let force = match &body["force"] {
        Value::Null => false,
        Value::Bool(force) => *force,
        _ => return Err(Answer::invalid("Reference", "force", "invalid")),
    };
    let branch = branch_of(path).ok_or_else(|| unprocessable("Reference does not exist"))?;
    let old = world
        .branch_commit(branch)
        .ok_or_else(|| unprocessable("Reference does not exist"))?;
    if !world.ensure_commit(sha) {
        return Err(unprocessable("Object does not exist"));
    }
    let fast_forward = world.graph.is_ancestor(&old, sha);
    if !fast_forward && !force {
        return Err(unprocessable("Update is not a fast forward"));
    }
    let write = Write::Update {
        old: Some(&old),
        new: sha,
        forced: !fast_forward,
    };
    let login = ctx.login(world);
    if let Some(refused) =
        protection::refusal(&world.protections, &world.graph, branch, &write, &login)
    {
        return Err(refused);
    }
    world.set_branch(branch, sha, &writer(ctx, login));
    Ok(Answer::ok(ref_json(world, branch, sha)))
}

/// `DELETE /git/refs/heads/{branch}`: 204. Open pull requests from the branch close,
/// as GitHub closes them when their head branch goes.
pub fn delete(world: &mut World, ctx: &Ctx, path: &str) -> Reply {
    ctx.need(world, Access::Write, &[Scope::Contents])?;
    let branch = branch_of(path)
        .filter(|b| world.branches.contains_key(*b))
        .ok_or_else(|| unprocessable("Reference does not exist"))?;
    if branch == world.default_branch {
        return Err(unprocessable("Cannot delete the default branch"));
    }
    let login = ctx.login(world);
    if let Some(refused) = protection::refusal(
        &world.protections,
        &world.graph,
        branch,
        &Write::Delete,
        &login,
    ) {
        return Err(refused);
    }
    let branch = branch.to_string();
    world.delete_branch(&branch, &writer(ctx, login));
    let closing: Vec<u64> = world
        .pulls
        .values()
        .filter(|pr| pr.open && !pr.fork && pr.head_ref == branch)
        .map(|pr| pr.number)
        .collect();
    for number in closing {
        let now = world.touch(number);
        if let Some(pr) = world.pr_mut(number) {
            pr.open = false;
            pr.closed_at = now;
        }
    }
    Ok(Answer::no_content())
}

fn writer(ctx: &Ctx, login: String) -> Writer {
    Writer {
        login,
        token: ctx.token.clone(),
    }
}

/// A branch's reference as GitHub returns it.
pub fn ref_json(world: &World, branch: &str, sha: &str) -> Value {
    let api = &world.api;
    let repo = &world.repo;
    let path: Vec<String> = branch.split('/').map(encode).collect();
    json!({
        "ref": format!("refs/heads/{branch}"),
        "node_id": format!("REF_kwDOfake{}", &crate::world::fake_sha(branch)[..12]),
        "url": format!("{api}/repos/{repo}/git/refs/heads/{}", path.join("/")),
        "object": {
            "type": "commit",
            "sha": sha,
            "url": format!("{api}/repos/{repo}/git/commits/{sha}"),
        },
    })
}
