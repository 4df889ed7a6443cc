//! Storing a Context Object: verify it, place its entries at their positions in the
//! chain, add only the positions the store lacks, and refuse (recording why) an object
//! that does not verify or that disagrees with what is stored.
//!
//! The rule of what may be added is pure ([`plan`]); the rest is the store's I/O, all of
//! one object in one transaction.

mod attribution;
mod failure;
mod plan;
mod refresh;

pub use attribution::{Attribution, BY_GITHUB, BY_HEADER};

use council_protocol::audit::stored::Stored;
use council_protocol::audit::{ContextObject, Entry};
use serde::Serialize;

use crate::engine::{Cell, Conn, Param};
use crate::{Store, StoreError};
use failure::Failure;
use plan::{Around, plan};
use refresh::Summary;
pub(crate) use refresh::refresh;

/// What a pull request's listing says, when the object came from GitHub (`audit sync`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrFacts {
    pub title: Option<String>,
    /// `open` or `closed`.
    pub state: Option<String>,
    pub created_at: Option<String>,
    pub merged_at: Option<String>,
    pub closed_at: Option<String>,
}

/// One Context Object offered to the store.
pub struct Offer<'a> {
    pub stored: &'a Stored,
    /// Where it came from: a comment's URL, an artifact and its run, a file.
    pub source: &'a str,
    /// Verifies signatures too when given.
    pub key: Option<&'a [u8]>,
    pub pr: Option<&'a PrFacts>,
    /// What a live read of GitHub says of the pull request's author and branches: what
    /// the store attributes it to. `None`: only the object's unsigned header names them,
    /// and they are stored as unverified.
    pub attribution: Option<&'a Attribution>,
    pub now: &'a str,
    /// The document as offered, kept as evidence when it is refused.
    pub document: Option<&'a str>,
}

impl<'a> Offer<'a> {
    pub fn new(stored: &'a Stored, source: &'a str, now: &'a str) -> Offer<'a> {
        Offer {
            stored,
            source,
            key: None,
            pr: None,
            attribution: None,
            now,
            document: None,
        }
    }
}

/// Where a pull request's stored ledger stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verification {
    /// One unbroken chain from the first entry; every object offered agreed with it.
    Verified,
    /// Older entries are not in the store (a comment that holds only the newest ones).
    Partial,
    /// An object offered for it did not verify, or disagreed with stored entries.
    Failed,
}

