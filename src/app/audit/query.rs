//! `council audit query [QUESTION]`: the common questions, as tables on a terminal, one
//! JSON object (a member per question), or CSV.

use council_protocol::error::{Error, Outcome, Result};
use council_store::query::{Filter, MergeRow, Question, QueueRow, QueueSummary};
use council_store::report::{AgentRow, FailureRow, GateRow, RollbackRow, TimeToMerge};
use council_store::{BY_GITHUB, Store};
use serde_json::{Map, Value, json};

use super::table::{Cell, Table};
use super::{filter, open_default, store_error};
use crate::env::RunEnv;
use crate::request::{AuditFilter, AuditRequest};

pub async fn run(
    env: &RunEnv,
    req: &AuditRequest,
    question: Option<&str>,
    given: &AuditFilter,
    csv: bool,
) -> Result<Outcome> {
    let questions = match question {
        None => Question::ALL.to_vec(),
        Some(name) => vec![Question::parse(name).ok_or_else(|| unknown(name))?],
    };
    let filter = filter(given)?;
    let mut store = open_default(env, req).await?;
    let mut json_out = Map::new();
    json_out.insert("database".into(), json!(store.shown()));
    let mut text = String::new();
    for (i, q) in questions.iter().enumerate() {
        let answer = answer(&mut store, *q, &filter).await?;
        if req.json {
            json_out.insert(q.name().replace('-', "_"), answer.json);
            continue;
        }
        if i > 0 {
            text.push('\n');
        }
        if csv {
            if questions.len() > 1 {
                text.push_str(&format!("# {}\r\n", q.name()));
            }
            text.push_str(&answer.table.csv());
        } else {
            text.push_str(&format!("{}: {}\n", q.name(), q.about()));
            if let Some(line) = &answer.summary {
                text.push_str(line);
                text.push('\n');
            }
            if answer.table.rows.is_empty() {
                text.push_str("  (nothing stored yet)\n");
            } else {
                text.push_str(&answer.table.plain());
            }
        }
    }
    if req.json {
        env.runner.println(&(Value::Object(json_out)).to_string());
    } else {
        env.runner.print(&text.to_string());
    }
    Ok(Outcome::Passed)
}

fn unknown(name: &str) -> Error {
    let names: Vec<&str> = Question::ALL.iter().map(|q| q.name()).collect();
    Error::Usage(format!(
        "`{name}` is not a question council answers: use one of {} (or none for all)",
        names.join(", ")
    ))
}

/// One question's answer in every form.
struct Answer {
    json: Value,
    table: Table,
    /// A line above the table (terminal only).
    summary: Option<String>,
}

async fn answer(store: &mut Store, q: Question, filter: &Filter) -> Result<Answer> {
    Ok(match q {
        Question::Agents => {
            let rows = store.agents(filter).await.map_err(store_error)?;
            let unverified: u64 = rows.iter().map(|a| a.unverified_prs).sum();
            Answer {
                json: json!(rows),
                table: agents(&rows),
                summary: (unverified > 0).then(|| UNVERIFIED.to_string()),
            }
        }
        Question::Findings => {
            let rows = store.findings(filter).await.map_err(store_error)?;
            Answer {
                json: json!(rows),
                table: findings(&rows),
                summary: None,
            }
        }
        Question::MergeTime => {
            let (summary, prs) = store.merge_time(filter).await.map_err(store_error)?;
            Answer {
                json: json!({"summary": summary, "prs": prs}),
                table: merges(&prs),
                summary: Some(merge_summary(&summary)),
            }
        }
        Question::Rollbacks => {
            let rows = store.rollbacks(filter).await.map_err(store_error)?;
            Answer {
                json: json!(rows),
                table: rollbacks(&rows),
                summary: None,
            }
        }
        Question::Failures => {
            let rows = store.failures(filter).await.map_err(store_error)?;
            Answer {
                json: json!(rows),
                table: failures(&rows),
                summary: None,
            }
        }
        Question::Queue => {
            let (summary, prs, failed) = store.queue(filter).await.map_err(store_error)?;
            Answer {
                json: json!({"summary": summary, "prs": prs, "failures": failed}),
                table: queued(&prs),
                summary: Some(queue_summary(&summary)),
            }
        }
    })
}

fn queued(rows: &[QueueRow]) -> Table {
    Table {
        columns: vec![
            "repository",
            "pr",
            "author",
            "enqueued_at",
            "landed_at",
            "seconds",
            "tests",
            "failures",
            "outcome",
        ],
        rows: rows
            .iter()
            .map(|q| {
                vec![
                    Cell::text(&q.repository),
                    Cell::number(q.pr),
                    author(&q.author, &q.attribution),
                    Cell::opt_text(q.enqueued_at.clone()),
                    Cell::opt_text(q.landed_at.clone()),
                    Cell::opt_number(q.seconds),
                    Cell::number(q.tests),
                    Cell::number(q.failures),
                    Cell::text(&q.outcome),
                ]
            })
            .collect(),
    }
}

