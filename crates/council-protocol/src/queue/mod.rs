//! The merge queue (SPEC "Merge queue"), as pure decisions: it lands only a commit whose
//! checks it read green, and that commit is exactly what the base becomes (the "not
//! rocket science" rule of bors). Nothing is kept between runs: each run reads the queue
//! from GitHub, decides, writes, and ends.
//!
//! # One run, as the app drives it
//!
//! 1. **Read the facts** ([`QueueFacts`]) for one base: its head (and whether its
//!    protection requires linear history), the release token's login, the open pull
//!    requests into it labelled `council:queued` with the time the label was last added
//!    and whether the head moved since (the issue timeline: [`label_time`],
//!    [`retargeted_since_label`]), the queue branch
//!    `<prefix><base>` if it exists: the first-parent walk from its head
//!    ([`next_in_chain`] says which commit to read next, at most 16; [`QueueBranch::from_commits`]
//!    makes the chain) and the checks on its head (a [`crate::gates::release::Pipeline`],
//!    this run's own job left out as release does), the pull requests the chain's merges
//!    name (closed ones too), and `now`.
//! 2. **Decide the pull requests** [`QueueFacts::to_decide`] lists (those in the queue
//!    commit and the head of the line): the release stage with `ReleaseFacts::queue`
//!    set, the review read, turned into [`LiveVerdict::of_release`].
//! 3. **Plan**: [`plan`] gives a [`QueuePlan`]. A [`SetupError`] (no release token, a
//!    base requiring linear history) ends the run with exit 3 and no write.
//! 4. **Perform** `plan.effects` in order with the one executor (labels removed,
//!    comments, a queue branch deleted), append `plan.records` to each pull request's
//!    ledger, then the [`Action`]:
//!    - [`Action::Build`]: `let mut b = build.start();` then loop: `b.step()` gives
//!      [`BuildStep::Do`] an effect to perform, reported back with `b.report(result)`
//!      (mapping GitHub's answer to a [`StepResult`]: a merge's new SHA, 409 conflict,
//!      204 nothing to merge, 422 exists/missing), until [`BuildStep::Done`] gives the
//!      [`Built`] queue commit, its ledger records and outputs;
//!    - [`Action::Land`]: perform [`Landing::effect`] (the fast-forward); when done, the
//!      [`Landed`] effects and records, then its `next` build as above; when refused,
//!      [`Landing::refused`] with [`Refusal::of_response`] (a moved base waits for the
//!      next run, which the push to the base starts; a protected base is a set-up error);
//!    - [`Action::Wait`] and [`Action::Idle`]: nothing more.
//! 5. **Report**: `queue-status`/`queue-sha` from the [`QueueOutputs`] of each step,
//!    combined with [`QueueOutputs::then`]; the exit code from [`outcome`] over the
//!    records (a failed test or conflict is 1), worse when a write failed (3).
//!
//! Every ref write and merge needs the release token ([`crate::stage::Effect::needs_release_token`]):
//! pushes with the workflow token start no workflow, so no CI would test a queue commit.
//! Queue runs must not overlap while they build (a workflow `concurrency` group per
//! repository); landing is safe anyway, since the base only moves by a fast-forward to
//! a commit whose checks were read green.
//!
//! # What a queue commit is
//!
//! The base's head, then each pull request's head merged in, in line order (one, or up
//! to `batch_size`): a chain of merges made by the release token's identity through
//! `POST /merges` on a build branch outside `<prefix>**` (so CI runs once per queue
//! commit), then the queue branch pointed at it. Its first parents lead down to the base
//! commit it was built on, its second parents are the pull requests' heads: that, not
//! any stored state, says what it holds. Each merge's message names its pull request and
//! the sizes planned after it while a red batch is bisected ([`message`]), read back as a
//! hint only. A branch head that is not such a chain, or not made by the release
//! token's identity, is never landed: the queue makes its own over it, with a warning.

mod build;
mod facts;
mod land;
pub mod message;
mod order;
mod plan;
mod record;
mod render;
mod timeline;

pub use build::{Build, BuildReason, BuildStep, Builder, Built, StepResult};
pub use facts::{
    BaseFacts, Chain, CommitFact, Link, LiveVerdict, PrState, QueueBranch, QueueFacts, QueuedPr,
    is_queue_merge, next_in_chain,
};
pub use land::{Landed, Landing, NotLanded, Refusal};
pub use order::{compare, line};
pub use plan::{Action, QueuePlan, outcome, plan};
pub use record::{Member, QueueOutputs, QueueRecord, QueueStatus, SetupError};
pub use timeline::{Timeline, TimelineItem, label_time, retargeted_since_label};

#[cfg(test)]
mod tests;
