//! The audit file as a GitHub Actions artifact: native upload to the Results service
//! ("v4", profile A of `shared/specs/artifact-upload-v4.md`) and download of a previous
//! run's file through the REST API.
//!
//! Happy-path upload = 4 requests: CreateArtifact → Put Block → Put Block List →
//! FinalizeArtifact (one more Put Block per extra 8 MiB).

mod blob;
mod download;
mod runtime;
mod twirp;
mod upload;
mod zip;

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use http::HeaderMap;
use octocrab::Octocrab;

use crate::client::Reply;
use crate::retry::{Failure, GaveUp, RetryPolicy, parse_retry_after};

pub use blob::MAX_BLOCK_SIZE;
pub use download::{
    DownloadOptions, Downloaded, PassedOver, Provenance, download_first, download_previous,
    download_trusted,
};
pub use runtime::{BackendIds, RuntimeEnv, backend_ids, is_ghes};
pub use upload::upload;

/// `audit-PR-<n>`: the artifact's name (SPEC.md, "Names").
pub fn artifact_name(pr_number: u64) -> String {
    format!("audit-PR-{pr_number}")
}

/// `PR-<n>.json`: the one entry at the zip root.
pub fn entry_name(pr_number: u64) -> String {
    format!("PR-{pr_number}.json")
}

/// The artifact's bytes: a deterministic zip of `audit_json` as `PR-<n>.json`.
pub fn zip_audit_file(pr_number: u64, audit_json: &[u8]) -> Result<Vec<u8>, ArtifactError> {
    zip::zip_single(&entry_name(pr_number), audit_json).map_err(ArtifactError::Zip)
}

/// `PR-<n>.json` out of an artifact zip, refusing escaping names and more than `max_bytes`.
pub fn read_audit_file(zip: &[u8], pr_number: u64, max_bytes: u64) -> Result<Vec<u8>, String> {
    zip::read_single(zip, &entry_name(pr_number), max_bytes)
}

/// What to upload.
#[derive(Debug, Clone)]
pub struct UploadRequest<'a> {
    pub pr_number: u64,
    /// The audit file's bytes, zipped as they are.
    pub audit_json: &'a [u8],
    /// The `retention-days` input; `None` or 0 = the repository's default.
    pub retention_days: Option<u32>,
    /// "Now" for `expires_at` (a parameter so that tests are exact).
    pub now: chrono::DateTime<chrono::Utc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UploadOptions {
    pub retry: RetryPolicy,
    /// Bytes per Put Block, clamped to 1..=[`MAX_BLOCK_SIZE`].
    pub block_size: usize,
}

impl Default for UploadOptions {
    fn default() -> Self {
        UploadOptions {
            retry: RetryPolicy::default(),
            block_size: MAX_BLOCK_SIZE,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UploadOutcome {
    /// `digest` is `sha256:<hex>` of the zip, the form the REST API lists; the action
    /// output `artifact-digest` of upload-artifact is the hex alone.
    Uploaded {
        artifact_id: String,
        size: u64,
        digest: String,
    },
    /// Outside Actions or on GHES: nothing was sent; `reason` is the one-line warning.
    Skipped { reason: String },
}

/// Everything an upload produced, also when it failed: the caller must mask `secrets`
/// (`::add-mask::`) and print `warnings` in every case.
pub struct UploadReport {
    pub result: Result<UploadOutcome, ArtifactError>,
    /// The SAS `sig`, decoded and URL-encoded, once CreateArtifact returned a signed URL.
    pub secrets: Vec<String>,
    pub warnings: Vec<String>,
    /// HTTP requests sent, retries included.
    pub requests: u32,
    /// Id of the same-named artifact of this run that was deleted to make room (§5.3).
    pub replaced: Option<String>,
}

/// `Debug` shows how many secrets there are, never their values.
impl std::fmt::Debug for UploadReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UploadReport")
            .field("result", &self.result)
            .field("secrets", &format_args!("[{} hidden]", self.secrets.len()))
            .field("warnings", &self.warnings)
            .field("requests", &self.requests)
            .field("replaced", &self.replaced)
            .finish()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ArtifactError {
    #[error("artifact upload: {0}")]
    Config(String),
    #[error(
        "Failed to get backend IDs: The provided JWT token is invalid and/or missing claims \
         ({0}). ACTIONS_RUNTIME_TOKEN comes from the runner: re-run the job, and report it if \
         it persists"
    )]
    Token(String),
    #[error("retention-days {0} is out of range: use a number of days from 1 to 90")]
    Retention(u32),
    #[error(
        "{what}: the artifact storage quota is used up ({message}). Delete old artifacts or \
         raise the account's Actions storage limit, then re-run the job"
    )]
    Quota { what: String, message: String },
    #[error(
        "{what}: an artifact with this name already exists in this workflow run and could not \
         be replaced ({message}). Another job may be uploading it at the same moment: re-run \
         the job"
    )]
    Conflict { what: String, message: String },
    #[error("{what}: {message}. {hint}")]
    Rejected {
        what: String,
        status: u16,
        message: String,
        hint: String,
    },
    #[error(
        "{what}: {message} (gave up after {attempts} attempt{s}). The artifact service may be \
         degraded (https://www.githubstatus.com), or a self-hosted runner cannot reach it: \
         re-run the job",
        s = if *attempts == 1 { "" } else { "s" }
    )]
    Unavailable {
        what: String,
        attempts: u32,
        message: String,
    },
    #[error("{what}: the service did not answer `ok: true`: re-run the job")]
    NotOk { what: String },
    #[error("{what}: unexpected response: {message}")]
    Decode { what: String, message: String },
    #[error("zipping the audit file: {0}")]
    Zip(String),
    /// The REST API refused to list or download: the token lacks `actions: read`.
    #[error(
        "{what}: {message}. Grant `actions: read` in the workflow's `permissions:` block (a \
         token for another repository needs a PAT or app token with Actions read access)"
    )]
    Forbidden { what: String, message: String },
    #[error(transparent)]
    Api(crate::ApiError),
    #[error(
        "artifact {id}: the download hashes to {actual}, the listing says {expected}. The \
         download was corrupted or altered: re-run the job"
    )]
    DigestMismatch {
        id: u64,
        expected: String,
        actual: String,
    },
    #[error(
        "artifact {id}: {message}. It was not written by council: delete it, or re-run the job"
    )]
    BadArchive { id: u64, message: String },
}

