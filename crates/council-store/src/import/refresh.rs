//! A context's row, recomputed from its stored entries after every change: counts, the
//! chain head, where verification stands, and `state`/`gates` derived from the entries
//! (never taken from an offered object's own fields).

use council_protocol::audit::derive::{Fact, derived};
use council_protocol::audit::verify::EntryFacts;

use super::Verification;
use crate::StoreError;
use crate::engine::{Cell, Conn, Param};

/// A context's stored ledger, summed up after a change.
pub(crate) struct Summary {
    pub verification: Verification,
    pub detail: Option<String>,
    pub entries: u64,
    /// Who vouches for its author and branches (`github` or `header`).
    pub attribution: String,
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
    let mut last_unix: Option<i64> = None;
    let timeline: Vec<EntryFacts> = facts
        .into_iter()
        .map(|row| {
            let text =
                |i: usize| Some(crate::text::decode(row[i].text().unwrap_or_default()).into());
            let fact = EntryFacts {
                id: None,
                agent: text(0),
                action: text(1),
                result: text(2),
                sha: text(3),
                run_id: text(4),
                run_attempt: row[5].int().map(|a| a as u64),
            };
            let at = row[6].int();
            if first_unix.is_none() {
                first_unix = at;
            }
            last_unix = last_unix.max(at);
            if fact.agent() == "agent_release"
                && fact.action() == "action:merge"
                && fact.result() == "DONE"
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
         verification_detail = ?, signatures_checked = ?, last_unix = ?, updated_at = ? \
         WHERE id = ?",
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
            Param::Int(last_unix),
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
    let attribution = conn
        .query_one(
            "SELECT attribution FROM workflow_contexts WHERE id = ?",
            &[id.into()],
        )
        .await?
        .and_then(|row| row.into_iter().next())
        .and_then(Cell::into_text)
        .unwrap_or_else(|| super::BY_HEADER.to_string());
    Ok(Summary {
        verification,
        detail,
        entries,
        attribution,
    })
}
