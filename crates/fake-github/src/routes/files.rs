//! The files of a diff: `GET /pulls/{n}/files` (the pull request's head as it is when
//! asked, paginated, at most 3,000 listed in all) and `GET /compare/{base}...{head}` (the
//! diff a head commit makes, by SHA or branch, at most 300 files, all on its first page:
//! GitHub's limits, which a review must notice rather than trust).

use serde_json::{Value, json};

use super::{Answer, Ctx, Reply, encode, paginate};
use crate::tokens::{Access, Scope};
use crate::world::{MAX_COMPARE_FILES, MAX_LISTED_FILES, PrFile, World, fake_sha};

pub fn list(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Read, &[Scope::PullRequests])?;
    let pr = world.pr(number).ok_or_else(Answer::not_found)?;
    let head = pr.head_sha.clone();
    let files: Vec<Value> = world
        .pr_files(number)
        .iter()
        .take(MAX_LISTED_FILES)
        .map(|f| file_json(world, f, &head))
        .collect();
    Ok(paginate(world, ctx, &files))
}

pub(super) fn file_json(world: &World, f: &PrFile, head: &str) -> Value {
    let repo = &world.repo;
    let path: Vec<String> = f.filename.split('/').map(encode).collect();
    let path = path.join("/");
    let mut v = json!({
        "sha": fake_sha(&format!("{head}:{}", f.filename)),
        "filename": f.filename,
        "status": f.status,
        "additions": f.additions,
        "deletions": f.deletions,
        "changes": f.additions + f.deletions,
        "blob_url": format!("https://github.com/{repo}/blob/{head}/{path}"),
        "raw_url": format!("https://github.com/{repo}/raw/{head}/{path}"),
        "contents_url": format!("{}/repos/{repo}/contents/{path}?ref={head}", world.api),
    });
    // GitHub leaves keys out rather than sending null: no `patch` for a binary file, no
    // `previous_filename` unless renamed or copied.
    if let Some(patch) = &f.patch {
        v["patch"] = patch.as_str().into();
    }
    if let Some(previous) = &f.previous_filename {
        v["previous_filename"] = previous.as_str().into();
    }
    v
}

/// `GET /compare/{base}...{head}`: the files `head` changes (see [`World::diff_of`]), with
/// the comparison's commits; 404 for a head the world does not know, as GitHub answers
/// an unknown commit. A head built in the commit graph is compared over the graph
/// ([`graph_compare`]); otherwise every known head is one commit ahead of any base.
pub fn compare(world: &mut World, ctx: &Ctx, basehead: &str) -> Reply {
    ctx.need(world, Access::Read, &[Scope::Contents])?;
    let Some((base, head)) = basehead.split_once("...") else {
        return Err(Answer::not_found());
    };
    let (base, head) = (world.resolve(base), world.resolve(head));
    if let Some(files) = world.graph_diff(&base, &head) {
        return Ok(graph_compare(world, ctx, basehead, &base, &head, &files));
    }
    // Later pages of a paginated comparison hold commits only; this one has one.
    if later_page(ctx) {
        let mut empty =
            json!({"total_commits": u64::from(base != head), "commits": [], "files": []});
        empty["status"] = if base == head { "identical" } else { "ahead" }.into();
        return Ok(Answer::ok(empty));
    }
    let files = world.diff_of(&head).ok_or_else(Answer::not_found)?.to_vec();
    let listed: Vec<Value> = files
        .iter()
        .take(MAX_COMPARE_FILES)
        .map(|f| file_json(world, f, &head))
        .collect();
    let repo = &world.repo;
    let commit = |sha: &str| {
        json!({
            "sha": sha,
            "url": format!("{}/repos/{repo}/commits/{sha}", world.api),
            "html_url": format!("https://github.com/{repo}/commit/{sha}"),
        })
    };
    let identical = base == head;
    Ok(Answer::ok(json!({
        "url": format!("{}/repos/{repo}/compare/{basehead}", world.api),
        "html_url": format!("https://github.com/{repo}/compare/{basehead}"),
        "base_commit": commit(&base),
        "merge_base_commit": commit(&base),
        "status": if identical { "identical" } else { "ahead" },
        "ahead_by": u64::from(!identical),
        "behind_by": 0,
        "total_commits": u64::from(!identical),
        "commits": if identical { Vec::new() } else { vec![commit(&head)] },
        "files": if identical { Vec::new() } else { listed },
    })))
}

/// A three-dot comparison over the commit graph: the files `head` changes since its
/// merge base with `base` (at most 300), the commits `head` has and `base` has not
/// (oldest first, at most 250), `ahead_by`, `behind_by` and the status GitHub names.
fn graph_compare(
    world: &World,
    ctx: &Ctx,
    basehead: &str,
    base: &str,
    head: &str,
    files: &[PrFile],
) -> Answer {
    use super::commits::commit_json;
    let graph = &world.graph;
    let ahead = graph.only_in(head, base).unwrap_or_default();
    let behind = graph.only_in(base, head).unwrap_or_default();
    let status = match (ahead.len(), behind.len()) {
        (0, 0) => "identical",
        (_, 0) => "ahead",
        (0, _) => "behind",
        _ => "diverged",
    };
    let full = |sha: &str| graph.get(sha).map(|c| commit_json(world, c, None));
    let merge_base = graph.merge_base(base, head);
    let repo = &world.repo;
    // Without paging parameters GitHub lists at most 250 commits; with them, a page of
    // commits, and the files on the first page only.
    let paged = ctx.query("per_page").is_some() || ctx.query("page").is_some();
    let (commits, link) = if paged {
        super::page_of(world, ctx, &ahead)
    } else {
        (ahead.iter().take(250).cloned().collect(), None)
    };
    let files: Vec<Value> = if later_page(ctx) {
        Vec::new()
    } else {
        files
            .iter()
            .take(MAX_COMPARE_FILES)
            .map(|f| file_json(world, f, head))
            .collect()
    };
    let answer = Answer::ok(json!({
        "url": format!("{}/repos/{repo}/compare/{basehead}", world.api),
        "html_url": format!("https://github.com/{repo}/compare/{basehead}"),
        "permalink_url": format!("https://github.com/{repo}/compare/{base}...{head}"),
        "diff_url": format!("https://github.com/{repo}/compare/{basehead}.diff"),
        "patch_url": format!("https://github.com/{repo}/compare/{basehead}.patch"),
        "base_commit": full(base),
        "merge_base_commit": merge_base.as_deref().and_then(full),
        "status": status,
        "ahead_by": ahead.len(),
        "behind_by": behind.len(),
        "total_commits": ahead.len(),
        "commits": commits.iter().filter_map(|sha| full(sha)).collect::<Vec<_>>(),
        "files": files,
    }));
    match link {
        Some(link) => answer.header("link", &link),
        None => answer,
    }
}

/// A page after the first of a paginated comparison.
fn later_page(ctx: &Ctx) -> bool {
    ctx.query("page")
        .and_then(|p| p.parse::<usize>().ok())
        .is_some_and(|p| p > 1)
}
