//! `state` and `gates` of a Context Object, recomputed from its timeline (pure).
//!
//! The stored values are never trusted: anyone who can edit the comment can edit them,
//! while the timeline is hash-chained (and signed with a key). SPEC.md's rules:
//! `gates.<gate>` is the `result` of the newest `check:` entry for it (`null` when none,
//! or when that result is neither PASS nor FAIL); a stage's status comes from its newest
//! decision (the check entries of its newest run) on the newest head SHA it ran on.

use super::context::{
    BASE_GATES, ContextObject, Entry, GuardStatus, ReleaseStatus, ReviewStatus, StageState,
};
use super::gates::{GateValue, Gates};
use super::verify::EntryFacts;
use crate::gates::gate_key;
use crate::stage::Stage;

/// The facts of one entry that derivation reads.
pub trait Fact {
    fn agent(&self) -> &str;
    fn action(&self) -> &str;
    fn result(&self) -> &str;
    fn sha(&self) -> &str;
    fn run(&self) -> (&str, u64);
}

impl Fact for Entry {
    fn agent(&self) -> &str {
        &self.agent
    }
    fn action(&self) -> &str {
        &self.action
    }
    fn result(&self) -> &str {
        &self.result
    }
    fn sha(&self) -> &str {
        &self.sha
    }
    fn run(&self) -> (&str, u64) {
        (&self.run_id, self.run_attempt)
    }
}

impl<F: Fact> Fact for &F {
    fn agent(&self) -> &str {
        (*self).agent()
    }
    fn action(&self) -> &str {
        (*self).action()
    }
    fn result(&self) -> &str {
        (*self).result()
    }
    fn sha(&self) -> &str {
        (*self).sha()
    }
    fn run(&self) -> (&str, u64) {
        (*self).run()
    }
}

/// What `council verify` read of an entry: a missing or mistyped field reads as empty.
impl Fact for EntryFacts {
    fn agent(&self) -> &str {
        self.agent.as_deref().unwrap_or("")
    }
    fn action(&self) -> &str {
        self.action.as_deref().unwrap_or("")
    }
    fn result(&self) -> &str {
        self.result.as_deref().unwrap_or("")
    }
    fn sha(&self) -> &str {
        self.sha.as_deref().unwrap_or("")
    }
    fn run(&self) -> (&str, u64) {
        (
            self.run_id.as_deref().unwrap_or(""),
            self.run_attempt.unwrap_or(0),
        )
    }
}

/// Recomputes `ctx.state` and `ctx.gates` from `ctx.timeline`.
pub fn derive(ctx: &mut ContextObject) {
    let (state, gates) = derived(&ctx.timeline);
    ctx.state = state;
    ctx.gates = gates;
}

/// The `state` and `gates` a timeline implies.
pub fn derived<F: Fact>(timeline: &[F]) -> (StageState, Gates) {
    (stage_state(timeline), gates(timeline))
}

pub fn gates<F: Fact>(timeline: &[F]) -> Gates {
    let mut gates = Gates::not_run(&BASE_GATES);
    for entry in timeline {
        if let Some(key) = gate_key(entry.action()) {
            gates.set(key, verdict(entry.result()));
        }
    }
    gates
}

/// A check's result as `gates` holds it: waiting (`PENDING`) is no verdict yet.
fn verdict(result: &str) -> Option<GateValue> {
    match result {
        "PASS" => Some(GateValue::Pass),
        "FAIL" => Some(GateValue::Fail),
        _ => None,
    }
}

pub fn stage_state<F: Fact>(timeline: &[F]) -> StageState {
    let guard = match decision(timeline, Stage::Guard).verdict() {
        Some(true) => GuardStatus::Pass,
        Some(false) => GuardStatus::Fail,
        None => GuardStatus::Pending,
    };
    let review = match decision(timeline, Stage::Review).verdict() {
        Some(true) => ReviewStatus::Approved,
        Some(false) => ReviewStatus::ChangesRequested,
        None => ReviewStatus::Pending,
    };
    StageState {
        guard_status: guard,
        review_status: review,
        release_status: release_status(timeline),
    }
}

/// The entries of a stage's newest decision.
pub struct Decision<'a, F> {
    entries: Vec<&'a F>,
}