impl Verification {
    pub fn as_str(self) -> &'static str {
        match self {
            Verification::Verified => "verified",
            Verification::Partial => "partial",
            Verification::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Verification {
        match text {
            "verified" => Verification::Verified,
            "partial" => Verification::Partial,
            _ => Verification::Failed,
        }
    }
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Imported {
    pub repository: String,
    pub context_id: String,
    pub pr: u64,
    pub source: String,
    /// Entries added now.
    pub added: usize,
    /// Entries offered that the store already held, identical.
    pub known: usize,
    /// Why this object was refused (it did not verify, or it conflicts), when it was.
    pub refused: Option<String>,
    /// The pull request's ledger in the store, after this import.
    pub verification: Verification,
    pub detail: Option<String>,
    /// Entries the store holds for it.
    pub entries: u64,
    /// Who vouches for its stored author and branches: [`BY_GITHUB`] or [`BY_HEADER`]
    /// (unverified), after this import.
    pub attribution: String,
    /// Why the object's header was recorded as a verification failure although its
    /// entries were stored: it names another author or source branch than GitHub.
    pub disputed: Option<String>,
    /// What else the header says otherwise than GitHub (a retarget), for a warning.
    pub notes: Vec<String>,
}
/// The largest pull request number: GitHub's are 32-bit (GraphQL's `Int`).
const MAX_PR_NUMBER: u64 = i32::MAX as u64;

/// `PR-<n>` naming `subject.id` `n` of a `pull_request`, in an `owner/name` repository.
fn identity(ctx: &ContextObject) -> Result<u64, String> {
    let n = ctx.subject.id;
    // Beyond the store's integers it would be stored as nothing, and fail there.
    if n > MAX_PR_NUMBER {
        return Err(format!(
            "subject.id {n} is no pull request number (GitHub's are at most {MAX_PR_NUMBER})"
        ));
    }
    if ctx.subject.kind != "pull_request" {
        return Err(format!(
            "subject.type is `{}`, not `pull_request`",
            ctx.subject.kind
        ));
    }
    if ctx.context_id != format!("PR-{n}") {
        return Err(format!(
            "context_id `{}` does not name subject.id {n}",
            ctx.context_id
        ));
    }
    let mut parts = ctx.repository.split('/');
    let well_formed = matches!(
        (parts.next(), parts.next(), parts.next()),
        (Some(o), Some(r), None) if !o.is_empty() && !r.is_empty()
            && !ctx.repository.chars().any(|c| c.is_whitespace() || c.is_control())
    );
    if !well_formed {
        return Err(format!(
            "repository `{}` is not of the form owner/name",
            ctx.repository
        ));
    }
    Ok(n)
}

/// Rows inserted per statement (19 parameters each: well under both engines' limits).
const ROWS_PER_INSERT: usize = 200;

impl Store {
    /// Stores what `offer` adds to its pull request's ledger, or records why it is
    /// refused. A refusal is a result (`refused`), not an error: errors are the store's.
    pub async fn import(&mut self, offer: &Offer<'_>) -> Result<Imported, StoreError> {
        self.conn.begin().await?;
        match import_in(&mut self.conn, offer).await {
            Ok(imported) => {
                self.conn.commit().await?;
                Ok(imported)
            }
            Err(e) => {
                self.conn.rollback().await;
                Err(e)
            }
        }
    }

    /// Records why a document is refused before it could be offered (not JSON, a
    /// duplicate member, cut short, not this pull request's): `repository` and
    /// `context_id` as far as known. What it says of the pull request's stored ledger.
    pub async fn refuse(
        &mut self,
        repository: &str,
        context_id: &str,
        source: &str,
        problem: &str,
        document: Option<&str>,
        now: &str,
    ) -> Result<Imported, StoreError> {
        let refusal = Refusal {
            repository,
            context_id,
            pr: context_id
                .strip_prefix("PR-")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0),
            source,
            problem,
            document,
            now,
        };
        self.conn.begin().await?;
        match refuse_in(&mut self.conn, &refusal).await {
            Ok(imported) => {
                self.conn.commit().await?;
                Ok(imported)
            }
            Err(e) => {
                self.conn.rollback().await;
                Err(e)
            }
        }
    }
}

/// An object refused before any of its entries is looked at.
struct Refusal<'a> {
    repository: &'a str,
    context_id: &'a str,
    pr: u64,
    source: &'a str,
    problem: &'a str,
    document: Option<&'a str>,
    now: &'a str,
}

/// Records the refusal, and what the pull request's stored ledger now reads.
async fn refuse_in(conn: &mut Conn, r: &Refusal<'_>) -> Result<Imported, StoreError> {
    let context = context_row(conn, r.repository, r.context_id).await?;
    Failure {
        context,
        repository: r.repository,
        context_id: r.context_id,
        source: r.source,
        conflict: None,
        problem: r.problem,
        document: r.document,
        now: r.now,
    }
    .record(conn)
    .await?;
    let mut imported = Imported {
        repository: r.repository.to_string(),
        context_id: r.context_id.to_string(),
        pr: r.pr,
        source: r.source.to_string(),
        added: 0,
        known: 0,
        refused: Some(r.problem.to_string()),
        verification: Verification::Failed,
        detail: None,
        entries: 0,
        attribution: BY_HEADER.to_string(),
        disputed: None,
        notes: Vec::new(),
    };
    if let Some(id) = context {
        fill(&mut imported, refresh(conn, id, false, r.now).await?);
    }
    Ok(imported)
}

