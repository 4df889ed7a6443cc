//! `council audit verify`: every stored chain checked again from the store alone, with
//! SPEC.md's rules (each entry's hash over its canonical form, the links, the signatures
//! with a key). Anyone who can write the database file can also drop its triggers; this
//! is what finds an entry changed there, or one removed.

use council_protocol::audit::Entry;
use council_protocol::audit::chain::ZERO_HASH;
use council_protocol::audit::verify::verify_tail;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::engine::{Cell, Param, Row};
use crate::filter::Filter;
use crate::text::decode;
use crate::{Store, StoreError};

/// One pull request's stored chain, checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoredVerdict {
    pub repository: String,
    pub pr: u64,
    pub entries: u64,
    /// Every stored entry checked out, and the chain ends at the recorded head.
    pub verified: bool,
    pub signatures_checked: bool,
    /// Positions up to the newest stored entry that are not stored (a tail was imported
    /// without the file holding the older entries): the entries after such a gap are
    /// checked among themselves, not against what came before.
    pub missing: u64,
    pub head_hash: Option<String>,
    pub problem: Option<String>,
}

impl Store {
    pub async fn verify_stored(
        &mut self,
        filter: &Filter,
        key: Option<&[u8]>,
    ) -> Result<Vec<StoredVerdict>, StoreError> {
        let mut sql = String::from(
            "SELECT c.id, c.repository, c.pr_number, c.entries, c.chain_head_hash \
             FROM workflow_contexts c WHERE 1 = 1",
        );
        let mut params = Vec::new();
        if let Some(repo) = &filter.repository {
            sql.push_str(" AND c.repository = ?");
            params.push(Param::Text(Some(repo.as_str())));
        }
        if let Some(since) = filter.since_unix {
            sql.push_str(" AND c.last_unix >= ?");
            params.push(Param::Int(Some(since)));
        }
        sql.push_str(" ORDER BY c.repository, c.pr_number");
        let contexts = self.conn.query(&sql, &params).await?;
        let mut out = Vec::with_capacity(contexts.len());
        for c in &contexts {
            let id = c[0].int().unwrap_or(0);
            let rows = self
                .conn
                .query(
                    "SELECT position, entry_id, agent, action, result, message, timestamp, \
                     run_id, run_attempt, sha, prev_hash, hash, signature, extra \
                     FROM timeline_entries WHERE context = ? ORDER BY position",
                    &[Param::Int(Some(id))],
                )
                .await?;
            out.push(check(
                c[1].text().unwrap_or_default(),
                c[2].int().unwrap_or(0).max(0) as u64,
                c[3].int().unwrap_or(0).max(0) as u64,
                c[4].text().map(decode),
                &rows,
                key,
            ));
        }
        Ok(out)
    }
}

fn check(
    repository: &str,
    pr: u64,
    recorded_entries: u64,
    recorded_head: Option<String>,
    rows: &[Row],
    key: Option<&[u8]>,
) -> StoredVerdict {
    let mut verdict = StoredVerdict {
        repository: repository.to_string(),
        pr,
        entries: rows.len() as u64,
        verified: false,
        signatures_checked: key.is_some(),
        missing: 0,
        head_hash: None,
        problem: None,
    };
    // Contiguous runs of positions: a chain stored from its first entry starts at the zero
    // hash; a run after a gap (older entries never imported) starts where its first entry
    // says, which is not proven here.
    let mut segments: Vec<(u64, Vec<Value>)> = Vec::new();
    for row in rows {
        let position = row[0].int().unwrap_or(0).max(0) as u64;
        let value = match entry(row) {
            Ok(value) => value,
            Err(problem) => {
                verdict.problem = Some(format!("entry {position}: {problem}"));
                return verdict;
            }
        };
        match segments.last_mut() {
            Some((start, run)) if *start + run.len() as u64 == position => run.push(value),
            _ => segments.push((position, vec![value])),
        }
    }
    let max = segments
        .last()
        .map_or(0, |(start, run)| start + run.len() as u64);
    verdict.missing = max - verdict.entries;
    let mut head = None;
    for (start, run) in &segments {
        let anchor = match (start, run.first()) {
            (0, _) | (_, None) => ZERO_HASH.to_string(),
            (_, Some(e)) => e
                .get("prev_hash")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        };
        match verify_tail(run, &anchor, key) {
            Ok(report) => head = Some(report.head_hash),
            Err(tamper) => {
                verdict.problem = Some(format!(
                    "{tamper} (counted from the stored entry at position {start})"
                ));
                return verdict;
            }
        }
    }
    if head != recorded_head {
        verdict.problem = Some(format!(
            "the chain ends at {} but the context records {}: entries were removed or added \
             behind the store's back",
            head.as_deref().unwrap_or("no entry"),
            recorded_head.as_deref().unwrap_or("none")
        ));
    } else if recorded_entries != verdict.entries {
        verdict.problem = Some(format!(
            "{} entries are stored but the context records {recorded_entries}: entries were \
             removed or added behind the store's back",
            verdict.entries
        ));
    } else {
        verdict.verified = true;
    }
    verdict.head_hash = head;
    verdict
}

/// An entry rebuilt from its columns, exactly as it was hashed.
fn entry(row: &Row) -> Result<Value, String> {
    let text = |i: usize| row.get(i).and_then(Cell::text).map(decode);
    let need = |i: usize, name: &str| text(i).ok_or_else(|| format!("`{name}` is not text"));
    let extra: Map<String, Value> = match text(13) {
        Some(json) => serde_json::from_str(&json).map_err(|e| format!("`extra`: {e}"))?,
        None => Map::new(),
    };
    let entry = Entry {
        id: need(1, "entry_id")?,
        agent: need(2, "agent")?,
        action: need(3, "action")?,
        result: need(4, "result")?,
        message: need(5, "message")?,
        timestamp: need(6, "timestamp")?,
        run_id: need(7, "run_id")?,
        run_attempt: row
            .get(8)
            .and_then(Cell::int)
            .ok_or("`run_attempt` is not a number")? as u64,
        sha: need(9, "sha")?,
        prev_hash: need(10, "prev_hash")?,
        hash: need(11, "hash")?,
        signature: text(12),
        extra,
    };
    serde_json::to_value(entry).map_err(|e| e.to_string())
}
