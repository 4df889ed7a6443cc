//! Effects as data: every write any command makes to GitHub, and what became of it.
//! Stages return [`Effect`]s, and so do the other commands (state, reports, the
//! ledger's comment); one executor (`app::effects`) performs them all, so dry runs,
//! read-only tokens, the release token and retries mean the same thing everywhere.

use std::borrow::Cow;

use crate::audit::stored::COMMENT_LIMIT;
use crate::policy::MergeMethod;
use crate::render::text::Message;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// A comment that is posted once: a comment of ours that starts with `marker`
    /// already being there counts as done (the close-on-fail explanation). Prose: cut
    /// to fit when it is too long ([`Oversize::Cut`]).
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
    /// A new comment (an `<agent-state>` block: each state is its own comment). Sized by
    /// its writer and posted whole ([`Oversize::Whole`]).
    PostComment {
        issue: u64,
        body: String,
    },
    /// The one comment of ours that starts with `marker` says `body` (a context report):
    /// edited when it differs, posted when missing, duplicates deleted. Posted whole.
    UpsertComment {
        issue: u64,
        marker: String,
        body: String,
    },
    /// The Context Object comment: comment `comment` edited to `body` (posted again when
    /// it was deleted meanwhile), or a new comment when there is none. Posted whole.
    WriteComment {
        issue: u64,
        comment: Option<u64>,
        body: String,
    },
    /// A duplicate comment of ours, left by a racing run.
    DeleteComment {
        id: u64,
    },
    /// The merge queue's label on a pull request release would merge: its place in line
    /// (`action:enqueue`). A label, so the workflow token adds it.
    Enqueue {
        number: u64,
        label: String,
    },
    /// A new branch at `sha` (`POST /git/refs`): a queue or build branch of council's.
    CreateRef {
        branch: String,
        sha: String,
    },
    /// Council's own queue or build branch moved to `sha` whatever it held (`PATCH
    /// /git/refs` with `force: true`). Never a base and never a pull request's branch.
    ResetRef {
        branch: String,
        sha: String,
    },
    /// The base moved to `sha` only if that is a fast-forward (`PATCH /git/refs` with
    /// `force: false`): GitHub refuses when the base moved meanwhile, so the base becomes
    /// exactly the commit whose checks were read green, or stays as it is.
    FastForward {
        branch: String,
        sha: String,
    },
    /// A queue or build branch of council's removed (`DELETE /git/refs`).
    DeleteRef {
        branch: String,
    },
    /// Commit `head` merged into `branch` with `message` (`POST /merges`): the merge
    /// commit's SHA, a conflict (409) or nothing to merge (204) go back to the queue's
    /// [`crate::queue::Builder`].
    MergeInto {
        branch: String,
        head: String,
        message: String,
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

/// What may become of a comment body that is longer than GitHub accepts (65,536
/// characters, counted in Unicode code points). Decided by the kind of comment, never
/// by the executor that posts it: a block a program reads back must not be cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Oversize {
    /// Prose for a person (the close-on-fail explanation, whose whole text is also in the
    /// job summary): cut, with a note saying so, rather than refused with 422, which
    /// would leave a closed pull request without its explanation.
    Cut,
    /// A block a reader parses back (an `<agent-state>`, a context report, the Context
    /// Object): its writer sizes it by its own rules (compacting memory, leaving out the
    /// oldest timeline entries, refusing a report), and it is posted whole or not at all.
    /// Cut, it would lose its closing tags and be skipped as malformed by every reader,
    /// and the state or report in it would be lost.
    Whole,
}

/// A body over GitHub's limit that may not be cut: nothing is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLong {
    /// Its length in code points.
    pub chars: usize,
}

impl Oversize {
    /// The body to post: `body` itself when it fits; else, under [`Oversize::Cut`], its
    /// start and a note (512 characters under the limit), and under [`Oversize::Whole`]
    /// an error.
    pub fn fit(self, body: &str) -> Result<Cow<'_, str>, TooLong> {
        const NOTE: &str =
            "\n\n… (cut to fit GitHub's comment limit; the job summary has the whole text)\n";
        const CUT_TO: usize = COMMENT_LIMIT - 512;
        let chars = body.chars().count();
        match self {
            Oversize::Cut if chars > CUT_TO => {
                let keep: String = body.chars().take(CUT_TO - NOTE.chars().count()).collect();
                Ok(Cow::Owned(keep + NOTE))
            }
            Oversize::Whole if chars > COMMENT_LIMIT => Err(TooLong { chars }),
            Oversize::Cut | Oversize::Whole => Ok(Cow::Borrowed(body)),
        }
    }
}