impl ArtifactError {
    fn is_conflict(&self) -> bool {
        matches!(self, ArtifactError::Rejected { status: 409, .. })
    }
}

impl From<ArtifactError> for council_protocol::error::Error {
    /// Exit 3 (artifact service failed), except a retention value no date can hold: bad input.
    fn from(e: ArtifactError) -> Self {
        match e {
            ArtifactError::Retention(_) => council_protocol::error::Error::Input(e.to_string()),
            _ => council_protocol::error::Error::Artifact(e.to_string()),
        }
    }
}

/// Secrets that must not reach a message even if a server echoes them.
#[derive(Debug, Clone, Default)]
struct Redact(Vec<String>);

impl Redact {
    fn new(secrets: impl IntoIterator<Item = String>) -> Redact {
        Redact(secrets.into_iter().filter(|s| s.len() >= 3).collect())
    }

    fn clean(&self, text: &str) -> String {
        self.0.iter().fold(text.to_string(), |text, secret| {
            text.replace(secret.as_str(), "***")
        })
    }

    /// The error once retries are spent: a final status is `Rejected` with the caller's
    /// hint for it, anything else `Unavailable`; secrets are cut from the message.
    fn give_up(&self, what: &str, gave_up: GaveUp, hint: fn(u16) -> &'static str) -> ArtifactError {
        let what = what.to_string();
        let message = self.clean(&gave_up.last.message);
        match gave_up.last.status {
            Some(status) if !gave_up.last.retryable => ArtifactError::Rejected {
                hint: hint(status).to_string(),
                what,
                status,
                message,
            },
            _ => ArtifactError::Unavailable {
                what,
                attempts: gave_up.attempts,
                message,
            },
        }
    }
}

/// One request through octocrab, body fully read (capped: these answers are small).
async fn send(
    client: &Octocrab,
    request: http::Request<bytes::Bytes>,
    requests: &AtomicU32,
) -> Result<Reply, Failure> {
    requests.fetch_add(1, Ordering::Relaxed);
    crate::client::execute(client, request, 4 << 20).await
}

fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    headers
        .get(http::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_retry_after)
}

/// At most `max` characters of server text, cut on a character boundary.
fn truncate(text: &str, max: usize) -> String {
    match council_protocol::chars::cut(text, max) {
        Some(head) => format!("{head}…"),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_contract() {
        assert_eq!(artifact_name(123), "audit-PR-123");
        assert_eq!(entry_name(123), "PR-123.json");
    }

    #[test]
    fn redaction_and_truncation() {
        let r = Redact::new(["tok123".to_string(), "x".to_string()]);
        assert_eq!(r.clean("a tok123 b x"), "a *** b x");
        assert_eq!(truncate("héllo", 2), "hé…");
        assert_eq!(truncate("hé", 2), "hé");
    }

    #[test]
    fn report_debug_hides_secrets() {
        let report = UploadReport {
            result: Ok(UploadOutcome::Skipped { reason: "r".into() }),
            secrets: vec!["s3cr3t".into()],
            warnings: Vec::new(),
            requests: 0,
            replaced: None,
        };
        let shown = format!("{report:?}");
        assert!(
            !shown.contains("s3cr3t") && shown.contains("1 hidden"),
            "{shown}"
        );
    }

    #[test]
    fn errors_map_to_exit_codes() {
        let e: council_protocol::error::Error = ArtifactError::NotOk { what: "x".into() }.into();
        assert_eq!(e.kind(), council_protocol::error::Kind::Service);
        let e: council_protocol::error::Error = ArtifactError::Retention(u32::MAX).into();
        assert_eq!(e.kind(), council_protocol::error::Kind::BadInput);
    }
}
