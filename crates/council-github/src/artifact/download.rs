//! A previous run's audit file through the public REST API (spec §6): the Results service
//! only sees the current run. Needs a token with `actions: read`.

use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::{ArtifactError, artifact_name, read_audit_file};
use crate::client::{ApiError, GitHub};
use crate::rest::encode;

/// Pages of 100 artifacts followed at most; a PR with more same-named artifacts than this
/// has retention far beyond what the ledger needs.
const MAX_PAGES: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DownloadOptions {
    /// Skip artifacts of this workflow run (usually the current `GITHUB_RUN_ID`).
    pub exclude_run_id: Option<u64>,
    /// Which runs' artifacts may be taken at all.
    pub provenance: Provenance,
    /// Largest zip fetched (checked against the listing before download, and after).
    pub max_zip_bytes: u64,
    /// Largest `PR-<n>.json` unpacked: a zip bomb stops there.
    pub max_json_bytes: u64,
}

/// Whose artifacts count. Any workflow of the repository can upload an `audit-PR-<n>`,
/// a fork's pull request workflow included (its run belongs to the base repository, its
/// code to the fork): only a run of the repository's own code is a trusted source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Provenance {
    /// Every artifact of that name (reading a file for its own sake).
    #[default]
    Any,
    /// Only artifacts whose run's `head_repository_id` is the repository's own id: the
    /// listing's `repository_id`, or this one when the listing lacks it.
    OwnRuns { repository_id: Option<u64> },
}

impl Provenance {
    fn admits(&self, artifact: &Listed) -> bool {
        let Provenance::OwnRuns { repository_id } = self else {
            return true;
        };
        let Some(run) = &artifact.workflow_run else {
            return false;
        };
        run.head_repository_id
            .is_some_and(|head| Some(head) == run.repository_id || Some(head) == *repository_id)
    }
}

