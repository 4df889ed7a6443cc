//! `council audit sync --repo O/R`: every pull request's Context Object into the store.
//!
//! Requests: the pull requests are listed most recently updated first, 100 a page, down
//! to where the last finished sync got (less half an hour: a run may still have been
//! writing then); each one GitHub reports updated since it was last read costs one read
//! of its comments (100 a page). Only when no ledger comment of council's verifies, or it
//! holds only the newest entries, are the pull request's `audit-PR-<n>` artifacts listed
//! and the newest of the repository's own runs that verifies downloaded. A registry
//! issue costs its comments and one read of the issue.
//!
//! Each pull request is stored in its own transaction and marked read: a sync stopped
//! half-way resumes without reading again what it stored. Editing a comment does not
//! make GitHub report its pull request as updated, so entries a run adds without any
//! other change to the pull request (a release that keeps waiting) arrive with its next
//! update; `--full` reads every pull request again.

use std::collections::HashSet;

use council_github::artifact::{DownloadOptions, Provenance};
use council_github::pulls::PullSummary;
use council_github::{ApiError, Comment, GitHub};
use council_protocol::agent_state::TrustConfig;
use council_protocol::audit::adopt::{Found, Subject, adopt};
use council_protocol::audit::context::context_id;
use council_protocol::audit::stored::MARKER;
use council_protocol::context_report::{comment::last_block, parse_report};
use council_protocol::error::{Error, Outcome, Result};
use council_store::{Attribution, Imported, Offer, PrFacts, ReportRow, Store, Verification, unix};
use serde_json::json;

use super::progress::Progress;
use super::{open_default, store_error};
use crate::app::ledger::{TakenArtifact, found_in, newest_adopted_artifact};
use crate::app::{client, now, repository};
use crate::env::RunEnv;
use crate::request::{Access, AuditRequest};
use crate::runner::Level;

/// The login of `GITHUB_TOKEN`, which writes the ledger comment in most workflows.
const ACTIONS_BOT: &str = "github-actions[bot]";
/// A pull request read this soon after its last update is read again next time.
const SETTLE_SECS: i64 = 30 * 60;
/// 1,000 pages of 100: far beyond any repository's pull requests in one sync.
const MAX_LIST_PAGES: usize = 1_000;

/// What one sync did.
#[derive(Debug, Default, serde::Serialize)]
struct Tally {
    listed: usize,
    list_pages: usize,
    read: usize,
    unchanged: usize,
    without_ledger: usize,
    entries_added: usize,
    from_artifacts: usize,
    partial: usize,
    refused: usize,
    /// Objects stored whose header names another author or source branch than GitHub.
    disputed: usize,
    untrusted_ledger_comments: usize,
    reports_added: usize,
}

/// What `audit sync` alone takes.
pub(super) struct SyncRequest<'a> {
    pub access: &'a Access,
    pub registry_issue: Option<u64>,
    pub trusted_authors: &'a [String],
    pub ledger_authors: &'a [String],
    pub full: bool,
}

pub(super) async fn run(env: &RunEnv, req: &AuditRequest, s: &SyncRequest<'_>) -> Result<Outcome> {
    let full = s.full;
    let repo = repository(s.access, None)?;
    let gh = client(env, s.access, &repo)?.ok_or_else(|| {
        crate::exit::no_token("`audit sync` reads the pull requests and their comments")
    })?;
    let mut store = open_default(env, req).await?;
    let full_name = repo.full();
    let mut authors: Vec<String> = vec![ACTIONS_BOT.to_string()];
    authors.extend(s.ledger_authors.iter().map(|a| a.trim().to_string()));
    let sync = Sync {
        env,
        trusted_authors: s.trusted_authors,
        gh: &gh,
        full_name: &full_name,
        authors: &authors,
        key: req.hmac_key.as_ref().map(|k| k.expose().as_bytes()),
    };
    let mut tally = Tally::default();
    let since = match full {
        true => None,
        false => store.listed_until(&full_name).await.map_err(store_error)?,
    };
    let (candidates, newest) = sync.list(since.as_deref(), &mut tally).await?;
    let mut progress = Progress::new(env, candidates.len());
    for pr in &candidates {
        if !full && sync.settled(&mut store, pr).await? {
            tally.unchanged += 1;
        } else {
            let outcome = sync.read_pull(&mut store, pr, &mut tally).await?;
            store
                .pull_read(&full_name, pr.number, &pr.updated_at, outcome, &now())
                .await
                .map_err(store_error)?;
            tally.read += 1;
        }
        progress.step();
    }
    progress.done();
    if let Some(newest) = newest.or(since) {
        store
            .finish_sync(&full_name, &newest, &now())
            .await
            .map_err(store_error)?;
    }
    if let Some(registry) = s.registry_issue {
        tally.reports_added = sync.reports(&mut store, registry).await?;
    }
    if tally.entries_added > 0 {
        store.optimize().await.map_err(store_error)?;
    }
    tell(env, req.json, &store, &full_name, &tally, gh.requests());
    Ok(if tally.refused + tally.disputed > 0 {
        Outcome::GateFailed
    } else {
        Outcome::Passed
    })
}

