//! The common questions, answered in SQL both engines speak: per agent, guard pass rate
//! and the guard check it fails most; checks by gate (review findings among them); time
//! from open to merge; rollbacks; objects whose verification failed.
//!
//! The agent is the pull request's author. A guard run is one run and attempt of the
//! guard on a pull request: it passes when every check it recorded passed.

use chrono::{DateTime, NaiveDate};
use serde::Serialize;

use crate::engine::{Cell, Param, Row};
use crate::report::{
    AgentRow, Bucket, FailureRow, GateRow, PassRatePoint, PrRow, RollbackRow, TimeToMerge,
    TimelineRow, Totals,
};
use crate::{Store, StoreError};

pub use crate::filter::Filter;

/// The questions `council audit query` answers, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Question {
    Agents,
    Findings,
    MergeTime,
    Rollbacks,
    Failures,
    Queue,
}

impl Question {
    pub const ALL: [Question; 6] = [
        Question::Agents,
        Question::Findings,
        Question::MergeTime,
        Question::Rollbacks,
        Question::Failures,
        Question::Queue,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Question::Agents => "agents",
            Question::Findings => "findings",
            Question::MergeTime => "merge-time",
            Question::Rollbacks => "rollbacks",
            Question::Failures => "failures",
            Question::Queue => "queue",
        }
    }

    pub fn parse(name: &str) -> Option<Question> {
        Question::ALL.into_iter().find(|q| q.name() == name)
    }

    /// One line of what it answers.
    pub fn about(self) -> &'static str {
        match self {
            Question::Agents => {
                "per agent (pull request author): guard pass rate and the guard check failed most, review findings, merges"
            }
            Question::Findings => {
                "checks by gate: failures and passes of each, and the pull requests failing it"
            }
            Question::MergeTime => {
                "time from open to merge: median, p90, mean, a histogram and each merged pull request"
            }
            Question::Rollbacks => "merges that release reverted because the pipeline went red",
            Question::Failures => {
                "objects whose verification failed: tampering, or a chain that conflicts with the store"
            }
            Question::Queue => {
                "the merge queue: time from entering the queue to landing (median, p90, mean), queue commits tested, and each queue failure (a red or timed-out test, a conflict)"
            }
        }
    }
}

/// One merged pull request's time to merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MergeRow {
    pub repository: String,
    pub pr: u64,
    pub author: String,
    /// Who vouches for `author`: `github`, or `header` (unverified).
    pub attribution: String,
    pub opened_at: Option<String>,
    pub merged_at: Option<String>,
    pub seconds: i64,
}

/// One pull request's way through the merge queue.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct QueueRow {
    pub repository: String,
    pub pr: u64,
    pub author: String,
    pub attribution: String,
    /// When it last entered the queue (before landing, when it landed), RFC 3339.
    pub enqueued_at: Option<String>,
    pub landed_at: Option<String>,
    /// From the last entry into the queue to the landing.
    pub seconds: Option<i64>,
    /// Queue commits it was tested in.
    pub tests: u64,
    /// Times it left the queue for a failed test or a conflict (`check:queue` FAIL).
    pub failures: u64,
    /// `landed`, `failed` (its last test failed), or `in line`.
    pub outcome: String,
}

/// One queue failure: a pull request that left the queue for a red or timed-out queue
/// commit, or a conflict.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct QueueFailureRow {
    pub repository: String,
    pub pr: u64,
    pub author: String,
    pub attribution: String,
    pub at: Option<String>,
    pub message: String,
}

/// The merge queue's figures: how long landed pull requests waited, and how often the
/// queue failed one.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QueueSummary {
    /// Pull requests that entered the queue.
    pub prs: u64,
    pub landed: u64,
    /// Queue commits tested (each pull request in one counts once per commit).
    pub tests: u64,
    /// `check:queue` FAIL entries.
    pub failures: u64,
    /// Time in the queue of the landed pull requests.
    pub queue_time: TimeToMerge,
}

