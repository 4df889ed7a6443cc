//! The files of a diff between two commits, as GitHub's compare endpoint lists them.
//!
//! A decision about a pull request is a decision about two commits: review and release
//! read the diff of `base...head` by SHA, never "the pull request's files", which GitHub
//! answers for whatever the head is at the moment of asking (a push and a push back
//! between two reads would go unseen).

use serde::Deserialize;

use super::client::{ApiError, GitHub};
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
        let files: Vec<FileChange> = comparison
            .files
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
        Ok(Listed { files, capped })
    }
}

fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}
