//! The ledger's I/O: find our Context Object comment (marker and author), adopt it only
//! when it verifies (else the newest previous audit artifact that does, else a new chain
//! that records the reset), merge this run's entries, write, read back, and re-merge
//! when another run raced us; rebuild the full timeline from the previous artifact when
//! the comment holds only its tail.

use std::time::Duration;

use super::effects::{Executor, read_only};
use super::marked_comment::{self, FindError};
use crate::secret::Secret;
use council_github::artifact::{
    ArtifactError, DownloadOptions, Downloaded, PassedOver, Provenance, download_first,
    download_trusted,
};
use council_github::{ApiError, Comment, GitHub, RepoName};
use council_protocol::audit::RunInfo;
use council_protocol::audit::adopt::{Adopted, Found, Rejected, Subject, adopt, reset_message};
use council_protocol::audit::context::context_id;
use council_protocol::audit::stored::{self, Links, MARKER, Stored};
use council_protocol::audit::timeline::{Record, new_entry};
use council_protocol::audit::{ContextObject, Entry};
use council_protocol::event::PullRequest;
use council_protocol::render::text::Message;
use council_protocol::stage::{Effect, EffectReport, EffectResult, Stage};

/// Write-and-check rounds before giving up on a contended comment.
const ROUNDS: u32 = 10;
/// Previous audit artifacts downloaded, newest first, looking for one that verifies.
pub(crate) const ARTIFACTS_TRIED: usize = 3;

pub struct Persisted {
    /// The whole Context Object for the audit file (full timeline when it can be had).
    pub context: ContextObject,
    /// What happened to the comment (absent when no API is available).
    pub effect: Option<EffectReport>,
    pub warnings: Vec<String>,
    pub notes: Vec<Message>,
}

pub struct Ledger<'a> {
    /// This run: its entries' run id and attempt, and the artifacts it leaves out.
    pub run: &'a RunInfo,
    /// The HMAC key: signs this run's entries and checks what is adopted.
    pub key: Option<&'a Secret>,
    pub gh: Option<&'a GitHub>,
    /// Every write goes through it (the comment, its duplicates).
    pub executor: &'a Executor<'a>,
    pub repo: &'a RepoName,
    /// The repository's numeric id, when the runner or the event says it: what an
    /// artifact's run must have run the code of to be trusted.
    pub repo_id: Option<u64>,
    pub pr: &'a PullRequest,
    pub links: Links,
    /// The first stage of this run: it records a ledger reset.
    pub stage: Stage,
    /// The run's clock and the unit of its waits (the retry policy's base delay): the
    /// read-back pauses are multiples of it, so that a test with a 1 ms base never
    /// sleeps for them, and "recently written" is judged at this run's instant.
    pub timing: Timing,
}

/// When the run is, and how long its shortest wait is.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub now: chrono::DateTime<chrono::Utc>,
    pub unit: Duration,
}

/// What the write rounds carry over: the artifacts are read once, and the rejected
/// comment is warned about once.
#[derive(Default)]
struct Rounds {
    fallback: Option<Fallback>,
    warned: bool,
}

/// Where one round starts from.
struct Start {
    base: Option<Stored>,
    /// Later verified comments of ours (racing runs), folded into `base`.
    duplicates: Vec<Stored>,
    /// What was rejected, when nothing could be adopted: the new chain records it.
    reset: Vec<Rejected>,
    /// Other runs may be writing now (several comments, or one written moments ago).
    contended: bool,
}

/// What the previous audit artifacts offered when no comment could be adopted.
#[derive(Clone, Default)]
struct Fallback {
    stored: Option<Stored>,
    rejected: Vec<Rejected>,
}