async fn import_in(conn: &mut Conn, offer: &Offer<'_>) -> Result<Imported, StoreError> {
    let ctx = &offer.stored.context;
    let mut imported = Imported {
        repository: ctx.repository.clone(),
        context_id: ctx.context_id.clone(),
        pr: ctx.subject.id,
        source: offer.source.to_string(),
        added: 0,
        known: 0,
        refused: None,
        verification: Verification::Failed,
        detail: None,
        entries: 0,
        attribution: BY_HEADER.to_string(),
        disputed: None,
        notes: Vec::new(),
    };
    let problem = match identity(ctx) {
        Err(why) => Some(format!("not a pull request's Context Object: {why}")),
        Ok(_) => offer
            .stored
            .verify(offer.key)
            .err()
            .map(|e| e.to_string())
            .or_else(|| council_protocol::audit::subject::contradiction(ctx)),
    };
    if let Some(problem) = problem {
        let refusal = Refusal {
            repository: &ctx.repository,
            context_id: &ctx.context_id,
            pr: ctx.subject.id,
            source: offer.source,
            problem: &problem,
            document: offer.document,
            now: offer.now,
        };
        return refuse_in(conn, &refusal).await;
    }
    let id = ensure_context(conn, ctx, offer).await?;
    if let Some(live) = offer.attribution {
        attribution::vouched(conn, id, live).await?;
        let compared = attribution::compare(&ctx.subject, live);
        if let Some(dispute) = &compared.dispute {
            Failure {
                context: Some(id),
                repository: &ctx.repository,
                context_id: &ctx.context_id,
                source: offer.source,
                conflict: None,
                problem: dispute,
                document: offer.document,
                now: offer.now,
            }
            .record(conn)
            .await?;
        }
        imported.disputed = compared.dispute;
        imported.notes.extend(compared.note);
    }
    let first = offer.stored.omitted.count as u64;
    let timeline = &ctx.timeline;
    let last = first + timeline.len() as u64;
    let around = stored_around(conn, id, first.saturating_sub(1), last).await?;
    let stored_max = max_position(conn, id).await?;
    let plan = plan(first, timeline, &around);
    imported.known = plan.known;
    if let Some(conflict) = &plan.conflict {
        Failure {
            context: Some(id),
            repository: &ctx.repository,
            context_id: &ctx.context_id,
            source: offer.source,
            conflict: Some(conflict),
            problem: &conflict.problem,
            document: offer.document,
            now: offer.now,
        }
        .record(conn)
        .await?;
        imported.refused = Some(conflict.problem.clone());
        fill(&mut imported, refresh(conn, id, false, offer.now).await?);
        return Ok(imported);
    }
    insert_entries(conn, id, first, timeline, &plan.new, offer).await?;
    imported.added = plan.new.len();
    // The newest view of the pull request names its subject and last run.
    let newest = stored_max.is_none_or(|m| last > m);
    if newest || offer.pr.is_some() {
        update_subject(conn, id, ctx, offer, newest).await?;
    }
    fill(
        &mut imported,
        refresh(conn, id, offer.pr.is_some(), offer.now).await?,
    );
    Ok(imported)
}

fn fill(imported: &mut Imported, summary: Summary) {
    imported.verification = summary.verification;
    imported.detail = summary.detail;
    imported.entries = summary.entries;
    imported.attribution = summary.attribution;
}

/// The context row's id, when one exists.
async fn context_row(
    conn: &mut Conn,
    repository: &str,
    context_id: &str,
) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .query_one(
            "SELECT id FROM workflow_contexts WHERE repository = ? AND context_id = ?",
            &[repository.into(), context_id.into()],
        )
        .await?
        .and_then(|row| row[0].int()))
}