/// SQL conditions and their parameters, built from a [`Filter`].
pub(crate) struct Where<'f> {
    pub(crate) sql: String,
    pub(crate) params: Vec<Param<'f>>,
}

impl Filter {
    fn is_empty(&self) -> bool {
        self.repository.is_none() && self.since_unix.is_none()
    }

    /// Conditions on contexts (`c`) and, when `entries`, on entries (`e`).
    fn conditions(&self, entries: bool) -> Where<'_> {
        let mut both = self.context_conditions();
        if entries {
            let e = self.entry_conditions();
            both.sql.push_str(&e.sql);
            both.params.extend(e.params);
        }
        both
    }

    /// Conditions on contexts (`c`) alone.
    pub(crate) fn context_conditions(&self) -> Where<'_> {
        let mut sql = Vec::new();
        let mut params = Vec::new();
        if let Some(repo) = &self.repository {
            sql.push("c.repository = ?");
            params.push(Param::Text(Some(repo)));
        }
        if let Some(since) = self.since_unix {
            sql.push("c.last_unix >= ?");
            params.push(Param::Int(Some(since)));
        }
        Where {
            sql: sql.iter().map(|c| format!(" AND {c}")).collect(),
            params,
        }
    }

    /// Conditions on entries (`e`) alone: a question over entries applies them while it
    /// reads the index, and the contexts' after it has counted per pull request, so that
    /// it looks up each pull request once, not each of its entries.
    fn entry_conditions(&self) -> Where<'_> {
        match self.since_unix {
            Some(since) => Where {
                sql: " AND e.at_unix >= ?".to_string(),
                params: vec![Param::Int(Some(since))],
            },
            None => Where {
                sql: String::new(),
                params: Vec::new(),
            },
        }
    }
}

fn int(row: &Row, i: usize) -> i64 {
    row.get(i).and_then(Cell::int).unwrap_or(0)
}

pub(crate) fn count(row: &Row, i: usize) -> u64 {
    int(row, i).max(0) as u64
}

pub(crate) fn text(row: &Row, i: usize) -> String {
    row.get(i)
        .and_then(Cell::text)
        .map(crate::text::decode)
        .unwrap_or_default()
}

pub(crate) fn opt_text(row: &Row, i: usize) -> Option<String> {
    row.get(i).and_then(Cell::text).map(crate::text::decode)
}

/// Guard runs: one row per context, run and attempt, `passed` 1 when all its checks did,
/// `at` its first entry's time. Read in the order of `timeline_entries_run`, so that the
/// grouping needs no sort; conditions on entries follow, then [`GUARD_RUNS_GROUP`].
const GUARD_RUNS: &str = "SELECT e.context AS context, e.run_id AS run_id, \
     e.run_attempt AS run_attempt, MIN(CASE WHEN e.result = 'PASS' THEN 1 ELSE 0 END) AS passed, \
     MIN(e.at_unix) AS at FROM timeline_entries e \
     WHERE e.agent = 'agent_guard' AND e.action LIKE 'check:%'";
const GUARD_RUNS_GROUP: &str = " GROUP BY e.context, e.run_id, e.run_attempt";

fn stage_of(agent: &str) -> String {
    agent.strip_prefix("agent_").unwrap_or(agent).to_string()
}

