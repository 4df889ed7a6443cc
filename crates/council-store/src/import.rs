//! Storing a Context Object: verify it, place its entries at their positions in the
//! chain, add only the positions the store lacks, and refuse (recording why) an object
//! that does not verify or that disagrees with what is stored.
//!
//! The rule of what may be added is pure ([`plan`]); the rest is the store's I/O, all of
//! one object in one transaction.

use std::collections::BTreeMap;

use council_protocol::audit::derive::{Fact, derived};
use council_protocol::audit::stored::Stored;
use council_protocol::audit::{ContextObject, Entry};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::engine::{Cell, Conn, Param};
use crate::{Store, StoreError};

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
}

/// What one object may add, decided against the stored hashes around its positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Indexes into the offered timeline of entries the store lacks.
    pub new: Vec<usize>,
    pub known: usize,
    pub conflict: Option<Conflict>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Conflict {
    pub position: u64,
    pub entry_id: String,
    pub stored_hash: String,
    pub offered_hash: String,
    pub problem: String,
}

/// A stored entry's `hash` and `prev_hash`, by position.
pub(crate) type Around = BTreeMap<u64, (String, String)>;

/// Entries at `first + i` are added where the store has no entry; an entry the store has
/// must be the same (same hash), and a new entry must link to a stored neighbour on
/// either side. Any disagreement refuses the whole object: two chains are never merged.
pub(crate) fn plan(first: u64, offered: &[Entry], stored: &Around) -> Plan {
    let mut out = Plan {
        new: Vec::new(),
        known: 0,
        conflict: None,
    };
    let conflict = |position: u64, e: &Entry, stored_hash: &str, problem: String| Conflict {
        position,
        entry_id: e.id.clone(),
        stored_hash: stored_hash.to_string(),
        offered_hash: e.hash.clone(),
        problem,
    };
    for (i, e) in offered.iter().enumerate() {
        let position = first + i as u64;
        if let Some((hash, _)) = stored.get(&position) {
            if *hash == e.hash {
                out.known += 1;
                continue;
            }
            out.conflict = Some(conflict(
                position,
                e,
                hash,
                format!(
                    "entry {position} differs from the stored entry {position}: the stored chain \
                     has {hash}, this object {}; {}",
                    e.hash,
                    if position == 0 && e.action == "action:ledger-reset" {
                        "this object is a new chain (a ledger reset) for a pull request whose \
                         earlier chain is stored"
                    } else {
                        "one of the two was rewritten"
                    }
                ),
            ));
            break;
        }
        // The previous position is stored but was not offered: the new entry must link to it.
        if i == 0
            && let Some(before) = position.checked_sub(1)
            && let Some((hash, _)) = stored.get(&before)
            && e.prev_hash != *hash
        {
            out.conflict = Some(conflict(
                position,
                e,
                hash,
                format!(
                    "entry {position} links to {}, but the stored entry {before} is {hash}: \
                     this object does not continue the stored chain",
                    e.prev_hash
                ),
            ));
            break;
        }
        // The next position is stored and not offered: it must link to this one.
        if i + 1 == offered.len()
            && let Some((hash, prev)) = stored.get(&(position + 1))
            && *prev != e.hash
        {
            out.conflict = Some(conflict(
                position,
                e,
                hash,
                format!(
                    "the stored entry {} links to {prev}, but this object's entry {position} is \
                     {}: the two chains disagree",
                    position + 1,
                    e.hash
                ),
            ));
            break;
        }
        out.new.push(i);
    }
    if out.conflict.is_some() {
        out.new.clear();
    }
    out
}

