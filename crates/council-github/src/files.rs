//! The files of a diff between two commits, as GitHub's compare endpoint lists them.
//!
//! A decision about a pull request is a decision about two commits: review and release
//! read the diff of `base...head` by SHA, never "the pull request's files", which GitHub
//! answers for whatever the head is at the moment of asking (a push and a push back
//! between two reads would go unseen).

use serde::Deserialize;

use super::client::{ApiError, GitHub};
use council_protocol::actors::{CommitMessage, MAX_LISTED_COMMITS};
use council_protocol::review::diff::FileChange;

/// GitHub's compare endpoint lists at most this many files of a comparison, all on its
/// first page, whatever the paging parameters say.
pub const MAX_COMPARE_FILES: usize = council_protocol::review::diff::LISTED_FILES_CAP as usize;

/// The files of a diff, and whether the list stopped short of the whole diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub files: Vec<FileChange>,
    /// GitHub's cap was reached: files beyond it were not seen.
    pub capped: bool,
}

#[derive(Debug, Deserialize)]
struct Comparison {
    #[serde(default)]
    files: Vec<RawFile>,
    #[serde(default)]
    commits: Vec<RawCommit>,
    #[serde(default)]
    total_commits: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct RawCommit {
    sha: String,
    #[serde(default)]
    commit: Option<RawGitCommit>,
}

#[derive(Debug, Deserialize)]
struct RawGitCommit {
    #[serde(default)]
    message: String,
}

/// Commits of a comparison read per page; GitHub's most.
const COMMITS_PER_PAGE: usize = 100;

/// A diff with the commits that make it: what review reads for a head SHA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compared {
    pub listed: Listed,
    /// The commits from the merge base to the head, oldest first, as GitHub lists them
    /// (at most [`MAX_LISTED_COMMITS`]).
    pub commits: Vec<CommitMessage>,
    /// How many commits the comparison has in all (`total_commits`).
    pub total_commits: u64,
}

#[derive(Debug, Deserialize)]
struct RawFile {
    filename: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    previous_filename: Option<String>,
    #[serde(default)]
    additions: u64,
    #[serde(default)]
    deletions: u64,
    #[serde(default)]
    patch: Option<String>,
}

impl GitHub {
    /// The files changed from the merge base of `base` and `head` to `head` (three-dot
    /// compare, what a pull request shows), both named by SHA so that the answer cannot
    /// change under the reader. One request: `per_page=1` keeps the commit list short,
    /// and the files come whole on the first page (at most [`MAX_COMPARE_FILES`]).
    pub async fn compare_files(&self, base: &str, head: &str) -> Result<Listed, ApiError> {
        let what = format!("reading the diff {}...{}", short(base), short(head));
        let url = self.repo_path(&format!(
            "/compare/{}...{}?per_page=1",
            super::rest::encode(base),
            super::rest::encode(head)
        ));
        let comparison: Comparison = self.get(&what, &url, None).await?.json(&what)?;
        Ok(listed(comparison.files))
    }

    /// [`GitHub::compare_files`] with the comparison's commits (their SHAs and
    /// messages, for the trailers that tell an agent's pull request): the first 100 come
    /// with the files in the same request, so a pull request of up to 100 commits costs
    /// nothing more; beyond that one request per 100, up to [`MAX_LISTED_COMMITS`]
    /// (what GitHub lists of a pull request's commits; the rest are counted).
    pub async fn compare_with_commits(&self, base: &str, head: &str) -> Result<Compared, ApiError> {
        let what = format!("reading the diff {}...{}", short(base), short(head));
        let url = |page: usize| {
            let page = match page {
                1 => String::new(),
                n => format!("&page={n}"),
            };
            self.repo_path(&format!(
                "/compare/{}...{}?per_page={COMMITS_PER_PAGE}{page}",
                super::rest::encode(base),
                super::rest::encode(head)
            ))
        };
        let first: Comparison = self.get(&what, &url(1), None).await?.json(&what)?;
        let mut commits: Vec<CommitMessage> = Vec::new();
        let mut page_len = first.commits.len();
        let total = first.total_commits.unwrap_or(page_len as u64);
        commits.extend(first.commits.into_iter().map(commit_message));
        let wanted = total.min(MAX_LISTED_COMMITS) as usize;
        let mut page = 1;
        // Files come on the first page only; later pages add commits, until GitHub
        // lists no more or the most it lists were read.
        while commits.len() < wanted && page_len == COMMITS_PER_PAGE {
            page += 1;
            let next: Comparison = self.get(&what, &url(page), None).await?.json(&what)?;
            page_len = next.commits.len();
            commits.extend(next.commits.into_iter().map(commit_message));
        }
        commits.truncate(MAX_LISTED_COMMITS as usize);
        Ok(Compared {
            listed: listed(first.files),
            total_commits: total.max(commits.len() as u64),
            commits,
        })
    }
}

fn commit_message(raw: RawCommit) -> CommitMessage {
    CommitMessage {
        sha: raw.sha,
        message: raw.commit.map(|c| c.message).unwrap_or_default(),
    }
}

fn listed(files: Vec<RawFile>) -> Listed {
    let files: Vec<FileChange> = files
        .into_iter()
        .map(|f| FileChange {
            path: f.filename,
            status: f.status,
            previous_path: f.previous_filename,
            additions: f.additions,
            deletions: f.deletions,
            patch: f.patch,
        })
        .collect();
    let capped = files.len() >= MAX_COMPARE_FILES;
    Listed { files, capped }
}

fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}