impl Store {
    pub async fn agents(&mut self, filter: &Filter) -> Result<Vec<AgentRow>, StoreError> {
        let w = filter.conditions(false);
        let prs = self
            .conn
            .query(
                &format!(
                    "SELECT c.author, COUNT(*), SUM(CASE WHEN c.merged_unix IS NOT NULL \
                     OR c.release_status IN ('MERGED', 'ROLLED_BACK') THEN 1 ELSE 0 END), \
                     SUM(CASE WHEN c.attribution = 'github' THEN 0 ELSE 1 END) \
                     FROM workflow_contexts c WHERE 1 = 1{} GROUP BY c.author",
                    w.sql
                ),
                &w.params,
            )
            .await?;
        let mut agents: std::collections::BTreeMap<String, AgentRow> = prs
            .iter()
            .map(|row| {
                let agent = text(row, 0);
                (
                    agent.clone(),
                    AgentRow {
                        agent,
                        prs: count(row, 1),
                        merged: count(row, 2),
                        unverified_prs: count(row, 3),
                        ..AgentRow::default()
                    },
                )
            })
            .collect();
        // Runs are counted per pull request first: one lookup of its author and conditions
        // for each, not for each of its runs. (PostgreSQL's SUM of a count is numeric.)
        let (e, c) = (filter.entry_conditions(), filter.context_conditions());
        let runs = self
            .conn
            .query(
                &format!(
                    "SELECT c.author, CAST(SUM(p.runs) AS BIGINT), CAST(SUM(p.passed) AS BIGINT) \
                     FROM (SELECT r.context AS context, COUNT(*) AS runs, SUM(r.passed) AS passed \
                     FROM ({GUARD_RUNS}{}{GUARD_RUNS_GROUP}) r GROUP BY r.context) p \
                     JOIN workflow_contexts c ON c.id = p.context WHERE 1 = 1{} GROUP BY c.author",
                    e.sql, c.sql
                ),
                &[e.params.clone(), c.params.clone()].concat(),
            )
            .await?;
        for row in &runs {
            if let Some(a) = agents.get_mut(&text(row, 0)) {
                a.guard_runs = count(row, 1);
                a.guard_passed = count(row, 2);
                a.pass_rate =
                    (a.guard_runs > 0).then(|| a.guard_passed as f64 / a.guard_runs as f64);
            }
        }
        // The failed checks alone, a range of the index (agent, 'FAIL'), per pull request.
        let failing = self
            .conn
            .query(
                &format!(
                    "SELECT c.author, x.agent, x.action, CAST(SUM(x.n) AS BIGINT) FROM \
                     (SELECT e.context AS context, e.agent AS agent, e.action AS action, \
                     COUNT(*) AS n FROM timeline_entries e \
                     WHERE e.agent IN ('agent_guard', 'agent_review') AND e.result = 'FAIL' \
                     AND e.action LIKE 'check:%'{} \
                     GROUP BY e.agent, e.result, e.action, e.context) x \
                     JOIN workflow_contexts c ON c.id = x.context WHERE 1 = 1{} \
                     GROUP BY c.author, x.agent, x.action",
                    e.sql, c.sql
                ),
                &[e.params, c.params].concat(),
            )
            .await?;
        for row in &failing {
            let Some(a) = agents.get_mut(&text(row, 0)) else {
                continue;
            };
            let n = count(row, 3);
            if text(row, 1) == "agent_review" {
                a.review_findings += n;
                continue;
            }
            let rule = text(row, 2);
            // Most failures first; a tie goes to the rule's name, so answers are stable.
            let better = n > a.top_failing_count
                || (n == a.top_failing_count
                    && a.top_failing_rule.as_ref().is_some_and(|r| rule < *r));
            if better {
                a.top_failing_rule = Some(rule);
                a.top_failing_count = n;
            }
        }
        let mut rows: Vec<AgentRow> = agents.into_values().collect();
        rows.sort_by(|a, b| b.prs.cmp(&a.prs).then_with(|| a.agent.cmp(&b.agent)));
        Ok(rows)
    }