impl<F: Fact> Decision<'_, F> {
    /// `Some(true)` when every check passed, `Some(false)` when one failed, `None` when
    /// no check decided (none ran, or all are pending).
    pub fn verdict(&self) -> Option<bool> {
        let checks = self.checks();
        if checks.iter().any(|e| e.result() == "FAIL") {
            Some(false)
        } else if !checks.is_empty() && checks.iter().all(|e| e.result() == "PASS") {
            Some(true)
        } else {
            None
        }
    }

    pub fn checks(&self) -> Vec<&F> {
        self.entries
            .iter()
            .copied()
            .filter(|e| e.action().starts_with("check:"))
            .collect()
    }

    pub fn entries(&self) -> &[&F] {
        &self.entries
    }

    /// The head SHA the decision was made on (empty when the stage never decided).
    pub fn sha(&self) -> &str {
        self.entries.first().map_or("", |e| e.sha())
    }
}

/// The stage's newest decision: its newest `check:` entry fixes the head SHA and the
/// run (id and attempt); the decision is every entry of that agent in that run on that
/// SHA.
pub fn decision<F: Fact>(timeline: &[F], stage: Stage) -> Decision<'_, F> {
    let agent = stage.agent();
    let newest = timeline
        .iter()
        .rev()
        .find(|e| e.agent() == agent && e.action().starts_with("check:"));
    let entries = match newest {
        None => Vec::new(),
        Some(newest) => timeline
            .iter()
            .filter(|e| e.agent() == agent && e.sha() == newest.sha() && e.run() == newest.run())
            .collect(),
    };
    Decision { entries }
}

/// An effect of the release stage recorded as done (`action:merge`, `action:revert`):
/// what the record says, for the Context Object's `state`. No run decides anything from
/// it: the release stage asks GitHub who merged and what was reverted.
pub fn release_done<F: Fact>(timeline: &[F], action: &str) -> bool {
    timeline
        .iter()
        .any(|e| e.agent() == "agent_release" && e.action() == action && e.result() == "DONE")
}

