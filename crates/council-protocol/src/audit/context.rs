//! The Context Object of seed 001, field for field, with SPEC.md's additions.

use serde::{Deserialize, Serialize};

use super::gates::Gates;
use serde_json::{Map, Value};

use crate::event::PullRequest;

pub const SCHEMA_VERSION: u32 = 1;

/// Gates every object starts with, in the seed's order; more are added as they run.
pub const BASE_GATES: [&str; 4] = [
    "naming_convention",
    "target_policy",
    "doc_coverage",
    "pipeline_green",
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextObject {
    pub schema_version: u32,
    pub context_id: String,
    pub repository: String,
    pub timestamp: String,
    pub trigger: String,
    pub subject: Subject,
    pub state: StageState,
    /// `null` (not run), `"PASS"` or `"FAIL"` per gate, derived from the timeline.
    pub gates: Gates,
    pub timeline: Vec<Entry>,
    /// Fields written by newer versions, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    #[serde(rename = "type")]
    pub kind: String,
    pub id: u64,
    pub source_branch: String,
    pub target_branch: String,
    pub author: String,
    pub head_sha: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum GuardStatus {
    Pending,
    Pass,
    Fail,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReviewStatus {
    Pending,
    Approved,
    ChangesRequested,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReleaseStatus {
    Pending,
    Eligible,
    Merged,
    RolledBack,
}

impl GuardStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            GuardStatus::Pending => "PENDING",
            GuardStatus::Pass => "PASS",
            GuardStatus::Fail => "FAIL",
        }
    }
}

impl ReviewStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewStatus::Pending => "PENDING",
            ReviewStatus::Approved => "APPROVED",
            ReviewStatus::ChangesRequested => "CHANGES_REQUESTED",
        }
    }
}

impl ReleaseStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ReleaseStatus::Pending => "PENDING",
            ReleaseStatus::Eligible => "ELIGIBLE",
            ReleaseStatus::Merged => "MERGED",
            ReleaseStatus::RolledBack => "ROLLED_BACK",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageState {
    pub guard_status: GuardStatus,
    pub review_status: ReviewStatus,
    pub release_status: ReleaseStatus,
}

/// One decision or effect. `hash`/`prev_hash`/`signature` are set when the chain is sealed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub id: String,
    pub agent: String,
    pub action: String,
    pub result: String,
    pub message: String,
    pub timestamp: String,
    pub run_id: String,
    pub run_attempt: u64,
    pub sha: String,
    #[serde(default)]
    pub prev_hash: String,
    #[serde(default)]
    pub hash: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ContextObject {
    /// A fresh object for a pull request, every stage pending and no gate run.
    pub fn new(repository: &str, pr: &PullRequest, trigger: &str, now: &str) -> ContextObject {
        ContextObject {
            schema_version: SCHEMA_VERSION,
            context_id: context_id(pr.number),
            repository: repository.to_string(),
            timestamp: now.to_string(),
            trigger: trigger.to_string(),
            subject: Subject {
                kind: "pull_request".to_string(),
                id: pr.number,
                source_branch: pr.head_ref.clone(),
                target_branch: pr.base_ref.clone(),
                author: pr.author.clone(),
                head_sha: pr.head_sha.clone(),
            },
            state: StageState {
                guard_status: GuardStatus::Pending,
                review_status: ReviewStatus::Pending,
                release_status: ReleaseStatus::Pending,
            },
            gates: Gates::not_run(&BASE_GATES),
            timeline: Vec::new(),
            extra: Map::new(),
        }
    }

    /// One line of compact JSON (the `context` output).
    pub fn to_compact_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_string())
    }

    pub fn to_pretty_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_string());
        text.push('\n');
        text
    }
}

pub fn context_id(pr_number: u64) -> String {
    format!("PR-{pr_number}")
}