impl Default for DownloadOptions {
    fn default() -> Self {
        DownloadOptions {
            exclude_run_id: None,
            provenance: Provenance::Any,
            max_zip_bytes: 256 << 20,
            max_json_bytes: 256 << 20,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downloaded {
    pub artifact_id: u64,
    /// `audit-PR-<n>`.
    pub name: String,
    pub run_id: Option<u64>,
    /// The bytes of `PR-<n>.json`, as uploaded.
    pub json: Vec<u8>,
}

#[derive(Debug, Deserialize)]
struct Page {
    #[serde(default)]
    artifacts: Vec<Listed>,
}

#[derive(Debug, Clone, Deserialize)]
struct Listed {
    id: u64,
    #[serde(default)]
    name: String,
    #[serde(default)]
    size_in_bytes: u64,
    #[serde(default)]
    expired: bool,
    #[serde(default)]
    digest: Option<String>,
    #[serde(default)]
    workflow_run: Option<RunRef>,
}

#[derive(Debug, Clone, Deserialize)]
struct RunRef {
    #[serde(default)]
    id: Option<u64>,
    /// The repository the run belongs to (the one the artifacts are listed in).
    #[serde(default)]
    repository_id: Option<u64>,
    /// The repository whose code the run ran: a fork's for its pull requests.
    #[serde(default)]
    head_repository_id: Option<u64>,
}

/// An artifact of that name that was not taken, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassedOver {
    pub artifact_id: u64,
    pub run_id: Option<u64>,
}

/// The newest unexpired `audit-PR-<n>` of the repository (highest id, as the toolkit picks
/// "newest"), downloaded, digest-checked and unpacked; `None` when there is none.
pub async fn download_previous(
    gh: &GitHub,
    pr_number: u64,
    options: &DownloadOptions,
) -> Result<Option<Downloaded>, ArtifactError> {
    download_first(gh, pr_number, options, 1, |found| Some(found.clone())).await
}

/// Downloads the newest unexpired `audit-PR-<n>` artifacts one by one, at most `tries`
/// of them, until `accept` takes one; `None` when none was taken.
pub async fn download_first<T>(
    gh: &GitHub,
    pr_number: u64,
    options: &DownloadOptions,
    tries: usize,
    accept: impl FnMut(&Downloaded) -> Option<T>,
) -> Result<Option<T>, ArtifactError> {
    Ok(download_trusted(gh, pr_number, options, tries, accept)
        .await?
        .0)
}

/// [`download_first`], also naming the artifacts its provenance rule passed over
/// (newest first), which were not downloaded.
pub async fn download_trusted<T>(
    gh: &GitHub,
    pr_number: u64,
    options: &DownloadOptions,
    tries: usize,
    mut accept: impl FnMut(&Downloaded) -> Option<T>,
) -> Result<(Option<T>, Vec<PassedOver>), ArtifactError> {
    let name = artifact_name(pr_number);
    let listed = list(gh, &name).await?;
    let (admitted, passed): (Vec<Listed>, Vec<Listed>) =
        newest(listed, &name, options.exclude_run_id)
            .into_iter()
            .partition(|a| options.provenance.admits(a));
    let passed = passed
        .iter()
        .map(|a| PassedOver {
            artifact_id: a.id,
            run_id: a.workflow_run.as_ref().and_then(|r| r.id),
        })
        .collect();
    for chosen in admitted.into_iter().take(tries) {
        let found = fetch_checked(gh, &chosen, pr_number, options).await?;
        if let Some(taken) = accept(&found) {
            return Ok((Some(taken), passed));
        }
    }
    Ok((None, passed))
}

async fn fetch_checked(
    gh: &GitHub,
    chosen: &Listed,
    pr_number: u64,
    options: &DownloadOptions,
) -> Result<Downloaded, ArtifactError> {
    if chosen.size_in_bytes > options.max_zip_bytes {
        return Err(too_large(
            chosen,
            chosen.size_in_bytes,
            options.max_zip_bytes,
        ));
    }
    let zip = fetch(gh, chosen).await?;
    if zip.len() as u64 > options.max_zip_bytes {
        return Err(too_large(chosen, zip.len() as u64, options.max_zip_bytes));
    }
    verify_digest(chosen, &zip)?;
    let json = read_audit_file(&zip, pr_number, options.max_json_bytes).map_err(|message| {
        ArtifactError::BadArchive {
            id: chosen.id,
            message,
        }
    })?;
    Ok(Downloaded {
        artifact_id: chosen.id,
        name: chosen.name.clone(),
        run_id: chosen.workflow_run.as_ref().and_then(|r| r.id),
        json,
    })
}

/// Every page of `GET /repos/{o}/{r}/actions/artifacts?name=…` (`Link: rel="next"`).
async fn list(gh: &GitHub, name: &str) -> Result<Vec<Listed>, ArtifactError> {
    let url = gh.repo_path(&format!(
        "/actions/artifacts?name={}&per_page=100",
        encode(name)
    ));
    let pages: Vec<Page> = match gh
        .get_pages(&format!("listing artifacts named {name}"), url, MAX_PAGES)
        .await
    {
        Ok(pages) => pages,
        // Servers without the Actions artifacts API (some GHES setups) have none to offer.
        Err(ApiError::NotFound { .. }) => Vec::new(),
        Err(e) => return Err(api_error(e)),
    };
    Ok(pages.into_iter().flat_map(|p| p.artifacts).collect())
}

/// Unexpired artifacts of that name from other runs, newest (highest id) first.
fn newest(listed: Vec<Listed>, name: &str, exclude_run_id: Option<u64>) -> Vec<Listed> {
    let mut kept: Vec<Listed> = listed
        .into_iter()
        .filter(|a| a.name == name && !a.expired)
        .filter(|a| {
            exclude_run_id.is_none() || a.workflow_run.as_ref().and_then(|r| r.id) != exclude_run_id
        })
        .collect();
    kept.sort_by_key(|a| std::cmp::Reverse(a.id));
    kept
}

/// `GET …/artifacts/{id}/zip` answers 302 to a short-lived blob URL; octocrab follows it and
/// its redirect policy drops `Authorization` on the cross-origin hop.
async fn fetch(gh: &GitHub, artifact: &Listed) -> Result<bytes::Bytes, ArtifactError> {
    let what = format!("downloading artifact {} ({})", artifact.id, artifact.name);
    let path = gh.repo_path(&format!("/actions/artifacts/{}/zip", artifact.id));
    let reply = gh.get(&what, &path, None).await.map_err(api_error)?;
    Ok(reply.body)
}

/// Listings of v4 artifacts carry `sha256:<hex>` of the zip; other or absent digests are
/// not checked (older artifacts have none).
fn verify_digest(artifact: &Listed, zip: &[u8]) -> Result<(), ArtifactError> {
    let Some(expected) = artifact
        .digest
        .as_deref()
        .and_then(|d| d.strip_prefix("sha256:"))
    else {
        return Ok(());
    };
    let actual = hex::encode(Sha256::digest(zip));
    if !expected.eq_ignore_ascii_case(&actual) {
        return Err(ArtifactError::DigestMismatch {
            id: artifact.id,
            expected: format!("sha256:{}", super::truncate(expected, 64)),
            actual: format!("sha256:{actual}"),
        });
    }
    Ok(())
}

fn too_large(artifact: &Listed, size: u64, max: u64) -> ArtifactError {
    ArtifactError::BadArchive {
        id: artifact.id,
        message: format!("{size} bytes, more than the {max} this run reads"),
    }
}

fn api_error(e: ApiError) -> ArtifactError {
    match e {
        ApiError::Forbidden {
            what,
            status,
            message,
        } => ArtifactError::Forbidden {
            what,
            message: format!("{status} {message}"),
        },
        other => ArtifactError::Api(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(id: u64, run: u64, expired: bool) -> Listed {
        Listed {
            id,
            name: "audit-PR-1".into(),
            size_in_bytes: 10,
            expired,
            digest: None,
            workflow_run: Some(RunRef {
                id: Some(run),
                repository_id: Some(10),
                head_repository_id: Some(10),
            }),
        }
    }

    #[test]
    fn only_runs_of_the_repositorys_own_code_are_a_trusted_source() {
        let own = Provenance::OwnRuns {
            repository_id: None,
        };
        let mut artifact = listed(1, 1, false);
        assert!(own.admits(&artifact) && Provenance::Any.admits(&artifact));
        let run = artifact.workflow_run.as_mut().unwrap();
        run.head_repository_id = Some(99);
        assert!(!own.admits(&artifact), "a fork's run");
        assert!(Provenance::Any.admits(&artifact));
        let run = artifact.workflow_run.as_mut().unwrap();
        run.repository_id = None;
        run.head_repository_id = Some(10);
        assert!(!own.admits(&artifact), "nothing to compare with");
        let known = Provenance::OwnRuns {
            repository_id: Some(10),
        };
        assert!(known.admits(&artifact));
        artifact.workflow_run = None;
        assert!(!known.admits(&artifact));
    }

    #[test]
    fn newest_unexpired_of_another_run_wins() {
        let all = vec![
            listed(5, 50, false),
            listed(9, 90, true),
            listed(7, 70, false),
            listed(8, 80, false),
        ];
        let ids = |v: Vec<Listed>| v.iter().map(|a| a.id).collect::<Vec<_>>();
        assert_eq!(ids(newest(all.clone(), "audit-PR-1", None)), [8, 7, 5]);
        assert_eq!(ids(newest(all.clone(), "audit-PR-1", Some(80))), [7, 5]);
        assert!(newest(all, "audit-PR-2", None).is_empty());
    }

    #[test]
    fn digest_is_checked_case_insensitively() {
        let mut a = listed(1, 1, false);
        a.digest = Some(format!(
            "sha256:{}",
            hex::encode(Sha256::digest(b"zip")).to_uppercase()
        ));
        assert!(verify_digest(&a, b"zip").is_ok());
        assert!(matches!(
            verify_digest(&a, b"zap"),
            Err(ArtifactError::DigestMismatch { .. })
        ));
        a.digest = Some("md5:abc".into());
        assert!(verify_digest(&a, b"zap").is_ok());
    }
}