impl Ledger<'_> {
    fn key(&self) -> Option<&[u8]> {
        self.key.map(|k| k.expose().as_bytes())
    }

    /// Adopts the found objects that are this pull request's and verify.
    fn adopt(&self, found: Vec<Found>) -> Adopted {
        let context_id = context_id(self.pr.number);
        let repository = self.repo.full();
        let subject = Subject {
            context_id: &context_id,
            repository: &repository,
        };
        adopt(found, self.key(), &subject)
    }

    /// Earlier runs' artifacts of this pull request that may be read at all: not this
    /// run's, and uploaded by a run of this repository's own code (never a fork's).
    fn artifact_options(&self) -> DownloadOptions {
        DownloadOptions {
            exclude_run_id: self.run.run_id.parse().ok(),
            provenance: Provenance::OwnRuns {
                repository_id: self.repo_id,
            },
            ..DownloadOptions::default()
        }
    }

    /// Seals this run's entries onto the stored ledger and writes its comment: each
    /// round reads our comments, picks what to continue, merges, writes, and reads back;
    /// another run overwriting us in between costs a round, never our entries.
    pub async fn persist(&self, ours: &ContextObject) -> Persisted {
        let mut out = Persisted {
            context: ours.clone(),
            effect: None,
            warnings: Vec::new(),
            notes: Vec::new(),
        };
        let Some(gh) = self.gh else {
            if let Ok(merged) = self.merge(None, Vec::new(), ours, &[], &mut out) {
                out.context = merged.file_context();
            }
            return out;
        };
        let mut state = Rounds::default();
        let mut last: Option<Stored> = None;
        for round in 1..=ROUNDS {
            let comments = match marked_comment::find(gh, self.pr.number, MARKER).await {
                Ok(found) => found,
                Err(e) => return self.without_comment(gh, ours, e, out).await,
            };
            let start = self
                .starting_point(gh, &comments, &mut state, &mut out)
                .await;
            let contended = round > 1 || start.contended;
            let merged =
                match self.merge(start.base, start.duplicates, ours, &start.reset, &mut out) {
                    Ok(m) => m,
                    Err(effect) => {
                        out.effect = Some(effect);
                        return out;
                    }
                };
            match self
                .write_round(gh, &comments, &merged, ours, contended, &mut out)
                .await
            {
                Some(effect) => {
                    // Once, for the round that stood: the audit file's whole timeline
                    // (it may need the artifacts of older runs).
                    out.context = self.full_context(gh, &merged, &mut out).await;
                    out.effect = Some(effect);
                    return out;
                }
                // Another run wrote over ours: read again and merge again.
                None => last = Some(merged),
            }
        }
        if let Some(merged) = last {
            out.context = self.full_context(gh, &merged, &mut out).await;
        }
        out.effect = Some(failed(format!(
            "other runs kept overwriting the Context Object comment; gave up after {ROUNDS} rounds"
        )));
        out
    }

    /// What this round continues from: the oldest comment of ours that verifies (later
    /// ones, from racing runs, folded in), else the newest trusted artifact that does,
    /// else a new chain that records what was rejected.
    async fn starting_point(
        &self,
        gh: &GitHub,
        comments: &[Comment],
        state: &mut Rounds,
        out: &mut Persisted,
    ) -> Start {
        let adopted = self.adopt(comments.iter().map(found_in).collect());
        if !state.warned {
            state.warned = true;
            out.warnings
                .extend(adopted.rejected.iter().map(Rejected::warning));
        }
        let contended = adopted.verified.len() > 1
            || recently_written(adopted.verified.first(), self.timing.now);
        let mut verified = adopted.verified.into_iter();
        if let Some(first) = verified.next() {
            return Start {
                base: Some(first),
                duplicates: verified.collect(),
                reset: Vec::new(),
                contended,
            };
        }
        if state.fallback.is_none() {
            state.fallback = Some(self.previous_artifacts(gh, out).await);
        }
        let found = state.fallback.clone().unwrap_or_default();
        let (base, reset) = match found.stored {
            Some(stored) => (Some(stored), Vec::new()),
            None => {
                let mut reset = adopted.rejected;
                reset.extend(found.rejected);
                (None, reset)
            }
        };
        Start {
            base,
            duplicates: Vec::new(),
            reset,
            contended,
        }
    }

    /// Writes the merged ledger, deletes our duplicates, and reads back: the effect once
    /// the comment holds our entries (or the write failed); `None` when another run
    /// wrote over it meanwhile.
    async fn write_round(
        &self,
        gh: &GitHub,
        comments: &[Comment],
        merged: &Stored,
        ours: &ContextObject,
        contended: bool,
        out: &mut Persisted,
    ) -> Option<EffectReport> {
        let (_, body) = stored::render_fitting(merged.clone(), &self.links);
        let written = match self.write(comments.first(), &body).await {
            Ok(comment) => comment,
            Err(effect) => return Some(effect),
        };
        out.warnings
            .extend(self.delete(comments.iter().skip(1)).await);
        confirmed(
            gh,
            written.id,
            ours,
            written.body(),
            contended,
            self.timing.unit,
        )
        .await
        .then(|| {
            EffectReport::new(
                "action:comment",
                EffectResult::Done(
                    Message::new()
                        .text("Context Object comment: ")
                        .link(&written.html_url),
                ),
            )
        })
    }

    /// Writes the comment through the executor (unless it already says `body`: an
    /// unchanged re-run notifies nobody); what it wrote, or why nothing was.
    async fn write(&self, existing: Option<&Comment>, body: &str) -> Result<Comment, EffectReport> {
        if let Some(c) = existing.filter(|c| c.body() == body) {
            return Ok(c.clone());
        }
        let effect = Effect::WriteComment {
            issue: self.pr.number,
            comment: existing.map(|c| c.id),
            body: body.to_string(),
        };
        let performed = self.executor.perform(&effect).await;
        match (performed.comment, performed.error) {
            (Some(comment), _) => Ok(comment),
            (None, Some(e)) => Err(write_failed(e, self.pr)),
            // A dry run, or no token: the executor says which.
            (None, None) => Err(performed.report),
        }
    }

    /// Deletes our duplicate comments (racing runs) through the executor; a warning per
    /// one that stays.
    async fn delete(&self, duplicates: impl Iterator<Item = &Comment>) -> Vec<String> {
        let mut warnings = Vec::new();
        for dup in duplicates {
            let performed = self
                .executor
                .perform(&Effect::DeleteComment { id: dup.id })
                .await;
            if let Some(e) = performed.error {
                warnings.push(format!(
                    "a duplicate comment ({}) could not be deleted: {e}",
                    dup.html_url
                ));
            }
        }
        warnings
    }

    /// No comment can be read or proven ours: the audit file continues the newest
    /// verified artifact when the token can read one, and no comment is written.
    async fn without_comment(
        &self,
        gh: &GitHub,
        ours: &ContextObject,
        why: FindError,
        mut out: Persisted,
    ) -> Persisted {
        let fallback = match &why {
            FindError::UnknownIdentity => self.previous_artifacts(gh, &mut out).await,
            FindError::Api(_) => Fallback::default(),
        };
        out.warnings.push(format!(
            "the Context Object comment was not read or written: {why}; the audit file and \
             artifact hold the ledger"
        ));
        let reset = match fallback.stored {
            Some(_) => Vec::new(),
            None => fallback.rejected,
        };
        match self.merge(fallback.stored, Vec::new(), ours, &reset, &mut out) {
            Ok(merged) => {
                out.context = merged.file_context();
                out.effect = Some(skipped(format!(
                    "the Context Object comment was not written: {}",
                    match why {
                        FindError::UnknownIdentity => "the token's identity is unknown",
                        FindError::Api(_) => "comments could not be read",
                    }
                )));
            }
            Err(effect) => out.effect = Some(effect),
        }
        out
    }

    /// `base` with the `duplicates` folded in and this run's entries sealed on; a new
    /// chain that replaces rejected objects starts with the reset entry.
    fn merge(
        &self,
        base: Option<Stored>,
        duplicates: Vec<Stored>,
        ours: &ContextObject,
        reset: &[Rejected],
        out: &mut Persisted,
    ) -> Result<Stored, EffectReport> {
        let key = self.key();
        let mut ours = ours.clone();
        if base.is_none() && !reset.is_empty() {
            ours.timeline.insert(0, self.reset_entry(&ours, reset));
        }
        let mut merged = base;
        for dup in duplicates {
            match stored::merge(merged.clone(), &dup.context, key) {
                Ok(m) => merged = Some(m),
                Err(e) => out.warnings.push(format!(
                    "a duplicate Context Object comment could not be folded in: {e}"
                )),
            }
        }
        stored::merge(merged, &ours, key)
            .or_else(|e| {
                out.warnings.push(format!(
                    "the stored ledger could not be extended ({e}); starting a new one"
                ));
                stored::merge(None, &ours, key)
            })
            .map_err(|e| failed(format!("sealing failed: {e}")))
    }

    fn reset_entry(&self, ours: &ContextObject, rejected: &[Rejected]) -> Entry {
        let record = Record {
            stage: self.stage.name(),
            agent: self.stage.agent(),
            action: "action:ledger-reset".to_string(),
            result: "DONE".to_string(),
            message: reset_message(rejected),
        };
        new_entry(self.run, &record, &self.pr.head_sha, &ours.timestamp)
    }

    /// The newest previous `audit-PR-<n>` artifact of a trusted run whose object is this
    /// pull request's and verifies. Taking one is always said in a warning: it is what
    /// an attacker who deleted the comment would want the run to do.
    async fn previous_artifacts(&self, gh: &GitHub, out: &mut Persisted) -> Fallback {
        let context_id = context_id(self.pr.number);
        let repository = self.repo.full();
        let subject = Subject {
            context_id: &context_id,
            repository: &repository,
        };
        let (result, rejected) = newest_adopted_artifact(
            gh,
            self.pr.number,
            &self.artifact_options(),
            self.key(),
            &subject,
        )
        .await;
        out.warnings.extend(rejected.iter().map(Rejected::warning));
        match result {
            Ok((taken, passed)) => {
                if !passed.is_empty() {
                    out.notes.push(Message::new().text(passed_over(&passed)));
                }
                let stored = taken.map(|TakenArtifact { stored, source, .. }| {
                    out.warnings.push(format!(
                        "no Context Object comment could be adopted: the ledger continues \
                         from {source}, whose object is this pull request's and verifies{}",
                        if self.key().is_some() {
                            " with the key"
                        } else {
                            " (without `hmac-key`, anyone who can run a workflow here could \
                             have written it)"
                        }
                    ));
                    stored
                });
                Fallback { stored, rejected }
            }
            Err(e) => {
                out.notes.push(
                    Message::new().text(format!("previous audit artifacts were not read ({e})")),
                );
                Fallback {
                    stored: None,
                    rejected,
                }
            }
        }
    }

    /// The audit file wants every entry: when the comment holds only a tail, take the
    /// older ones from the previous run's artifact.
    async fn full_context(
        &self,
        gh: &GitHub,
        merged: &Stored,
        out: &mut Persisted,
    ) -> ContextObject {
        let mut context = merged.file_context();
        if merged.is_complete() {
            return context;
        }
        let n = merged.omitted.count;
        let options = self.artifact_options();
        let head = merged.omitted.head_hash.clone();
        let key = self.key();
        // Only an artifact whose own chain verifies may fill the gap, and only when its
        // entry n-1 is the entry the comment's tail links to.
        let older = download_first(gh, self.pr.number, &options, 1, |found| {
            let prev = stored_from_file(&found.json).ok()?;
            prev.verify(key).ok()?;
            let timeline = &prev.context.timeline;
            (prev.is_complete() && timeline.len() >= n && timeline[n - 1].hash == head)
                .then(|| timeline[..n].to_vec())
        })
        .await;
        match older {
            Ok(Some(mut timeline)) => {
                timeline.extend(context.timeline);
                context.timeline = timeline;
            }
            other => {
                if let Err(e) = other {
                    out.warnings.push(format!(
                        "the previous audit artifact could not be read: {e}"
                    ));
                }
                out.warnings.push(format!(
                    "the audit file holds the newest {} entries; the {n} older ones are in \
                     earlier `audit-PR-{}` artifacts: `council verify` proves this file with \
                     them (`--with`), or takes them on trust with `--allow-partial`",
                    context.timeline.len(),
                    self.pr.number
                ));
                context.extra.insert(
                    "timeline_omitted".to_string(),
                    serde_json::json!({"count": n, "head_hash": merged.omitted.head_hash}),
                );
            }
        }
        context
    }
}