    /// Every check by stage and gate, most failures first.
    pub async fn findings(&mut self, filter: &Filter) -> Result<Vec<GateRow>, StoreError> {
        // Counted per check and result in the order of `timeline_entries_check` (agent,
        // result, action, context): one pass over the index, no sort; the results of a
        // check are put together here. With conditions on the pull requests, counted per
        // pull request first, then each looked up once (not once per entry).
        let rows = if filter.is_empty() {
            self.conn
                .query(
                    "SELECT e.agent, e.action, e.result, COUNT(*), COUNT(DISTINCT e.context) \
                     FROM timeline_entries e WHERE e.action LIKE 'check:%' \
                     GROUP BY e.agent, e.result, e.action",
                    &[],
                )
                .await?
        } else {
            let (e, c) = (filter.entry_conditions(), filter.context_conditions());
            self.conn
                .query(
                    &format!(
                        "SELECT x.agent, x.action, x.result, CAST(SUM(x.n) AS BIGINT), COUNT(*) \
                         FROM (SELECT e.agent AS agent, e.action AS action, e.result AS result, \
                         e.context AS context, COUNT(*) AS n FROM timeline_entries e \
                         WHERE e.action LIKE 'check:%'{} \
                         GROUP BY e.agent, e.result, e.action, e.context) x \
                         JOIN workflow_contexts c ON c.id = x.context WHERE 1 = 1{} \
                         GROUP BY x.agent, x.result, x.action",
                        e.sql, c.sql
                    ),
                    &[e.params, c.params].concat(),
                )
                .await?
        };
        let mut gates: std::collections::BTreeMap<(String, String), GateRow> =
            std::collections::BTreeMap::new();
        for row in &rows {
            let (agent, rule) = (text(row, 0), text(row, 1));
            let gate = gates
                .entry((agent.clone(), rule.clone()))
                .or_insert_with(|| GateRow {
                    stage: stage_of(&agent),
                    rule,
                    failed: 0,
                    passed: 0,
                    prs_failed: 0,
                });
            match text(row, 2).as_str() {
                "FAIL" => {
                    gate.failed += count(row, 3);
                    gate.prs_failed += count(row, 4);
                }
                "PASS" => gate.passed += count(row, 3),
                _ => {}
            }
        }
        let mut out: Vec<GateRow> = gates.into_values().collect();
        out.sort_by(|a, b| {
            b.failed
                .cmp(&a.failed)
                .then_with(|| a.stage.cmp(&b.stage))
                .then_with(|| a.rule.cmp(&b.rule))
        });
        Ok(out)
    }

    /// Time from open to merge of every merged pull request, and its summary.
    pub async fn merge_time(
        &mut self,
        filter: &Filter,
    ) -> Result<(TimeToMerge, Vec<MergeRow>), StoreError> {
        let w = filter.conditions(false);
        let rows = self
            .conn
            .query(
                &format!(
                    "SELECT c.repository, c.pr_number, c.author, c.opened_at, c.merged_at, \
                     c.opened_unix, c.merged_unix, c.attribution FROM workflow_contexts c \
                     WHERE c.merged_unix IS NOT NULL AND c.opened_unix IS NOT NULL{} \
                     ORDER BY c.merged_unix, c.repository, c.pr_number",
                    w.sql
                ),
                &w.params,
            )
            .await?;
        let prs: Vec<MergeRow> = rows
            .iter()
            .map(|row| MergeRow {
                repository: text(row, 0),
                pr: count(row, 1),
                author: text(row, 2),
                attribution: text(row, 7),
                opened_at: opt_text(row, 3).or_else(|| rfc3339(row.get(5))),
                merged_at: opt_text(row, 4).or_else(|| rfc3339(row.get(6))),
                seconds: (int(row, 6) - int(row, 5)).max(0),
            })
            .collect();
        let seconds: Vec<i64> = prs.iter().map(|p| p.seconds).collect();
        Ok((summarise(seconds), prs))
    }

