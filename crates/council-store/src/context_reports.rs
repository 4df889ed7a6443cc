//! The Agent Context Report protocol's `agent_context_reports` table: one row per
//! report read (an agent's report comment is edited in place, so each new
//! `reportTimestamp` is a new row; reading the same report again adds nothing).

use council_protocol::context_report::Report;
use serde_json::Value;

use crate::engine::Param;
use crate::import::{printable, unix};
use crate::{Store, StoreError};

/// A validated report and where it was read.
pub struct ReportRow<'a> {
    pub report: &'a Report,
    pub repository: &'a str,
    pub registry_issue: u64,
    pub comment_id: u64,
    pub comment_url: &'a str,
    pub author: &'a str,
}

impl Store {
    /// Stores the reports not stored yet; how many were new.
    pub async fn import_reports(
        &mut self,
        rows: &[ReportRow<'_>],
        now: &str,
    ) -> Result<usize, StoreError> {
        self.conn.begin().await?;
        let mut added = 0;
        for row in rows {
            // Token counts beyond the store's integers are no real window (and would be
            // stored as nothing, which the table refuses): such a report is not kept.
            let fits = |n: u64| i64::try_from(n).is_ok();
            if !fits(row.report.total_tokens) || !fits(row.report.available_tokens) {
                continue;
            }
            match insert(&mut self.conn, row, now).await {
                Ok(n) => added += n,
                Err(e) => {
                    self.conn.rollback().await;
                    return Err(e);
                }
            }
        }
        self.conn.commit().await?;
        Ok(added)
    }
}

async fn insert(
    conn: &mut crate::engine::Conn,
    row: &ReportRow<'_>,
    now: &str,
) -> Result<usize, StoreError> {
    let r = row.report;
    // The protocol's shape is `{"contextReport": {…}}` or the inner object.
    let inner = r.json.get("contextReport").unwrap_or(&r.json);
    let json = |key: &str| inner.get(key).map(|v| printable(&v.to_string()));
    let memory = inner.get("memoryState");
    let used = r.total_tokens as f64;
    let capacity = used + r.available_tokens as f64;
    let percent_full = (capacity > 0.0).then(|| used / capacity * 100.0);
    let timestamp = r.report_timestamp.clone().unwrap_or_default();
    let can_start = serde_json::to_string(&r.can_start_immediately).unwrap_or_default();
    let report_text = printable(&r.json.to_string());
    let projects = json("loadedProjects").unwrap_or_else(|| "[]".into());
    let tasks = json("loadedTasks").unwrap_or_else(|| "[]".into());
    let documents = json("loadedDocuments");
    let capabilities = json("capabilities").unwrap_or_else(|| "{}".into());
    let conversation = memory
        .and_then(|m| m.get("conversationLength"))
        .and_then(Value::as_u64)
        .and_then(|n| i64::try_from(n).ok());
    let oldest = memory
        .and_then(|m| m.get("oldestMessage"))
        .and_then(Value::as_str)
        .map(printable);
    let changed = conn
        .execute(
            "INSERT INTO agent_context_reports (agent_id, report_timestamp, report_unix, \
             total_tokens, available_tokens, percent_full, loaded_projects, loaded_tasks, \
             loaded_documents, capabilities, can_start_immediately, conversation_length, \
             oldest_message_timestamp, repository, registry_issue, comment_id, comment_url, \
             author, report, imported_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
             ON CONFLICT (repository, agent_id, report_timestamp, comment_id) DO NOTHING",
            &[
                r.agent_id.as_str().into(),
                timestamp.as_str().into(),
                Param::Int(unix(&timestamp)),
                Param::Int(i64::try_from(r.total_tokens).ok()),
                Param::Int(i64::try_from(r.available_tokens).ok()),
                Param::Real(percent_full),
                projects.as_str().into(),
                tasks.as_str().into(),
                Param::Text(documents.as_deref()),
                capabilities.as_str().into(),
                can_start.as_str().into(),
                Param::Int(conversation),
                Param::Text(oldest.as_deref()),
                row.repository.into(),
                Param::Int(i64::try_from(row.registry_issue).ok()),
                Param::Int(i64::try_from(row.comment_id).ok()),
                printable(row.comment_url).as_str().into(),
                printable(row.author).as_str().into(),
                report_text.as_str().into(),
                now.into(),
            ],
        )
        .await?;
    Ok(changed as usize)
}
