//! After a PR stage decided: the ledger comment, the audit file, the artifact.

use super::ledger::persist;
use super::{run_url, write_audit};
use crate::audit::ContextObject;
use crate::audit::ledger::Links;
use crate::error::Result;
use crate::event::PullRequest;
use crate::github::artifact::{self, UploadOptions, UploadOutcome, UploadRequest};
use crate::github::{GitHub, RepoName};
use crate::render::text::Message;
use crate::render::{EffectReport, EffectResult};
use crate::runner::Level;
use crate::settings::Settings;

pub struct Recorded {
    /// The Context Object as written to the audit file.
    pub context: ContextObject,
    pub audit_path: String,
    pub artifact_id: String,
    /// The comment and the upload: effects too, but after the timeline was sealed.
    pub effects: Vec<EffectReport>,
    pub notes: Vec<Message>,
}

pub async fn record(
    settings: &Settings,
    gh: Option<&GitHub>,
    repo: &RepoName,
    pr: &PullRequest,
    ours: &ContextObject,
) -> Result<Recorded> {
    let links = Links {
        run_url: run_url(settings, repo),
        artifact: Some(artifact::artifact_name(pr.number)),
    };
    let persisted = persist(settings, gh, pr, ours, &links).await;
    for warning in &persisted.warnings {
        settings
            .runner
            .annotate(Level::Warning, "council ledger", warning);
    }
    let audit_path = write_audit(settings, &persisted.context)?;
    let mut effects: Vec<EffectReport> = persisted.effect.into_iter().collect();
    let mut notes = Vec::new();
    let mut artifact_id = String::new();
    if !settings.in_actions {
        notes.push(Message::new().text("artifact upload runs only inside GitHub Actions"));
    } else if settings.upload_artifact {
        match upload(settings, pr, &persisted.context).await {
            Upload::Done(id, effect) => {
                artifact_id = id;
                effects.push(effect);
            }
            Upload::Skipped(why) => {
                settings
                    .runner
                    .annotate(Level::Notice, "council artifact", &why);
                notes.push(Message::new().text(format!("artifact not uploaded: {why}")));
            }
            Upload::Failed(effect) => effects.push(effect),
        }
    } else {
        notes.push(Message::new().text("artifact upload is off (`upload-artifact: false`)"));
    }
    Ok(Recorded {
        context: persisted.context,
        audit_path,
        artifact_id,
        effects,
        notes,
    })
}

enum Upload {
    Done(String, EffectReport),
    Skipped(String),
    Failed(EffectReport),
}

async fn upload(settings: &Settings, pr: &PullRequest, context: &ContextObject) -> Upload {
    let json = context.to_pretty_json();
    let request = UploadRequest {
        pr_number: pr.number,
        audit_json: json.as_bytes(),
        retention_days: settings.retention_days,
        now: chrono::Utc::now(),
    };
    let options = UploadOptions {
        retry: settings.retry,
        ..UploadOptions::default()
    };
    let report = artifact::upload(&settings.artifact, &request, &options).await;
    if settings.in_actions {
        // Signed-URL signatures, not tokens: mask them in case a later step prints one.
        for secret in &report.secrets {
            println!("::add-mask::{secret}");
        }
    }
    for warning in &report.warnings {
        settings
            .runner
            .annotate(Level::Warning, "council artifact", warning);
    }
    let action = "action:upload-artifact";
    match report.result {
        Ok(UploadOutcome::Uploaded { artifact_id, .. }) => {
            let mut message = Message::new()
                .text("uploaded ")
                .value(artifact::artifact_name(pr.number))
                .text(format!(" (id {artifact_id})"));
            if let Some(old) = report.replaced {
                message = message.text(format!(", replacing artifact {old} of this run"));
            }
            Upload::Done(
                artifact_id,
                EffectReport {
                    action,
                    result: EffectResult::Done(message),
                },
            )
        }
        Ok(UploadOutcome::Skipped { reason }) => Upload::Skipped(reason),
        Err(e) => Upload::Failed(EffectReport {
            action,
            result: EffectResult::Failed(Message::new().text(format!(
                "{e}; the audit file stays on disk at out/audit/PR-{}.json",
                pr.number
            ))),
        }),
    }
}