struct Sync<'a> {
    env: &'a RunEnv,
    trusted_authors: &'a [String],
    gh: &'a GitHub,
    full_name: &'a str,
    authors: &'a [String],
    key: Option<&'a [u8]>,
}

impl Sync<'_> {
    /// The pull requests updated since `since` (all of them without one), and the newest
    /// `updated_at` seen: where the next sync starts.
    async fn list(
        &self,
        since: Option<&str>,
        tally: &mut Tally,
    ) -> Result<(Vec<PullSummary>, Option<String>)> {
        let stop = since.and_then(unix).map(|s| s - SETTLE_SECS);
        let mut out = Vec::new();
        let mut newest: Option<String> = None;
        let mut seen = HashSet::new();
        let mut url = Some(self.gh.pulls_by_update_url());
        while let Some(page_url) = url.take() {
            if tally.list_pages >= MAX_LIST_PAGES {
                return Err(Error::Api(format!(
                    "listing the pull requests of {}: more than {MAX_LIST_PAGES} pages; stopped \
                     rather than read without end",
                    self.full_name
                )));
            }
            let (page, next): (Vec<PullSummary>, Option<String>) = self
                .gh
                .get_page("listing pull requests", &page_url, &mut seen)
                .await?;
            tally.list_pages += 1;
            for pr in page {
                if newest.as_deref().is_none_or(|n| later(&pr.updated_at, n)) {
                    newest = Some(pr.updated_at.clone());
                }
                // Newest first: the first one older than the last sync ends the list.
                if stop.is_some_and(|s| unix(&pr.updated_at).is_some_and(|u| u < s)) {
                    tally.listed = out.len();
                    return Ok((out, newest));
                }
                out.push(pr);
            }
            url = next;
        }
        tally.listed = out.len();
        Ok((out, newest))
    }

    /// Read before, as GitHub reports it now, and long enough after its last update that
    /// no run was still writing.
    async fn settled(&self, store: &mut Store, pr: &PullSummary) -> Result<bool> {
        let read = store
            .pull_synced(self.full_name, pr.number)
            .await
            .map_err(store_error)?;
        Ok(read.is_some_and(|(updated, synced)| {
            updated == pr.updated_at
                && matches!((unix(&updated), unix(&synced)), (Some(u), Some(s)) if s - u >= SETTLE_SECS)
        }))
    }

    /// Stores what the pull request's ledger comments hold, else (or to complete a tail)
    /// its newest verifying artifact; what was found, in a word.
    async fn read_pull(
        &self,
        store: &mut Store,
        pr: &PullSummary,
        tally: &mut Tally,
    ) -> Result<&'static str> {
        let facts = PrFacts {
            title: pr.title.clone(),
            state: pr.state.clone(),
            created_at: pr.created_at.clone(),
            merged_at: pr.merged_at.clone(),
            closed_at: pr.closed_at.clone(),
        };
        let live = attribution(pr);
        let comments = match self.gh.list_comments(pr.number).await {
            Ok(c) => c,
            // Deleted between the listing and now, or hidden from this token.
            Err(ApiError::NotFound { .. }) => return Ok("not found"),
            Err(e) => return Err(e.into()),
        };
        let (ours, planted): (Vec<&Comment>, Vec<&Comment>) = comments
            .iter()
            .filter(|c| c.body().starts_with(MARKER))
            .partition(|c| {
                self.authors
                    .iter()
                    .any(|a| a.eq_ignore_ascii_case(c.author()))
            });
        tally.untrusted_ledger_comments += planted.len();
        let id = context_id(pr.number);
        let subject = Subject {
            context_id: &id,
            repository: self.full_name,
        };
        let mut imports = Vec::new();
        for comment in &ours {
            let found = found_in(comment);
            imports.push(
                self.store(
                    store,
                    found,
                    &subject,
                    &facts,
                    live.as_ref(),
                    comment.body(),
                )
                .await?,
            );
        }
        // Stored and whole: an artifact adds nothing (a pull request that reads `failed`
        // for an earlier refusal stays so, whatever is read now).
        // A header found edited leaves the entries' completeness unknown: as a refusal.
        let whole = imports.last().is_some_and(|i| {
            i.refused.is_none() && i.disputed.is_none() && i.verification != Verification::Partial
        });
        let mut from_artifact = false;
        if !whole && let Some(taken) = self.newest_artifact(pr.number, &subject).await {
            let text = String::from_utf8_lossy(&taken.json).into_owned();
            let found = Found {
                source: taken.source,
                parsed: Ok(taken.stored),
            };
            imports.push(
                self.store(store, found, &subject, &facts, live.as_ref(), &text)
                    .await?,
            );
            from_artifact = true;
        }
        for i in &imports {
            tally.entries_added += i.added;
            tally.refused += usize::from(i.refused.is_some());
            tally.disputed += usize::from(i.disputed.is_some());
            let said = i.disputed.iter().map(|d| (Level::Error, d));
            for (level, what) in said.chain(i.notes.iter().map(|n| (Level::Warning, n))) {
                self.env.runner.annotate(
                    level,
                    "council audit sync",
                    &format!("PR-{} ({}): {what}", pr.number, i.source),
                );
            }
        }
        // What the pull request's stored ledger reads now, after all of it.
        Ok(match imports.last() {
            None => {
                tally.without_ledger += 1;
                "no ledger"
            }
            Some(i) if i.refused.is_some() => "refused",
            Some(i) if i.disputed.is_some() => "header disputed",
            Some(i) if i.verification == Verification::Partial => {
                tally.partial += 1;
                "partial"
            }
            Some(_) if from_artifact => {
                tally.from_artifacts += 1;
                "stored from an artifact"
            }
            Some(_) => "stored",
        })
    }

    /// Stores an object found for this pull request when `adopt` takes it (it is this
    /// pull request's of this repository, and it verifies), else records why not.
    async fn store(
        &self,
        store: &mut Store,
        found: Found,
        subject: &Subject<'_>,
        facts: &PrFacts,
        live: Option<&Attribution>,
        document: &str,
    ) -> Result<Imported> {
        let at = now();
        let source = found.source.clone();
        let mut adopted = adopt(vec![found], self.key, subject);
        let imported = match adopted.verified.pop() {
            Some(stored) => {
                let offer = Offer {
                    stored: &stored,
                    source: &source,
                    key: self.key,
                    pr: Some(facts),
                    attribution: live,
                    now: &at,
                    document: Some(document),
                };
                store.import(&offer).await
            }
            None => {
                let why = adopted
                    .rejected
                    .pop()
                    .map_or_else(|| "it was not adopted".to_string(), |r| r.why);
                let (repository, id) = (subject.repository, subject.context_id);
                store
                    .refuse(repository, id, &source, &why, Some(document), &at)
                    .await
            }
        };
        imported.map_err(store_error)
    }

    /// The newest `audit-PR-<n>` of the repository's own runs (never a fork's) whose
    /// object this pull request's ledger would adopt.
    async fn newest_artifact(&self, pr: u64, subject: &Subject<'_>) -> Option<TakenArtifact> {
        let options = DownloadOptions {
            provenance: Provenance::OwnRuns {
                repository_id: self.env.repository_id,
            },
            ..DownloadOptions::default()
        };
        let (result, _) = newest_adopted_artifact(self.gh, pr, &options, self.key, subject).await;
        match result {
            Ok((taken, _)) => taken,
            // Artifacts that cannot be listed (no `actions: read`, expired) leave the
            // comment's word as the record.
            Err(e) => {
                self.env.runner.annotate(
                    Level::Warning,
                    "council audit sync",
                    &format!("PR-{pr}: audit artifacts were not read: {e}"),
                );
                None
            }
        }
    }

    /// Every valid, dated report on the registry issue from a trusted author; how many
    /// were new to the store.
    async fn reports(&self, store: &mut Store, registry: u64) -> Result<usize> {
        let issue = self.gh.issue_info(registry).await?;
        let comments = self.gh.list_comments(registry).await?;
        let mut trusted_logins = self.trusted_authors.to_vec();
        trusted_logins.extend(self.authors.iter().cloned());
        let trust = TrustConfig {
            issue_author: issue.author,
            token_login: None,
            trusted_logins,
        };
        let reports: Vec<(&Comment, council_protocol::context_report::Report)> = comments
            .iter()
            .filter(|c| trust.trusts(c.author(), c.author_association.as_deref().unwrap_or("")))
            .filter_map(|c| {
                let report = parse_report(last_block(c.body())?).ok()?;
                report.reported_at.is_some().then_some((c, report))
            })
            .collect();
        let rows: Vec<ReportRow<'_>> = reports
            .iter()
            .map(|(c, report)| ReportRow {
                report,
                repository: self.full_name,
                registry_issue: registry,
                comment_id: c.id,
                comment_url: &c.html_url,
                author: c.author(),
            })
            .collect();
        store
            .import_reports(&rows, &now())
            .await
            .map_err(store_error)
    }
}

