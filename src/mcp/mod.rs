//! `council mcp`: council's tools served to agents over the Model Context Protocol
//! (stdio). A thin layer: each tool decodes its arguments (bad input is a tool result
//! with `isError` naming the field, found before any request), calls the same library
//! functions as the CLI, and answers with the JSON the CLI's `--json` prints. Writes go
//! through the CLI's executor (dry run and read-only tokens honoured). stdout carries
//! protocol messages only; warnings go to stderr.

mod server;
mod tools;

use std::path::Path;

use crate::app::git::git;
use crate::runner::Runner;
use crate::settings::Settings;
use council_github::RepoName;
use council_protocol::error::{Error, Result};

pub use tools::NAMES as TOOL_NAMES;

/// What `council mcp` serves.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Only the tools that write nothing.
    pub read_only: bool,
    /// Only these tools (empty: all).
    pub tools: Vec<String>,
}

/// Serves until the client closes stdin.
pub async fn serve(mut settings: Settings, options: Options) -> Result<()> {
    // Never an action run: nothing goes to `GITHUB_OUTPUT`, the step summary or stdout.
    settings.in_actions = false;
    settings.json = false;
    settings.event = None;
    settings.runner = Runner {
        actions: false,
        output_path: None,
        summary_path: None,
    };
    if settings.repo.is_none() {
        settings.repo = git_remote_repo(&settings.workspace);
    }
    let selected = tools::select(options.read_only, &options.tools)?;
    server::run(settings, selected).await
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