/// `PR-<n>` naming `subject.id` `n` of a `pull_request`, in an `owner/name` repository.
fn identity(ctx: &ContextObject) -> Result<u64, String> {
    let n = ctx.subject.id;
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
/// The evidence kept with a refused object, at most.
const MAX_DOCUMENT_CHARS: usize = 8 << 20;

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

    /// Records a document that could not even be read as a Context Object (not JSON,
    /// a duplicate member, cut short): `repository` and `context_id` as far as known.
    pub async fn refuse(
        &mut self,
        repository: &str,
        context_id: &str,
        source: &str,
        problem: &str,
        document: Option<&str>,
        now: &str,
    ) -> Result<(), StoreError> {
        let context = context_row(&mut self.conn, repository, context_id).await?;
        let failure = Failure {
            context,
            repository,
            context_id,
            source,
            conflict: None,
            problem,
            document,
            now,
        };
        failure.record(&mut self.conn).await?;
        if let Some(id) = context {
            refresh(&mut self.conn, id, false, now).await?;
        }
        Ok(())
    }
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
    };
    let problem = match identity(ctx) {
        Err(why) => Some(format!("not a pull request's Context Object: {why}")),
        Ok(_) => offer.stored.verify(offer.key).err().map(|e| e.to_string()),
    };
    if let Some(problem) = problem {
        let context = context_row(conn, &ctx.repository, &ctx.context_id).await?;
        Failure {
            context,
            repository: &ctx.repository,
            context_id: &ctx.context_id,
            source: offer.source,
            conflict: None,
            problem: &problem,
            document: offer.document,
            now: offer.now,
        }
        .record(conn)
        .await?;
        if let Some(id) = context {
            fill(&mut imported, refresh(conn, id, false, offer.now).await?);
        }
        imported.refused = Some(problem);
        return Ok(imported);
    }
    let id = ensure_context(conn, ctx, offer).await?;
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
    conn.execute(
        "INSERT INTO workflow_contexts (repository, context_id, pr_number, subject_type, \
         source_branch, target_branch, author, head_sha, guard_status, review_status, \
         release_status, gates, entries, verification, signatures_checked, source, \
         last_trigger, last_timestamp, imported_at, updated_at) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', 'PENDING', 'PENDING', ?, 0, 'partial', 0, ?, ?, ?, ?, ?)",
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

/// Unix seconds of an RFC 3339 time.
pub(crate) fn unix(text: &str) -> Option<i64> {
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
        let s = &ctx.subject;
        conn.execute(
            "UPDATE workflow_contexts SET source_branch = ?, target_branch = ?, author = ?, \
             head_sha = ?, last_trigger = ?, last_timestamp = ?, source = ? WHERE id = ?",
            &[
                printable(&s.source_branch).as_str().into(),
                printable(&s.target_branch).as_str().into(),
                printable(&s.author).as_str().into(),
                printable(&s.head_sha).as_str().into(),
                printable(&ctx.trigger).as_str().into(),
                printable(&ctx.timestamp).as_str().into(),
                printable(offer.source).as_str().into(),
                id.into(),
            ],
        )
        .await?;
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

/// A refused object, as `verification_failures` keeps it.
struct Failure<'a> {
    context: Option<i64>,
    repository: &'a str,
    context_id: &'a str,
    source: &'a str,
    conflict: Option<&'a Conflict>,
    problem: &'a str,
    document: Option<&'a str>,
    now: &'a str,
}

impl Failure<'_> {
    async fn record(&self, conn: &mut Conn) -> Result<(), StoreError> {
        let mut hasher = Sha256::new();
        for part in [
            self.source,
            self.problem,
            self.conflict.map_or("", |c| c.offered_hash.as_str()),
        ] {
            hasher.update(part.as_bytes());
            hasher.update([0]);
        }
        let fingerprint = hex::encode(hasher.finalize());
        let document = self.document.map(|d| {
            if d.chars().count() > MAX_DOCUMENT_CHARS {
                None
            } else {
                Some(printable(d))
            }
        });
        let problem = match &document {
            Some(None) => format!(
                "{} (the document, over {} MiB, is not kept)",
                self.problem,
                MAX_DOCUMENT_CHARS >> 20
            ),
            _ => self.problem.to_string(),
        };
        let c = self.conflict;
        let position = c.map(|c| clamp(c.position));
        let entry_id = c.map(|c| printable(&c.entry_id));
        let stored_hash = c.map(|c| printable(&c.stored_hash));
        let offered_hash = c.map(|c| printable(&c.offered_hash));
        conn.execute(
            "INSERT INTO verification_failures (context, repository, context_id, source, \
             position, entry_id, stored_hash, offered_hash, problem, fingerprint, document, \
             found_at, found_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
             ON CONFLICT (repository, context_id, fingerprint) DO NOTHING",
            &[
                Param::Int(self.context),
                printable(self.repository).as_str().into(),
                printable(self.context_id).as_str().into(),
                printable(self.source).as_str().into(),
                Param::Int(position),
                Param::Text(entry_id.as_deref()),
                Param::Text(stored_hash.as_deref()),
                Param::Text(offered_hash.as_deref()),
                printable(&problem).as_str().into(),
                fingerprint.as_str().into(),
                Param::Text(document.flatten().as_deref()),
                self.now.into(),
                Param::Int(Some(unix(self.now).unwrap_or(0))),
            ],
        )
        .await?;
        Ok(())
    }
}

/// A context's stored ledger, summed up after a change.
pub(crate) struct Summary {
    pub verification: Verification,
    pub detail: Option<String>,
    pub entries: u64,
}

/// The facts derivation reads, from the entry columns.
struct Row5 {
    agent: String,
    action: String,
    result: String,
    sha: String,
    run_id: String,
    run_attempt: u64,
}

impl Fact for Row5 {
    fn agent(&self) -> &str {
        &self.agent
    }
    fn action(&self) -> &str {
        &self.action
    }
    fn result(&self) -> &str {
        &self.result
    }
    fn sha(&self) -> &str {
        &self.sha
    }
    fn run(&self) -> (&str, u64) {
        (&self.run_id, self.run_attempt)
    }
}