impl Effect {
    /// What may become of the comment it writes when that is too long; `None` for the
    /// effects that write no comment.
    pub fn oversize(&self) -> Option<Oversize> {
        match self {
            Effect::CommentOnce { .. } => Some(Oversize::Cut),
            Effect::PostComment { .. }
            | Effect::UpsertComment { .. }
            | Effect::WriteComment { .. } => Some(Oversize::Whole),
            Effect::ClosePr { .. }
            | Effect::AddLabel { .. }
            | Effect::RemoveLabel { .. }
            | Effect::Merge { .. }
            | Effect::Revert { .. }
            | Effect::DeleteComment { .. }
            | Effect::Enqueue { .. }
            | Effect::CreateRef { .. }
            | Effect::ResetRef { .. }
            | Effect::FastForward { .. }
            | Effect::DeleteRef { .. }
            | Effect::MergeInto { .. } => None,
        }
    }

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
            Effect::Merge(_) | Effect::FastForward { .. } => "action:merge",
            Effect::Revert(_) => "action:revert",
            Effect::Enqueue { .. } => "action:enqueue",
            Effect::MergeInto { .. } => "action:queue-test",
            Effect::CreateRef { .. } | Effect::ResetRef { .. } | Effect::DeleteRef { .. } => {
                "action:queue-branch"
            }
        }
    }

    /// Merges, reverts and every ref write and merge of the queue use the release token:
    /// a push or merge by `GITHUB_TOKEN` starts no workflow (no CI on a queue commit, no
    /// deployment after a landing), and the workflow token should not be able to merge
    /// at all.
    pub fn needs_release_token(&self) -> bool {
        matches!(
            self,
            Effect::Merge(_)
                | Effect::Revert(_)
                | Effect::CreateRef { .. }
                | Effect::ResetRef { .. }
                | Effect::FastForward { .. }
                | Effect::DeleteRef { .. }
                | Effect::MergeInto { .. }
        )
    }

    /// The pull request or issue the effect writes to, if one: its report belongs in
    /// that pull request's ledger. Ref writes and merges belong to no single one.
    pub fn issue(&self) -> Option<u64> {
        match self {
            Effect::CommentOnce { issue, .. }
            | Effect::AddLabel { issue, .. }
            | Effect::RemoveLabel { issue, .. }
            | Effect::PostComment { issue, .. }
            | Effect::UpsertComment { issue, .. }
            | Effect::WriteComment { issue, .. } => Some(*issue),
            Effect::ClosePr { number } | Effect::Enqueue { number, .. } => Some(*number),
            Effect::Merge(m) => Some(m.number),
            Effect::Revert(r) => Some(r.number),
            Effect::DeleteComment { .. }
            | Effect::CreateRef { .. }
            | Effect::ResetRef { .. }
            | Effect::FastForward { .. }
            | Effect::DeleteRef { .. }
            | Effect::MergeInto { .. } => None,
        }
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
            Effect::Enqueue { number, label } => {
                format!("add the label `{label}` to #{number} (its place in the merge queue)")
            }
            Effect::CreateRef { branch, sha } => {
                format!("create the branch `{branch}` at {}", short(sha))
            }
            Effect::ResetRef { branch, sha } => {
                format!("point the branch `{branch}` at {}", short(sha))
            }
            Effect::FastForward { branch, sha } => {
                format!("fast-forward `{branch}` to {}", short(sha))
            }
            Effect::DeleteRef { branch } => format!("delete the branch `{branch}`"),
            Effect::MergeInto { branch, head, .. } => {
                format!("merge {} into `{branch}`", short(head))
            }
        }
    }
}

fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn comment_effects() -> Vec<Effect> {
        let body = String::new();
        vec![
            Effect::CommentOnce {
                issue: 1,
                marker: "m".into(),
                body: body.clone(),
            },
            Effect::PostComment {
                issue: 1,
                body: body.clone(),
            },
            Effect::UpsertComment {
                issue: 1,
                marker: "m".into(),
                body: body.clone(),
            },
            Effect::WriteComment {
                issue: 1,
                comment: None,
                body,
            },
        ]
    }

    #[test]
    fn only_the_close_on_fail_explanation_may_be_cut() {
        let oversize: Vec<Option<Oversize>> =
            comment_effects().iter().map(Effect::oversize).collect();
        assert_eq!(
            oversize,
            [
                Some(Oversize::Cut),
                Some(Oversize::Whole),
                Some(Oversize::Whole),
                Some(Oversize::Whole)
            ]
        );
        assert_eq!(Effect::DeleteComment { id: 1 }.oversize(), None);
    }

    #[test]
    fn prose_is_cut_under_the_limit_with_a_note() {
        let body = "x".repeat(100_000);
        let fitted = Oversize::Cut.fit(&body).unwrap();
        assert!(fitted.chars().count() <= COMMENT_LIMIT - 512);
        assert!(fitted.ends_with("the job summary has the whole text)\n"));
        assert!(matches!(
            Oversize::Cut.fit("short"),
            Ok(Cow::Borrowed("short"))
        ));
    }

    /// Up to the limit exactly, in code points: 4-byte characters count as one.
    #[test]
    fn a_block_is_posted_whole_up_to_the_limit_and_never_cut() {
        for unit in ["x", "é", "😀"] {
            let at = unit.repeat(COMMENT_LIMIT);
            let fitted = Oversize::Whole.fit(&at).unwrap();
            assert!(matches!(fitted, Cow::Borrowed(b) if b == at), "{unit}");
            let over = unit.repeat(COMMENT_LIMIT + 1);
            assert_eq!(
                Oversize::Whole.fit(&over),
                Err(TooLong {
                    chars: COMMENT_LIMIT + 1
                })
            );
        }
        // Between the prose limit and GitHub's: a block is kept, prose is cut.
        let block = format!("{}</agent-state>", "x".repeat(COMMENT_LIMIT - 300));
        assert_eq!(Oversize::Whole.fit(&block).as_deref(), Ok(block.as_str()));
        assert!(
            !Oversize::Cut
                .fit(&block)
                .unwrap()
                .contains("</agent-state>")
        );
    }

    proptest::proptest! {
        /// Bodies of multi-byte characters around the limit: cut by characters, never
        /// inside one, to a prefix of the body and the note.
        #[test]
        fn a_multi_byte_body_is_cut_by_characters(
            lead in (COMMENT_LIMIT - 600)..(COMMENT_LIMIT - 400),
            tail in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just('é'),
                    proptest::strategy::Just('€'),
                    proptest::strategy::Just('📝'),
                    proptest::prelude::any::<char>(),
                ],
                0..300,
            ),
        ) {
            let body = "x".repeat(lead) + &tail.into_iter().collect::<String>();
            let fitted = Oversize::Cut.fit(&body).unwrap();
            proptest::prop_assert!(fitted.chars().count() <= COMMENT_LIMIT - 512);
            match fitted.split_once("\n\n… (cut to fit") {
                Some((kept, _)) => proptest::prop_assert!(body.starts_with(kept)),
                None => proptest::prop_assert_eq!(fitted.as_ref(), body.as_str()),
            }
        }
    }

    #[test]
    fn every_ref_write_and_merge_needs_the_release_token() {
        let sha = "0123456789abcdef0123456789abcdef01234567".to_string();
        let refs = [
            Effect::CreateRef {
                branch: "council/queue/main".into(),
                sha: sha.clone(),
            },
            Effect::ResetRef {
                branch: "council/queue/main".into(),
                sha: sha.clone(),
            },
            Effect::FastForward {
                branch: "main".into(),
                sha: sha.clone(),
            },
            Effect::DeleteRef {
                branch: "council/queue/main".into(),
            },
            Effect::MergeInto {
                branch: "council/queue-build/main".into(),
                head: sha.clone(),
                message: "m".into(),
            },
        ];
        let described: Vec<String> = refs
            .iter()
            .map(|e| {
                assert!(e.needs_release_token(), "{e:?}");
                assert_eq!(e.issue(), None);
                format!("{}: {}", e.action(), e.describe())
            })
            .collect();
        insta::assert_snapshot!(described.join("\n"), @r"
        action:queue-branch: create the branch `council/queue/main` at 0123456
        action:queue-branch: point the branch `council/queue/main` at 0123456
        action:merge: fast-forward `main` to 0123456
        action:queue-branch: delete the branch `council/queue/main`
        action:queue-test: merge 0123456 into `council/queue-build/main`
        ");
        let enqueue = Effect::Enqueue {
            number: 7,
            label: "council:queued".into(),
        };
        assert!(
            !enqueue.needs_release_token(),
            "a label: the workflow token"
        );
        assert_eq!(enqueue.issue(), Some(7));
        insta::assert_snapshot!(format!("{}: {}", enqueue.action(), enqueue.describe()), @"action:enqueue: add the label `council:queued` to #7 (its place in the merge queue)");
    }
}
