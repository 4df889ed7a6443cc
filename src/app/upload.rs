//! The audit file as the artifact `audit-PR-<n>`, through the Actions Results service.

use crate::env::RunEnv;
use crate::request::Upload as UploadSettings;
use crate::runner::Level;
use council_github::artifact::{self, UploadOptions, UploadOutcome, UploadRequest};
use council_protocol::audit::ContextObject;
use council_protocol::render::text::Message;
use council_protocol::stage::{EffectReport, EffectResult};

pub enum Upload {
    Done(String, EffectReport),
    /// Not attempted by choice or outside Actions: a footnote.
    Off(String),
    /// Not possible here (no Results service, GHES): worth a notice.
    Skipped(String),
    Failed(EffectReport),
}

/// Uploads `context` as `audit-PR-<n>`; `audit_path` is where it was written on disk.
pub async fn upload(
    env: &RunEnv,
    wanted: &UploadSettings,
    pr_number: u64,
    context: &ContextObject,
    audit_path: &str,
) -> Upload {
    if !env.in_actions {
        return Upload::Off("artifact upload runs only inside GitHub Actions".to_string());
    }
    if !wanted.enabled {
        return Upload::Off("artifact upload is off (`upload-artifact: false`)".to_string());
    }
    let json = context.to_pretty_json();
    let request = UploadRequest {
        pr_number,
        audit_json: json.as_bytes(),
        retention_days: wanted.retention_days,
        now: chrono::Utc::now(),
    };
    let options = UploadOptions {
        retry: env.retry,
        ..UploadOptions::default()
    };
    let report = artifact::upload(&env.artifact, &request, &options).await;
    // Signed-URL signatures, not tokens: mask them in case a later step prints one.
    for secret in &report.secrets {
        env.runner.println(&format!("::add-mask::{secret}"));
    }
    for warning in &report.warnings {
        env.runner
            .annotate(Level::Warning, "council artifact", warning);
    }
    let action = "action:upload-artifact";
    match report.result {
        Ok(UploadOutcome::Uploaded { artifact_id, .. }) => {
            let mut message = Message::new()
                .text("uploaded ")
                .value(artifact::artifact_name(pr_number))
                .text(format!(" (id {artifact_id})"));
            if let Some(old) = report.replaced {
                message = message.text(format!(", replacing artifact {old} of this run"));
            }
            Upload::Done(
                artifact_id,
                EffectReport::new(action, EffectResult::Done(message)),
            )
        }
        Ok(UploadOutcome::Skipped { reason }) => Upload::Skipped(reason),
        Err(e) => Upload::Failed(EffectReport::new(
            action,
            EffectResult::Failed(
                Message::new().text(format!("{e}; the audit file stays on disk at {audit_path}")),
            ),
        )),
    }
}
