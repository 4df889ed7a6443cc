//! `PUT /pulls/{n}/merge {sha, merge_method}`: GitHub's answers in GitHub's order (405
//! when the method is not allowed or the PR cannot merge, 409 when `sha` is not the head,
//! 422 for a bad body), and on success the world moves: the PR is merged and closed (its
//! `merged_at`, `closed_at` and `updated_at` the world clock's now), and its base branch
//! points at the new merge commit. A pull request whose head was built in the commit
//! graph gets a real commit (a merge of the base's head and the head; for squash and
//! rebase one commit on the base with the merged tree), and the base moves to it as a
//! push does (recorded, CI started); one of the shortcuts gets a made-up SHA.

use serde_json::{Value, json};

use std::sync::Arc;

use super::{Answer, Ctx, Reply};
use crate::git::Writer;
use crate::graph::{NewCommit, Signature};
use crate::tokens::{Access, Scope};
use crate::world::{World, fake_sha};

/// Mergeable states GitHub refuses to merge in (`unstable` and `has_hooks` merge: the
/// failing checks are not required ones, or hooks merely run).
const REFUSED: [&str; 4] = ["dirty", "blocked", "behind", "draft"];

pub fn merge(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Write, &[Scope::Contents])?;
    let body = match ctx.body.is_empty() {
        true => json!({}),
        false => ctx.json()?,
    };
    let method = match body.get("merge_method") {
        None | Some(Value::Null) => "merge",
        Some(Value::String(m)) if matches!(m.as_str(), "merge" | "squash" | "rebase") => m,
        Some(_) => return Err(Answer::invalid("PullRequest", "merge_method", "invalid")),
    };
    let expected = match body.get("sha") {
        None | Some(Value::Null) => None,
        Some(Value::String(sha)) => Some(sha.clone()),
        Some(_) => return Err(Answer::invalid("PullRequest", "sha", "invalid")),
    };
    if !world.merge_methods.iter().any(|m| m == method) {
        let what = match method {
            "squash" => "Squash merges are",
            "rebase" => "Rebase merges are",
            _ => "Merge commits are",
        };
        return Err(Answer::message(
            405,
            &format!("{what} not allowed on this repository."),
        ));
    }
    let login = ctx.login(world);
    let pr = world.pr_mut(number).ok_or_else(Answer::not_found)?;
    if pr.merged || !pr.open {
        return Err(Answer::message(405, "Pull Request is not mergeable"));
    }
    if expected.as_ref().is_some_and(|sha| *sha != pr.head_sha) {
        return Err(Answer::message(
            409,
            "Head branch was modified. Review and try the merge again.",
        ));
    }
    if pr.draft || pr.mergeable == Some(false) || REFUSED.contains(&pr.mergeable_state.as_str()) {
        return Err(Answer::message(405, "Pull Request is not mergeable"));
    }
    let (head, base_ref) = (pr.head_sha.clone(), pr.base_ref.clone());
    let built = world.graph.get(&head).is_some_and(|c| !c.shortcut);
    let sha = match built {
        true => graph_merge(
            world,
            &base_ref,
            &head,
            method,
            number,
            &login,
            ctx.token.clone(),
        )?,
        false => fake_sha(&format!(
            "{method} #{number} {head} onto {}",
            world
                .pr(number)
                .map(|p| p.base_sha.clone())
                .unwrap_or_default()
        )),
    };
    let pr = world.pr_mut(number).ok_or_else(Answer::not_found)?;
    pr.merged = true;
    pr.open = false;
    pr.merged_by = Some(login);
    pr.merge_commit_sha = Some(sha.clone());
    pr.mergeable = None;
    pr.mergeable_state = "unknown".to_string();
    pr.auto_merge = None;
    pr.in_merge_queue = false;
    let base = pr.base_ref.clone();
    if !built {
        world.branches.insert(base, sha.clone());
    }
    let now = world.touch(number);
    if let Some(pr) = world.pr_mut(number) {
        pr.merged_at.clone_from(&now);
        pr.closed_at = now;
    }
    Ok(Answer::ok(json!({
        "sha": sha,
        "merged": true,
        "message": "Pull Request successfully merged",
    })))
}

/// The commit a merge of a pull request built in the graph makes on its base, and the
/// base moved to it; 405 when the trees conflict, as GitHub answers a pull request that
/// is not mergeable.
fn graph_merge(
    world: &mut World,
    base: &str,
    head: &str,
    method: &str,
    number: u64,
    login: &str,
    token: Option<String>,
) -> Result<String, Answer> {
    let not_mergeable = || Answer::message(405, "Pull Request is not mergeable");
    let ours = world.branch_commit(base).ok_or_else(not_mergeable)?;
    let tree = world
        .merged_tree(&ours, head)
        .map_err(|_| not_mergeable())?;
    let date = world.tick();
    let title = world
        .pr(number)
        .map(|p| p.title.clone())
        .unwrap_or_default();
    let parents = match method {
        "merge" => vec![ours, head.to_string()],
        _ => vec![ours],
    };
    let sha = world
        .graph
        .insert(NewCommit {
            parents,
            tree: Arc::new(tree),
            message: format!("{title} (#{number})"),
            author: Signature::of(login, &date),
            committer: Signature::github(&date),
            verified: true,
            sha: None,
            shortcut: false,
        })
        .map_err(|_| not_mergeable())?;
    let by = Writer {
        login: login.to_string(),
        token,
    };
    world.set_branch(base, &sha, &by);
    Ok(sha)
}