    pub async fn rollbacks(&mut self, filter: &Filter) -> Result<Vec<RollbackRow>, StoreError> {
        let w = filter.conditions(true);
        let rows = self
            .conn
            .query(
                &format!(
                    "SELECT c.repository, c.pr_number, c.author, e.timestamp, e.message, \
                     c.attribution FROM timeline_entries e JOIN workflow_contexts c ON c.id = e.context \
                     WHERE e.agent = 'agent_release' AND e.action = 'action:revert' \
                     AND e.result = 'DONE'{} ORDER BY e.at_unix, c.repository, c.pr_number",
                    w.sql
                ),
                &w.params,
            )
            .await?;
        Ok(rows
            .iter()
            .map(|row| RollbackRow {
                repository: text(row, 0),
                pr: count(row, 1),
                author: text(row, 2),
                attribution: text(row, 5),
                at: opt_text(row, 3),
                message: text(row, 4),
            })
            .collect())
    }

    /// The merge queue: each pull request that entered it (`action:enqueue` done), its
    /// time from its last entry to its landing (`action:merge` done), its tests and
    /// failures; and every failure, oldest first.
    pub async fn queue(
        &mut self,
        filter: &Filter,
    ) -> Result<(QueueSummary, Vec<QueueRow>, Vec<QueueFailureRow>), StoreError> {
        let w = filter.conditions(true);
        let rows = self
            .conn
            .query(
                &format!(
                    "SELECT c.repository, c.pr_number, c.author, c.attribution, e.action, \
                     e.result, e.at_unix, e.timestamp, e.message FROM timeline_entries e \
                     JOIN workflow_contexts c ON c.id = e.context \
                     WHERE e.agent = 'agent_release' AND e.action IN ('action:enqueue', \
                     'action:queue-test', 'check:queue', 'action:merge'){} \
                     ORDER BY c.repository, c.pr_number, e.position",
                    w.sql
                ),
                &w.params,
            )
            .await?;
        let mut prs: Vec<QueueRow> = Vec::new();
        let mut failures: Vec<QueueFailureRow> = Vec::new();
        // The last entry into the queue of the pull request being read (unix seconds).
        let mut entered: Option<(i64, String)> = None;
        for row in &rows {
            let (repository, pr) = (text(row, 0), count(row, 1));
            let (action, result) = (text(row, 4), text(row, 5));
            let (at, when) = (int(row, 6), opt_text(row, 7));
            let same = prs
                .last()
                .is_some_and(|p| p.repository == repository && p.pr == pr);
            if !same {
                entered = None;
                if action != "action:enqueue" || result != "DONE" {
                    // Merged or checked without ever entering the queue: not the queue's.
                    continue;
                }
                prs.push(QueueRow {
                    repository: repository.clone(),
                    pr,
                    author: text(row, 2),
                    attribution: text(row, 3),
                    outcome: "in line".to_string(),
                    ..QueueRow::default()
                });
            }
            let Some(p) = prs.last_mut() else { continue };
            match (action.as_str(), result.as_str()) {
                ("action:enqueue", "DONE") => {
                    entered = Some((at, when.clone().unwrap_or_default()));
                    p.enqueued_at = when;
                    p.outcome = "in line".to_string();
                }
                ("action:queue-test", "DONE") => p.tests += 1,
                ("check:queue", "FAIL") => {
                    p.failures += 1;
                    p.outcome = "failed".to_string();
                    failures.push(QueueFailureRow {
                        repository,
                        pr,
                        author: p.author.clone(),
                        attribution: p.attribution.clone(),
                        at: when,
                        message: text(row, 8),
                    });
                }
                ("action:merge", "DONE") => {
                    if let Some((since, _)) = &entered {
                        p.seconds = Some((at - since).max(0));
                        p.landed_at = when;
                        p.outcome = "landed".to_string();
                    }
                }
                _ => {}
            }
        }
        failures.sort_by(|a, b| a.at.cmp(&b.at));
        let seconds: Vec<i64> = prs.iter().filter_map(|p| p.seconds).collect();
        let summary = QueueSummary {
            prs: prs.len() as u64,
            landed: seconds.len() as u64,
            tests: prs.iter().map(|p| p.tests).sum(),
            failures: failures.len() as u64,
            queue_time: summarise(seconds),
        };
        Ok((summary, prs, failures))
    }

