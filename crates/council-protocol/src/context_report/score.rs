//! Scoring agents for an issue with the seed's rules, its bugs fixed (pure; `now` is
//! passed in).
//!
//! Rules: +50 the agent can start one of the issue's tasks immediately
//! (`canStartImmediately`), +30 it has one of the issue's projects loaded, +20 when more
//! than 50 % of its window is free, −30 when less than 10 % is. Freshness of the report:
//! HOT under 30 minutes, WARM under 2 hours, COLD from 2 hours on; COLD reports are
//! flagged for a refresh.
//!
//! Fixes (SPEC): percent free = available ÷ (used + available) — the seed divided by its
//! misnamed `totalTokens` and got NaN for an agent without a report, which then silently
//! scored 0; here an agent with no valid report or zero capacity gets no free-space
//! score and says so. Ties go to the fresher report, then to the agent id in byte
//! order (the seed's sort was unstable across engines, and `scored[0]` was undefined
//! with no agent). A report dated in the future is COLD and flagged, never HOT.
//! Freshness is the report's own `reportTimestamp` (the seed read `lastContextLoad`,
//! which no schema has).
//!
//! Qualifying (for `recommended-agent` and the label): a valid report that is not COLD
//! and a score above 0. A stale or future-dated report cannot be trusted to describe
//! the agent now, and a score of 0 or less is no reason to pick it.

use chrono::{DateTime, FixedOffset, Utc};
use serde::Serialize;

use super::comment::percent;
use super::matching::{IssueFacts, first_match, project_ids, task_ids};
use super::report::Report;

pub const HOT_SECONDS: i64 = 30 * 60;
pub const WARM_SECONDS: i64 = 2 * 60 * 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Freshness {
    Hot,
    Warm,
    Cold,
}

impl Freshness {
    pub fn name(self) -> &'static str {
        match self {
            Freshness::Hot => "HOT",
            Freshness::Warm => "WARM",
            Freshness::Cold => "COLD",
        }
    }
}

/// Freshness of a report made at `at`, and whether it is dated in the future.
pub fn freshness(
    at: Option<DateTime<FixedOffset>>,
    now: DateTime<Utc>,
) -> (Freshness, Option<i64>) {
    let Some(at) = at else {
        return (Freshness::Cold, None);
    };
    let age = now.signed_duration_since(at).num_seconds();
    let freshness = match age {
        a if a < 0 => Freshness::Cold,
        a if a < HOT_SECONDS => Freshness::Hot,
        a if a < WARM_SECONDS => Freshness::Warm,
        _ => Freshness::Cold,
    };
    (freshness, Some(age))
}

/// An agent to score: its latest trusted report, or why it has none.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub agent_id: String,
    pub report: Option<Report>,
    pub comment_url: String,
    /// Why the agent's latest report could not be used.
    pub problem: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    pub agent: String,
    pub score: i32,
    /// One line per rule that applied or was skipped, e.g. `+50 can start T011 immediately`.
    pub reasons: Vec<String>,
    pub freshness: Freshness,
    /// Seconds since the report (negative: dated in the future); `None` without one.
    pub age_seconds: Option<i64>,
    pub refresh: bool,
    pub percent_free: Option<f64>,
    pub qualifies: bool,
    pub comment_url: String,
    #[serde(skip)]
    reported_at: Option<DateTime<FixedOffset>>,
}

pub fn score(candidate: &Candidate, issue: &IssueFacts, now: DateTime<Utc>) -> Scored {
    let mut reasons = Vec::new();
    let mut total = 0i32;
    let (fresh, age) = freshness(candidate.report.as_ref().and_then(|r| r.reported_at), now);
    let Some(report) = &candidate.report else {
        reasons.push(format!(
            "no valid report ({}): no score, no free-space score",
            candidate.problem.as_deref().unwrap_or("none found")
        ));
        return Scored {
            agent: candidate.agent_id.clone(),
            score: 0,
            reasons,
            freshness: fresh,
            age_seconds: age,
            refresh: true,
            percent_free: None,
            qualifies: false,
            comment_url: candidate.comment_url.clone(),
            reported_at: None,
        };
    };
    if let Some(task) = first_match(&report.can_start_immediately, &task_ids(issue)) {
        total += 50;
        reasons.push(format!("+50 can start {} immediately", task.trim()));
    }
    if let Some(project) = first_match(&report.project_ids, &project_ids(issue)) {
        total += 30;
        reasons.push(format!("+30 project {} loaded", project.trim()));
    }
    let free = percent(report.total_tokens, report.available_tokens);
    match free {
        None => reasons
            .push("no free-space score: the report declares no capacity (0 tokens)".to_owned()),
        Some(p) if p > 50.0 => {
            total += 20;
            reasons.push(format!("+20 {p:.1} % of the window free"));
        }
        Some(p) if p < 10.0 => {
            total -= 30;
            reasons.push(format!("−30 only {p:.1} % of the window free"));
        }
        Some(p) => reasons.push(format!("+0 {p:.1} % of the window free")),
    }
    let future = age.is_some_and(|a| a < 0);
    if future {
        reasons.push("the report is dated in the future: COLD, refresh it".to_owned());
    } else if fresh == Freshness::Cold {
        reasons.push("the report is 2 hours old or more: COLD, refresh it".to_owned());
    }
    Scored {
        agent: candidate.agent_id.clone(),
        score: total,
        reasons,
        freshness: fresh,
        age_seconds: age,
        refresh: fresh == Freshness::Cold,
        percent_free: free,
        qualifies: fresh != Freshness::Cold && total > 0,
        comment_url: candidate.comment_url.clone(),
        reported_at: report.reported_at,
    }
}

/// Every candidate scored, best first, and the recommended agent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranking {
    pub recommended: Option<String>,
    pub ranking: Vec<Scored>,
}

pub fn rank(candidates: &[Candidate], issue: &IssueFacts, now: DateTime<Utc>) -> Ranking {
    let mut ranking: Vec<Scored> = candidates.iter().map(|c| score(c, issue, now)).collect();
    // Fresher first: a future date is not fresh, and no date is the oldest.
    let recency = |s: &Scored| match (s.reported_at, s.age_seconds) {
        (Some(at), Some(age)) if age >= 0 => Some(at),
        _ => None,
    };
    ranking.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then_with(|| recency(b).cmp(&recency(a)))
            .then_with(|| a.agent.as_bytes().cmp(b.agent.as_bytes()))
    });
    Ranking {
        recommended: ranking
            .iter()
            .find(|s| s.qualifies)
            .map(|s| s.agent.clone()),
        ranking,
    }
}
