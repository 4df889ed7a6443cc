//! `council mcp`: council's tools served to agents over the Model Context Protocol
//! (stdio). A thin layer: each tool (one line of [`toolset::TOOLS`]) decodes its
//! arguments into a typed value (bad input is a tool result with `isError` naming the
//! field, found before any request), calls the same app functions as the CLI with a
//! typed request, and answers with the JSON the CLI's `--json` prints for the same
//! question. Writes go through the one executor (dry run and read-only tokens honoured).
//! stdout carries protocol messages only; warnings go to stderr.

mod context;
mod server;
mod tools;
mod toolset;

use std::path::Path;

use crate::app::git::git;
use crate::env::RunEnv;
use crate::request::McpRequest;
use crate::runner::Runner;
use council_github::RepoName;
use council_protocol::error::{Error, Result};

pub use context::ToolContext;
pub use toolset::{TOOLS, Tool, names as tool_names};

/// Serves until the client closes stdin.
pub async fn serve(mut env: RunEnv, mut req: McpRequest) -> Result<()> {
    // Never an action run: nothing goes to `GITHUB_OUTPUT`, the step summary or stdout.
    env.in_actions = false;
    env.event = None;
    env.runner = Runner::default();
    if req.access.repo.is_none() {
        req.access.repo = git_remote_repo(&env.workspace);
    }
    let selected = toolset::select(req.read_only, &req.tools)?;
    server::run(ToolContext { env, req }, selected).await
}

/// `owner/name` of the working directory's `origin` remote (or its first remote), for
/// a GitHub URL in any of git's forms.
fn git_remote_repo(dir: &Path) -> Option<String> {
    let run = |args: &[&str]| git(dir, args).ok();
    let url = run(&["remote", "get-url", "origin"]).or_else(|| {
        let remotes = run(&["remote"])?;
        let first = remotes.lines().next()?.trim().to_string();
        run(&["remote", "get-url", &first])
    })?;
    repo_of_url(url.trim())
}

/// `owner/name` from `https://github.com/o/r(.git)`, `git@github.com:o/r.git` or
/// `ssh://git@host/o/r.git`.
pub(crate) fn repo_of_url(url: &str) -> Option<String> {
    let path = if let Some(rest) = url.split_once("://").map(|(_, r)| r) {
        rest.split_once('/')?.1
    } else {
        url.split_once(':')?.1
    };
    let path = path.trim_end_matches('/').trim_end_matches(".git");
    let mut parts = path.rsplitn(3, '/');
    let name = parts.next()?;
    let owner = parts.next()?;
    RepoName::parse(&format!("{owner}/{name}")).map(|r| r.full())
}

/// An error as the tool result's message says it.
fn message(e: &Error) -> String {
    e.to_string()
}

#[cfg(test)]
mod tests {
    use super::repo_of_url;

    #[test]
    fn remote_urls_give_owner_and_name() {
        for url in [
            "https://github.com/octo-org/app.git",
            "https://github.com/octo-org/app",
            "git@github.com:octo-org/app.git",
            "ssh://git@github.com/octo-org/app.git",
            "https://x-access-token@github.example.com/octo-org/app/",
        ] {
            assert_eq!(repo_of_url(url).as_deref(), Some("octo-org/app"), "{url}");
        }
        assert_eq!(repo_of_url("/srv/git/app"), None);
        assert_eq!(repo_of_url("https://github.com/app"), None);
    }
}
