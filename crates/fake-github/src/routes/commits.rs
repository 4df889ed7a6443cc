//! Commits of the graph: `GET /commits/{ref}` (the commit with its files against its
//! first parent, at most 300, and `stats`), `GET /git/commits/{sha}` (the git object),
//! `GET /pulls/{n}/commits` (oldest first, at most 250, as GitHub lists them). A SHA the
//! shortcuts named is made a graph commit first; anything else is 404.

use serde_json::{Value, json};

use super::{Answer, Ctx, Reply, paginate, user};
use crate::diff;
use crate::graph::{Commit, Signature, tree_sha};
use crate::tokens::{Access, Scope};
use crate::world::{MAX_COMPARE_FILES, PrFile, World};

/// GitHub lists at most this many commits of a pull request.
pub const MAX_PULL_COMMITS: usize = 250;

pub fn get(world: &mut World, ctx: &Ctx, git_ref: &str) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Contents])?;
    let sha = world.resolve(git_ref);
    if !world.ensure_commit(&sha) {
        return Err(Answer::json(
            422,
            json!({
                "message": format!("No commit found for SHA: {git_ref}"),
                "documentation_url": "https://docs.github.com/rest/commits/commits#get-a-commit",
                "status": "422",
            }),
        ));
    }
    let commit = world.graph.get(&sha).ok_or_else(Answer::not_found)?;
    let files = first_parent_diff(world, commit);
    Ok(Answer::ok(commit_json(world, commit, Some(&files))))
}

/// `GET /git/commits/{sha}`: a SHA only (a branch name is 404, as on GitHub).
pub fn git_commit(world: &mut World, ctx: &Ctx, sha: &str) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Contents])?;
    if !crate::git::is_sha(sha) || !world.ensure_commit(sha) {
        return Err(Answer::not_found());
    }
    let commit = world.graph.get(sha).ok_or_else(Answer::not_found)?;
    let api = &world.api;
    let repo = &world.repo;
    let tree = tree_sha(&commit.tree);
    Ok(Answer::ok(json!({
        "sha": commit.sha,
        "node_id": node_id(&commit.sha),
        "url": format!("{api}/repos/{repo}/git/commits/{}", commit.sha),
        "html_url": format!("https://github.com/{repo}/commit/{}", commit.sha),
        "author": signature(&commit.author),
        "committer": signature(&commit.committer),
        "message": commit.message,
        "tree": {"sha": tree, "url": format!("{api}/repos/{repo}/git/trees/{tree}")},
        "parents": parents(world, commit, "git/commits"),
        "verification": verification(commit),
    })))
}

/// `GET /pulls/{n}/commits`: from the graph when the head is a graph commit, else the
/// head alone (a pull request of the shortcuts is one commit).
pub fn of_pull(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Read, &[Scope::PullRequests])?;
    let head = world
        .pr(number)
        .map(|pr| pr.head_sha.clone())
        .ok_or_else(Answer::not_found)?;
    let shas = match world.pr_commits(number) {
        Some(shas) => shas,
        None => {
            world.ensure_commit(&head);
            vec![head]
        }
    };
    let listed: Vec<Value> = shas
        .iter()
        .take(MAX_PULL_COMMITS)
        .filter_map(|sha| world.graph.get(sha))
        .map(|c| commit_json(world, c, None))
        .collect();
    Ok(paginate(world, ctx, &listed))
}

/// The files a commit changes against its first parent (all added for a root).
pub fn first_parent_diff(world: &World, commit: &Commit) -> Vec<PrFile> {
    let parent = commit
        .parents
        .first()
        .and_then(|p| world.tree(p))
        .unwrap_or_default();
    diff::trees(&parent, &commit.tree)
}

/// A commit as `GET /commits/{sha}` returns it; `files` (with `stats`) only there, not
/// in lists.
pub fn commit_json(world: &World, commit: &Commit, files: Option<&[PrFile]>) -> Value {
    let api = &world.api;
    let repo = &world.repo;
    let sha = &commit.sha;
    let tree = tree_sha(&commit.tree);
    let mut value = json!({
        "url": format!("{api}/repos/{repo}/commits/{sha}"),
        "sha": sha,
        "node_id": node_id(sha),
        "html_url": format!("https://github.com/{repo}/commit/{sha}"),
        "comments_url": format!("{api}/repos/{repo}/commits/{sha}/comments"),
        "commit": {
            "url": format!("{api}/repos/{repo}/git/commits/{sha}"),
            "author": signature(&commit.author),
            "committer": signature(&commit.committer),
            "message": commit.message,
            "tree": {"url": format!("{api}/repos/{repo}/git/trees/{tree}"), "sha": tree},
            "comment_count": 0,
            "verification": verification(commit),
        },
        // The accounts the emails belong to (`null` for an email of no account).
        "author": commit.author.login.as_deref().map(user),
        "committer": commit.committer.login.as_deref().map(user),
        "parents": parents(world, commit, "commits"),
    });
    if let Some(files) = files {
        let additions: u64 = files.iter().map(|f| f.additions).sum();
        let deletions: u64 = files.iter().map(|f| f.deletions).sum();
        value["stats"] = json!({
            "additions": additions,
            "deletions": deletions,
            "total": additions + deletions,
        });
        value["files"] = Value::Array(
            files
                .iter()
                .take(MAX_COMPARE_FILES)
                .map(|f| super::files::file_json(world, f, sha))
                .collect(),
        );
    }
    value
}

fn parents(world: &World, commit: &Commit, kind: &str) -> Vec<Value> {
    commit
        .parents
        .iter()
        .map(|p| {
            json!({
                "sha": p,
                "url": format!("{}/repos/{}/{kind}/{p}", world.api, world.repo),
                "html_url": format!("https://github.com/{}/commit/{p}", world.repo),
            })
        })
        .collect()
}

fn signature(s: &Signature) -> Value {
    json!({"name": s.name, "email": s.email, "date": s.date})
}

/// GitHub's `verification`: `valid` and signed for what GitHub made, `unsigned` else.
fn verification(commit: &Commit) -> Value {
    match commit.verified {
        true => json!({
            "verified": true,
            "reason": "valid",
            "signature": format!("-----BEGIN PGP SIGNATURE-----\n\nfake {}\n-----END PGP SIGNATURE-----\n", commit.sha),
            "payload": format!("tree {}\n\n{}", tree_sha(&commit.tree), commit.message),
            "verified_at": commit.committer.date,
        }),
        false => json!({
            "verified": false,
            "reason": "unsigned",
            "signature": null,
            "payload": null,
            "verified_at": null,
        }),
    }
}

fn node_id(sha: &str) -> String {
    format!("C_kwDOfake{}", &sha[..sha.len().min(12)])
}