    /// Every refused object, newest first.
    pub async fn failures(&mut self, filter: &Filter) -> Result<Vec<FailureRow>, StoreError> {
        let mut sql = String::from(
            "SELECT f.repository, f.context_id, f.source, f.position, f.problem, f.found_at \
             FROM verification_failures f WHERE 1 = 1",
        );
        let mut params = Vec::new();
        if let Some(repo) = &filter.repository {
            sql.push_str(" AND f.repository = ?");
            params.push(Param::Text(Some(repo)));
        }
        if let Some(since) = filter.since_unix {
            sql.push_str(" AND f.found_unix >= ?");
            params.push(Param::Int(Some(since)));
        }
        sql.push_str(" ORDER BY f.id DESC");
        let rows = self.conn.query(&sql, &params).await?;
        Ok(rows
            .iter()
            .map(|row| {
                let context_id = text(row, 1);
                FailureRow {
                    repository: text(row, 0),
                    pr: context_id.strip_prefix("PR-").and_then(|n| n.parse().ok()),
                    context_id,
                    source: text(row, 2),
                    position: row.get(3).and_then(Cell::int).map(|p| p.max(0) as u64),
                    problem: text(row, 4),
                    found_at: text(row, 5),
                }
            })
            .collect())
    }

    /// Guard runs per agent per week (weeks start on Monday, UTC).
    pub async fn pass_rate_over_time(
        &mut self,
        filter: &Filter,
    ) -> Result<Vec<PassRatePoint>, StoreError> {
        // 1970-01-05 was the first Monday after the epoch.
        const MONDAY: i64 = 4 * 86_400;
        const WEEK: i64 = 7 * 86_400;
        // Per pull request and week first, as in `agents`: one lookup for each.
        let (e, c) = (filter.entry_conditions(), filter.context_conditions());
        let rows = self
            .conn
            .query(
                &format!(
                    "SELECT c.author, p.week, CAST(SUM(p.runs) AS BIGINT), \
                     CAST(SUM(p.passed) AS BIGINT) FROM (SELECT r.context AS context, \
                     (r.at - {MONDAY}) / {WEEK} AS week, COUNT(*) AS runs, SUM(r.passed) AS passed \
                     FROM ({GUARD_RUNS}{}{GUARD_RUNS_GROUP}) r WHERE r.at >= {MONDAY} \
                     GROUP BY r.context, (r.at - {MONDAY}) / {WEEK}) p \
                     JOIN workflow_contexts c ON c.id = p.context WHERE 1 = 1{} \
                     GROUP BY c.author, p.week",
                    e.sql, c.sql
                ),
                &[e.params, c.params].concat(),
            )
            .await?;
        let mut points: Vec<(i64, PassRatePoint)> = rows
            .iter()
            .map(|row| {
                let week = int(row, 1);
                let start = DateTime::from_timestamp(MONDAY + week * WEEK, 0)
                    .map(|t| t.date_naive())
                    .unwrap_or(NaiveDate::MIN);
                (
                    week,
                    PassRatePoint {
                        agent: text(row, 0),
                        week: start.format("%Y-%m-%d").to_string(),
                        runs: count(row, 2),
                        passed: count(row, 3),
                    },
                )
            })
            .collect();
        points.sort_by(|(a, pa), (b, pb)| a.cmp(b).then_with(|| pa.agent.cmp(&pb.agent)));
        Ok(points.into_iter().map(|(_, p)| p).collect())
    }

