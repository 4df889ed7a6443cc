//! `GET /pulls/{n}/files`: the changed files, paginated, at most 3,000 listed in all
//! (GitHub's limit: a review must notice that the list is cut, not trust it).

use serde_json::{Value, json};

use super::{Answer, Ctx, Reply, encode, paginate};
use crate::tokens::{Access, Scope};
use crate::world::{MAX_LISTED_FILES, PrFile, World, fake_sha};

pub fn list(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Read, &[Scope::PullRequests])?;
    let pr = world.pr(number).ok_or_else(Answer::not_found)?;
    let head = pr.head_sha.clone();
    let files: Vec<Value> = pr
        .files
        .iter()
        .take(MAX_LISTED_FILES)
        .map(|f| file_json(world, f, &head))
        .collect();
    Ok(paginate(world, ctx, &files))
}

fn file_json(world: &World, f: &PrFile, head: &str) -> Value {
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
