//! `council audit report --html DIR`: one self-contained page (no network, no CDN; it
//! works opened from disk and on GitHub Pages). The numbers are computed here, from the
//! store; the page's own script draws the charts from them in the browser.

use serde::Serialize;

use crate::filter::Filter;
use crate::{Store, StoreError};

/// Everything the page shows, embedded in it as JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReportData {
    /// RFC 3339.
    pub generated_at: String,
    /// The store: its engine and the file's or database's name (no path, host or user:
    /// the page may be published).
    pub store: String,
    /// The repositories the report covers (a filter, or every one stored).
    pub repositories: Vec<String>,
    pub totals: Totals,
    /// One row per agent (the pull request's author), most pull requests first.
    pub agents: Vec<AgentRow>,
    /// Guard runs per agent per week (Monday, `YYYY-MM-DD`), oldest week first.
    pub pass_rate_over_time: Vec<PassRatePoint>,
    /// Check results per gate, most failures first.
    pub gate_failures: Vec<GateRow>,
    pub time_to_merge: TimeToMerge,
    pub rollbacks: Vec<RollbackRow>,
    pub failures: Vec<FailureRow>,
    /// The newest pull requests (by their last entry), each with its newest entries.
    pub prs: Vec<PrRow>,
    /// Pull requests left out of `prs` (the page shows at most [`MAX_PRS`]).
    pub omitted_prs: u64,
}

/// Pull requests a page lists, at most; each with its newest [`MAX_ENTRIES`] entries.
pub const MAX_PRS: usize = 2_000;
pub const MAX_ENTRIES: usize = 25;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub contexts: u64,
    pub entries: u64,
    pub verified: u64,
    pub partial: u64,
    pub failed: u64,
    pub merged: u64,
    pub rolled_back: u64,
    /// Pull requests whose author and branches only their object's unsigned header names
    /// (imported files no live read of GitHub has confirmed yet).
    pub unverified_attribution: u64,
}

/// One agent's record. The agent is the pull request's author (its login).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AgentRow {
    pub agent: String,
    pub prs: u64,
    /// Guard runs: one per run and attempt that checked the pull request's branch.
    pub guard_runs: u64,
    pub guard_passed: u64,
    /// `guard_passed / guard_runs`, 0 to 1; `None` without a guard run.
    pub pass_rate: Option<f64>,
    /// The guard check that failed most often (`check:branch-name`, …).
    pub top_failing_rule: Option<String>,
    pub top_failing_count: u64,
    /// Review checks that failed.
    pub review_findings: u64,
    pub merged: u64,
    /// Of `prs`, those attributed to this agent by their object's unsigned header alone
    /// (an imported file): no live read of GitHub vouches that the agent opened them.
    pub unverified_prs: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PassRatePoint {
    pub agent: String,
    /// The week's Monday, `YYYY-MM-DD` (UTC).
    pub week: String,
    pub runs: u64,
    pub passed: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GateRow {
    /// `guard`, `review` or `release`.
    pub stage: String,
    /// The check: `check:branch-name`, `check:secret-scan`, …
    pub rule: String,
    pub failed: u64,
    pub passed: u64,
    /// Pull requests with at least one failure of it.
    pub prs_failed: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TimeToMerge {
    pub count: u64,
    pub median_seconds: Option<i64>,
    pub p90_seconds: Option<i64>,
    pub mean_seconds: Option<i64>,
    pub min_seconds: Option<i64>,
    pub max_seconds: Option<i64>,
    /// Fixed buckets (under an hour, a day, …), in order; every bucket present.
    pub buckets: Vec<Bucket>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Bucket {
    pub label: String,
    /// Upper bound, exclusive; `None` for the last bucket.
    pub upper_seconds: Option<i64>,
    pub count: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RollbackRow {
    pub repository: String,
    pub pr: u64,
    pub author: String,
    /// Who vouches for `author`: `github`, or `header` (unverified).
    pub attribution: String,
    /// When the revert was recorded (RFC 3339), when known.
    pub at: Option<String>,
    pub message: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FailureRow {
    pub repository: String,
    pub pr: Option<u64>,
    pub context_id: String,
    pub source: String,
    /// The chain position where a conflict was found.
    pub position: Option<u64>,
    pub problem: String,
    pub found_at: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PrRow {
    pub repository: String,
    pub pr: u64,
    pub title: Option<String>,
    pub author: String,
    pub source_branch: String,
    pub target_branch: String,
    /// Who vouches for the author and branches: `github` (a live read), or `header`
    /// (only the object's unsigned header names them: unverified).
    pub attribution: String,
    pub guard_status: String,
    pub review_status: String,
    pub release_status: String,
    /// `verified`, `partial` or `failed`.
    pub verification: String,
    pub verification_detail: Option<String>,
    pub signatures_checked: bool,
    pub entries: u64,
    pub opened_at: Option<String>,
    pub merged_at: Option<String>,
    pub source: String,
    /// The newest entries, oldest first (at most [`MAX_ENTRIES`]).
    pub timeline: Vec<TimelineRow>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TimelineRow {
    pub position: u64,
    pub agent: String,
    pub action: String,
    pub result: String,
    pub message: String,
    pub timestamp: String,
    pub sha: String,
}

mod html;

pub use html::render_html;

impl Store {
    /// Everything the report shows, for the contexts `filter` selects.
    pub async fn report_data(
        &mut self,
        filter: &Filter,
        generated_at: &str,
    ) -> Result<ReportData, StoreError> {
        let (prs, omitted_prs) = self.pull_requests(filter, MAX_PRS, MAX_ENTRIES).await?;
        Ok(ReportData {
            generated_at: generated_at.to_string(),
            store: self.label(),
            repositories: self.repositories(filter).await?,
            totals: self.totals(filter).await?,
            agents: self.agents(filter).await?,
            pass_rate_over_time: self.pass_rate_over_time(filter).await?,
            gate_failures: self.findings(filter).await?,
            time_to_merge: self.merge_time(filter).await?.0,
            rollbacks: self.rollbacks(filter).await?,
            failures: self.failures(filter).await?,
            prs,
            omitted_prs,
        })
    }
}
