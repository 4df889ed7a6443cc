//! What CI reported on a commit: check runs (`GET /commits/{ref}/check-runs`) and the
//! combined commit status (`GET /commits/{ref}/status`), both paginated; `{ref}` is a SHA
//! or a branch name.

use serde_json::{Value, json};

use super::{Answer, Ctx, Reply, paginate_in};
use crate::tokens::{Access, Scope};
use crate::world::{CheckRun, CommitStatus, World};

/// Check runs on the commit; `filter=latest` (the default) keeps the newest run of each
/// name, as a re-run replaces the one before; `check_name` and `status` narrow further.
pub fn runs(world: &mut World, ctx: &Ctx, git_ref: &str) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Checks])?;
    let filter = ctx.query("filter").unwrap_or("latest");
    if !matches!(filter, "latest" | "all") {
        return Err(Answer::invalid("CheckRun", "filter", "invalid"));
    }
    let sha = world.resolve(git_ref);
    let all = world
        .commits
        .get(&sha)
        .map(|c| c.check_runs.clone())
        .unwrap_or_default();
    let runs: Vec<Value> = match filter {
        "all" => all.iter().collect::<Vec<_>>(),
        _ => latest_runs(&all),
    }
    .into_iter()
    .filter(|r| ctx.query("check_name").is_none_or(|n| r.name == n))
    .filter(|r| ctx.query("status").is_none_or(|s| r.status == s))
    .map(|r| check_run_json(world, r))
    .collect();
    let wrapper = json!({"total_count": runs.len()});
    Ok(paginate_in(world, ctx, &runs, wrapper, "check_runs"))
}

/// The newest run per name (and app), in the order the names first appeared.
pub fn latest_runs(all: &[CheckRun]) -> Vec<&CheckRun> {
    let mut latest: Vec<&CheckRun> = Vec::new();
    for run in all {
        match latest
            .iter_mut()
            .find(|r| r.name == run.name && r.app_slug == run.app_slug)
        {
            Some(slot) => *slot = run,
            None => latest.push(run),
        }
    }
    latest
}

/// The newest status per context, in the order the contexts first appeared.
pub fn latest_statuses(all: &[CommitStatus]) -> Vec<&CommitStatus> {
    let mut latest: Vec<&CommitStatus> = Vec::new();
    for status in all {
        match latest.iter_mut().find(|s| s.context == status.context) {
            Some(slot) => *slot = status,
            None => latest.push(status),
        }
    }
    latest
}

/// GitHub's combined state: `failure` when any context errored or failed, `pending` when
/// any is pending or there are none, else `success`.
pub fn combined_state(statuses: &[&CommitStatus]) -> &'static str {
    if statuses
        .iter()
        .any(|s| s.state == "failure" || s.state == "error")
    {
        "failure"
    } else if statuses.is_empty() || statuses.iter().any(|s| s.state == "pending") {
        "pending"
    } else {
        "success"
    }
}

pub fn combined(world: &mut World, ctx: &Ctx, git_ref: &str) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Statuses])?;
    let sha = world.resolve(git_ref);
    let all = world
        .commits
        .get(&sha)
        .map(|c| c.statuses.clone())
        .unwrap_or_default();
    let latest = latest_statuses(&all);
    let api = &world.api;
    let repo = &world.repo;
    let statuses: Vec<Value> = latest
        .iter()
        .map(|s| {
            json!({
                "url": format!("{api}/repos/{repo}/statuses/{sha}"),
                "avatar_url": "https://avatars.githubusercontent.com/u/9919?v=4",
                "id": s.id,
                "node_id": format!("SC_kwDOfake{:06}", s.id),
                "state": s.state,
                "description": s.description,
                "target_url": s.target_url,
                "context": s.context,
                "created_at": s.created_at,
                "updated_at": s.created_at,
            })
        })
        .collect();
    let wrapper = json!({
        "state": combined_state(&latest),
        "sha": sha,
        "total_count": statuses.len(),
        "repository": super::pulls::repo_json(world, repo, false),
        "commit_url": format!("{api}/repos/{repo}/commits/{sha}"),
        "url": format!("{api}/repos/{repo}/commits/{sha}/status"),
    });
    Ok(paginate_in(world, ctx, &statuses, wrapper, "statuses"))
}

fn check_run_json(world: &World, r: &CheckRun) -> Value {
    let api = &world.api;
    let repo = &world.repo;
    // Same-repository pull requests whose head is this commit, as GitHub lists them.
    let pulls: Vec<Value> = world
        .pulls
        .values()
        .filter(|pr| pr.head_sha == r.head_sha && !pr.fork && pr.open)
        .map(|pr| {
            json!({
                "number": pr.number,
                "url": format!("{api}/repos/{repo}/pulls/{}", pr.number),
                "head": {"ref": pr.head_ref, "sha": pr.head_sha},
                "base": {"ref": pr.base_ref, "sha": pr.base_sha},
            })
        })
        .collect();
    json!({
        "id": r.id,
        "node_id": format!("CR_kwDOfake{:06}", r.id),
        "head_sha": r.head_sha,
        "external_id": "",
        "url": format!("{api}/repos/{repo}/check-runs/{}", r.id),
        "html_url": format!("https://github.com/{repo}/runs/{}", r.id),
        "details_url": format!("https://github.com/{repo}/runs/{}", r.id),
        "status": r.status,
        "conclusion": r.conclusion,
        "started_at": r.started_at,
        "completed_at": r.completed_at,
        "output": {"title": null, "summary": null, "text": null, "annotations_count": 0},
        "name": r.name,
        "check_suite": {"id": 10_000 + r.id},
        "app": {"id": 15368, "slug": r.app_slug, "name": r.app_slug},
        "pull_requests": pulls,
    })
}
