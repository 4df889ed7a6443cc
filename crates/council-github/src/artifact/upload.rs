//! The upload itself: CreateArtifact → blob → FinalizeArtifact (spec §3, §4), with the
//! documented delete-then-create answer to a name already taken in this run (§5.3).

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use bytes::Bytes;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::blob::{Blob, sig_secrets};
use super::runtime::{BackendIds, Resolved, Runtime, expires_at, resolve};
use super::twirp::{CreateResponse, FinalizeResponse, Ignored, ListResponse, Twirp};
use super::{
    ArtifactError, RuntimeEnv, UploadOptions, UploadOutcome, UploadReport, UploadRequest,
    artifact_name, zip_audit_file,
};

/// Uploads the audit file as `audit-PR-<n>`. Never panics and always returns a report:
/// `result` is `Skipped` outside Actions and on GHES (no request is sent then).
pub async fn upload(
    env: &RuntimeEnv,
    request: &UploadRequest<'_>,
    options: &UploadOptions,
) -> UploadReport {
    let counter = Arc::new(AtomicU32::new(0));
    let mut notes = Notes::default();
    let result = match resolve(env) {
        Ok(Resolved::Skip(reason)) => Ok(UploadOutcome::Skipped { reason }),
        Ok(Resolved::Ready(runtime)) => {
            run(&runtime, env, request, options, &counter, &mut notes).await
        }
        Err(e) => Err(e),
    };
    UploadReport {
        result,
        secrets: notes.secrets,
        warnings: notes.warnings,
        requests: counter.load(Ordering::Relaxed),
        replaced: notes.replaced,
    }
}

/// What the report carries besides the result, gathered as the upload goes.
#[derive(Default)]
struct Notes {
    secrets: Vec<String>,
    warnings: Vec<String>,
    replaced: Option<String>,
}

async fn run(
    runtime: &Runtime,
    env: &RuntimeEnv,
    request: &UploadRequest<'_>,
    options: &UploadOptions,
    counter: &Arc<AtomicU32>,
    notes: &mut Notes,
) -> Result<UploadOutcome, ArtifactError> {
    let expires = expires_at(
        request.retention_days,
        env.retention_days_limit.as_deref(),
        request.now,
        &mut notes.warnings,
    )?;
    let zip = Bytes::from(zip_audit_file(request.pr_number, request.audit_json)?);
    let hex = hex::encode(Sha256::digest(&zip));
    let session = Session {
        twirp: Twirp::new(
            &runtime.origin,
            &runtime.token,
            options.retry,
            counter.clone(),
        )?,
        ids: &runtime.ids,
        name: artifact_name(request.pr_number),
    };
    let signed_url = session
        .create_replacing(expires.as_deref(), &mut notes.replaced)
        .await?;
    // Known before any byte goes to the blob host, so the caller can mask even on failure.
    notes.secrets = sig_secrets(&signed_url);
    // P6: from here on the same signed URL is retried; Create is never repeated.
    let blob = Blob::new(&signed_url, options.retry, counter.clone())?;
    blob.upload(&zip, options.block_size, &hex).await?;
    let digest = format!("sha256:{hex}");
    let artifact_id = session.finalize(zip.len() as u64, &digest).await?;
    Ok(UploadOutcome::Uploaded {
        artifact_id,
        size: zip.len() as u64,
        digest,
    })
}

struct Session<'a> {
    twirp: Twirp,
    ids: &'a BackendIds,
    name: String,
}

