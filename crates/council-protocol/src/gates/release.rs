//! Stage 3, the Executor: the facts both release gates look at, read from the API at
//! decision time in `app::facts::release` (pure). The gates themselves are
//! `pipeline_green.rs` (every check on the commit complete and green) and
//! `merge_ready.rs` (nothing else stands between the pull request and a merge). Nothing
//! here comes from the ledger: the guard and review gates are evaluated again beside
//! these (`stage::release`).

use super::{Check, GATES, GateOutcome};
use crate::actors::Classified;
use crate::policy::Release;
use crate::render::text::Message;

/// What a release decision looks at.
#[derive(Debug, Clone)]
pub struct ReleaseFacts<'a> {
    pub policy: &'a Release,
    /// The label that must be set (`None`: no label needed).
    pub require_label: Option<&'a str>,
    pub pipeline: Pipeline,
    /// The open pull request; `None` for the post-merge check, which looks at the
    /// pipeline of the merge commit only.
    pub open: Option<OpenFacts>,
    /// The base's policy turns the merge queue on (`queue.enabled`): release queues the
    /// pull request instead of merging it, and does not wait for a branch that is
    /// `behind` its base (the queue commit is what gets tested).
    pub queue: bool,
    /// The pull request's class from live facts, with the rules for agents
    /// (`human_approval`; the review gates release evaluates again read it too). `None`:
    /// the caller did not classify it, and release decides as it did before `actors`.
    pub actor: Option<Classified<'a>>,
}

/// The checks reported on one commit: the pull request's head, or after the merge the
/// merge commit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pipeline {
    pub sha: String,
    /// The merge commit's pipeline (the post-merge check), not the head's.
    pub merge_commit: bool,
    /// The newest report of every check run and commit status, this run's own job
    /// left out.
    pub checks: Vec<CheckFact>,
    /// Left out: the job running this very step (it cannot wait for itself).
    pub own: Vec<CheckFact>,
    /// Why this run's own job could not be told apart, when a job of this workflow run
    /// is still running on the commit (it then counts as any other pending check).
    pub own_unknown: Option<String>,
    /// Every check was read (false: more than council reads; what was not read waits).
    pub complete: bool,
}

/// One check run or commit status, its newest report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckFact {
    pub name: String,
    pub kind: CheckKind,
    pub state: CheckState,
    /// A check run's id: a job's check run has its job's id, which tells this run's own
    /// job apart.
    pub id: Option<u64>,
    pub url: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckKind {
    Run,
    Status,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckState {
    Success,
    /// `neutral` or `skipped`: green when `release.neutral_is_green`.
    Neutral(String),
    /// Not finished: queued, in progress, waiting, pending, expected.
    Pending(String),
    /// Finished and not green: failure, cancelled, timed out, action required, error.
    Red(String),
}

impl CheckState {
    /// A check run's `status` and `conclusion`, as GraphQL (`IN_PROGRESS`) or REST
    /// (`in_progress`) spell them.
    pub fn of_check_run(status: &str, conclusion: Option<&str>) -> CheckState {
        let status = words(status);
        if status != "completed" {
            return CheckState::Pending(status);
        }
        match conclusion.map(words).as_deref() {
            Some("success") => CheckState::Success,
            Some(c @ ("neutral" | "skipped")) => CheckState::Neutral(c.to_string()),
            Some(other) => CheckState::Red(other.to_string()),
            // GitHub sets both together; a completed run without a conclusion is not
            // green, and is not known to be red.
            None => CheckState::Pending("completed without a conclusion".to_string()),
        }
    }

    /// A commit status's `state` (`SUCCESS`, `pending`, `EXPECTED`, `failure`, `error`).
    pub fn of_status(state: &str) -> CheckState {
        match words(state).as_str() {
            "success" => CheckState::Success,
            s @ ("pending" | "expected") => CheckState::Pending(s.to_string()),
            other => CheckState::Red(other.to_string()),
        }
    }
}

/// `IN_PROGRESS` → `in progress`.
fn words(s: &str) -> String {
    s.to_ascii_lowercase().replace('_', " ")
}

/// GitHub's view of whether the pull request can merge (`mergeStateStatus`, with
/// `mergeable` for conflicts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mergeable {
    Clean,
    HasHooks,
    /// Mergeable, with a check that is not green: council's own pipeline check decides
    /// (this run's own job, still running, makes every pull request unstable).
    Unstable,
    Blocked,
    Behind,
    Dirty,
    Draft,
    /// Still being computed (or a state this build does not know): never merged on.
    Unknown,
}

