//! Making a queue commit, one write at a time. GitHub's REST API cannot make a commit
//! from several merges at once, and the commit's SHA is known only after the merges, so
//! the app drives a [`Builder`]: it asks for the next [`Effect`], the app performs it and
//! reports what GitHub answered ([`StepResult`]), until the builder says [`Built`].
//!
//! The steps: the build branch at the base's head (created, or reset when a run that
//! stopped left it), each candidate's head merged into it in order until `limit` merged
//! (`POST /merges` with the head SHA: a pull request that moved since is not merged), the
//! queue branch pointed at the result, the build branch deleted, then the comments and
//! labels of pull requests whose merge conflicted. CI runs on the queue branch only, so
//! once per queue commit; no pull request's own branch is ever written.

use super::message;
use super::record::{Member, QueueOutputs, QueueRecord, QueueStatus};
use super::render;
use crate::gates::release::short;
use crate::policy::queue::QUEUED_LABEL;
use crate::render::text::Message;
use crate::stage::Effect;

/// A queue commit to make: what the plan decided, before any write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    pub base: String,
    /// The base's head it is built on.
    pub base_sha: String,
    /// The queue branch (`council/queue/main`): CI tests what it points at.
    pub branch: String,
    /// The build branch (`council/queue-build/main`): no CI runs there.
    pub scratch: String,
    /// The queue branch exists now: it is reset, not created.
    pub branch_exists: bool,
    /// Pull requests to merge, in order; the builder merges up to `limit` of them, and a
    /// conflicting one leaves the queue and makes room for the next.
    pub candidates: Vec<Member>,
    pub limit: usize,
    /// Sizes of the queue commits planned after this one (bisection), written into the
    /// merges' messages.
    pub rest: Vec<u32>,
    pub reason: BuildReason,
    /// For links in comments.
    pub repository_url: String,
}

/// Why a queue commit is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildReason {
    /// No queue commit was in test.
    Start,
    /// The one before landed or failed: the next in line.
    Next,
    /// The base moved during the test: the same pull requests on the new base.
    BaseMoved { was: String },
    /// Pull requests left the queue commit: it is made again without them.
    Dropped { numbers: Vec<u64> },
    /// A red batch is split: its first half is tested.
    Split { red: String, size: usize },
    /// The queue branch held a commit council did not make, or one that does not
    /// match the queue.
    Untrusted { why: String },
}

impl BuildReason {
    fn describe(&self) -> String {
        match self {
            BuildReason::Start | BuildReason::Next => String::new(),
            BuildReason::BaseMoved { was } => {
                format!(
                    "; made again because the base moved from {} during the test",
                    short(was)
                )
            }
            BuildReason::Dropped { numbers } => format!(
                "; made again without {}",
                numbers
                    .iter()
                    .map(|n| format!("#{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            BuildReason::Split { red, size } => {
                format!(
                    "; the first half of the red batch of {size} ({})",
                    short(red)
                )
            }
            BuildReason::Untrusted { .. } => {
                "; made again over a queue branch council did not write".into()
            }
        }
    }

    /// A queue commit made because another one could not be used (the rebuilds SPEC
    /// counts): a base move, a pull request dropped, a split, an untrusted branch.
    pub fn is_rebuild(&self) -> bool {
        !matches!(self, BuildReason::Start | BuildReason::Next)
    }
}

/// What GitHub answered to the builder's last effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepResult {
    /// Written (a ref created, moved or deleted; a label or comment done).
    Done,
    /// `MergeInto` made this merge commit.
    Merged { sha: String },
    /// `MergeInto` conflicted (409).
    Conflict,
    /// `MergeInto` had nothing to merge (204): the head is already in the branch.
    NothingToMerge,
    /// `CreateRef`: the branch exists already (422 "Reference already exists").
    Exists,
    /// `ResetRef` or `DeleteRef`: no such branch (422 or 404).
    Missing,
    /// Not attempted (a dry run, no release token): the build stops here.
    Skipped(Message),
    /// Anything else: the build stops here (exit 3; the next run starts over).
    Failed(Message),
}

/// The next thing the app does for the build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildStep {
    Do(Effect),
    Done(Built),
}

