//! The ledger's I/O: find our Context Object comment (marker and author), merge this
//! run's entries into it, write, read back, and re-merge when another run raced us;
//! rebuild the full timeline from the previous run's artifact when the comment holds
//! only its tail.

use std::time::Duration;

use crate::audit::ContextObject;
use crate::audit::ledger::{self, Links, Stored};
use crate::event::PullRequest;
use crate::github::artifact::{DownloadOptions, download_previous};
use crate::github::{ApiError, Comment, GitHub};
use crate::render::text::Message;
use crate::render::{EffectReport, EffectResult};
use crate::settings::Settings;

/// Write-and-check rounds before giving up on a contended comment.
const ROUNDS: u32 = 6;

pub struct Persisted {
    /// The whole Context Object for the audit file (full timeline when it can be had).
    pub context: ContextObject,
    /// What happened to the comment (absent when no API is available).
    pub effect: Option<EffectReport>,
    pub warnings: Vec<String>,
}

/// Seals this run's entries onto the stored ledger and upserts the comment.
pub async fn persist(
    settings: &Settings,
    gh: Option<&GitHub>,
    pr: &PullRequest,
    ours: &ContextObject,
    links: &Links,
) -> Persisted {
    let key = settings.hmac_key.as_ref().map(|k| k.expose().as_bytes());
    let mut warnings = Vec::new();
    let Some(gh) = gh else {
        return local_only(ours, key, warnings);
    };
    let mut round = 0;
    loop {
        round += 1;
        let found = match find(gh, pr.number).await {
            Ok(found) => found,
            Err(e) => {
                warnings.push(format!("the Context Object comment could not be read ({e}); the audit file holds this run only"));
                return local_only(ours, key, warnings);
            }
        };
        let (stored, duplicates) = load(&found, key, &mut warnings);
        let contended = round > 1 || !duplicates.is_empty() || recently_written(stored.as_ref());
        let merged = match merge_all(stored, &duplicates, ours, key) {
            Ok(m) => m,
            Err(e) => {
                warnings.push(format!(
                    "the stored ledger could not be extended ({e}); starting a new one"
                ));
                match ledger::merge(None, ours, key) {
                    Ok(m) => m,
                    Err(e) => {
                        return failed(
                            ours,
                            warnings,
                            Message::new().text(format!("sealing failed: {e}")),
                        );
                    }
                }
            }
        };
        let (_, body) = ledger::render_fitting(merged.clone(), links);
        let context = full_context(gh, settings, pr, &merged, &mut warnings).await;
        if settings.dry_run {
            let effect =
                skipped(Message::new().text("dry run: the Context Object comment was not written"));
            return Persisted {
                context,
                effect: Some(effect),
                warnings,
            };
        }
        let main = found.first().map(|(c, _)| c);
        let written = match write(gh, pr.number, main, &body).await {
            Ok(w) => w,
            Err(e) if e.is_forbidden() || matches!(e, ApiError::NotFound { .. }) => {
                let why = Message::new().text(format!(
                    "the token may not write comments, so the Context Object lives in the audit file and artifact only ({e})"
                ));
                return Persisted {
                    context,
                    effect: Some(skipped(why)),
                    warnings,
                };
            }
            Err(e) => return failed(&context, warnings, Message::new().text(e.to_string())),
        };
        for (dup, _) in found.iter().skip(1) {
            if let Err(e) = gh.delete_comment(dup.id).await {
                warnings.push(format!(
                    "a duplicate Context Object comment could not be deleted: {e}"
                ));
            }
        }
        if confirmed(gh, written.id, ours, written.body(), contended).await {
            let effect = EffectReport {
                action: "action:comment",
                result: EffectResult::Done(
                    Message::new()
                        .text("Context Object comment: ")
                        .link(&written.html_url),
                ),
            };
            return Persisted {
                context,
                effect: Some(effect),
                warnings,
            };
        }
        if round >= ROUNDS {
            return failed(
                &context,
                warnings,
                Message::new().text(format!("other runs kept overwriting the Context Object comment; gave up after {ROUNDS} rounds")),
            );
        }
    }
}

/// Our ledger comments, oldest first, each with its parse result.
async fn find(
    gh: &GitHub,
    pr: u64,
) -> Result<Vec<(Comment, Result<Stored, ledger::LedgerError>)>, ApiError> {
    let me = gh.identity().await;
    let comments = gh.list_comments(pr).await?;
    Ok(comments
        .into_iter()
        .filter(|c| ledger::is_ledger(c.body()) && c.is_by(me.as_ref()))
        .map(|c| {
            let parsed = ledger::parse(c.body());
            (c, parsed)
        })
        .collect())
}

/// The oldest parseable comment is the ledger; newer ones are duplicates to fold in.
fn load(
    found: &[(Comment, Result<Stored, ledger::LedgerError>)],
    key: Option<&[u8]>,
    warnings: &mut Vec<String>,
) -> (Option<Stored>, Vec<Stored>) {
    let mut stored = None;
    let mut duplicates = Vec::new();
    for (comment, parsed) in found {
        match parsed {
            Ok(s) => {
                if let Err(t) = s.verify(key) {
                    warnings.push(format!(
                        "the Context Object comment {} fails verification: {t}; it was edited outside council",
                        comment.html_url
                    ));
                }
                if stored.is_none() {
                    stored = Some(s.clone());
                } else {
                    duplicates.push(s.clone());
                }
            }
            Err(e) => warnings.push(format!("{}: {e}", comment.html_url)),
        }
    }
    (stored, duplicates)
}