impl Mergeable {
    /// GraphQL's `mergeable` (`MERGEABLE`, `CONFLICTING`, `UNKNOWN`) and
    /// `mergeStateStatus` (REST's `mergeable_state`, upper-cased).
    pub fn of(mergeable: &str, state: &str) -> Mergeable {
        let mergeable = mergeable.to_ascii_uppercase();
        match state.to_ascii_uppercase().as_str() {
            _ if mergeable == "CONFLICTING" => Mergeable::Dirty,
            "DIRTY" => Mergeable::Dirty,
            _ if mergeable == "UNKNOWN" => Mergeable::Unknown,
            "CLEAN" => Mergeable::Clean,
            "HAS_HOOKS" => Mergeable::HasHooks,
            "UNSTABLE" => Mergeable::Unstable,
            "BLOCKED" => Mergeable::Blocked,
            "BEHIND" => Mergeable::Behind,
            "DRAFT" => Mergeable::Draft,
            _ => Mergeable::Unknown,
        }
    }

    pub fn allows_merge(self) -> bool {
        matches!(
            self,
            Mergeable::Clean | Mergeable::HasHooks | Mergeable::Unstable
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mergeable::Clean => "clean",
            Mergeable::HasHooks => "has_hooks",
            Mergeable::Unstable => "unstable",
            Mergeable::Blocked => "blocked",
            Mergeable::Behind => "behind",
            Mergeable::Dirty => "dirty",
            Mergeable::Draft => "draft",
            Mergeable::Unknown => "unknown",
        }
    }
}

/// The open pull request, as read just before deciding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenFacts {
    /// The head now.
    pub head_sha: String,
    /// The head the event was about (its payload, or the commit it named).
    pub event_head: String,
    pub draft: bool,
    pub mergeable: Mergeable,
    /// How often the pull request was read while GitHub computed its mergeability.
    pub reads: u32,
    pub labels: Vec<String>,
    /// Each reviewer's latest review that took a side (writers only).
    pub reviews: Vec<ReviewFact>,
    pub auto_merge: Option<AutoMerge>,
    pub in_merge_queue: bool,
    /// The pull request's author: their own approval does not count.
    pub author: String,
    /// The logins GitHub credits as an author or co-author of any of its listed commits
    /// (`Commit.authors`): their approvals do not count for an agent's pull request.
    /// Empty when not read.
    pub commit_authors: Vec<String>,
    /// The merge queue's label is on, but was last added before the head moved or the
    /// pull request was retargeted (the issue timeline lists a push or a
    /// `base_ref_changed` after its last `labeled` event): that place in line was for an
    /// older head or another base. Read only under a queue, when the label is on and
    /// every gate passes; `false` otherwise.
    pub queued_before_a_move: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewFact {
    pub login: String,
    /// `APPROVED`, `CHANGES_REQUESTED`, `DISMISSED`.
    pub state: String,
    /// An app's account (`…[bot]`): its approval does not count.
    pub bot: bool,
    /// The commit the review was made on; `None` when not read (an agent's pull request
    /// then counts it as not on the head).
    pub commit: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoMerge {
    pub enabled_by: String,
    pub method: String,
}

/// Every release gate's decision, in the order of the gate table.
pub fn evaluate(facts: &ReleaseFacts) -> Vec<GateOutcome> {
    GATES
        .iter()
        .filter_map(|gate| match gate.check {
            Check::Release(check) => check(facts),
            _ => None,
        })
        .collect()
}

/// A commit as messages show it.
pub fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

/// `"a", "b" and 3 more`: at most `MAX_LISTED` items named.
pub(super) fn listing<T>(items: &[T], mut item: impl FnMut(Message, &T) -> Message) -> Message {
    const MAX_LISTED: usize = 5;
    let mut message = Message::new();
    for (i, it) in items.iter().take(MAX_LISTED).enumerate() {
        if i > 0 {
            message = message.text(", ");
        }
        message = item(message, it);
    }
    if items.len() > MAX_LISTED {
        message = message.text(format!(" and {} more", items.len() - MAX_LISTED));
    }
    message
}

pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests;
