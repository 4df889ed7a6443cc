//! A pipeline stage's result, the timeline entries it becomes, and the exit code of a
//! run of one or more stages: all decided here, in one place.

use super::Stage;
use super::effect::{Effect, EffectReport};
use crate::actors::Class;
use crate::audit::timeline::{Record, new_entry};
use crate::audit::{Entry, GuardStatus, ReleaseStatus, ReviewStatus, RunInfo};
use crate::error::Outcome;
use crate::gates::{GateOutcome, Verdict};
use crate::render::text::Message;

/// A stage's verdict, typed per stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Guard(GuardStatus),
    Review(ReviewStatus),
    Release(ReleaseStatus),
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Guard(s) => s.as_str(),
            Status::Review(s) => s.as_str(),
            Status::Release(s) => s.as_str(),
        }
    }
}

/// What a stage decided, as data: nothing here has happened yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageResult {
    pub stage: Stage,
    pub status: Status,
    pub gates: Vec<GateOutcome>,
    /// In order; an effect that needs the one before it is skipped when that failed.
    pub effects: Vec<Effect>,
    /// Footnotes for the summary (what the stage looked at, what it left out).
    pub notes: Vec<Message>,
    /// The pull request's class, when the stage decided it from live facts (review and
    /// release): the `actor` output.
    pub actor: Option<Class>,
}

impl StageResult {
    pub fn failed(&self) -> bool {
        self.gates.iter().any(|g| g.verdict == Verdict::Fail)
    }
}

/// This run's timeline entries: each stage's gate decisions, then what became of its
/// effects. Ids are unique per run, attempt, job, stage and action; a second effect with
/// the same action in one stage gets `#2`, `#3`, … so that none is taken for a repeat.
pub fn entries(
    results: &[StageResult],
    reports: &[Vec<EffectReport>],
    run: &RunInfo,
    sha: &str,
    now: &str,
) -> Vec<Entry> {
    let mut out = Vec::new();
    for (result, reports) in results.iter().zip(reports) {
        let stage = result.stage.name();
        let agent = result.stage.agent();
        let record = |action: &str, result: &str, message: String| Record {
            stage,
            agent,
            action: action.to_string(),
            result: result.to_string(),
            message,
        };
        for gate in &result.gates {
            let r = record(gate.action, gate.verdict.as_str(), gate.timeline_message());
            out.push(new_entry(run, &r, sha, now));
        }
        let mut seen: Vec<&str> = Vec::new();
        for report in reports {
            let repeat = seen.iter().filter(|a| **a == report.action).count();
            seen.push(report.action);
            let r = record(report.action, report.result_str(), report.message().plain());
            let mut entry = new_entry(run, &r, sha, now);
            if repeat > 0 {
                entry.id.push_str(&format!("#{}", repeat + 1));
            }
            out.push(entry);
        }
    }
    out
}

/// How a run ends: a computed verdict decides (a failed gate ends it so even when an
/// effect then failed); otherwise a stage that could not be decided ends it with its
/// error's kind (`unfinished`), then a failed effect.
pub fn outcome(
    results: &[StageResult],
    effects_failed: bool,
    unfinished: Option<crate::error::Kind>,
) -> Outcome {
    if results.iter().any(StageResult::failed) {
        Outcome::GateFailed
    } else if let Some(kind) = unfinished {
        Outcome::Unfinished(kind)
    } else if effects_failed {
        Outcome::EffectFailed
    } else {
        Outcome::Passed
    }
}