/// An artifact whose object was adopted: the object, where it came from, its bytes.
pub(crate) struct TakenArtifact {
    pub stored: Stored,
    pub source: String,
    pub json: Vec<u8>,
}

/// The artifact a run, a tool or a sync falls back to: the newest `audit-PR-<n>` ones that
/// `options` admits, downloaded one by one (at most [`ARTIFACTS_TRIED`]) until `adopt`
/// takes one's object (this pull request's, and it verifies); with the artifacts passed
/// over for their provenance. What was rejected on the way is returned even when a
/// later request failed.
pub(crate) async fn newest_adopted_artifact(
    gh: &GitHub,
    pr: u64,
    options: &DownloadOptions,
    key: Option<&[u8]>,
    subject: &Subject<'_>,
) -> (
    Result<(Option<TakenArtifact>, Vec<PassedOver>), ArtifactError>,
    Vec<Rejected>,
) {
    let mut rejected = Vec::new();
    let result = download_trusted(gh, pr, options, ARTIFACTS_TRIED, |found| {
        let source = artifact_source(found);
        let mut adopted = adopt(
            vec![Found {
                source: source.clone(),
                parsed: stored_from_file(&found.json),
            }],
            key,
            subject,
        );
        match adopted.verified.pop() {
            Some(stored) => Some(TakenArtifact {
                stored,
                source,
                json: found.json.clone(),
            }),
            None => {
                rejected.append(&mut adopted.rejected);
                None
            }
        }
    })
    .await;
    (result, rejected)
}

