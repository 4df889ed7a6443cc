//! The files of a pull request's diff as GitHub lists them.

use serde::Deserialize;

use super::client::{ApiError, GitHub};
use council_protocol::review::diff::FileChange;

/// GitHub lists at most 3,000 files of a pull request, 100 per page.
pub const MAX_FILE_PAGES: usize = 30;

/// The files GitHub lists for a pull request, and whether its list stopped short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub files: Vec<FileChange>,
    /// GitHub's cap was reached: files beyond it were not seen.
    pub capped: bool,
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
    /// The files of a pull request's diff, in as few requests as GitHub allows (100 a
    /// page, 30 pages at most).
    pub async fn list_files(&self, number: u64) -> Result<Listed, ApiError> {
        let url = self.repo_path(&format!("/pulls/{number}/files?per_page=100"));
        let (pages, more): (Vec<Vec<RawFile>>, bool) = self
            .get_pages_upto(
                &format!("listing the files of #{number}"),
                url,
                MAX_FILE_PAGES,
            )
            .await?;
        let files: Vec<FileChange> = pages
            .into_iter()
            .flatten()
            .map(|f| FileChange {
                path: f.filename,
                status: f.status,
                previous_path: f.previous_filename,
                additions: f.additions,
                deletions: f.deletions,
                patch: f.patch,
            })
            .collect();
        let capped = more || files.len() >= MAX_FILE_PAGES * 100;
        Ok(Listed { files, capped })
    }
}