    pub async fn totals(&mut self, filter: &Filter) -> Result<Totals, StoreError> {
        let w = filter.conditions(false);
        let row = self
            .conn
            .query_one(
                &format!(
                    "SELECT COUNT(*), CAST(SUM(c.entries) AS BIGINT), \
                     SUM(CASE WHEN c.verification = 'verified' THEN 1 ELSE 0 END), \
                     SUM(CASE WHEN c.verification = 'partial' THEN 1 ELSE 0 END), \
                     SUM(CASE WHEN c.verification = 'failed' THEN 1 ELSE 0 END), \
                     SUM(CASE WHEN c.merged_unix IS NOT NULL \
                         OR c.release_status IN ('MERGED', 'ROLLED_BACK') THEN 1 ELSE 0 END), \
                     SUM(CASE WHEN c.release_status = 'ROLLED_BACK' THEN 1 ELSE 0 END), \
                     SUM(CASE WHEN c.attribution = 'github' THEN 0 ELSE 1 END) \
                     FROM workflow_contexts c WHERE 1 = 1{}",
                    w.sql
                ),
                &w.params,
            )
            .await?
            .unwrap_or_default();
        Ok(Totals {
            contexts: count(&row, 0),
            entries: count(&row, 1),
            verified: count(&row, 2),
            partial: count(&row, 3),
            failed: count(&row, 4),
            merged: count(&row, 5),
            rolled_back: count(&row, 6),
            unverified_attribution: count(&row, 7),
        })
    }

    /// The repositories the store holds (or the filter's).
    pub async fn repositories(&mut self, filter: &Filter) -> Result<Vec<String>, StoreError> {
        if let Some(repo) = &filter.repository {
            return Ok(vec![repo.clone()]);
        }
        let rows = self
            .conn
            .query(
                "SELECT DISTINCT repository FROM workflow_contexts ORDER BY repository",
                &[],
            )
            .await?;
        Ok(rows.iter().map(|r| text(r, 0)).collect())
    }

    /// The newest pull requests (by their newest entry), each with its newest entries;
    /// and how many more there are.
    pub async fn pull_requests(
        &mut self,
        filter: &Filter,
        max_prs: usize,
        max_entries: usize,
    ) -> Result<(Vec<PrRow>, u64), StoreError> {
        let w = filter.conditions(false);
        let limit = i64::try_from(max_prs).unwrap_or(i64::MAX);
        let mut params = w.params.clone();
        params.push(Param::Int(Some(limit)));
        let rows = self
            .conn
            .query(
                &format!(
                    "SELECT c.id, c.repository, c.pr_number, c.title, c.author, c.source_branch, \
                     c.target_branch, c.guard_status, c.review_status, c.release_status, \
                     c.verification, c.verification_detail, c.signatures_checked, c.entries, \
                     c.opened_at, c.opened_unix, c.merged_at, c.merged_unix, c.source, \
                     c.attribution FROM workflow_contexts c WHERE 1 = 1{} \
                     ORDER BY c.last_unix DESC, c.repository, c.pr_number DESC LIMIT ?",
                    w.sql
                ),
                &params,
            )
            .await?;
        let total = self.totals(filter).await?.contexts;
        let mut prs = Vec::with_capacity(rows.len());
        for row in &rows {
            let timeline = self.newest_entries(int(row, 0), max_entries).await?;
            prs.push(PrRow {
                repository: text(row, 1),
                pr: count(row, 2),
                title: opt_text(row, 3),
                author: text(row, 4),
                source_branch: text(row, 5),
                target_branch: text(row, 6),
                attribution: text(row, 19),
                guard_status: text(row, 7),
                review_status: text(row, 8),
                release_status: text(row, 9),
                verification: text(row, 10),
                verification_detail: opt_text(row, 11),
                signatures_checked: int(row, 12) == 1,
                entries: count(row, 13),
                opened_at: opt_text(row, 14).or_else(|| rfc3339(row.get(15))),
                merged_at: opt_text(row, 16).or_else(|| rfc3339(row.get(17))),
                source: text(row, 18),
                timeline,
            });
        }
        Ok((prs, total.saturating_sub(rows.len() as u64)))
    }