/// A merge or a revert, once done, is the release's status for good; otherwise the
/// newest decision: every check passed and no merge was attempted (no release token, or
/// a dry run: the merge was SKIPPED) is ELIGIBLE, anything else is waiting (a merge that
/// GitHub refused because the head moved is PENDING, one that failed FAILED). Under the
/// merge queue a decision that queued the pull request (`action:enqueue`) waits for the
/// queue: PENDING until a landing records `action:merge`.
fn release_status<F: Fact>(timeline: &[F]) -> ReleaseStatus {
    if release_done(timeline, "action:revert") {
        return ReleaseStatus::RolledBack;
    }
    if release_done(timeline, "action:merge") {
        return ReleaseStatus::Merged;
    }
    let decision = decision(timeline, Stage::Release);
    let merge_tried = decision.entries().iter().any(|e| {
        (e.action() == "action:merge" && e.result() != "SKIPPED") || e.action() == "action:enqueue"
    });
    match decision.verdict() {
        Some(true) if !merge_tried => ReleaseStatus::Eligible,
        _ => ReleaseStatus::Pending,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct E(
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    );

    impl Fact for E {
        fn agent(&self) -> &str {
            self.0
        }
        fn action(&self) -> &str {
            self.1
        }
        fn result(&self) -> &str {
            self.2
        }
        fn sha(&self) -> &str {
            self.3
        }
        fn run(&self) -> (&str, u64) {
            (self.4, 1)
        }
    }

    const G: &str = "agent_guard";
    const R: &str = "agent_review";

    #[test]
    fn gates_follow_the_newest_check_and_start_from_the_seed_shape() {
        let t = [
            E(G, "check:branch-name", "FAIL", "a", "1"),
            E(G, "check:branch-name", "PASS", "b", "2"),
            E(R, "check:secret-scan", "SKIPPED", "b", "2"),
        ];
        let g = gates(&t);
        assert_eq!(
            serde_json::to_string(&g).unwrap(),
            r#"{"naming_convention":"PASS","target_policy":null,"doc_coverage":null,"pipeline_green":null,"secret_scan":null}"#
        );
    }

    #[test]
    fn a_stage_status_is_its_newest_run_on_its_newest_sha() {
        let t = [
            E(G, "check:branch-name", "FAIL", "a", "1"),
            E(G, "check:target-branch", "FAIL", "a", "1"),
            E(G, "check:branch-name", "PASS", "b", "2"),
            E(G, "check:target-branch", "PASS", "b", "2"),
            E(G, "action:comment", "FAILED", "b", "2"),
        ];
        assert_eq!(stage_state(&t).guard_status, GuardStatus::Pass);
        let t = [
            E(G, "check:branch-name", "PASS", "b", "2"),
            E(G, "check:target-branch", "PASS", "b", "2"),
            E(G, "check:branch-name", "PASS", "b", "3"),
            E(G, "check:target-branch", "FAIL", "b", "3"),
        ];
        assert_eq!(stage_state(&t).guard_status, GuardStatus::Fail);
        assert_eq!(stage_state(&t).review_status, ReviewStatus::Pending);
    }

    #[test]
    fn review_status_follows_the_newest_head() {
        let t = [
            E(R, "check:secret-scan", "PASS", "old", "1"),
            E(R, "check:diff-size", "PASS", "old", "1"),
        ];
        assert_eq!(stage_state(&t).review_status, ReviewStatus::Approved);
        let t = [
            E(R, "check:secret-scan", "PASS", "old", "1"),
            E(R, "check:secret-scan", "FAIL", "new", "2"),
        ];
        assert_eq!(
            stage_state(&t).review_status,
            ReviewStatus::ChangesRequested
        );
    }

    #[test]
    fn release_status_from_effects_and_checks() {
        const L: &str = "agent_release";
        let waiting = [E(L, "check:pipeline", "PENDING", "s", "1")];
        assert_eq!(release_status(&waiting), ReleaseStatus::Pending);
        let eligible = [
            E(L, "check:pipeline", "PASS", "s", "1"),
            E(L, "action:merge", "SKIPPED", "s", "1"),
        ];
        assert_eq!(release_status(&eligible), ReleaseStatus::Eligible);
        let failed = [
            E(L, "check:pipeline", "PASS", "s", "1"),
            E(L, "action:merge", "FAILED", "s", "1"),
        ];
        assert_eq!(release_status(&failed), ReleaseStatus::Pending);
        let moved = [
            E(L, "check:pipeline", "PASS", "s", "1"),
            E(L, "check:merge-ready", "PASS", "s", "1"),
            E(L, "action:merge", "PENDING", "s", "1"),
        ];
        assert_eq!(release_status(&moved), ReleaseStatus::Pending);
        let waiting = [
            E(L, "check:pipeline", "PASS", "s", "1"),
            E(L, "check:merge-ready", "PENDING", "s", "1"),
        ];
        assert_eq!(release_status(&waiting), ReleaseStatus::Pending);
        // A newer run that waits again after an ELIGIBLE one: the newest decision counts.
        let again = [
            E(L, "check:pipeline", "PASS", "s", "1"),
            E(L, "action:merge", "SKIPPED", "s", "1"),
            E(L, "check:pipeline", "PENDING", "t", "2"),
        ];
        assert_eq!(release_status(&again), ReleaseStatus::Pending);
        assert!(!release_done(&again, "action:merge"));
        let merged = [
            E(L, "check:pipeline", "PASS", "s", "1"),
            E(L, "action:merge", "DONE", "s", "1"),
            E(L, "check:pipeline", "FAIL", "m", "2"),
        ];
        assert_eq!(release_status(&merged), ReleaseStatus::Merged);
        assert!(release_done(&merged, "action:merge"));
        let reverted = [
            E(L, "action:merge", "DONE", "s", "1"),
            E(L, "action:revert", "DONE", "m", "2"),
        ];
        assert_eq!(release_status(&reverted), ReleaseStatus::RolledBack);
        // The merge queue: queued is waiting, a landing is a merge, a failed test waits.
        let queued = [
            E(L, "check:pipeline", "PASS", "s", "1"),
            E(L, "check:merge-ready", "PASS", "s", "1"),
            E(L, "action:enqueue", "DONE", "s", "1"),
        ];
        assert_eq!(release_status(&queued), ReleaseStatus::Pending);
        let landed = [
            E(L, "check:pipeline", "PASS", "s", "1"),
            E(L, "action:enqueue", "DONE", "s", "1"),
            E(L, "action:queue-test", "DONE", "s", "2"),
            E(L, "check:queue", "PASS", "s", "3"),
            E(L, "action:merge", "DONE", "s", "3"),
        ];
        assert_eq!(release_status(&landed), ReleaseStatus::Merged);
        let dequeued = [
            E(L, "check:pipeline", "PASS", "s", "1"),
            E(L, "action:enqueue", "DONE", "s", "1"),
            E(L, "check:queue", "FAIL", "s", "3"),
        ];
        assert_eq!(release_status(&dequeued), ReleaseStatus::Pending);
        assert_eq!(gates(&dequeued).get("queue"), Some(Some(&GateValue::Fail)));
    }
}