impl Session<'_> {
    /// The run's own ids and the artifact name, the prefix of every request body.
    fn body(&self) -> Map<String, Value> {
        let mut body = Map::new();
        body.insert(
            "workflow_run_backend_id".into(),
            json!(self.ids.workflow_run),
        );
        body.insert(
            "workflow_job_run_backend_id".into(),
            json!(self.ids.workflow_job_run),
        );
        body.insert("name".into(), json!(self.name));
        body
    }

    /// CreateArtifact; on 409 (the name is taken in this run: a second job or step, or a
    /// retried Create that the service had already executed) the existing artifact is
    /// deleted and Create tried once more.
    ///
    /// Why delete-then-create rather than a per-job name or skipping: every run merges the
    /// stored ledger before it writes, so the later upload holds a superset of the earlier
    /// one; replacing it loses nothing and keeps the one documented name `audit-PR-<n>`.
    async fn create_replacing(
        &self,
        expires_at: Option<&str>,
        replaced: &mut Option<String>,
    ) -> Result<String, ArtifactError> {
        match self.create(expires_at).await {
            Err(e) if e.is_conflict() => {}
            other => return other,
        }
        let conflict = |e: ArtifactError| ArtifactError::Conflict {
            what: format!("replacing artifact {}", self.name),
            message: e.to_string(),
        };
        *replaced = self.delete_existing().await.map_err(conflict)?;
        self.create(expires_at)
            .await
            .map_err(|e| if e.is_conflict() { conflict(e) } else { e })
    }

    async fn create(&self, expires_at: Option<&str>) -> Result<String, ArtifactError> {
        let what = format!("creating artifact {} (CreateArtifact)", self.name);
        let mut body = self.body();
        if let Some(expires_at) = expires_at {
            body.insert("expires_at".into(), json!(expires_at));
        }
        body.insert("version".into(), json!(4));
        let reply: CreateResponse = self
            .twirp
            .call("CreateArtifact", &what, &Value::Object(body))
            .await?;
        match (reply.ok, reply.signed_upload_url) {
            (Some(true), Some(url)) if !url.is_empty() => Ok(url),
            (Some(true), _) => Err(ArtifactError::Decode {
                what,
                message: "no signed_upload_url".to_string(),
            }),
            _ => Err(ArtifactError::NotOk { what }),
        }
    }

    /// ListArtifacts by name, then DeleteArtifact of the newest with *its own* backend ids
    /// (another job of the run may have uploaded it). `None` when the list is empty.
    async fn delete_existing(&self) -> Result<Option<String>, ArtifactError> {
        let mut list = self.body();
        let name = list.remove("name").unwrap_or_default();
        list.insert("name_filter".into(), name);
        let what = format!("listing artifacts named {} (ListArtifacts)", self.name);
        let listed: ListResponse = self
            .twirp
            .call("ListArtifacts", &what, &Value::Object(list))
            .await?;
        let Some(newest) = listed
            .artifacts
            .into_iter()
            .filter(|a| a.name == self.name)
            .max_by_key(|a| id_order(a.database_id.as_deref()))
        else {
            return Ok(None);
        };
        let body = json!({
            "workflow_run_backend_id": newest.workflow_run_backend_id,
            "workflow_job_run_backend_id": newest.workflow_job_run_backend_id,
            "name": self.name,
        });
        let what = format!(
            "deleting the earlier artifact {} (DeleteArtifact)",
            self.name
        );
        let _: Ignored = self.twirp.call("DeleteArtifact", &what, &body).await?;
        Ok(Some(newest.database_id.unwrap_or_default()))
    }

    async fn finalize(&self, size: u64, digest: &str) -> Result<String, ArtifactError> {
        let what = format!("finalizing artifact {} (FinalizeArtifact)", self.name);
        let mut body = self.body();
        body.insert("size".into(), json!(size.to_string()));
        body.insert("hash".into(), json!(digest));
        let reply: FinalizeResponse = self
            .twirp
            .call("FinalizeArtifact", &what, &Value::Object(body))
            .await?;
        match (reply.ok, reply.artifact_id) {
            (Some(true), Some(id)) if !id.is_empty() => Ok(id),
            (Some(true), _) => Err(ArtifactError::Decode {
                what,
                message: "no artifact_id".to_string(),
            }),
            _ => Err(ArtifactError::NotOk { what }),
        }
    }
}

/// Decimal ids of any length compare as numbers: shorter is smaller, then by digits.
fn id_order(id: Option<&str>) -> (usize, String) {
    let id = id.unwrap_or_default().trim_start_matches('0');
    (id.len(), id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_order_numerically() {
        assert!(id_order(Some("10")) > id_order(Some("9")));
        assert!(id_order(Some("0010")) > id_order(Some("9")));
        assert!(id_order(None) < id_order(Some("1")));
    }
}
