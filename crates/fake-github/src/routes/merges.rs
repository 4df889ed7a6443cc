//! `POST /merges {base, head, commit_message}`: merges a branch or commit into a branch
//! as GitHub does: 201 with the new merge commit (parents: the base's head, then the
//! head; made by the token's identity, committed and verified by GitHub), 204 when the
//! base already contains the head, 409 "Merge conflict" when a path changed differently
//! on both sides, 404 for an unknown base or head, 403 without `contents: write`, 422
//! for a body without `base` or `head` or a write the base's protection refuses.

use serde_json::json;

use super::commits::{commit_json, first_parent_diff};
use super::{Answer, Ctx, Reply};
use crate::git::{MergeError, MergeOutcome, Writer};
use crate::protection::{self, Write};
use crate::tokens::{Access, Scope};
use crate::world::World;

pub fn merge(world: &mut World, ctx: &Ctx) -> Reply {
    ctx.need(world, Access::Write, &[Scope::Contents])?;
    let body = ctx.json()?;
    let field = |name: &str| {
        body[name].as_str().map(str::to_string).ok_or_else(|| {
            Answer::json(
                422,
                json!({
                    "message": format!("Invalid request.\n\n\"{name}\" wasn't supplied."),
                    "documentation_url": "https://docs.github.com/rest/branches/branches#merge-a-branch",
                    "status": "422",
                }),
            )
        })
    };
    let (base, head) = (field("base")?, field("head")?);
    let message = body["commit_message"].as_str();
    let login = ctx.login(world);
    let by = Writer {
        login: login.clone(),
        token: ctx.token.clone(),
    };
    let sha = match world.merge_commit(&base, &head, message, &by) {
        Ok(MergeOutcome::Merged(sha)) => sha,
        Ok(MergeOutcome::AlreadyMerged) => return Ok(Answer::no_content()),
        Err(MergeError::UnknownBase) => return Err(Answer::message(404, "Base does not exist")),
        Err(MergeError::UnknownHead) => return Err(Answer::message(404, "Head does not exist")),
        Err(MergeError::Conflict(_)) => return Err(Answer::message(409, "Merge conflict")),
    };
    let old = world.branches.get(&base).cloned();
    let write = Write::Update {
        old: old.as_deref(),
        new: &sha,
        forced: false,
    };
    if let Some(refused) =
        protection::refusal(&world.protections, &world.graph, &base, &write, &login)
    {
        return Err(refused);
    }
    world.set_branch(&base, &sha, &by);
    let commit = world.graph.get(&sha).ok_or_else(Answer::not_found)?;
    let files = first_parent_diff(world, commit);
    Ok(Answer::json(201, commit_json(world, commit, Some(&files))))
}