    async fn newest_entries(
        &mut self,
        context: i64,
        max: usize,
    ) -> Result<Vec<TimelineRow>, StoreError> {
        let rows = self
            .conn
            .query(
                "SELECT position, agent, action, result, message, timestamp, sha \
                 FROM timeline_entries WHERE context = ? ORDER BY position DESC LIMIT ?",
                &[
                    Param::Int(Some(context)),
                    Param::Int(Some(i64::try_from(max).unwrap_or(i64::MAX))),
                ],
            )
            .await?;
        let mut out: Vec<TimelineRow> = rows
            .iter()
            .map(|row| TimelineRow {
                position: count(row, 0),
                agent: text(row, 1),
                action: text(row, 2),
                result: text(row, 3),
                message: text(row, 4),
                timestamp: text(row, 5),
                sha: text(row, 6),
            })
            .collect();
        out.reverse();
        Ok(out)
    }
}

fn rfc3339(cell: Option<&Cell>) -> Option<String> {
    let t = cell.and_then(Cell::int)?;
    DateTime::from_timestamp(t, 0).map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// The histogram's buckets: upper bounds (exclusive) in seconds, and their labels.
const BUCKETS: [(Option<i64>, &str); 6] = [
    (Some(3_600), "< 1 h"),
    (Some(4 * 3_600), "1–4 h"),
    (Some(86_400), "4–24 h"),
    (Some(3 * 86_400), "1–3 days"),
    (Some(7 * 86_400), "3–7 days"),
    (None, "≥ 7 days"),
];

/// Median, p90 (nearest rank), mean, extremes and the histogram of durations.
pub fn summarise(mut seconds: Vec<i64>) -> TimeToMerge {
    seconds.sort_unstable();
    let n = seconds.len();
    let rank = |p: f64| -> Option<i64> {
        if n == 0 {
            return None;
        }
        // Nearest rank: the smallest value with at least p of the values at or below it.
        let k = ((p * n as f64).ceil() as usize).clamp(1, n);
        Some(seconds[k - 1])
    };
    let median = if n == 0 {
        None
    } else if n % 2 == 1 {
        Some(seconds[n / 2])
    } else {
        Some((seconds[n / 2 - 1] + seconds[n / 2]) / 2)
    };
    let mean = (n > 0).then(|| {
        let sum: i128 = seconds.iter().map(|&s| i128::from(s)).sum();
        (sum / n as i128) as i64
    });
    let mut lower = 0;
    let buckets = BUCKETS
        .iter()
        .map(|&(upper, label)| {
            let count = seconds
                .iter()
                .filter(|&&s| s >= lower && upper.is_none_or(|u| s < u))
                .count() as u64;
            lower = upper.unwrap_or(i64::MAX);
            Bucket {
                label: label.to_string(),
                upper_seconds: upper,
                count,
            }
        })
        .collect();
    TimeToMerge {
        count: n as u64,
        median_seconds: median,
        p90_seconds: rank(0.9),
        mean_seconds: mean,
        min_seconds: seconds.first().copied(),
        max_seconds: seconds.last().copied(),
        buckets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_time_summary_uses_nearest_rank_and_fixed_buckets() {
        let t = summarise(vec![7_200, 60, 90_000, 600, 3_600]);
        assert_eq!(t.count, 5);
        assert_eq!(t.median_seconds, Some(3_600));
        assert_eq!(t.p90_seconds, Some(90_000));
        assert_eq!(t.mean_seconds, Some(20_292));
        assert_eq!((t.min_seconds, t.max_seconds), (Some(60), Some(90_000)));
        let counts: Vec<u64> = t.buckets.iter().map(|b| b.count).collect();
        assert_eq!(counts, [2, 2, 0, 1, 0, 0]);
        let empty = summarise(Vec::new());
        assert_eq!((empty.count, empty.median_seconds), (0, None));
        assert_eq!(empty.buckets.len(), 6);
    }

    #[test]
    fn questions_are_named_once() {
        for q in Question::ALL {
            assert_eq!(Question::parse(q.name()), Some(q));
        }
        assert_eq!(Question::parse("agent"), None);
    }
}