async fn ensure_context(
    conn: &mut Conn,
    ctx: &ContextObject,
    offer: &Offer<'_>,
) -> Result<i64, StoreError> {
    if let Some(id) = context_row(conn, &ctx.repository, &ctx.context_id).await? {
        return Ok(id);
    }
    let s = &ctx.subject;
    let gates = serde_json::to_string(&ctx.gates).unwrap_or_else(|_| "{}".into());
    // The header's subject, until a live read vouches for another (`vouched` follows).
    conn.execute(
        "INSERT INTO workflow_contexts (repository, context_id, pr_number, subject_type, \
         source_branch, target_branch, author, head_sha, guard_status, review_status, \
         release_status, gates, entries, verification, signatures_checked, source, \
         last_trigger, last_timestamp, imported_at, updated_at, attribution) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', 'PENDING', 'PENDING', ?, 0, 'partial', 0, ?, ?, ?, ?, ?, ?)",
        &[
            (&ctx.repository).into(),
            (&ctx.context_id).into(),
            Param::Int(i64::try_from(s.id).ok()),
            printable(&s.kind).as_str().into(),
            printable(&s.source_branch).as_str().into(),
            printable(&s.target_branch).as_str().into(),
            printable(&s.author).as_str().into(),
            printable(&s.head_sha).as_str().into(),
            gates.as_str().into(),
            printable(offer.source).as_str().into(),
            printable(&ctx.trigger).as_str().into(),
            printable(&ctx.timestamp).as_str().into(),
            offer.now.into(),
            offer.now.into(),
            BY_HEADER.into(),
        ],
    )
    .await?;
    context_row(conn, &ctx.repository, &ctx.context_id)
        .await?
        .ok_or_else(|| StoreError::Database("the new context row cannot be read back".into()))
}

async fn stored_around(conn: &mut Conn, id: i64, from: u64, to: u64) -> Result<Around, StoreError> {
    let rows = conn
        .query(
            "SELECT position, hash, prev_hash FROM timeline_entries \
             WHERE context = ? AND position >= ? AND position <= ?",
            &[
                id.into(),
                Param::Int(Some(clamp(from))),
                Param::Int(Some(clamp(to))),
            ],
        )
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|mut row| {
            let prev = std::mem::replace(&mut row[2], Cell::Null).into_text()?;
            let hash = std::mem::replace(&mut row[1], Cell::Null).into_text()?;
            let position = u64::try_from(row[0].int()?).ok()?;
            Some((position, (hash, prev)))
        })
        .collect())
}

async fn max_position(conn: &mut Conn, id: i64) -> Result<Option<u64>, StoreError> {
    Ok(conn
        .query_one(
            "SELECT MAX(position) FROM timeline_entries WHERE context = ?",
            &[id.into()],
        )
        .await?
        .and_then(|row| row[0].int())
        .and_then(|m| u64::try_from(m).ok()))
}