fn queue_summary(s: &QueueSummary) -> String {
    let t = &s.queue_time;
    let shown = |v: Option<i64>| v.map_or_else(|| "-".to_string(), duration);
    format!(
        "{} in the queue, {} landed; time in the queue median {}, p90 {}, mean {}; {} queue \
         commits tested, {} queue failures",
        s.prs,
        s.landed,
        shown(t.median_seconds),
        shown(t.p90_seconds),
        shown(t.mean_seconds),
        s.tests,
        s.failures
    )
}

/// Said above a table that holds an author only an unsigned header names.
const UNVERIFIED: &str = "unverified: pull requests whose author and branches only their \
    imported file's unsigned header names (no live read of GitHub vouches for them: \
    `council audit sync` confirms them)";

/// An author as a table shows it: marked when no live read vouches for it.
fn author(author: &str, attribution: &str) -> Cell {
    match attribution {
        BY_GITHUB => Cell::text(author),
        _ => Cell::text(format!("{author} (unverified)")),
    }
}

fn agents(rows: &[AgentRow]) -> Table {
    Table {
        columns: vec![
            "agent",
            "prs",
            "guard_runs",
            "guard_passed",
            "pass_rate",
            "top_failing_rule",
            "top_failing_count",
            "review_findings",
            "merged",
            "unverified",
        ],
        rows: rows
            .iter()
            .map(|a| {
                vec![
                    Cell::text(&a.agent),
                    Cell::number(a.prs),
                    Cell::number(a.guard_runs),
                    Cell::number(a.guard_passed),
                    Cell::opt_number(a.pass_rate.map(|r| format!("{:.1}%", r * 100.0))),
                    Cell::opt_text(a.top_failing_rule.clone()),
                    Cell::number(a.top_failing_count),
                    Cell::number(a.review_findings),
                    Cell::number(a.merged),
                    Cell::number(a.unverified_prs),
                ]
            })
            .collect(),
    }
}

fn findings(rows: &[GateRow]) -> Table {
    Table {
        columns: vec!["stage", "rule", "failed", "passed", "prs_failed"],
        rows: rows
            .iter()
            .map(|g| {
                vec![
                    Cell::text(&g.stage),
                    Cell::text(&g.rule),
                    Cell::number(g.failed),
                    Cell::number(g.passed),
                    Cell::number(g.prs_failed),
                ]
            })
            .collect(),
    }
}

fn merges(rows: &[MergeRow]) -> Table {
    Table {
        columns: vec![
            "repository",
            "pr",
            "author",
            "opened_at",
            "merged_at",
            "seconds",
        ],
        rows: rows
            .iter()
            .map(|m| {
                vec![
                    Cell::text(&m.repository),
                    Cell::number(m.pr),
                    author(&m.author, &m.attribution),
                    Cell::opt_text(m.opened_at.clone()),
                    Cell::opt_text(m.merged_at.clone()),
                    Cell::number(m.seconds),
                ]
            })
            .collect(),
    }
}

fn merge_summary(t: &TimeToMerge) -> String {
    let shown = |s: Option<i64>| s.map_or_else(|| "-".to_string(), duration);
    let histogram: Vec<String> = t
        .buckets
        .iter()
        .map(|b| format!("{} {}", b.label, b.count))
        .collect();
    format!(
        "{} merged; median {}, p90 {}, mean {}; {}",
        t.count,
        shown(t.median_seconds),
        shown(t.p90_seconds),
        shown(t.mean_seconds),
        histogram.join(", ")
    )
}

/// `3 d 4 h`, `2 h 5 min`, `40 s`.
pub(crate) fn duration(seconds: i64) -> String {
    let (d, h, m) = (
        seconds / 86_400,
        seconds % 86_400 / 3_600,
        seconds % 3_600 / 60,
    );
    match (d, h, m) {
        (0, 0, 0) => format!("{seconds} s"),
        (0, 0, m) => format!("{m} min"),
        (0, h, m) => format!("{h} h {m} min"),
        (d, h, _) => format!("{d} d {h} h"),
    }
}

fn rollbacks(rows: &[RollbackRow]) -> Table {
    Table {
        columns: vec!["repository", "pr", "author", "at", "message"],
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    Cell::text(&r.repository),
                    Cell::number(r.pr),
                    author(&r.author, &r.attribution),
                    Cell::opt_text(r.at.clone()),
                    Cell::text(&r.message),
                ]
            })
            .collect(),
    }
}

fn failures(rows: &[FailureRow]) -> Table {
    Table {
        columns: vec![
            "repository",
            "context_id",
            "source",
            "position",
            "found_at",
            "problem",
        ],
        rows: rows
            .iter()
            .map(|f| {
                vec![
                    Cell::text(&f.repository),
                    Cell::text(&f.context_id),
                    Cell::text(&f.source),
                    Cell::opt_number(f.position),
                    Cell::text(&f.found_at),
                    Cell::text(&f.problem),
                ]
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_a_person_says_them() {
        assert_eq!(duration(40), "40 s");
        assert_eq!(duration(7_500), "2 h 5 min");
        assert_eq!(duration(3 * 86_400 + 4 * 3_600 + 60), "3 d 4 h");
    }
}