/// What the build came to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Built {
    /// The queue commit now on the queue branch; `None` when none was made.
    pub sha: Option<String>,
    /// The pull requests it holds, in order.
    pub members: Vec<Member>,
    /// Ledger entries: `action:queue-test` for each member, `check:queue` FAIL for each
    /// conflict, `action:dequeue` for a head that was already in the branch.
    pub records: Vec<QueueRecord>,
    pub outputs: QueueOutputs,
    /// Why the build stopped, when a write failed (exit 3).
    pub failed: Option<Message>,
    pub notes: Vec<Message>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// The build branch at the base: created, or reset after "exists".
    Scratch {
        reset: bool,
    },
    /// Merging candidate `next`.
    Merge {
        next: usize,
    },
    /// The queue branch at the result: reset or created, the other way after a refusal.
    Publish {
        reset: bool,
        retried: bool,
    },
    /// The queue branch removed: nothing was merged.
    Unpublish,
    DeleteScratch,
    /// Comments and labels of pull requests that conflicted, `next` of them.
    Dequeue {
        next: usize,
    },
    Finished,
}

/// A [`Build`] under way.
#[derive(Debug, Clone)]
pub struct Builder {
    build: Build,
    state: State,
    tip: String,
    merged: Vec<Member>,
    conflicts: Vec<Member>,
    contained: Vec<Member>,
    /// The effects owed to conflicting pull requests, performed last.
    dequeue: Vec<Effect>,
    built: Built,
}

impl Build {
    pub fn start(self) -> Builder {
        let tip = self.base_sha.clone();
        Builder {
            build: self,
            state: State::Scratch { reset: false },
            tip,
            merged: Vec::new(),
            conflicts: Vec::new(),
            contained: Vec::new(),
            dequeue: Vec::new(),
            built: Built::default(),
        }
    }
}

impl Builder {
    /// The next effect to perform, or the end of the build.
    pub fn step(&mut self) -> BuildStep {
        let b = &self.build;
        let effect = match &self.state {
            State::Scratch { reset: false } => Effect::CreateRef {
                branch: b.scratch.clone(),
                sha: b.base_sha.clone(),
            },
            State::Scratch { reset: true } => Effect::ResetRef {
                branch: b.scratch.clone(),
                sha: b.base_sha.clone(),
            },
            State::Merge { next } => {
                let Some(member) = b
                    .candidates
                    .get(*next)
                    .filter(|_| self.merged.len() < b.limit)
                else {
                    self.state = if self.merged.is_empty() {
                        if b.branch_exists {
                            State::Unpublish
                        } else {
                            State::DeleteScratch
                        }
                    } else {
                        State::Publish {
                            reset: b.branch_exists,
                            retried: false,
                        }
                    };
                    return self.step();
                };
                Effect::MergeInto {
                    branch: b.scratch.clone(),
                    head: member.head.clone(),
                    message: message::write(member.number, &b.base, &b.base_sha, &b.rest),
                }
            }
            State::Publish { reset: true, .. } => Effect::ResetRef {
                branch: b.branch.clone(),
                sha: self.tip.clone(),
            },
            State::Publish { reset: false, .. } => Effect::CreateRef {
                branch: b.branch.clone(),
                sha: self.tip.clone(),
            },
            State::Unpublish => Effect::DeleteRef {
                branch: b.branch.clone(),
            },
            State::DeleteScratch => Effect::DeleteRef {
                branch: b.scratch.clone(),
            },
            State::Dequeue { next } => match self.dequeue.get(*next) {
                Some(effect) => effect.clone(),
                None => {
                    self.state = State::Finished;
                    return self.step();
                }
            },
            State::Finished => return BuildStep::Done(self.finish()),
        };
        BuildStep::Do(effect)
    }