fn clamp(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

async fn insert_entries(
    conn: &mut Conn,
    id: i64,
    first: u64,
    timeline: &[Entry],
    new: &[usize],
    offer: &Offer<'_>,
) -> Result<(), StoreError> {
    const COLUMNS: &str = "context, position, entry_id, agent, action, result, message, \
        timestamp, at_unix, run_id, run_attempt, sha, prev_hash, hash, signature, extra, \
        signature_checked, source, imported_at";
    let checked = i64::from(offer.key.is_some());
    let source = printable(offer.source);
    for chunk in new.chunks(ROWS_PER_INSERT) {
        // Owned texts first: parameters borrow them.
        let rows: Vec<StoredEntry> = chunk
            .iter()
            .map(|&i| StoredEntry::of(&timeline[i], first + i as u64))
            .collect();
        let mut params: Vec<Param<'_>> = Vec::with_capacity(rows.len() * 19);
        for row in &rows {
            params.extend([
                Param::Int(Some(id)),
                Param::Int(Some(row.position)),
                row.entry_id.as_str().into(),
                row.agent.as_str().into(),
                row.action.as_str().into(),
                row.result.as_str().into(),
                row.message.as_str().into(),
                row.timestamp.as_str().into(),
                Param::Int(row.at_unix),
                row.run_id.as_str().into(),
                Param::Int(Some(row.run_attempt)),
                row.sha.as_str().into(),
                row.prev_hash.as_str().into(),
                row.hash.as_str().into(),
                Param::Text(row.signature.as_deref()),
                Param::Text(row.extra.as_deref()),
                Param::Int(Some(checked)),
                source.as_str().into(),
                offer.now.into(),
            ]);
        }
        let one = format!("({})", vec!["?"; 19].join(", "));
        let sql = format!(
            "INSERT INTO timeline_entries ({COLUMNS}) VALUES {}",
            vec![one.as_str(); rows.len()].join(", ")
        );
        conn.execute(&sql, &params).await?;
    }
    Ok(())
}

/// An entry as its columns hold it. Texts go through [`crate::text`], so that every
/// string, even one PostgreSQL's TEXT cannot hold, comes back exactly: the store can
/// check every hash again.
struct StoredEntry {
    position: i64,
    entry_id: String,
    agent: String,
    action: String,
    result: String,
    message: String,
    timestamp: String,
    at_unix: Option<i64>,
    run_id: String,
    run_attempt: i64,
    sha: String,
    prev_hash: String,
    hash: String,
    signature: Option<String>,
    extra: Option<String>,
}

impl StoredEntry {
    fn of(e: &Entry, position: u64) -> StoredEntry {
        use crate::text::encode;
        StoredEntry {
            position: clamp(position),
            entry_id: encode(&e.id),
            agent: encode(&e.agent),
            action: encode(&e.action),
            result: encode(&e.result),
            message: encode(&e.message),
            timestamp: encode(&e.timestamp),
            at_unix: unix(&e.timestamp),
            run_id: encode(&e.run_id),
            // Bit for bit: an attempt beyond i64 (never a real one) still reads back.
            run_attempt: e.run_attempt as i64,
            sha: encode(&e.sha),
            prev_hash: encode(&e.prev_hash),
            hash: encode(&e.hash),
            signature: e.signature.as_deref().map(encode),
            extra: crate::text::entry_extra(e),
        }
    }
}

/// Unix seconds of an RFC 3339 time, as the store keeps times beside their text.
pub fn unix(text: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.timestamp())
}

/// Text for columns that are shown, not verified: NUL (which PostgreSQL's TEXT refuses)
/// becomes the visible ␀.
pub(crate) fn printable(text: &str) -> String {
    if text.contains('\0') {
        text.replace('\0', "\u{2400}")
    } else {
        text.to_string()
    }
}

async fn update_subject(
    conn: &mut Conn,
    id: i64,
    ctx: &ContextObject,
    offer: &Offer<'_>,
    newest: bool,
) -> Result<(), StoreError> {
    if newest {
        conn.execute(
            "UPDATE workflow_contexts SET last_trigger = ?, last_timestamp = ?, source = ? \
             WHERE id = ?",
            &[
                printable(&ctx.trigger).as_str().into(),
                printable(&ctx.timestamp).as_str().into(),
                printable(offer.source).as_str().into(),
                id.into(),
            ],
        )
        .await?;
        if offer.attribution.is_none() {
            attribution::from_header(conn, id, &ctx.subject).await?;
        }
    }
    if let Some(pr) = offer.pr {
        let text = |v: &Option<String>| v.as_deref().map(printable);
        let (title, state, created, merged, closed) = (
            text(&pr.title),
            text(&pr.state),
            text(&pr.created_at),
            text(&pr.merged_at),
            text(&pr.closed_at),
        );
        conn.execute(
            "UPDATE workflow_contexts SET title = ?, pr_state = ?, opened_at = ?, opened_unix = ?, \
             merged_at = ?, merged_unix = ?, closed_at = ?, synced_at = ? WHERE id = ?",
            &[
                Param::Text(title.as_deref()),
                Param::Text(state.as_deref()),
                Param::Text(created.as_deref()),
                Param::Int(created.as_deref().and_then(unix)),
                Param::Text(merged.as_deref()),
                Param::Int(merged.as_deref().and_then(unix)),
                Param::Text(closed.as_deref()),
                offer.now.into(),
                id.into(),
            ],
        )
        .await?;
    }
    Ok(())
}
