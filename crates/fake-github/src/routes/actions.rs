//! `GET /actions/runs/{run_id}/jobs`: a workflow run's jobs, each naming the check run it
//! reports as, so a release run can find its own check and leave it out. The world's
//! uploaded artifacts: `GET /actions/artifacts` and `GET /actions/artifacts/{id}/zip`.

use serde_json::{Value, json};

use super::{Answer, Ctx, Reply, paginate_in};
use crate::tokens::{Access, Scope};
use crate::world::{World, timestamp};

/// The branch a job ran for: the branch whose head the commit is, if any.
fn branch_of(world: &World, sha: &str) -> Option<String> {
    world
        .branches
        .iter()
        .find(|(_, head)| *head == sha)
        .map(|(name, _)| name.clone())
}

pub fn jobs(world: &mut World, ctx: &Ctx, run_id: u64) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Actions])?;
    let api = &world.api;
    let repo = &world.repo;
    let jobs: Vec<Value> = world
        .runs
        .get(&run_id)
        .into_iter()
        .flatten()
        .map(|j| {
            json!({
                "id": j.id,
                "run_id": j.run_id,
                "run_url": format!("{api}/repos/{repo}/actions/runs/{}", j.run_id),
                "run_attempt": 1,
                "node_id": format!("CR_kwDOfake{:06}", j.id),
                "head_sha": j.head_sha,
                "url": format!("{api}/repos/{repo}/actions/jobs/{}", j.id),
                "html_url": format!("https://github.com/{repo}/actions/runs/{}/job/{}", j.run_id, j.id),
                "status": j.status,
                "conclusion": j.conclusion,
                "started_at": timestamp(j.id),
                "completed_at": j.conclusion.as_ref().map(|_| timestamp(j.id + 1)),
                "name": j.name,
                "steps": [],
                "check_run_url": format!("{api}/repos/{repo}/check-runs/{}", j.check_run_id),
                "labels": ["ubuntu-latest"],
                "runner_id": 1,
                "runner_name": "GitHub Actions 1",
                "runner_group_id": 2,
                "runner_group_name": "GitHub Actions",
                "head_branch": branch_of(world, &j.head_sha),
                "workflow_name": "council",
            })
        })
        .collect();
    let wrapper = json!({"total_count": jobs.len()});
    Ok(paginate_in(world, ctx, &jobs, wrapper, "jobs"))
}

/// The repository's artifacts, newest first, only those named `name=` when given, as the
/// REST API lists them (each with its run and the repository whose code that run ran).
pub fn artifacts(world: &mut World, ctx: &Ctx) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Actions])?;
    let api = &world.api;
    let repo = &world.repo;
    let name = ctx.query("name");
    let listed: Vec<Value> = world
        .artifacts
        .iter()
        .rev()
        .filter(|a| name.is_none_or(|n| n == a.name))
        .map(|a| {
            json!({
                "id": a.id,
                "node_id": format!("MDg6QXJ0aWZhY3Q{}", a.id),
                "name": a.name,
                "size_in_bytes": a.zip.len(),
                "url": format!("{api}/repos/{repo}/actions/artifacts/{}", a.id),
                "archive_download_url": format!("{api}/repos/{repo}/actions/artifacts/{}/zip", a.id),
                "expired": false,
                "created_at": a.created_at,
                "updated_at": a.created_at,
                "workflow_run": {
                    "id": a.run_id,
                    "repository_id": crate::REPO_ID,
                    "head_repository_id": crate::REPO_ID,
                },
            })
        })
        .collect();
    let wrapper = json!({"total_count": listed.len()});
    Ok(paginate_in(world, ctx, &listed, wrapper, "artifacts"))
}

/// An artifact's zip (GitHub answers a redirect to its storage; the fake, the bytes).
pub fn artifact_zip(world: &mut World, ctx: &Ctx, id: u64) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Actions])?;
    world
        .artifacts
        .iter()
        .find(|a| a.id == id)
        .map(|a| Answer::bytes("application/zip", a.zip.clone()))
        .ok_or_else(Answer::not_found)
}