/// Who the listing says opened the pull request, from which branch into which: what the
/// store attributes it to (the ledger's own header is unsigned). `None` when the listing
/// leaves one out: then nothing vouches, and the store keeps the header as unverified.
fn attribution(pr: &PullSummary) -> Option<Attribution> {
    let (user, head, base) = (pr.user.as_ref()?, pr.head.as_ref()?, pr.base.as_ref()?);
    Some(Attribution {
        author: user.login.clone(),
        source_branch: head.name.clone(),
        target_branch: base.name.clone(),
        head_sha: head.sha.clone(),
    })
}

/// `a` is a later time than `b` (text that is not a time counts as earlier).
fn later(a: &str, b: &str) -> bool {
    match (unix(a), unix(b)) {
        (Some(a), Some(b)) => a > b,
        (Some(_), None) => true,
        _ => false,
    }
}

fn tell(env: &RunEnv, json: bool, store: &Store, repo: &str, t: &Tally, requests: u32) {
    if json {
        env.runner.println(
            &(json!({
                "repository": repo,
                "database": store.shown(),
                "tally": t,
                "requests": requests,
            }))
            .to_string(),
        );
        return;
    }
    let mut line = format!(
        "{repo} → {}: {} pull requests listed ({} {}), {} read, {} unchanged; {} entries \
         added",
        store.shown(),
        t.listed,
        t.list_pages,
        if t.list_pages == 1 { "page" } else { "pages" },
        t.read,
        t.unchanged,
        t.entries_added
    );
    for (n, what) in [
        (t.from_artifacts, "from audit artifacts"),
        (t.partial, "partial (older entries not found)"),
        (t.without_ledger, "without a Context Object"),
        (t.reports_added, "context reports added"),
    ] {
        if n > 0 {
            line.push_str(&format!("; {n} {what}"));
        }
    }
    line.push_str(&format!("; {requests} API requests"));
    if t.untrusted_ledger_comments > 0 {
        env.runner.annotate(
            Level::Warning,
            "council audit sync",
            &format!(
                "{} comments carry council's ledger marker but were written by someone else \
                 (not {ACTIONS_BOT} or a --ledger-author): ignored",
                t.untrusted_ledger_comments
            ),
        );
    }
    if t.disputed > 0 {
        env.runner.annotate(
            Level::Error,
            "council audit sync",
            &format!(
                "{} ledger headers name another author or source branch than GitHub (the \
                 header is unsigned: it was edited): recorded as verification failures \
                 (`council audit query failures`); the store attributes them as GitHub does",
                t.disputed
            ),
        );
    }
    if t.refused > 0 {
        env.runner.annotate(
            Level::Error,
            "council audit sync",
            &format!(
                "{} Context Objects were refused (tampered, or conflicting with the stored \
                 chain) and recorded: `council audit query failures` lists them",
                t.refused
            ),
        );
    }
    if env.in_actions {
        env.runner
            .annotate(Level::Notice, "council audit sync", &line);
    } else {
        env.runner.println(&line.to_string());
    }
}
