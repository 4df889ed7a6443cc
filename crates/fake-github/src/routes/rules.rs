//! Repository rulesets as GitHub's REST API shows them to a reader: `GET
//! /rules/branches/{branch}` (every active rule that applies to a branch, each naming
//! its ruleset by id) and `GET /rulesets/{id}` (a ruleset's name). Classic branch
//! protection is not listed there, as on GitHub (reading it needs admin); it shows in
//! the refusal of a write.

use serde_json::{Value, json};

use super::{Answer, Ctx, Reply, number};
use crate::protection::{Kind, Protection};
use crate::tokens::{Access, Scope};
use crate::world::World;

/// Ruleset ids are the protection's place in the world, from 1.
fn rulesets(world: &World) -> impl Iterator<Item = (u64, &Protection, &str)> {
    world
        .protections
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match &p.kind {
            Kind::Ruleset(name) => Some((i as u64 + 1, p, name.as_str())),
            Kind::Classic => None,
        })
}

pub fn for_branch(world: &mut World, ctx: &Ctx, branch: &str) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Metadata, Scope::Contents])?;
    let mut rules: Vec<Value> = Vec::new();
    for (id, p, _) in rulesets(world).filter(|(_, p, _)| p.covers(branch)) {
        let kinds = [
            (p.restrict_updates, "update"),
            (p.require_pull_request, "pull_request"),
            (p.block_force_pushes, "non_fast_forward"),
            (p.restrict_deletions, "deletion"),
            (p.required_linear_history, "required_linear_history"),
        ];
        for (_, kind) in kinds.iter().filter(|(on, _)| *on) {
            rules.push(json!({
                "type": kind,
                "ruleset_source_type": "Repository",
                "ruleset_source": world.repo,
                "ruleset_id": id,
            }));
        }
    }
    Ok(super::paginate(world, ctx, &rules))
}

pub fn ruleset(world: &mut World, ctx: &Ctx, id: &str) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Metadata, Scope::Contents])?;
    let id = number(id)?;
    let (_, p, name) = rulesets(world)
        .find(|(i, _, _)| *i == id)
        .ok_or_else(Answer::not_found)?;
    Ok(Answer::ok(json!({
        "id": id,
        "name": name,
        "target": "branch",
        "source_type": "Repository",
        "source": world.repo,
        "enforcement": "active",
        "conditions": {"ref_name": {"include": [format!("refs/heads/{}", p.branch)], "exclude": []}},
    })))
}
