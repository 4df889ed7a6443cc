//! Effects as data: every write any command makes to GitHub, and what became of it.
//! Stages return [`Effect`]s, and so do the other commands (state, reports, the
//! ledger's comment); one executor (`app::effects`) performs them all, so dry runs,
//! read-only tokens, the release token and retries mean the same thing everywhere.

use crate::policy::MergeMethod;
use crate::render::text::Message;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// A comment that is posted once: a comment of ours that starts with `marker`
    /// already being there counts as done (the close-on-fail explanation).
    CommentOnce {
        issue: u64,
        marker: String,
        body: String,
    },
    /// Close the pull request; only after the effect before it (its explanation) is
    /// in place, so that nobody's pull request is closed without a word.
    ClosePr {
        number: u64,
    },
    AddLabel {
        issue: u64,
        label: String,
    },
    RemoveLabel {
        issue: u64,
        label: String,
    },
    /// Merge with the head SHA as guard (a push landing meanwhile fails the merge), then
    /// read back the base GitHub merged into.
    Merge(Merge),
    /// Open a pull request that reverts a merged one, with the release token.
    Revert(Revert),
    /// A new comment (an `<agent-state>` block: each state is its own comment).
    PostComment {
        issue: u64,
        body: String,
    },
    /// The one comment of ours that starts with `marker` says `body` (a context report):
    /// edited when it differs, posted when missing, duplicates deleted.
    UpsertComment {
        issue: u64,
        marker: String,
        body: String,
    },
    /// The Context Object comment: comment `comment` edited to `body` (posted again when
    /// it was deleted meanwhile), or a new comment when there is none.
    WriteComment {
        issue: u64,
        comment: Option<u64>,
        body: String,
    },
    /// A duplicate comment of ours, left by a racing run.
    DeleteComment {
        id: u64,
    },
}

/// A merge as release decided it: the two commits the decision is about. GitHub's merge
/// endpoint pins only the head, so the base is confirmed right after the merge
/// ([`crate::stage::release::misplaced`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merge {
    pub number: u64,
    /// The head SHA decided on: GitHub refuses the merge once the head moved.
    pub sha: String,
    /// The base branch decided for, and its head when the diff was read.
    pub base: String,
    pub base_sha: String,
    pub method: MergeMethod,
    /// The revert to open when the merge lands on another base (`release.rollback`).
    pub revert_if_misplaced: Option<Revert>,
}

/// A pull request that reverts merged pull request `number` (GraphQL `revertPullRequest`
/// on its node id `pull_id`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revert {
    pub number: u64,
    pub pull_id: String,
    pub title: String,
    pub body: String,
}

impl Effect {
    /// The timeline action that records it.
    pub fn action(&self) -> &'static str {
        match self {
            Effect::CommentOnce { .. }
            | Effect::PostComment { .. }
            | Effect::UpsertComment { .. }
            | Effect::WriteComment { .. }
            | Effect::DeleteComment { .. } => "action:comment",
            Effect::ClosePr { .. } => "action:close-pr",
            Effect::AddLabel { .. } | Effect::RemoveLabel { .. } => "action:label",
            Effect::Merge(_) => "action:merge",
            Effect::Revert(_) => "action:revert",
        }
    }

    /// Only merges and reverts use the release token: a merge by `GITHUB_TOKEN` would
    /// start no workflow on the base branch, and the workflow token should not be able
    /// to merge at all.
    pub fn needs_release_token(&self) -> bool {
        matches!(self, Effect::Merge(_) | Effect::Revert(_))
    }

    /// Performed only when the effect before it in the same stage is in place.
    pub fn needs_previous(&self) -> bool {
        matches!(self, Effect::ClosePr { .. })
    }

    /// What it would do, for "dry run: would …" and "skipped: …" messages.
    pub fn describe(&self) -> String {
        match self {
            Effect::CommentOnce { issue, .. } => {
                format!("explain the failure in a comment on #{issue}")
            }
            Effect::ClosePr { number } => format!("close pull request #{number}"),
            Effect::AddLabel { issue, label } => format!("add the label `{label}` to #{issue}"),
            Effect::RemoveLabel { issue, label } => {
                format!("remove the label `{label}` from #{issue}")
            }
            Effect::Merge(m) => format!(
                "merge pull request #{} into `{}` ({})",
                m.number,
                m.base,
                m.method.as_str()
            ),
            Effect::Revert(r) => format!("open a pull request that reverts #{}", r.number),
            Effect::PostComment { issue, .. } => format!("post a comment on #{issue}"),
            Effect::UpsertComment { issue, .. } => {
                format!("post or edit our comment on #{issue}")
            }
            Effect::WriteComment { issue, .. } => {
                format!("write the Context Object comment on #{issue}")
            }
            Effect::DeleteComment { id } => format!("delete the duplicate comment {id}"),
        }
    }
}

/// What happened to one effect (or to the ledger comment, the audit file, the upload).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectReport {
    /// Timeline action, e.g. `action:close-pr`.
    pub action: &'static str,
    pub result: EffectResult,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EffectResult {
    Done(Message),
    /// Already in place (the comment is there, the label is set): nothing to do.
    Unchanged(Message),
    /// Not attempted: dry run, no token, or a precondition not met.
    Skipped(Message),
    /// The token may not write (fork pull requests get a read-only token): a warning.
    Refused(Message),
    /// Not done because the world moved under it (a push landed between the read and
    /// the merge): nothing failed, the next event decides again. Not a failure.
    Pending(Message),
    Failed(Message),
}

impl EffectReport {
    pub fn new(action: &'static str, result: EffectResult) -> EffectReport {
        EffectReport { action, result }
    }

    /// The timeline `result`.
    pub fn result_str(&self) -> &'static str {
        match self.result {
            EffectResult::Done(_) => "DONE",
            EffectResult::Unchanged(_) | EffectResult::Skipped(_) | EffectResult::Refused(_) => {
                "SKIPPED"
            }
            EffectResult::Pending(_) => "PENDING",
            EffectResult::Failed(_) => "FAILED",
        }
    }

    pub fn message(&self) -> &Message {
        match &self.result {
            EffectResult::Done(m)
            | EffectResult::Unchanged(m)
            | EffectResult::Skipped(m)
            | EffectResult::Refused(m)
            | EffectResult::Pending(m)
            | EffectResult::Failed(m) => m,
        }
    }

    pub fn failed(&self) -> bool {
        matches!(self.result, EffectResult::Failed(_))
    }

    /// Done or already in place: what a following effect may rely on.
    pub fn in_place(&self) -> bool {
        matches!(
            self.result,
            EffectResult::Done(_) | EffectResult::Unchanged(_)
        )
    }
}