fn merge_all(
    stored: Option<Stored>,
    duplicates: &[Stored],
    ours: &ContextObject,
    key: Option<&[u8]>,
) -> Result<Stored, crate::audit::chain::ChainError> {
    let mut merged = stored;
    for dup in duplicates {
        merged = Some(ledger::merge(merged, &dup.context, key)?);
    }
    ledger::merge(merged, ours, key)
}

async fn write(
    gh: &GitHub,
    pr: u64,
    main: Option<&Comment>,
    body: &str,
) -> Result<Comment, ApiError> {
    match main {
        Some(existing) if existing.body() == body => Ok(existing.clone()),
        Some(existing) => gh.update_comment(existing.id, body).await,
        None => gh.create_comment(pr, body).await,
    }
}

/// Pauses (ms ranges) before each read-back. A quiet comment is checked once; when
/// another run touched it recently, checking goes on for a few seconds, so that a run
/// which read an older version and writes late is caught while we can still re-merge.
const QUIET: &[(u64, u64)] = &[(150, 400)];
const CONTENDED: &[(u64, u64)] = &[(150, 400), (600, 1_200), (1_500, 2_500)];

/// The comment holds every entry of ours, and keeps holding them while others write.
async fn confirmed(
    gh: &GitHub,
    id: u64,
    ours: &ContextObject,
    written: &str,
    mut contended: bool,
) -> bool {
    let mut step = 0;
    loop {
        let schedule = if contended { CONTENDED } else { QUIET };
        let Some(&(low, high)) = schedule.get(step) else {
            return true;
        };
        step += 1;
        tokio::time::sleep(Duration::from_millis(crate::jitter::in_range(low, high))).await;
        let Ok(comment) = gh.get_comment(id).await else {
            return false;
        };
        let Ok(now) = ledger::parse(comment.body()) else {
            return false;
        };
        if !ours.timeline.iter().all(|e| now.knows(&e.id)) {
            return false;
        }
        contended |= comment.body() != written;
    }
}

/// Another run wrote the ledger in the last two minutes: runs may be overlapping.
fn recently_written(stored: Option<&Stored>) -> bool {
    stored
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(&s.context.timestamp).ok())
        .is_some_and(|t| {
            chrono::Utc::now().signed_duration_since(t) < chrono::Duration::seconds(120)
        })
}

/// The audit file wants every entry: when the comment holds only a tail, take the
/// older ones from the previous run's artifact.
async fn full_context(
    gh: &GitHub,
    settings: &Settings,
    pr: &PullRequest,
    merged: &Stored,
    warnings: &mut Vec<String>,
) -> ContextObject {
    let mut context = merged.context.clone();
    if merged.is_complete() {
        return context;
    }
    let options = DownloadOptions {
        exclude_run_id: settings.run.run_id.parse().ok(),
        ..DownloadOptions::default()
    };
    let previous = match download_previous(gh, pr.number, &options).await {
        Ok(Some(found)) => serde_json::from_slice::<ContextObject>(&found.json).ok(),
        Ok(None) => None,
        Err(e) => {
            warnings.push(format!(
                "the previous audit artifact could not be read: {e}"
            ));
            None
        }
    };
    let n = merged.omitted.count;
    match previous {
        Some(prev)
            if prev.timeline.len() >= n
                && prev.timeline[n - 1].hash == merged.omitted.head_hash =>
        {
            let mut timeline = prev.timeline[..n].to_vec();
            timeline.extend(context.timeline);
            context.timeline = timeline;
        }
        _ => {
            warnings.push(format!(
                "the audit file holds the newest {} entries; the {n} older ones are in earlier `audit-PR-{}` artifacts \
                 (the comment keeps their chain head, so the tail still verifies)",
                context.timeline.len(),
                pr.number
            ));
            context.extra.insert(
                "timeline_omitted".to_string(),
                serde_json::json!({"count": n, "head_hash": merged.omitted.head_hash}),
            );
        }
    }
    context
}

fn local_only(ours: &ContextObject, key: Option<&[u8]>, warnings: Vec<String>) -> Persisted {
    match ledger::merge(None, ours, key) {
        Ok(stored) => Persisted {
            context: stored.context,
            effect: None,
            warnings,
        },
        Err(e) => failed(
            ours,
            warnings,
            Message::new().text(format!("sealing failed: {e}")),
        ),
    }
}

fn skipped(why: Message) -> EffectReport {
    EffectReport {
        action: "action:comment",
        result: EffectResult::Skipped(why),
    }
}

fn failed(context: &ContextObject, warnings: Vec<String>, why: Message) -> Persisted {
    Persisted {
        context: context.clone(),
        effect: Some(EffectReport {
            action: "action:comment",
            result: EffectResult::Failed(why),
        }),
        warnings,
    }
}