/// An artifact as messages name it: its id, name and the run that uploaded it.
pub(crate) fn artifact_source(found: &Downloaded) -> String {
    match found.run_id {
        Some(run) => format!(
            "artifact {} (`{}`) uploaded by workflow run {run}",
            found.artifact_id, found.name
        ),
        None => format!("artifact {} (`{}`)", found.artifact_id, found.name),
    }
}

/// The artifacts left unread because no run of this repository's own code uploaded them.
pub(crate) fn passed_over(passed: &[PassedOver]) -> String {
    let named: Vec<String> = passed
        .iter()
        .take(5)
        .map(|p| match p.run_id {
            Some(run) => format!("{} (run {run})", p.artifact_id),
            None => p.artifact_id.to_string(),
        })
        .collect();
    format!(
        "{} not read: uploaded by a run of another repository's code (a fork's pull request) \
         or of unknown origin: {}{}",
        if passed.len() == 1 {
            "1 audit artifact".to_string()
        } else {
            format!("{} audit artifacts", passed.len())
        },
        named.join(", "),
        if passed.len() > 5 { ", …" } else { "" }
    )
}

/// A ledger comment as [`adopt`] weighs it: named by its URL (its id when GitHub gave
/// none), its body parsed.
pub(crate) fn found_in(comment: &Comment) -> Found {
    Found {
        source: if comment.html_url.is_empty() {
            format!("comment {}", comment.id)
        } else {
            comment.html_url.clone()
        },
        parsed: stored::parse(comment.body()),
    }
}