/// Recomputes a context's counts, head, verification and derived state from its stored
/// entries (never from a stored object's own `state`/`gates`).
pub(crate) async fn refresh(
    conn: &mut Conn,
    id: i64,
    from_listing: bool,
    now: &str,
) -> Result<Summary, StoreError> {
    let row = conn
        .query_one(
            "SELECT COUNT(*), MIN(position), MAX(position), MIN(signature_checked) \
             FROM timeline_entries WHERE context = ?",
            &[id.into()],
        )
        .await?
        .unwrap_or_default();
    let cell = |i: usize| row.get(i).and_then(Cell::int);
    let entries = cell(0).unwrap_or(0).max(0) as u64;
    let (min, max) = (cell(1), cell(2));
    let signed = cell(3).unwrap_or(0);
    let failures = conn
        .query(
            "SELECT problem FROM verification_failures WHERE context = ? ORDER BY id DESC",
            &[id.into()],
        )
        .await?;
    let (verification, detail) = if let Some(newest) = failures.first() {
        let problem = newest[0].text().unwrap_or_default();
        (
            Verification::Failed,
            Some(if failures.len() == 1 {
                format!("1 object refused: {problem}")
            } else {
                format!("{} objects refused; the newest: {problem}", failures.len())
            }),
        )
    } else {
        match (min, max) {
            (Some(0), Some(max)) if entries as i64 == max + 1 => (Verification::Verified, None),
            (Some(min), Some(max)) if entries as i64 == max - min + 1 => (
                Verification::Partial,
                Some(format!(
                    "the oldest {min} entries are not in the store (the comment holds only the \
                     newest ones): import the audit file that holds them"
                )),
            ),
            (Some(_), Some(max)) => (
                Verification::Partial,
                Some(format!(
                    "{} of entries 0 to {max} are not in the store: import the audit files \
                     that hold them",
                    max + 1 - entries as i64
                )),
            ),
            _ => (
                Verification::Partial,
                Some("no entry is stored yet".to_string()),
            ),
        }
    };
    let head = match max {
        Some(max) => conn
            .query_one(
                "SELECT hash FROM timeline_entries WHERE context = ? AND position = ?",
                &[id.into(), max.into()],
            )
            .await?
            .and_then(|r| r.into_iter().next())
            .and_then(Cell::into_text)
            .map(|h| crate::text::decode(&h)),
        None => None,
    };
    let facts = conn
        .query(
            "SELECT agent, action, result, sha, run_id, run_attempt, at_unix FROM timeline_entries \
             WHERE context = ? ORDER BY position",
            &[id.into()],
        )
        .await?;
    let mut merged_unix = None;
    let mut first_unix = None;
    let timeline: Vec<Row5> = facts
        .into_iter()
        .map(|row| {
            let text = |i: usize| crate::text::decode(row[i].text().unwrap_or_default());
            let fact = Row5 {
                agent: text(0),
                action: text(1),
                result: text(2),
                sha: text(3),
                run_id: text(4),
                run_attempt: row[5].int().unwrap_or(0) as u64,
            };
            let at = row[6].int();
            if first_unix.is_none() {
                first_unix = at;
            }
            if fact.agent == "agent_release"
                && fact.action == "action:merge"
                && fact.result == "DONE"
            {
                merged_unix = at.or(merged_unix);
            }
            fact
        })
        .collect();
    let (state, gates) = derived(&timeline);
    let gates = serde_json::to_string(&gates).unwrap_or_else(|_| "{}".into());
    conn.execute(
        "UPDATE workflow_contexts SET guard_status = ?, review_status = ?, release_status = ?, \
         gates = ?, entries = ?, first_position = ?, chain_head_hash = ?, verification = ?, \
         verification_detail = ?, signatures_checked = ?, updated_at = ? WHERE id = ?",
        &[
            state.guard_status.as_str().into(),
            state.review_status.as_str().into(),
            state.release_status.as_str().into(),
            gates.as_str().into(),
            Param::Int(Some(entries as i64)),
            Param::Int(min),
            Param::Text(head.as_deref()),
            verification.as_str().into(),
            Param::Text(detail.as_deref()),
            Param::Int(Some(signed)),
            now.into(),
            id.into(),
        ],
    )
    .await?;
    // Without GitHub's word, the timeline says when the ledger began and when release
    // merged; a pull request listing (sync) overrides both.
    if !from_listing {
        conn.execute(
            "UPDATE workflow_contexts SET \
             opened_unix = COALESCE(opened_unix, ?), \
             merged_unix = COALESCE(merged_unix, ?) WHERE id = ?",
            &[
                Param::Int(if min == Some(0) { first_unix } else { None }),
                Param::Int(merged_unix),
                id.into(),
            ],
        )
        .await?;
    }
    Ok(Summary {
        verification,
        detail,
        entries,
    })
}

#[cfg(test)]
mod tests;