    /// What GitHub answered to the effect [`Builder::step`] gave last.
    pub fn report(&mut self, result: StepResult) {
        let stop = |this: &mut Builder, why: Message, failed: bool| {
            if failed {
                this.built.failed = Some(why);
            } else {
                this.built.notes.push(why);
            }
            // What was merged is not on the queue branch: nothing is in test.
            this.merged.clear();
            this.state = State::Finished;
        };
        match (self.state.clone(), result) {
            (State::Scratch { reset: false }, StepResult::Exists) => {
                self.state = State::Scratch { reset: true };
            }
            (State::Scratch { .. }, StepResult::Done) => self.state = State::Merge { next: 0 },
            (State::Merge { next }, StepResult::Merged { sha }) => {
                if let Some(member) = self.build.candidates.get(next) {
                    self.merged.push(member.clone());
                }
                self.tip = sha;
                self.state = State::Merge { next: next + 1 };
            }
            (State::Merge { next }, StepResult::Conflict) => {
                if let Some(member) = self.build.candidates.get(next) {
                    self.conflicts.push(member.clone());
                }
                self.state = State::Merge { next: next + 1 };
            }
            (State::Merge { next }, StepResult::NothingToMerge) => {
                if let Some(member) = self.build.candidates.get(next) {
                    self.contained.push(member.clone());
                }
                self.state = State::Merge { next: next + 1 };
            }
            (State::Publish { reset, retried: false }, StepResult::Exists | StepResult::Missing) => {
                self.state = State::Publish {
                    reset: !reset,
                    retried: true,
                };
            }
            (State::Publish { .. }, StepResult::Done) => {
                self.built.sha = Some(self.tip.clone());
                self.state = State::DeleteScratch;
            }
            (State::Unpublish, StepResult::Done | StepResult::Missing) => {
                self.state = State::DeleteScratch;
            }
            (State::DeleteScratch, StepResult::Done | StepResult::Missing) => {
                self.begin_dequeue();
            }
            (State::DeleteScratch, StepResult::Failed(why) | StepResult::Skipped(why)) => {
                // The queue commit is in place; a leftover build branch is reset next time.
                self.built.notes.push(
                    Message::new()
                        .text("the build branch ")
                        .value(&self.build.scratch)
                        .text(" was not deleted: ")
                        .append(why),
                );
                self.begin_dequeue();
            }
            (State::Dequeue { next }, _) => self.state = State::Dequeue { next: next + 1 },
            (_, StepResult::Skipped(why)) => stop(self, why, false),
            (_, StepResult::Failed(why)) => stop(self, why, true),
            (state, other) => stop(
                self,
                Message::new().text(format!(
                    "the queue commit was not made: GitHub's answer {other:?} does not fit the step {state:?}"
                )),
                true,
            ),
        }
    }

    fn begin_dequeue(&mut self) {
        let b = &self.build;
        let onto = Message::new()
            .value(&b.base)
            .text(" at ")
            .value(short(&b.base_sha))
            .text(match self.merged.is_empty() {
                true => String::new(),
                false => format!(
                    " with {} merged in",
                    self.merged
                        .iter()
                        .map(|m| format!("#{}", m.number))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        for member in &self.conflicts {
            let gate = crate::gates::queue_conflict(member.number, &b.base, &onto);
            self.dequeue.push(Effect::RemoveLabel {
                issue: member.number,
                label: QUEUED_LABEL.to_string(),
            });
            self.dequeue.push(Effect::CommentOnce {
                issue: member.number,
                marker: render::conflict_marker(&b.base_sha, &member.head),
                body: render::conflict_comment(member, &b.base_sha, &gate),
            });
            self.built.records.push(QueueRecord::gate(member, gate));
        }
        for member in &self.contained {
            self.dequeue.push(Effect::RemoveLabel {
                issue: member.number,
                label: QUEUED_LABEL.to_string(),
            });
            let note = Message::new()
                .text(format!(
                    "#{} left the merge queue: its head ",
                    member.number
                ))
                .value(short(&member.head))
                .text(" is already in ")
                .append(onto.clone())
                .text(", so there is nothing of its own to test or land.");
            self.built
                .records
                .push(QueueRecord::action(member, "action:dequeue", &note));
        }
        self.state = State::Dequeue { next: 0 };
    }

    fn finish(&mut self) -> Built {
        let mut built = std::mem::take(&mut self.built);
        if let Some(sha) = &built.sha {
            let b = &self.build;
            let together = self
                .merged
                .iter()
                .map(|m| format!("#{}", m.number))
                .collect::<Vec<_>>()
                .join(", ");
            let mut records: Vec<QueueRecord> = self
                .merged
                .iter()
                .map(|member| {
                    let message = Message::new()
                        .text(format!("testing #{} in the queue commit ", member.number))
                        .value(short(sha))
                        .text(" on ")
                        .value(&b.branch)
                        .text(": ")
                        .value(&b.base)
                        .text(" at ")
                        .value(short(&b.base_sha))
                        .text(format!(
                            " with {together} merged in{}; it lands when every check on it is green",
                            b.reason.describe()
                        ));
                    QueueRecord::action(member, "action:queue-test", &message)
                })
                .collect();
            records.append(&mut built.records);
            built.records = records;
            built.outputs = QueueOutputs::of(QueueStatus::Testing, Some(sha));
        } else if !self.conflicts.is_empty() {
            built.outputs = QueueOutputs::of(QueueStatus::Dequeued, None);
        }
        built.members = std::mem::take(&mut self.merged);
        built
    }
}