/// An audit file as a stored object (its anchor and recorded head included).
pub(crate) fn stored_from_file(json: &[u8]) -> Result<Stored, stored::LedgerError> {
    serde_json::from_slice::<ContextObject>(json)
        .map(Stored::from_file)
        .map_err(|e| stored::LedgerError::BadData(e.to_string()))
}

fn write_failed(e: ApiError, pr: &PullRequest) -> EffectReport {
    match e {
        ApiError::ReadOnly { .. } => skipped("dry run: the Context Object comment was not written"),
        e if e.is_forbidden() || matches!(e, ApiError::NotFound { .. }) => EffectReport::new(
            "action:comment",
            EffectResult::Refused(
                Message::new()
                    .text(
                        "the Context Object comment was not written (it lives in the audit \
                         file and artifact only): ",
                    )
                    .append(read_only(Some(pr), false)),
            ),
        ),
        e => failed(e.to_string()),
    }
}

/// Pauses before each read-back, in thousandths of the run's wait unit (the retry
/// policy's base delay, 500 ms by default: 150–400 ms, then 0.6–1.2 s and 1.5–2.5 s). A
/// quiet comment is checked once; when another run touched it recently, checking goes on
/// for a few seconds, so that a run which read an older version and writes late is
/// caught while we can still re-merge.
const QUIET: &[(u64, u64)] = &[(300, 800)];
const CONTENDED: &[(u64, u64)] = &[(300, 800), (1_200, 2_400), (3_000, 5_000)];

/// The comment holds every entry of ours, and keeps holding them while others write.
async fn confirmed(
    gh: &GitHub,
    id: u64,
    ours: &ContextObject,
    written: &str,
    mut contended: bool,
    unit: Duration,
) -> bool {
    let mut step = 0;
    loop {
        let schedule = if contended { CONTENDED } else { QUIET };
        let Some(&(low, high)) = schedule.get(step) else {
            return true;
        };
        step += 1;
        let permille = council_github::jitter::in_range(low, high);
        tokio::time::sleep(
            unit.saturating_mul(u32::try_from(permille).unwrap_or(u32::MAX)) / 1_000,
        )
        .await;
        let Ok(comment) = gh.get_comment(id).await else {
            return false;
        };
        let Ok(now) = stored::parse(comment.body()) else {
            return false;
        };
        if !ours.timeline.iter().all(|e| now.knows(&e.id)) {
            return false;
        }
        contended |= comment.body() != written;
    }
}

/// Another run wrote the ledger in the two minutes before `now`: runs may be
/// overlapping.
fn recently_written(stored: Option<&Stored>, now: chrono::DateTime<chrono::Utc>) -> bool {
    stored
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(&s.context.timestamp).ok())
        .is_some_and(|t| now.signed_duration_since(t) < chrono::Duration::seconds(120))
}

fn skipped(why: impl Into<String>) -> EffectReport {
    EffectReport::new(
        "action:comment",
        EffectResult::Skipped(Message::new().text(why)),
    )
}

fn failed(why: String) -> EffectReport {
    EffectReport::new(
        "action:comment",
        EffectResult::Failed(Message::new().text(why)),
    )
}
