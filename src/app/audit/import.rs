//! `council audit import FILE…`: Context Object files (downloaded audit artifacts) into
//! the store. Each file is checked as `council verify` checks it (duplicate members,
//! trailing data, edited `state`/`gates`, the chain and signatures), a file that leaves
//! old entries out included; the store then adds what it lacks, or records the refusal.

use std::path::PathBuf;

use council_protocol::audit::ContextObject;
use council_protocol::audit::stored::Stored;
use council_protocol::error::{Error, Outcome, Result};
use council_store::{BY_GITHUB, Imported, Offer, Store};
use serde_json::{Value, json};

use super::{open_default, store_error};
use crate::app::{ReadError, display_path, now, read_text};
use crate::env::RunEnv;
use crate::request::{AuditRequest, VerifyRequest};
use crate::runner::Level;

/// A Context Object file larger than this is not one council wrote.
const MAX_FILE_BYTES: u64 = 256 << 20;

pub async fn run(env: &RunEnv, req: &AuditRequest, files: &[PathBuf]) -> Result<Outcome> {
    let mut store = open_default(env, req).await?;
    let mut imported = Vec::new();
    let mut unreadable = Vec::new();
    for file in files {
        let shown = display_path(&env.workspace, &env.workspace.join(file));
        match import_file(env, req, &mut store, file, &shown).await {
            Ok(done) => {
                tell(env, req, &shown, &done);
                imported.push((shown, done));
            }
            Err(e @ (Error::Store(_) | Error::Usage(_))) => return Err(e),
            Err(e) => {
                env.runner
                    .annotate(Level::Error, "council audit import", &e.to_string());
                unreadable.push(shown);
            }
        }
    }
    let refused = imported.iter().filter(|(_, i)| i.refused.is_some()).count();
    if imported.iter().any(|(_, i)| i.added > 0) {
        store.optimize().await.map_err(store_error)?;
    }
    if req.json {
        let files: Vec<Value> = imported
            .iter()
            .map(|(file, i)| {
                let mut v = serde_json::to_value(i).unwrap_or_default();
                v["file"] = json!(file);
                v
            })
            .collect();
        env.runner.println(
            &(json!({
                "database": store.shown(),
                "files": files,
                "refused": refused,
                "unreadable": unreadable,
            }))
            .to_string(),
        );
    }
    if !unreadable.is_empty() {
        return Err(Error::Input(format!(
            "{} of {} files could not be read as Context Objects: {}",
            unreadable.len(),
            files.len(),
            unreadable.join(", ")
        )));
    }
    Ok(if refused > 0 {
        Outcome::GateFailed
    } else {
        Outcome::Passed
    })
}

async fn import_file(
    env: &RunEnv,
    req: &AuditRequest,
    store: &mut Store,
    file: &std::path::Path,
    shown: &str,
) -> Result<Imported> {
    let path = env.workspace.join(file);
    let text = read_text(&path, MAX_FILE_BYTES).map_err(|e| match e {
        ReadError::Io(e) => Error::io("audit file", shown, e),
        ReadError::TooLarge => Error::Input(format!(
            "audit file {shown}: larger than {} MiB",
            MAX_FILE_BYTES >> 20
        )),
        ReadError::NotUtf8 => Error::Input(format!("audit file {shown}: not valid UTF-8")),
    })?;
    let key = req.hmac_key.as_ref().map(|k| k.expose().as_bytes());
    let options = VerifyRequest {
        file: Some(file.to_path_buf()),
        // A file that leaves old entries out proves only what it holds: the store places
        // it, and says the chain is partial until the older entries arrive.
        allow_partial: true,
        hmac_key: req.hmac_key.clone(),
        ..VerifyRequest::default()
    };
    let at = now();
    match crate::app::verify::verify_files(env, &options) {
        Ok(_) => {}
        Err(Error::Tampered(problem)) => {
            let (repository, context_id) = claimed_subject(&text);
            return store
                .refuse(&repository, &context_id, shown, &problem, Some(&text), &at)
                .await
                .map_err(store_error);
        }
        Err(e) => return Err(e),
    }
    let context: ContextObject = serde_json::from_str(&text)
        .map_err(|e| Error::Input(format!("audit file {shown}: not a Context Object: {e}")))?;
    let stored = Stored::from_file(context);
    let offer = Offer {
        stored: &stored,
        source: shown,
        key,
        pr: None,
        // A file is no live read: its header is stored as unverified.
        attribution: None,
        now: &at,
        document: Some(&text),
    };
    store.import(&offer).await.map_err(store_error)
}

/// The repository and context a refused file says it is about, as far as it can be read.
fn claimed_subject(text: &str) -> (String, String) {
    let value: Value = serde_json::from_str(text).unwrap_or_default();
    let field = |name: &str| {
        value
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_string()
    };
    (field("repository"), field("context_id"))
}

fn tell(env: &RunEnv, req: &AuditRequest, file: &str, i: &Imported) {
    let line = match &i.refused {
        Some(why) => format!("{file}: refused and recorded as a verification failure: {why}"),
        None => format!(
            "{file}: {} of {}: {} new entries, {} already stored; the stored ledger is {}{}{}",
            i.context_id,
            i.repository,
            i.added,
            i.known,
            i.verification.as_str(),
            i.detail
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default(),
            if i.attribution == BY_GITHUB {
                ""
            } else {
                "; its author and branches are unverified (only the file's unsigned header \
                 names them: `council audit sync` confirms them)"
            }
        ),
    };
    if i.refused.is_some() {
        env.runner
            .annotate(Level::Error, "council audit import", &line);
    } else if env.in_actions {
        env.runner
            .annotate(Level::Notice, "council audit import", &line);
    } else if !req.json {
        env.runner.println(&line.to_string());
    }
}
