//! Timeline entries: stable ids per run/attempt/job/stage/action, and appending without
//! duplicates.

use super::context::{ContextObject, Entry};
use serde_json::Map;

/// The workflow run a decision was made in (`local` outside Actions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunInfo {
    pub run_id: String,
    pub run_attempt: u64,
    pub job: String,
}

impl RunInfo {
    pub fn local() -> RunInfo {
        RunInfo {
            run_id: "local".to_string(),
            run_attempt: 1,
            job: "cli".to_string(),
        }
    }

    /// Same step twice in one attempt → same id; a re-run (next attempt) → new ids.
    pub fn entry_id(&self, stage: &str, action: &str) -> String {
        format!(
            "{}/{}/{}/{stage}/{action}",
            self.run_id, self.run_attempt, self.job
        )
    }
}

/// What a stage records; the run and time are filled in by [`new_entry`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub stage: &'static str,
    pub agent: &'static str,
    pub action: String,
    pub result: String,
    pub message: String,
}

/// Most entries one pull request's timeline may hold, omitted ones included: no real
/// ledger comes near (a run adds a dozen), and every position stays far inside the
/// integers that store and count them. A count beyond it (`timeline_omitted.count`,
/// `chain_head.entries`) was written by hand: refused as tampering.
pub const MAX_ENTRIES: u64 = 1_000_000_000;
/// [`MAX_ENTRIES`] as messages say it.
pub const MAX_ENTRIES_SHOWN: &str = "1,000,000,000";

/// Longest entry message, in characters: an entry is sealed once and never shortened
/// afterwards (that would break its hash), so it must fit a comment from the start.
pub const MAX_MESSAGE_CHARS: usize = 4_000;

pub fn new_entry(run: &RunInfo, record: &Record, sha: &str, now: &str) -> Entry {
    Entry {
        id: run.entry_id(record.stage, &record.action),
        agent: record.agent.to_string(),
        action: record.action.clone(),
        result: record.result.clone(),
        message: capped(&record.message),
        timestamp: now.to_string(),
        run_id: run.run_id.clone(),
        run_attempt: run.run_attempt,
        sha: sha.to_string(),
        prev_hash: String::new(),
        hash: String::new(),
        signature: None,
        extra: Map::new(),
    }
}

fn capped(message: &str) -> String {
    match crate::chars::cut(message, MAX_MESSAGE_CHARS) {
        None => message.to_string(),
        Some(head) => format!("{head}… (cut at {MAX_MESSAGE_CHARS} characters)"),
    }
}

impl ContextObject {
    /// Appends entries whose id is not recorded yet; returns how many were added.
    pub fn append(&mut self, entries: impl IntoIterator<Item = Entry>) -> usize {
        let before = self.timeline.len();
        for entry in entries {
            if !self.timeline.iter().any(|e| e.id == entry.id) {
                self.timeline.push(entry);
            }
        }
        self.timeline.len() - before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object() -> ContextObject {
        let pr = crate::event::sample_pull_request();
        ContextObject::new(
            "o/r",
            &pr,
            "webhook:pull_request.opened",
            "2026-01-01T00:00:00Z",
        )
    }

    fn record(action: &str) -> Record {
        Record {
            stage: "guard",
            agent: "agent_guard",
            action: action.to_string(),
            result: "PASS".to_string(),
            message: "ok".to_string(),
        }
    }

    #[test]
    fn the_most_entries_are_said_as_they_are() {
        assert_eq!(MAX_ENTRIES_SHOWN.replace(',', ""), MAX_ENTRIES.to_string());
        // Positions (`count + index`) stay far inside the store's 64-bit integers.
        assert!(
            MAX_ENTRIES
                .checked_mul(1 << 20)
                .is_some_and(|n| n < i64::MAX as u64)
        );
    }

    #[test]
    fn ids_are_stable_per_run_attempt_job_stage_action() {
        let run = RunInfo {
            run_id: "42".into(),
            run_attempt: 2,
            job: "gate".into(),
        };
        assert_eq!(
            run.entry_id("guard", "check:branch-name"),
            "42/2/gate/guard/check:branch-name"
        );
    }

    #[test]
    fn the_same_step_twice_adds_nothing_a_rerun_adds_its_own() {
        let mut ctx = object();
        let run = RunInfo {
            run_id: "42".into(),
            run_attempt: 1,
            job: "gate".into(),
        };
        let e = new_entry(&run, &record("check:branch-name"), "sha", "t");
        assert_eq!(ctx.append([e.clone()]), 1);
        assert_eq!(ctx.append([e]), 0);
        let rerun = RunInfo {
            run_attempt: 2,
            ..run
        };
        assert_eq!(
            ctx.append([new_entry(&rerun, &record("check:branch-name"), "sha", "t")]),
            1
        );
        assert_eq!(ctx.timeline.len(), 2);
    }
}
