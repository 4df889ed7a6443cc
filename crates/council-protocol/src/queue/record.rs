//! What a queue run records and reports: ledger entries per pull request, the
//! `queue-status`/`queue-sha` outputs, and the set-up errors that stop it.

use crate::audit::timeline::Record;
use crate::error::Outcome;
use crate::gates::{Fix, GateOutcome};
use crate::render::text::Message;

/// A pull request in a queue commit: its number and the head merged in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub number: u64,
    pub head: String,
}

/// One ledger entry for one pull request, decided by the queue. The app appends it to
/// that pull request's Context Object as the release agent's (`agent_release`), with
/// the pull request's head as the entry's `sha`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueRecord {
    pub pr: u64,
    /// The head SHA the record is about.
    pub sha: String,
    /// `action:enqueue`, `action:queue-test`, `check:queue`, `action:merge`,
    /// `action:dequeue` (a pull request that left the queue without failing it).
    pub action: &'static str,
    /// `DONE` for actions; `PASS`, `FAIL` or `PENDING` for `check:queue`.
    pub result: &'static str,
    pub message: String,
    /// The gate outcome a `check:queue` record carries (for annotations and comments).
    pub gate: Option<GateOutcome>,
}

impl QueueRecord {
    pub(super) fn action(pr: &Member, action: &'static str, message: &Message) -> QueueRecord {
        QueueRecord {
            pr: pr.number,
            sha: pr.head.clone(),
            action,
            result: "DONE",
            message: message.plain(),
            gate: None,
        }
    }

    pub(super) fn gate(pr: &Member, gate: GateOutcome) -> QueueRecord {
        QueueRecord {
            pr: pr.number,
            sha: pr.head.clone(),
            action: gate.action,
            result: gate.verdict.as_str(),
            message: gate.timeline_message(),
            gate: Some(gate),
        }
    }

    /// The timeline record ([`crate::audit::timeline::new_entry`] adds run and time).
    pub fn record(&self) -> Record {
        Record {
            stage: "release",
            agent: "agent_release",
            action: self.action.to_string(),
            result: self.result.to_string(),
            message: self.message.clone(),
        }
    }

    /// A failed `check:queue`: the pull request left the queue for it (exit 1).
    pub fn failed(&self) -> bool {
        self.action == "check:queue" && self.result == "FAIL"
    }
}

/// `queue-status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum QueueStatus {
    /// Release put the pull request in line.
    Queued,
    /// A pull request left the queue for a red or timed-out test, or a conflict.
    Dequeued,
    /// A queue commit became the base.
    Landed,
    /// A queue commit is in test.
    Testing,
}

impl QueueStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            QueueStatus::Queued => "QUEUED",
            QueueStatus::Dequeued => "DEQUEUED",
            QueueStatus::Landed => "LANDED",
            QueueStatus::Testing => "TESTING",
        }
    }
}

/// `queue-status` and `queue-sha` of a run. SPEC: when a run acts on several pull
/// requests they describe the queue commit it left in test, else the one it landed
/// last; a dequeue (with nothing left in test or landed) names the red commit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueOutputs {
    pub status: Option<QueueStatus>,
    pub sha: Option<String>,
}

impl QueueOutputs {
    pub fn of(status: QueueStatus, sha: Option<&str>) -> QueueOutputs {
        QueueOutputs {
            status: Some(status),
            sha: sha.map(str::to_string),
        }
    }

    /// Combines what happened earlier in the run with what happened later: testing
    /// beats landed beats dequeued beats queued; at the same rank the later one counts.
    pub fn then(self, later: QueueOutputs) -> QueueOutputs {
        match (self.status, later.status) {
            (_, None) => self,
            (None, Some(_)) => later,
            (Some(a), Some(b)) if b >= a => later,
            _ => self,
        }
    }
}

/// What keeps the queue from running at all: the queue is left as it was, and the run
/// exits 3 with the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    /// No `release-token`: the workflow token's pushes and merges start no workflow.
    NoReleaseToken,
    /// The base requires linear history: a queue commit is a merge.
    LinearHistory { rule: String },
    /// The base's protection refused the release token's fast-forward.
    Protected { rule: String },
}

impl SetupError {
    pub fn message(&self, base: &str) -> Message {
        match self {
            SetupError::NoReleaseToken => {
                Message::new().text("the merge queue of ").value(base).text(
                    " does not run without a `release-token`: pushes and merges made with \
                     the workflow token start no workflow, so no CI would test a queue commit.",
                )
            }
            SetupError::LinearHistory { rule } => Message::new()
                .text("the merge queue cannot land on ")
                .value(base)
                .text(": it requires linear history (")
                .value(rule)
                .text("), and a queue commit is made of merge commits."),
            SetupError::Protected { rule } => Message::new()
                .text("the base ")
                .value(base)
                .text(" refused the release token's fast-forward to the queue commit: ")
                .value(rule)
                .text("."),
        }
    }

    pub fn fix(&self) -> Fix {
        let advice = match self {
            SetupError::NoReleaseToken => {
                "set the `release-token` input (a GitHub App installation token or a \
                 fine-grained token with contents: write and pull-requests: write; see \
                 docs/src/release.md), or turn the queue off (`queue.enabled: false`)"
            }
            SetupError::LinearHistory { .. } => {
                "turn off \"Require linear history\" for this base (branch protection or \
                 ruleset), or turn the queue off (`queue.enabled: false`)"
            }
            SetupError::Protected { .. } => {
                "let the release token's identity push to the base: add the GitHub App (or \
                 the token's user) to the ruleset's bypass list or to branch protection's \
                 \"allow to push\" list; its token needs contents: write"
            }
        };
        Fix {
            advice: Message::new().text(advice),
            commands: Vec::new(),
        }
    }

    /// A set-up error is a verdict that could not be acted on: GitHub refused it (exit 3).
    pub fn outcome(&self) -> Outcome {
        Outcome::Unfinished(crate::error::Kind::Service)
    }
}
