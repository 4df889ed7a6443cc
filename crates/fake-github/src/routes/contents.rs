//! `GET /contents/{path}?ref=…`: a file at a ref, raw for `application/vnd.github.raw+json`
//! (what the product asks for) or GitHub's JSON object with base64 `content` otherwise.
//! No `ref` means the default branch; a missing file is 404.

use base64::Engine as _;
use serde_json::json;

use super::{Answer, Ctx, Reply, encode};
use crate::tokens::{Access, Scope};
use crate::world::{World, fake_sha};

pub fn get(world: &mut World, ctx: &Ctx, path: &str) -> Reply {
    let repo = world.repo.clone();
    ctx.need(world, Access::Read, &[Scope::Contents])?;
    let git_ref = ctx
        .query("ref")
        .map(str::to_string)
        .unwrap_or_else(|| world.default_branch.clone());
    let text = world
        .file_at(&git_ref, path)
        .ok_or_else(Answer::not_found)?;
    if ctx.accept.contains("raw") {
        return Ok(Answer::text(200, text));
    }
    // GitHub breaks base64 into lines of 60 characters.
    let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    let mut content = String::new();
    for chunk in encoded.as_bytes().chunks(60) {
        content.push_str(&String::from_utf8_lossy(chunk));
        content.push('\n');
    }
    let url_path: Vec<String> = path.split('/').map(encode).collect();
    let url_path = url_path.join("/");
    let sha = fake_sha(&format!("blob {text}"));
    let self_url = format!(
        "{}/repos/{repo}/contents/{url_path}?ref={}",
        world.api,
        encode(&git_ref)
    );
    let git_url = format!("{}/repos/{repo}/git/blobs/{sha}", world.api);
    let html_url = format!(
        "https://github.com/{repo}/blob/{}/{url_path}",
        encode(&git_ref)
    );
    Ok(Answer::ok(json!({
        "type": "file",
        "encoding": "base64",
        "size": text.len(),
        "name": path.rsplit('/').next().unwrap_or(path),
        "path": path,
        "content": content,
        "sha": sha,
        "url": self_url,
        "git_url": git_url,
        "html_url": html_url,
        "download_url": format!("https://raw.githubusercontent.com/{repo}/{}/{url_path}", encode(&git_ref)),
        "_links": {"self": self_url, "git": git_url, "html": html_url},
    })))
}
